"""Fixtures for the API tests: the same tests run on a SQLite file and on a real
PostgreSQL server that this session starts itself (initdb + pg_ctl in a temp folder).

PostgreSQL is never skipped silently: without its server binaries the PostgreSQL runs
fail, saying what to install, unless SHANGHAI_SKIP_POSTGRES=1 opts out explicitly.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mini_table import MiniTable, TableReader
from sqlalchemy import create_engine, text

from shanghai.engine.variants import Rules
from shanghai.server.app import create_app
from shanghai.server.db import migrate
from shanghai.server.scanning import (
    CardScanner,
    UnavailableScanner,
    default_scanner,
    get_scanner,
)
from shanghai.server.settings import Settings
from shanghai.vision.regions import Reread
from shanghai.vision.scan import PhotoScanner
from shanghai.vision.snapshot import PhotoKind, TableSnapshot

SKIP_ENV = "SHANGHAI_SKIP_POSTGRES"


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_bindir() -> Path | None:
    """The newest PostgreSQL server binaries: $SHANGHAI_PG_BINDIR, Debian's
    /usr/lib/postgresql/*/bin, or initdb on PATH."""
    if env := os.environ.get("SHANGHAI_PG_BINDIR"):
        return Path(env)
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    if found:
        newest = max(found, key=lambda p: int(Path(p).parts[-3].split(".")[0]))
        return Path(newest).parent
    on_path = shutil.which("initdb")
    return Path(on_path).parent if on_path else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    """A throw-away PostgreSQL cluster; each test gets a fresh database copied from a
    template that already holds the migrated schema."""

    bindir: Path
    root: Path
    port: int
    run_as: str | None
    counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def _cmd(self, *args: str) -> list[str]:
        if self.run_as is None:
            return list(args)
        return ["runuser", "-u", self.run_as, "--", *args]

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        data = self.root / "data"
        subprocess.run(
            self._cmd(
                str(self.bindir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ),
            check=True,
            capture_output=True,
        )
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} "
            f"-c unix_socket_directories={self.root} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        subprocess.run(
            self._cmd(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-l",
                str(self.root / "server.log"),
                "-w",
                "-t",
                "60",
                "start",
            ),
            check=True,
            capture_output=True,
        )
        admin = create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("CREATE DATABASE shanghai_template"))
        admin.dispose()
        template = create_engine(self.url("shanghai_template"))
        migrate(template)
        template.dispose()

    def new_database(self) -> str:
        name = f"test_{next(self.counter)}"
        admin = create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name} TEMPLATE shanghai_template"))
        admin.dispose()
        return self.url(name)

    def stop(self) -> None:
        subprocess.run(
            self._cmd(
                str(self.bindir / "pg_ctl"),
                "-D",
                str(self.root / "data"),
                "-m",
                "immediate",
                "stop",
            ),
            capture_output=True,
        )


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    bindir = _pg_bindir()
    if bindir is None or not (bindir / "pg_ctl").exists():
        pytest.fail(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: install the Debian package "
            f"'postgresql' (listed in .ci/apt-packages.txt), or set {SKIP_ENV}=1 to run the "
            "API tests on SQLite only",
            pytrace=False,
        )
    run_as = None
    root = Path(tempfile.mkdtemp(prefix="shanghai-pg-"))
    if os.geteuid() == 0:  # initdb refuses to run as root
        run_as = next((u for u in ("postgres", "nobody") if _user_exists(u)), None)
        if run_as is None:
            pytest.fail("running as root and no 'postgres' or 'nobody' user to run PostgreSQL")
        entry = pwd.getpwnam(run_as)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    server = PostgresServer(bindir=bindir, root=root, port=_free_port(), run_as=run_as)
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        log = root / "server.log"
        detail = log.read_text() if log.exists() else exc.stderr.decode(errors="replace")
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"could not start PostgreSQL: {detail[-2000:]}", pytrace=False)
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


# --- the app ------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'shanghai.db'}"
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"PostgreSQL opted out with {SKIP_ENV}=1")
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()


@pytest.fixture
def settings_dir(tmp_path: Path) -> Path:
    """The house-rule folder the test app searches by name."""
    folder = tmp_path / "variants"
    folder.mkdir()
    return folder


@pytest.fixture
def settings(tmp_path: Path, database_url: str, settings_dir: Path) -> Settings:
    return Settings(
        data_dir=tmp_path / "data", database_url=database_url, variants_dir=settings_dir
    )


@pytest.fixture(scope="session")
def shipped_scanner() -> CardScanner:
    """The app's default scanner (`default_scanner`: the shipped models, or the
    unavailable one), loaded once for the session. Each app loading its own model
    sessions grew the test process by about 30 MB a server test, never given back (the
    whole suite peaked at 18 GB of a 24 GB machine; `tests/server` alone now peaks at
    2.1 GB). A scanner serves every request of an app already, so apps may share one;
    a taught deck reads with its own copy (`DeckScanners`)."""
    return default_scanner()


@pytest.fixture
def app(settings: Settings, shipped_scanner: CardScanner) -> FastAPI:
    return create_app(settings, scanner=shipped_scanner)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def sqlite_client(tmp_path: Path) -> Iterator[TestClient]:
    """For tests where the database plays no part (live frames, image checks); the app
    as it runs when the model files are missing."""
    settings = Settings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'live.db'}")
    with TestClient(create_app(settings, scanner=UnavailableScanner())) as test_client:
        yield test_client


@pytest.fixture
def without_model(app: FastAPI) -> None:
    """The app as it runs when the model files are missing (the shipped model is
    installed in the repository, so this has to be said)."""
    scanner = UnavailableScanner()
    app.dependency_overrides[get_scanner] = lambda: scanner


# --- a scanner with known answers ---------------------------------------------------------


class FakeScanner:
    """The real scan contract (`PhotoScanner`) over a table laid by hand instead of the
    models: `melds` are rows of overlapping cards, every other card lies on its own.
    Counts the images it saw."""

    def __init__(self) -> None:
        self.cards: list[str] = []
        self.melds: tuple[tuple[int, ...], ...] = ()
        self.unread = 0
        """Cards whose outline shows but which are not read."""
        self.confidence = 0.9
        self.layout: MiniTable | None = None
        """A table laid out by the test itself (instead of `cards` and `melds`)."""
        self.seen: list[tuple[int, int]] = []

    @property
    def name(self) -> str:
        return "fake scanner"

    def table(self) -> MiniTable:
        if self.layout is not None:
            return self.layout
        table = MiniTable(width=1600, height=1200)
        for k, meld in enumerate(self.melds):
            table.row([self.cards[i] for i in meld], 500, 200 + 180 * k, step=20)
        placed = {i for meld in self.melds for i in meld}
        loose = [name for i, name in enumerate(self.cards) if i not in placed]
        for k, name in enumerate(loose + ["Qs"] * self.unread):
            readable = k < len(loose)
            table.card(name, 120 + 160 * (k % 9), 900 + 180 * (k // 9), readable=readable)
        return table

    def scan(
        self,
        image: np.ndarray,  # type: ignore[type-arg]
        *,
        rules: Rules | None = None,
        kind: PhotoKind = PhotoKind.HAND,
        seats: int = 1,
        reread: Reread | None = None,
    ) -> TableSnapshot:
        self.seen.append((int(image.shape[1]), int(image.shape[0])))
        scanner = PhotoScanner(TableReader(self.table(), self.confidence))
        return scanner.scan(image, rules=rules, kind=kind, seats=seats, reread=reread)


ScanSetter = Callable[..., list[tuple[int, int]]]


@pytest.fixture
def fake_scanner(app: FastAPI) -> ScanSetter:
    """Swap the app's scanner for one with known answers. The fixture is a function:
    `fake_scanner(["7h", "Kd"], melds=((0, 1),), unread=1, confidence=0.9)` sets what
    the table shows (`unread` cards seen but not read; every read at `confidence`) and
    returns the list of (width, height) of the images it was given."""
    scanner = FakeScanner()
    app.dependency_overrides[get_scanner] = lambda: scanner

    def returns(
        cards: Sequence[str] = (),
        melds: tuple[tuple[int, ...], ...] = (),
        *,
        unread: int = 0,
        confidence: float = 0.9,
        layout: MiniTable | None = None,
    ) -> list[tuple[int, int]]:
        scanner.cards, scanner.melds = list(cards), melds
        scanner.unread, scanner.confidence, scanner.layout = unread, confidence, layout
        return scanner.seen

    return returns


def _jpeg(width: int = 320, height: int = 240) -> bytes:
    """A small real photo-like JPEG (a green table with a white card)."""
    image = np.zeros((height, width, 3), np.uint8)
    image[:] = (40, 110, 40)
    cv2.rectangle(image, (20, 20), (80, 110), (250, 250, 250), -1)
    ok, buffer = cv2.imencode(".jpg", image)
    assert ok
    return bytes(buffer.tobytes())


@pytest.fixture
def photo() -> bytes:
    return _jpeg()


GameMaker = Callable[..., int]


@pytest.fixture
def make_game(client: TestClient) -> GameMaker:
    """Create a game (Shanghai, three players unless told) and return its id."""

    def make(players: Sequence[str] = ("Ann", "Bob", "Cy"), **extra: object) -> int:
        body = {"variant": "shanghai", "players": list(players), **extra}
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        return int(response.json()["id"])

    return make
