"""Throttles of wrong passwords and wrong tokens that a stranger cannot turn against an owner.

A lock per name lets anyone who knows the name lock its owner out, and a lock per address locks
out everyone behind a shared address (an office, a university, a proxy). So:

- **People** (:class:`SignInThrottle`): wrong passwords are slowed per (name, address) pair
  with growing delays (:class:`Backoff`: ``sign_in_backoff_s``, doubling with each wrong
  password, at most ``sign_in_backoff_max_s``); the owner signing in from another address is
  not slowed at all. Against one address spraying many names, its wrong passwords over all
  names are capped too (``sign_in_limit_per_address`` per ``sign_in_window_s``).
- **Bots** (:class:`BotLogins`): a wrong token is slowed per (name, token) pair the same way
  (``bad_token_backoff_s`` doubling, at most ``bad_token_backoff_max_s``): a bot retrying a
  stale token waits longer each time, and the owner's right token is never held up by it. An
  address that tries many names or tokens is capped (``bad_token_limit`` wrong tokens per
  ``bad_token_window_s``, :class:`~cardtable.server.limits.TokenThrottle`); one bot with a
  stale token makes far fewer than that (its delays), so the other bots behind its address
  go on.

A pair's delays start over once it has made no wrong attempt for a whole window after its last
delay ended, and a successful sign-in forgets its pair at once. In a cluster every process
counts in one place (Redis, :mod:`cardtable.server.shared_limits`); alone, in memory, as the
other throttles of :mod:`cardtable.server.limits`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from cardtable.clock import SYSTEM, Clock
from cardtable.server import names
from cardtable.server.limits import SharedCounts, TokenThrottle

if TYPE_CHECKING:
    from cardtable.server.config import Settings

log = logging.getLogger("cardtable.server.lockouts")


class Backoff:
    """Growing delays per key: after its n-th wrong attempt a key waits ``base_s * 2**(n-1)``
    seconds (at most ``max_s``) before it may try again; the count starts over when the key has
    been quiet for ``window_s`` after its last delay, or is :meth:`forget`-ten.

    The methods that ask Redis in a cluster (:meth:`share`) block: call them from a thread, or
    use the ``_async`` ones on the event loop. Should Redis fail, the process's own counts
    (kept all along) decide."""

    #: Keys remembered at most in memory (the oldest are forgotten first).
    MAX_KEYS = 100_000

    def __init__(
        self, base_s: float, max_s: float, window_s: float, kind: str, clock: Clock = SYSTEM
    ) -> None:
        #: the time the delays are counted on (:mod:`cardtable.clock`)
        self.clock = clock
        self.base_s = base_s
        self.max_s = max_s
        self.window_s = window_s
        #: the name of these counts among the cluster's (``P:backoff:KIND:KEY``)
        self.kind = kind
        self.shared: SharedCounts | None = None
        #: key -> (wrong attempts, may try again at, forgotten at) on the monotonic clock
        self._keys: OrderedDict[str, tuple[int, float, float]] = OrderedDict()

    def share(self, shared: SharedCounts) -> None:
        self.shared = shared

    @property
    def on(self) -> bool:
        return self.base_s > 0

    def delay(self, failures: int) -> float:
        """The wait after the ``failures``-th wrong attempt."""
        return float(min(self.max_s, self.base_s * 2 ** min(failures - 1, 62)))

    def retry_after(self, key: str) -> float:
        """Seconds until ``key`` may try again (0: now)."""
        if not self.on:
            return 0.0
        return self._ask(key, "check")

    def failed(self, key: str) -> float:
        """One more wrong attempt of ``key``: the seconds it must now wait."""
        if not self.on:
            return 0.0
        self._local(key, "fail")
        return self._ask(key, "fail", local_done=True)

    def forget(self, key: str) -> None:
        """``key`` succeeded: its delays start over."""
        if self.on:
            self._local(key, "forget")
            self._ask(key, "forget", local_done=True)

    async def retry_after_async(self, key: str) -> float:
        if self.shared is None:
            return self.retry_after(key)
        return await asyncio.to_thread(self.retry_after, key)

    async def failed_async(self, key: str) -> float:
        if self.shared is None:
            return self.failed(key)
        return await asyncio.to_thread(self.failed, key)

    def _ask(self, key: str, op: str, local_done: bool = False) -> float:
        if self.shared is not None:
            try:
                return self.shared.backoff(
                    self.kind, key, op, self.base_s, self.max_s, self.window_s
                )
            except Exception as exc:
                log.warning("shared %s counts unavailable (%s): this process's own", self.kind, exc)
        if local_done and op == "forget":
            return 0.0
        return self._local(key, "check" if local_done else op)

    def _local(self, key: str, op: str) -> float:
        now = self.clock.monotonic()
        if op == "forget":
            self._keys.pop(key, None)
            return 0.0
        count, until, expires = self._keys.get(key, (0, 0.0, 0.0))
        if count and now >= expires:
            count, until = 0, 0.0
            self._keys.pop(key, None)
        if op == "fail":
            count += 1
            wait = self.delay(count)
            until = now + wait
            self._keys[key] = (count, until, until + self.window_s)
            self._keys.move_to_end(key)
            if len(self._keys) > self.MAX_KEYS:
                self._keys.popitem(last=False)
        return max(0.0, until - now)


def _name_key(name: str) -> str:
    try:
        return names.fold(" ".join(name.split()))
    except Exception:  # any text at all is counted somewhere
        return name


class SignInThrottle:
    """People's wrong passwords: growing delays per (name, address), a cap per address over
    all names, and sign-ups per address (each costs an argon2 hash). One per app; its methods
    run on FastAPI's thread pool (they may ask Redis)."""

    def __init__(self, settings: Settings, clock: Clock = SYSTEM) -> None:
        window = settings.sign_in_window_s
        self.window_s = window
        self.by_pair = Backoff(
            settings.sign_in_backoff_s,
            settings.sign_in_backoff_max_s,
            window,
            "sign-in-pair",
            clock,
        )
        self.by_address = TokenThrottle(
            settings.sign_in_limit_per_address, window, "sign-in-addr", clock
        )
        #: every sign-up attempt that passed CSRF, per address (each costs an argon2 hash)
        self.sign_ups = TokenThrottle(settings.sign_up_limit_per_address, window, "sign-up", clock)
        #: pair -> (its lock, attempts holding or waiting for it) (:meth:`one_at_a_time`)
        self._in_flight: dict[str, tuple[threading.Lock, int]] = {}
        self._guard = threading.Lock()

    def share(self, shared: SharedCounts) -> None:
        """Count with every process of the cluster (Redis) from now on."""
        self.by_pair.share(shared)
        self.by_address.share(shared)
        self.sign_ups.share(shared)

    @staticmethod
    def pair(name: str, address: str | None) -> str:
        return f"{_name_key(name)}|{address or '?'}"

    def retry_after(self, name: str, address: str | None) -> tuple[float, str]:
        """Seconds until this name may sign in from this address, and why (0: now)."""
        by_address = self.by_address.retry_after(address)
        if by_address > 0:
            return by_address, (
                f"{self.by_address.limit} from your address within {self.window_s:g} s"
            )
        by_pair = self.by_pair.retry_after(self.pair(name, address))
        return by_pair, "for this name from your address; each one doubles the wait"

    @contextmanager
    def one_at_a_time(self, name: str, address: str | None) -> Iterator[None]:
        """Attempts of one (name, address) pair in this process run one after the other: a
        second one checks its delay only once the first was counted. Checked side by side, ten
        wrong passwords sent at once were all looked at (the delay counts only after the
        argon2 check); now the first is, and the nine others wait its check and are refused."""
        key = self.pair(name, address)
        with self._guard:
            lock, users = self._in_flight.get(key, (threading.Lock(), 0))
            self._in_flight[key] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._in_flight[key]
                if users <= 1:
                    del self._in_flight[key]
                else:
                    self._in_flight[key] = (lock, users - 1)

    def failed(self, name: str, address: str | None) -> None:
        self.by_pair.failed(self.pair(name, address))
        self.by_address.failed(address)

    def succeeded(self, name: str, address: str | None) -> None:
        self.by_pair.forget(self.pair(name, address))


class BotLogins:
    """Bots' wrong tokens (the native hello and the Kuh-Handel handshake): growing delays per
    (name, token), a cap per address over all of them. Its methods run on the event loop."""

    def __init__(self, settings: Settings, clock: Clock = SYSTEM) -> None:
        self.by_token = Backoff(
            settings.bad_token_backoff_s,
            settings.bad_token_backoff_max_s,
            settings.bad_token_window_s,
            "bad-token-pair",
            clock,
        )
        self.by_address = TokenThrottle(
            settings.bad_token_limit, settings.bad_token_window_s, clock=clock
        )

    def share(self, shared: SharedCounts) -> None:
        self.by_token.share(shared)
        self.by_address.share(shared)

    @staticmethod
    def pair(name: str, token: str) -> str:
        # the token itself is never kept, only a digest of it
        digest = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:24]
        return f"{_name_key(name)}|{digest}"

    async def retry_after(self, name: str, token: str, address: str | None) -> tuple[float, str]:
        """Seconds until this name may log in with this token from this address, and why."""
        by_address = await self.by_address.retry_after_async(address)
        if by_address > 0:
            return by_address, (
                f"{self.by_address.limit} wrong tokens from your address within "
                f"{self.by_address.window_s:g} s"
            )
        by_token = await self.by_token.retry_after_async(self.pair(name, token))
        return by_token, "this token was wrong for this name; each try doubles the wait"

    async def failed(self, name: str, token: str, address: str | None) -> None:
        await self.by_token.failed_async(self.pair(name, token))
        await self.by_address.failed_async(address)
