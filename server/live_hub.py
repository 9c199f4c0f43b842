"""One camera per game, every screen shows its table: the live hub.

A device streaming a game's table (`/api/live/ws?game=ID`) is the game's *streamer*;
each stable table it reaches is published here, and every screen watching the game
(`/api/live/watch?game=ID`) is told at once. In memory and bounded: per game, the
streaming device's name, the latest stable table and one small picture of the frame it
was read from (`/api/live/picture.jpg?game=ID`: no other frames, no history), one
small queue per watcher that keeps only the newest message, at most `MAX_WATCHERS`
watchers a game; a game is forgotten once nobody streams or watches it.

A second device streaming the same game takes over: the first one's next frame is
answered "now streamed from <device>" and its socket closed (`Stream.taken_over_by`).
All methods run on the server's event loop (the websocket handlers), never in threads.
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field

from .schemas import LiveTablePublic, LiveWatchPublic

__all__ = ["MAX_WATCHERS", "GameFullError", "LiveHub", "Stream"]

MAX_WATCHERS = 32
"""Screens that may watch one game's live table at once."""


class GameFullError(RuntimeError):
    """A game already has `MAX_WATCHERS` watchers."""


@dataclass(eq=False)
class Stream:
    """One device streaming one game. `taken_over_by` names the device that took the
    game's camera since (this stream's frames are then no longer published)."""

    game_id: int
    device: str
    id: int
    taken_over_by: str | None = None


@dataclass(eq=False)
class _Game:
    stream: Stream | None = None
    table: LiveTablePublic | None = None
    picture: bytes | None = None
    """JPEG of the frame `table` was read from, its cards boxed (small)."""
    watchers: set[asyncio.Queue[LiveWatchPublic]] = field(default_factory=set)

    def message(self, game_id: int) -> LiveWatchPublic:
        streaming = self.stream is not None
        return LiveWatchPublic(
            game_id=game_id,
            streaming=streaming,
            device=self.stream.device if self.stream else None,
            table=self.table if streaming else None,
        )


class LiveHub:
    """The live tables of the games being streamed (see the module doc)."""

    def __init__(self) -> None:
        self._games: dict[int, _Game] = {}
        self._ids = itertools.count(1)

    def streamer(self, game_id: int) -> str | None:
        """The device streaming the game now, if any."""
        game = self._games.get(game_id)
        return game.stream.device if game and game.stream else None

    def start_stream(self, game_id: int, device: str) -> Stream:
        """`device` streams the game from now on; one streaming it before is taken over."""
        game = self._games.setdefault(game_id, _Game())
        if game.stream is not None:
            game.stream.taken_over_by = device
        game.stream = Stream(game_id, device, next(self._ids))
        game.table, game.picture = None, None
        self._notify(game_id, game)
        return game.stream

    def publish(self, stream: Stream, table: LiveTablePublic, picture: bytes | None = None) -> None:
        """A new stable table from `stream`, with the picture it was read from (ignored
        once the stream was taken over)."""
        game = self._games.get(stream.game_id)
        if game is None or game.stream is not stream:
            return
        game.table, game.picture = table, picture
        self._notify(stream.game_id, game)

    def picture(self, game_id: int) -> bytes | None:
        """The picture of the game's stable table while a device streams it."""
        game = self._games.get(game_id)
        return game.picture if game is not None and game.stream is not None else None

    def end_stream(self, stream: Stream) -> None:
        """The stream stopped (stop, disconnect, an error); its table goes with it."""
        game = self._games.get(stream.game_id)
        if game is None or game.stream is not stream:
            return
        game.stream, game.table, game.picture = None, None, None
        self._notify(stream.game_id, game)
        self._forget_if_idle(stream.game_id, game)

    def watch(self, game_id: int) -> asyncio.Queue[LiveWatchPublic]:
        """A watcher's queue, holding the game's current state first; raises
        `GameFullError` past `MAX_WATCHERS`."""
        game = self._games.setdefault(game_id, _Game())
        if len(game.watchers) >= MAX_WATCHERS:
            self._forget_if_idle(game_id, game)
            raise GameFullError(f"{MAX_WATCHERS} screens already watch this game")
        queue: asyncio.Queue[LiveWatchPublic] = asyncio.Queue(maxsize=1)
        queue.put_nowait(game.message(game_id))
        game.watchers.add(queue)
        return queue

    def unwatch(self, game_id: int, queue: asyncio.Queue[LiveWatchPublic]) -> None:
        game = self._games.get(game_id)
        if game is None:
            return
        game.watchers.discard(queue)
        self._forget_if_idle(game_id, game)

    def games(self) -> list[int]:
        """The games streamed or watched now (for tests and inspection)."""
        return sorted(self._games)

    def _notify(self, game_id: int, game: _Game) -> None:
        message = game.message(game_id)
        for queue in game.watchers:
            if queue.full():  # a slow screen gets only the newest state
                queue.get_nowait()
            queue.put_nowait(message)

    def _forget_if_idle(self, game_id: int, game: _Game) -> None:
        if game.stream is None and not game.watchers:
            self._games.pop(game_id, None)
