"""The ASGI application: HTTP API, the native WebSocket endpoint ``/ws`` and the lobbies.

:func:`create_app` builds it from :class:`~cardtable.server.config.Settings`. On start it applies
the alembic migrations, marks the games this instance left running as aborted (a crash or
``kill -9``) and starts the matchmaker; on shutdown it aborts and stores the running games.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import secrets
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI, WebSocket
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException

from cardtable import __version__
from cardtable.clock import SYSTEM, Clock
from cardtable.protocol.messages import warm_client_checks
from cardtable.server import names
from cardtable.server.accounts import router as accounts_router
from cardtable.server.analysis import router as analysis_router
from cardtable.server.api import router
from cardtable.server.chat.api import router as chat_router
from cardtable.server.compat import KuhHandel
from cardtable.server.compat import router as kuh_handel_router
from cardtable.server.config import Settings
from cardtable.server.connection import Session
from cardtable.server.limits import (
    BodyLimit,
    TokenThrottle,
    redact_server_logs,
)
from cardtable.server.lobby import Hub
from cardtable.server.lockouts import BotLogins, SignInThrottle
from cardtable.server.oplog import AccessLog, RequestCounts
from cardtable.server.prometheus import router as prometheus_router
from cardtable.server.proxies import UntrustedForwarding, trusted_networks
from cardtable.server.refusals import coded_http_errors, invalid_request
from cardtable.server.request_limits import RequestLimits, RequestRates
from cardtable.server.store import Store, password_hasher
from cardtable.server.submissions.api import router as submissions_router
from cardtable.server.tournament_api import router as tournament_router
from cardtable.server.web import install as install_web

log = logging.getLogger("cardtable.server")


def create_app(settings: Settings | None = None, clock: Clock = SYSTEM) -> FastAPI:
    """A new server app; nothing touches the database until it starts (lifespan). ``clock``
    is the time its lockouts and request limits count on (:mod:`cardtable.clock`; a test moves
    it by hand)."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db_executor = ThreadPoolExecutor(1, thread_name_prefix="cardtable-db")
        bot_executor = ThreadPoolExecutor(4, thread_name_prefix="cardtable-bot")
        hasher = password_hasher(
            settings.password_time_cost, settings.password_memory_kib, settings.password_lanes
        )
        store = Store(settings.db, hasher)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(db_executor, store.migrate)
        await loop.run_in_executor(db_executor, names.skeleton, "warm")  # reads the prototypes
        await loop.run_in_executor(db_executor, warm_client_checks)  # compiles the schemas
        aborted = await loop.run_in_executor(db_executor, store.abort_unfinished, settings.instance)
        if aborted:
            log.warning(
                "marked %d unfinished game(s) of instance %r aborted", aborted, settings.instance
            )
        cluster = None
        if settings.redis_url:
            from cardtable.server.cluster import Cluster
            from cardtable.server.rebalance import Rebalancer

            # this process's name in the cluster: new at every start (its games carry it)
            settings.instance = f"{settings.instance}-{secrets.token_hex(4)}"
        hub = Hub(settings, store, db_executor=db_executor, bot_executor=bot_executor)
        shared = None
        if settings.redis_url:
            from cardtable.server.shared_limits import SharedLimits

            cluster = Cluster(hub, settings.redis_url, settings.redis_prefix, settings.lease_ms)
            hub.cluster = cluster
            await cluster.start()
            rebalancer = Rebalancer(cluster, max(0, settings.rebalance_ms))
            rebalancer.start()
            app.state.rebalancer = rebalancer
            # the limits against abuse count for the whole cluster, not per process
            shared = SharedLimits(
                settings.redis_url, settings.redis_prefix, settings.instance, settings.lease_ms
            )
            await shared.start()
            app.state.token_throttle.share(shared)
            app.state.sign_in_throttles.share(shared)
            app.state.admin_throttle.share(shared)
            app.state.request_limits.share(shared)
            guard = getattr(app.state, "connection_guard", None)  # limits.uvicorn_config
            if guard is not None:
                guard.share(shared)
        await hub.start()
        kuh_handel = None
        if settings.kh_enabled:
            kuh_handel = KuhHandel(settings, store, db_executor=db_executor)
            await kuh_handel.start()
        app.state.kuh_handel = kuh_handel
        app.state.store = store
        app.state.hub = hub
        app.state.loop = loop  # accounts.py closes a signed-out person's connection on it
        app.state.settings = settings
        # Everything loaded so far (the framework, the games, the database layer) lives as long
        # as the process: move it out of the collector's sight. Unfrozen, each full collection
        # walked it all and stopped the event loop for 80-120 ms under load (measured).
        gc.collect()
        gc.freeze()
        try:
            yield
        finally:
            if kuh_handel is not None:
                await kuh_handel.stop()
            await hub.shutdown()
            if shared is not None:
                await shared.stop()
            if cluster is not None:
                await rebalancer.stop()
                await cluster.stop()
            jobs = getattr(app.state, "analysis_jobs", None)
            if jobs is not None:  # the expert's analyses (server/analysis.py)
                jobs.shutdown()
            db_executor.shutdown(wait=True)
            bot_executor.shutdown(wait=False, cancel_futures=True)
            store.close()

    app = FastAPI(
        title="cardtable",
        version=__version__,
        description="Kuhhandel and Cunegonda for people and bots. The native protocol is a "
        "WebSocket at /ws; its message schemas are at /api/protocol/schema.",
        lifespan=lifespan,
    )
    trusted_networks(settings.trusted_proxies)  # a wrong entry stops the start, named
    app.state.token_throttle = BotLogins(settings, clock)
    app.state.sign_in_throttles = SignInThrottle(settings, clock)
    # wrong organiser tokens: counted per address, in a window of their own
    app.state.admin_throttle = TokenThrottle(
        settings.bad_token_limit, settings.bad_token_window_s, "bad-admin", clock
    )
    app.state.request_limits = RequestLimits(settings, clock)
    app.state.settings = settings
    app.add_middleware(RequestRates, limits=app.state.request_limits)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_body_bytes,
        idle_s=settings.header_timeout_s,
        larger=(("POST", "/versions", settings.hosted_archive_bytes),),
    )
    app.add_exception_handler(HTTPException, coded_http_errors)
    app.add_exception_handler(RequestValidationError, invalid_request)
    # outermost: one log line and one count per HTTP request, refusals included (oplog.py)
    app.state.request_counts = RequestCounts()
    app.add_middleware(AccessLog, counts=app.state.request_counts)
    if not settings.trusted_proxies:  # a proxy nobody told us about: said once in the log
        app.add_middleware(UntrustedForwarding)
    redact_server_logs()  # uvicorn logs request lines with their query string
    app.include_router(router)
    app.include_router(accounts_router)
    app.include_router(tournament_router)
    app.include_router(kuh_handel_router)
    app.include_router(analysis_router)
    app.include_router(prometheus_router)  # GET /metrics
    app.include_router(chat_router)
    app.include_router(submissions_router)  # hosted bots (server/submissions/)
    install_web(app)  # the browser table: pages at /, static files at /static

    @app.websocket("/ws")
    async def native(websocket: WebSocket) -> None:
        await Session(
            websocket, app.state.hub, __version__, throttle=app.state.token_throttle
        ).serve()

    return app
