"""The Kuhhandel encoder gives exactly the vectors of the encoder it replaced (issue #24).

The inputs and vectors are frozen in ``tests/rl/data`` (see ``kuhhandel_vectors.py``): 8,955
samples from random and heuristic games of every preset (classic with 3, 4 and 5 seats,
competition with 4 and 6, master with 4 and 6, the duel; master with open auctions), the seat
choosing at every step of its answer (drafts part-way through payments, offers, counter-offers
and raised bids), the other requests open at once, and other seats without a request. Every
vector must be identical, bit for bit.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from cardtable.rl.kuhhandel import KuhhandelCodec

from . import kuhhandel_vectors


def test_the_encoder_gives_the_frozen_vectors() -> None:
    samples = kuhhandel_vectors.load()
    codecs: dict[tuple[str, int], KuhhandelCodec] = {}
    kinds: Counter[str] = Counter()
    for n, (inputs, frozen) in enumerate(samples):
        key = (inputs["rules"], inputs["seats"])
        codec = codecs.get(key)
        if codec is None:
            codec = codecs[key] = KuhhandelCodec(kuhhandel_vectors.rule_set(key[0]), key[1])
        request, draft = inputs["request"], inputs["draft"]
        vector = codec.encode(inputs["obs"], request, draft)
        assert vector.dtype == np.float32 and vector.shape == frozen.shape, n
        if not np.array_equal(vector, frozen):
            bad = np.flatnonzero(vector != frozen)
            raise AssertionError(
                f"sample {n} ({key}, {request and request.kind}, draft {draft is not None}): "
                f"features {bad.tolist()} are {vector[bad]}, were {frozen[bad]}"
            )
        kinds[request.kind if request else "none"] += 1
    assert len(samples) > 5000
    # every request kind is among the samples (the rat, the duel's divide, the countdown...)
    assert set(kinds) >= {"none", "turn", "bid", "knock", "sell_or_buy", "pay", "offer"} | {
        "respond",
        "claim",
        "preempt",
        "rat",
        "divide",
    }, kinds
