"""Names as people see them (issue #22): NFKC, no hidden characters, one name per case folding
and per confusable skeleton (TR39) on SQLite too, guests kept off bots' names; token hashes
salted, and migration 0004 on a database holding rows of the earlier form."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import select

from cardtable.server import names
from cardtable.server.compat import store as kh_store
from cardtable.server.store import Store
from cardtable.server.store.db import MIGRATIONS, now, verify_token
from cardtable.server.store.models import players
from loopback import LOOPBACK
from server.wire import RunningServer, Wire

pytestmark = pytest.mark.timeout(60)


def test_names_are_nfkc_and_hidden_characters_are_refused() -> None:
    assert names.normalise("ｍｙ-ｂｏｔ") == "my-bot"
    for hidden in ("ev\u202eil", "a\u200bb", "a\u200db", "a\u2066b", "\ufeffab", "a\x00b", "a\nb"):
        with pytest.raises(names.NameRefused):
            names.normalise(hidden)
    with pytest.raises(names.NameRefused):
        names.normalise("a" + "\u0301\u0302\u0303\u0304\u0305\u0306")


@pytest.mark.parametrize(
    ("one", "other"),
    [("paypal", "pаypal"), ("Ill", "lll"), ("MY-BOT", "my-bot"), ("m", "rn"), ("bob", "b0b")],
)
def test_confusable_names_share_a_skeleton(one: str, other: str) -> None:
    assert names.skeleton(one) == names.skeleton(other)


def test_the_shipped_prototypes_are_derived_from_the_installed_confusables() -> None:
    """A server reads the prototypes from names.PROTOTYPES_FILE (derived once, not at every
    start) while the installed confusables data is the data it was derived from."""
    from importlib import resources

    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_bytes()
    shipped = Path(names.__file__).with_name(names.PROTOTYPES_FILE).read_text(encoding="utf-8")
    assert shipped == names.prototypes_file(data), (
        "confusable-homoglyphs' data changed: write names.prototypes_file(data) to "
        f"src/cardtable/server/{names.PROTOTYPES_FILE}"
    )


def test_case_folding_is_full_unicode() -> None:
    assert names.fold("STRASSE") == names.fold("straße")
    assert names.fold("ÉCOLE") == names.fold("école")
    assert names.skeleton("alice") != names.skeleton("bob")


def test_registration_refuses_lookalikes_and_hidden_characters(server: RunningServer) -> None:
    assert server.register("paypal")
    url = f"{server.http}/api/bots"
    lookalike = LOOPBACK.post(url, json={"name": "pаypal"})  # Cyrillic а
    assert lookalike.status_code in (409, 422), lookalike.text
    upper = LOOPBACK.post(url, json={"name": "PAYPAL"})
    assert upper.status_code == 409
    zero = LOOPBACK.post(url, json={"name": "b0b"})
    assert zero.status_code == 201
    bob = LOOPBACK.post(url, json={"name": "bob"})
    assert bob.status_code == 409 and "looks like 'b0b'" in bob.json()["detail"]
    hidden = LOOPBACK.post(url, json={"name": "ev\u202eil"})
    assert hidden.status_code == 422 and "RIGHT-TO-LEFT OVERRIDE" in hidden.json()["detail"]
    wide = LOOPBACK.post(url, json={"name": "ｗｉｄｅ-ｂｏｔ"})
    assert wide.status_code == 201 and wide.json()["name"] == "wide-bot"
    assert LOOPBACK.post(url, json={"name": "guest"}).status_code == 422


def test_kuh_handel_names_fold_non_ascii_case_and_refuse_lookalikes(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'kh.db'}")
    store.migrate()
    try:
        assert kh_store.register(store, "École", "t1") == 201
        assert kh_store.register(store, "ÉCOLE", "t2") == 409  # SQLite's lower() missed this
        assert kh_store.register(store, "Straße", "t3") == 201
        assert kh_store.register(store, "STRASSE", "t4") == 409
        assert kh_store.register(store, "Stra\u00dfe\u200b", "t5") == 400
        assert kh_store.register(store, "hоuse-x", "t6") == 409  # Cyrillic о
        assert kh_store.register(store, "Cafe\u0301", "t7") == 400  # not NFKC
        assert kh_store.register(store, "twin-a", "same") == 201
        assert kh_store.register(store, "twin-b", "same") == 201
        with store.engine.connect() as conn:
            hashes = dict(
                conn.execute(
                    select(players.c.name, players.c.token_hash).where(
                        players.c.name.in_(["twin-a", "twin-b"])
                    )
                ).all()
            )
        assert hashes["twin-a"] != hashes["twin-b"]  # equal tokens, different hashes
        assert all(h.startswith("h1$") for h in hashes.values())
        assert kh_store.authenticate(store, "twin-a", "same") is not None
        assert kh_store.authenticate(store, "twin-a", "other") is None
        assert kh_store.authenticate(store, "twin-a", "") is None
    finally:
        store.close()


def test_guests_cannot_take_bot_or_house_names(server: RunningServer) -> None:
    server.register("deep-cow")
    refused = ["deep-cow", "DEEP-COW", "dееp-cow", "ｄｅｅｐ-ｃｏｗ", "house-expert-1", "Ada\u200b"]
    for name in refused:
        with Wire(server.ws) as wire:
            reply = wire.hello_guest(name)
            assert reply["type"] == "error" and reply["code"] == "bad_name", (name, reply)
    with Wire(server.ws) as wire:
        reply = wire.hello_guest("Ｅｖａ")
        assert reply["type"] == "welcome" and reply["you"]["name"] == "Eva"
    with Wire(server.ws) as wire:
        assert wire.hello_guest("guest")["you"]["name"] == "guest"


def test_migration_0004_salts_old_hashes_and_fills_the_name_keys(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", url)
    with store.engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0003")
        old = [
            ("alpha", "bot", "tok-a"),
            ("ALPHA2", "bot", "tok-b"),
            ("écho", "kh", "same"),
            ("ÉCHO", "kh", "same"),  # registered when SQLite's lower() let it through
        ]
        for name, kind, token in old:
            conn.execute(
                players.insert().values(
                    name=name,
                    kind=kind,
                    token_hash=hashlib.sha256(token.encode()).hexdigest(),
                    created_at=now(),
                )
            )
    store.migrate()  # 0004 on top
    try:
        with store.engine.connect() as conn:
            rows = {r.name: r for r in conn.execute(select(players)).all()}
        assert all(r.token_hash.startswith("h1$") for r in rows.values())
        assert rows["écho"].token_hash != rows["ÉCHO"].token_hash
        for name, _, token in old:
            assert verify_token(token, rows[name].token_hash)
            assert not verify_token(token + "x", rows[name].token_hash)
        assert rows["écho"].name_fold == "écho" and rows["ÉCHO"].name_fold is None  # kept, NULL
        assert rows["alpha"].name_skeleton == names.skeleton("alpha")
        assert store.authenticate("alpha", "tok-a") is not None
        assert kh_store.authenticate(store, "ÉCHO", "same") is not None
        assert kh_store.register(store, "Écho", "x") == 409
    finally:
        store.close()
