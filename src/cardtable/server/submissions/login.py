"""A hosted bot's login: the token a hosted-bot worker plays it with."""

from __future__ import annotations

import hmac
from typing import Any

from cardtable.server.store.db import Store
from cardtable.server.submissions.store import SubmissionStore


def hosted_token(admin_token: str, name: str) -> str:
    """The token a hosted-bot worker plays ``name`` with: derived from the organiser's token
    (a worker holding it needs no author's token), accepted only while ``name`` has a chosen
    version (:func:`authenticate`)."""
    digest = hmac.new(admin_token.encode(), f"cardtable-hosted:{name}".encode(), "sha256")
    return "hosted." + digest.hexdigest()


def authenticate(store: Store, admin_token: str, name: str, token: str) -> Any:
    """A bot's login: its own token, or (for a bot with a chosen hosted version) the worker's
    :func:`hosted_token`. The stored identity, or ``None``."""
    if admin_token and token.startswith("hosted."):
        if hmac.compare_digest(token, hosted_token(admin_token, name)) and SubmissionStore(
            store
        ).is_hosted(name):
            return SubmissionStore(store).identity(name)
        return None
    return store.authenticate(name, token)
