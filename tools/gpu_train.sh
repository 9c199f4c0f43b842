#!/usr/bin/env bash
# Train the locator and the reader on a lent GPU machine (the `device` tool) in one call.
#
# The GPU machine is lent by chance, for 30 minutes a session, 10 minutes a command, and
# it forgets everything once idle for 30 s. So one call does it all: install the few
# packages its image lacks (wheels carried in .whl/), generate the data on its 16 cores,
# train both models at once on the one GPU within a time budget, and leave the weights
# in $OUT. Run it again in the next call and it continues from the weights of the last
# call where the machine is still warm (else from the shipped or candidate weights).
#
# Once, here (a machine with PyPI access):
#   echo /.whl/ >> .git/info/exclude
#   bash tools/gpu_train.sh --fetch-wheels
# Then with the device tool: run(command="bash tools/gpu_train.sh", carry=[".whl", "data/cache"])
# and bring the files back:
#   shanghai train export --detector FILES/cards-detector.pt --reader FILES/cards-reader.pt \
#       --to models/candidate --int8 --calibrate data/train/tiles/train \
#       --calibrate-crops data/train/crops/train     # (any generated tiles / crops folders)
# then re-run tests/benchmarks/read_floor.py to set MIN_READ for the new model.
#
# Settings (environment): MINUTES (training budget, default 5), TILE_SCENES (6000),
# CROP_SCENES (6000), SEED (31), ROOK_SHARE (0.35: tables dealt Rook decks; the
# generator's default is 0.25, raised while Rook indices lag, see models/MODEL_CARD.md),
# EXTRA_JOKERS (2: jokers added to each standard deck; a real shoe has about one joker
# per 100 cards, too few to learn the joker index from), DET_INIT / READ_INIT (.pt to
# start from), DET_WIDTH (unset: the shipped locator's 0.125; e.g. 0.25 trains a wider
# locator from scratch, or from DET_INIT of that width), DEVICE (0),
# PYTHON (python3), WHEELS (1: install .whl/; 0: use what PYTHON has).
set -euo pipefail

WHEELS_WANTED=(
    ultralytics==8.4.190 ultralytics-thop ultralytics-platform onnxslim resvg-py
    font-source-serif-pro font-caladea font-fjallaone font-lato
    font-source-sans-pro font-manrope font-rhd font-fredoka-one font-amatic-sc
)

if [[ "${1:-}" == "--fetch-wheels" ]]; then
    # polars is left out on purpose (55 MB, over the carry limit): see
    # datasets/training.py: _results_without_polars.
    py=${PYTHON:-.venv/bin/python}
    for pkg in "${WHEELS_WANTED[@]}"; do
        "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
            --implementation cp --platform manylinux_2_28_x86_64 \
            --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl "$pkg"
    done
    "$py" -m pip wheel -q --no-deps -w .whl font-roboto==0.0.1  # only an sdist on PyPI
    du -sh .whl
    exit 0
fi

MINUTES=${MINUTES:-5}
TILE_SCENES=${TILE_SCENES:-6000}
CROP_SCENES=${CROP_SCENES:-6000}
SEED=${SEED:-31}
ROOK_SHARE=${ROOK_SHARE:-0.35}
EXTRA_JOKERS=${EXTRA_JOKERS:-2}
DEVICE=${DEVICE:-0}
PYTHON=${PYTHON:-python3}
OUT=${OUT:-out/gpu}
DATA=data/gpu
RUNS=runs-gpu
mkdir -p "$OUT" "$DATA" data/logs
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/gpu-train.log"; }

if [[ "${WHEELS:-1}" == 1 ]]; then
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl
    # The project's folders under the `shanghai.*` namespace, as pyproject's package-dir.
    mkdir -p /tmp/src/shanghai
    for folder in engine vision server datasets models cli; do
        ln -sfn "$PWD/$folder" "/tmp/src/shanghai/$folder"
    done
    export PYTHONPATH=/tmp/src:/tmp/site
fi
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1
shanghai() { "$PYTHON" -m shanghai.cli.main "$@"; }
"$PYTHON" -c "import torch, ultralytics; print('torch', torch.__version__, 'cuda',
torch.cuda.is_available(), 'ultralytics', ultralytics.__version__)" | tee -a "$OUT/gpu-train.log"

workers=$(( $(nproc) / 2 ))
[[ -f "$DATA/tiles/data.yaml" ]] || {
    log "generating $TILE_SCENES tile scenes and $CROP_SCENES crop scenes ($workers workers each)"
    shanghai data generate --out "$DATA" --kind tiles --n "$TILE_SCENES" --seed "$SEED" \
        --rook-share "$ROOK_SHARE" --extra-jokers "$EXTRA_JOKERS" --workers "$workers" --quiet > data/logs/gpu-tiles.log 2>&1 &
    tiles=$!
    shanghai data generate --out "$DATA" --kind crops --n "$CROP_SCENES" --seed $((SEED + 1)) \
        --rook-share "$ROOK_SHARE" --extra-jokers "$EXTRA_JOKERS" --workers "$workers" --quiet > data/logs/gpu-crops.log 2>&1 || {
        tail -5 data/logs/gpu-crops.log; exit 1; }
    wait "$tiles" || { tail -5 data/logs/gpu-tiles.log; exit 1; }
    tail -n 2 data/logs/gpu-tiles.log data/logs/gpu-crops.log | tee -a "$OUT/gpu-train.log"
}

# Start from this machine's last run if it is still here, else the given or shipped weights.
first() { for f in "$@"; do [[ -f "$f" ]] && { echo "$f"; return; }; done; return 0; }
if [[ -n "${DET_WIDTH:-}" ]]; then  # another width: the shipped weights do not fit it
    det_init=$(first "$RUNS/detector/weights/best.pt" "${DET_INIT:-}")
else
    det_init=$(first "$RUNS/detector/weights/best.pt" "${DET_INIT:-}" models/cards-detector.pt \
        models/candidate/cards-detector.pt)
fi
read_init=$(first "$RUNS/reader/weights/best.pt" "${READ_INIT:-}" models/cards-reader.pt \
    models/candidate/cards-reader.pt)
if [[ -d "$RUNS" ]]; then  # continue from a copy: a new run would overwrite best.pt
    rm -rf "$RUNS.prev" && mv "$RUNS" "$RUNS.prev"
    det_init=${det_init/#$RUNS\//$RUNS.prev/}
    read_init=${read_init/#$RUNS\//$RUNS.prev/}
fi
hours=$("$PYTHON" -c "print($MINUTES / 60)")
log "training both for $MINUTES min: detector from ${det_init:-scratch}, reader from ${read_init:-scratch}"
shanghai train detector --data "$DATA" --runs "$RUNS" --device "$DEVICE" --workers "$workers" \
    --det-batch 64 --det-epochs 60 --hours "$hours" ${det_init:+--det-init "$det_init"} \
    ${DET_WIDTH:+--det-width "$DET_WIDTH"} \
    > "$OUT/detector.log" 2>&1 &
detector=$!
shanghai train reader --data "$DATA" --runs "$RUNS" --device "$DEVICE" --workers "$workers" \
    --read-batch 256 --read-epochs 60 --hours "$hours" ${read_init:+--read-init "$read_init"} \
    > "$OUT/reader.log" 2>&1 || log "reader training failed: see reader.log"
wait "$detector" || log "detector training failed: see detector.log"

for model in detector reader; do
    run="$RUNS/$model"
    [[ -f "$run/weights/best.pt" ]] && cp "$run/weights/best.pt" "$OUT/cards-$model.pt"
    [[ -f "$run/results.csv" ]] && cp "$run/results.csv" "$OUT/$model-results.csv"
done
for f in "$OUT"/detector.log "$OUT"/reader.log; do  # keep the logs under the fetch limit
    tail -c 200000 "$f" > "$f.tmp" && mv "$f.tmp" "$f"
done
log "done: $(ls "$OUT" | tr '\n' ' ')"
