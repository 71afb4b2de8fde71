"""Persistence: the schema (:mod:`.models`), its alembic migrations and the :class:`Store`."""

from cardtable.server.store.db import Store, hash_token, password_hasher

__all__ = ["Store", "hash_token", "password_hasher"]
