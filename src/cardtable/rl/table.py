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
from cardtable.rl.codec import WAIT, Build, Codec, Draft, Step, Wait, read_only_mask

#: Choices after which an episode is cut (truncated), whatever the engine's own caps say: every
#: index stepped and every whole bot answer counts. A random 4-seat game takes ~800-1,500 index
#: steps (classic, master); with ``overbid=True`` random bids run to 25,000-40,000 steps, because
#: the engine's ``max_turns`` counts turns, not the bids within one.
MAX_STEPS = 10_000

#: The kinds of option that are not an engine action yet (see :meth:`Table.step`).
_NOT_ACTIONS = frozenset((Step, Build, Wait, type(None)))


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

    Masks it hands out are read-only and may be shared between steps (one array per set of
    allowed indices): they never change afterwards, so keeping one is safe; copy it to change
    it. Observation vectors are new arrays at every call.
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
        self.codec = codec = make_codec(game, self.rules, self.seats, overbid=overbid)
        self.game: Game = self.spec.new_game(self.rules, self.seats, 0)
        self.seat = -1
        self.request: Request | None = None
        self.draft: Draft | None = None
        self.last_seat = -1
        self._obs: dict[int, Any] = {}
        self._no_mask = read_only_mask(codec.n_actions, ())
        self._spare: Draft | None = codec.new_draft(None) if codec.renews_drafts else None

    def __getstate__(self) -> dict[str, Any]:
        """For ``pickle`` and ``copy.deepcopy``: the game, its request and draft; the game spec
        by name and a fresh codec (its caches follow the copied game from its next call)."""
        state = self.__dict__.copy()
        state["spec"] = self.spec.name
        for name in ("codec", "_no_mask"):
            del state[name]
        state["_obs"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.spec = game_spec(state["spec"])
        codec = make_codec(self.spec.name, self.rules, self.seats, overbid=self.overbid)
        self.codec = codec
        self._no_mask = read_only_mask(codec.n_actions, ())

    def reset(self, seed: int) -> None:
        self.game = self.spec.new_game(self.rules, self.seats, seed)
        self.steps = 0
        self.cut = False
        self.last_seat = -1
        self._obs = {}
        self._select()

    def _select(self) -> None:
        pending = self.game.pending()
        if not pending:
            self.seat, self.request, self.draft = -1, None, None
            return
        request = pending[0]
        if len(pending) > 1:
            n, last = self.seats, self.last_seat
            request = min(pending, key=lambda r: (r.seat - last - 1) % n)
        self.seat, self.request = request.seat, request
        draft = self._spare
        if draft is None:
            self.draft = self.codec.new_draft(request)
        else:  # one draft per table, started afresh (a codec whose drafts all look alike)
            draft.renew(request)
            self.draft = draft

    def observation(self, seat: int) -> Any:
        """The engine's observation of ``seat``, built once per game position."""
        obs = self._obs.get(seat)
        if obs is None:
            obs = self._obs[seat] = self.game.observe(seat)
        return obs

    def encode(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector, "action_mask": int8 mask}`` for ``seat``.

        A seat that is not choosing now gets its observation with an all-zero mask. The vector
        comes from the codec following the seat's events where it can (:meth:`Codec.follow`,
        Cunegonda), else from the seat's engine observation: the same vector either way. The
        mask may be shared (see the class docstring).
        """
        codec = self.codec
        game = self.game
        if seat == self.seat:
            req, draft = self.request, self.draft
        else:
            req = draft = None
        vector = codec.follow(game, seat, req, draft) if codec.follows else None
        if (
            vector is not None
            and req is not None
            and draft is not None
            and req.kind in codec.blind_kinds
        ):  # the usual step: no observation at all
            return {"observation": vector, "action_mask": codec.shared_mask(None, req, draft, True)}
        obs = self._obs.get(seat)
        if vector is None:
            if obs is None:
                obs = self._obs[seat] = game.observe(seat)
            vector = codec.encode(obs, req, draft)
        if req is None or draft is None:
            return {"observation": vector, "action_mask": self._no_mask}
        if obs is None and req.kind not in codec.blind_kinds:
            obs = self._options_view(seat)
        return {"observation": vector, "action_mask": codec.shared_mask(obs, req, draft, True)}

    def mask(self) -> np.ndarray:
        """The mask of the seat choosing now (read-only, may be shared)."""
        request, draft = self.request, self.draft
        if request is None or draft is None:
            return self._no_mask
        obs = None if request.kind in self.codec.blind_kinds else self._options_view(self.seat)
        return self.codec.shared_mask(obs, request, draft, True)

    def _options_view(self, seat: int) -> Any:
        """What the codec reads to list the options of ``seat``: the codec's own stand-in where
        it keeps one, else the seat's observation."""
        obs = self._obs.get(seat)
        if obs is None:
            codec = self.codec
            if codec.follows:
                obs = codec.stand_in(self.game, seat)
            if obs is None:
                obs = self._obs[seat] = self.game.observe(seat)
        return obs

    def step(self, index: Any) -> bool:
        """Apply the choosing seat's index; ``True`` when the engine received an action (or
        the episode was cut: ``max_steps``)."""
        if self.draft is None:  # no request either
            raise ValueError("the game is over")
        played = self._step(index)
        self.steps += 1
        if self.steps >= self.max_steps and self.seat >= 0:
            self._cut()
            return True
        return played

    def _step(self, index: Any) -> bool:
        draft = self.draft
        assert draft is not None
        request: Any = self.request
        seat = self.seat
        opts = draft.options
        try:  # an int or a NumPy integer (anything else int() takes: through choose() below)
            value: Any = None if opts is None else opts.get(index)
        except TypeError:  # unhashable, such as a NumPy array of one number
            value = None
        kind = type(value)
        # The choice, as Codec.choose makes it from options listed already (nearly every step:
        # the observation listed them); anything else, an index not allowed too, goes through
        # the codec's own choose(). An engine action (the usual option) goes straight on.
        if kind in _NOT_ACTIONS:
            if kind is Step:
                self.codec.advance(draft, value, request)
                draft.options = None
                return False
            if kind is not Wait:
                codec = self.codec
                if request.kind in codec.blind_kinds:
                    obs = None
                else:
                    obs = self._options_view(seat)
                if value is None:
                    value = codec.choose(obs, request, draft, int(index), True)
                    if value is None:
                        return False
                else:
                    value = codec.build(obs, request, draft, value)
            if value is WAIT:
                self.last_seat = seat
                self._select()
                return False
        game = self.game
        game.apply(seat, value)  # as apply() below, one call less on every step
        self.last_seat = seat
        if self._obs:
            self._obs = {}
        pending = game.pending()
        if len(pending) == 1 and draft is self._spare:
            # As _select() does for a single request (nearly every step), one call less.
            request = self.request = pending[0]
            self.seat = request.seat
            draft.renew(request)
        else:
            self._select()
        return True

    def apply(self, seat: int, action: Any) -> None:
        """Apply a whole engine action (a bot's answer) for ``seat``."""
        self.game.apply(seat, action)
        self.last_seat = seat
        if self._obs:
            self._obs = {}
        self._select()
        self.steps += 1
        if self.steps >= self.max_steps and self.seat >= 0:
            self._cut()

    def _cut(self) -> None:
        """``max_steps`` reached: the episode ends here, truncated; the engine game stays
        unfinished (no result), and no seat chooses any more."""
        self.cut = True
        self.seat, self.request, self.draft = -1, None, None
