"""Upgrading a database that holds games: a 0002 database (as servers stored before
0003) upgrades on SQLite and PostgreSQL, and its games read the same afterwards."""

from __future__ import annotations

import datetime as dt

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import Engine, MetaData, create_engine, func, insert, select
from sqlalchemy.exc import IntegrityError

from shanghai.server.app import create_app
from shanghai.server.db import alembic_config, migrate
from shanghai.server.settings import Settings
from shanghai.server.variant_snapshots import variant_snapshot


def _at_0002(url: str) -> Engine:
    """The database emptied and migrated to 0002 (the session's PostgreSQL template
    is already at the latest revision)."""
    engine = create_engine(url)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "base")
    migrate(engine, "0002")
    return engine


def _store_a_0002_game(engine: Engine) -> int:
    """A game as 0002 stored it: corrections in a JSON list, buys without slots, and a
    round where a race let two players go out (Ann first, then Cy)."""
    tables = MetaData()
    tables.reflect(engine)
    games, players, hands, buys = (tables.tables[t] for t in ("games", "players", "hands", "buys"))
    _variant, toml, _origin = variant_snapshot("shanghai", [])
    with engine.begin() as db:
        game = db.execute(
            insert(games).values(
                name="before 0003",
                variant_name="shanghai",
                variant_title="Shanghai",
                variant_origin="built-in",
                variant_toml=toml,
            )
        ).inserted_primary_key[0]
        ann, bob, cy = (
            db.execute(
                insert(players).values(game_id=game, seat=seat, name=name)
            ).inserted_primary_key[0]
            for seat, name in enumerate(("Ann", "Bob", "Cy"))
        )
        hand = {"game_id": game, "round_number": 1, "bonus": 0, "blind": False}
        db.execute(
            insert(hands),
            [
                hand
                | {
                    "player_id": ann,
                    "cards": "",
                    "hand_points": 0,
                    "went_out": True,
                    "corrections": [{"action": "removed", "card": "7h"}],
                },
                hand
                | {
                    "player_id": bob,
                    "cards": "7h 8h",
                    "hand_points": 15,
                    "went_out": False,
                    "corrections": [
                        {"action": "added", "card": "8h"},
                        {"action": "removed", "card": "9h"},
                        {"action": "added", "card": "7h"},
                    ],
                },
                hand
                | {
                    "player_id": cy,
                    "cards": "",
                    "hand_points": 0,
                    "went_out": True,
                    "corrections": [],
                },
            ],
        )
        bought = {"game_id": game, "round_number": 2}
        db.execute(insert(buys), [bought | {"player_id": bob}] * 2 + [bought | {"player_id": cy}])
    return int(game)


def test_a_0002_database_with_games_upgrades(database_url: str, settings: Settings) -> None:
    engine = _at_0002(database_url)
    game = _store_a_0002_game(engine)
    with TestClient(create_app(settings)) as client:  # starting migrates to the latest
        one = client.get(f"/api/games/{game}/rounds/1")
        assert one.status_code == 200, one.text
        stored = {h["player"]: h for h in one.json()["hands"]}
        # The second player out (stored by the race) is gone: Cy enters the hand again.
        assert sorted(stored) == ["Ann", "Bob"]
        assert stored["Ann"]["went_out"]
        assert stored["Ann"]["corrections"] == [{"action": "removed", "card": "7h"}]
        assert stored["Bob"]["corrections"] == [
            {"action": "added", "card": "8h"},
            {"action": "removed", "card": "9h"},
            {"action": "added", "card": "7h"},
        ]
        summary = client.get("/api/games").json()[0]
        assert dt.datetime.fromisoformat(summary["created_at"]).utcoffset() == dt.timedelta(0)

        hands = f"/api/games/{game}/rounds/1/hands"
        assert client.post(hands, json={"player": 2, "cards": ""}).status_code == 409
        assert client.post(hands, json={"player": 2, "cards": "4c"}).status_code == 201
        fixed = client.put(f"{hands}/1", json={"cards": "7h"})
        assert fixed.json()["corrections"][-1] == {"action": "removed", "card": "8h"}

        # The buys got slots 1 and 2: Bob has one buy left in round 2.
        buys = f"/api/games/{game}/rounds/2/buys"
        assert client.post(buys, json={"player": 1}).json()["used"] == 3
        assert client.post(buys, json={"player": 1}).status_code == 409
        assert client.post(buys, json={"player": 2}).json()["used"] == 2

    tables = MetaData()
    tables.reflect(engine)
    hands_table, buys_table = tables.tables["hands"], tables.tables["buys"]
    with engine.connect() as db:
        slots = db.execute(
            select(buys_table.c.player_id, func.max(buys_table.c.slot)).group_by(
                buys_table.c.player_id
            )
        ).all()
        assert sorted(slot for _player, slot in slots) == [2, 3]
        seated = db.execute(select(tables.tables["players"].c.id)).scalars().all()
    # The database itself refuses a second player out in a round.
    out = {"game_id": game, "round_number": 7, "cards": "", "hand_points": 0, "bonus": 0}
    out |= {"went_out": True, "blind": False}
    with engine.begin() as db:
        db.execute(insert(hands_table).values(out | {"player_id": seated[0]}))
    with pytest.raises(IntegrityError), engine.begin() as db:
        db.execute(insert(hands_table).values(out | {"player_id": seated[1]}))
    engine.dispose()


def test_0003_downgrades_with_the_corrections(database_url: str) -> None:
    engine = _at_0002(database_url)
    _store_a_0002_game(engine)
    migrate(engine)
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0002")
    tables = MetaData()
    tables.reflect(engine)
    hands = tables.tables["hands"]
    with engine.connect() as db:
        kept = db.execute(select(hands.c.cards, hands.c.corrections).order_by(hands.c.id)).all()
    assert [(cards, corrections) for cards, corrections in kept] == [
        ("", [{"action": "removed", "card": "7h"}]),
        (
            "7h 8h",
            [
                {"action": "added", "card": "8h"},
                {"action": "removed", "card": "9h"},
                {"action": "added", "card": "7h"},
            ],
        ),
    ]
    assert "slot" not in tables.tables["buys"].c
    engine.dispose()


def test_0004_keeps_who_corrected_and_downgrades(database_url: str, settings: Settings) -> None:
    engine = _at_0002(database_url)
    game = _store_a_0002_game(engine)
    with TestClient(create_app(settings)) as client:  # to the latest: 0003, then 0004
        fixed = client.put(f"/api/games/{game}/rounds/1/hands/1", json={"cards": "7h", "by": "Cy"})
        assert fixed.status_code == 200, fixed.text
        history = client.get(f"/api/games/{game}/changes").json()
        # the hands stored before have no history; the correction made now has one
        assert [(c["kind"], c["by"], c["player"]) for c in history] == [("corrected", "Cy", "Bob")]
        assert client.post(f"/api/games/{game}/undo").json()["undone"]["id"] == history[0]["id"]
        assert client.get(f"/api/games/{game}/sheet").json()["rounds"][0]["edited"] is True
    tables = MetaData()
    tables.reflect(engine)
    corrections = tables.tables["hand_corrections"]
    with engine.connect() as db:
        authors = db.execute(select(corrections.c.author).order_by(corrections.c.id)).scalars()
        assert list(authors) == [None, None, None, None, "Cy", "host"]
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")
    tables = MetaData()
    tables.reflect(engine)
    assert "round_changes" not in tables.tables
    assert "author" not in tables.tables["hand_corrections"].c
    with engine.connect() as db:
        assert db.scalar(select(func.count()).select_from(tables.tables["hand_corrections"])) == 6
    engine.dispose()


def test_0005_games_from_before_read_without_a_deck(database_url: str, settings: Settings) -> None:
    engine = _at_0002(database_url)
    game = _store_a_0002_game(engine)
    with TestClient(create_app(settings)) as client:  # to the latest, 0005 included
        assert client.get(f"/api/games/{game}").json()["deck"] is None
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0004")
    tables = MetaData()
    tables.reflect(engine)
    assert "deck" not in tables.tables["games"].c
    with engine.connect() as db:
        assert db.scalar(select(func.count()).select_from(tables.tables["games"])) == 1
    engine.dispose()
