"""The CLI contract other tools rely on: arguments, JSON keys, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXE = [sys.executable, "-m", "shanghai.cli.main"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, *args], capture_output=True, text=True, timeout=60)


def test_variants_lists_all_five() -> None:
    out = run("variants")
    assert out.returncode == 0
    for name in ("shanghai", "rook", "shafer", "manipulation", "family"):
        assert name in out.stdout


def test_variant_rules_table() -> None:
    out = run("variants", "shanghai")
    assert out.returncode == 0
    assert "1 set of 3 + 1 run of 10" in out.stdout
    assert "Interpretations" in out.stdout


def test_check_valid_json() -> None:
    out = run("check", "--variant", "shanghai", "--round", "2", "--json", "7h 7s 7c | 4d 5d 6d 7d")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["valid"] is True and data["reasons"] == []


def test_check_invalid_json_gives_reasons() -> None:
    out = run(
        "check", "--variant", "shanghai", "--round", "3", "--json", "4h 5h 6h 7h | 8h 9h 10h Jh"
    )
    assert out.returncode == 1
    data = json.loads(out.stdout)
    assert data["valid"] is False
    assert any("touch" in r for r in data["reasons"])


def test_check_ungrouped_cards_are_grouped() -> None:
    out = run("check", "--variant", "shanghai", "--round", "2", "--json", "4d JK 7s 6d 7h 5d 7c")
    assert out.returncode == 0, out.stdout
    data = json.loads(out.stdout)
    assert [m["meld"]["kind"] for m in data["melds"]] in (["run", "set"], ["set", "run"])


def test_check_ungrouped_without_grouping_is_invalid() -> None:
    out = run("check", "--variant", "shanghai", "--round", "1", "--json", "7h 7s 8c 9d 10h Jc")
    assert out.returncode == 1
    assert json.loads(out.stdout)["reasons"]


def test_score_json() -> None:
    out = run("score", "--variant", "rook", "--json", "ROOK 10R 10G 1Y")
    assert out.returncode == 0
    assert json.loads(out.stdout)["points"] == 41


def test_score_text() -> None:
    out = run("score", "--variant", "shanghai", "7h 10s JK")
    assert out.returncode == 0
    assert out.stdout.startswith("65 points")


def test_house_rule_file_as_variant(tmp_path: Path) -> None:
    path = tmp_path / "ours.toml"
    path.write_text('extends = "shanghai"\nname = "ours"\n[scoring]\nwild = 15\n')
    out = run("score", "--variant", str(path), "--json", "JK")
    assert json.loads(out.stdout)["points"] == 15


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("score", "--variant", "shanghai", "7x"), "unknown card"),
        (("score", "--variant", "canasta", "7h"), "unknown variant"),
        (("check", "--variant", "shanghai", "--round", "11", "7h 7s 7c"), "out of range"),
        (("check", "--variant", "shanghai", "--round", "0", "7h 7s 7c"), "out of range"),
        (("check", "--variant", "shanghai", "--round", "1", "7h 7s 7c ||"), "empty meld"),
        (("check", "--variant", "shanghai", "--round", "x", "7h"), "invalid int"),
        (("check", "--variant", "shanghai", "7h"), "required"),
        (("score", "--variant", "shanghai", "5R"), "not in play"),
        (("score", "--variant", "shanghai", "--players", "12", "7h"), "3-8 players"),
        (("variants", "missing.toml"), "cannot read variant file"),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert message in lines[0]
    assert "Traceback" not in out.stderr
