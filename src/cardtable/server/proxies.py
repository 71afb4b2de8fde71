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
from collections.abc import Iterable, Mapping
from typing import Any

from starlette.requests import HTTPConnection

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
