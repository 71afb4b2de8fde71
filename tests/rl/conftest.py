"""Shared helpers for the RL adapter tests (skipped when the ``rl`` extra is missing)."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import numpy as np

#: (game, rules, seats) of every environment the tests cover; Cunegonda in a one-round match.
ENVIRONMENTS = [
    ("kuhhandel", "classic", 4),
    ("kuhhandel", "competition", 4),
    ("kuhhandel", "master", 4),
    ("kuhhandel", "master-duel", 2),
    ("cunegonda", {"rounds": 1}, 4),
]
ENV_IDS = ["classic", "competition", "master", "master-duel", "cunegonda"]


def random_index(mask: Any, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])
