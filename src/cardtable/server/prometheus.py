"""``GET /metrics``: this process's figures in Prometheus's text format (``prometheus_client``).

The same figures as ``GET /api/metrics`` (metrics.py) and more, read when scraped (nothing is
added to the hot path but the latency histograms' bucket counts, kept by ``Latencies``):
decisions answered, the decision latency and event-loop lag histograms, connections, running
tables, frames in and out, faults and errors by code, games ended by game and termination, HTTP
requests by method, route and status (oplog.py), the frame validator in use, and the process's
own CPU, memory and file descriptors (``prometheus_client``'s process collector).

Each process serves its own figures: in a cluster (``--workers`` or several ``serve`` processes)
scrape every process, on its own port, and sum in Prometheus. The setting ``metrics_token``
makes the path ask for ``Authorization: Bearer TOKEN`` (empty: open, as ``/api/metrics``).
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Any

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    InfoMetricFamily,
    Metric,
)
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from cardtable import __version__
from cardtable.protocol.schema import selected_validator
from cardtable.server.metrics import BUCKETS, Latencies

router = APIRouter()


def _histogram(name: str, doc: str, series: Latencies) -> HistogramMetricFamily:
    family = HistogramMetricFamily(name, doc)
    cumulative, buckets = 0, []
    for bound, count in zip(BUCKETS, series.buckets, strict=False):
        cumulative += count
        buckets.append((repr(bound), cumulative))
    buckets.append(("+Inf", series.count))
    family.add_metric([], buckets, sum_value=series.total)
    return family


class ServerCollector(Collector):
    """Reads the hub's figures (``app.state``) at every scrape."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        hub = getattr(self.state, "hub", None)
        info = InfoMetricFamily("cardtable", "the server's version, instance and frame validator")
        info.add_metric(
            [],
            {
                "version": __version__,
                "instance": str(getattr(hub, "instance", "")),
                "validator": selected_validator(),
            },
        )
        yield info
        counts = getattr(self.state, "request_counts", None)
        requests = CounterMetricFamily(
            "cardtable_http_requests",
            "HTTP requests answered, by method, route (the path's template) and status",
            labels=["method", "route", "status"],
        )
        for (method, route, status), n in sorted(dict(getattr(counts, "counts", {})).items()):
            requests.add_metric([method, route, str(status)], n)
        yield requests
        if hub is None:  # not started yet
            return
        m = hub.metrics
        decisions = CounterMetricFamily(
            "cardtable_decisions",
            "decisions answered at this process's tables: by a client (each a decision latency "
            "sample) or by a house bot or the fallback",
            labels=["by"],
        )
        decisions.add_metric(["client"], m.decision.count)
        decisions.add_metric(["house"], m.bot_think.count)
        yield decisions
        yield _histogram(
            "cardtable_decision_latency_seconds",
            "a client's action read -> the next request of its table handed to the socket",
            m.decision,
        )
        yield _histogram(
            "cardtable_bot_think_seconds", "a house bot's or the fallback's decision", m.bot_think
        )
        yield _histogram(
            "cardtable_event_loop_lag_seconds",
            "how late a 10 ms timer fires on the event loop",
            m.loop_lag,
        )
        yield GaugeMetricFamily(
            "cardtable_connections", "identified WebSocket connections", value=len(hub.online)
        )
        yield GaugeMetricFamily(
            "cardtable_running_tables", "tables playing at this process", value=len(hub.tables)
        )
        frames = CounterMetricFamily(
            "cardtable_frames", "WebSocket frames, by direction", labels=["direction"]
        )
        frames.add_metric(["in"], m.frames_in)
        frames.add_metric(["out"], m.frames_out)
        yield frames
        faults = CounterMetricFamily(
            "cardtable_faults", "faults recorded at this process's tables, by code", labels=["code"]
        )
        for code, n in sorted(m.faults.items()):
            faults.add_metric([code], n)
        yield faults
        errors = CounterMetricFamily(
            "cardtable_errors_sent", "error frames sent to clients, by code", labels=["code"]
        )
        for code, n in sorted(m.errors_sent.items()):
            errors.add_metric([code], n)
        yield errors
        ended = CounterMetricFamily(
            "cardtable_games_ended",
            "games that ended at this process, by game and termination",
            labels=["game", "termination"],
        )
        for (game, termination), n in sorted(m.games_ended.items()):
            ended.add_metric([game, termination], n)
        yield ended
        yield CounterMetricFamily(
            "cardtable_games_started", "games started at this process", value=hub.games_started
        )


def registry_of(state: Any) -> CollectorRegistry:
    """The app's registry (its own, so that several apps in one process keep apart)."""
    registry = getattr(state, "prometheus_registry", None)
    if registry is None:
        registry = CollectorRegistry(auto_describe=False)
        registry.register(ServerCollector(state))
        ProcessCollector(registry=registry)
        state.prometheus_registry = registry
    return registry


@router.get(
    "/metrics",
    summary="This process's metrics in Prometheus's text format",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}},
)
def metrics(request: Request) -> Response:
    token = str(request.app.state.settings.metrics_token)
    if token:
        given = request.headers.get("authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return Response(
                "GET /metrics needs Authorization: Bearer <metrics_token>\n",
                status_code=401,
                media_type="text/plain",
                headers={"WWW-Authenticate": "Bearer"},
            )
    body = generate_latest(registry_of(request.app.state))
    return Response(body, media_type=CONTENT_TYPE_LATEST)
