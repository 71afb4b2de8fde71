"""One game driven index by index: which seat chooses now, its draft, its cached observation.

Shared by the PettingZoo environment (:mod:`cardtable.rl.aec`) and the single-seat Gymnasium
environment (:mod:`cardtable.rl.single`). The game is the engine itself (the game spec's
``new_game``), so a finished game's :meth:`~cardtable.core.Game.record` replays and verifies like
any other.

Which seat chooses: the engine's first open request. When several are open at once (Cunegonda's
pass, Kuhhandel's pedigree claims and open auctions) the seats take turns: the first open request
of a seat after the one that chose last, in seat order. An open auction's auctioneer may then also
*wait* (``pass``) instead of knocking, which hands the choice to the next bidder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from cardtable.core.contract import Game, Request
from cardtable.core.registry import GameSpec, game_spec
from cardtable.rl.codec import WAIT, Codec, Draft

#: Choices after which an episode is cut (truncated), whatever the engine's own caps say: every
#: index stepped and every whole bot answer counts. A random 4-seat game takes ~800-1,500 index
#: steps (classic, master); with ``overbid=True`` random bids run to 25,000-40,000 steps, because
#: the engine's ``max_turns`` counts turns, not the bids within one.
MAX_STEPS = 10_000


def resolve_rules(spec: GameSpec, rules: Any) -> Any:
    """A preset name, a rule set as JSON, ``None`` (the default preset) or a rule-set value."""
    if rules is None or isinstance(rules, str | Mapping):
        return spec.resolve_rules(rules)
    return rules


def default_seats(spec: GameSpec, rules: Any, seats: int | None) -> int:
    lo, hi = spec.seat_range(rules)
    if seats is None:
        return max(lo, min(hi, 4))
    if not lo <= seats <= hi:
        raise ValueError(f"{spec.name} {getattr(rules, 'name', '')}: {lo}–{hi} seats, not {seats}")
    return seats


def make_codec(game: str, rules: Any, seats: int, *, overbid: bool = False) -> Codec:
    """The codec of ``game`` for a rule set and seat count."""
    if game == "kuhhandel":
        from cardtable.rl.kuhhandel import KuhhandelCodec

        return KuhhandelCodec(rules, seats, overbid=overbid)
    if game == "cunegonda":
        from cardtable.rl.cunegonda import CunegondaCodec

        return CunegondaCodec(rules, seats)
    raise ValueError(f"no RL codec for {game!r}")


class Table:
    """A game, the seat choosing now, its request and draft; built once, reset per episode.

    Every vector and mask it hands out is a new array the caller owns.
    """

    def __init__(
        self,
        game: str,
        rules: Any = None,
        seats: int | None = None,
        *,
        overbid: bool = False,
        max_steps: int = MAX_STEPS,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {max_steps}")
        self.spec = game_spec(game)
        self.overbid = overbid
        self.max_steps = max_steps
        self.steps = 0
        self.cut = False
        self.rules = resolve_rules(self.spec, rules)
        self.seats = default_seats(self.spec, self.rules, seats)
        self.codec: Codec = make_codec(game, self.rules, self.seats, overbid=overbid)
        self.game: Game = self.spec.new_game(self.rules, self.seats, 0)
        self.seat = -1
        self.request: Request | None = None
        self.draft: Draft | None = None
        self.last_seat = -1
        self._obs: dict[int, Any] = {}

    def __getstate__(self) -> dict[str, Any]:
        """For ``pickle`` and ``copy.deepcopy``: the game, its request and draft; the game spec
        by name and the codec built anew."""
        state = self.__dict__.copy()
        state["spec"] = self.spec.name
        del state["codec"]
        state["_obs"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.spec = game_spec(state["spec"])
        self.codec = make_codec(self.spec.name, self.rules, self.seats, overbid=self.overbid)

    def reset(self, seed: int) -> None:
        self.game = self.spec.new_game(self.rules, self.seats, seed)
        self.steps = 0
        self.cut = False
        self.last_seat = -1
        self._obs = {}
        self._select()

    def _select(self) -> None:
        """The seat that chooses now, its request and a new draft (none: the game is over)."""
        pending = self.game.pending()
        if not pending:
            self.seat, self.request, self.draft = -1, None, None
            return
        request = pending[0]
        if len(pending) > 1:
            n, last = self.seats, self.last_seat
            request = min(pending, key=lambda r: (r.seat - last - 1) % n)
        self.seat, self.request = request.seat, request
        self.draft = self.codec.new_draft(request)

    def observation(self, seat: int) -> Any:
        """The engine's observation of ``seat``, built once per game position."""
        obs = self._obs.get(seat)
        if obs is None:
            obs = self._obs[seat] = self.game.observe(seat)
        return obs

    def encode(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8 mask}`` for ``seat``, from its
        engine observation; a seat that is not choosing now gets an all-zero mask."""
        obs = self.observation(seat)
        if seat == self.seat:
            request, draft = self.request, self.draft
        else:
            request = draft = None
        return {
            "observation": self.codec.encode(obs, request, draft),
            "action_mask": self.codec.mask(obs, request, draft, wait=True),
        }

    def mask(self) -> np.ndarray:
        """The mask of the seat choosing now (all zero when none is)."""
        if self.seat < 0:
            return np.zeros(self.codec.n_actions, dtype=np.int8)
        obs = self.observation(self.seat)
        return self.codec.mask(obs, self.request, self.draft, wait=True)

    def step(self, index: Any) -> bool:
        """Apply the choosing seat's index; ``True`` when the engine received an action (or
        the episode was cut: ``max_steps``). An index the mask does not allow raises
        :class:`ValueError` and changes nothing."""
        request, draft, seat = self.request, self.draft, self.seat
        if request is None or draft is None:
            raise ValueError("the game is over")
        value = self.codec.choose(self.observation(seat), request, draft, int(index), wait=True)
        played = value is not None and value is not WAIT
        if value is WAIT:  # the auctioneer lets the bidding go on: the next seat chooses
            self.last_seat = seat
            self._select()
        elif played:
            self._apply(seat, value)
        self._count()
        return played or self.cut

    def apply(self, seat: int, action: Any) -> None:
        """Apply a whole engine action (a bot's answer) for ``seat``."""
        self._apply(seat, action)
        self._count()

    def _apply(self, seat: int, action: Any) -> None:
        self.game.apply(seat, action)
        self.last_seat = seat
        self._obs = {}
        self._select()

    def _count(self) -> None:
        """One more choice; at ``max_steps`` the episode ends here, truncated: the engine game
        stays unfinished (no result), and no seat chooses any more."""
        self.steps += 1
        if self.steps >= self.max_steps and self.seat >= 0:
            self.cut = True
            self.seat, self.request, self.draft = -1, None, None
