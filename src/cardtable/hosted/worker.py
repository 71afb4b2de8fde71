"""One hosted-bot worker: fetch, build, validate, play, send logs (see the package docstring)."""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import shlex
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from cardtable.sandbox import BuildError, Limits, build, jail_argv, run_command
from cardtable.server.submissions.archive import (
    ArchiveError,
    ArchiveLimits,
    read_archive,
    write_files,
)
from cardtable.server.submissions.login import hosted_token

log = logging.getLogger("cardtable.hosted")

#: Seconds a worker's lease on a bot lasts in Redis unless renewed (renewed every third of it
#: while the worker plays the bot): how long a killed worker's bots wait for another worker.
LEASE_S = 60

#: Renew the lease only while this worker holds it (a compare-and-set: the lease may have run
#: out and another worker taken it); delete it likewise.
_RENEW = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('expire', KEYS[1], ARGV[2]) else return 0 end"""
_RELEASE = """if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1]) else return 0 end"""

#: Bytes of one game's stderr sent to the server, its last ones (under the server's default
#: body limit of 64 KiB; the server keeps at most ``hosted_log_bytes``).
LOG_BYTES = 60 * 1024


@dataclass(frozen=True)
class WorkItem:
    """A chosen version, as ``GET /api/hosted/work`` lists it."""

    bot: str
    version: int
    language: str
    entry: str
    sha256: str
    status: str
    archive_url: str

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorkItem:
        return cls(
            str(data["bot"]),
            int(data["version"]),
            str(data["language"]),
            str(data["entry"]),
            str(data["sha256"]),
            str(data["status"]),
            str(data["archive_url"]),
        )


@dataclass
class Prepared:
    """A version unpacked and built on this machine: the ``cmd:`` reference that runs it."""

    item: WorkItem
    folder: Path
    build_dir: Path
    log_file: Path
    build_output: str = ""
    error: str | None = None

    def command(self, limits: Limits) -> list[str]:
        inside = run_command(self.item.language, self.item.entry)
        return jail_argv(self.folder, inside, limits, build_dir=self.build_dir)

    def ref(self, limits: Limits) -> str:
        """``cmd[cwd=...,log=...,keep=game]:COMMAND``: the program for the client library; a
        new sandbox every game (the CPU limit counts per game, and ``bwrap --die-with-parent``
        would kill a process kept past the game's thread in the client)."""
        options = f"cwd={self.folder},log={self.log_file},keep=game"
        return f"cmd[{options}]:{shlex.join(self.command(limits))}"


@dataclass
class HostedWorker:
    """Plays the server's hosted bots; :meth:`run_round` is one pass over the work."""

    server: str  # http(s)://host:port
    admin_token: str
    cache: Path
    limits: Limits = field(default_factory=Limits)
    game: str = "kuhhandel"
    games: int = 1
    redis_url: str | None = None
    redis_prefix: str = "cardtable"
    lease_s: int = LEASE_S
    on_report: Callable[[str, Any], None] | None = None
    #: what the worker does with its bots' leases: ``(what, bot, at)``, ``what`` one of
    #: ``took`` (``at`` just after the SET), ``let go`` (``at`` just before the DEL), ``lost``
    #: (it ran out unrenewed; ``at`` the latest time it was surely held)
    on_lease: Callable[[str, str, float], None] | None = None
    prepared: dict[tuple[str, str], Prepared] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.cache.mkdir(parents=True, exist_ok=True)
        self.cache.chmod(0o755)  # the sandbox's users read the bots' folders under it
        self.http = httpx.Client(
            base_url=self.server,
            headers={"Authorization": f"Bearer {self.admin_token}"},
            timeout=30,
        )
        # unique among workers: two processes of one machine may hold objects at one address
        self.name = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"
        self.busy: set[str] = set()  # the bots this worker plays now (serve)
        self._busy_lock = threading.Lock()
        self._redis: Any = None
        #: each leased bot's lease surely lasts until then (the time its last SET or renewal
        #: was asked, plus ``lease_s``: Redis set it later): a lost lease's time, told to the log
        self._held_until: dict[str, float] = {}
        if self.redis_url:
            import redis

            self._redis = redis.Redis.from_url(self.redis_url)

    @property
    def ws(self) -> str:
        scheme, _, rest = self.server.partition("://")
        return f"{'wss' if scheme == 'https' else 'ws'}://{rest.rstrip('/')}/ws"

    # -- the work --------------------------------------------------------------------------

    def work(self) -> list[WorkItem]:
        reply = self.http.get("/api/hosted/work")
        reply.raise_for_status()
        return [WorkItem.from_json(w) for w in reply.json()["work"]]

    def prepare(self, item: WorkItem) -> Prepared:
        """Fetch, check, unpack and build ``item`` (once per SHA-256 on this machine)."""
        key = (item.bot, item.sha256)
        if key in self.prepared:
            return self.prepared[key]
        home = self.cache / item.sha256
        prepared = Prepared(item, home / "files", home / "build", home / f"{item.bot}.log")
        self.prepared[key] = prepared
        reply = self.http.get(item.archive_url)
        reply.raise_for_status()
        data = reply.content
        if hashlib.sha256(data).hexdigest() != item.sha256:
            prepared.error = "the archive fetched is not the one uploaded (SHA-256 differs)"
            return prepared
        try:
            unpacked = read_archive(data, ArchiveLimits(len(data), 64 * 1024 * 1024, 10_000))
        except ArchiveError as exc:
            prepared.error = f"the archive is refused: {exc.reason}"
            return prepared
        if home.exists():
            shutil.rmtree(home)
        home.mkdir(parents=True)
        home.chmod(0o755)
        write_files(unpacked.files, prepared.folder)
        try:
            prepared.build_output = build(
                prepared.folder, prepared.build_dir, item.language, item.entry, self.limits
            )
        except BuildError as exc:
            prepared.error = f"the build failed: {exc}"
        return prepared

    def run_round(self) -> dict[str, Any]:
        """Every chosen version once: validate it if it needs it, else play ``games`` ranked
        games (one thread per bot); what happened, by bot."""
        outcome: dict[str, Any] = {}
        threads = []
        for item in self.work():
            if not self._claim(item.bot):
                outcome[item.bot] = "played by another worker"
                continue
            thread = threading.Thread(target=self._leased, args=(item, outcome), daemon=True)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        return outcome

    def serve(
        self,
        stop: threading.Event,
        pause: float,
        on_outcome: Callable[[str, Any], None] | None = None,
    ) -> None:
        """Until ``stop``: every ``pause`` seconds, take each chosen bot that no worker holds
        (its lease free) and that this worker does not play already, and serve it once in a
        thread of its own (validate, or ``games`` ranked games), then let it go. A bot of a
        worker that died is taken within its lease (``lease_s``) plus ``pause``."""
        while not stop.is_set():
            try:
                items = self.work()
            except httpx.HTTPError as exc:
                log.warning("the server's work list: %s", exc)
                items = []
            for item in items:
                with self._busy_lock:
                    if item.bot in self.busy:
                        continue
                    if not self._claim(item.bot):
                        continue
                    self.busy.add(item.bot)
                thread = threading.Thread(
                    target=self._serve_once, args=(item, on_outcome), daemon=True
                )
                thread.start()
            stop.wait(pause)

    def _serve_once(self, item: WorkItem, on_outcome: Callable[[str, Any], None] | None) -> None:
        outcome: dict[str, Any] = {}
        try:
            self._leased(item, outcome)
        finally:
            with self._busy_lock:
                self.busy.discard(item.bot)
        if on_outcome is not None:
            on_outcome(item.bot, outcome.get(item.bot))

    def _leased(self, item: WorkItem, outcome: dict[str, Any]) -> None:
        """Serve ``item`` (claimed already) while renewing its lease, then let it go."""
        with self._renewing(item.bot):
            self._serve(item, outcome)

    def _serve(self, item: WorkItem, outcome: dict[str, Any]) -> None:
        try:
            prepared = self.prepare(item)
            if item.status == "new" or (item.status == "valid" and prepared.error):
                # a new version; or a valid one that does not build or fetch on this machine:
                # its author is told so (it turns invalid)
                outcome[item.bot] = self.validate(prepared)
            elif item.status == "valid":
                outcome[item.bot] = self.play(prepared, "ranked", self.games)
            else:
                outcome[item.bot] = f"version {item.version} is {item.status}: not played"
        except Exception as exc:  # one bot's trouble never stops the others
            log.exception("hosted bot %s", item.bot)
            outcome[item.bot] = f"{type(exc).__name__}: {exc}"

    def play_tournament(self, tournament: str) -> dict[str, Any]:
        """Every validated chosen version plays tournament ``tournament`` until the server says
        it is over (one thread per bot; a version not validated yet is validated first, and
        plays only if it passes). Each bot's reports, or why it did not play."""
        outcome: dict[str, Any] = {}

        def enter(item: WorkItem) -> None:
            if not self._claim(item.bot):
                outcome[item.bot] = "played by another worker"
                return
            with self._renewing(item.bot):
                enter_claimed(item)

        def enter_claimed(item: WorkItem) -> None:
            try:
                prepared = self.prepare(item)
                if item.status != "valid":
                    checked = self.validate(prepared)
                    if not checked["validated"]:
                        outcome[item.bot] = checked
                        return
                outcome[item.bot] = self.play(
                    prepared, "tournament", 1_000_000, tournament=tournament
                )
            except Exception as exc:
                log.exception("hosted bot %s in tournament %s", item.bot, tournament)
                outcome[item.bot] = f"{type(exc).__name__}: {exc}"

        threads = [threading.Thread(target=enter, args=(i,), daemon=True) for i in self.work()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return outcome

    # -- validating and playing ------------------------------------------------------------

    def validate(self, prepared: Prepared) -> dict[str, Any]:
        """The validation game: one practice game against the house bots, unrated; valid when
        it finished without a fault of the program's. The outcome goes to the server."""
        item = prepared.item
        result: dict[str, Any] = {"build_output": prepared.build_output}
        if prepared.error:
            ok = False
            result["error"] = prepared.error
        else:
            reports = self.play(prepared, "practice", 1)
            report = reports[0] if reports else None
            ok = report is not None and bool(report.result.places) and not report.faults
            result.update(
                {
                    "game_id": None if report is None else report.game_id,
                    "place": None if report is None else report.place,
                    "faults": [] if report is None else list(report.faults),
                    "reason": None if report is None else report.result.reason,
                }
            )
        reply = self.http.post(
            f"/api/hosted/{item.bot}/versions/{item.version}/validation",
            json={"ok": ok, "outcome": result},
        )
        reply.raise_for_status()
        return {"validated": ok, **result}

    def play(
        self, prepared: Prepared, lobby: str, games: int, tournament: str | None = None
    ) -> list[Any]:
        """``games`` games in ``lobby`` through the client library (``cardtable bot --cmd``'s
        path); after each, the program's stderr of that game goes to the server. In a
        tournament, until the server says it is over."""
        from cardtable.client import ServerError

        item = prepared.item
        prepared.log_file.write_text("")
        reports: list[Any] = []

        def after(report: Any) -> None:
            reports.append(report)
            self._send_log(prepared, report.game_id)
            if self.on_report is not None:
                self.on_report(item.bot, report)

        try:
            self._play(prepared, lobby, games, tournament, after)
        except ServerError as exc:
            if not (tournament and exc.code == "tournament_over"):
                raise
        return reports

    def _play(
        self,
        prepared: Prepared,
        lobby: str,
        games: int,
        tournament: str | None,
        after: Callable[[Any], None],
    ) -> None:
        from cardtable.client import play

        item = prepared.item
        play(
            self.ws,
            item.bot,
            hosted_token(self.admin_token, item.bot),
            prepared.ref(self.limits),
            lobby=lobby,
            game=self.game,
            games=games,
            fallback=False,  # the server's fallback, as in ranked play
            on_result=after,
            version=f"v{item.version} sha256:{item.sha256[:12]}",
            tournament=tournament,
        )

    def _send_log(self, prepared: Prepared, game_id: str) -> None:
        """The stderr lines (``!``) of the game just played, bounded, then the log restarts."""
        path = prepared.log_file
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            path.write_text("")
        except OSError:
            return
        text = "\n".join(line[2:] for line in lines if line.startswith("! "))
        data = text.encode()
        if len(data) > LOG_BYTES:
            cut = f"[the first {len(data) - LOG_BYTES + 64} bytes are cut]\n".encode()
            data = cut + data[-(LOG_BYTES - 64) :]
        item = prepared.item
        reply = self.http.post(
            f"/api/hosted/{item.bot}/versions/{item.version}/logs/{game_id}",
            content=data,
            headers={"X-Stderr-Bytes": str(len(text.encode()))},  # before it was cut
        )
        if reply.status_code != 200:
            log.warning("stderr of %s in %s not kept: %s", item.bot, game_id, reply.text)

    # -- sharing the work through Redis ----------------------------------------------------

    def _key(self, bot: str) -> str:
        return f"{self.redis_prefix}:hosted:claim:{bot}"

    def _claim(self, bot: str) -> bool:
        """Take ``bot``'s lease (``SET key NAME NX EX lease_s``); always, without Redis."""
        if self._redis is None:
            return True
        asked = time.time()
        took = bool(self._redis.set(self._key(bot), self.name, nx=True, ex=self.lease_s))
        if took:
            self._held_until[bot] = asked + self.lease_s
            self._said("took", bot, time.time())
        return took

    @contextmanager
    def _renewing(self, bot: str) -> Iterator[None]:
        """Renew ``bot``'s lease every third of ``lease_s`` while the body runs, then let it
        go (only if it is still this worker's)."""
        if self._redis is None:
            yield
            return
        done = threading.Event()
        lost = threading.Event()

        def renew() -> None:
            while not done.wait(self.lease_s / 3):
                asked = time.time()
                try:
                    kept = self._redis.eval(_RENEW, 1, self._key(bot), self.name, self.lease_s)
                except Exception as exc:  # Redis away a moment: try again at the next beat
                    log.warning("renewing the lease on %s: %s", bot, exc)
                    continue
                if not kept:
                    lost.set()
                    self._said("lost", bot, min(asked, self._held_until[bot]))
                    return
                self._held_until[bot] = asked + self.lease_s

        beat = threading.Thread(target=renew, daemon=True, name=f"lease-{bot}")
        beat.start()
        try:
            yield
        finally:
            done.set()
            beat.join()
            self._release(bot, lost.is_set())

    def _release(self, bot: str, lost: bool) -> None:
        """Delete ``bot``'s lease if it is still this worker's; if it ran out before (a renewal
        came too late: a stalled process), say it was lost, at the latest time it was surely
        held (the last SET or renewal asked, plus ``lease_s``), unless the beat said so."""
        if self._redis is not None:
            at = time.time()
            try:
                if self._redis.eval(_RELEASE, 1, self._key(bot), self.name):
                    self._said("let go", bot, at)
                elif not lost:
                    self._said("lost", bot, min(at, self._held_until[bot]))
            except Exception as exc:  # the lease runs out by itself
                log.warning("letting go of %s: %s", bot, exc)

    def _said(self, what: str, bot: str, at: float) -> None:
        log.info("%s %s (%s)", what, bot, self.name)
        if self.on_lease is not None:
            self.on_lease(what, bot, at)
