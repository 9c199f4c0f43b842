"""The API fuzzed from its own OpenAPI document (schemathesis), on SQLite and on
PostgreSQL: every operation gets valid and invalid requests (paths, queries, bodies,
forms, methods it does not have) and must answer without a server error, with a status
code, content type, headers and body its document gives, refusing invalid input with a
4xx. Stateful scenarios then chain operations the way a client does (list or create
games, then act on one), and house-rule files get edge numbers in every field.

The budget is fixed and seeded so CI stays quick and a failure reproduces:
`SHANGHAI_FUZZ_EXAMPLES` examples per operation (default 50; twice that many house-rule
files), `SHANGHAI_FUZZ_STEPS` stateful scenarios (default 25), `SHANGHAI_FUZZ_SEED`
for another stream. A longer campaign is the same test with bigger numbers (`make
fuzz`, docs/server.md); `SHANGHAI_FUZZ_REPORT=FILE` writes the status codes answered."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.python.asgi import ASGIClient
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy import text

from shanghai.engine.variant_files import BUILTIN_VARIANTS
from shanghai.server.app import create_app
from shanghai.server.deck_drafts import DRAFTS_FOLDER
from shanghai.server.deck_jobs import TeachDecks
from shanghai.server.models import Base
from shanghai.server.scanning import UnavailableScanner
from shanghai.server.settings import Settings
from shanghai.vision.deck_store import decks_dir

GameMaker = Callable[..., int]
ScanSetter = Callable[..., list[tuple[int, int]]]
Counted = Callable[[str, int], None]

EXAMPLES = int(os.environ.get("SHANGHAI_FUZZ_EXAMPLES", "50"))
STEPS = int(os.environ.get("SHANGHAI_FUZZ_STEPS", "25"))
BASE_URL = "http://testserver"
SEED = int(os.environ.get("SHANGHAI_FUZZ_SEED", "18"))

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
"""No 5xx; every answer documented (status, media type, headers, body); invalid input
refused with a 4xx."""


def _schema() -> Any:
    """The app's OpenAPI document (made without starting the app: nothing is opened)."""
    app = create_app(Settings(data_dir=Path("/nonexistent")), scanner=UnavailableScanner())
    config = SchemathesisConfig.from_dict(
        {"seed": SEED, "generation": {"mode": "all", "max-examples": EXAMPLES}}
    )
    return schemathesis.openapi.from_dict(app.openapi(), config=config)


SCHEMA = _schema()
SETTINGS = hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize="SHANGHAI_FUZZ_SEED" not in os.environ,
    database=None,
    suppress_health_check=list(HealthCheck),
)
CASES: Counter[str] = Counter()
"""Requests sent per database, and per database, operation and status code."""
REPORT = os.environ.get("SHANGHAI_FUZZ_REPORT")
"""A file to write the status codes answered to (JSON), for a campaign's figures."""


@pytest.fixture
def session(app: FastAPI, client: TestClient) -> ASGIClient:
    """A `requests` session into the app for schemathesis' own transport (the bodies it
    makes are `requests`'); the app's lifespan is the `client` fixture's."""
    return ASGIClient(app, base_url=BASE_URL)


@pytest.fixture
def count(database_url: str) -> Counted:
    """Count a request (what was asked, the status answered) for the report."""
    database = database_url.split(":", 1)[0].split("+", 1)[0]

    def counted(what: str, status: int) -> None:
        CASES[database] += 1
        CASES[f"{database} {what} {status}"] += 1

    return counted


@pytest.fixture(scope="module", autouse=True)
def _report(pytestconfig: pytest.Config) -> Iterator[None]:
    yield
    totals = {key: n for key, n in sorted(CASES.items()) if " " not in key}
    if not totals:
        return
    figures = ", ".join(f"{database} {n}" for database, n in totals.items())
    capture = pytestconfig.pluginmanager.get_plugin("capturemanager")
    reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
    if capture is not None and reporter is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line(
                f"\nfuzz: {EXAMPLES} examples per operation, {STEPS} scenarios: "
                f"requests sent: {figures}"
            )
    if REPORT:
        Path(REPORT).write_text(json.dumps(dict(sorted(CASES.items())), indent=1) + "\n")


Seeder = Callable[[], None]


@pytest.fixture
def seeded(
    app: FastAPI,
    settings: Settings,
    client: TestClient,
    make_game: GameMaker,
    fake_scanner: ScanSetter,
    photo: bytes,
    settings_dir: Path,
) -> Seeder:
    """Ids the fuzzer's small numbers hit: game 1 (Shanghai: round 1 scored, round 2 in
    play with a buy and a scan, id 1), game 2 (played to a target), game 3 (an uploaded
    house-rule file); a house-rule file by name (`ours`). Scans read a fixed table.
    Seeded once here; the returned function empties the app and seeds it again (each
    stateful scenario starts from it)."""

    def seed() -> None:
        (settings_dir / "ours.toml").write_text('extends = "shanghai"\nname = "ours"\n')
        fake_scanner(["7h", "Kd"])
        game = make_game()
        for seat, cards in enumerate(("7h Kd", "", "JK 2c")):
            hand = {"player": seat, "cards": cards}
            assert client.post(f"/api/games/{game}/rounds/1/hands", json=hand).status_code == 201
        buy = client.post(f"/api/games/{game}/rounds/2/buys", json={"player": 2})
        assert buy.status_code == 201, buy.text
        scan = client.post(
            f"/api/games/{game}/rounds/2/scans",
            data={"player": "0"},
            files={"image": ("a.jpg", photo, "image/jpeg")},
        )
        assert scan.status_code == 201, scan.text
        make_game(variant="manipulation", target_score=50)
        make_game(variant=None, variant_toml='extends = "shanghai"\nname = "house"\n')

    def reseed() -> None:
        _empty(app, settings)
        seed()

    seed()
    return reseed


def _empty(app: FastAPI, settings: Settings) -> None:
    """The app as a fresh start finds it: no rows (ids count from 1 again), no decks or
    deck drafts, no house-rule files. Without this a stateful scenario met the games,
    decks and files earlier scenarios had made, so a request hypothesis replays could be
    answered otherwise and it gave up on its own choices (FlakyStrategyDefinition)."""
    engine = app.state.database.engine
    tables = Base.metadata.sorted_tables
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            names = ", ".join(f'"{table.name}"' for table in tables)
            connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        else:
            for table in reversed(tables):
                connection.execute(table.delete())
            counters = "SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'"
            if connection.execute(text(counters)).first():
                connection.execute(text("DELETE FROM sqlite_sequence"))
    for folder in (decks_dir(settings.data_dir), settings.data_dir / DRAFTS_FOLDER):
        shutil.rmtree(folder, ignore_errors=True)
    if settings.variants_dir is not None:
        for path in Path(settings.variants_dir).glob("*"):
            path.unlink()
    app.state.decks = TeachDecks.open(settings)


@SCHEMA.parametrize()
@SETTINGS
def test_every_operation(case: Any, session: ASGIClient, seeded: Seeder, count: Counted) -> None:
    response = case.call(session=session, base_url=BASE_URL)
    count(case.operation.label, response.status_code)
    case.validate_response(response, checks=CHECKS)


def test_stateful_scenarios(session: ASGIClient, seeded: Seeder, count: Counted) -> None:
    """Chains of requests, each taking ids from an earlier answer (create or list games,
    then act on one); schemathesis infers the links from parameter and field names.
    Each scenario starts from the seeded app, so a request replayed meets the same
    state."""

    class Scenario(SCHEMA.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            seeded()

        def call(self, case: Any, **kwargs: Any) -> Any:
            response = case.call(session=session, base_url=BASE_URL)
            count(case.operation.label, response.status_code)
            return response

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS)

    settings = hypothesis_settings(SETTINGS, max_examples=STEPS, stateful_step_count=10)
    Scenario.run(settings=settings)


NUMBER = re.compile(r"\d+")
EDGES = [0, 1, -1, 2, 12, 13, 14, 48, 49, 60, 61, 99, 100, 101, 1000, 1001, 100_000, 100_001]
EDGES += [2**31 - 1, 2**31, 2**63, 10**30]
VALUES = st.one_of(
    st.sampled_from(EDGES).map(str),
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["-0", "1.5", "1e999", "inf", "nan", '"7"', "true", "[]", "{}"]),
)


@st.composite
def house_rule_files(draw: st.DrawFn) -> str:
    """A built-in variant's file with one to four of its numbers (counts, sizes, points,
    player ranges, contract sizes, wild limits) replaced by edge values."""
    text = BUILTIN_TEXTS[draw(st.sampled_from(sorted(BUILTIN_TEXTS)))]
    spots = list(NUMBER.finditer(text))
    chosen = draw(st.lists(st.sampled_from(spots), min_size=1, max_size=4, unique_by=id))
    for spot in sorted(chosen, key=lambda m: m.start(), reverse=True):
        text = text[: spot.start()] + draw(VALUES) + text[spot.end() :]
    return text


BUILTIN_TEXTS = {
    name: resources.files("shanghai.engine").joinpath("variants", f"{name}.toml").read_text()
    for name in BUILTIN_VARIANTS
}


@given(toml=house_rule_files())
@hypothesis_settings(SETTINGS, max_examples=EXAMPLES * 2)
def test_house_rule_files_with_edge_numbers(client: TestClient, count: Counted, toml: str) -> None:
    """Every number of a house-rule file is bounded: a game is made (201) or refused
    with a sentence (422), and a game made is read back like any other."""
    players = ["Ann", "Bob", "Cy", "Dee"]
    response = client.post("/api/games", json={"variant_toml": toml, "players": players})
    count("house-rule file", response.status_code)
    assert response.status_code in (201, 422), response.text
    if response.status_code == 422:
        assert isinstance(response.json()["detail"], str), response.text
        return
    game = response.json()["id"]
    for path in (f"/api/games/{game}", f"/api/games/{game}/rounds/1", f"/api/games/{game}/sheet"):
        assert client.get(path).status_code == 200, path
    points = client.post(f"/api/games/{game}/points", json={"cards": "7h Kd JK"})
    assert points.status_code in (200, 422), points.text
