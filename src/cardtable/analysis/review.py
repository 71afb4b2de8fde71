"""The expert reviews a recorded game, decision by decision, from the seat's observation only.

:class:`Analyst` follows one seat through a game exactly as a bot in that seat would: it is
started with the game's public info, gets the events that seat may see and, at each of the seat's
decisions, the seat's observation and request (never the game itself). It asks the game's
``expert`` bot to search that decision with a :class:`~cardtable.core.probe.SearchProbe` in place:
the answer actually given is added to the expert's candidates, and every candidate is valued over
the same sampled worlds (the expert's own world sampling from the observation, common random
numbers). From those samples each candidate gets a win chance and an expected score margin, each
with its standard error over the worlds, and the answer given is compared with the best one.

A **mistake** is an answer whose loss against the best candidate is at least the game's threshold
*and* at least twice the standard error of the paired difference over the worlds (outside the
noise). The best of many noisy means is partly luck, so when the first search suggests a mistake the
two answers (the best and the one given) are searched again on fresh worlds and that second
measurement decides: Kuhhandel counts the loss in win chance (:data:`KUHHANDEL_THRESHOLD` points
of 100), Cunegonda in round points (:data:`CUNEGONDA_THRESHOLD`), the quantity its expert maximises.

:func:`analyse` walks a record for one or more seats; :func:`summary` counts a seat's mistakes
by kind, in the game's words.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardtable.core import Game, GameInfo, Record, Request, replay
from cardtable.core.decision import open_request
from cardtable.core.message import Message, msg
from cardtable.core.probe import SearchProbe
from cardtable.i18n import render

#: A mistake in Kuhhandel costs at least this much win chance (percentage points) ...
KUHHANDEL_THRESHOLD = 10.0
#: ... in Cunegonda at least this many round points (a trick is worth 10) ...
CUNEGONDA_THRESHOLD = 10.0
#: ... and in both at least this many standard errors of the paired difference over the worlds.
NOISE_Z = 2.0
#: What :meth:`Adapter.taken` returns for an answer the analysis does not search.
UNSEARCHED: Any = object()
#: Worlds per decision when no budget is given.
DEFAULT_WORLDS = 48


@dataclass(frozen=True)
class Budget:
    """What one decision's search may use: ``worlds`` sampled, or ``seconds`` of search."""

    worlds: int | None = DEFAULT_WORLDS
    seconds: float | None = None

    @classmethod
    def parse(cls, text: str) -> Budget:
        """``"64"`` (worlds per decision) or ``"0.5s"`` (seconds per decision)."""
        t = text.strip().lower()
        try:
            if t.endswith("s"):
                seconds = float(t[:-1])
                if not 0 < seconds <= 600:
                    raise ValueError
                return cls(worlds=None, seconds=seconds)
            worlds = int(t)
            if not 1 <= worlds <= 100_000:
                raise ValueError
            return cls(worlds=worlds)
        except ValueError:
            raise ValueError(
                f"--budget {text!r}: give worlds per decision (1..100000, e.g. 48) "
                "or seconds per decision (e.g. 0.5s)"
            ) from None

    def to_json(self) -> dict[str, Any]:
        return {"worlds": self.worlds, "seconds": self.seconds}

    def words(self) -> str:
        if self.seconds is not None:
            return f"{self.seconds:g} s per decision"
        return f"{self.worlds} worlds per decision"


@dataclass(frozen=True)
class Value:
    """One candidate's estimate over the worlds: means and standard errors."""

    label: str
    action: Any  # the action's JSON form when it is a single action, else None
    win: float  # win chance, 0..1
    win_se: float
    margin: float  # score minus the best other score
    margin_se: float
    utility: float  # what the expert maximises (its own scale)
    worlds: int
    words: Message | None = None  # the label in no language (the catalogs word it)

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "words": self.words.to_json() if self.words else None,
            "action": self.action,
            "win": round(self.win, 4),
            "win_se": round(self.win_se, 4),
            "margin": round(self.margin, 2),
            "margin_se": round(self.margin_se, 2),
            "utility": round(self.utility, 4),
            "worlds": self.worlds,
        }


@dataclass(frozen=True)
class Review:
    """The expert's review of one decision."""

    seat: int
    number: int  # the seat's decision number, from 1
    index: int  # its index among the record's actions
    kind: str  # the request kind
    taken: Any  # the action's JSON
    taken_label: str
    searched: bool  # False: a trivial decision (one sensible answer), not searched
    candidates: tuple[Value, ...] = ()
    taken_at: int = -1  # index of the answer given among the candidates
    best_at: int = -1
    loss: float = 0.0  # in the game's unit (win points or round points)
    loss_se: float = 0.0
    mistake: bool = False
    mistake_kind: str = ""
    #: ``taken_label`` and ``mistake_kind`` in no language (the catalogs word them; the
    #: strings above are their English, for bots, scripts and older readers)
    taken_words: Message | None = None
    mistake_words: Message | None = None

    @property
    def best(self) -> Value | None:
        return self.candidates[self.best_at] if self.searched else None

    @property
    def value(self) -> Value | None:
        """The answer given, valued."""
        return self.candidates[self.taken_at] if self.searched else None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": self.seat,
            "number": self.number,
            "index": self.index,
            "kind": self.kind,
            "taken": self.taken,
            "taken_label": self.taken_label,
            "taken_words": self.taken_words.to_json() if self.taken_words else None,
            "searched": self.searched,
        }
        if self.searched:
            best = self.candidates[self.best_at]
            out.update(
                candidates=[c.to_json() for c in self.candidates],
                taken_at=self.taken_at,
                best_at=self.best_at,
                best_label=best.label,
                best_words=best.words.to_json() if best.words else None,
                loss=round(self.loss, 3),
                loss_se=round(self.loss_se, 3),
                mistake=self.mistake,
                mistake_kind=self.mistake_kind or None,
                mistake_words=self.mistake_words.to_json() if self.mistake_words else None,
            )
        return out


class Adapter:
    """What a game supplies to the analysis (one subclass per game)."""

    game = ""
    #: How the loss is counted, in words, and the threshold in that unit.
    unit = ""
    threshold = 0.0

    def bot(self, seed: int, budget: Budget) -> Any:
        raise NotImplementedError

    def fresh(self, bot: Any) -> None:
        """Forget what the bot planned at an earlier decision (each decision is searched anew)."""

    def prepare(self, record: Record, seat: int) -> None:
        """Read what the analysis may know before the game: the seat's own actions only."""

    def taken(self, obs: Any, request: Request, action: Any, index: int) -> Any:
        """The answer given, in the expert's candidate form (:data:`UNSEARCHED`: not searched)."""
        raise NotImplementedError

    def judge(self, obs: Any) -> Callable[[Sequence[float]], tuple[float, float]] | None:
        return None

    def label(self, obs: Any, request: Request, candidate: Any) -> Message:
        """A candidate in no language (a catalog key ``analysis.{game}...`` and its args)."""
        raise NotImplementedError

    def action_json(self, obs: Any, request: Request, candidate: Any) -> Any:
        return None

    def loss(
        self, best: list[tuple[float, float, float]], taken: list[tuple[float, float, float]]
    ) -> tuple[float, float]:
        """Mean and standard error of best minus taken, paired by world, in the game's unit."""
        raise NotImplementedError

    def mistake_kind(self, obs: Any, request: Request, taken: Any, best: Any) -> Message:
        """What kind of mistake answering ``taken`` where ``best`` was best is
        (``analysis.mistake.{game}.{kind}`` with its args)."""
        raise NotImplementedError

    def describe_action(self, obs: Any, request: Request, action_json: Any) -> Message:
        return msg("analysis.as_given", text=str(action_json))


def _mean_se(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    mean = sum(xs) / n
    if n < 2:
        return mean, 0.0
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n)


def paired(
    best: Sequence[tuple[float, float, float]],
    taken: Sequence[tuple[float, float, float]],
    field_index: int,
    scale: float = 1.0,
) -> tuple[float, float]:
    diffs = [(b[field_index] - t[field_index]) * scale for b, t in zip(best, taken, strict=False)]
    return _mean_se(diffs)


class Analyst:
    """Follows one seat through a game and reviews its decisions (see the module docstring).

    It sees only what a bot in that seat sees: :meth:`start` gets the public game info,
    :meth:`event` the events visible to the seat, :meth:`review` the seat's observation, request
    and own answer.
    """

    def __init__(self, adapter: Adapter, seat: int, budget: Budget, seed: int = 0) -> None:
        self.adapter = adapter
        self.seat = seat
        self.budget = budget
        self.bot = adapter.bot(seed + 7919 * seat, budget)

    def start(self, info: GameInfo) -> None:
        start = getattr(self.bot, "start", None)
        if start is not None:
            start(self.seat, info)

    def event(self, event: Any) -> None:
        hook = getattr(self.bot, "event", None)
        if hook is not None:
            hook(event)

    def review(
        self, obs: Any, request: Request, action: Any, action_json: Any, number: int, index: int
    ) -> Review:
        a = self.adapter
        taken = a.taken(obs, request, action, index)
        words = a.describe_action(obs, request, action_json)
        label = english(words)
        if taken is UNSEARCHED:
            return Review(
                self.seat, number, index, request.kind, action_json, label, False,
                taken_words=words,
            )  # fmt: skip
        probe = SearchProbe(
            extra=[] if taken is UNSEARCHED else [taken],
            worlds=self.budget.worlds if self.budget.seconds is None else None,
            judge=a.judge(obs),
        )
        self.bot.probe = probe
        a.fresh(self.bot)
        try:
            self.bot.act(obs, request)
        finally:
            self.bot.probe = None
        if not probe.searched or len(probe.candidates) < 2:
            return Review(
                self.seat, number, index, request.kind, action_json, label, False,
                taken_words=words,
            )  # fmt: skip
        values = []
        for cand, samples in zip(probe.candidates, probe.samples, strict=True):
            u, _ = _mean_se([s[0] for s in samples])
            w, w_se = _mean_se([s[1] for s in samples])
            m, m_se = _mean_se([s[2] for s in samples])
            said = a.label(obs, request, cand)
            values.append(
                Value(
                    english(said),
                    a.action_json(obs, request, cand),
                    w,
                    w_se,
                    m,
                    m_se,
                    u,
                    len(samples),
                    said,
                )
            )
        best_at = max(range(len(values)), key=lambda i: (values[i].utility, -i))
        taken_at = probe.candidates.index(taken)
        loss, loss_se = a.loss(probe.samples[best_at], probe.samples[taken_at])
        mistake = False
        if best_at != taken_at and loss >= a.threshold:
            # The best of many noisy means is partly luck (its estimate is biased upwards):
            # the loss that decides is measured again on fresh worlds, the two answers only.
            best = probe.candidates[best_at]
            again = SearchProbe(only=[best, taken], worlds=probe.worlds, judge=probe.judge)
            self.bot.probe = again
            a.fresh(self.bot)
            try:
                self.bot.act(obs, request)
            finally:
                self.bot.probe = None
            if again.searched and len(again.candidates) == 2:
                loss, loss_se = a.loss(again.samples[0], again.samples[1])
                mistake = loss >= a.threshold and loss >= NOISE_Z * loss_se
        kind = a.mistake_kind(obs, request, taken, probe.candidates[best_at]) if mistake else None
        return Review(
            self.seat, number, index, request.kind, action_json, label, True,
            tuple(values), taken_at, best_at, loss, loss_se, mistake,
            english(kind) if kind else "", words, kind,
        )  # fmt: skip


def english(words: Message) -> str:
    """The English of a review's words (its ``label``, ``taken_label``, ``mistake_kind``)."""
    return render("en", words, indent=False)


def adapter_for(game: str) -> Adapter:
    if game == "kuhhandel":
        from cardtable.analysis.kuhhandel import KuhhandelAdapter

        return KuhhandelAdapter()
    if game == "cunegonda":
        from cardtable.analysis.cunegonda import CunegondaAdapter

        return CunegondaAdapter()
    raise ValueError(f"no analysis for the game {game!r} (kuhhandel and cunegonda have one)")


@dataclass
class Analysis:
    """The reviews of one record for some seats, with what produced them."""

    record: Record
    seats: tuple[int, ...]
    budget: Budget
    seed: int
    reviews: list[Review] = field(default_factory=list)
    seconds: float = 0.0

    def for_seat(self, seat: int) -> list[Review]:
        return [r for r in self.reviews if r.seat == seat]

    def to_json(self) -> dict[str, Any]:
        a = adapter_for(self.record.game)
        names = self.record.names or tuple(f"seat-{i}" for i in range(self.record.seats))
        return {
            "game": self.record.game,
            "rules": self.record.rules.get("name"),
            "names": list(names),
            "seats": list(self.seats),
            "budget": self.budget.to_json(),
            "seed": self.seed,
            "seconds": round(self.seconds, 2),
            "threshold": {
                "unit": a.unit,
                "loss_at_least": a.threshold,
                "noise_z": NOISE_Z,
                "words": threshold_words(a),
            },
            "reviews": [r.to_json() for r in self.reviews],
            "summary": {str(s): summary(self.for_seat(s)) for s in self.seats},
        }


def threshold_words(a: Adapter) -> str:
    return (
        f"a mistake costs at least {a.threshold:g} {a.unit} against the expert's best answer "
        f"and at least {NOISE_Z:g} standard errors of the paired difference over the worlds"
    )


def decision_count(record: Record, seats: Iterable[int]) -> int:
    chosen = set(seats)
    return sum(1 for s, _ in record.actions if s in chosen)


def analyse(
    record: Record,
    seats: Sequence[int],
    budget: Budget | None = None,
    *,
    seed: int = 0,
    on_review: Callable[[Review], None] | None = None,
) -> Analysis:
    """Review every decision of ``seats`` in ``record`` (see the module docstring)."""
    import time

    budget = budget or Budget()
    adapter = adapter_for(record.game)
    for s in seats:
        if not 0 <= s < record.seats:
            raise ValueError(f"no seat {s} in this {record.seats}-seat game (seats count from 0)")
    started = time.perf_counter()
    game: Game = replay(record, upto=0)
    names = record.names or tuple(f"seat-{i}" for i in range(record.seats))
    analysts: dict[int, Analyst] = {}
    for s in seats:
        adapter_s = adapter_for(record.game)
        adapter_s.prepare(record, s)
        analysts[s] = Analyst(adapter_s, s, budget, seed)
        analysts[s].start(GameInfo(game.name, game.rules_json(), game.seats, s, tuple(names)))
    seen = _deliver(game, 0, analysts)
    numbers = dict.fromkeys(seats, 0)
    out = Analysis(record, tuple(seats), budget, seed)
    for index, (s, data) in enumerate(record.actions):
        action = game.action_from_json(data)
        if s in analysts:
            numbers[s] += 1
            request = open_request(game, s)
            review = analysts[s].review(game.observe(s), request, action, data, numbers[s], index)
            out.reviews.append(review)
            if on_review is not None:
                on_review(review)
        game.apply(s, action)
        seen = _deliver(game, seen, analysts)
    out.seconds = time.perf_counter() - started
    del adapter
    return out


def _deliver(game: Game, since: int, analysts: Mapping[int, Analyst]) -> int:
    events = list(game.events(since))
    for event in events:
        for s, analyst in analysts.items():
            if event.visible_to(s):
                analyst.event(event)
    return since + len(events)


def summary(reviews: Sequence[Review]) -> dict[str, Any]:
    """A seat's mistakes counted by kind: ``by_kind`` by the kinds' English, ``kind_words`` each
    kind's words in no language (for a page to say in its person's language)."""
    return _count(
        [
            (
                r.searched,
                r.mistake,
                r.mistake_kind,
                r.loss,
                r.mistake_words.to_json() if r.mistake_words else None,
            )
            for r in reviews
        ]
    )


def summary_of_json(reviews: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """:func:`summary` of reviews in their JSON form (``Review.to_json``, as stored by the
    server's analysis jobs and written by ``cardtable analyse --json``): the summary of one
    player over many analysed games."""
    return _count(
        [
            (
                bool(r["searched"]),
                bool(r.get("mistake")),
                r.get("mistake_kind") or "",
                float(r.get("loss") or 0.0),
                r.get("mistake_words"),
            )
            for r in reviews
        ]
    )


def _count(reviews: Sequence[tuple[bool, bool, str, float, Any]]) -> dict[str, Any]:
    searched = [r for r in reviews if r[0]]
    mistakes = [r for r in searched if r[1]]
    kinds: dict[str, int] = {}
    words: dict[str, Any] = {}
    for _, _, kind, _, said in mistakes:
        kinds[kind] = kinds.get(kind, 0) + 1
        if isinstance(said, Mapping):
            words.setdefault(kind, said)
    return {
        "decisions": len(reviews),
        "searched": len(searched),
        "mistakes": len(mistakes),
        "rate": round(len(mistakes) / len(searched), 4) if searched else 0.0,
        "loss": round(sum(r[3] for r in mistakes), 2),
        "by_kind": dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))),
        "kind_words": words,
    }
