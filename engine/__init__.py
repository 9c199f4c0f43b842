"""Pure rules of the Shanghai family: cards, melds, contracts, variants, scoring.

Standard library only; every rule that differs between variants is data
(`variants/*.toml`, or a user's house-rule file).
"""

from .cards import CARD_CLASSES, JOKER, ROOK_BIRD, Card, DeckFamily, Suit, format_cards, parse_cards
from .contracts import LayDownReport, check_lay_down, find_lay_down, verify_lay_down
from .errors import CardParseError, IllegalMeldError, IllegalPlayError, ShanghaiError, VariantError
from .lay_downs import judge_lay_down, parse_hand, parse_lay_down
from .layoffs import lay_off, swap_wild
from .melds import Meld, check_meld
from .record import GameRecord, RoundRecord
from .scoring import PlayerScore, hand_points, score_hand, score_round
from .variant_files import find_variant, list_variants, load_variant
from .variants import Contract, MeldKind, Rules, Variant

__all__ = [
    "CARD_CLASSES",
    "JOKER",
    "ROOK_BIRD",
    "Card",
    "CardParseError",
    "Contract",
    "DeckFamily",
    "GameRecord",
    "IllegalMeldError",
    "IllegalPlayError",
    "LayDownReport",
    "Meld",
    "MeldKind",
    "PlayerScore",
    "RoundRecord",
    "Rules",
    "ShanghaiError",
    "Suit",
    "Variant",
    "VariantError",
    "check_lay_down",
    "check_meld",
    "find_lay_down",
    "find_variant",
    "format_cards",
    "hand_points",
    "judge_lay_down",
    "lay_off",
    "list_variants",
    "load_variant",
    "parse_cards",
    "parse_hand",
    "parse_lay_down",
    "score_hand",
    "score_round",
    "swap_wild",
    "verify_lay_down",
]
