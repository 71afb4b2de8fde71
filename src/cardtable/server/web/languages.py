"""The pages' language: the catalogs for the browser and the person's choice.

- ``GET /i18n/{lang}.json``: the catalog of one supported language (ICU MessageFormat, the
  files of :mod:`cardtable.i18n`), cached by the browser for an hour.
- ``GET /i18n/choice``: the language this browser should show and the languages there are:
  the ``cardtable_lang`` cookie (set by the page's switcher), else the signed-in account's
  language, else the best match of ``Accept-Language``, else English.
- ``POST /i18n/choice`` ``{"lang": "de"}``: remember the choice for the signed-in account
  (the same CSRF checks as the account pages); a guest's choice lives in the browser.

Only people's pages read these: bots, the protocol, records and the API stay language-neutral.
"""

from __future__ import annotations

import hmac
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse, Response
from pydantic import BaseModel

from cardtable.i18n import CATALOGS, SUPPORTED, negotiate
from cardtable.server.accounts import CSRF_COOKIE, CSRF_HEADER, current_person, same_origin
from cardtable.server.refusals import Refused
from cardtable.server.store.db import Store

COOKIE = "cardtable_lang"
#: Each language by its own name, for the switcher.
OWN_NAMES = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "nl": "Nederlands",
    "it": "Italiano",
}

router = APIRouter(tags=["pages"])


class Choice(BaseModel):
    lang: str


@router.get("/i18n/choice", summary="The language of this browser's pages")
def choice(request: Request) -> JSONResponse:
    chosen = request.cookies.get(COOKIE, "")
    if chosen not in SUPPORTED:
        chosen = ""
        person = current_person(request)
        if person is not None:
            store: Store = request.app.state.store
            chosen = store.language_of(person.id) or ""
    if chosen not in SUPPORTED:
        chosen = negotiate(request.headers.get("accept-language", "")[:1000])
    body: dict[str, Any] = {
        "lang": chosen,
        "languages": [[code, OWN_NAMES.get(code, code)] for code in SUPPORTED],
    }
    return JSONResponse(body, headers={"Cache-Control": "no-store", "Vary": "Cookie"})


@router.post("/i18n/choice", status_code=204, summary="Remember the account's language")
def remember(body: Choice, request: Request) -> Response:
    if body.lang not in SUPPORTED:
        raise HTTPException(422, f"no such language: choose one of {', '.join(SUPPORTED)}")
    person = current_person(request)
    if person is None:
        return Response(status_code=204)  # a guest: the browser keeps the choice
    cookie = request.cookies.get(CSRF_COOKIE, "")
    header = request.headers.get(CSRF_HEADER, "")
    if not same_origin(request) or not cookie or not hmac.compare_digest(cookie, header):
        raise Refused(403, "cross_site", "cross-site request refused (CSRF token or Origin)")
    store: Store = request.app.state.store
    store.set_language(person.id, body.lang)
    return Response(status_code=204)


@router.get("/i18n/{lang}.json", summary="One language's catalog (ICU MessageFormat)")
def catalog(lang: str) -> FileResponse:
    if lang not in SUPPORTED:
        raise HTTPException(404, "no such language")
    return FileResponse(
        CATALOGS / f"{lang}.json",
        media_type="application/json",
        headers={"Cache-Control": "no-cache"},
    )


def install(app: FastAPI) -> None:
    """Add the language routes to ``app``."""
    app.include_router(router)
