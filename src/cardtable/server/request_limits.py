"""Rate limits on the HTTP API per client address: bot registrations, and the expensive reads
(game lists and records, bot and player pages, leaderboards, tournaments' standings and
archives, the Kuh-Handel results) with the requests for an analysis, counted together. Past its
limit within its window an address gets 429 with ``Retry-After`` until the oldest of its
counted requests is a window old; a refused request is not counted and costs one dictionary
look-up (a Redis call in a cluster).

The counts are :class:`~cardtable.server.limits.TokenThrottle` windows, the same mechanism as
the wrong-token and sign-in throttles, so in a cluster they are shared through Redis like those
(:meth:`RequestLimits.share`). The address is :func:`~cardtable.server.proxies.scope_address`,
as for every throttle: the peer, or what a proxy in ``trusted_proxies`` forwarded. Wrong
organiser tokens are throttled in ``tournament_api.py`` with a window of their own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from cardtable.clock import SYSTEM, Clock
from cardtable.server.config import Settings
from cardtable.server.limits import (
    ASGIApp,
    Receive,
    Scope,
    Send,
    SharedCounts,
    TokenThrottle,
    exempt_addresses,
)
from cardtable.server.proxies import scope_address
from cardtable.server.refusals import body as refusal

#: GET paths whose answers cost the database and the event loop (lists, records, pages).
EXPENSIVE_READS = re.compile(
    r"^/(api/games(/.*)?|api/bots/[^/]+|api/players/[^/]+(/analyses)?|api/leaderboard"
    r"|api/tournaments/[^/]+(/(standings|games|archive))?|kuh-handel/get_results)/?$"
)


@dataclass
class Rule:
    """Requests of ``method`` on paths matching ``paths`` counted by ``throttle``."""

    method: str
    paths: re.Pattern[str]
    throttle: TokenThrottle
    what: str


def rules(settings: Settings, clock: Clock = SYSTEM) -> list[Rule]:
    """The limits of ``settings`` (a limit of 0 is none), their windows on ``clock``."""
    reads = TokenThrottle(settings.read_limit_per_address, settings.read_window_s, "read", clock)
    return [
        Rule(
            "POST",
            re.compile(r"^/api/bots/?$"),
            TokenThrottle(
                settings.registration_limit_per_address,
                settings.registration_window_s,
                "register",
                clock,
            ),
            "bot registrations",
        ),
        Rule("GET", EXPENSIVE_READS, reads, "reads of games, records, pages and leaderboards"),
        # asking for the expert's analysis: one address cannot fill the shared queue alone
        Rule("POST", re.compile(r"^/api/games/[^/]+/analysis/?$"), reads, "analysis requests"),
    ]


class RequestLimits:
    """The limits of ``settings`` (a limit of 0 is none) and the addresses they spare."""

    def __init__(self, settings: Settings, clock: Clock = SYSTEM) -> None:
        self.rules = rules(settings, clock)
        self.exempt = exempt_addresses(settings.rate_limit_exempt, "rate_limit_exempt")

    def share(self, shared: SharedCounts) -> None:
        """Count with every process of the cluster from now on."""
        for rule in self.rules:
            rule.throttle.share(shared)


class RequestRates:
    """ASGI middleware: the HTTP requests of :class:`RequestLimits` per client address."""

    def __init__(self, app: ASGIApp, limits: RequestLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            address = scope_address(scope)
            if address is not None and address not in self.limits.exempt:
                method, path = scope["method"], scope["path"]
                for rule in self.limits.rules:
                    if rule.method == method and rule.paths.match(path):
                        wait = await rule.throttle.retry_after_async(address)
                        if wait > 0:
                            await _too_many(send, rule, wait)
                            return
                        await rule.throttle.failed_async(address)  # one more counted
                        break
        await self.app(scope, receive, send)


async def _too_many(send: Send, rule: Rule, wait: float) -> None:
    seconds = int(wait + 0.999)
    limit = rule.throttle
    detail = (
        f"too many {rule.what} from your address ({limit.limit} within "
        f"{limit.window_s:g} s): try again in {seconds} s"
    )
    body = json.dumps(
        {**refusal("too_many_requests", detail, retry_after=seconds), "retry_after": seconds}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(seconds).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
