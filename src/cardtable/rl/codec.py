"""The bridge between a game's requests and a discrete action space (one codec per game).

A *codec* turns one seat's view of a decision (the engine's observation plus the open
:class:`~cardtable.core.Request`) into a fixed-size ``float32`` vector and an ``int8`` action mask,
and turns a chosen action index back into an engine action. Compound answers (a payment, an offer,
a bid above the first menu, the three cards of a pass) are built in *steps*: a step that does not
finish the answer updates the :class:`Draft` and the same seat chooses again; the step that
finishes it yields the engine action.

What a caller can rely on:

- ``options(...)`` is the single source of truth: the mask is exactly its keys, and ``choose``
  accepts exactly those indices (anything else raises :class:`ValueError`).
- Every value ``choose`` returns is an action the engine accepts for that request (the property
  tests in ``tests/rl`` check this on random states).
- A codec reads only the observation the engine gives the seat and the request addressed to it,
  never the game state, so an agent built on it (:mod:`cardtable.rl.policy`) plays the same way in
  the arena and over the network.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from cardtable.core.contract import Request


class Step:
    """A choice that does not finish the answer: ``what`` names it, ``value`` parametrises it."""

    __slots__ = ("value", "what")

    def __init__(self, what: str, value: int = 0) -> None:
        self.what = what
        self.value = value

    def __repr__(self) -> str:
        return f"Step({self.what!r}, {self.value})"


class Build:
    """A choice that finishes an answer only built when chosen (see :meth:`Codec.build`):
    ``what`` names it, ``value`` parametrises it. Codecs keep one instance per choice."""

    __slots__ = ("value", "what")

    def __init__(self, what: str, value: int = 0) -> None:
        self.what = what
        self.value = value

    def __repr__(self) -> str:
        return f"Build({self.what!r}, {self.value})"


class Wait:
    """The environment-only answer "not now" (an open auction's auctioneer lets bidding go on)."""

    def __repr__(self) -> str:
        return "WAIT"

    def __copy__(self) -> Wait:
        return self

    def __deepcopy__(self, memo: Any) -> Wait:
        return self  # one value, compared by identity


WAIT = Wait()


class Draft:
    """The partial answer of the seat that is choosing (reset for every new request)."""

    __slots__ = ("available", "base", "chosen", "count", "limit", "options", "request", "total")

    def __init__(self, request: Request | None, n_values: int = 0) -> None:
        self.request = request
        self.options: dict[int, Any] | None = None
        self.chosen = [0] * n_values  # counts per note value / card flags
        self.total = 0  # value of the chosen notes / number of chosen cards
        self.count = 0  # number of chosen notes
        self.limit = n_values - 1  # largest note index still allowed (notes go largest first)
        self.base = -1  # the bid the menu starts from (-1: the request's minimum)
        #: codec scratch: what the request allows still (Kuhhandel: the notes not chosen yet)
        self.available: list[int] | None = None

    @property
    def started(self) -> bool:
        return self.count > 0 or self.base >= 0


class Codec(ABC):
    """Encoding and decoding for one game, one rule set and one seat count."""

    game: ClassVar[str] = ""
    n_actions: int
    obs_size: int
    #: ``action_names[i]`` says in words what index ``i`` means (for docs and debugging).
    action_names: list[str]

    @abstractmethod
    def new_draft(self, request: Request | None) -> Draft:
        """A fresh draft for ``request``."""

    @abstractmethod
    def options(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        """Every allowed index now, mapped to what :meth:`choose` makes of it: an engine action,
        a :class:`Step`, :data:`WAIT`, or a :class:`Build` for an answer that is only built when
        chosen (creating every candidate action up front would cost more than the engine).
        The dict may be shared between calls: read it, never change it.

        ``wait`` allows :data:`WAIT` where the game has a request that may also be left open
        (only the environment can wait; an agent must answer).
        """

    @abstractmethod
    def advance(self, draft: Draft, step: Step, request: Request) -> None:
        """Apply a non-final step to the draft."""

    def build(self, obs: Any, request: Request, draft: Draft, token: Build) -> Any:
        """The engine action a :class:`Build` option stands for (codecs that use them)."""
        raise NotImplementedError(f"{type(self).__name__} has no {token!r}")

    @abstractmethod
    def encode(self, obs: Any, request: Request | None, draft: Draft | None) -> np.ndarray:
        """The observation vector (``float32``, length :attr:`obs_size`)."""

    @abstractmethod
    def indices(self, obs: Any, request: Request, action: Any) -> list[int]:
        """The index sequence that answers ``request`` with the engine ``action``.

        Raises :class:`ValueError` when the action cannot be expressed (see each codec's notes on
        what is reachable). Useful to learn from recorded or bot games (behaviour cloning).
        """

    # ------------------------------------------------------------------ generic
    def allowed(
        self, obs: Any, request: Request, draft: Draft, *, wait: bool = False
    ) -> dict[int, Any]:
        """:meth:`options`, cached on the draft until the next step."""
        opts = draft.options
        if opts is None:
            opts = draft.options = self.options(obs, request, draft, wait=wait)
        return opts

    def mask(
        self, obs: Any, request: Request | None, draft: Draft | None, *, wait: bool = False
    ) -> np.ndarray:
        """The ``int8`` mask: 1 exactly for the indices :meth:`choose` accepts (a new array
        the caller may keep or change)."""
        m = np.zeros(self.n_actions, dtype=np.int8)
        if request is not None and draft is not None:
            m[list(self.allowed(obs, request, draft, wait=wait))] = 1
        return m

    def choose(
        self, obs: Any, request: Request, draft: Draft, index: int, wait: bool = False
    ) -> Any:
        """The engine action for ``index``, or ``None`` when the answer needs more steps, or
        :data:`WAIT`. Raises :class:`ValueError` for an index the mask does not allow."""
        opts = self.allowed(obs, request, draft, wait=wait)
        try:
            value = opts[index]
        except (KeyError, TypeError):
            names = ", ".join(self.action_names[i] for i in sorted(opts))
            raise ValueError(
                f"action {index!r} is not allowed now ({request.kind}); allowed: {names}"
            ) from None
        if isinstance(value, Step):
            self.advance(draft, value, request)
            draft.options = None
            return None
        if isinstance(value, Build):
            return self.build(obs, request, draft, value)
        return value
