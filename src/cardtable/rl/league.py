"""The league trainer: a successor to the ``learned`` Kuhhandel bot, trained by MaskablePPO
against a pool of opponents drawn by how hard they are for it.

::

    python -m cardtable.rl.league --out runs/league
    cardtable arena kuhhandel --rules classic --games 200 \\
        --ab learned,learned:weights=runs/league/latest.npz --bots expert:time_cap=none

The learner starts as a copy of the shipped ``learned`` weights (``--init``; the policy network
and the observation statistics, the value network is new) and plays one seat, drawn anew each
episode, of classic Kuhhandel with 4 seats. The other three seats of an episode are all one
**pool** entry: ``heuristic``, ``expert`` (``--expert``, by default ``expert:iterations=32``: an
iteration budget and no time cap, so that an episode follows from its seed), the shipped
``learned`` and the learner's own **snapshots**, one after every chunk of ``--chunk`` steps
(the last ``--snapshots`` are kept; the fixed entries always stay).

Which entry: **prioritised fictitious self-play** (PFSP, as AlphaStar's league): the pool keeps
the learner's results against each entry (1 for a first place, else 0; the last ``--window``
episodes of each) and draws entry ``i`` with weight ``(1 - p_i) ** power`` (``--power``, 2),
where ``p_i = (wins + 0.5) / (games + 2)`` (an entry never met counts as a 25 % win rate, the
equal share at 4 seats): the opponents the learner beats least come most often, the ones it
beats every time hardly ever.

Everything else is :mod:`cardtable.rl.train`'s: chunks with ``model.zip``,
``vecnormalize.pkl``, ``chunk-<n>.npz`` and ``latest.npz`` (the numpy weights
``learned:weights=PATH`` plays), ``log.txt`` with each chunk's CPU and the pool's win rates and
draw probabilities, ``pool.json`` (the pool's results and snapshots, so the same command with the
same ``--out`` continues a stopped run), ``cpu-seconds``. ``--steps`` bounds the run in learner
steps, ``--cpu-minutes`` in CPU time.
"""

from __future__ import annotations

import argparse
import functools
import json
import pathlib
import random
import time
from collections import deque
from typing import Any

import numpy as np

from cardtable.rl.learned import LearnedBot, weights_path
from cardtable.rl.train import ENVS, ROLLOUT, FlatSeatEnv, build, save_chunk

#: The fixed entries of the pool (``--expert`` replaces the expert's reference).
FIXED = ("heuristic", "expert:iterations=32", "learned")
#: An entry's win rate before any game: ``(wins + PRIOR_WINS) / (games + PRIOR_GAMES)``.
PRIOR_WINS, PRIOR_GAMES = 0.5, 2.0

#: The ``league`` settings (:func:`cardtable.rl.train.build`'s keys); options given win.
SETTINGS: dict[str, Any] = {
    "seats": 4,
    "rules": "classic",
    "p_heuristic": 0.0,
    "p_self": 0.0,
    "reward": "score",
    "gamma": 1.0,
    "learning_rate": 1e-4,
    "ent_coef": 0.005,
    "chunk": 8192,
    "seed": 7,
    "steps": 32_768,
}


class Pool:
    """The league's opponents and the learner's recent results against each (see the module
    docstring): ``fixed`` bot references that always stay, plus up to ``snapshots`` snapshots
    of the learner (``self-<n>``: weights, played by :class:`LearnedBot`)."""

    def __init__(
        self,
        fixed: tuple[str, ...] | list[str] = FIXED,
        snapshots: int = 5,
        window: int = 200,
        power: float = 2.0,
        seats: int = 4,
    ) -> None:
        self.fixed = list(fixed)
        self.max_snapshots = snapshots
        self.window = window
        self.power = power
        self.seats = seats
        self.snapshots: dict[str, dict[str, np.ndarray]] = {}
        self.results: dict[str, deque[float]] = {name: deque(maxlen=window) for name in fixed}

    @property
    def names(self) -> list[str]:
        return self.fixed + list(self.snapshots)

    def add_snapshot(self, name: str, weights: dict[str, np.ndarray]) -> None:
        """A snapshot of the learner joins; the oldest leaves beyond ``max_snapshots``."""
        self.snapshots[name] = weights
        self.results.setdefault(name, deque(maxlen=self.window))
        while len(self.snapshots) > self.max_snapshots:
            oldest = next(iter(self.snapshots))
            del self.snapshots[oldest]
            del self.results[oldest]

    def record(self, name: str, win: float) -> None:
        """The learner's result in one episode against ``name`` (1 won, 0 not); an entry that
        left the pool meanwhile is ignored."""
        if name in self.results:
            self.results[name].append(float(win))

    def win_rate(self, name: str) -> float:
        results = self.results[name]
        return (sum(results) + PRIOR_WINS) / (len(results) + PRIOR_GAMES)

    def probabilities(self) -> dict[str, float]:
        """PFSP: each entry's chance to be drawn, ``(1 - win rate) ** power`` normalized."""
        weights = {name: (1.0 - self.win_rate(name)) ** self.power for name in self.names}
        total = sum(weights.values())
        return {name: w / total for name, w in weights.items()}

    def sample(self, rng: random.Random) -> str:
        probabilities = self.probabilities()
        return rng.choices(list(probabilities), weights=list(probabilities.values()))[0]

    def opponents(self, name: str) -> list[Any]:
        """The other seats' bots for an episode against ``name``: its bot reference for each, or
        a factory of :class:`LearnedBot` with the snapshot's weights."""
        n = self.seats - 1
        if name in self.snapshots:
            return [functools.partial(_snapshot_bot, self.seats, self.snapshots[name])] * n
        return [name] * n

    def state(self) -> dict[str, Any]:
        """What :meth:`restore` needs besides the snapshots' weights (``pool.json``)."""
        return {
            "snapshots": list(self.snapshots),
            "results": {name: list(r) for name, r in self.results.items()},
        }

    def restore(self, state: dict[str, Any], weights: dict[str, dict[str, np.ndarray]]) -> None:
        for name in state["snapshots"]:
            self.add_snapshot(name, weights[name])
        for name, results in state["results"].items():
            if name in self.results:
                self.results[name].extend(results)

    def summary(self) -> str:
        probabilities = self.probabilities()
        return ", ".join(
            f"{name} {100 * self.win_rate(name):.0f}%/{len(self.results[name])} "
            f"p={probabilities[name]:.2f}"
            for name in self.names
        )


def _snapshot_bot(seats: int, weights: dict[str, np.ndarray], seed: int) -> LearnedBot:
    return LearnedBot(seed, seats=seats, weights=weights)


class LeagueEnv(FlatSeatEnv):
    """:class:`~cardtable.rl.train.FlatSeatEnv` whose opponents come from ``pool`` (one entry
    for all three seats), with the learner's result recorded there at the episode's end."""

    def __init__(self, pool: Pool, rules: list[str], seed: int, reward: str = "score") -> None:
        super().__init__(rules, pool.seats, 0.0, 0.0, seed, reward)
        self.pool = pool
        self.opponent = ""

    def _opponents(self) -> list[Any]:
        self.opponent = self.pool.sample(self.rng)
        return self.pool.opponents(self.opponent)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = super().step(action)
        if "place" in info:
            self.pool.record(self.opponent, info["place"] == 0)
        return obs, reward, terminated, truncated, info


def warm_start(model: Any, venv: Any, weights: dict[str, np.ndarray]) -> None:
    """Copy ``weights`` (an exported ``.npz``: :func:`cardtable.rl.train.export`) into the
    policy network of ``model`` and the observation statistics of ``venv`` (the value network
    keeps its fresh start); :func:`export` then gives ``weights`` back."""
    import torch

    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(policy.action_net)
    if int(weights["layers"]) != len(linears):
        raise ValueError(f"{int(weights['layers'])} layers to copy into {len(linears)}")
    with torch.no_grad():
        for i, lin in enumerate(linears):
            lin.weight.copy_(torch.as_tensor(weights[f"W{i}"]))
            lin.bias.copy_(torch.as_tensor(weights[f"b{i}"]))
    venv.obs_rms.mean = np.asarray(weights["obs_mean"], np.float64).copy()
    venv.obs_rms.var = np.asarray(weights["obs_var"], np.float64).copy()
    venv.obs_rms.count = 1e6  # the statistics of the run that trained them: move slowly


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--init", default=None, help="weights to start from (the shipped ones)")
    parser.add_argument("--expert", default=FIXED[1], help=f"the expert in the pool ({FIXED[1]})")
    parser.add_argument("--steps", type=int, default=SETTINGS["steps"])
    parser.add_argument("--cpu-minutes", type=float, default=None, help="CPU-time bound")
    parser.add_argument("--chunk", type=int, default=SETTINGS["chunk"])
    parser.add_argument("--envs", type=int, default=ENVS)
    parser.add_argument("--seed", type=int, default=SETTINGS["seed"])
    parser.add_argument("--snapshots", type=int, default=5, help="snapshots kept in the pool")
    parser.add_argument("--window", type=int, default=200, help="results kept per entry")
    parser.add_argument("--power", type=float, default=2.0, help="PFSP: (1 - p) ** power")
    args = parser.parse_args(argv)
    if args.envs < 1:
        parser.error("--envs must be at least 1")
    settings = {**SETTINGS, "seed": args.seed, "chunk": args.chunk, "steps": args.steps}
    rules = settings["rules"].split(",")

    out: pathlib.Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    pool = Pool(
        (FIXED[0], args.expert, FIXED[2]),
        snapshots=args.snapshots,
        window=args.window,
        power=args.power,
        seats=settings["seats"],
    )
    resumed = (out / "model.zip").exists()
    if resumed and (out / "pool.json").exists():
        state = json.loads((out / "pool.json").read_text())
        saved = {n: dict(np.load(out / f"chunk-{n[5:]}.npz")) for n in state["snapshots"]}
        pool.restore(state, saved)

    def env(i: int) -> LeagueEnv:
        return LeagueEnv(pool, rules, settings["seed"] + i, settings["reward"])

    model, venv, timed = build(settings, args.envs, max(1, ROLLOUT // args.envs), out, env)
    if not resumed:
        with open(args.init or str(weights_path(settings["seats"])), "rb") as f:
            warm_start(model, venv, dict(np.load(f)))
    chunk = len(list(out.glob("chunk-*.npz")))
    cpu_file = out / "cpu-seconds"
    cpu_before = float(cpu_file.read_text()) if cpu_file.exists() else 0.0
    cpu0 = time.process_time()

    def more() -> bool:
        if args.cpu_minutes is not None and time.process_time() - cpu0 >= 60 * args.cpu_minutes:
            return False
        return bool(model.num_timesteps < settings["steps"])

    with (out / "log.txt").open("a") as log:
        while more():
            t0, c0, e0 = time.monotonic(), time.process_time(), timed.cpu
            model.learn(
                min(settings["chunk"], settings["steps"] - model.num_timesteps),
                reset_num_timesteps=False,
            )
            chunk += 1
            weights = save_chunk(model, venv, out, chunk, rules, settings["seats"])
            pool.add_snapshot(f"self-{chunk:04d}", weights)
            (out / "pool.json").write_text(json.dumps(pool.state()) + "\n")
            cpu = time.process_time() - c0
            total = cpu_before + time.process_time() - cpu0
            cpu_file.write_text(f"{total:.1f}\n")
            rewards = [e["r"] for e in model.ep_info_buffer] if model.ep_info_buffer else [0.0]
            line = (
                f"chunk {chunk} steps {model.num_timesteps} mean reward {np.mean(rewards):+.3f} "
                f"{time.monotonic() - t0:.0f}s wall, {cpu:.0f}s CPU "
                f"(env {100 * (timed.cpu - e0) / max(cpu, 1e-9):.0f}%), "
                f"{total / 60:.1f} CPU-minutes in all; pool: {pool.summary()}"
            )
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()


if __name__ == "__main__":
    main()
