"""A trained policy as a cardtable agent: it plays in the arena, in ``cardtable play`` and over the
network (``cardtable bot``) exactly as it played in the environments.

``policy`` is either a callable ``policy(obs) -> index`` or an object with ``predict`` (the
stable-baselines3 convention: ``predict(obs, deterministic=...)`` returning ``(action, state)``;
``action_masks=`` is passed when the method accepts it, as sb3-contrib's MaskablePPO does). ``obs``
is the environments' dict ``{"observation": float32 vector, "action_mask": int8 mask}``. The agent
answers a request by asking the policy step after step through the same codec as the
environments, until the answer is complete.

An index the mask does not allow is a fault: ``on_illegal="raise"`` (the default) raises
:class:`ValueError` (the arena and the server then let a fallback bot answer and record the
fault); ``"first"`` takes the first allowed index instead and counts it in ``illegal``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from cardtable.core.contract import GameInfo, Request
from cardtable.core.registry import game_spec
from cardtable.rl.codec import Codec
from cardtable.rl.table import make_codec

#: No answer needs more steps (the longest is a bid raised many times or a fat payment).
MAX_STEPS = 1000


class PolicyAgent:
    """Wraps ``policy`` for ``game`` (see the module docstring)."""

    def __init__(
        self,
        policy: Any,
        game: str,
        *,
        rules: Any = None,
        seats: int | None = None,
        overbid: bool = False,
        deterministic: bool = True,
        on_illegal: str = "raise",
    ) -> None:
        if on_illegal not in ("raise", "first"):
            raise ValueError("on_illegal is 'raise' or 'first'")
        self.policy = policy
        self.game = game
        self.rules = rules
        self.seats = seats
        self.overbid = overbid
        self.deterministic = deterministic
        self.on_illegal = on_illegal
        self.illegal = 0
        self.steps = 0
        self.codec: Codec | None = None
        self._ask = self._asker(policy)

    def _asker(self, policy: Any) -> Callable[[dict[str, np.ndarray]], Any]:
        predict = getattr(policy, "predict", None)
        if predict is None:
            if not callable(policy):
                raise TypeError("a policy is a callable obs -> index or has predict()")
            return policy  # type: ignore[no-any-return]
        try:
            takes_masks = "action_masks" in inspect.signature(predict).parameters
        except (TypeError, ValueError):
            takes_masks = False
        det = self.deterministic
        if takes_masks:
            return lambda obs: predict(obs, action_masks=obs["action_mask"], deterministic=det)
        return lambda obs: predict(obs, deterministic=det)

    def start(self, seat: int, info: GameInfo) -> None:
        spec = game_spec(self.game)
        rules = spec.rules_from_json(info.rules)
        self.codec = make_codec(self.game, rules, info.seats, overbid=self.overbid)

    def _codec(self, observation: Any) -> Codec:
        if self.codec is None:
            spec = game_spec(self.game)
            rules = self.rules
            if rules is None and self.game == "kuhhandel":
                rules = getattr(observation, "rules", None)
            rules = spec.resolve_rules(rules) if rules is None or isinstance(rules, str) else rules
            seats = self.seats or getattr(observation, "seats", None) or 4
            self.codec = make_codec(self.game, rules, seats, overbid=self.overbid)
        return self.codec

    def act(self, observation: Any, request: Request) -> Any:
        codec = self._codec(observation)
        draft = codec.new_draft(request)
        for _ in range(MAX_STEPS):
            mask = codec.mask(observation, request, draft)
            obs = {"observation": codec.encode(observation, request, draft), "action_mask": mask}
            out = self._ask(obs)
            if isinstance(out, tuple):
                out = out[0]
            index = int(np.asarray(out).reshape(-1)[0])
            self.steps += 1
            if not (0 <= index < len(mask) and mask[index]):
                if self.on_illegal == "raise":
                    raise ValueError(
                        f"the policy chose {index}, which the mask does not allow ({request.kind})"
                    )
                self.illegal += 1
                index = int(np.flatnonzero(mask)[0])
            value = codec.choose(observation, request, draft, index)
            if value is not None:
                return value
        raise RuntimeError(f"no answer to {request.kind} after {MAX_STEPS} policy steps")
