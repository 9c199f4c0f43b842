"""The mutable state of one round in play, and the legal actions on it.

The simulator needs a state it can change cheaply thousands of times per game, so
`RoundState` is a plain mutable object; what leaves the simulator is frozen
(`simulator.RoundOutcome`). Every action checks its own preconditions and raises
`IllegalPlayError` or `IllegalMeldError` with a player's reason, so a faulty strategy
cannot make an illegal play silently. After each action the state calls its observer
(tests pass `invariants.check_invariants`).

Book-keeping kept only so invariants can be checked from outside: how many cards each
seat was dealt, received and gave away, who added which card to which meld and when,
and every buy with whether the buyer had laid down.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from . import layoffs
from .cards import Card
from .contracts import verify_lay_down
from .dealing import Deal, reshuffle
from .errors import IllegalMeldError, IllegalPlayError
from .melds import Meld, check_meld
from .variants import GoingOut, Rules

__all__ = ["Addition", "BuyEvent", "Observer", "RoundEnd", "RoundState", "TableMeld"]

Observer = Callable[["RoundState"], None]


class RoundEnd:
    """Why a round stopped (plain string constants so outcomes print readably)."""

    WENT_OUT = "went-out"
    TURN_CAP = "turn-cap"
    STOCK_OUT = "stock-out"


@dataclass(frozen=True, slots=True)
class Addition:
    """A card a seat put on an existing meld (lay-off, swap, manipulation) in a turn."""

    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class BuyEvent:
    seat: int
    turn: int
    buyer_had_laid_down: bool


@dataclass(slots=True)
class TableMeld:
    """A meld on the table with the seat that laid it down and later additions."""

    owner: int
    meld: Meld
    additions: list[Addition] = field(default_factory=list)


@dataclass
class RoundState:
    """One round in play. Seats are 0..players-1; play passes to the left (seat + 1)."""

    rules: Rules
    round_number: int
    rng: random.Random
    dealer: int
    stock: list[Card]
    discards: list[Card]
    hands: list[list[Card]]
    shoe: Counter[Card]
    observer: Observer | None = None
    melds: list[TableMeld] = field(default_factory=list)
    laid_down_turn: list[int | None] = field(default_factory=list)
    dealt: list[int] = field(default_factory=list)
    received: list[int] = field(default_factory=list)
    given: list[int] = field(default_factory=list)
    buys: list[BuyEvent] = field(default_factory=list)
    pending_buy_discards: list[int] = field(default_factory=list)
    turn: int = 0
    current: int = -1
    drew: int = 0
    upcard_bought: bool = False
    played_this_turn: list[Card] = field(default_factory=list)
    went_out: int | None = None
    blind: bool = False
    ended: str | None = None
    last_action: str = "deal"
    counts: Counter[str] = field(default_factory=Counter)

    @classmethod
    def from_deal(
        cls,
        rules: Rules,
        round_number: int,
        deal: Deal,
        rng: random.Random,
        *,
        dealer: int = 0,
        observer: Observer | None = None,
    ) -> RoundState:
        players = rules.players
        no_contract = rules.round(round_number).contract is None
        state = cls(
            rules=rules,
            round_number=round_number,
            rng=rng,
            dealer=dealer,
            stock=list(deal.stock),
            discards=list(deal.discards),
            hands=[list(hand) for hand in deal.hands],
            shoe=Counter(deal.cards),
            observer=observer,
            # Without a contract (manipulation) everyone may meld from the first turn.
            laid_down_turn=[0 if no_contract else None] * players,
            dealt=[len(hand) for hand in deal.hands],
            received=[0] * players,
            given=[0] * players,
            pending_buy_discards=[0] * players,
        )
        state.counts["reburied"] = deal.reburied
        state._done("deal")
        return state

    # -- queries ---------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def over(self) -> bool:
        return self.ended is not None

    @property
    def upcard(self) -> Card | None:
        return self.discards[-1] if self.discards else None

    def has_laid_down(self, seat: int) -> bool:
        return self.laid_down_turn[seat] is not None

    def may_play_on_table(self, seat: int) -> bool:
        """Laid down, and (unless the variant allows it) not in the turn of laying down."""
        laid = self.laid_down_turn[seat]
        if laid is None:
            return False
        return self.rules.variant.lay_off_same_turn or laid < self.turn

    def buys_used(self, seat: int) -> int:
        return sum(1 for event in self.buys if event.seat == seat)

    def can_buy(self, seat: int) -> bool:
        variant = self.rules.variant
        # The penalty cards come from the stock, refilled from the discard pile under
        # the upcard bought less its new top card (`dealing.reshuffle`): hence - 2.
        return (
            not self.over
            and variant.has_discards
            and seat != self.current
            and self.drew == 0
            and not self.upcard_bought
            and bool(self.discards)
            and self.buys_used(seat) < self.rules.round(self.round_number).buys
            and not (variant.buy_only_before_lay_down and self.has_laid_down(seat))
            and len(self.stock) + max(0, len(self.discards) - 2) >= variant.buy_penalty_cards
        )

    def table_melds(self, seat: int) -> list[Meld]:
        return [tm.meld for tm in self.melds if tm.owner == seat]

    # -- turn structure --------------------------------------------------------------

    def start_turn(self, seat: int) -> None:
        self._require_live()
        if any(self.pending_buy_discards):
            raise IllegalPlayError("a buyer still owes a discard")
        self.turn += 1
        self.current = seat
        self.drew = 0
        self.upcard_bought = False
        self.played_this_turn = []
        self._done("start-turn")

    def end_turn(self, seat: int) -> None:
        """End a turn without a discard (variants without a discard pile)."""
        self._require_turn(seat)
        if self.rules.variant.has_discards:
            raise IllegalPlayError("a turn ends with a discard in this variant")
        self._done("end-turn")

    def end(self, reason: str) -> None:
        """Stop the round early (turn cap, stock out); scored on the hands as they are."""
        self._require_live()
        self.ended = reason
        self._done(f"end:{reason}")

    # -- drawing and buying ----------------------------------------------------------

    def draw_stock(self, seat: int) -> Card:
        self._require_turn(seat)
        if self.drew and self.rules.variant.has_discards:
            raise IllegalPlayError("you have already drawn this turn")
        self._refill_stock()
        if not self.stock:
            raise IllegalPlayError("the stock is empty")
        card = self.stock.pop()
        self._receive(seat, [card])
        self.drew += 1
        self._done("draw-stock")
        return card

    def take_discard(self, seat: int) -> Card:
        self._require_turn(seat)
        if self.drew:
            raise IllegalPlayError("you have already drawn this turn")
        if not self.discards:
            raise IllegalPlayError("there is no discard to take")
        card = self.discards.pop()
        self._receive(seat, [card])
        self.drew += 1
        self._done("take-discard")
        return card

    def buy(self, seat: int) -> list[Card]:
        """Take the upcard out of turn with the variant's penalty cards from the stock."""
        if not self.can_buy(seat):
            raise IllegalPlayError(f"seat {seat} may not buy now")
        variant = self.rules.variant
        card = self.discards.pop()
        taken = [card]
        for _ in range(variant.buy_penalty_cards):
            self._refill_stock()
            taken.append(self.stock.pop())
        self._receive(seat, taken)
        self.buys.append(BuyEvent(seat, self.turn, self.has_laid_down(seat)))
        self.upcard_bought = True
        self.pending_buy_discards[seat] = variant.buy_discards
        self._done("buy")
        return taken

    def buy_discard(self, seat: int, card: Card) -> None:
        """The discard a buyer owes where the variant asks for one (Shafer)."""
        if self.pending_buy_discards[seat] <= 0:
            raise IllegalPlayError("no discard is owed for a buy")
        self._give(seat, [card])
        self.discards.append(card)
        self.pending_buy_discards[seat] -= 1
        self._done("buy-discard")

    def _refill_stock(self) -> None:
        if not self.stock and len(self.discards) > 1:
            reshuffle(self.stock, self.discards, self.rng)
            self.counts["reshuffles"] += 1

    # -- melding ---------------------------------------------------------------------

    def lay_down(self, seat: int, groups: Sequence[Sequence[Card]]) -> list[Meld]:
        """Lay down the round's contract (groups in table order)."""
        self._require_drawn(seat)
        if self.has_laid_down(seat):
            raise IllegalPlayError("you have already laid down this round")
        melds = verify_lay_down(groups, self.rules, self.round_number, ordered=True)
        cards = [card for meld in melds for card in meld.cards]
        self._give(seat, cards)
        self.melds.extend(TableMeld(seat, meld) for meld in melds)
        self.laid_down_turn[seat] = self.turn
        self._after_play(seat, cards, "lay-down")
        return melds

    def lay_off(self, seat: int, index: int, card: Card, end: layoffs.End | None = None) -> Meld:
        self._require_table_play(seat)
        target = self.melds[index]
        new = layoffs.lay_off(target.meld, card, self.rules, end=end)
        self._give(seat, [card])
        target.meld = new
        target.additions.append(Addition(seat, self.turn))
        self._after_play(seat, [card], "lay-off")
        return new

    def swap_wild(self, seat: int, index: int, card: Card) -> Card:
        """Put the natural `card` in place of the wild it stands for; the wild is taken."""
        self._require_table_play(seat)
        target = self.melds[index]
        new, freed = layoffs.swap_wild(target.meld, card, self.rules, is_owner=target.owner == seat)
        self._give(seat, [card])
        self._receive(seat, [freed])
        target.meld = new
        target.additions.append(Addition(seat, self.turn))
        self.played_this_turn.append(card)
        self._done("swap")
        return freed

    def meld_from_hand(self, seat: int, cards: Sequence[Card]) -> Meld:
        """A new meld from the hand (variants without contracts)."""
        self._require_table_play(seat)
        if self.rules.round(self.round_number).contract is not None:
            raise IllegalPlayError("new melds are laid down only as the round's contract")
        meld = check_meld(cards, self.rules, at_lay_down=False)
        self._give(seat, list(cards))
        self.melds.append(TableMeld(seat, meld))
        self._after_play(seat, list(cards), "meld")
        return meld

    def rearrange(
        self,
        seat: int,
        indices: Sequence[int],
        new: Sequence[Sequence[Card]],
        from_hand: Sequence[Card],
    ) -> list[Meld]:
        """Replace table melds `indices` by the groups `new`, adding `from_hand` cards.

        Every card of the old melds must be used again and every new group must be a
        legal meld (in table order) at the end of the play.
        """
        self._require_table_play(seat)
        if not self.rules.variant.rearrange:
            raise IllegalPlayError(f"{self.rules.variant.title} does not allow rearranging melds")
        if len(set(indices)) != len(indices):
            raise IllegalPlayError("a meld can be taken apart only once")
        old = Counter(card for i in indices for card in self.melds[i].meld.cards)
        if old + Counter(from_hand) != Counter(card for group in new for card in group):
            raise IllegalMeldError("a rearrangement must use exactly the cards it takes apart")
        melds = [check_meld(group, self.rules, ordered=True, at_lay_down=False) for group in new]
        self._give(seat, list(from_hand))
        kept = [tm for i, tm in enumerate(self.melds) if i not in set(indices)]
        owners = [self.melds[i].owner for i in indices]
        rebuilt = [
            TableMeld(owners[k] if k < len(owners) else seat, meld, [Addition(seat, self.turn)])
            for k, meld in enumerate(melds)
        ]
        self.melds = kept + rebuilt
        self._after_play(seat, list(from_hand), "rearrange")
        return melds

    def discard(self, seat: int, card: Card) -> None:
        """End the turn by discarding; discarding the last card goes out where allowed."""
        self._require_drawn(seat)
        hand = self.hands[seat]
        if len(hand) == 1 and self.rules.variant.going_out is GoingOut.MELD_ONLY:
            raise IllegalPlayError("in this variant you must go out on a meld, not a discard")
        self._give(seat, [card])
        self.discards.append(card)
        if not hand:
            self._go_out(seat)
        self._done("discard")

    # -- internals -------------------------------------------------------------------

    def _after_play(self, seat: int, cards: list[Card], action: str) -> None:
        self.played_this_turn.extend(cards)
        if not self.hands[seat]:
            self._go_out(seat)
        self._done(action)

    def _go_out(self, seat: int) -> None:
        self.went_out = seat
        self.ended = RoundEnd.WENT_OUT
        # Blind: the whole contract and every other card went down in one turn.
        self.blind = (
            self.laid_down_turn[seat] == self.turn
            and self.rules.round(self.round_number).contract is not None
        )

    def _receive(self, seat: int, cards: list[Card]) -> None:
        self.hands[seat].extend(cards)
        self.received[seat] += len(cards)

    def _give(self, seat: int, cards: list[Card]) -> None:
        hand = Counter(self.hands[seat])
        need = Counter(cards)
        if need - hand:
            missing = " ".join(str(c) for c in (need - hand).elements())
            raise IllegalPlayError(f"seat {seat} does not hold {missing}")
        for card in cards:
            self.hands[seat].remove(card)
        self.given[seat] += len(cards)

    def _require_live(self) -> None:
        if self.over:
            raise IllegalPlayError("the round is over")

    def _require_turn(self, seat: int) -> None:
        self._require_live()
        if seat != self.current:
            raise IllegalPlayError(f"it is seat {self.current}'s turn, not seat {seat}'s")

    def _require_drawn(self, seat: int) -> None:
        self._require_turn(seat)
        if self.rules.variant.has_discards and not self.drew:
            raise IllegalPlayError("draw a card first")

    def _require_table_play(self, seat: int) -> None:
        self._require_drawn(seat)
        if not self.may_play_on_table(seat):
            raise IllegalPlayError(
                "lay down your contract first"
                if not self.has_laid_down(seat)
                else "you may add to melds from your next turn"
            )

    def _done(self, action: str) -> None:
        self.last_action = action
        self.counts[action] += 1
        if self.observer is not None:
            self.observer(self)
