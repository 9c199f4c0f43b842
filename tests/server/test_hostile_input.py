"""Input that once made the server fail (500) answers with a clear 4xx on SQLite and on
PostgreSQL: ids beyond the integer column, text no database stores (a lone surrogate,
NUL), house-rule files with unreadable or unbounded values, names longer than their
columns, scores beyond the integer column, a game sent as a form or an image; and a
lay-down of many one-card melds is judged at once."""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shanghai.engine import contracts

GameMaker = Callable[..., int]

TOO_BIG = [2**31, 2**63, 10**30]


def _routes(game: int) -> list[tuple[str, str, dict[str, object] | None]]:
    """(method, path, json body) for every route that takes an id or a number, with
    `{big}` where the number goes."""
    hand = {"player": 0, "cards": "7h"}
    return [
        ("GET", "/api/games/{big}", None),
        ("GET", "/api/games/{big}/sheet", None),
        ("GET", "/api/games/{big}/sheet.csv", None),
        ("GET", "/games/{big}/print", None),
        ("POST", "/api/games/{big}/points", {"cards": "7h"}),
        ("GET", f"/api/games/{game}/rounds/{{big}}", None),
        ("POST", f"/api/games/{game}/rounds/{{big}}/hands", hand),
        ("PUT", f"/api/games/{game}/rounds/1/hands/{{big}}", {"cards": "7h"}),
        ("POST", f"/api/games/{game}/rounds/{{big}}/buys", {"player": 0}),
        ("DELETE", f"/api/games/{game}/rounds/1/buys?player={{big}}", None),
        ("POST", f"/api/games/{game}/rounds/{{big}}/check", {"cards": "7h"}),
        ("GET", "/api/scans/{big}", None),
        ("GET", "/api/scans/{big}/image", None),
        ("GET", "/api/scans/{big}/annotated.jpg", None),
    ]


@pytest.mark.parametrize("big", TOO_BIG)
def test_ids_beyond_the_integer_column_are_422(
    client: TestClient, make_game: GameMaker, big: int
) -> None:
    game = make_game()
    for method, path, body in _routes(game):
        response = client.request(method, path.format(big=big), json=body)
        assert response.status_code == 422, (path, response.text)
    in_body = [
        {"player": 0, "cards": "7h", "scan_id": big},
        {"player": big, "cards": "7h"},
        {"player": 0, "cards": "7h", "scan_id": 1, "scan_seat": big},
    ]
    for body in in_body:
        response = client.post(f"/api/games/{game}/rounds/1/hands", json=body)
        assert response.status_code == 422, (body, response.text)
    response = client.post(f"/api/games/{game}/rounds/1/buys", json={"player": big})
    assert response.status_code == 422
    response = client.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": str(big)},
        files={"image": ("a.jpg", b"\xff\xd8", "image/jpeg")},
    )
    assert response.status_code == 422
    # The largest id that fits is an ordinary unknown id.
    assert client.get(f"/api/games/{2**31 - 1}").status_code == 404
    assert client.get(f"/api/scans/{2**31 - 1}").status_code == 404


def _raw_json(client: TestClient, path: str, text: str) -> object:
    """POST a JSON text as written (a `\\ud800` escape survives: `json=` would refuse)."""
    return client.post(path, content=text, headers={"content-type": "application/json"})


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"variant": "shanghai", "players": ["\\ud800", "Bob", "Cy"]}', "unicode"),
        ('{"variant": "shanghai", "players": ["Ann\\u0000", "Bob", "Cy"]}', "nul"),
        ('{"variant": "shanghai", "players": ["Ann\\u0007", "Bob", "Cy"]}', "control"),
        ('{"name": "x\\udfff", "variant": "shanghai", "players": ["A", "B", "C"]}', "unicode"),
        ('{"name": "x\\u0000", "variant": "shanghai", "players": ["A", "B", "C"]}', "nul"),
        ('{"variant": "shang\\ud800", "players": ["A", "B", "C"]}', "unicode"),
        ('{"variant_toml": "name = \\"\\ud800\\"", "players": ["A", "B", "C"]}', "unicode"),
    ],
)
def test_text_no_database_stores_is_422(client: TestClient, body: str, problem: str) -> None:
    response = _raw_json(client, "/api/games", body)
    assert response.status_code == 422, response.text
    assert problem in response.text.lower()
    assert client.get("/api/games").json() == []


def test_cards_text_with_a_lone_surrogate_is_422(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    for path in (
        f"/api/games/{game}/points",
        f"/api/games/{game}/rounds/1/hands",
        f"/api/games/{game}/rounds/1/check",
    ):
        response = _raw_json(client, path, '{"player": 0, "cards": "7h \\ud800"}')
        assert response.status_code == 422, (path, response.text)
    assert client.get(f"/api/games/{game}/rounds/1").json()["hands"] == []


HOUSE = 'extends = "shanghai"\nname = "ours"\n'


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            HOUSE + '[[rounds]]\ncontract = "2 sets of 3"\ndeal = [{players = "3-8", cards = "x"}]',
            "'cards' must be a number of cards",
        ),
        (HOUSE + 'players = "' + "9" * 5000 + '"', "cannot read player range"),
        (HOUSE + "a = " + "9" * 5000, "not valid TOML"),
        (HOUSE + "a = " + "[" * 20_000 + "]" * 20_000, "nested too deeply"),
        (
            HOUSE + '[[setup]]\nplayers = "3-8"\ndecks = 100000\njokers = 2\nwilds = ["JK"]',
            "decks is 100000",
        ),
        (HOUSE + '[[rounds]]\ncontract = "9999 sets of 3"', "at most 8 melds"),
        (HOUSE + "[scoring]\nwild = 10000000000", "scoring.wild is 10000000000"),
        (HOUSE + 'title = "' + "T" * 201 + '"', "title is 201 characters; at most 200"),
        ('extends = "shanghai"\nname = "' + "n" * 101 + '"', "at most 100"),
    ],
)
def test_bad_house_rule_files_are_422_with_a_message(
    client: TestClient, toml: str, message: str
) -> None:
    response = client.post("/api/games", json={"variant_toml": toml, "players": ["A", "B", "C"]})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str)
    assert detail.startswith("house-rule file: ")
    assert message in detail
    assert len(detail) < 500
    assert client.get("/api/games").json() == []


def test_names_longer_than_their_columns_are_422(client: TestClient) -> None:
    players = ["A", "B", "C"]
    long_game = client.post(
        "/api/games", json={"name": "g" * 101, "variant": "shanghai", "players": players}
    )
    assert long_game.status_code == 422
    long_player = client.post(
        "/api/games", json={"variant": "shanghai", "players": ["p" * 61, "B", "C"]}
    )
    assert long_player.status_code == 422
    longest = client.post(
        "/api/games",
        json={"name": "g" * 100, "variant": "shanghai", "players": ["p" * 60, "B", "C"]},
    )
    assert longest.status_code == 201, longest.text


def test_scores_beyond_the_integer_column_cannot_be_set_up(client: TestClient) -> None:
    """A card worth more than the points column holds is refused with the house rules,
    before any hand is scored."""
    toml = HOUSE + '[scoring]\nranks = { "1-13" = 10000000000 }'
    response = client.post("/api/games", json={"variant_toml": toml, "players": ["A", "B", "C"]})
    assert response.status_code == 422
    assert "points of rank 1 is 10000000000" in response.json()["detail"]
    target = client.post(
        "/api/games",
        json={"variant": "shanghai", "players": ["A", "B", "C"], "target_score": 2**40},
    )
    assert target.status_code == 422


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"\xff\xd8\xff\xe0" + bytes(range(256)), "image/jpeg"),
        (
            b'--x\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n'
            b"Content-Type: image/jpeg\r\n\r\n\xff\xd8\xff\r\n--x--\r\n",
            "multipart/form-data; boundary=x",
        ),
        (b"players=Ann&players=Bob", "application/x-www-form-urlencoded"),
    ],
)
def test_a_game_sent_as_a_form_or_an_image_is_415(
    client: TestClient, content: bytes, content_type: str
) -> None:
    response = client.post("/api/games", content=content, headers={"content-type": content_type})
    assert response.status_code == 415
    assert "application/json" in response.json()["detail"]


def test_a_validation_error_quotes_the_input_short(client: TestClient) -> None:
    response = client.post(
        "/api/games", json={"variant": "shanghai", "players": ["x" * 5000, "B", "C"]}
    )
    assert response.status_code == 422
    assert len(response.content) < 2000


def test_many_one_card_melds_are_judged_at_once(
    client: TestClient, make_game: GameMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 one-card melds (the most cards a lay-down may hold): every ordering of them
    would never finish; the verdict comes from two meld verdicts per group and no
    ordering (counted: a search past that fails instead of running on), and says what
    is wrong."""
    steps = {"verdicts": 0, "orderings": 0}
    judge, permutations = contracts._verdict, itertools.permutations

    def count(kind: str) -> None:
        steps[kind] += 1
        if steps[kind] > 40 * 2:
            raise RuntimeError(f"more than 80 {kind} to judge one lay-down")

    def counted_verdict(*args: Any) -> Any:
        count("verdicts")
        return judge(*args)

    def counted_permutations(*args: Any) -> Iterator[Any]:
        for ordering in permutations(*args):
            count("orderings")
            yield ordering

    tools = types.SimpleNamespace(**vars(itertools))
    tools.permutations = counted_permutations
    monkeypatch.setattr(contracts, "_verdict", counted_verdict)
    monkeypatch.setattr(contracts, "itertools", tools)
    game = make_game()
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    cards = [rank + suit for suit in "hsdc" for rank in ranks][:40]
    response = client.post(f"/api/games/{game}/rounds/1/check", json={"cards": " | ".join(cards)})
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is False
    assert "calls for 2 sets of 3 (2 melds); 40 were laid down" in body["reasons"][0]
    assert len(body["melds"]) == 40
    assert steps["orderings"] == 0
    assert steps["verdicts"] <= 80
