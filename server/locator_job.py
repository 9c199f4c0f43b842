"""Adapting a taught deck's locator from the page: `shanghai deck locator` as a child process.

Why a process and not a thread like the reading's adaptation (`deck_jobs`): the training
imports PyTorch and ultralytics, and ultralytics patches PIL when imported, which must
never happen inside the server; it takes both cores for minutes; and Stop must stop it at
once, which a thread in the middle of an epoch cannot do. The child prints its progress as
JSON lines (`--json-progress`); anything else it prints (ultralytics' own log) is kept,
only the last lines, to explain a failure. Stop sends SIGTERM, which the command turns
into an orderly exit that removes its scenes and any half-written file, so the deck keeps
the locator it had (or none).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["LocatorCommand", "LocatorRun", "cli_command", "failure_message", "parse_progress"]

LocatorCommand = Callable[[str, float], Sequence[str]]
"""The argv that adapts deck NAME's locator for MINUTES (tests give a stand-in)."""
Report = Callable[[str, int, int], None]
Finish = Callable[[int, str], None]
"""Called once, with the exit code and the last line the child printed that was not
progress (its error message when it failed)."""

ERROR_PREFIX = "shanghai: error: "
KEEP_LINES = 20
STOP_GRACE_SECONDS = 15.0


def cli_command(name: str, minutes: float) -> list[str]:
    """`shanghai deck locator NAME --minutes M --json-progress`, with this Python."""
    return [
        sys.executable, "-m", "shanghai.cli.main", "deck", "locator", name,
        "--minutes", f"{minutes:g}", "--json-progress",
    ]  # fmt: skip


def failure_message(code: int, last: str) -> str:
    """What to tell the person when the child failed: its own error line if it gave one."""
    if last.startswith(ERROR_PREFIX):
        return last.removeprefix(ERROR_PREFIX)
    return f"the locator's training stopped (exit {code}){': ' + last if last else ''}"


class LocatorRun:
    """One child process adapting one deck's locator, watched by a reader thread."""

    def __init__(self, argv: Sequence[str], data_dir: Path, report: Report, finish: Finish):
        env = dict(os.environ)
        env["SHANGHAI_DATA_DIR"] = str(data_dir)  # the server's decks, whatever its flags
        env["YOLO_VERBOSE"] = "False"
        env["PYTHONUNBUFFERED"] = "1"
        self._process = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # one pipe, always drained: the child never blocks
            text=True,
            errors="replace",
            env=env,
        )
        self._report = report
        self._finish = finish
        self._thread = threading.Thread(target=self._watch, name="locator-run", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        lines: deque[str] = deque(maxlen=KEEP_LINES)
        assert self._process.stdout is not None
        for line in self._process.stdout:
            step = parse_progress(line)
            if step is not None:
                self._report(*step)
            elif line.strip():
                lines.append(line.strip())
        code = self._process.wait()
        self._finish(code, lines[-1] if lines else "")

    def stop(self) -> None:
        """Ask the child to stop (it cleans up), and kill it if it has not after a while."""
        if self._process.poll() is not None:
            return
        self._process.terminate()
        threading.Thread(target=self._kill_late, name="locator-stop", daemon=True).start()

    def _kill_late(self) -> None:
        try:
            self._process.wait(STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()

    def wait(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


def parse_progress(line: str) -> tuple[str, int, int] | None:
    """A progress line `{"stage": s, "done": d, "total": t}`, else None."""
    if not line.startswith("{"):
        return None
    try:
        step = json.loads(line)
        return str(step["stage"]), int(step["done"]), int(step["total"])
    except (ValueError, KeyError, TypeError):
        return None
