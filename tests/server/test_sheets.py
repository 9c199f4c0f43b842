"""Score sheet: running totals, CSV export, and the printable sheet with contracts."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import re
from collections.abc import Callable

from fastapi.testclient import TestClient

GameMaker = Callable[..., int]


def play_two_rounds(client: TestClient, game: int) -> None:
    for number, hands in ((1, ["", "7h", "Kd Ks"]), (2, ["9c", "", "JK"])):
        for seat, cards in enumerate(hands):
            response = client.post(
                f"/api/games/{game}/rounds/{number}/hands", json={"player": seat, "cards": cards}
            )
            assert response.status_code == 201


def test_sheet_has_running_totals(client: TestClient, make_game: GameMaker) -> None:
    game = make_game(name="Friday")
    play_two_rounds(client, game)
    sheet = client.get(f"/api/games/{game}/sheet").json()
    assert sheet["players"] == ["Ann", "Bob", "Cy"]
    first, second, third = sheet["rounds"][:3]
    assert first["points"] == [0, 5, 20]
    assert first["totals"] == [0, 5, 20]
    assert first["went_out"] == 0
    assert second["totals"] == [5, 5, 70]
    assert third["points"] == [None, None, None]
    assert third["totals"] is None
    assert sheet["totals"] == [5, 5, 70]
    assert sheet["leaders"] == ["Ann", "Bob"]
    assert sheet["winners"] == []
    assert len(sheet["rounds"]) == 10


def test_csv_export(client: TestClient, make_game: GameMaker) -> None:
    game = make_game()
    play_two_rounds(client, game)
    response = client.get(f"/api/games/{game}/sheet.csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0] == [
        "round",
        "contract",
        "Ann",
        "Bob",
        "Cy",
        "total Ann",
        "total Bob",
        "total Cy",
    ]
    assert rows[1] == ["1", "2 sets of 3", "0", "5", "20", "0", "5", "20"]
    assert rows[2][5:] == ["5", "5", "70"]
    assert rows[3][:2] == ["3", "2 runs of 4"]
    assert rows[-1] == ["total", "", "5", "5", "70", "5", "5", "70"]


def test_printable_sheet_is_prefilled_with_contracts(
    client: TestClient, make_game: GameMaker
) -> None:
    game = make_game(players=["Ann", "<b>Bob</b>", "Cy"])
    play_two_rounds(client, game)
    page = client.get(f"/games/{game}/print")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "@media print" in html
    for contract in ("2 sets of 3", "1 set of 3 + 1 run of 10", "3 runs of 5"):
        assert contract in html
    assert "&lt;b&gt;Bob&lt;/b&gt;" in html and "<b>Bob</b>" not in html
    assert client.get("/games/999/print").status_code == 404


def test_csv_cells_that_could_start_a_formula_are_text(
    client: TestClient, make_game: GameMaker
) -> None:
    """A name a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) is written with a
    leading `'`; scores stay numbers, a negative one included."""
    names = ['=HYPERLINK("http://x")', "+1", "-Ann", "@SUM(A1)", "Bob"]
    game = make_game(players=names)
    hands = ["", "7h", "Kd", "2c", "3c"]
    for seat, cards in enumerate(hands):
        body = {"player": seat, "cards": cards, "blind": seat == 0, "used_wild": False}
        response = client.post(f"/api/games/{game}/rounds/1/hands", json=body)
        assert response.status_code == 201, response.text
    rows = list(csv.reader(io.StringIO(client.get(f"/api/games/{game}/sheet.csv").text)))
    assert rows[0][2:7] == ['\'=HYPERLINK("http://x")', "'+1", "'-Ann", "'@SUM(A1)", "Bob"]
    assert rows[0][7] == 'total =HYPERLINK("http://x")'  # starts with "total": no formula
    assert rows[1][2] == "-50"  # a blind finish without a wild, as a number
    for row in rows:
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
            if cell.startswith("-"):
                assert cell.lstrip("-").isdigit(), cell


def test_printable_sheet_style_matches_its_policy_hash(
    client: TestClient, make_game: GameMaker
) -> None:
    """The sheet's one inline style is the one its Content-Security-Policy allows by
    hash (a changed style with a stale hash would leave the sheet unstyled)."""
    page = client.get(f"/games/{make_game()}/print")
    styles = re.findall(r"<style>(.*?)</style>", page.text, re.S)
    assert len(styles) == 1
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}';" in page.headers["content-security-policy"]
    assert '<div class="sheet-scroll" id="print-scroll">' in page.text
