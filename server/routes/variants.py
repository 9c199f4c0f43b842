"""`/api/variants`: the rules the server knows (built-in and house-rule files by name)."""

from __future__ import annotations

from fastapi import APIRouter

from shanghai.engine import ShanghaiError, Variant
from shanghai.engine.variant_files import BUILTIN_VARIANTS

from ..deps import SettingsDep
from ..errors import ApiError
from ..schemas import (
    DealPublic,
    RoundRulePublic,
    VariantPublic,
    VariantSummary,
    error_responses,
)
from ..variant_snapshots import variant_snapshot

router = APIRouter(prefix="/api/variants", tags=["variants"])


def _summary(variant: Variant) -> VariantSummary:
    return VariantSummary(
        name=variant.name,
        title=variant.title,
        description=variant.description,
        family=variant.family.value,
        min_players=variant.min_players,
        max_players=variant.max_players,
        rounds=len(variant.rounds),
        repeat_rounds=variant.repeat_rounds,
        target_score=variant.target_score,
    )


@router.get("", response_model=list[VariantSummary])
def read_variants(settings: SettingsDep) -> list[VariantSummary]:
    """Built-in variants, then the readable house-rule files of the configured folders
    (a broken file is left out of the list; asking for it by name says what is wrong)."""
    found = [variant_snapshot(name, ())[0] for name in BUILTIN_VARIANTS]
    seen = set(BUILTIN_VARIANTS)
    for folder in settings.variant_search_dirs:
        for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
            if path.stem in seen:
                continue
            try:
                found.append(variant_snapshot(path.stem, [folder])[0])
            except (ApiError, ShanghaiError):
                continue
            seen.add(path.stem)
    return [_summary(v) for v in found]


@router.get("/{name}", response_model=VariantPublic, responses=error_responses(422))
def read_variant(name: str, settings: SettingsDep) -> VariantPublic:
    variant, _text, _origin = variant_snapshot(name, settings.variant_search_dirs)
    return VariantPublic(
        **_summary(variant).model_dump(),
        round_rules=[
            RoundRulePublic(
                number=rule.number,
                contract=str(rule.contract) if rule.contract else None,
                deal=[
                    DealPublic(min_players=d.min_players, max_players=d.max_players, cards=d.cards)
                    for d in rule.deal
                ],
                buys=rule.buys,
            )
            for rule in variant.rounds
        ],
        notes=list(variant.notes),
    )
