"""One Kuh-Handel game: our engine (``competition`` rules) spoken in the reference protocol.

:class:`KhMatch` asks the engine for its open request, puts it to the seat in the reference's
words (``DrawOrTrade``, ``ProvideBidding``, …), corrects the answer the way the reference does
(§4.4) and applies it; the engine's events become ``GameUpdate`` messages, public ones first,
then the private ones. House seats are engine agents and see no wire at all.

How the two vocabularies meet:

===============================  ==============================================================
engine request                   reference exchange
===============================  ==============================================================
``turn`` (deck not empty)        ``DrawOrTrade`` → ``Draw`` = auction, ``Trade(InitialTrade)`` =
                                 challenge now, and its ``amount`` answers the next ``offer``
``turn`` (end phase)             ``Trade`` → ``InitialTrade`` (same split)
``offer``                        no message: the notes of the ``InitialTrade``
``bid``                          ``ProvideBidding`` → ``Bid(n)`` / ``Pass``
``sell_or_buy``                  ``BuyOrSell`` → ``Sell`` / ``Buy``
``pay``                          ``SendMoney`` → ``Amount(notes)`` / ``WasBluff``
(payer cannot pay: exposure)     ``SendMoney`` too (the answer cannot change it), then
                                 ``ExposePlayer`` and the auction again
``respond``                      ``RespondToTrade`` → ``Accept`` / ``CounterOffer(notes)``
===============================  ==============================================================

Guarantees beyond the reference: every game ends with ``End`` to every connected seat and a
result (a cap or an internal error still ends it, with a ranking); nothing a client sends can
raise out of :meth:`KhMatch.run`; a seat whose client is gone is played by the fallback.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cardtable.core import ActionError, Agent, Event, GameInfo, Request, Result, Termination
from cardtable.core.record import Record
from cardtable.games.kuhhandel import COMPETITION, KuhhandelGame, RuleSet, new_game
from cardtable.games.kuhhandel import actions as A
from cardtable.games.kuhhandel.money import cheapest_payment, payment_problem, to_notes
from cardtable.server.compat import wire
from cardtable.server.compat.connection import GONE, OK, TIMEOUT, BotConnection

log = logging.getLogger("cardtable.server.compat")

#: How long the server lets a client close first after ``End`` (it sends no reply to End).
END_LINGER_S = 1.0


@dataclass(frozen=True)
class Fault:
    """Something a seat's client did wrong; ``code`` is timeout, not_json, bad_reply,
    disconnected, rectified or engine_refused."""

    seat: int
    #: decisions of the match before this one (every seat's; the ``move`` of the fault API)
    decision: int
    request_kind: str
    code: str
    reason: str
    #: the seat's own decision number, from 1, as ``cardtable replay --at`` counts it
    seat_decision: int = 0


class Box:
    """An engine agent and the events it has been shown (house seats and fallbacks)."""

    def __init__(self, agent: Agent, seat: int, info: GameInfo, threaded: bool) -> None:
        self.agent = agent
        self.seat = seat
        self.info = info
        self.cursor = 0
        self.started = False
        self.threaded = threaded

    def _think(self, events: Sequence[Event], obs: Any, request: Request) -> Any:
        if not self.started:
            self.started = True
            start = getattr(self.agent, "start", None)
            if start is not None:
                start(self.seat, self.info)
        hook = getattr(self.agent, "event", None)
        if hook is not None:
            for ev in events:
                hook(ev)
        return self.agent.act(obs, request)

    async def decide(self, game: KuhhandelGame, request: Request) -> Any:
        events = game.events(self.cursor)
        self.cursor += len(events)
        mine = [e for e in events if e.visible_to(self.seat)]
        obs = game.observe(self.seat)
        if self.threaded:
            return await asyncio.to_thread(self._think, mine, obs, request)
        return self._think(mine, obs, request)


@dataclass(eq=False)
class Player:
    """One seat: a connected client (``conn``) or a house bot (``house``)."""

    name: str
    conn: BotConnection | None = None
    house: Box | None = None
    fallback: Box | None = None
    label: str = ""
    player_id: int | None = None
    illegal: list[str] = field(default_factory=list)
    taken_over: bool = False

    @property
    def warnings(self) -> bool:
        return self.conn is not None and self.conn.warnings

    @property
    def online(self) -> bool:
        return self.conn is not None and self.conn.alive


AgentFactory = Callable[[int], tuple[Agent, bool]]

#: What a :class:`KhWords` says for an engine event: ``(seats, message, reply type)``; the reply
#: type is ``NoAction`` (a ``GameUpdate``) or ``SendMoney`` (an exposed payer is asked first).
Words = tuple[list[int], dict[str, Any], str]


class KhWords:
    """The two vocabularies of one game: the engine's events become the reference's messages
    (and whom they go to), its requests the reference's questions, and a client's reply, corrected
    as the reference does (§4.4), an engine action.

    It follows the auction under way from the events it is shown, in order: :class:`KhMatch`
    shows it every event; at a native table (:mod:`cardtable.server.compat.seat`) each
    Kuh-Handel seat has its own, shown the events that seat may see. Corrections read the game's
    state, so :meth:`correct` must run while the request it answers is still open.
    ``on_rectified(seat, kind, text)`` is told of every correction (``rectified`` text).
    """

    def __init__(
        self,
        game: KuhhandelGame,
        names: Sequence[str],
        on_rectified: Callable[[int, str, str], None],
    ) -> None:
        self.game = game
        self.names = list(names)
        self.seat_of = {n: s for s, n in enumerate(self.names)}
        self.on_rectified = on_rectified
        #: The notes of a seat's InitialTrade, for the engine's ``offer`` that follows.
        self.planned: dict[int, tuple[int, ...]] = {}
        # the auction under way, as the reference describes it
        self._host = -1
        self._card = -1
        self._bids: list[tuple[int, int]] = []
        self._high = 0
        self._high_bidder = -1
        self._buy = False
        self._last_trade: dict[str, Any] = {}

    @property
    def species(self) -> Sequence[Any]:
        return self.game.rules.species

    def value(self, k: int) -> int:
        return int(self.species[k].value)

    def wallet(self, seat: int) -> tuple[int, ...]:
        return to_notes(self.game.wallets[seat], self.game.rules.notes)

    def rounds(self) -> dict[str, Any]:
        return wire.auction_round(
            self.names[self._host],
            self.value(self._card),
            [(self.names[s], a) for s, a in self._bids],
        )

    def start(self, notes: Sequence[int]) -> dict[str, Any]:
        """The ``Start`` update: the animal sets, the names and the starting wallet."""
        return wire.start(
            [wire.animal_set(s.value, s.payouts) for s in self.species], self.names, notes
        )

    def _everyone(self, *but: int) -> list[int]:
        return [s for s in range(len(self.names)) if s not in but]

    # ------------------------------------------------------------------ events → updates
    def words(self, ev: Event) -> list[Words]:
        """Follow ``ev`` and say what it means on the wire, to whom (in this order)."""
        d = ev.data
        kind = ev.kind
        if kind == "auction":
            self._host, self._card, self._bids = d["seat"], d["card"], []
        elif kind == "bid":
            self._bids.append((d["seat"], d["amount"]))
        elif kind == "pass":
            self._bids.append((d["seat"], 0))
        elif kind == "closed":
            self._high, self._high_bidder = d["high"], d["high_bidder"]
        elif kind == "decision":
            self._buy = bool(d["buy"])
        elif kind == "payout":
            return [(list(d["seats"]), wire.inflation(d["note"]), "NoAction")]
        elif kind == "no_bid":
            message = wire.no_biddings(self.names[d["seat"]], self.value(d["card"]))
            return [(self._everyone(), message, "NoAction")]
        elif kind == "payment":
            payer, payee = d["from"], d["to"]
            msg = wire.normal_auction(
                self.names[payer],
                self.names[payee],
                self.rounds(),
                count=d["count"],
                amount=d["amount"],
            )
            return [(self._everyone(payer, payee), msg, "NoAction")]
        elif kind == "payment_notes":
            payer, payee = d["from"], d["to"]
            msg = wire.normal_auction(
                self.names[payer], self.names[payee], self.rounds(), notes=d["notes"]
            )
            return [([payer, payee], msg, "NoAction")]
        elif kind == "exposed":
            payer = d["seat"]
            out: list[Words] = []
            # the payer cannot pay: the reference still sends SendMoney first; whatever the
            # answer, it becomes WasBluff (§3.5)
            payee = self._high_bidder if self._buy else self._host
            if payee >= 0:
                out.append(([payer], wire.send_money(self.names[payee], self._high), "SendMoney"))
            out.append((self._everyone(), wire.expose(self.names[payer], d["notes"]), "NoAction"))
            return out
        elif kind == "trade":
            c, o = d["challenger"], d["opponent"]
            msg = wire.trade(
                self.names[c],
                self.names[o],
                self.names[d["winner"]],
                self.value(d["species"]),
                d["cards"],
                offer=d["offer_count"],
                counter=d["counter_count"],
            )
            self._last_trade = dict(d)
            return [(self._everyone(c, o), msg, "NoAction")]
        elif kind == "trade_notes":
            c, o = d["challenger"], d["opponent"]
            last = self._last_trade
            msg = wire.trade(
                self.names[c],
                self.names[o],
                self.names[last["winner"]],
                self.value(last["species"]),
                last["cards"],
                offer=tuple(d["offer"]),
                counter=None if d["counter"] is None else tuple(d["counter"]),
            )
            return [([c, o], msg, "NoAction")]
        return []

    def bluffed(self, seat: int, reply: Any) -> None:
        """An exposed payer's answer to its ``SendMoney``: whatever it was, ``WasBluff``."""
        self._rectify(seat, "pay", reply, ("WasBluff",))

    # ------------------------------------------------------------------ questions
    def question(self, request: Request) -> tuple[dict[str, Any], str] | None:
        """The reference's question for ``request`` and its reply type (``None``: there is
        none, e.g. an ``offer`` not planned by an ``InitialTrade``)."""
        kind = request.kind
        info = request.info or {}
        if kind == "turn":
            if A.AUCTION in (request.choices or ()):
                return wire.state("DrawOrTrade"), "PlayerTurnDecision"
            return wire.state("Trade"), "InitialTrade"
        if kind == "bid":
            return wire.provide_bidding(self.rounds()), "Bidding"
        if kind == "sell_or_buy":
            return wire.buy_or_sell(self.rounds()), "AuctionDecision"
        if kind == "pay":
            return wire.send_money(self.names[info["to"]], int(info["amount"])), "SendMoney"
        if kind == "respond":
            return (
                wire.respond_to_trade(
                    self.names[info["challenger"]],
                    self.value(info["species"]),
                    int(info["cards"]),
                    int(info["offer_notes"]),
                ),
                "TradeOpponentDecision",
            )
        return None

    def _rectify(self, seat: int, kind: str, original: Any, corrected: Any) -> None:
        if wire.same(original, corrected):
            return
        self.on_rectified(seat, kind, wire.rectified(self.names[seat], original, corrected))

    # ------------------------------------------------------------------ corrections (§4.4)
    def _notes_for(self, seat: int, wanted: Sequence[int]) -> tuple[int, ...]:
        """Money of a trade offer or counter-offer: as sent if held, the whole wallet if the
        seat cannot afford the sum, else the cheapest notes covering the sum."""
        have = list(self.wallet(seat))
        total = sum(wanted)
        if total > sum(have):
            return tuple(have)
        pool = list(have)
        for v in wanted:
            if v not in pool:
                break
            pool.remove(v)
        else:
            return tuple(sorted(wanted))
        notes = cheapest_payment(self.game.wallets[seat], self.game.rules.notes, total)
        return tuple(have) if notes is None else notes

    def _first_trade(self, seat: int) -> tuple[int, int] | None:
        herds = self.game.herds
        order = sorted(range(len(self.species)), key=self.value)
        for other in range(len(self.names)):
            if other == seat:
                continue
            for k in order:
                if herds[seat][k] and herds[other][k]:
                    return other, k
        return None

    def _trade(self, seat: int, it: wire.InitialTrade) -> tuple[A.Challenge, wire.InitialTrade]:
        herds = self.game.herds
        other = self.seat_of.get(it.opponent, -1)
        k = next((i for i, s in enumerate(self.species) if s.value == it.animal), -1)
        if other >= 0 and other != seat and k >= 0 and herds[seat][k] and herds[other][k]:
            money = self._notes_for(seat, it.amount)
        else:
            first = self._first_trade(seat)
            assert first is not None, "asked to trade without a possible trade"
            other, k = first
            money = ()
        count = min(herds[seat][k], herds[other][k])
        corrected = wire.InitialTrade(self.names[other], self.value(k), count, money)
        return A.Challenge(other, k), corrected

    def correct(self, seat: int, request: Request, reply: Any) -> A.Action:
        """The engine action for a client's decision, corrected as the reference does."""
        kind = request.kind
        info = request.info or {}
        choices = request.choices or ()
        if kind == "turn":
            it: wire.InitialTrade | None
            if isinstance(reply, wire.InitialTrade):
                it = reply
            elif reply[0] == "Trade":
                it = reply[1]
            else:
                it = None
            trades = [c for c in choices if isinstance(c, A.Challenge)]
            if it is None or not trades:
                if A.AUCTION in choices:
                    self._rectify(seat, kind, reply, ("Draw",))
                    return A.AUCTION
                # the end phase: Draw is no answer to Trade (a hand-written client): first trade
                it = wire.InitialTrade("", -1, 0, ())
            challenge, corrected = self._trade(seat, it)
            if isinstance(reply, wire.InitialTrade):
                self._rectify(seat, kind, reply, corrected)
            else:
                self._rectify(seat, kind, reply, ("Trade", corrected))
            self.planned[seat] = corrected.amount
            return challenge
        if kind == "bid":
            if reply[0] == "Pass":
                return A.PASS
            amount = int(reply[1])
            cap = info.get("max")
            if cap is not None:
                amount = min(amount, int(cap))
            if amount < int(info.get("min", 1)):
                self._rectify(seat, kind, reply, ("Pass",))
                return A.PASS
            self._rectify(seat, kind, reply, ("Bid", amount))
            return A.Bid(amount)
        if kind == "sell_or_buy":
            if reply[0] == "Buy" and A.BUY in choices:
                return A.BUY
            self._rectify(seat, kind, reply, ("Sell",))
            return A.SELL
        if kind == "pay":
            amount = int(info["amount"])
            notes = self._payment(seat, reply, amount)
            self._rectify(seat, kind, reply, ("Amount", notes))
            return A.Pay(notes)
        if kind == "respond":
            if reply[0] == "Accept":
                return A.ACCEPT
            notes = self._notes_for(seat, reply[1])
            self._rectify(seat, kind, reply, ("CounterOffer", notes))
            return A.Counter(notes)
        raise ActionError(f"no reference question for {kind!r}")

    def _payment(self, seat: int, reply: Any, amount: int) -> tuple[int, ...]:
        """§3.5, without the quirks: a held, covering payment is kept (minus notes it does not
        need: no change is given here); anything else becomes the cheapest payment."""
        if reply[0] == "Amount" and sum(reply[1]) >= amount:
            notes = sorted(reply[1])
            pool = list(self.wallet(seat))
            held = True
            for v in notes:
                if v not in pool:
                    held = False
                    break
                pool.remove(v)
            if held:
                while notes and sum(notes) - notes[0] >= amount:
                    notes.pop(0)
                if payment_problem(notes, amount) is None:
                    return tuple(notes)
        cheapest = cheapest_payment(self.game.wallets[seat], self.game.rules.notes, amount)
        return cheapest if cheapest is not None else self.wallet(seat)


class KhMatch:
    """A game between ``players`` (seat order = turn order). Run it with :meth:`run`."""

    def __init__(
        self,
        players: Sequence[Player],
        *,
        seed: int,
        timeout_s: float,
        fallback: AgentFactory,
        max_timeouts: int = 3,
        rules: RuleSet = COMPETITION,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.players = list(players)
        self.seed = seed
        self.timeout_s = timeout_s
        self.max_timeouts = max_timeouts
        self.game = new_game(rules, len(self.players), seed)
        self.names = [p.name for p in self.players]
        self.seat_of = {p.name: s for s, p in enumerate(self.players)}
        #: What the record's ``meta`` carries beyond the protocol and the labels (a
        #: tournament's slot, seating and bot seeds).
        self.meta = dict(meta or {})
        self.faults: list[Fault] = []
        #: Told of each fault as it happens (the lobby stores it at once, ``fault_log.py``).
        self.on_fault: Callable[[Fault], None] | None = None
        self.decisions = 0
        self.messages = 0
        self.started_at = time.monotonic()
        self.ended_at: float | None = None
        self.result: Result | None = None
        self._fallback_factory = fallback
        self._cursor = 0
        self.words = KhWords(self.game, self.names, self._rectified)
        rules_json = self.game.rules_json()
        for seat, p in enumerate(self.players):
            info = GameInfo("kuhhandel", rules_json, len(self.players), seat, tuple(self.names))
            if p.conn is not None:
                agent, threaded = fallback(seat)
                p.fallback = Box(agent, seat, info, threaded)
            elif p.house is not None:
                p.house.info = info
                p.house.seat = seat

    # ------------------------------------------------------------------ helpers
    def wallet(self, seat: int) -> tuple[int, ...]:
        return self.words.wallet(seat)

    def fault(self, seat: int, kind: str, code: str, reason: str) -> None:
        mine = sum(1 for s, _a in self.game.history() if s == seat) + 1
        fault = Fault(seat, self.decisions, kind, code, reason, mine)
        self.faults.append(fault)
        if self.on_fault is not None:
            self.on_fault(fault)

    def _rectified(self, seat: int, kind: str, text: str) -> None:
        self.fault(seat, kind, "rectified", text)
        p = self.players[seat]
        if p.warnings:
            p.illegal.append(text)

    def ranking(self) -> list[tuple[str, int]]:
        """Names and points, best first (places from the engine: ties broken by money)."""
        game = self.game
        if self.result is not None and self.result.termination is not Termination.ABORTED:
            places = self.result.places
            scores = [int(s) for s in self.result.scores]
        else:
            scores = [game.score(s) for s in range(game.seats)]
            places = tuple(sorted(scores, reverse=True).index(x) for x in scores)
        return ranking(self.names, scores, places)

    def record(self) -> Record:
        rec: Record = self.game.record()
        return replace(
            rec,
            names=tuple(self.names),
            meta={
                "lobby_protocol": "kuh-handel",
                "labels": [p.label for p in self.players],
                # as a native table's record lists them
                "faults": [
                    {
                        "seat": f.seat,
                        "decision": f.decision,
                        "request_kind": f.request_kind,
                        "code": f.code,
                        "reason": f.reason,
                    }
                    for f in self.faults
                ],
                **self.meta,
            },
        )

    # ------------------------------------------------------------------ messaging
    async def _ask(self, seat: int, message: dict[str, Any], expected: str) -> Any:
        """Put a question to a connected seat: its parsed decision, or ``None`` (the fallback
        decides: timeout, unusable reply, connection gone)."""
        p = self.players[seat]
        conn = p.conn
        if conn is None:
            return None
        if not conn.alive:
            # gone before this question (a dropped socket the reader noticed): a fault all the
            # same, or a bot could vanish and have the fallback play its rated game unseen
            self._gone(seat)
            return None
        self.messages += 1
        status, text = await conn.ask(message, self.timeout_s)
        kind = message["type"]
        if status == OK:
            assert text is not None
            try:
                return wire.parse_reply(text, expected)
            except wire.BadReply as exc:
                self.fault(seat, kind, "bad_reply", str(exc)[:500])
                return None
            except ValueError as exc:  # not JSON: the reference closes the connection
                self.fault(seat, kind, "not_json", str(exc)[:500])
                await conn.close(1003)
                self._gone(seat)
                return None
        if status == TIMEOUT:
            self.fault(seat, kind, "timeout", f"no reply within {self.timeout_s * 1000:.0f} ms")
            if conn.timeouts >= self.max_timeouts:
                await conn.close(1008)
                self._gone(seat)
            return None
        assert status == GONE
        self._gone(seat)
        return None

    def _gone(self, seat: int) -> None:
        p = self.players[seat]
        if not p.taken_over:
            p.taken_over = True
            if p.conn is not None and p.conn.server_leaving():
                return  # this process is stopping: the game is aborted, no fault of the bot's
            why = p.conn.why_gone if p.conn is not None else ""
            self.fault(seat, "connection", "disconnected", why or "connection lost")

    async def _tell(self, seats: Sequence[int], message: dict[str, Any]) -> None:
        """A GameUpdate to ``seats`` at once; waits for every acknowledgement (§3.10)."""
        targets = [s for s in seats if self.players[s].online]
        if targets:
            await asyncio.gather(*(self._ask(s, message, "NoAction") for s in targets))

    def _everyone(self, *but: int) -> list[int]:
        return [s for s in range(len(self.players)) if s not in but]

    # ------------------------------------------------------------------ events → updates
    async def _flush(self) -> None:
        game = self.game
        while self._cursor < len(game.events()):
            ev = game.events()[self._cursor]
            self._cursor += 1
            for seats, message, expected in self.words.words(ev):
                if expected == "SendMoney":
                    await self._bluff(seats[0], message)
                else:
                    await self._tell(seats, message)

    async def _bluff(self, payer: int, message: dict[str, Any]) -> None:
        """The payer cannot pay: the reference still sends ``SendMoney`` first; whatever the
        answer, it becomes ``WasBluff`` (§3.5)."""
        if self.players[payer].conn is None:
            return
        reply = await self._ask(payer, message, "SendMoney")
        if reply is not None:
            self.words.bluffed(payer, reply)

    # ------------------------------------------------------------------ deciding
    async def _decide(self, seat: int, request: Request) -> A.Action:
        p = self.players[seat]
        if p.house is not None:
            action: A.Action = await p.house.decide(self.game, request)
            return action
        planned = self.words.planned.pop(seat, None)
        if request.kind == "offer" and planned is not None:
            return A.Offer(planned)
        question = self.words.question(request)
        if question is not None and p.conn is not None:  # _ask: a fault if it is gone
            message, expected = question
            reply = await self._ask(seat, message, expected)
            if reply is not None:
                try:
                    return self.words.correct(seat, request, reply)
                except Exception as exc:  # a correction bug must not end the game
                    log.exception("kuh-handel: correcting %r failed", reply)
                    self.fault(seat, request.kind, "bad_reply", f"uncorrectable: {exc!r}")
        assert p.fallback is not None
        fallback: A.Action = await p.fallback.decide(self.game, request)
        return fallback

    def _safe(self, seat: int, request: Request) -> A.Action:
        """A legal answer without any bot (the last resort)."""
        info = request.info or {}
        game = self.game
        if request.choices:
            choice: A.Action = request.choices[0]
            return choice
        if request.kind == "bid":
            return A.PASS
        if request.kind == "pay":
            notes = cheapest_payment(game.wallets[seat], game.rules.notes, int(info["amount"]))
            return A.Pay(notes or ())
        if request.kind == "offer":
            return A.Offer(())
        if request.kind == "respond":
            return A.ACCEPT
        raise RuntimeError(f"no safe answer to {request.kind}")

    async def _step(self, request: Request) -> None:
        seat = request.seat
        game = self.game
        try:
            action = await self._decide(seat, request)
            game.apply(seat, action)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            reason = exc.reason if isinstance(exc, ActionError) else repr(exc)
            if self.players[seat].house is None:
                self.fault(seat, request.kind, "engine_refused", reason[:500])
            log.warning(
                "kuh-handel seat %d %s: %s; a safe answer is used", seat, request.kind, reason
            )
            self.words.planned.pop(seat, None)
            game.apply(seat, self._safe(seat, request))
        self.decisions += 1

    # ------------------------------------------------------------------ the game
    async def run(self, on_end: Callable[[], Awaitable[None]] | None = None) -> Result:
        """Play the game to its end and send ``End``; returns the result (``ABORTED`` only if
        the engine itself failed; the clients still get ``End``).

        ``on_end`` runs once the result is known and before any client is told: the lobby stores
        the game there, so a client that asks ``get_results`` right after its ``End`` finds it.
        """
        game = self.game
        try:
            start = self.words.start(self.wallet(0))
            await self._tell(self._everyone(), start)
            await self._flush()
            while True:
                request = game.next_request()
                if request is None:
                    break
                await self._step(request)
                await self._flush()
            self.result = game.result()
        except asyncio.CancelledError:
            game.abort("the server stopped")
            self.result = game.result()
            await self._close_all(1012)
            raise
        except Exception as exc:
            log.exception("kuh-handel game failed; it ends with the current points")
            game.abort(f"internal error: {exc!r}")
            self.result = game.result()
        self.ended_at = time.monotonic()
        if on_end is not None:
            try:
                await on_end()
            except Exception:  # the clients still get End; the lobby logged what failed
                log.exception("kuh-handel game: recording the end failed")
        ranking = self.ranking()
        await asyncio.gather(
            *(
                p.conn.finish(wire.end(ranking, p.illegal), END_LINGER_S)
                for p in self.players
                if p.conn is not None and p.conn.alive
            )
        )
        await self._close_all(1000)
        return self.result

    async def _close_all(self, code: int) -> None:
        for p in self.players:
            if p.conn is not None:
                await p.conn.close(code)

    @property
    def duration(self) -> float:
        end = self.ended_at if self.ended_at is not None else time.monotonic()
        return max(end - self.started_at, 1e-9)


def ranking(
    names: Sequence[str], scores: Sequence[int], places: Sequence[int]
) -> list[tuple[str, int]]:
    """``End``'s ranking: names and points, best first (by place, then seat)."""
    order = sorted(range(len(names)), key=lambda s: (places[s], s))
    return [(names[s], int(scores[s])) for s in order]
