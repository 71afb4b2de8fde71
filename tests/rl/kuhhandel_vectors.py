"""Frozen Kuhhandel observation vectors: inputs from real games and the vectors they encode to.

``tests/rl/data/kuhhandel-vectors.json.gz`` holds observations (the engine's JSON form), the
request kind and info, and the draft part-way through compound answers, taken from random and
heuristic games of every preset; ``kuhhandel-vectors.npz`` holds the vector the encoder gave for
each. They were written once, on 2026-12-02, by the encoder that shipped before issue #24's
rewrite (the one with the follower, the ring of vectors and the bid templates; it is in the git
history of ``src/cardtable/rl/kuhhandel.py``), so ``test_kuhhandel_vectors.py`` checks that the
plain encoder gives *identical* vectors. The samples do not depend on the engine or the bots
playing the same games later: each is rebuilt from its stored JSON.

``python -m tests.rl.kuhhandel_vectors`` writes both files again from the encoder in ``src`` (only
when the layout changes on purpose: the vectors are the documented layout's).
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from cardtable.core.contract import Request
from cardtable.core.registry import game_spec, load_bot
from cardtable.games.kuhhandel.observe import KuhhandelObservation
from cardtable.rl.codec import Draft
from cardtable.rl.kuhhandel import KuhhandelCodec

DATA = Path(__file__).parent / "data"
INPUTS = DATA / "kuhhandel-vectors.json.gz"
VECTORS = DATA / "kuhhandel-vectors.npz"

#: (rules, seats) of every preset, at more than one seat count where the preset allows it, and
#: open auctions (no preset has them).
TABLES = [
    ("classic", 3),
    ("classic", 4),
    ("classic", 5),
    ("competition", 4),
    ("competition", 6),
    ("master", 4),
    ("master", 6),
    ("master-duel", 2),
    ('{"preset": "master", "auction_style": "open"}', 4),  # the auctioneer knocks
]
BOTS = ("random", "heuristic")
#: Samples kept, so that the files stay small: of the other seats' views (no request) per
#: decision, of bids' first steps (most decisions are bids) and of the later steps of compound
#: answers; every other step is kept.
OTHERS = 0.02
BIDS = 0.05
LATER = 0.3


def play(rules: str, seats: int, bots: str, seed: int) -> Iterator[dict[str, Any]]:
    """Samples of one game: at each decision the seat choosing, at every step of its answer
    (through the codec's index path, so drafts part-way), and now and then another seat."""
    spec = game_spec("kuhhandel")
    ruleset = rule_set(rules)
    codec = KuhhandelCodec(ruleset, seats)
    game = spec.new_game(ruleset, seats, seed)
    agents = [load_bot("kuhhandel", bots, seed=seed * 10 + s) for s in range(seats)]
    rng = random.Random(seed)
    table = {"rules": rules, "seats": seats}
    while pending := game.pending():
        request = pending[0]
        obs = game.observe(request.seat)
        action = agents[request.seat].act(obs, request)
        try:
            path = codec.indices(obs, request, action)
        except ValueError:  # an answer the action space does not reach (off the raise grid)
            path = []
        draft = codec.new_draft(request)
        if request.kind != "bid" or rng.random() < BIDS:
            yield {**table, "obs": obs, "request": request, "draft": None}
        for index in path[:-1]:
            codec.choose(obs, request, draft, index)
            if rng.random() < LATER:
                yield {**table, "obs": obs, "request": request, "draft": _draft_json(draft)}
        for other in pending[1:]:  # open at once: claims, an open auction's knock
            if other.kind != "bid" or rng.random() < BIDS:
                yield {**table, "obs": game.observe(other.seat), "request": other, "draft": None}
        for seat in range(seats):
            if seat != request.seat and rng.random() < OTHERS:
                yield {**table, "obs": game.observe(seat), "request": None, "draft": None}
        game.apply(request.seat, action)


def rule_set(rules: str) -> Any:
    """A preset's name or a rule set as JSON, resolved."""
    return game_spec("kuhhandel").resolve_rules(json.loads(rules) if rules[0] == "{" else rules)


def _draft_json(draft: Draft) -> dict[str, Any]:
    return {
        "chosen": list(draft.chosen),
        "total": draft.total,
        "count": draft.count,
        "limit": draft.limit,
        "base": draft.base,
    }


def draft_from_json(data: dict[str, Any] | None, request: Request | None) -> Draft | None:
    if data is None:
        return None
    draft = Draft(request, len(data["chosen"]))
    draft.chosen = list(data["chosen"])
    draft.total, draft.count = data["total"], data["count"]
    draft.limit, draft.base = data["limit"], data["base"]
    return draft


def samples() -> Iterator[dict[str, Any]]:
    for rules, seats in TABLES:
        for bots in BOTS:
            yield from play(rules, seats, bots, seed=seats)


def load() -> list[tuple[dict[str, Any], np.ndarray]]:
    """Every stored sample as ``(inputs, vector)``: ``inputs`` has ``rules``, ``seats``,
    ``obs`` (a :class:`KuhhandelObservation`), ``request`` and ``draft`` rebuilt."""
    with gzip.open(INPUTS, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    with np.load(VECTORS) as data:
        by_table = {name: data[name] for name in data.files}
    out = []
    at = dict.fromkeys(by_table, 0)
    for row in rows:
        seats = row["seats"]
        name = _name(row["rules"], seats)
        request = None
        if row["request"] is not None:
            kind, seat, info = row["request"]
            request = Request(seat, kind, None, info)
        inputs = {
            "rules": row["rules"],
            "seats": seats,
            "obs": KuhhandelObservation.from_json(row["obs"]),
            "request": request,
            "draft": draft_from_json(row["draft"], request),
        }
        out.append((inputs, by_table[name][at[name]]))
        at[name] += 1
    return out


def _name(rules: str, seats: int) -> str:
    """The table's name in the ``.npz`` file: its place in :data:`TABLES`."""
    return f"table_{TABLES.index((rules, seats))}"


def write() -> None:
    """Write both files from the encoder in ``src``."""
    codecs: dict[tuple[str, int], KuhhandelCodec] = {}
    rows: list[str] = []
    vectors: dict[str, list[np.ndarray]] = {}
    for sample in samples():
        key = (sample["rules"], sample["seats"])
        codec = codecs.get(key)
        if codec is None:
            codec = codecs[key] = KuhhandelCodec(rule_set(key[0]), key[1])
        request: Request | None = sample["request"]
        draft = draft_from_json(sample["draft"], request)
        vector = codec.encode(sample["obs"], request, draft)
        vectors.setdefault(_name(*key), []).append(vector.copy())
        rows.append(
            json.dumps(
                {
                    "rules": key[0],
                    "seats": key[1],
                    "obs": sample["obs"].to_json(),
                    "request": None
                    if request is None
                    else [request.kind, request.seat, request.info],
                    "draft": sample["draft"],
                },
                separators=(",", ":"),
            )
        )
    DATA.mkdir(exist_ok=True)
    with gzip.open(INPUTS, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("\n".join(rows) + "\n")
    np.savez_compressed(VECTORS, **{name: np.stack(vs) for name, vs in vectors.items()})
    print(
        f"{len(rows)} samples: {INPUTS} ({INPUTS.stat().st_size} bytes), {VECTORS} "
        f"({VECTORS.stat().st_size} bytes)"
    )


if __name__ == "__main__":
    write()
