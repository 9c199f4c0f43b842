"""Dispute checks: each meld's verdict with reasons, from text or from a photo."""

from __future__ import annotations

import base64
from collections.abc import Callable

import cv2
import numpy as np
from fastapi.testclient import TestClient

GameMaker = Callable[..., int]
ScanSetter = Callable[..., list[tuple[int, int]]]


def test_a_legal_lay_down(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    response = client.post(
        f"/api/games/{game}/rounds/2/check", json={"cards": "7h 7s 7c | 4d 5d 6d 7d"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["valid"] is True
    assert body["contract"] == "1 set of 3 + 1 run of 4"
    assert [m["description"] for m in body["melds"]] == ["set of 3 7s", "run of 4 diamonds 4-7"]


def test_an_illegal_lay_down_says_why(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    body = client.post(
        f"/api/games/{game}/rounds/2/check", json={"cards": "7h 7s JK JK | 4d 5d 6d 8d"}
    ).json()
    assert body["valid"] is False
    assert body["reasons"]
    assert not body["melds"][1]["valid"]
    assert all(isinstance(r, str) and r for r in body["reasons"])


def test_ungrouped_cards_are_grouped_by_the_engine(
    client: TestClient, make_game: GameMaker
) -> None:
    game = make_game()
    body = client.post(
        f"/api/games/{game}/rounds/2/check", json={"cards": "4d JK 7s 6d 7h 5d 7c"}
    ).json()
    assert body["valid"] is True
    assert body["grouped"] is False
    bad = client.post(f"/api/games/{game}/rounds/2/check", json={"cards": "4d 9s Kh 2c"}).json()
    assert bad["valid"] is False
    assert "cannot be grouped" in bad["reasons"][0]


def test_bad_check_requests(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    for cards, words in [("", "no cards"), ("7h ||", "empty meld"), ("7h 9z", "unknown card")]:
        response = client.post(f"/api/games/{game}/rounds/2/check", json={"cards": cards})
        assert response.status_code == 422
        assert words in response.json()["detail"]
    many = " ".join(["7h"] * 30)
    assert client.post(f"/api/games/{game}/rounds/2/check", json={"cards": many}).status_code == 422
    assert (
        client.post(f"/api/games/{game}/rounds/12/check", json={"cards": "7h"}).status_code == 422
    )


def test_photo_of_a_lay_down_is_judged_and_annotated(
    client: TestClient, make_game: GameMaker, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    cards = ["7h", "7s", "7c", "4d", "5d", "6d", "9d", "Kc"]
    fake_scanner(cards, melds=((0, 1, 2), (3, 4, 5, 6)))
    table = np.full((1200, 1600, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(table, (400, 100), (700, 300), (250, 250, 250), -1)
    ok, photo = cv2.imencode(".jpg", table)
    assert ok
    response = client.post(
        f"/api/games/{game}/rounds/2/check-image",
        files={"image": ("lay.jpg", photo.tobytes(), "image/jpeg")},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["valid"] is False
    assert [m["cards"] for m in body["melds"]] == [["7h", "7s", "7c"], ["4d", "5d", "6d", "9d"]]
    assert [m["valid"] for m in body["melds"]] == [True, False]
    assert body["loose"] == ["Kc"]
    assert body["text"] == "7h 7s 7c | 4d 5d 6d 9d"
    assert [w["code"] for w in body["warnings"]] == ["loose"]
    assert sorted(c["card"] for c in body["detected"]) == sorted(cards)
    annotated = cv2.imdecode(
        np.frombuffer(base64.b64decode(body["annotated_jpeg"]), np.uint8), cv2.IMREAD_COLOR
    )
    assert annotated.shape == (1200, 1600, 3)

    def label_colour(card: str) -> np.ndarray:
        """The filled label above a card's box (BGR)."""
        box = next(c["xyxy"] for c in body["detected"] if c["card"] == card)
        x, y = round(box[0]), round(box[1])
        return annotated[y - 8 : y - 4, x + 2 : x + 8].reshape(-1, 3).mean(axis=0)

    # the legal set is labelled green, the broken run red, the loose card grey (BGR)
    set_label, run_label, loose_label = label_colour("7c"), label_colour("9d"), label_colour("Kc")
    assert set_label[1] > set_label[2] + 60
    assert run_label[2] > run_label[1] + 60
    assert loose_label.max() - loose_label.min() < 30  # neutral: neither green nor red


def test_photo_check_without_a_model_is_503(
    client: TestClient, make_game: GameMaker, photo: bytes, without_model: None
) -> None:
    game = make_game()
    response = client.post(
        f"/api/games/{game}/rounds/2/check-image",
        files={"image": ("lay.jpg", photo, "image/jpeg")},
    )
    assert response.status_code == 503
