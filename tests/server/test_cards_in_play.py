"""The cards a game is played with, as the page's picker gets them (`cards_in_play`),
from the engine's shoe for the variant and player count; card-text errors name only
the game's own deck."""

from __future__ import annotations

from fastapi.testclient import TestClient

from shanghai.engine import Rules, find_variant


def _game(client: TestClient, variant: str, players: list[str]) -> dict[str, object]:
    response = client.post("/api/games", json={"variant": variant, "players": players})
    assert response.status_code == 201, response.text
    game: dict[str, object] = response.json()
    return game


def test_standard_game_has_the_standard_deck_only(client: TestClient) -> None:
    game = _game(client, "shanghai", ["Ann", "Bob", "Cy"])
    cards = game["cards_in_play"]
    assert isinstance(cards, list)
    assert cards[:3] == ["Ac", "2c", "3c"] and cards[-1] == "JK"
    assert len(cards) == 53 and len(set(cards)) == 53
    assert not any(c == "ROOK" or c[-1] in "BRYG" for c in cards)
    assert cards == [str(c) for c in Rules(find_variant("shanghai"), 3).cards_in_play]
    assert client.get(f"/api/games/{game['id']}").json()["cards_in_play"] == cards
    # a card-text error names this deck's cards, not the Rook's
    bad = client.post(f"/api/games/{game['id']}/points", json={"cards": "7h zz"})
    assert bad.status_code == 422
    detail = bad.json()["detail"]
    assert "'zz'" in detail and "A-K in c d h s, JK" in detail
    assert "B R Y G" not in detail and "Rook" not in detail


def test_rook_game_without_red_yellow_green_14s(client: TestClient) -> None:
    # four players or more: the black 14s are wild, the other 14s removed
    game = _game(client, "rook", ["Ann", "Bob", "Cy", "Di"])
    cards = game["cards_in_play"]
    assert isinstance(cards, list)
    assert "14B" in cards and "ROOK" in cards
    assert not {"14R", "14Y", "14G", "JK"} & set(cards)
    assert not any(c[-1] in "cdhs" and c != "ROOK" for c in cards if c != "JK")
    assert len(cards) == 14 + 3 * 13 + 1
    bad = client.post(f"/api/games/{game['id']}/points", json={"cards": "14R"})
    assert bad.status_code == 422
    assert "1-14 in B, 1-13 in R Y G, ROOK" in bad.json()["detail"]
    unknown = client.post(f"/api/games/{game['id']}/points", json={"cards": "Qh5"})
    assert unknown.status_code == 422
    assert "c d h s" not in unknown.json()["detail"]


def test_rook_game_with_every_14(client: TestClient) -> None:
    # fewer than four players: the 14s stay in
    cards = _game(client, "rook", ["Ann", "Bob", "Cy"])["cards_in_play"]
    assert isinstance(cards, list)
    assert {"14B", "14R", "14Y", "14G", "ROOK"} <= set(cards)
    assert len(cards) == 4 * 14 + 1


def test_house_rule_deck_without_jokers(client: TestClient) -> None:
    # manipulation is played without jokers: the picker offers none
    cards = _game(client, "manipulation", ["Ann", "Bob", "Cy"])["cards_in_play"]
    assert isinstance(cards, list)
    assert "JK" not in cards and len(cards) == 52
