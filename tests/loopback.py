"""One HTTP client for every request a test makes to its own servers on 127.0.0.1.

httpx's module functions (``httpx.get``) build a new client, and with it a TLS context, on every
call: about 30 ms of CPU, a third of a core for a test that polls every 50 ms, taken from the
server the test is waiting for. Plain HTTP to 127.0.0.1 needs no TLS. No connection is kept
alive, so a request never goes out on a connection to a server that stopped or restarted (the
cluster tests kill servers and start them again on the same port): each one connects afresh, as
``httpx.get`` did. httpx's client is safe to share between threads.
"""

from __future__ import annotations

import httpx

LOOPBACK = httpx.Client(verify=False, limits=httpx.Limits(max_keepalive_connections=0), timeout=10)
