"""The server's side of taught decks: adapting a draft in a background thread, and
a scanner per deck for the games that read with one.

`DeckJobs` runs one adaptation at a time (the CPU is the table's; a second asks to
wait, 409), so the page stays usable and polls `progress(name)`: stage, done, total.
Two kinds: the reading (`kind` "reading", in a daemon thread, stages as
`vision.deck_enrol` reports them) and a stored deck's own locator (`kind` "locator", a
child process: `server.locator_job`, stages as `datasets.deck_locator` reports them).
Cancelling the reading makes its next progress report raise, and `DeckStore.write` then
removes what was half built: a deck is stored whole or not at all. The draft is removed
only once its deck is stored. Cancelling the locator stops the child, which leaves the
deck as it was.

`DeckScanners.for_deck` gives the app's scanner reading with a stored deck's head: the
same loaded models (a shallow copy of `CardModels` sharing the ONNX sessions, which are
thread-safe) with `use_deck`, cached per deck and its head file's time, so a deck taught
again (on the page or with `shanghai deck enroll`) is read afresh. A scanner that is not
a `PhotoScanner` (a test's, or `UnavailableScanner`) is answered as it is.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Literal

from fastapi import Depends
from fastapi.requests import HTTPConnection

from shanghai.engine.cards import DeckFamily
from shanghai.vision.deck_enrol import refit, store_enrolled
from shanghai.vision.deck_store import (
    DeckError,
    DeckNotFoundError,
    DeckReaderChanged,
    DeckStore,
    decks_dir,
)
from shanghai.vision.model_files import locator_training_missing
from shanghai.vision.pipeline import CardModels
from shanghai.vision.scan import PhotoScanner

from .deck_drafts import DraftStore
from .deps import GameDep, ScannerDep
from .errors import ApiError
from .locator_job import LocatorCommand, LocatorRun, cli_command, failure_message
from .scanning import CardScanner
from .settings import Settings
from .variant_snapshots import variant_from_toml

__all__ = [
    "AdaptState",
    "DeckJobs",
    "DeckScanners",
    "DecksDep",
    "GameScannerDep",
    "TeachDecks",
    "base_models",
    "get_decks",
]

JobState = Literal["running", "done", "failed", "cancelled"]
JobKind = Literal["reading", "locator"]


class AdaptCancelled(Exception):
    """Raised from the progress callback to stop an adaptation."""


@dataclass(frozen=True, slots=True)
class AdaptState:
    name: str
    state: JobState
    stage: str = "starting"
    done: int = 0
    total: int = 0
    message: str = ""
    kind: JobKind = "reading"


class DeckJobs:
    """Adaptations: at most one running; the last state of each deck kept (small)."""

    def __init__(
        self,
        locator_command: LocatorCommand = cli_command,
        locator_missing: Callable[[], str | None] = locator_training_missing,
    ) -> None:
        """`locator_command` and `locator_missing` say how a locator is adapted and why
        it cannot be here (tests give a stand-in child process)."""
        self._lock = threading.Lock()
        self._states: dict[str, AdaptState] = {}
        self._cancel: dict[str, threading.Event] = {}
        self._threads: dict[str, threading.Thread] = {}
        self._runs: dict[str, LocatorRun] = {}
        self._locator_command = locator_command
        self.locator_missing = locator_missing

    def progress(self, name: str) -> AdaptState | None:
        with self._lock:
            return self._states.get(name)

    def running(self) -> str | None:
        with self._lock:
            return next((n for n, s in self._states.items() if s.state == "running"), None)

    def start(
        self, name: str, work: TeachDecks, load: Callable[[], CardModels], views: int
    ) -> AdaptState:
        """Check the draft (404 none, 422 a card not named or no card), then the models
        (`load`, 503 when recognition cannot run), then start (409 one is running)."""
        draft = work.drafts.get(name)
        cards = work.drafts.enrolled(draft)
        unnamed = [c.id for c in draft.cards if c.card is None]
        if unnamed:
            listed = ", ".join(map(str, unnamed))
            raise ApiError(422, f"deck {name}: name or drop card(s) {listed} first")
        if not cards:
            raise ApiError(422, f"deck {name}: no cards yet; add a photo of some cards")
        models = load()
        with self._lock:
            self._refuse_if_busy()
            state = AdaptState(name, "running", total=len(cards))
            self._states[name] = state
            cancel = self._cancel[name] = threading.Event()

        def report(stage: str, done: int, total: int) -> None:
            if cancel.is_set():
                raise AdaptCancelled
            with self._lock:
                self._states[name] = AdaptState(name, "running", stage, done, total)

        def run() -> None:
            try:
                store_enrolled(
                    work.store, name, draft.family, cards, models,
                    photos=draft.photos, progress=report, views=views,
                )  # fmt: skip
            except AdaptCancelled:
                self._finish(name, "cancelled", "stopped: nothing was stored")
            except (DeckError, OSError) as exc:
                self._finish(name, "failed", f"{exc}; nothing was stored")
            except Exception as exc:  # the thread must always say how it ended
                self._finish(name, "failed", f"adaptation failed ({exc}); nothing was stored")
            else:
                work.drafts.remove(name)
                work.scanners.forget(name)
                self._finish(name, "done", f"deck {name} is ready: {len(cards)} cards taught")

        thread = threading.Thread(target=run, name=f"adapt-{name}", daemon=True)
        self._threads[name] = thread
        thread.start()
        return state

    def start_locator(
        self, name: str, work: TeachDecks, minutes: float, data_dir: Path
    ) -> AdaptState:
        """Adapt stored deck `name`'s own locator for `minutes` in a child process (404
        no such deck, 422 not adapted, 503 the train extra is missing here, 409 one is
        running). When it is done, scans with the deck locate with it (`DeckScanners`
        keys on the file)."""
        try:
            deck = work.store.get(name)
        except DeckNotFoundError:
            raise ApiError(404, f"no deck named {name!r} is stored") from None
        except DeckError as exc:
            raise ApiError(409, str(exc)) from None
        if not deck.adapted:
            raise ApiError(422, f"deck {name} is not adapted: teach it again first")
        missing = self.locator_missing()
        if missing is not None:
            raise ApiError(503, f"this server cannot adapt a locator: {missing}")
        with self._lock:
            self._refuse_if_busy()
            state = AdaptState(name, "running", total=1, kind="locator")
            self._states[name] = state
            cancel = self._cancel[name] = threading.Event()

            def report(stage: str, done: int, total: int) -> None:
                with self._lock:
                    self._states[name] = AdaptState(
                        name, "running", stage, done, total, kind="locator"
                    )

            def finish(code: int, last: str) -> None:
                if cancel.is_set():
                    kept = "stopped: the deck keeps the locator and reader it had"
                    self._finish(name, "cancelled", kept)
                elif code != 0:
                    self._finish(name, "failed", failure_message(code, last))
                else:
                    work.scanners.forget(name)
                    self._finish(name, "done", _locator_done(work.store, name))

            try:
                self._runs[name] = LocatorRun(
                    self._locator_command(name, minutes), data_dir, report, finish
                )
            except OSError as exc:
                del self._states[name]
                raise ApiError(503, f"the locator's training could not start: {exc}") from None
        return state

    def _refuse_if_busy(self) -> None:
        """409 while any adaptation runs (called holding the lock)."""
        busy = next((n for n, s in self._states.items() if s.state == "running"), None)
        if busy is not None:
            raise ApiError(409, f"deck {busy} is being adapted; wait until it is done")

    def cancel(self, name: str) -> bool:
        with self._lock:
            state = self._states.get(name)
            if state is None or state.state != "running":
                return False
            self._cancel[name].set()
            run = self._runs.get(name) if state.kind == "locator" else None
        if run is not None:
            run.stop()
        return True

    def wait(self, name: str, timeout: float | None = None) -> None:
        """Until the deck's adaptation ends (for shutting down, and tests)."""
        thread = self._threads.get(name)
        if thread is not None:
            thread.join(timeout)
        run = self._runs.get(name)
        if run is not None:
            run.wait(timeout)

    def stop_all(self, timeout: float = 10.0) -> None:
        """Cancel every adaptation and wait for its thread (the app shutting down)."""
        with self._lock:
            for event in self._cancel.values():
                event.set()
            threads = list(self._threads.values())
            runs = list(self._runs.values())
        for run in runs:
            run.stop()
        for thread in threads:
            thread.join(timeout)
        for run in runs:
            run.wait(timeout)

    def forget(self, name: str) -> None:
        with self._lock:
            state = self._states.get(name)
            if state is not None and state.state != "running":
                del self._states[name]

    def _finish(self, name: str, state: JobState, message: str) -> None:
        with self._lock:
            old = self._states.get(name) or AdaptState(name, state)
            self._states[name] = replace(old, state=state, message=message)


class DeckScanners:
    """The app's scanner reading with a stored deck, one cached per deck."""

    def __init__(self, store: DeckStore) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[tuple[int, int], CardScanner]] = {}
        self._refitting = threading.Lock()

    def for_deck(
        self,
        base: CardScanner,
        name: str | None,
        family: DeckFamily | None = None,
        *,
        refitted: bool = False,
    ) -> CardScanner:
        """`base` reading with the stored deck `name`; `base` itself (the shipped
        reading) for no name, a deck not stored here (removed since the game began, or a
        game imported from another server), one not adapted, or one not of `family`. A
        deck taught before the app's reader model is fitted again first (`refit`)."""
        if not name or not isinstance(base, PhotoScanner):
            return base
        models = base.models
        if not isinstance(models, CardModels):
            return base
        try:
            deck = self.store.get(name)
            stamp = deck.head_path.stat().st_mtime_ns
            for path in (deck.locator_path, deck.reader_path):  # adapted later
                if path.is_file():  # (`shanghai deck locator`, the page's button)
                    stamp += path.stat().st_mtime_ns
        except (DeckError, OSError):
            return base  # removed since the game began, or never taught here
        if family is not None and deck.family is not family:
            return base  # a deck of the same name for other cards (an imported game)
        key = (id(models), stamp)
        with self._lock:
            cached = self._cache.get(name)
            if cached is not None and cached[0] == key:
                return cached[1]
        try:
            head = deck.head()
            taught = copy.copy(models)
            taught.use_deck(head)
        except DeckReaderChanged:
            # Taught before this reader model: fitted again from its stored cards (a
            # few seconds, once), not read without it in silence.
            if refitted or not self._refit(name, models):
                return base
            return self.for_deck(base, name, family, refitted=True)
        except DeckError:
            return base
        taught.name = f"{models.name} + deck {name}"
        scanner = base.reading_with(taught)
        with self._lock:
            self._cache[name] = (key, scanner)
        return scanner

    def _refit(self, name: str, models: CardModels) -> bool:
        """Fit deck `name` again for `models`' reader (`deck_enrol.refit`), one deck at
        a time; False when it cannot be (its crops gone or unreadable)."""
        with self._refitting:
            try:
                head = self.store.get(name).head()
                if head.reader == models.reader_fingerprint:
                    return True  # another request refitted it meanwhile
                refit(self.store, name, models)
            except (DeckError, OSError):
                return False
        return True

    def forget(self, name: str) -> None:
        with self._lock:
            self._cache.pop(name, None)


@dataclass(frozen=True)
class TeachDecks:
    """Everything the deck routes share: the stored decks, the drafts, the jobs."""

    store: DeckStore
    drafts: DraftStore
    jobs: DeckJobs
    scanners: DeckScanners

    @classmethod
    def open(cls, settings: Settings) -> TeachDecks:
        store = DeckStore(decks_dir(settings.data_dir))
        return cls(store, DraftStore(settings.data_dir), DeckJobs(), DeckScanners(store))


def get_decks(connection: HTTPConnection) -> TeachDecks:
    decks: TeachDecks = connection.app.state.decks
    return decks


DecksDep = Annotated[TeachDecks, Depends(get_decks)]


def base_models(scanner: CardScanner) -> CardModels:
    """The loaded models to find and adapt cards with: the app's scanner's (503 when
    card recognition cannot run here)."""
    if isinstance(scanner, PhotoScanner) and isinstance(scanner.models, CardModels):
        return scanner.models
    raise ApiError(503, "card recognition model not installed: decks cannot be taught here")


def get_game_scanner(scanner: ScannerDep, game: GameDep, decks: DecksDep) -> CardScanner:
    """The scanner for this game: the app's, reading with the game's deck if it has one."""
    family = variant_from_toml(game.variant_toml).family if game.deck else None
    return decks.scanners.for_deck(scanner, game.deck, family)


GameScannerDep = Annotated[CardScanner, Depends(get_game_scanner)]


def _locator_done(store: DeckStore, name: str) -> str:
    """What the locator step gave deck `name` (the page says it when the step ends)."""
    try:
        reader = store.get(name).has_reader
    except DeckError:
        reader = False
    return f"deck {name} has its own locator{' and reader' if reader else ''} now"
