"""A stand-in for `shanghai deck locator --json-progress` (the child the server's
locator job runs): the same JSON-lines protocol, and instead of training it copies the
shipped locator and reader into the deck's folder, which are a valid locator and
reader. The real command's output is tested with the train extra
(tests/datasets/test_deck_locator_train.py)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from shanghai.server.deck_jobs import DeckJobs
from shanghai.vision.model_files import DETECTOR_FILE, READER_FILE, default_models_dir

STAND_IN = r"""
import json, os, shutil, sys, time
from pathlib import Path
name, minutes, mode, shipped, shipped_reader, go = sys.argv[1:7]
print("ultralytics says hello", flush=True)
for i in range(1, 4):
    print(json.dumps({"stage": "scenes", "done": i, "total": 3}), flush=True)
if mode == "fail":
    print("shanghai: error: deck " + name + ": the scenes could not be drawn", flush=True)
    sys.exit(2)
budget = round(float(minutes) * 60)
print(json.dumps({"stage": "train", "done": 0, "total": budget}), flush=True)
while mode == "hang" or (mode == "wait" and not Path(go).exists()):
    time.sleep(0.05)
folder = Path(os.environ["SHANGHAI_DATA_DIR"]) / "decks" / name
print(json.dumps({"stage": "train", "done": budget, "total": budget}), flush=True)
print(json.dumps({"stage": "reader", "done": 0, "total": 180}), flush=True)
print(json.dumps({"stage": "reader", "done": 180, "total": 180}), flush=True)
shutil.copy(shipped, folder / "cards-detector.onnx")
shutil.copy(shipped_reader, folder / "cards-reader.onnx")
print(json.dumps({"stage": "export", "done": 1, "total": 1}), flush=True)
print(json.dumps({"stage": "check", "done": 1, "total": 2}), flush=True)
while mode == "wait" and not Path(go + ".check").exists():
    time.sleep(0.05)
print(json.dumps({"stage": "check", "done": 2, "total": 2}), flush=True)
"""


def stand_in_jobs(mode: str, go: Path | None = None) -> DeckJobs:
    """Jobs whose locator child succeeds ("ok"), fails with an error line ("fail"),
    runs until stopped ("hang"), or trains until the file `go` exists and checks the
    deck's levels until `go`.check exists too ("wait")."""

    def command(name: str, minutes: float) -> Sequence[str]:
        shipped = str(default_models_dir() / DETECTOR_FILE)
        reader = str(default_models_dir() / READER_FILE)
        return [
            sys.executable, "-c", STAND_IN, name, f"{minutes:g}", mode, shipped, reader, str(go)
        ]  # fmt: skip

    return DeckJobs(command, lambda: None)
