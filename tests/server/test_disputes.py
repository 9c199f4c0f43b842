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
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    cards = ["7h", "7s", "7c", "4d", "5d", "6d", "9d"]
    fake_scanner(cards, melds=((0, 1, 2), (3, 4, 5, 6)))
    response = client.post(
        f"/api/games/{game}/rounds/2/check-image",
        files={"image": ("lay.jpg", photo, "image/jpeg")},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["valid"] is False
    assert [m["valid"] for m in body["melds"]] == [True, False]
    assert [c["card"] for c in body["detected"]] == cards
    annotated = cv2.imdecode(
        np.frombuffer(base64.b64decode(body["annotated_jpeg"]), np.uint8), cv2.IMREAD_COLOR
    )
    assert annotated.shape == (240, 320, 3)
    # the legal set is boxed green, the broken run red (BGR)
    set_box = annotated[48:50, 12:34].reshape(-1, 3).mean(axis=0)
    run_box = annotated[48:50, 102:124].reshape(-1, 3).mean(axis=0)
    assert set_box[1] > set_box[2] + 60
    assert run_box[2] > run_box[1] + 60


def test_photo_check_without_a_model_is_503(
    client: TestClient, make_game: GameMaker, photo: bytes, without_model: None
) -> None:
    game = make_game()
    response = client.post(
        f"/api/games/{game}/rounds/2/check-image",
        files={"image": ("lay.jpg", photo, "image/jpeg")},
    )
    assert response.status_code == 503
