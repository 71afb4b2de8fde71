"""A masked policy-gradient learner (REINFORCE with a baseline) in plain numpy, CPU only.

One seat learns against built-in bots in :class:`cardtable.rl.SingleSeatEnv`; the policy is a
linear softmax over the observation vector with the illegal actions masked out. After training,
the policy plays as a normal cardtable agent (:class:`cardtable.rl.PolicyAgent`) through
``run_match`` against the same bots, with seats rotated, and is compared with an untrained
(uniform over the mask) policy in the same games.

    .venv/bin/python examples/rl/masked_pg.py --game kuhhandel --rules classic --seats 4 \\
        --episodes 3000 --out /tmp/kuhhandel-pg.npz

The saved weights play anywhere an agent is expected, e.g.
``cardtable play kuhhandel --bots examples/rl/masked_pg.py:Bot,random,random,random`` (set
``CARDTABLE_PG_WEIGHTS`` to the ``.npz`` file).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from cardtable.core import game_spec, load_bot, run_match
from cardtable.rl import PolicyAgent, SingleSeatEnv


class LinearPolicy:
    """``softmax(W·x + b)`` over the allowed actions; ``policy(obs)`` returns an index."""

    def __init__(self, n_obs: int, n_actions: int, seed: int = 0, greedy: bool = True) -> None:
        self.W = np.zeros((n_actions, n_obs))
        self.b = np.zeros(n_actions)
        self.rng = np.random.default_rng(seed)
        self.greedy = greedy

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.W @ x + self.b
        logits = np.where(mask > 0, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum()

    def __call__(self, obs: dict[str, np.ndarray]) -> int:
        p = self.probabilities(obs["observation"], obs["action_mask"])
        if self.greedy:
            return int(np.argmax(p))
        return int(self.rng.choice(len(p), p=p))

    def save(self, path: str) -> None:
        np.savez(path, W=self.W, b=self.b)

    @classmethod
    def load(cls, path: str, greedy: bool = True) -> LinearPolicy:
        data = np.load(path)
        policy = cls(data["W"].shape[1], data["W"].shape[0], greedy=greedy)
        policy.W, policy.b = data["W"], data["b"]
        return policy


class Adam:
    def __init__(self, shapes: list[tuple[int, ...]], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = [np.zeros(s) for s in shapes]
        self.v = [np.zeros(s) for s in shapes]

    def step(self, params: list[np.ndarray], grads: list[np.ndarray]) -> None:
        self.t += 1
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            mh = m / (1 - 0.9**self.t)
            vh = v / (1 - 0.999**self.t)
            p += self.lr * mh / (np.sqrt(vh) + 1e-8)  # gradient *ascent* on the return


def train(args: argparse.Namespace) -> LinearPolicy:
    env = SingleSeatEnv(
        args.game, args.rules, args.seats, seat=None, opponents=args.opponents, reward="rank"
    )
    policy = LinearPolicy(env.codec.obs_size, env.codec.n_actions, seed=args.seed, greedy=False)
    adam = Adam([policy.W.shape, policy.b.shape], args.lr)
    baseline, returns, c0 = 0.0, [], time.process_time()
    for episode in range(args.episodes):
        obs, _ = env.reset(seed=args.seed * 1_000_003 + episode)
        xs, grads_logits = [], []
        done, reward = False, 0.0
        while not done:
            x, mask = obs["observation"].astype(np.float64), obs["action_mask"]
            p = policy.probabilities(x, mask)
            a = int(policy.rng.choice(len(p), p=p))
            g = -p
            g[a] += 1.0  # d log pi(a) / d logits
            xs.append(x)
            grads_logits.append(g)
            obs, reward, terminated, truncated, _ = env.step(a)
            done = terminated or truncated
        advantage = reward - baseline
        baseline += 0.02 * (reward - baseline)
        G = np.array(grads_logits) * advantage
        X = np.array(xs)
        adam.step([policy.W, policy.b], [G.T @ X / len(X), G.mean(axis=0)])
        returns.append(reward)
        if (episode + 1) % args.report == 0:
            recent = np.mean(returns[-args.report :])
            print(
                f"episode {episode + 1}: mean rank reward (last {args.report}) {recent:+.3f}, "
                f"{time.process_time() - c0:.0f} s CPU",
                flush=True,
            )
    policy.greedy = True
    return policy


def evaluate(
    policy: Any, args: argparse.Namespace, games: int, opponents: str | None = None
) -> dict[str, float]:
    """``games`` games through run_match, the policy's seat rotating, the others bots
    (``opponents``, by default those it trained against)."""
    opponents = opponents or args.opponents
    spec = game_spec(args.game)
    rules = spec.resolve_rules(args.rules) if isinstance(args.rules, str) else args.rules
    seats = args.seats
    wins, places, rewards = 0.0, 0.0, 0.0
    for g in range(games):
        seat = g % seats
        agents: list[Any] = [
            load_bot(args.game, opponents, seed=10_000 + g * 8 + s) for s in range(seats)
        ]
        agents[seat] = PolicyAgent(policy, args.game)
        result = run_match(spec.new_game(rules, seats, 500_000 + g), agents)
        place = result.places[seat]
        wins += place == 0
        places += place
        rewards += 1 - 2 * place / (seats - 1)
    return {"win_rate": wins / games, "mean_place": places / games, "rank_reward": rewards / games}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="kuhhandel")
    p.add_argument("--rules", default="classic")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--opponents", default="random")
    p.add_argument("--episodes", type=int, default=3000)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--report", type=int, default=250)
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--out", default=None, help="save the weights (.npz)")
    p.add_argument("--load", default=None, help="evaluate saved weights (.npz), no training")
    p.add_argument(
        "--eval-opponents", default=None, help="bots to evaluate against (default: --opponents)"
    )
    args = p.parse_args()
    c0 = time.process_time()
    if args.load:
        policy = LinearPolicy.load(args.load)
    else:
        policy = train(args)
        print(f"training: {time.process_time() - c0:.0f} s CPU")
    if args.out:
        policy.save(args.out)
    opponents = args.eval_opponents or args.opponents
    untrained = LinearPolicy(policy.W.shape[1], policy.W.shape[0], seed=1, greedy=False)
    for name, pol in (("untrained (uniform over the mask)", untrained), ("trained", policy)):
        r = evaluate(pol, args, args.eval_games, opponents)
        print(
            f"{name} vs {args.seats - 1}× {opponents}, {args.eval_games} games: "
            f"win rate {r['win_rate']:.1%} (equal share {1 / args.seats:.1%}), "
            f"mean place {r['mean_place'] + 1:.2f} of {args.seats}, "
            f"rank reward {r['rank_reward']:+.3f}"
        )


def Bot(seed: int = 0) -> PolicyAgent:  # the name load_bot looks for
    """The saved policy as a cardtable agent (weights from ``CARDTABLE_PG_WEIGHTS``)."""
    policy = LinearPolicy.load(os.environ.get("CARDTABLE_PG_WEIGHTS", "kuhhandel-pg.npz"))
    return PolicyAgent(policy, os.environ.get("CARDTABLE_PG_GAME", "kuhhandel"))


if __name__ == "__main__":
    main()
