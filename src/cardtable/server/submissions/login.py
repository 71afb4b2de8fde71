"""A hosted bot's login: the token a hosted-bot worker plays it with, and what that login may
join (:func:`join_refusal`: no rated game before the chosen version passed validation)."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardtable.server.store.db import Store

# The stores (SQLAlchemy) are imported by the functions that read them, not with this module: a
# hosted-bot worker imports it for hosted_token alone and is a client of the server, with no
# database (the store's import cost each worker process 0.2 s of CPU at start, measured).


def hosted_token(admin_token: str, name: str) -> str:
    """The token a hosted-bot worker plays ``name`` with: derived from the organiser's token
    (a worker holding it needs no author's token), accepted only while ``name`` has a chosen
    version (:func:`authenticate`)."""
    digest = hmac.new(admin_token.encode(), f"cardtable-hosted:{name}".encode(), "sha256")
    return "hosted." + digest.hexdigest()


def authenticate(store: Store, admin_token: str, name: str, token: str) -> Any:
    """A bot's login: its own token, or (for a bot with a chosen hosted version) the worker's
    :func:`hosted_token`. The stored identity, or ``None``."""
    from cardtable.server.submissions.store import SubmissionStore

    if admin_token and token.startswith("hosted."):
        if hmac.compare_digest(token, hosted_token(admin_token, name)) and SubmissionStore(
            store
        ).is_hosted(name):
            return SubmissionStore(store).identity(name)
        return None
    return store.authenticate(name, token)


#: The error code of a join refused by :func:`join_refusal`.
NOT_VALIDATED = "not_validated"


def is_hosted_token(token: str) -> bool:
    """Whether ``token`` is a worker's (:func:`hosted_token`) rather than the author's own."""
    return token.startswith("hosted.")


def join_refusal(store: Store, name: str, message: Mapping[str, Any]) -> str | None:
    """Why the worker's login of ``name`` may not make this ``join``, or ``None``.

    Ranked and tournament games, and any join with ``rated: true`` (a rated practice or private
    table, a rated challenge), need the chosen version validated: the server checks it at every
    such join (the version may change while the worker is connected), not only the worker.
    Unrated games (the validation game itself: practice) are allowed. The author's own token is
    a connected bot: this does not apply to it."""
    lobby = message.get("lobby")
    if lobby not in ("ranked", "tournament") and message.get("rated") is not True:
        return None
    from cardtable.server.submissions.store import SubmissionStore

    chosen = SubmissionStore(store).chosen(name)
    what = "a rated game" if lobby not in ("ranked", "tournament") else f"the {lobby} lobby"
    if chosen is None:
        return f"{name} has no chosen hosted version: its worker's login may not join {what}"
    number, status = chosen
    if status == "valid":
        return None
    why = "has not played its validation game yet" if status == "new" else "failed validation"
    return (
        f"{name}'s chosen version {number} {why} (status {status}): a hosted bot joins "
        f"{what} only with a validated version (GET /api/bots/{name}/versions)"
    )
