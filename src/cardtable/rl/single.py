"""A Gymnasium environment for one seat; the other seats are built-in bots.

>>> from cardtable.rl import SingleSeatEnv
>>> env = SingleSeatEnv("kuhhandel", rules="classic", seats=4, opponents="heuristic")
>>> obs, info = env.reset(seed=1)
>>> obs["action_mask"].sum() > 0
True

Observation and action space are those of the PettingZoo environment (:mod:`cardtable.rl.aec`).
``opponents`` is a bot name registered for the game (``random``, ``heuristic``, ``expert`` where
it exists, or ``path.py:Class``) or a list with one name per other seat. ``seat`` is the learner's
seat; ``None`` draws it anew for every episode. The bots are seeded from the episode's seed, so
``reset(seed=s)`` followed by the same actions gives the same episode. The reward is 0 until the
end, then the learner's :func:`~cardtable.rl.rewards.final_rewards`. ``action_masks()`` returns
the current mask (the method sb3-contrib's MaskablePPO looks for).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardtable.core.contract import Agent, GameInfo, Termination
from cardtable.core.registry import load_bot
from cardtable.rl.aec import observation_space
from cardtable.rl.rewards import DEFAULT_SCALE, SCHEMES, final_rewards
from cardtable.rl.table import Table


class SingleSeatEnv(gymnasium.Env[dict[str, np.ndarray], int]):
    """One learner seat against bots (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str,
        rules: Any = None,
        seats: int | None = None,
        *,
        seat: int | None = 0,
        opponents: str | Sequence[str] = "random",
        reward: str = "rank",
        reward_scale: float | None = None,
        overbid: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if reward not in SCHEMES:
            raise ValueError(f"unknown reward scheme {reward!r} (known: {', '.join(SCHEMES)})")
        self.table = Table(game, rules, seats, overbid=overbid)
        self.game_name = game
        self.codec = self.table.codec
        n = self.table.seats
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat of a {n}-seat game")
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        refs = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(refs) != n - 1:
            raise ValueError(f"{len(refs)} opponents for {n - 1} other seats")
        self.opponents = refs
        for ref in set(refs):
            load_bot(game, ref)  # fail now, not at the first reset
        self.reward_scheme = reward
        self.reward_scale = reward_scale or DEFAULT_SCALE.get(game, 1.0)
        self.render_mode = render_mode
        self.observation_space = observation_space(self.codec.obs_size, self.codec.n_actions)
        self.action_space = spaces.Discrete(self.codec.n_actions)
        self.bots: dict[int, Agent] = {}
        self._seen = 0
        self._rendered = 0
        self._listeners: list[tuple[int, Any]] = []

    @property
    def game(self) -> Any:
        return self.table.game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = seed if seed is not None else int(rng.integers(2**31))
        n = self.table.seats
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.table.reset(game_seed)
        game = self.table.game
        others = [s for s in range(n) if s != self.seat]
        self.bots = {
            s: load_bot(self.game_name, ref, seed=game_seed * 8 + s)
            for s, ref in zip(others, self.opponents, strict=True)
        }
        rules = game.rules_json()
        for s, bot in self.bots.items():
            start = getattr(bot, "start", None)
            if start is not None:
                start(s, GameInfo(game.name, rules, n, s))
        self._listeners = [(s, b.event) for s, b in self.bots.items() if hasattr(b, "event")]
        self._seen = 0
        self._rendered = 0
        self._play_bots()
        return self.table.encode(self.seat), {"seat": self.seat}

    def _play_bots(self) -> None:
        table = self.table
        game = table.game
        while table.seat >= 0 and table.seat != self.seat:
            self._deliver()
            seat = table.seat
            bot = self.bots[seat]
            request = table.request
            assert request is not None
            obs = table.observation(seat) if getattr(bot, "wants_observation", True) else None
            table.apply(seat, bot.act(obs, request))
        if self._listeners:
            self._deliver()
        del game

    def _deliver(self) -> None:
        if not self._listeners:
            return
        events = self.table.game.events(self._seen)
        self._seen += len(events)
        for ev in events:
            for seat, hook in self._listeners:
                if ev.visible_to(seat):
                    hook(ev)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        table = self.table
        if table.seat != self.seat:
            raise RuntimeError("the episode is over: call reset()")
        if table.step(action):
            self._play_bots()
        obs = table.encode(self.seat)
        if table.seat >= 0:
            return obs, 0.0, False, False, {}
        result = table.game.result()
        reward = final_rewards(result, self.reward_scheme, self.reward_scale)[self.seat]
        capped = result.termination is Termination.CAP
        info = {
            "termination": result.termination.value,
            "place": result.places[self.seat],
            "score": result.scores[self.seat],
            "scores": list(result.scores),
        }
        return obs, reward, not capped, capped, info

    def action_masks(self) -> np.ndarray:
        """The learner's mask now, as a boolean array."""
        return self.table.mask().astype(bool)

    def render(self) -> Any:
        if self.render_mode is None:
            return None
        events = self.table.game.events(self._rendered)
        self._rendered += len(events)
        names = tuple("you" if s == self.seat else f"seat {s}" for s in range(self.table.seats))
        lines = [self.table.spec.describe_event(e, names) for e in events]
        return "\n".join(line for line in lines if line)
