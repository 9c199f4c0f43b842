"""Requests released together (threads behind a barrier, the app on the real database):
what the database holds afterwards keeps every rule, and every answer says what was
stored. Each test runs a few trials of many requests on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

GameMaker = Callable[..., int]
TRIALS = 5
TOGETHER = 10
SEATS = 8
"""The most players Shanghai seats: as many hands as can try to go out at once."""


@pytest.fixture
def racing(app: FastAPI, client: TestClient) -> Iterator[TestClient]:
    """A client whose server errors come back as 500 answers (counted, not raised)."""
    yield TestClient(app, raise_server_exceptions=False)


def together(requests: list[Callable[[], httpx.Response]]) -> list[httpx.Response]:
    """Send every request, each from its own thread, all released at once."""
    barrier = threading.Barrier(len(requests))

    def run(send: Callable[[], httpx.Response]) -> httpx.Response:
        barrier.wait(timeout=30)
        return send()

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(run, requests))


def statuses(responses: list[httpx.Response]) -> Counter[int]:
    return Counter(r.status_code for r in responses)


def test_buys_released_together_stay_within_the_limit(
    racing: TestClient, make_game: GameMaker
) -> None:
    for _ in range(TRIALS):
        game = make_game()
        url = f"/api/games/{game}/rounds/1/buys"
        answers = together([partial(racing.post, url, json={"player": 1})] * TOGETHER)
        counts = statuses(answers)
        assert set(counts) <= {201, 409}, [r.text for r in answers]
        stored = racing.get(f"/api/games/{game}/rounds/1").json()["buys"][1]
        assert stored["used"] == counts[201] <= stored["allowed"] == 3
        assert sorted(r.json()["used"] for r in answers if r.status_code == 201) == list(
            range(1, counts[201] + 1)
        )
        # What the race refused can be bought afterwards, up to the limit exactly.
        while racing.post(url, json={"player": 1}).status_code == 201:
            pass
        assert racing.get(f"/api/games/{game}/rounds/1").json()["buys"][1]["used"] == 3


def test_undo_is_acknowledged_only_for_a_buy_taken_back(
    racing: TestClient, make_game: GameMaker
) -> None:
    for _ in range(TRIALS):
        game = make_game()
        url = f"/api/games/{game}/rounds/1/buys"
        for _buy in range(3):
            assert racing.post(url, json={"player": 0}).status_code == 201
        answers = together([partial(racing.delete, f"{url}?player=0")] * TOGETHER)
        counts = statuses(answers)
        assert set(counts) <= {204, 404, 409}, [r.text for r in answers]
        used = racing.get(f"/api/games/{game}/rounds/1").json()["buys"][0]["used"]
        assert counts[204] == 3 - used >= 1


def _replay(start: list[str], corrections: list[dict[str, str]]) -> Counter[str]:
    """The cards a history of corrections leads to; each removal must find its card."""
    cards = Counter(start)
    for step in corrections:
        if step["action"] == "removed":
            assert cards[step["card"]] > 0, f"{step} removes a card the hand did not hold"
            cards[step["card"]] -= 1
        else:
            cards[step["card"]] += 1
    return +cards


def test_corrections_sent_together_are_all_kept(racing: TestClient, make_game: GameMaker) -> None:
    fixes = ["4c", "5c", "6c", "7c", "8c", "9c", "10c", "Jc", "Qc", "Kc"]
    for _ in range(TRIALS):
        game = make_game()
        hands = f"/api/games/{game}/rounds/1/hands"
        assert racing.post(hands, json={"player": 0, "cards": "3c"}).status_code == 201
        answers = together([partial(racing.put, f"{hands}/0", json={"cards": c}) for c in fixes])
        assert statuses(answers) == {200: len(fixes)}, [r.text for r in answers]
        hand = racing.get(f"/api/games/{game}/rounds/1").json()["hands"][0]
        added = [c["card"] for c in hand["corrections"] if c["action"] == "added"]
        assert sorted(added) == sorted(fixes)
        assert _replay(["3c"], hand["corrections"]) == Counter(hand["cards"])


@pytest.mark.parametrize("how", ["score", "correct"])
def test_only_one_player_goes_out_when_several_say_so_at_once(
    racing: TestClient, make_game: GameMaker, how: str
) -> None:
    players = [f"P{seat}" for seat in range(SEATS)]
    for _ in range(TRIALS):
        game = make_game(players)
        hands = f"/api/games/{game}/rounds/1/hands"
        if how == "score":
            answers = together(
                [partial(racing.post, hands, json={"player": s, "cards": ""}) for s in range(SEATS)]
            )
            accepted = 201
        else:
            for seat in range(SEATS):
                assert racing.post(hands, json={"player": seat, "cards": "4c"}).status_code == 201
            answers = together(
                [partial(racing.put, f"{hands}/{s}", json={"cards": ""}) for s in range(SEATS)]
            )
            accepted = 200
        counts = statuses(answers)
        assert set(counts) <= {accepted, 409}, [r.text for r in answers]
        assert counts[accepted] == 1
        refused = [r.json()["detail"] for r in answers if r.status_code == 409]
        assert all("went out" in detail for detail in refused), refused
        read = racing.get(f"/api/games/{game}/rounds/1")
        assert read.status_code == 200, read.text
        assert sum(h["went_out"] for h in read.json()["hands"]) == 1
        assert racing.get(f"/api/games/{game}").status_code == 200
