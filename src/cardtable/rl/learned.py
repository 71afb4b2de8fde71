"""The ``learned`` Kuhhandel bot: a policy trained by :mod:`cardtable.rl.train` (MaskablePPO,
self-play and the built-in bots), played with numpy only.

The weights ship in the package (``cardtable/rl/weights/kuhhandel-<seats>.npz``): the running
mean and variance the observation was normalized with, then the layers of the policy network
(``W0, b0, W1, b1, …``, ``tanh`` between them, the last layer gives one logit per action index).
The bot takes the allowed index with the largest logit, step after step through the same codec
as the environments (:class:`~cardtable.rl.PolicyAgent`), so it plays exactly as it did there.

    cardtable arena kuhhandel --rules classic --bots learned,heuristic,heuristic,heuristic

The weights carry the observation layout they were trained on (``layout``: the fingerprint
:attr:`~cardtable.rl.kuhhandel.KuhhandelCodec.layout`, and ``rules``: the rule sets): a table
of another layout is refused with both layouts named, and shipped weights that no longer fit
the layout of their own rule set (a feature added to the encoder without retraining) raise a
:class:`ValueError` wherever they are loaded, the expert's guide included, never a silent
fallback. Weights exist for the rule sets whose observation has the trained layout (classic and
competition share it) and the seat counts listed in :func:`available`; any other table gets a
clear :class:`ValueError` at the start of the game, and :func:`refusal` says so beforehand (the
server seats ``learned`` only where it is ``None``).
"""

from __future__ import annotations

import functools
from importlib import resources
from os import PathLike
from typing import Any

import numpy as np

from cardtable.core.contract import GameInfo
from cardtable.games.kuhhandel.rules import PRESETS, RuleSet
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
        #: The observation layout trained on (:attr:`KuhhandelCodec.layout`), and the rule sets.
        self.layout = str(weights["layout"]) if "layout" in weights else None
        self.trained_for = str(weights["rules"]) if "rules" in weights else ""

    def check(self, codec: KuhhandelCodec, table: str) -> None:
        """Refuse (:class:`ValueError`, both layouts named) unless the weights were trained on
        ``codec``'s observation layout; ``table`` says which table in words."""
        if self.layout is None:
            raise ValueError(
                "these learned Kuhhandel weights carry no observation layout (a 'layout' entry, "
                "written by cardtable.rl.train.export): retrain or export them again "
                f"({table} has {codec.describe_layout()})"
            )
        if self.layout != codec.layout:
            trained = self.trained_for.replace(",", "/")
            trained = f" (the {trained} layout)" if trained else ""
            raise ValueError(
                f"the learned Kuhhandel bot was trained for layout {self.layout}{trained} "
                f"({self.n_obs} inputs, {self.n_actions} actions), not {table}'s "
                f"{codec.describe_layout()}: the observation changed since training, "
                "retrain (docs/rl.md, Adding a feature)"
            )

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
        policy = NumpyPolicy(dict(data))
    # Shipped weights that no longer fit the layout of the rule set they were trained for are
    # stale (a feature was added without retraining): an error, never a silent refusal.
    trained = policy.trained_for.split(",")[0] or "classic"
    policy.check(KuhhandelCodec(PRESETS[trained], seats), f"{trained} with {seats} seats")
    return policy


def refusal(rules: RuleSet, seats: int) -> str | None:
    """Why the learned bot cannot play a table of ``rules`` and ``seats``, in words (``None``: it
    can): weights must exist for the seat count and take this table's observation and actions
    (the classic/competition layout)."""
    if seats not in available():
        have = ", ".join(map(str, available()))
        return f"the learned Kuhhandel bot has weights for {have} seats only, not {seats}"
    policy = load_policy(seats)
    try:
        policy.check(KuhhandelCodec(rules, seats), rules.name)
    except ValueError as e:
        return str(e)
    return None


class LearnedBot(PolicyAgent):
    """The ``learned`` bot (see the module docstring)."""

    #: Where its weights fit (the server seats it only there; ``core.registry.bot_refusal``).
    refusal = staticmethod(refusal)

    def __init__(self, seed: int = 0, seats: int | None = None, weights: Any = None) -> None:
        """``weights``: a dict of arrays or the path of an ``.npz`` the training wrote
        (``--bots learned:weights=runs/learned/latest.npz``); ``None``: the shipped ones."""
        super().__init__(self._policy, "kuhhandel", seats=seats, on_illegal="raise")
        if isinstance(weights, str | PathLike):
            with np.load(weights) as data:
                weights = dict(data)
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
        assert isinstance(codec, KuhhandelCodec)
        if self._weights is not None:
            net = NumpyPolicy(self._weights)
        else:
            seats = self.seats or getattr(codec, "seats", None) or 4
            net = load_policy(int(seats))
        net.check(codec, f"{codec.rules.name} with {codec.seats} seats")
        return net

    def start(self, seat: int, info: GameInfo) -> None:
        self.seats = info.seats
        super().start(seat, info)
        n_obs = self.codec.obs_size  # type: ignore[union-attr]
        if self._net is None or self._net.n_obs != n_obs:
            self._net = self._load(n_obs)
