"""The ``learned`` Kuhhandel bot: a policy trained by :mod:`cardtable.rl.train` (MaskablePPO,
self-play and the built-in bots), played with numpy only.

The weights ship in the package (``cardtable/rl/weights/kuhhandel-<seats>.npz``): the running
mean and variance the observation was normalized with, then the layers of the policy network
(``W0, b0, W1, b1, …``, ``tanh`` between them, the last layer gives one logit per action index).
The bot takes the allowed index with the largest logit, step after step through the same codec
as the environments (:class:`~cardtable.rl.PolicyAgent`), so it plays exactly as it did there.

    cardtable arena kuhhandel --rules classic --bots learned,heuristic,heuristic,heuristic

Weights exist for the rule sets whose observation has the trained layout (classic and
competition share it) and the seat counts listed in :func:`available`; any other table gets a
clear :class:`ValueError` at the start of the game, and :func:`refusal` says so beforehand (the
server seats ``learned`` only where it is ``None``).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

import numpy as np

from cardtable.core.contract import GameInfo
from cardtable.games.kuhhandel.rules import RuleSet
from cardtable.rl.kuhhandel import KuhhandelCodec
from cardtable.rl.policy import PolicyAgent

#: What the observation is clipped to after normalization (as stable-baselines3's VecNormalize).
CLIP = 10.0


class NumpyPolicy:
    """``argmax`` over the allowed indices of an MLP's logits (``policy(obs) -> index``)."""

    def __init__(self, weights: Any) -> None:
        self.mean = np.asarray(weights["obs_mean"], dtype=np.float64)
        self.std = np.sqrt(np.asarray(weights["obs_var"], dtype=np.float64) + 1e-8)
        n = int(weights["layers"])
        self.layers = [
            (np.asarray(weights[f"W{i}"], np.float64), np.asarray(weights[f"b{i}"], np.float64))
            for i in range(n)
        ]
        self.n_obs = self.layers[0][0].shape[1]
        self.n_actions = self.layers[-1][0].shape[0]

    def logits(self, x: np.ndarray) -> np.ndarray:
        h = np.clip((np.asarray(x, np.float64) - self.mean) / self.std, -CLIP, CLIP)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = w @ h + b
            if i < last:
                h = np.tanh(h)
        return h

    def __call__(self, obs: dict[str, np.ndarray]) -> int:
        logits = self.logits(obs["observation"])
        logits[np.asarray(obs["action_mask"]) == 0] = -np.inf
        return int(np.argmax(logits))


def weights_path(seats: int) -> Any:
    return resources.files("cardtable.rl") / "weights" / f"kuhhandel-{seats}.npz"


def available() -> list[int]:
    """The seat counts that have shipped weights."""
    return [n for n in range(2, 7) if weights_path(n).is_file()]


@functools.cache
def load_policy(seats: int) -> NumpyPolicy:
    """The shipped policy for ``seats`` (loaded once; it is only read)."""
    path = weights_path(seats)
    if not path.is_file():
        raise ValueError(
            f"the learned Kuhhandel bot has weights for {available()} seats, not {seats}"
        )
    with path.open("rb") as f, np.load(f) as data:
        return NumpyPolicy(dict(data))


def refusal(rules: RuleSet, seats: int) -> str | None:
    """Why the learned bot cannot play a table of ``rules`` and ``seats``, in words (``None``: it
    can): weights must exist for the seat count and take this table's observation and actions
    (the classic/competition layout)."""
    if seats not in available():
        have = ", ".join(map(str, available()))
        return f"the learned Kuhhandel bot has weights for {have} seats only, not {seats}"
    policy = load_policy(seats)
    codec = KuhhandelCodec(rules, seats)
    if (policy.n_obs, policy.n_actions) != (codec.obs_size, codec.n_actions):
        layout = "the classic/competition layout"
        return f"the learned Kuhhandel bot was trained for {layout}, not {rules.name}"
    return None


class LearnedBot(PolicyAgent):
    """The ``learned`` bot (see the module docstring)."""

    #: Where its weights fit (the server seats it only there; ``core.registry.bot_refusal``).
    refusal = staticmethod(refusal)

    def __init__(self, seed: int = 0, seats: int | None = None, weights: Any = None) -> None:
        super().__init__(self._policy, "kuhhandel", seats=seats, on_illegal="raise")
        self._weights = weights
        self._net: NumpyPolicy | None = None

    def _policy(self, obs: dict[str, np.ndarray]) -> int:
        net = self._net
        if net is None or net.n_obs != len(obs["observation"]):
            net = self._net = self._load(len(obs["observation"]))
        return net(obs)

    def _load(self, n_obs: int) -> NumpyPolicy:
        codec = self.codec
        assert codec is not None
        if self._weights is not None:
            net = NumpyPolicy(self._weights)
        else:
            seats = self.seats or getattr(codec, "seats", None) or 4
            net = load_policy(int(seats))
        if net.n_obs != n_obs or net.n_actions != codec.n_actions:
            raise ValueError(
                "the learned Kuhhandel bot was trained for the classic/competition layout "
                f"({net.n_obs} inputs, {net.n_actions} actions), not this rule set "
                f"({n_obs} inputs, {codec.n_actions} actions)"
            )
        return net

    def start(self, seat: int, info: GameInfo) -> None:
        self.seats = info.seats
        super().start(seat, info)
        n_obs = self.codec.obs_size  # type: ignore[union-attr]
        if self._net is None or self._net.n_obs != n_obs:
            self._net = self._load(n_obs)
