"""Kuhhandel rule sets: frozen data, named presets and a random setup generator.

Every parameter of ``../shared/spec/kuhhandel-rules.md`` is a field here. A game record carries its
full rule set as JSON (:meth:`RuleSet.to_json`), so a record replays even if a preset changes later.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

AUCTION_STYLES = ("rounds", "open")
TRADE_TIES = ("challenger", "offer_again")
SCORINGS = ("classic", "master")
FIRST_SEATS = ("zero", "random")


@dataclass(frozen=True)
class Species:
    """An animal type: its quartet value and, per card in draw order, the payout note it triggers.

    ``payouts[i]`` is the note value every seat receives when the (i+1)-th card of this species is
    drawn (0: none). The number of cards of the species is ``len(payouts)``.
    """

    name: str
    value: int
    payouts: tuple[int, ...] = (0, 0, 0, 0)

    @property
    def cards(self) -> int:
        return len(self.payouts)

    # An immutable value: a copy is the value itself (the compiled build cannot rebuild a frozen
    # dataclass through the default copy protocol).
    def __copy__(self) -> Species:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Species:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickling builds it again from its fields: the compiled build cannot restore a frozen
        # dataclass through the default protocol (FrozenInstanceError).
        return (Species, (self.name, self.value, self.payouts))


CLASSIC_SPECIES = (
    Species("Chicken", 10),
    Species("Goose", 40),
    Species("Cat", 90),
    Species("Dog", 160),
    Species("Sheep", 250),
    Species("Goat", 350),
    Species("Donkey", 500, (50, 100, 200, 500)),
    Species("Pig", 650),
    Species("Cow", 800),
    Species("Horse", 1000),
)


@dataclass(frozen=True)
class RuleSet:
    """One complete Kuhhandel rule set (spec §2, §8, §9, §10).

    Money is described per note value: ``notes`` lists the face values in increasing order, and
    ``supply`` and ``start_wallet`` give counts in the same order. ``supply=None`` is an unlimited
    bank (notes are created when paid out).
    """

    name: str = "custom"
    species: tuple[Species, ...] = CLASSIC_SPECIES
    notes: tuple[int, ...] = (0, 10, 50, 100, 200, 500)
    supply: tuple[int, ...] | None = (10, 20, 10, 5, 5, 5)
    start_wallet: tuple[int, ...] = (2, 4, 1, 0, 0, 0)
    min_seats: int = 3
    max_seats: int = 5
    min_raise: int = 10
    auction_style: str = "rounds"
    max_bidding_rounds: int | None = None
    trade_tie: str = "challenger"
    max_turns: int = 500
    max_end_phase_rounds: int = 500
    first_seat: str = "zero"
    scoring: str = "classic"
    exam: bool = False
    # Master extensions (§9, §10)
    pedigrees: bool = False
    pedigree_bonus: int = 250
    countdown_from: int = 10
    rats: int = 0
    super_trade: bool = False
    double_auction: bool = False
    duel: bool = False
    duel_removed_notes: int = 10
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __copy__(self) -> RuleSet:  # immutable: a copy is the value itself (see Species)
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> RuleSet:
        return self

    def __reduce__(self) -> tuple[Any, ...]:  # from its fields, as Species
        return (RuleSet, tuple(getattr(self, f.name) for f in fields(RuleSet)))

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ValueError(f"invalid rule set {self.name!r}: " + "; ".join(problems))

    def problems(self) -> list[str]:
        """Everything wrong with this rule set (empty when it is valid)."""
        out: list[str] = []
        d = len(self.notes)
        if d == 0 or list(self.notes) != sorted(set(self.notes)) or self.notes[0] < 0:
            out.append("notes must be distinct non-negative values in increasing order")
        if self.supply is not None and len(self.supply) != d:
            out.append("supply needs one count per note value")
        if len(self.start_wallet) != d or min(self.start_wallet, default=0) < 0:
            out.append("start_wallet needs one non-negative count per note value")
        if not self.species:
            out.append("at least one species")
        names = [s.name for s in self.species]
        if len(set(names)) != len(names):
            out.append("species names must be distinct")
        for s in self.species:
            if s.cards < 2:
                out.append(f"{s.name}: a species needs at least 2 cards")
            if s.value < 0:
                out.append(f"{s.name}: negative value")
            for p in s.payouts:
                if p and p not in self.notes:
                    out.append(f"{s.name}: payout {p} is not a note value")
        if not 2 <= self.min_seats <= self.max_seats:
            out.append("seat range must satisfy 2 <= min_seats <= max_seats")
        if self.min_raise < 1:
            out.append("min_raise must be at least 1")
        if self.auction_style not in AUCTION_STYLES:
            out.append(f"auction_style must be one of {AUCTION_STYLES}")
        if self.max_bidding_rounds is not None and self.max_bidding_rounds < 1:
            out.append("max_bidding_rounds must be positive or null (unlimited)")
        if self.trade_tie not in TRADE_TIES:
            out.append(f"trade_tie must be one of {TRADE_TIES}")
        if self.scoring not in SCORINGS:
            out.append(f"scoring must be one of {SCORINGS}")
        if self.first_seat not in FIRST_SEATS:
            out.append(f"first_seat must be one of {FIRST_SEATS}")
        if self.max_turns < 1 or self.max_end_phase_rounds < 1:
            out.append("caps must be positive")
        if self.rats < 0 or self.countdown_from < 1:
            out.append("rats must be >= 0 and countdown_from >= 1")
        if self.duel and not (self.min_seats == self.max_seats == 2):
            out.append("the duel is for exactly 2 seats")
        if self.supply is not None and len(self.supply) == d and len(self.start_wallet) == d:
            need = [w * self.max_seats for w in self.start_wallet]
            if any(n > s for n, s in zip(need, self.supply, strict=True)):
                out.append("the supply cannot fill the start wallets of max_seats seats")
        return out

    # --- derived -----------------------------------------------------------------------------
    @property
    def start_money(self) -> int:
        return sum(c * v for c, v in zip(self.start_wallet, self.notes, strict=True))

    @property
    def animal_cards(self) -> int:
        return sum(s.cards for s in self.species)

    def with_changes(self, **changes: Any) -> RuleSet:
        """A copy with some parameters changed (and validated)."""
        return replace(self, **changes)

    # --- JSON --------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "species":
                value = [
                    {"name": s.name, "value": s.value, "payouts": list(s.payouts)} for s in value
                ]
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RuleSet:
        """Build a rule set from JSON; a preset name under ``"preset"`` fills unspecified fields."""
        base: dict[str, Any] = {}
        preset = data.get("preset")
        if preset is not None:
            if preset not in PRESETS:
                raise ValueError(f"unknown preset {preset!r}")
            base = PRESETS[preset].to_json()
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known - {"preset"}
        if unknown:
            raise ValueError(f"unknown rule parameters: {', '.join(sorted(unknown))}")
        merged = {**base, **{k: v for k, v in data.items() if k != "preset"}}
        kwargs: dict[str, Any] = {}
        try:
            for key, value in merged.items():
                if key == "species":
                    kwargs[key] = tuple(
                        Species(
                            str(s["name"]), int(s["value"]), tuple(int(p) for p in s["payouts"])
                        )
                        for s in value
                    )
                elif key in ("notes", "start_wallet"):
                    kwargs[key] = tuple(int(v) for v in value)
                elif key == "supply":
                    kwargs[key] = None if value is None else tuple(int(v) for v in value)
                elif key == "extra":
                    kwargs[key] = dict(value)
                else:
                    kwargs[key] = value
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed rule set: {exc}") from exc
        return cls(**kwargs)


CLASSIC = RuleSet(name="classic")
"""The box rules (seed 001 + seed 000's base rules): 3–5 seats, finite bank, raise by 10."""

COMPETITION = RuleSet(
    name="competition",
    supply=None,
    min_seats=3,
    max_seats=6,
    min_raise=1,
    max_bidding_rounds=15,
)
"""The Kuh-Handel bot competition (seed 000): 3–6 seats, unlimited bank, raise by 1, 15 rounds."""

MASTER_SPECIES = tuple(replace(s) for s in CLASSIC_SPECIES)
MASTER = RuleSet(
    name="master",
    species=MASTER_SPECIES,
    notes=(0, 10, 20, 50, 100, 200, 500),
    supply=(12, 18, 6, 12, 6, 6, 6),
    start_wallet=(2, 3, 1, 1, 0, 0, 0),
    min_seats=3,
    max_seats=6,
    trade_tie="offer_again",
    scoring="master",
    pedigrees=True,
    rats=4,
)
"""Kuhhandel Master (seed 004), 3–6 seats: pedigree cards, rats, tie offers again."""

MASTER_DUEL = replace(MASTER, name="master-duel", min_seats=2, max_seats=2, duel=True)
"""The Master duel for two (spec §10): dividing instead of auctions."""

PRESETS: dict[str, RuleSet] = {r.name: r for r in (CLASSIC, COMPETITION, MASTER, MASTER_DUEL)}


def random_rules(seed: int, seats: int = 4) -> RuleSet:
    """A valid random setup (spec §8, seed 000 "the game can be set up dynamically").

    2–4 species per seat, as the spec says (``seats`` is taken into 3..6: 6 to 24 species), 3–4
    cards per species, distinct values from 10..1000 in steps of 10, a 1–3× start wallet, and on
    about three species in ten some donkey-like payouts; unlimited bank, competition auction
    rules. Values are distinct, so a species is never confused with another.
    """
    rng = random.Random(seed)
    seats = max(3, min(6, seats))
    per_seat = rng.randint(2, 4)
    count = per_seat * seats
    values = sorted(rng.sample(range(10, 1001, 10), count))
    species = []
    for i, value in enumerate(values):
        cards = rng.choice((3, 4))
        payouts: tuple[int, ...] = (0,) * cards
        if rng.random() < 0.3:
            payouts = tuple(sorted(rng.choice((0, 10, 50, 100, 200, 500)) for _ in range(cards)))
        species.append(Species(f"Animal{i + 1}", value, payouts))
    mult = rng.randint(1, 3)
    return replace(
        COMPETITION,
        name=f"random-{seed}",
        species=tuple(species),
        start_wallet=(2 * mult, 4 * mult, mult, 0, 0, 0),
    )
