"""Reading variants from TOML: the built-in variants and users' house-rule files.

The built-ins in `variants/*.toml` use exactly the schema documented for house rules
(docs/house-rules.md), so the loader is exercised by every test that touches a variant.
A house-rule file may start from a built-in with `extends = "shanghai"` and override
only what differs. Every mistake in a file is reported with the key it concerns.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from .cards import Card, DeckFamily
from .errors import CardParseError, VariantError
from .variants import (
    MAX_PLAYERS_ANY,
    AceRank,
    Contract,
    DealSize,
    GoingOut,
    JokerSwap,
    RoundRule,
    RunSpacing,
    Setup,
    Variant,
    WildLimits,
    shorten,
)

__all__ = [
    "BUILTIN_VARIANTS",
    "find_variant",
    "house_rule_dirs",
    "list_variants",
    "load_variant",
    "parse_variant",
    "read_variant",
]

BUILTIN_VARIANTS: tuple[str, ...] = ("shanghai", "rook", "shafer", "manipulation", "family")

_SCHEMA: dict[str, set[str]] = {
    "": {
        "name",
        "title",
        "description",
        "sources",
        "family",
        "players",
        "notes",
        "extends",
        "repeat_rounds",
        "setup",
        "melds",
        "wilds",
        "lay_down",
        "buying",
        "going_out",
        "dealing",
        "scoring",
        "rounds",
    },
    "setup": {"players", "decks", "jokers", "wilds", "remove"},
    "melds": {
        "min_set",
        "max_set",
        "set_distinct_suits",
        "min_run",
        "ace",
        "min_naturals",
        "joker_swap",
    },
    "wilds": {"limit_at_lay_down", "limit_later"},
    "lay_down": {
        "exact",
        "run_spacing",
        "distinct_set_ranks",
        "lay_off_same_turn",
        "rearrange",
        "must_meld_if_able",
    },
    "buying": {"penalty_cards", "discards", "only_before_lay_down", "pick_and_buy", "in_turn_buy"},
    "going_out": {"by", "blind_bonus", "blind_bonus_no_wild", "has_discards"},
    "dealing": {"batches", "wild_upcard_reburied", "deal", "buys"},
    "scoring": {"ranks", "wild", "target"},
    "rounds": {"contract", "deal", "buys"},
}


class _Reader:
    """Typed access to one TOML table, naming the key in every error."""

    def __init__(self, data: Mapping[str, Any], where: str) -> None:
        self.data = data
        self.where = where
        known = _SCHEMA[where.split("[")[0] if where else ""]
        unknown = sorted(set(data) - known)
        if unknown:
            place = f"[{where}]" if where else "the top level"
            raise VariantError(
                f"unknown key {shorten(unknown[0])!r} in {place}; "
                f"known keys: {', '.join(sorted(known))}"
            )

    def _name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise VariantError(f"missing required key {self._name(key)!r}")
            return default
        value = self.data[key]
        # bool is an int in Python; a count written as `true` is a mistake.
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise VariantError(f"{self._name(key)!r} must be {_kind_name(kind)}, not a boolean")
        if not isinstance(value, kind):
            raise VariantError(
                f"{self._name(key)!r} must be {_kind_name(kind)}, not {type(value).__name__}"
            )
        return value

    def table(self, key: str) -> _Reader:
        return _Reader(self.get(key, dict, {}), key)

    def items(self, key: str, kind: type, default: list[Any]) -> tuple[Any, ...]:
        """A list whose every entry is of `kind` (strings of notes, numbers of batches)."""
        values = self.get(key, list, default)
        for value in values:
            if isinstance(value, bool) or not isinstance(value, kind):
                plural = {str: "strings", int: "whole numbers"}.get(kind, kind.__name__)
                raise VariantError(f"{self._name(key)!r} must be a list of {plural}")
        return tuple(values)

    def enum(self, key: str, kind: Any, default: Any) -> Any:
        text = self.get(key, str, default.value)
        try:
            return kind(text)
        except ValueError:
            choices = ", ".join(repr(m.value) for m in kind)
            raise VariantError(f"{self._name(key)!r} must be one of {choices}") from None


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {int: "an integer", str: "a string", bool: "true or false", list: "a list"}
    names[dict] = "a table"
    return " or ".join(names.get(k, k.__name__) for k in kinds)


_RANGE = re.compile(r"^\s*(\d{1,6})\s*(?:-\s*(\d{0,6})\s*)?$")


def _player_range(text: str | int, where: str) -> tuple[int, int]:
    """`"3-4"` -> (3, 4); `"5-"` -> (5, 99); `6` -> (6, 6)."""
    if isinstance(text, bool) or not isinstance(text, str | int):
        raise VariantError(f"{where}: a player range is written '3-4', '5-' or 6")
    if isinstance(text, int):
        return text, text
    match = _RANGE.match(text)
    if match is None:
        raise VariantError(
            f"{where}: cannot read player range {shorten(text)!r} (write '3-4', '5-' or 6)"
        )
    low = int(match.group(1))
    if match.group(2) is None:
        high = low if "-" not in text else MAX_PLAYERS_ANY
    else:
        high = int(match.group(2)) if match.group(2) else MAX_PLAYERS_ANY
    if high < low:
        raise VariantError(f"{where}: player range {shorten(text)!r} is empty")
    return low, high


def _cards(values: list[Any], where: str) -> tuple[Card, ...]:
    try:
        return tuple(Card.parse(str(v)) for v in values)
    except CardParseError as exc:
        raise VariantError(f"{where}: {exc}") from None


def _deal(value: Any, where: str) -> tuple[DealSize, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (DealSize(cards=value),)
    if not isinstance(value, list) or not value:
        raise VariantError(f"{where} must be a number of cards or a list of {{players, cards}}")
    sizes = []
    for entry in value:
        if not isinstance(entry, dict) or set(entry) != {"players", "cards"}:
            raise VariantError(f"{where}: each entry needs exactly 'players' and 'cards'")
        low, high = _player_range(entry["players"], where)
        cards = entry["cards"]
        if isinstance(cards, bool) or not isinstance(cards, int):
            raise VariantError(
                f"{where}: 'cards' must be a number of cards, not {shorten(repr(cards))}"
            )
        sizes.append(DealSize(cards=cards, min_players=low, max_players=high))
    return tuple(sizes)


def _wild_limits(value: Any, where: str, same: WildLimits | None = None) -> WildLimits:
    if value == "none":
        return WildLimits(table=None)
    if value == "same" and same is not None:
        return same
    if isinstance(value, int) and not isinstance(value, bool):
        return WildLimits(table=((1, value),))
    if not isinstance(value, dict) or not value:
        raise VariantError(
            f"{where} must be 'none', {'same, ' if same else ''}a number, or a table of "
            "meld size = most wilds"
        )
    table = []
    for size, most in value.items():
        digits = str(size).strip()
        if not (digits.isdigit() and len(digits) <= 6) or not _is_int(most):
            raise VariantError(f"{where}: sizes and limits must be whole numbers")
        table.append((int(digits), most))
    return WildLimits(table=tuple(sorted(table)))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _rank_points(value: Any, family: DeckFamily) -> tuple[tuple[int, int], ...]:
    """`{"1" = 20, "3-9" = 5, "1-9" = "face"}` -> ((rank, points), ...)."""
    if not isinstance(value, dict) or not value:
        raise VariantError("scoring.ranks must be a table such as { '3-9' = 5, '10-13' = 10 }")
    top = 14 if family is DeckFamily.ROOK else 13
    points: dict[int, int] = {}
    for key, worth in value.items():
        where = f"scoring.ranks[{shorten(key)!r}]"
        low, high = _player_range(key, where)
        if high == MAX_PLAYERS_ANY:
            high = top
        if not 1 <= low <= high <= top:
            raise VariantError(f"{where}: ranks run from 1 to {top}")
        for rank in range(low, high + 1):
            if rank in points:
                raise VariantError(f"scoring.ranks gives rank {rank} points twice")
            if worth == "face":
                points[rank] = rank
            elif isinstance(worth, int) and not isinstance(worth, bool):
                points[rank] = worth
            else:
                raise VariantError(f"{where} must be a number or 'face'")
    return tuple(sorted(points.items()))


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A house-rule file over its base: each top-level table is merged key by key, and a
    key's value (a list of rounds, a table of rank points) is replaced whole."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = {**out[key], **value}
        else:
            out[key] = value
    return out


def parse_variant(data: Mapping[str, Any]) -> Variant:
    """Build a `Variant` from TOML data (already parsed); see docs/house-rules.md."""
    data = dict(data)
    base_name = data.pop("extends", None)
    if base_name is not None:
        if base_name not in BUILTIN_VARIANTS:
            raise VariantError(
                f"extends = {shorten(repr(base_name))}: no such built-in variant "
                f"(choose from {', '.join(BUILTIN_VARIANTS)})"
            )
        data = _merge(_builtin_data(base_name), data)
    top = _Reader(data, "")
    family = top.enum("family", DeckFamily, DeckFamily.STANDARD)
    min_players, max_players = _player_range(top.get("players", (str, int)), "players")

    setups = []
    raw_setups = top.get("setup", list)
    for index, raw in enumerate(raw_setups, start=1):
        if not isinstance(raw, dict):
            raise VariantError(f"setup entry {index} must be a table")
        reader = _Reader(raw, "setup")
        low, high = _player_range(reader.get("players", (str, int)), f"setup[{index}].players")
        setups.append(
            Setup(
                min_players=low,
                max_players=high,
                decks=reader.get("decks", int),
                jokers=reader.get("jokers", int, 0),
                wilds=_cards(reader.get("wilds", list, []), f"setup[{index}].wilds"),
                remove=_cards(reader.get("remove", list, []), f"setup[{index}].remove"),
            )
        )

    melds = top.table("melds")
    wilds = top.table("wilds")
    lay = top.table("lay_down")
    buying = top.table("buying")
    going = top.table("going_out")
    dealing = top.table("dealing")
    scoring = top.table("scoring")

    default_deal = dealing.get("deal", (int, list), None)
    default_buys = dealing.get("buys", int, 0)
    rounds = []
    for index, raw in enumerate(top.get("rounds", list), start=1):
        if not isinstance(raw, dict):
            raise VariantError(f"rounds entry {index} must be a table")
        reader = _Reader(raw, "rounds")
        contract_text = reader.get("contract", str, "")
        deal_value = reader.get("deal", (int, list), default_deal)
        if deal_value is None:
            raise VariantError(f"round {index}: no 'deal' and no dealing.deal default")
        rounds.append(
            RoundRule(
                number=index,
                contract=Contract.parse(contract_text) if contract_text else None,
                deal=_deal(deal_value, f"round {index} deal"),
                buys=reader.get("buys", int, default_buys),
            )
        )

    lay_down_limits = _wild_limits(
        wilds.get("limit_at_lay_down", (str, int, dict), "none"), "wilds.limit_at_lay_down"
    )
    later_limits = _wild_limits(
        wilds.get("limit_later", (str, int, dict), "same"), "wilds.limit_later", lay_down_limits
    )
    max_set = melds.get("max_set", int, 0)
    target = scoring.get("target", int, 0)
    return Variant(
        name=top.get("name", str),
        title=top.get("title", str, top.get("name", str)),
        description=top.get("description", str, ""),
        sources=top.items("sources", str, []),
        family=family,
        min_players=min_players,
        max_players=max_players,
        setups=tuple(setups),
        rounds=tuple(rounds),
        repeat_rounds=top.get("repeat_rounds", bool, False),
        min_set=melds.get("min_set", int, 3),
        max_set=max_set or None,
        set_distinct_suits=melds.get("set_distinct_suits", bool, False),
        min_run=melds.get("min_run", int, 4),
        ace=melds.enum("ace", AceRank, AceRank.HIGH_OR_LOW),
        min_naturals=melds.get("min_naturals", int, 2),
        joker_swap=melds.enum("joker_swap", JokerSwap, JokerSwap.NONE),
        wild_limits_lay_down=lay_down_limits,
        wild_limits_later=later_limits,
        lay_down_exact=lay.get("exact", bool, False),
        run_spacing=lay.enum("run_spacing", RunSpacing, RunSpacing.ANY),
        distinct_set_ranks=lay.get("distinct_set_ranks", bool, False),
        lay_off_same_turn=lay.get("lay_off_same_turn", bool, False),
        rearrange=lay.get("rearrange", bool, False),
        must_meld_if_able=lay.get("must_meld_if_able", bool, False),
        buy_penalty_cards=buying.get("penalty_cards", int, 1),
        buy_discards=buying.get("discards", int, 0),
        buy_only_before_lay_down=buying.get("only_before_lay_down", bool, False),
        pick_and_buy=buying.get("pick_and_buy", bool, False),
        in_turn_buy=buying.get("in_turn_buy", bool, False),
        deal_batches=dealing.items("batches", int, []),
        wild_upcard_reburied=dealing.get("wild_upcard_reburied", bool, False),
        going_out=going.enum("by", GoingOut, GoingOut.DISCARD_OR_MELD),
        has_discards=going.get("has_discards", bool, True),
        blind_bonus=going.get("blind_bonus", int, 0),
        blind_bonus_no_wild=going.get("blind_bonus_no_wild", int, 0),
        rank_points=_rank_points(scoring.get("ranks", dict), family),
        wild_points=scoring.get("wild", int, 0),
        target_score=target or None,
        notes=top.items("notes", str, []),
    )


@cache
def _builtin_data(name: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath("variants", f"{name}.toml").read_text("utf-8")
    return tomllib.loads(text)


@cache
def _builtin(name: str) -> Variant:
    return parse_variant(_builtin_data(name))


def load_variant(path: str | Path) -> Variant:
    """Read a house-rule variant from a TOML file, with errors that name the file."""
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise VariantError(f"cannot read variant file {str(path)!r}: {exc.strerror}") from None
    try:
        return read_variant(text)
    except VariantError as exc:
        raise VariantError(f"{path}: {exc}") from None


def read_variant(text: str) -> Variant:
    """A variant from the text of a TOML file (a house-rule file sent to the server)."""
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise VariantError("not valid TOML: arrays or tables nested too deeply") from None
    except ValueError as exc:  # TOMLDecodeError, or a number too long to read
        raise VariantError(f"not valid TOML: {shorten(str(exc), 200)}") from None
    return parse_variant(data)


def house_rule_dirs(first: str | Path | None = None) -> list[Path]:
    """Folders searched for house-rule variants by name, for the CLI and the server
    alike: `first` (a `--variants-dir` or $SHANGHAI_VARIANTS_DIR) when given, then the
    user's `~/.config/shanghai/variants`."""
    dirs = [Path(first)] if first else []
    return [*dirs, Path.home() / ".config" / "shanghai" / "variants"]


def find_variant(name: str, search_dirs: Iterable[str | Path] = ()) -> Variant:
    """A built-in variant by name, a house-rule variant by name from `search_dirs`, or a
    variant file by path (anything ending in `.toml`)."""
    if name in BUILTIN_VARIANTS:
        return _builtin(name)
    if name.endswith(".toml"):
        return load_variant(name)
    for folder in search_dirs:
        candidate = Path(folder) / f"{name}.toml"
        if candidate.is_file():
            return load_variant(candidate)
    raise VariantError(
        f"unknown variant {name!r}; choose from {', '.join(BUILTIN_VARIANTS)} "
        "or give a house-rule .toml file"
    )


def list_variants(search_dirs: Iterable[str | Path] = ()) -> list[Variant]:
    """Built-in variants first, then every house-rule file in `search_dirs`."""
    found = [_builtin(name) for name in BUILTIN_VARIANTS]
    for folder in search_dirs:
        base = Path(folder)
        if base.is_dir():
            found.extend(load_variant(path) for path in sorted(base.glob("*.toml")))
    return found
