"""Train the ``learned`` Kuhhandel bot (:mod:`cardtable.rl.learned`): sb3-contrib's MaskablePPO on
one seat (drawn anew each episode) against the built-in bots and earlier snapshots of itself.

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib) on top of ``rl``::

    pip install -e '.[rl,train]'      # torch: the CPU build is enough
    python -m cardtable.rl.train --out runs/learned-4 --seats 4 --minutes 20
    python -m cardtable.rl.train --out runs/learned-4 --seats 4 --minutes 20   # goes on
    cp runs/learned-4/latest.npz src/cardtable/rl/weights/kuhhandel-4.npz

Training runs in chunks of ``--chunk`` steps; after each chunk it writes ``model.zip`` (the
MaskablePPO model), ``vecnormalize.pkl`` (the observation statistics), ``latest.npz`` and
``chunk-<n>.npz`` (the numpy weights the bot plays with) and ``log.txt``, so a run stopped at any
time loses at most one chunk and the next run with the same ``--out`` continues from there.
Episodes alternate between the rule sets of ``--rules`` (classic and competition share a layout).
The opponents of an episode are drawn: three heuristic bots (``--p-heuristic``), three snapshots of
the policy itself from earlier chunks (``--p-self``; before the first snapshot, heuristic), else a
mix of heuristic and random bots. ``--reward`` picks the terminal reward
(:mod:`cardtable.rl.rewards`: ``rank``, ``score`` — the learner's score minus the table's mean,
per 1,000 — or ``win``), ``--gamma`` the discount.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import time
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rules", default="classic,competition")
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--chunk", type=int, default=16384, help="steps between checkpoints")
    parser.add_argument("--envs", type=int, default=1)
    parser.add_argument("--p-heuristic", type=float, default=0.5)
    parser.add_argument("--p-self", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward", default="rank", help="rank, score or win")
    parser.add_argument("--gamma", type=float, default=0.998)
    args = parser.parse_args(argv)

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, VecNormalize

    torch.set_num_threads(1)
    out: pathlib.Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    rules = args.rules.split(",")

    def make(i: int) -> Any:
        return lambda: Monitor(
            FlatSeatEnv(
                rules, args.seats, args.p_heuristic, args.p_self, args.seed + i, args.reward
            )
        )

    venv: Any = DummyVecEnv([make(i) for i in range(args.envs)])
    if (out / "model.zip").exists():
        venv = VecNormalize.load(str(out / "vecnormalize.pkl"), venv)
        model = MaskablePPO.load(str(out / "model.zip"), env=venv, device="cpu")
        chunk = len(list(out.glob("chunk-*.npz")))
    else:
        venv = VecNormalize(venv, norm_obs=True, norm_reward=False, clip_obs=10.0, gamma=1.0)
        model = MaskablePPO(
            "MlpPolicy",
            venv,
            learning_rate=3e-4,
            n_steps=2048,
            batch_size=256,
            n_epochs=5,
            gamma=args.gamma,
            gae_lambda=0.95,
            ent_coef=0.01,
            policy_kwargs={"net_arch": {"pi": [128, 128], "vf": [128, 128]}},
            seed=args.seed,
            device="cpu",
            verbose=0,
        )
        chunk = 0
    snapshots = [dict(np.load(p)) for p in sorted(out.glob("chunk-*.npz"))[-5:]]
    venv.env_method("set_snapshots", snapshots)
    deadline = time.monotonic() + 60 * args.minutes
    with (out / "log.txt").open("a") as log:
        while time.monotonic() < deadline:
            t0 = time.monotonic()
            model.learn(args.chunk, reset_num_timesteps=False)
            chunk += 1
            weights = export(model, venv, rules, args.seats)
            np.savez(out / f"chunk-{chunk:04d}.npz", **weights)  # type: ignore[arg-type]
            np.savez(out / "latest.npz", **weights)  # type: ignore[arg-type]
            model.save(str(out / "model.zip"))
            venv.save(str(out / "vecnormalize.pkl"))
            snapshots = (snapshots + [weights])[-5:]
            venv.env_method("set_snapshots", snapshots)
            rewards = [e["r"] for e in model.ep_info_buffer] if model.ep_info_buffer else [0.0]
            line = (
                f"chunk {chunk} steps {model.num_timesteps} mean reward {np.mean(rewards):+.3f} "
                f"({len(rewards)} episodes) {time.monotonic() - t0:.0f}s"
            )
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()


if __name__ == "__main__":
    main()
