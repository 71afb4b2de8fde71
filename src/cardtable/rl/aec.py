"""PettingZoo AEC environments for Kuhhandel (every rule set) and Cunegonda.

>>> from cardtable.rl import kuhhandel_env
>>> env = kuhhandel_env(rules="master", seats=4)
>>> env.reset(seed=7)
>>> obs, reward, terminated, truncated, info = env.last()
>>> sorted(obs)
['action_mask', 'observation']

Agents are ``seat_0`` … ``seat_{n-1}`` (the engine's seats). ``agent_selection`` is the seat
the engine asks (see :mod:`cardtable.rl.table` for simultaneous requests); a compound answer
(a payment, an offer, a Cunegonda pass, a bid beyond the first menu) takes several steps of the
same agent. Observations are ``{"observation": float32 vector, "action_mask": int8 mask}`` built
from the seat's own engine observation only, each a fresh array the caller owns; the action
space is ``Discrete`` and documented in :mod:`cardtable.rl.kuhhandel` and
:mod:`cardtable.rl.cunegonda`. Rewards are 0 until the game
ends, then :func:`cardtable.rl.rewards.final_rewards` for every seat at once. A game ended by a
rule-set cap (Kuhhandel's ``max_turns``) is *truncated*, every other end *terminated*; ``infos``
then carry the engine's result. ``max_steps`` (default :data:`cardtable.rl.table.MAX_STEPS`,
10,000) cuts an episode after that many index steps of all agents together: every agent is then
truncated with reward 0 and ``info["termination"] == "max_steps"`` (the engine's ``max_turns``
counts turns, not the bids within one, and random bids with ``overbid=True`` run to 40,000
steps). ``reset(seed=s)`` plays the engine game with seed ``s`` (so
``env.game.record()`` replays on the server's engine); ``reset()`` without a seed draws the next
seed from the last one given. ``render()`` returns the new events in words (``render_mode``
``"ansi"``; ``"human"`` prints them).

``illegal_action`` says what an index the mask does not allow does: ``"raise"`` (the default)
raises :class:`ValueError`; ``"penalize"`` ends the game at once, the agent that chose it gets
``illegal_reward`` (default -1), every other 0, and every ``info["illegal"]`` names that agent
(as PettingZoo's ``TerminateIllegalWrapper``); ``"first_legal"`` plays the first allowed index.

PettingZoo's ``api_test`` passes, with two warnings it gives every environment whose observation
is a dict (as PettingZoo's own classic games with action masks): "Observation space for each
agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete" and "Observation
is not a NumPy array". The dict ``{"observation", "action_mask"}`` is the convention PettingZoo
documents for masked actions, so they stay (``tests/rl/test_pettingzoo_api.py``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from cardtable.core.contract import Game, Termination
from cardtable.i18n import DEFAULT, event_line
from cardtable.rl.rewards import DEFAULT_SCALE, SCHEMES, final_rewards
from cardtable.rl.table import MAX_STEPS, Table

RENDER_MODES = ["ansi", "human"]
ILLEGAL_ACTIONS = ("raise", "penalize", "first_legal")


def observation_space(n_obs: int, n_actions: int) -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(-np.inf, np.inf, (n_obs,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        }
    )


class CardtableEnv(AECEnv):  # type: ignore[misc]
    """The AEC environment of one game, rule set and seat count (see the module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": RENDER_MODES,
        "name": "cardtable",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        rules: Any = None,
        seats: int | None = None,
        *,
        reward: str = "rank",
        reward_scale: float | None = None,
        overbid: bool = False,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_steps: int = MAX_STEPS,
    ) -> None:
        super().__init__()
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        if reward not in SCHEMES:
            raise ValueError(f"unknown reward scheme {reward!r} (known: {', '.join(SCHEMES)})")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES}")
        self.table = Table(game, rules, seats, overbid=overbid, max_steps=max_steps)
        codec = self.table.codec
        self.reward_scheme = reward
        self.reward_scale = reward_scale or DEFAULT_SCALE.get(game, 1.0)
        self.render_mode = render_mode
        name = getattr(self.table.rules, "name", None) or f"{self.table.rules.rounds}-rounds"
        self.metadata = {**self.metadata, "name": f"cardtable_{game}_{name}"}
        n = self.table.seats
        self.possible_agents = [f"seat_{i}" for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        space = observation_space(codec.obs_size, codec.n_actions)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Discrete(codec.n_actions) for a in self.possible_agents
        }
        self._seeds = random.Random()
        self._rendered = 0
        self.agents: list[str] = []

    @property
    def codec(self) -> Any:
        """The action space and observation encoding (:mod:`cardtable.rl.codec`)."""
        return self.table.codec

    @property
    def game(self) -> Game:
        """The engine game being played (read it, do not act on it)."""
        return self.table.game

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.randrange(2**31)
        self.table.reset(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.table.seat]
        self._rendered = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.table.encode(self._index[agent])

    def action_mask(self) -> np.ndarray:
        """The mask of the agent choosing now (the same as in its observation), a fresh array."""
        return self.table.mask()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        table = self.table
        if self.illegal_action != "raise" and not _allowed(table.mask(), action):
            if self.illegal_action == "penalize":
                self._penalize()
                return
            action = int(np.flatnonzero(table.mask())[0])
        table.step(action)
        seat = table.seat
        if seat >= 0:
            self.agent_selection = self.possible_agents[seat]
        else:
            self._finish()
        if self.render_mode == "human":
            self.render()

    def _penalize(self) -> None:
        """The agent choosing chose an index its mask does not allow: the game ends here."""
        culprit = self.agent_selection
        for agent in self.possible_agents:
            self.rewards[agent] = self.illegal_reward if agent == culprit else 0.0
            self.terminations[agent] = True
            self.truncations[agent] = False
            self.infos[agent] = {"illegal": culprit, "termination": "illegal"}
        self.table.seat, self.table.request, self.table.draft = -1, None, None
        self._accumulate_rewards()

    def _finish(self) -> None:
        if self.table.cut:  # max_steps: truncated, the engine game unfinished, no reward
            for agent in self.possible_agents:
                self.rewards[agent] = 0.0
                self.terminations[agent] = False
                self.truncations[agent] = True
                self.infos[agent] = {"termination": "max_steps"}
            self._accumulate_rewards()
            return
        result = self.table.game.result()
        capped = result.termination is Termination.CAP
        values = final_rewards(result, self.reward_scheme, self.reward_scale)
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = values[seat]
            self.terminations[agent] = not capped
            self.truncations[agent] = capped
            self.infos[agent] = {
                "termination": result.termination.value,
                "place": result.places[seat],
                "score": result.scores[seat],
            }
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The events since the last call, one line each, as the umpire sees them."""
        if self.render_mode is None:
            return None
        game = self.table.game
        events = game.events(self._rendered)
        self._rendered += len(events)
        names = tuple(self.possible_agents)
        lines = [event_line(DEFAULT, self.table.spec, e, names) for e in events]
        text = "\n".join(line for line in lines if line)
        if self.render_mode == "human":
            if text:
                print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _allowed(mask: np.ndarray, action: Any) -> bool:
    try:
        index = int(action)
    except (TypeError, ValueError):
        return False
    return bool(np.ndim(action) == 0 and index == action and 0 <= index < len(mask) and mask[index])


def kuhhandel_env(rules: Any = "classic", seats: int | None = None, **options: Any) -> CardtableEnv:
    """Kuhhandel under a preset (``classic``, ``competition``, ``master``, ``master-duel``), a rule
    set as JSON or a :class:`~cardtable.games.kuhhandel.RuleSet`; ``seats`` defaults to 4 (2 for
    the duel). Options: ``reward``, ``reward_scale``, ``overbid``, ``render_mode``,
    ``illegal_action``, ``illegal_reward``, ``max_steps``."""
    return CardtableEnv("kuhhandel", rules, seats, **options)


def cunegonda_env(rules: Any = "standard", **options: Any) -> CardtableEnv:
    """Cunegonda (4 seats); ``rules`` is a preset (``standard``, ``short``), JSON such as
    ``{"rounds": 1}`` or a :class:`~cardtable.games.cunegonda.CunegondaRules`."""
    return CardtableEnv("cunegonda", rules, 4, **options)
