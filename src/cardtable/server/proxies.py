"""Who the client is: the address every throttle and limit keys on, and which reverse proxies
may tell the server another one.

A connection's peer is the client, unless the peer is one of the operator's reverse proxies
(the ``trusted_proxies`` setting: addresses and networks, none by default). Only then is its
``X-Forwarded-For`` (and ``X-Forwarded-Proto``) believed, and of that chain only the right-most
address that is not itself a trusted proxy: everything left of it was written by the client and
may be forged. uvicorn applies this rule (its ``ProxyHeadersMiddleware``, switched on and fed by
:func:`uvicorn_proxy_options`) before the app sees the connection; :func:`client_address` is the
one place the app reads the result. With no trusted proxy the header is never looked at, so a
client that forges it throttles only itself.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable, Mapping
from typing import Any

from starlette.requests import HTTPConnection

log = logging.getLogger("cardtable.server")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(values: Iterable[str]) -> list[Network]:
    """The ``trusted_proxies`` setting as networks (an address is a network of one); a value
    that is neither names itself in the ``ValueError``."""
    networks: list[Network] = []
    for value in values:
        text = str(value).strip()
        if not text:
            continue
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise ValueError(
                f"setting trusted_proxies: {text!r} is not an IP address or network"
            ) from None
    return networks


def uvicorn_proxy_options(trusted: Iterable[str]) -> dict[str, Any]:
    """uvicorn's ``proxy_headers`` and ``forwarded_allow_ips`` for these trusted proxies: off
    when there are none (uvicorn's own default trusts 127.0.0.1, so anyone on this machine could
    claim any address)."""
    networks = trusted_networks(trusted)
    if not networks:
        return {"proxy_headers": False, "forwarded_allow_ips": []}
    return {"proxy_headers": True, "forwarded_allow_ips": [str(n) for n in networks]}


def client_address(conn: HTTPConnection) -> str | None:
    """The client's address of a request or WebSocket handshake: the peer, or what a trusted
    proxy forwarded (see the module docstring). ``None`` when the server does not know it."""
    return scope_address(conn.scope)


def scope_address(scope: Mapping[str, Any]) -> str | None:
    """:func:`client_address` of an ASGI scope (for middleware)."""
    client = scope.get("client")
    if not client:
        return None
    host = client[0]
    return str(host) if host else None


class UntrustedForwarding:
    """ASGI middleware that says once, in the log, that the server seems to run behind a proxy
    it does not trust: a peer on this machine or a private network sends ``X-Forwarded-For``
    while ``trusted_proxies`` is empty. Every client behind such a proxy then shares its address,
    so one stranger's wrong tokens throttle them all and loopback's exemptions spare them all
    (docs/server.md, "Running it in public"). A forged header from a public address is the
    client's own business and is not logged (a stranger cannot fill the log)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.warned = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if not self.warned and scope["type"] in ("http", "websocket"):
            self.check(scope)
        await self.app(scope, receive, send)

    def check(self, scope: Mapping[str, Any]) -> None:
        if not any(name == b"x-forwarded-for" for name, _ in scope.get("headers", ())):
            return
        peer = scope_address(scope)
        try:
            near = peer is not None and ipaddress.ip_address(peer).is_private
        except ValueError:
            return
        if near:
            self.warned = True
            log.warning(
                "a proxy at %s sends X-Forwarded-For but trusted_proxies is empty: every client "
                "behind it shares that address for the throttles and limits; set "
                "trusted_proxies (docs/server.md, Running it in public)",
                peer,
            )
