"""A Gymnasium environment for one seat; the other seats are built-in bots.

>>> from cardtable.rl import SingleSeatEnv
>>> env = SingleSeatEnv("kuhhandel", rules="classic", seats=4, opponents="heuristic")
>>> obs, info = env.reset(seed=1)
>>> obs["action_mask"].sum() > 0
True

Observation and action space are those of the PettingZoo environment (:mod:`cardtable.rl.aec`).
``opponents`` is a bot name registered for the game (``random``, ``heuristic``, ``expert`` where
it exists, ``learned`` for Kuhhandel, or ``path.py:Class``), an agent object (anything with
``act(observation, request)``, such as a :class:`~cardtable.rl.PolicyAgent`), a factory (a
class or a callable ``seed -> agent``, such as ``HeuristicBot``), or a list with one of those per
other seat; ``reset(options={"opponents": ...})`` replaces them from that episode on. Names and
factories build a fresh bot per seat and episode, seeded from the episode's seed; agent objects
are used as they are (their ``start`` is called at every reset), so one object for several seats
is refused with a :class:`ValueError` (it would be started once per seat and hear every event
once per seat). ``seat`` is the learner's
seat; ``None`` draws it anew for every episode. The bots are seeded from the episode's seed, so
``reset(seed=s)`` followed by the same actions gives the same episode. That holds for
``expert`` opponents too: built by name in an environment they search their iteration budget
only (``time_cap=None``), where elsewhere a wall-clock cap (0.25 s) may cut a search short on
a busy machine; ``expert:time_cap=0.25`` (or ``time_per_decision=``) asks for the clock. The
reward is 0 until the end, then the learner's :func:`~cardtable.rl.rewards.final_rewards`.
``action_masks()`` returns the current mask (the method sb3-contrib's MaskablePPO looks
for). Every observation and mask handed out is a fresh array the caller owns.

``illegal_action`` says what an index the mask does not allow does: ``"raise"`` (the default)
raises :class:`ValueError` and changes nothing; ``"penalize"`` ends the episode at once with
reward ``illegal_reward`` (default -1) and ``info["illegal"] = True`` (as PettingZoo's
``TerminateIllegalWrapper``); ``"first_legal"`` plays the first allowed index instead and sets
``info["illegal"] = True``. Checkers that step random actions (Gymnasium's and SB3's
``check_env``) need one of the last two.

``max_steps`` (default 10,000) cuts the episode after that many choices of all seats together
(the learner's index steps and each bot's whole answer): the step then returns reward 0,
``truncated=True`` and ``info["termination"] == "max_steps"``. The engine's ``max_turns`` counts
turns, not the bids within one, so without it random bids with ``overbid=True`` ran to 40,000
steps.

The observation after the episode ends allows index 0 only (``pass``, a no-op there): a masked
policy fed that observation, as Gymnasium's vector environments do with their default
``autoreset_mode`` ``NEXT_STEP``, never meets an empty mask; the action it picks is ignored.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardtable.core.contract import Agent, GameInfo, Termination
from cardtable.core.registry import load_bot, split_bot_ref
from cardtable.i18n import DEFAULT, event_line
from cardtable.rl.aec import ILLEGAL_ACTIONS, observation_space
from cardtable.rl.rewards import DEFAULT_SCALE, SCHEMES, final_rewards
from cardtable.rl.table import MAX_STEPS, Table

#: Bots that stop searching at a wall-clock cap by default (``time_cap``): in an environment they
#: are built with ``time_cap=None``, their iteration budget alone, so that an episode follows
#: from its seed whatever the machine's load (see the module docstring).
CLOCKED_BOTS = frozenset({"expert"})
CLOCK_OPTIONS = frozenset({"time_cap", "time_per_decision"})


class SingleSeatEnv(gymnasium.Env[dict[str, np.ndarray], int]):
    """One learner seat against bots (see the module docstring)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 4}
    #: The Gymnasium id of a finished game (``max_turns``) is a truncation; no TimeLimit needed.

    def __init__(
        self,
        game: str,
        rules: Any = None,
        seats: int | None = None,
        *,
        seat: int | None = 0,
        opponents: Any = "random",
        reward: str = "rank",
        reward_scale: float | None = None,
        overbid: bool = False,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        max_steps: int = MAX_STEPS,
    ) -> None:
        if reward not in SCHEMES:
            raise ValueError(f"unknown reward scheme {reward!r} (known: {', '.join(SCHEMES)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.table = Table(game, rules, seats, overbid=overbid, max_steps=max_steps)
        self.game_name = game
        codec = self.table.codec
        n = self.table.seats
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat {seat} is not a seat of a {n}-seat game")
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.opponents = self._opponents(opponents)
        self.reward_scheme = reward
        self.reward_scale = reward_scale or DEFAULT_SCALE.get(game, 1.0)
        self.render_mode = render_mode
        self.observation_space = observation_space(codec.obs_size, codec.n_actions)
        self.action_space = spaces.Discrete(codec.n_actions)
        self.bots: dict[int, Agent] = {}
        self._ended = False
        self._seen = 0
        self._rendered = 0
        self._listeners: list[tuple[int, Any]] = []

    def _opponents(self, opponents: Any) -> list[Any]:
        """One bot name, factory or agent object per other seat; names are checked now, and
        one agent object for several seats is refused (it would be started once per seat,
        hear every event once per seat and answer for seats its state does not know)."""
        n = self.table.seats
        if isinstance(opponents, str) or _is_factory(opponents) or hasattr(opponents, "act"):
            refs = [opponents] * (n - 1)
        else:
            refs = list(opponents)
        if len(refs) != n - 1:
            raise ValueError(f"{len(refs)} opponents for {n - 1} other seats")
        seen: dict[int, int] = {}
        for i, ref in enumerate(refs):
            if isinstance(ref, str):
                load_bot(self.game_name, ref)  # fail now, not at the first reset
            elif _is_factory(ref):
                continue
            elif not callable(getattr(ref, "act", None)):
                raise TypeError(
                    "an opponent is a bot name, an agent with act() or a factory "
                    f"(a callable seed -> agent), not {ref!r}"
                )
            elif id(ref) in seen:
                raise ValueError(
                    f"one agent object ({ref!r}) for opponents {seen[id(ref)] + 1} and {i + 1}: "
                    "an agent plays one seat; pass one object per seat, a bot name, or a "
                    "factory (a callable seed -> agent, such as the bot's class)"
                )
            else:
                seen[id(ref)] = i
        return refs

    @property
    def codec(self) -> Any:
        """The action space and observation encoding (:mod:`cardtable.rl.codec`)."""
        return self.table.codec

    @property
    def game(self) -> Any:
        return self.table.game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if options and "opponents" in options:
            self.opponents = self._opponents(options["opponents"])
        rng = self.np_random
        game_seed = seed if seed is not None else int(rng.integers(2**31))
        n = self.table.seats
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(n))
        self.table.reset(game_seed)
        game = self.table.game
        others = [s for s in range(n) if s != self.seat]
        self.bots = {
            s: self._bot(ref, game_seed * 8 + s)
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
        self._ended = False
        self._play_bots()
        return self._observe(), {"seat": self.seat}

    def _bot(self, ref: Any, seed: int) -> Agent:
        """The bot of one seat for this episode: a name or factory built anew, or the object."""
        if isinstance(ref, str):
            name, options = split_bot_ref(ref)
            if name in CLOCKED_BOTS and not CLOCK_OPTIONS & options.keys():
                return load_bot(self.game_name, ref, seed=seed, time_cap=None)
            return load_bot(self.game_name, ref, seed=seed)
        if _is_factory(ref):
            bot = ref(seed)
            if not callable(getattr(bot, "act", None)):
                raise TypeError(f"the opponent factory {ref!r} returned {bot!r}, not an agent")
            return bot  # type: ignore[no-any-return]
        return ref  # type: ignore[no-any-return]

    def _observe(self) -> dict[str, np.ndarray]:
        """The learner's observation (new arrays, the caller's own)."""
        obs = self.table.encode(self.seat)
        if self.table.seat < 0:
            obs["action_mask"][0] = 1  # the game is over: a no-op index (module docstring)
        return obs

    def _allowed(self, action: Any) -> bool:
        try:
            index = int(action)
        except (TypeError, ValueError):
            return False
        if np.ndim(action) != 0 or index != action:
            return False
        mask = self.table.mask()
        return 0 <= index < len(mask) and bool(mask[index])

    def _play_bots(self) -> None:
        table = self.table
        while table.seat >= 0 and table.seat != self.seat:
            self._deliver()
            seat = table.seat
            bot = self.bots[seat]
            request = table.request
            assert request is not None
            obs = table.observation(seat) if getattr(bot, "wants_observation", True) else None
            table.apply(seat, bot.act(obs, request))
        self._deliver()

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
        if table.seat != self.seat or self._ended:
            raise RuntimeError("the episode is over: call reset()")
        info: dict[str, Any] = {}
        if self.illegal_action != "raise" and not self._allowed(action):
            if self.illegal_action == "penalize":
                self._ended = True
                info = {"illegal": True, "termination": "illegal"}
                return self._observe_ended(), self.illegal_reward, True, False, info
            action = int(np.flatnonzero(self.table.mask())[0])
            info = {"illegal": True}
        if table.step(action):
            self._play_bots()
        obs = self._observe()
        if table.seat >= 0:
            return obs, 0.0, False, False, info
        if table.cut:  # max_steps: truncated, the engine game unfinished
            return obs, 0.0, False, True, info | {"termination": "max_steps"}
        result = table.game.result()
        reward = final_rewards(result, self.reward_scheme, self.reward_scale)[self.seat]
        capped = result.termination is Termination.CAP
        info |= {
            "termination": result.termination.value,
            "place": result.places[self.seat],
            "score": result.scores[self.seat],
            "scores": list(result.scores),
        }
        return obs, reward, not capped, capped, info

    def action_masks(self) -> np.ndarray:
        """The learner's mask now, as a boolean array."""
        if self._ended or self.table.seat != self.seat:
            ended = np.zeros(self.codec.n_actions, dtype=bool)
            ended[0] = True
            return ended
        return self.table.mask().astype(bool)

    def _observe_ended(self) -> dict[str, np.ndarray]:
        obs = self._observe()
        obs["action_mask"][:] = 0
        obs["action_mask"][0] = 1
        return obs

    def render(self) -> Any:
        if self.render_mode is None:
            return None
        events = self.table.game.events(self._rendered)
        self._rendered += len(events)
        names = tuple("you" if s == self.seat else f"seat {s}" for s in range(self.table.seats))
        lines = [event_line(DEFAULT, self.table.spec, e, names) for e in events]
        return "\n".join(line for line in lines if line)


def _is_factory(ref: Any) -> bool:
    """A class, or a callable that is not an agent itself (no ``act``)."""
    return isinstance(ref, type) or (callable(ref) and not hasattr(ref, "act"))
