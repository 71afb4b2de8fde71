"""Cunegonda's codec and follower give exactly the documented vectors (``reference.py``).

The environment follows each seat's events instead of building observations; these tests compare
its vectors with the plain encoder on every step of random games, for the seat choosing (with its
pass part-way), for every other seat, for JSON round trips, and across resets of the same codec
(stale caches). Kuhhandel: ``test_kuhhandel_vectors.py``.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from cardtable.rl.table import Table

from . import reference
from .conftest import random_index


def _plain(table: Table, obs: Any, request: Any, draft: Any) -> np.ndarray:
    return reference.cunegonda_vector(table.codec, obs, request, draft)  # type: ignore[arg-type]


def _same(fast: np.ndarray, plain: np.ndarray, what: str) -> None:
    assert fast.dtype == np.float32 and fast.shape == plain.shape, what
    bad = np.flatnonzero(np.abs(fast - plain) > 1e-6)
    assert bad.size == 0, f"{what}: features {bad.tolist()} differ: {fast[bad]} vs {plain[bad]}"


# Over several rounds too: the seat views must be rebuilt when a round starts.
CASES = [("cunegonda", {"rounds": 1}, 4), ("cunegonda", "short", 4)]
CASE_IDS = ["cunegonda", "cunegonda-short"]


@pytest.mark.parametrize(("game", "rules", "seats"), CASES, ids=CASE_IDS)
def test_fast_encoding_equals_the_plain_one(game: str, rules: Any, seats: int) -> None:
    table = Table(game, rules, seats)
    codec = table.codec
    obs_type = None
    checked = 0
    for seed in (0, 1, 2, 0):  # the same game again: nothing may be taken from the first time
        rng = random.Random(seed)
        table.reset(seed)
        while table.seat >= 0:
            seat, request, draft = table.seat, table.request, table.draft
            others = list(range(table.seats))
            rng.shuffle(others)  # any order of seats: the per-seat caches must not leak
            for s in others:
                obs = table.observation(s)
                if s == seat:
                    _same(codec.encode(obs, request, draft), _plain(table, obs, request, draft), s)
                else:
                    plain = _plain(table, obs, None, None)
                    _same(codec.encode(obs, None, None), plain, s)
                    # the table's vector (followed from the events where the codec can)
                    _same(table.encode(s)["observation"], plain, f"table {s}")
            vector = table.encode(seat)["observation"]
            _same(vector, _plain(table, table.observation(seat), request, draft), "table")
            if rng.random() < 0.1:  # what a remote bot decodes from JSON encodes the same
                local = table.observation(seat)
                obs_type = obs_type or type(local)
                remote = obs_type.from_json(local.to_json())
                _same(codec.encode(remote, request, draft), vector, "json")
            checked += 1
            table.step(random_index(table.mask(), rng))
    assert checked > 100


@pytest.mark.parametrize(("game", "rules", "seats"), CASES, ids=CASE_IDS)
def test_the_choosing_seat_alone_encodes_as_the_plain_one(
    game: str, rules: Any, seats: int
) -> None:
    """As in training and ``bench --env``: only the seat choosing is encoded, so whatever the
    codec keeps per seat (Cunegonda follows each seat's events) spans several moves at once."""
    table = Table(game, rules, seats)
    checked = 0
    for seed in (3, 4):
        rng = random.Random(seed)
        table.reset(seed)
        while table.seat >= 0:
            seat, request, draft = table.seat, table.request, table.draft
            encoded = table.encode(seat)
            plain = _plain(table, table.observation(seat), request, draft)
            _same(encoded["observation"], plain, f"seat {seat}")
            checked += 1
            table.step(random_index(encoded["action_mask"], rng))
    assert checked > 100
