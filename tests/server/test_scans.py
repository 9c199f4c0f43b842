"""Round-end scans: upload checks (non-image, truncated, too big in bytes or pixels),
the honest 503 without a model, and the confirm/correct flow storing its evidence."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from mini_table import MiniTable
from PIL import Image

from shanghai.server.scanning import UnavailableScanner, default_scanner
from shanghai.vision import model_files

GameMaker = Callable[..., int]
ScanSetter = Callable[..., list[tuple[int, int]]]


def upload(client: TestClient, game: int, data: bytes, player: int = 0, name: str = "a.jpg"):  # type: ignore[no-untyped-def]
    return client.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": str(player)},
        files={"image": (name, data, "image/jpeg")},
    )


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 90, 30)).save(out, "PNG")
    return out.getvalue()


def test_without_a_model_scanning_is_503_and_stores_nothing(
    client: TestClient, make_game: GameMaker, photo: bytes, without_model: None
) -> None:
    game = make_game()
    response = upload(client, game, photo)
    assert response.status_code == 503
    assert "card recognition model not installed" in response.json()["detail"]
    # manual entry still works
    ok = client.post(f"/api/games/{game}/rounds/1/hands", json={"player": 0, "cards": "7h"})
    assert ok.status_code == 201
    assert ok.json()["scan_id"] is None
    assert ok.json()["scan_image_url"] is None and ok.json()["scan_annotated_url"] is None


def test_bad_uploads_are_clear_4xx(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    big = np.random.default_rng(0).integers(0, 255, (2000, 2000, 3), dtype=np.uint8)
    ok, noisy = cv2.imencode(".png", big)
    assert ok
    cases = [
        (b"", 400, "empty"),
        (b"hello, this is not an image", 415, "not an image"),
        (b"%PDF-1.4 fake pdf", 415, "not an image"),
        (photo[: len(photo) // 2], 400, "truncated"),
        (png(9000, 5000), 413, "megapixels"),
        (bytes(noisy), 413, "larger than"),
    ]
    client.app.state.settings.max_upload_bytes = 2 * 1024 * 1024  # type: ignore[attr-defined]
    for data, code, words in cases:
        response = upload(client, game, data)
        assert response.status_code == code, (words, response.text)
        assert words in response.json()["detail"], response.json()
    gif = io.BytesIO()
    Image.new("RGB", (20, 20)).save(gif, "GIF")
    assert upload(client, game, gif.getvalue()).status_code == 415
    no_file = client.post(f"/api/games/{game}/rounds/1/scans", data={"player": "0"})
    assert no_file.status_code == 422
    assert fake_scanner() == []  # nothing bad reached the scanner


def test_huge_request_bodies_are_refused_before_reading(
    client: TestClient, make_game: GameMaker
) -> None:
    game = make_game()
    client.app.state.settings.max_upload_bytes = 1024  # type: ignore[attr-defined]
    response = upload(client, game, b"\xff\xd8" + b"0" * 200_000)
    assert response.status_code == 413


def test_scan_confirm_and_correct_stores_the_evidence(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    seen = fake_scanner(["7h", "Kd", "JK"])
    response = upload(client, game, photo, player=1)
    assert response.status_code == 201, response.text
    scan = response.json()
    assert scan["proposed"] == ["7h", "Kd", "JK"]
    assert scan["points"] == 65
    assert scan["player"] == "Bob"
    assert (scan["width"], scan["height"]) == (320, 240)
    assert seen == [(320, 240)]
    # the player corrects one misread card (Kd was really Ks) and confirms
    confirmed = client.post(
        f"/api/games/{game}/rounds/1/hands",
        json={"player": 1, "cards": "7h Ks JK", "scan_id": scan["id"]},
    )
    assert confirmed.status_code == 201
    hand = confirmed.json()
    assert hand["entry"] == "scan"
    assert hand["points"] == 65
    assert hand["corrections"] == [
        {"action": "removed", "card": "Kd"},
        {"action": "added", "card": "Ks"},
    ]
    stored = client.get(f"/api/games/{game}/rounds/1").json()["hands"][0]
    assert stored["scan_id"] == scan["id"]
    assert stored["corrections"] == hand["corrections"]
    image = client.get(scan["image_url"])
    assert image.status_code == 200
    assert image.content == photo
    annotated = client.get(scan["annotated_url"])
    assert annotated.headers["content-type"] == "image/jpeg"
    decoded = cv2.imdecode(np.frombuffer(annotated.content, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (240, 320, 3)
    read_back = scan["image_url"].replace("/image?", "?")  # the scan, with its token
    assert client.get(read_back).json()["proposed"] == scan["proposed"]
    # the hand links its photo (with the token), confirmed and read back alike
    assert hand["scan_image_url"] == stored["scan_image_url"] == scan["image_url"]
    assert hand["scan_annotated_url"] == stored["scan_annotated_url"] == scan["annotated_url"]
    assert client.get(stored["scan_image_url"]).content == photo


def test_a_scan_confirms_only_its_own_player(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    fake_scanner(["7h"])
    scan_id = upload(client, game, photo, player=0).json()["id"]
    wrong = client.post(
        f"/api/games/{game}/rounds/1/hands", json={"player": 2, "cards": "7h", "scan_id": scan_id}
    )
    assert wrong.status_code == 422
    missing = client.post(
        f"/api/games/{game}/rounds/1/hands", json={"player": 0, "cards": "7h", "scan_id": 999}
    )
    assert missing.status_code == 404
    assert client.get(f"/api/games/{game}/rounds/1").json()["hands"] == []
    assert client.get("/api/scans/999").status_code == 404


def test_cards_not_in_play_are_dropped_with_a_warning(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    fake_scanner(["7h", "5R"])
    scan = upload(client, game, photo).json()
    assert scan["proposed"] == ["7h"]
    assert scan["points"] == 5
    assert [w["code"] for w in scan["warnings"]] == ["not-in-play"]
    assert "5R is not in play" in scan["warnings"][0]["message"]


def test_a_hand_read_surely_has_no_warning(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    fake_scanner(["7h", "Kd"])
    scan = upload(client, game, photo).json()
    assert scan["warnings"] == []
    assert all(c["sure"] for c in scan["cards"])


def test_unread_and_unsure_cards_are_warned_and_stored(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    fake_scanner(["7h", "Kd"], unread=1, confidence=0.5)
    scan = upload(client, game, photo).json()
    codes = [w["code"] for w in scan["warnings"]]
    assert codes == ["unread", "unsure"]
    assert scan["warnings"][0]["message"].startswith("1 card could not be read")
    assert not any(c["sure"] for c in scan["cards"])
    assert scan["proposed"] == ["7h", "Kd"]
    again = client.get(scan["image_url"].replace("/image?", "?")).json()
    assert again["warnings"] == scan["warnings"]


def test_a_photo_of_cards_never_becomes_went_out_unconfirmed(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    fake_scanner([], unread=2)
    scan = upload(client, game, photo, player=1).json()
    assert scan["proposed"] == [] and scan["warnings"][0]["code"] == "unread"
    hands = f"/api/games/{game}/rounds/1/hands"
    refused = client.post(hands, json={"player": 1, "cards": "", "scan_id": scan["id"]})
    assert refused.status_code == 422
    assert "confirm" in refused.json()["detail"]
    confirmed = client.post(
        hands, json={"player": 1, "cards": "", "scan_id": scan["id"], "confirm_out": True}
    )
    assert confirmed.status_code == 201
    assert confirmed.json()["went_out"] is True


def test_a_table_photo_gives_a_hand_per_seat_to_pick_from(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    table = MiniTable(width=1600, height=1200)
    table.card("7h", 760, 1050)
    table.card("8c", 880, 1050)  # bottom: seat 0
    table.card("Kd", 150, 500, 90)
    table.card("2s", 150, 640, 90)  # left
    table.card("Qs", 800, 150, 180)  # top
    fake_scanner(layout=table)
    game = make_game()
    response = client.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": "0", "photo": "table"},
        files={"image": ("t.jpg", photo, "image/jpeg")},
    )
    assert response.status_code == 201, response.text
    scan = response.json()
    assert scan["photo"] == "table"
    hands = {s["seat"]: sorted(s["cards"]) for s in scan["seats"]}
    assert sorted(map(tuple, hands.values())) == [("2s", "Kd"), ("7h", "8c"), ("Qs",)]
    assert sorted(scan["proposed"]) == hands[0] == ["7h", "8c"]  # the scanned player's seat
    assert scan["points"] == 10
    # Bob picks the left seat's hand: confirmed as proposed, no corrections
    left = next(s for s in scan["seats"] if "Kd" in s["cards"])
    assert left["points"] == 30  # Kd 10, the wild 2s 20
    confirmed = client.post(
        f"/api/games/{game}/rounds/1/hands",
        json={"player": 0, "cards": "Kd 2s", "scan_id": scan["id"], "scan_seat": left["seat"]},
    )
    assert confirmed.status_code == 201, confirmed.text
    assert confirmed.json()["corrections"] == []


def test_any_player_confirms_their_hand_from_a_table_photo(
    client: TestClient, make_game: GameMaker, photo: bytes, fake_scanner: ScanSetter
) -> None:
    """One photo of the whole table serves every player: Bob and Cy confirm theirs from
    Ann's upload, each against the seat picked (`scan_seat`, by default their own)."""
    table = MiniTable(width=1600, height=1200)
    table.row(["7h", "8c"], 800, 1050, step=40)  # bottom: seat 0
    table.row(["Kd", "2s"], 150, 570, step=40, angle=90)  # left: seat 1
    table.row(["Qs", "3d"], 800, 150, step=40, angle=180)  # top: seat 2
    fake_scanner(layout=table)
    game = make_game()
    answer = client.post(
        f"/api/games/{game}/rounds/1/scans",
        data={"player": "0", "photo": "table"},
        files={"image": ("t.jpg", photo, "image/jpeg")},
    ).json()
    seat_of = {c: s["seat"] for s in answer["seats"] for c in s["cards"]}
    assert {c["card"]: c["seat"] for c in answer["cards"]} == seat_of
    hands = f"/api/games/{game}/rounds/1/hands"
    # Bob picks the bottom seat's hand (the photo was taken from his side), corrects 8c
    bob = client.post(
        hands,
        json={"player": 1, "cards": "7h 9c", "scan_id": answer["id"], "scan_seat": seat_of["7h"]},
    )
    assert bob.status_code == 201, bob.text
    assert bob.json()["corrections"] == [
        {"action": "removed", "card": "8c"},
        {"action": "added", "card": "9c"},
    ]
    # Cy, without scan_seat: compared with the hand at his own seat
    cy = client.post(hands, json={"player": 2, "cards": "Qs 3d", "scan_id": answer["id"]})
    assert cy.status_code == 201, cy.text
    assert cy.json()["corrections"] == [] and cy.json()["scan_id"] == answer["id"]
    # a photo of Bob's hand still confirms only Bob's hand
    fake_scanner(["5s"])
    hand_scan = upload(client, game, photo, player=1).json()
    refused = client.post(hands, json={"player": 0, "cards": "5s", "scan_id": hand_scan["id"]})
    assert refused.status_code == 422


def test_exif_rotated_phone_photos_are_turned_upright(
    client: TestClient, make_game: GameMaker, fake_scanner: ScanSetter
) -> None:
    game = make_game()
    image = Image.new("RGB", (400, 300), (30, 90, 30))
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90 degrees
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    assert upload(client, game, out.getvalue()).status_code == 201
    assert fake_scanner() == [(300, 400)]


def test_default_scanner_says_why_recognition_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Missing model files: "not installed"; unreadable ones: the load error. The app
    then serves on without recognition instead of failing to start."""
    shipped = model_files.default_models_dir() / model_files.SETTINGS_FILE
    monkeypatch.setattr("shanghai.vision.model_files.default_models_dir", lambda: tmp_path)
    missing = default_scanner()
    assert isinstance(missing, UnavailableScanner) and "not installed" in missing.reason
    (tmp_path / model_files.SETTINGS_FILE).write_bytes(shipped.read_bytes())
    for model in shipped.parent.glob("*.onnx"):
        (tmp_path / model.name).write_bytes(b"not an onnx model")
    broken = default_scanner()
    assert isinstance(broken, UnavailableScanner)
    assert broken.reason.startswith("card recognition model could not be loaded")
