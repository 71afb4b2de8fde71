"""The refusals a person can meet, as stable codes: the HTTP API's, and the engines' rules.

Every such refusal's JSON body holds ``detail`` (English, for bots, scripts and ``curl``), a
``code`` from :data:`CODES` and, where the sentence has numbers or names, ``args``: the pages
show the catalog's ``web.error.{code}`` with those args in the person's language
(``static/errors.js``), and ``detail`` only for a code their catalog does not know. The codes
are part of the API (docs/server.md, "Refusals over HTTP"); the sentences are not.
"""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardtable.core.contract import ActionError
from cardtable.server.limits import explain_body_errors

#: code -> when the server sends it (the docs' table; each has ``web.error.{code}`` in every
#: catalog, tests/server/test_refusal_codes.py)
CODES: dict[str, str] = {
    "cross_site": "a POST from another site's page (Origin), or without the CSRF token",
    "invalid_request": "the body does not fit the endpoint (FastAPI's validation; `detail` lists)",
    "not_signed_in": "an account action without a session",
    "wrong_password": "sign-in: unknown name or wrong password",
    "wrong_current_password": "password change: the current password is wrong",
    "password_length": "the new password is too short or too long (`min`, `max`)",
    "sign_in_throttled": "too many wrong passwords for this name or address (`retry_after`)",
    "sign_up_throttled": "too many new accounts from this address (`retry_after`)",
    "too_many_requests": "an address's request limit (`retry_after`)",
    "name_invisible": "a name with control, invisible or direction characters (`char`)",
    "name_marks": "a name stacking more than three combining marks",
    "name_form": "a person's name: 2-32 letters, digits, _ - . or single spaces",
    "bot_name_form": "a bot's name: 2-32 letters, digits, _ - or .",
    "bot_name_spaces": "a bot's name beginning or ending with white space",
    "name_house": "a name reserved for the house bots (house-...)",
    "name_guest": "the name guest (or one looking like it)",
    "name_taken": "the name is taken (`name`)",
    "name_looks_taken": "the name looks like a taken one (`name`, `taken`)",
    "unknown_tournament": "no tournament of that id (`id`)",
}


def body(code: str, detail: str, **args: Any) -> dict[str, Any]:
    """The JSON body of a refusal: ``detail``, ``code`` and (if any) ``args``."""
    if code not in CODES:
        raise ValueError(f"unknown refusal code {code!r}")
    out: dict[str, Any] = {"detail": detail, "code": code}
    if args:
        out["args"] = args
    return out


def refuse(status: int, code: str, detail: str, **args: Any) -> JSONResponse:
    """A refusal response of ``status`` with its code and args."""
    return JSONResponse(body(code, detail, **args), status_code=status)


class Refused(HTTPException):
    """An ``HTTPException`` with a code: the app's handler puts ``code`` and ``args`` into the
    body beside ``detail``."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        headers: dict[str, str] | None = None,
        **args: Any,
    ) -> None:
        super().__init__(status, detail, headers=headers)
        self.body = body(code, detail, **args)


async def coded_http_errors(request: Request, exc: Exception) -> Any:
    """The app's handler of ``HTTPException``: a :class:`Refused` with its code and args, any
    other as :func:`~cardtable.server.limits.explain_body_errors` answers it."""
    if isinstance(exc, Refused):
        return JSONResponse(exc.body, status_code=exc.status_code, headers=exc.headers)
    assert isinstance(exc, StarletteHTTPException)
    return await explain_body_errors(request, exc)


async def invalid_request(request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 for a body that does not fit (its ``detail`` list kept), with the code
    ``invalid_request``."""
    assert isinstance(exc, RequestValidationError)
    detail = jsonable_encoder(exc.errors())
    return JSONResponse({"detail": detail, "code": "invalid_request"}, status_code=422)


def engine_rule(error: ActionError | None) -> dict[str, Any]:
    """The fields a ``rejected`` frame adds for an action an engine refused: its ``rule`` (the
    catalogs' ``refusal.{rule}``) and ``args`` (docs/protocol.md); none for a refusal without a
    rule."""
    if error is None or not error.rule:
        return {}
    return {"rule": error.rule, "args": dict(error.details)}
