"""Train the ``learned`` Kuhhandel bot (:mod:`cardtable.rl.learned`): sb3-contrib's MaskablePPO on
one seat (drawn anew each episode) against the built-in bots and earlier snapshots of itself.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib) on top of ``rl``::

    pip install -e '.[rl,train]'      # torch: the CPU build is enough
    python -m cardtable.rl.train --preset learned --out runs/learned   # the shipped recipe
    python -m cardtable.rl.train --preset learned --out runs/learned --steps 400000  # goes on
    cp runs/learned/latest.npz src/cardtable/rl/weights/kuhhandel-4.npz

``--envs`` environments (default 8) are stepped together in one process, ``--n-steps`` each
(default 2048 / envs), so a rollout is 2,048 steps whatever their number
(``cardtable bench kuhhandel --train`` measures the gain).

Training runs in chunks of ``--chunk`` steps; after each chunk it writes ``model.zip`` (the
MaskablePPO model), ``vecnormalize.pkl`` (the observation statistics), ``latest.npz`` and
``chunk-<n>.npz`` (the numpy weights the bot plays with) and ``log.txt``, so a run stopped at any
time loses at most one chunk and the next run with the same ``--out`` continues from there.
Episodes alternate between the rule sets of ``--rules`` (classic and competition share a layout).
The opponents of an episode are drawn: three heuristic bots (``--p-heuristic``), three snapshots of
the policy itself from earlier chunks (``--p-self``; before the first snapshot, heuristic), else a
mix of heuristic and random bots. ``--reward`` picks the terminal reward
(:mod:`cardtable.rl.rewards`: ``rank``, ``score`` — the learner's score minus the table's mean,
per 1,000 — or ``win``), ``--gamma`` the discount. A successor trained by league self-play
(snapshots, ``learned``, ``heuristic`` and ``expert``, drawn by win rate):
:mod:`cardtable.rl.league`.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardtable.rl.learned import LearnedBot
from cardtable.rl.single import SingleSeatEnv


class FlatSeatEnv(gymnasium.Env[np.ndarray, int]):
    """:class:`SingleSeatEnv` with the vector alone as observation and ``action_masks()``; the
    rule set and the opponents are drawn per episode (see the module docstring)."""

    def __init__(
        self,
        rules: list[str],
        seats: int,
        p_heuristic: float,
        p_self: float,
        seed: int,
        reward: str = "rank",
    ) -> None:
        self.envs = [
            SingleSeatEnv("kuhhandel", r, seats, seat=None, opponents="heuristic", reward=reward)
            for r in rules
        ]
        codec = self.envs[0].codec
        self.observation_space = spaces.Box(-np.inf, np.inf, (codec.obs_size,), np.float32)
        self.action_space = spaces.Discrete(codec.n_actions)
        self.seats = seats
        self.p_heuristic, self.p_self = p_heuristic, p_self
        self.rng = random.Random(seed)
        self.snapshots: list[dict[str, np.ndarray]] = []
        self.env = self.envs[0]

    def set_snapshots(self, snapshots: list[dict[str, np.ndarray]]) -> None:
        self.snapshots = snapshots

    def _opponents(self) -> list[Any]:
        n = self.seats - 1
        u = self.rng.random()
        if u < self.p_self and self.snapshots:
            return [
                LearnedBot(seats=self.seats, weights=self.rng.choice(self.snapshots))
                for _ in range(n)
            ]
        if u < self.p_self + self.p_heuristic:
            return ["heuristic"] * n
        return [self.rng.choice(("heuristic", "random")) for _ in range(n)]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.env = self.rng.choice(self.envs)
        obs, info = self.env.reset(
            seed=self.rng.randrange(2**31), options={"opponents": self._opponents()}
        )
        return obs["observation"], info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        return obs["observation"], float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()


def save_chunk(
    model: Any, venv: Any, out: pathlib.Path, chunk: int, rules: list[str], seats: int
) -> dict[str, np.ndarray]:
    """After a chunk of training: the policy's weights (``chunk-NNNN.npz`` and ``latest.npz``),
    the model and the observation statistics, in ``out``; the weights are returned."""
    weights = export(model, venv, rules, seats)
    np.savez(out / f"chunk-{chunk:04d}.npz", **weights)  # type: ignore[arg-type]
    np.savez(out / "latest.npz", **weights)  # type: ignore[arg-type]
    model.save(str(out / "model.zip"))
    venv.save(str(out / "vecnormalize.pkl"))
    return weights


def export(model: Any, venv: Any, rules: list[str], seats: int) -> dict[str, np.ndarray]:
    """The numpy weights of ``model``'s policy network (:class:`cardtable.rl.learned`), with the
    observation layout it was trained on (``layout``, ``rules``)."""
    import torch

    from cardtable.games.kuhhandel import PRESETS
    from cardtable.rl.kuhhandel import KuhhandelCodec

    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(policy.action_net)
    out: dict[str, np.ndarray] = {
        "obs_mean": venv.obs_rms.mean.astype(np.float32),
        "obs_var": venv.obs_rms.var.astype(np.float32),
        "layers": np.array(len(linears)),
        "layout": np.array(KuhhandelCodec(PRESETS[rules[0]], seats).layout),
        "rules": np.array(",".join(rules)),
    }
    for i, lin in enumerate(linears):
        out[f"W{i}"] = lin.weight.detach().cpu().numpy().astype(np.float32)
        out[f"b{i}"] = lin.bias.detach().cpu().numpy().astype(np.float32)
    return out


#: Steps of one rollout (all envs together) between two updates: ``n_steps × envs``. Kept when
#: the number of envs changes (``--n-steps`` defaults to ``ROLLOUT // envs``).
ROLLOUT = 2048
#: Environments stepped together in one process (SB3's ``DummyVecEnv``): the policy answers all
#: of them in one forward pass, which is where most of a step's CPU goes.
ENVS = 8

#: Named settings (``--preset``); any option given on the command line wins.
PRESETS: dict[str, dict[str, Any]] = {
    # The shipped ``learned`` bot: classic, 4 seats, three heuristic opponents, score reward.
    "learned": {
        "seats": 4,
        "rules": "classic",
        "p_heuristic": 1.0,
        "p_self": 0.0,
        "reward": "score",
        "gamma": 1.0,
        "chunk": 8192,
        "seed": 2,
        "steps": 286_720,
    },
}
DEFAULTS: dict[str, Any] = {
    "seats": 4,
    "rules": "classic,competition",
    "p_heuristic": 0.5,
    "p_self": 0.3,
    "reward": "rank",
    "gamma": 0.998,
    "chunk": 16384,
    "seed": 0,
    "steps": None,
}


def _timed_venv(base: Any) -> Any:
    """``base`` (an SB3 ``VecEnv``) wrapped so that it counts the CPU seconds spent in the
    environments: stepping (the learner's step, the opponents' turns, encoding), resets and
    the action masks MaskablePPO asks for. ``cpu`` holds the sum."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class Timed(VecEnvWrapper):
        def __init__(self, venv: Any) -> None:
            super().__init__(venv)
            self.cpu = 0.0

        def reset(self) -> Any:
            t = time.process_time()
            obs = self.venv.reset()
            self.cpu += time.process_time() - t
            return obs

        def step_async(self, actions: Any) -> None:
            self.venv.step_async(actions)

        def step_wait(self) -> Any:
            t = time.process_time()
            out = self.venv.step_wait()
            self.cpu += time.process_time() - t
            return out

        def env_method(
            self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
        ) -> list[Any]:
            t = time.process_time()
            out = self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
            self.cpu += time.process_time() - t
            return out

    return Timed(base)


def build(
    settings: dict[str, Any],
    envs: int,
    n_steps: int,
    out: pathlib.Path | None = None,
    env: Callable[[int], gymnasium.Env[np.ndarray, int]] | None = None,
) -> tuple[Any, Any, Any]:
    """The MaskablePPO model, its ``VecNormalize`` and the timing wrapper (see
    :func:`_timed_venv`) for ``settings`` (a preset's keys), with ``envs`` environments of
    ``n_steps`` each per rollout; loaded from ``out`` where a run left a model there. ``env``
    builds the ``i``-th environment (default: a :class:`FlatSeatEnv` of ``settings``); the
    learning rate and entropy coefficient are ``settings``' ``learning_rate`` and ``ent_coef``
    where given (3e-4, 0.01)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    torch.set_num_threads(1)
    rules = settings["rules"].split(",")

    def flat(i: int) -> gymnasium.Env[np.ndarray, int]:
        return FlatSeatEnv(
            rules,
            settings["seats"],
            settings["p_heuristic"],
            settings["p_self"],
            settings["seed"] + i,
            settings["reward"],
        )

    def make(i: int) -> Any:
        return lambda: Monitor((env or flat)(i))

    timed = _timed_venv(DummyVecEnv([make(i) for i in range(envs)]))
    venv: Any
    if out is not None and (out / "model.zip").exists():
        venv = VecNormalize.load(str(out / "vecnormalize.pkl"), timed)
        model = MaskablePPO.load(str(out / "model.zip"), env=venv, device="cpu")
        return model, venv, timed
    venv = VecNormalize(timed, norm_obs=True, norm_reward=False, clip_obs=10.0, gamma=1.0)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=settings.get("learning_rate", 3e-4),
        n_steps=n_steps,
        batch_size=256,
        n_epochs=5,
        gamma=settings["gamma"],
        gae_lambda=0.95,
        ent_coef=settings.get("ent_coef", 0.01),
        policy_kwargs={"net_arch": {"pi": [128, 128], "vf": [128, 128]}},
        seed=settings["seed"],
        device="cpu",
        verbose=0,
    )
    return model, venv, timed


def settings_of(args: argparse.Namespace) -> dict[str, Any]:
    """The preset's settings, then the options given, then the defaults."""
    preset = PRESETS[args.preset] if args.preset else {}
    return {
        key: getattr(args, key) if getattr(args, key) is not None else preset.get(key, default)
        for key, default in DEFAULTS.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default=None,
        help="named settings (learned: the shipped bot's recipe); options given win",
    )
    parser.add_argument("--seats", type=int, default=None)
    parser.add_argument("--rules", default=None, help="comma-separated presets")
    parser.add_argument("--minutes", type=float, default=None, help="wall-clock bound")
    parser.add_argument("--cpu-minutes", type=float, default=None, help="CPU-time bound")
    parser.add_argument("--steps", type=int, default=None, help="learner steps in all")
    parser.add_argument("--chunk", type=int, default=None, help="steps between checkpoints")
    parser.add_argument(
        "--envs", type=int, default=ENVS, help=f"environments stepped together ({ENVS})"
    )
    parser.add_argument(
        "--n-steps", type=int, default=None, help=f"steps per env per rollout ({ROLLOUT} / envs)"
    )
    parser.add_argument("--p-heuristic", type=float, default=None)
    parser.add_argument("--p-self", type=float, default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--reward", default=None, help="rank, score or win")
    parser.add_argument("--gamma", type=float, default=None)
    args = parser.parse_args(argv)
    settings = settings_of(args)
    if args.envs < 1:
        parser.error("--envs must be at least 1")
    n_steps = args.n_steps or max(1, ROLLOUT // args.envs)
    if args.minutes is None and args.cpu_minutes is None and settings["steps"] is None:
        args.minutes = 20.0

    out: pathlib.Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    rules = settings["rules"].split(",")
    model, venv, timed = build(settings, args.envs, n_steps, out)
    chunk = len(list(out.glob("chunk-*.npz")))
    cpu_file = out / "cpu-seconds"
    cpu_before = float(cpu_file.read_text()) if cpu_file.exists() else 0.0
    snapshots = [dict(np.load(p)) for p in sorted(out.glob("chunk-*.npz"))[-5:]]
    venv.env_method("set_snapshots", snapshots)
    wall_end = time.monotonic() + 60 * args.minutes if args.minutes is not None else None
    cpu0 = time.process_time()

    def more() -> bool:
        if wall_end is not None and time.monotonic() >= wall_end:
            return False
        if args.cpu_minutes is not None and time.process_time() - cpu0 >= 60 * args.cpu_minutes:
            return False
        return settings["steps"] is None or model.num_timesteps < settings["steps"]

    with (out / "log.txt").open("a") as log:
        while more():
            t0, c0, e0 = time.monotonic(), time.process_time(), timed.cpu
            size = settings["chunk"]
            if settings["steps"] is not None:
                size = min(size, settings["steps"] - model.num_timesteps)
            model.learn(size, reset_num_timesteps=False)
            chunk += 1
            weights = save_chunk(model, venv, out, chunk, rules, settings["seats"])
            snapshots = (snapshots + [weights])[-5:]
            venv.env_method("set_snapshots", snapshots)
            cpu = time.process_time() - c0
            total = cpu_before + time.process_time() - cpu0
            cpu_file.write_text(f"{total:.1f}\n")
            rewards = [e["r"] for e in model.ep_info_buffer] if model.ep_info_buffer else [0.0]
            line = (
                f"chunk {chunk} steps {model.num_timesteps} mean reward {np.mean(rewards):+.3f} "
                f"({len(rewards)} episodes) {time.monotonic() - t0:.0f}s wall, {cpu:.0f}s CPU "
                f"(env {100 * (timed.cpu - e0) / max(cpu, 1e-9):.0f}%), "
                f"{total / 60:.1f} CPU-minutes in all"
            )
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()


def speed(
    envs: list[int], steps: int = 4096, repeat: int = 2, preset: str = "learned"
) -> dict[str, Any]:
    """Learner steps per CPU second of MaskablePPO with each number of ``envs`` (the rollout kept
    at :data:`ROLLOUT` steps), and the environments' share of that CPU: ``steps`` steps each
    (at least one rollout and update), ``repeat`` interleaved runs, the best kept (on a shared
    machine a run only ever loses time to other work)."""
    settings = {**DEFAULTS, **PRESETS[preset]}
    best: dict[int, dict[str, Any]] = {}
    for _ in range(max(1, repeat)):
        for n in envs:
            model, _venv, timed = build(settings, n, max(1, ROLLOUT // n))
            c0 = time.process_time()
            model.learn(steps)
            cpu = max(time.process_time() - c0, 1e-9)
            rate = model.num_timesteps / cpu
            if rate > best.get(n, {}).get("steps_per_cpu_second", 0):
                best[n] = {
                    "envs": n,
                    "n_steps": max(1, ROLLOUT // n),
                    "steps": model.num_timesteps,
                    "cpu_seconds": round(cpu, 2),
                    "steps_per_cpu_second": round(rate),
                    "env_share": round(timed.cpu / cpu, 3),
                }
    base = best[envs[0]]["steps_per_cpu_second"]
    for row in best.values():
        row["vs_first"] = round(row["steps_per_cpu_second"] / base, 2)
    return {"train_preset": preset, "train_repeat": max(1, repeat), "train": list(best.values())}


if __name__ == "__main__":
    main()
