"""The scan benchmark must keep working with the shipped models: four hand photos and
two lay-downs; checked for its tables only (the figures are its output, not a test's)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from model_stand_ins import shipped_with_candidate_stray

from shanghai.vision.pipeline import CardModels, models_installed

pytestmark = pytest.mark.skipif(
    not models_installed(), reason="card models not installed (models/cards-*.onnx)"
)


def test_scan_benchmark_runs(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    module = benchmark_script("scan_eval")
    cases = ((True, ()), (True, ("unsure",)), (False, ("unread",)), (False, ()))
    assert [module.Judged("p", r, f).outcome for r, f in cases] == list(module.OUTCOMES)
    argv = ["--n", "4", "--data", str(tmp_path), "--sweep", "--repeats", "1", "--threads", "1"]
    figures = module.main(argv)
    out = capsys.readouterr().out
    assert out.startswith("scan evaluation, split val, seed 3101: 4 hand and 2 lay-down photos")
    assert sorted(p.name for p in (tmp_path / "val-3101").iterdir())[:2] == [
        "hand-0000.jpg",
        "hand-0000.json",
    ]
    lines = out.splitlines()
    shares = [
        [float(v) for v in re.findall(r"([\d.]+)%", line)]
        for line in lines
        if "|" in line and "%" in line and "target" not in line
    ]
    outcomes = [row for row in shares if len(row) == 4]
    sweep = [row[i : i + 4] for row in shares if len(row) == 8 for i in (0, 4)]
    assert [line.split()[0] for line in lines if line.startswith("  all ")] == ["all", "all"]
    assert len(outcomes) >= 4 and len(sweep) == 2 * len(module.LEVELS)
    assert all(abs(sum(row) - 100.0) < 0.2 for row in outcomes + sweep)
    assert all(abs(sum(figures[kind]) - 100.0) < 1e-6 for kind in ("hand", "lay-down"))
    assert "target" in out and "<= 1%" in out
    assert "warnings on photos read right" in out
    for size in ("1 MP", "4 MP", "12 MP"):
        assert re.search(rf"{size} \d+x\d+ +\| +[\d.]+ s \| +\d+ MB", out), size


def test_kept_reads_give_the_same_figures(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    """A rerun with `--keep-reads` replays the first run's reads: the same outcomes,
    without running the models (a reader that fails would be seen)."""
    module = benchmark_script("scan_eval")
    argv = ["--n", "2", "--data", str(tmp_path), "--keep-reads", "--no-timing", "--threads", "1"]
    first = module.main(argv)
    assert "(0 photos read before)" in capsys.readouterr().out
    kept = list((tmp_path / "val-3101").glob("reads-*.pkl"))
    assert len(kept) == 1

    def no_models(*args: object, **kwargs: object) -> None:
        raise AssertionError("the models ran although their reads were kept")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CardModels, "read_frame", no_models)
        again = module.main(argv)
    out = capsys.readouterr().out
    assert "(3 photos read before)" in out and "MP" not in out
    assert again == first


def test_several_seeds_are_pooled(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    """`--seed 3101,3103`: each seed's photos in their own folder (reads kept in each),
    the outcomes of all of them together, and each seed's row apart."""
    module = benchmark_script("scan_eval")
    argv = ["--n", "2", "--seed", "3101,3103", "--data", str(tmp_path), "--keep-reads"]
    figures = module.main([*argv, "--no-timing", "--threads", "1"])
    out = capsys.readouterr().out
    assert "seed 3101,3103: 4 hand and 2 lay-down photos" in out
    for seed in ("3101", "3103"):
        assert len(list((tmp_path / f"val-{seed}").glob("reads-*.pkl"))) == 1
    lines = out.splitlines()
    by_seed = lines[lines.index(next(x for x in lines if x.startswith("hands by seed"))) :]
    rows = [x.split()[:2] for x in by_seed[2:4]]
    assert rows == [["3101", "2"], ["3103", "2"]]
    assert abs(sum(figures["hand"]) - 100.0) < 1e-6


def test_check_levels_are_swept_on_the_same_scans(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    benchmark_script: Callable[[str], ModuleType],
) -> None:
    """`--face-sweep --stray-sweep`: a table per check, a row per level, each row's
    shares summing to 100% for hands and lay-downs, the models' own level marked."""
    module = benchmark_script("scan_eval")
    models = shipped_with_candidate_stray(tmp_path / "models")
    argv = ["--n", "2", "--data", str(tmp_path / "photos"), "--no-timing", "--threads", "1"]
    module.main([*argv, "--models", str(models), "--face-sweep", "--stray-sweep"])
    lines = capsys.readouterr().out.splitlines()
    for title, levels in (
        ("face check level", module.FACE_LEVELS),
        ("stray check level", module.STRAY_LEVELS),
    ):
        start = next(i for i, line in enumerate(lines) if line.startswith(title))
        rows = lines[start + 2 : start + 2 + len(levels)]
        assert [float(row.split("|")[0]) for row in rows] == list(levels)
        for row in rows:
            shares = [float(v) for v in re.findall(r"([\d.]+)%", row)]
            assert len(shares) == 8
            assert abs(sum(shares[:4]) - 100) < 0.2 and abs(sum(shares[4:]) - 100) < 0.2
        assert sum("<- the models' level" in row for row in rows) == 1
