"""Game ends from several processes at once on one PostgreSQL (issue #22): nothing is lost,
ratings are applied in commit order (stored ratings equal a recomputation exactly), one name
registered twice at once answers 409. Skipped with the reason when PostgreSQL is unreachable."""

from __future__ import annotations

import random
import threading

from sqlalchemy import select

from cardtable.server.store.db import NameError_, SeatOutcome, Store
from cardtable.server.store.models import games, ratings


def _stored_ratings(store: Store) -> dict[tuple[int, str, str], tuple[float, float, int, int]]:
    with store.engine.connect() as conn:
        return {
            (r.player_id, r.game, r.rules): (r.mu, r.sigma, r.games, r.wins)
            for r in conn.execute(select(ratings))
        }


def test_concurrent_game_ends_lose_nothing_and_ratings_follow_commit_order(pg_url: str) -> None:
    first = Store(pg_url)
    first.migrate()
    pool = [first.create_bot(f"bot{i}")[0].id for i in range(6)]
    # four "processes" (each its own engine and connections), eight threads, 20 games each: every
    # game seats 4 of the same 6 players in a random seat order, so ends collide all the time
    stores = [first] + [Store(pg_url) for _ in range(3)]
    errors: list[BaseException] = []
    ended: list[str] = []
    lock = threading.Lock()

    def worker(w: int) -> None:
        store = stores[w % len(stores)]
        rng = random.Random(w)
        for k in range(20):
            gid = f"g{w}-{k}"
            seated = rng.sample(pool, 4)
            try:
                store.start_game(
                    game_id=gid,
                    game="kuhhandel",
                    rules_name="classic",
                    rules={"name": "classic"},
                    seed=k,
                    lobby="ranked",
                    rated=True,
                    instance=f"p{w % len(stores)}",
                    seats=[(p, f"bot{p}", "bot") for p in seated],
                )
                places = rng.sample(range(4), 4)
                store.finish_game(
                    gid,
                    record={"game": "kuhhandel", "actions": []},
                    result={"termination": "normal", "scores": [0] * 4, "places": places},
                    seats=[SeatOutcome(i, p, 0, False) for i, p in enumerate(seated)],
                    fault_rows=[],
                    suspend_after=3,
                    suspend_window=5,
                    suspend_minutes=1,
                )
                with lock:
                    ended.append(gid)
            except BaseException as exc:  # collected and asserted below
                with lock:
                    errors.append(exc)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert len(ended) == 160
    with first.engine.connect() as conn:
        statuses = conn.execute(select(games.c.status, games.c.end_seq)).all()
    assert {s.status for s in statuses} == {"finished"}
    assert len({s.end_seq for s in statuses}) == 160  # every end has its own place in the order
    stored = _stored_ratings(first)
    assert sum(v[2] for v in stored.values()) == 160 * 4  # no update lost
    assert first.recompute_ratings() == 160
    assert _stored_ratings(first) == stored  # exactly, to the last bit
    for s in stores:
        s.close()


def test_one_name_registered_at_once_from_many_places_answers_409(pg_url: str) -> None:
    stores = [Store(pg_url) for _ in range(6)]
    stores[0].migrate()
    barrier = threading.Barrier(len(stores))
    outcomes: list[object] = []

    def register(store: Store) -> None:
        store.player("nobody")  # its connection is open before the race starts
        barrier.wait()
        try:
            store.create_bot("Same-Name")
            outcomes.append(201)
        except NameError_ as exc:
            outcomes.append(exc.status)
        except Exception as exc:  # would be a 500 in the API
            outcomes.append(exc)

    threads = [threading.Thread(target=register, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes, key=str) == [201] + [409] * 5
    for s in stores:
        s.close()
