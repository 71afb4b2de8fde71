"""Accounts for people: sign up, sign in, sessions, CSRF, throttling (``/api/account/...``).

- **Passwords** are hashed with argon2id (``argon2-cffi``'s defaults, :data:`store.db.passwords`);
  the hashing runs on FastAPI's thread pool, never on the event loop that drives the tables.
- **Sessions**: a random 256-bit token in the cookie ``ct_session`` (``HttpOnly``,
  ``SameSite=Strict``, ``Secure`` when the request came over https, ``Path=/``); the database
  keeps only its SHA-256 and the player's *session generation* at issue. "Sign out everywhere"
  and a password change move the generation on: every older session is refused from then on.
- **CSRF**: every state-changing request (``POST``) must pass two checks: its ``Origin`` header,
  when the browser sends one, names this server (scheme, host and port of the request), and its
  ``X-CSRF-Token`` header equals the ``ct_csrf`` cookie (double submit: a page of another site
  can neither read that cookie nor set the header on a cross-site request). ``GET
  /api/account`` sets the cookie and returns the token. The WebSocket handshake of a person's
  hello is checked by its ``Origin`` too (:func:`ws_person`).
- **Throttling** (``lockouts.py``): a wrong password makes its (name, client address) pair
  wait, longer after each (``sign_in_backoff_s`` doubling), and wrong passwords from one
  address over all names are capped (``sign_in_limit_per_address`` within
  ``sign_in_window_s``); a sign-in that must wait is refused with 429, a ``Retry-After`` header
  and the seconds in the body, before the password is even looked at. The owner signing in from
  another address is never held up by a stranger's wrong passwords. Sign-ups are counted per
  address too (``sign_up_limit_per_address``: each costs an argon2 hash). In a cluster every
  process counts in one place (Redis, ``shared_limits.py``); alone, in memory.
- A **guest** claims an account by sending its resume token (``guest_token``) with sign-up or
  sign-in (or ``POST /api/account/claim``): the seats its identity played move to the account.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.requests import HTTPConnection

from cardtable.server.config import Settings
from cardtable.server.lockouts import SignInThrottle
from cardtable.server.proxies import client_address
from cardtable.server.refusals import body, refuse
from cardtable.server.store.db import Identity, NameError_, Store

SESSION_COOKIE = "ct_session"
CSRF_COOKIE = "ct_csrf"
CSRF_HEADER = "x-csrf-token"

router = APIRouter(prefix="/api/account", tags=["accounts"])


def guest_key(token: str) -> str:
    """The identity key of a guest with this resume token (the server never keeps the token)."""
    return "guest:" + hashlib.sha256(token.encode()).hexdigest()[:32]


class Credentials(BaseModel):
    name: str = Field(max_length=100, examples=["Anna"])
    password: str = Field(max_length=1000)
    guest_token: str | None = Field(
        None,
        max_length=200,
        description="a guest's resume token: the games that guest played move to the account",
    )


class PasswordChange(BaseModel):
    old: str = Field(max_length=1000)
    new: str = Field(max_length=1000)


class Claim(BaseModel):
    guest_token: str = Field(min_length=16, max_length=200)


def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _secure(conn: HTTPConnection) -> bool:
    return conn.url.scheme in ("https", "wss")


def same_origin(conn: HTTPConnection) -> bool:
    """The request's ``Origin`` (if any) is this server: same scheme family, host and port."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    host = conn.headers.get("host", "")
    secure = _secure(conn)
    want_scheme = "https" if secure else "http"
    return parts.scheme == want_scheme and parts.netloc.lower() == host.lower()


def _refused_name(exc: NameError_) -> JSONResponse:
    return refuse(exc.status, exc.code, exc.reason, **exc.args_)


def _throttled(wait: float, code: str, why: str) -> JSONResponse:
    """429 with ``Retry-After`` (whole seconds, rounded up): ``why``, then when to try again;
    ``retry_after`` also in the body and in its ``args``."""
    seconds = int(wait + 0.999)
    detail = f"{why}: try again in {seconds} s"
    response = JSONResponse(
        {**body(code, detail, retry_after=seconds), "retry_after": seconds}, status_code=429
    )
    response.headers["retry-after"] = str(seconds)
    return response


def _csrf_refusal(request: Request) -> JSONResponse | None:
    if not same_origin(request):
        return refuse(403, "cross_site", "cross-site request refused (Origin is not this server)")
    cookie = request.cookies.get(CSRF_COOKIE, "")
    header = request.headers.get(CSRF_HEADER, "")
    if not cookie or not hmac.compare_digest(cookie.encode(), header.encode()):
        return refuse(
            403,
            "cross_site",
            "missing or wrong CSRF token: send the ct_csrf cookie's value in X-CSRF-Token "
            "(GET /api/account sets it)",
        )
    return None


def _set_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(_settings(request).session_days * 86400),
        path="/",
        httponly=True,
        samesite="strict",
        secure=_secure(request),
    )


def _clear_session(response: Response, request: Request) -> None:
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(request)
    )


def _ensure_csrf(response: Response, request: Request) -> str:
    token = request.cookies.get(CSRF_COOKIE)
    if not token or len(token) < 20 or len(token) > 100:
        token = secrets.token_urlsafe(32)
    response.set_cookie(
        CSRF_COOKIE,
        token,
        max_age=365 * 86400,
        path="/",
        httponly=False,  # the page reads it to echo it in X-CSRF-Token
        samesite="strict",
        secure=_secure(request),
    )
    return token


def current_person(conn: HTTPConnection) -> Identity | None:
    """The person signed in on this request (its session cookie), or ``None``."""
    token = conn.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    store: Store = conn.app.state.store
    return store.session_identity(token)


def _me(identity: Identity | None, csrf: str) -> dict[str, Any]:
    if identity is None:
        return {"signed_in": False, "csrf_token": csrf}
    return {
        "signed_in": True,
        "name": identity.name,
        "kind": identity.kind,
        "page": f"/players/{identity.name}",
        "csrf_token": csrf,
    }


@router.get("", summary="Who is signed in on this browser; sets the CSRF cookie")
def me(request: Request, response: Response) -> dict[str, Any]:
    csrf = _ensure_csrf(response, request)
    response.headers["cache-control"] = "no-store"
    return _me(current_person(request), csrf)


def _signed_in(request: Request, identity: Identity, status: int, claimed: int) -> JSONResponse:
    token = _store(request).new_session(identity.id, _settings(request).session_days)
    csrf = request.cookies.get(CSRF_COOKIE, "")
    response = JSONResponse({**_me(identity, csrf), "claimed_games": claimed}, status_code=status)
    _set_session(response, request, token)
    return response


@router.post(
    "/signup",
    status_code=201,
    summary="Create a person's account and sign in",
    responses={403: {"description": "CSRF"}, 409: {"description": "name taken"}},
)
def signup(body: Credentials, request: Request) -> Response:
    refused = _csrf_refusal(request)
    if refused is not None:
        return refused
    throttles: SignInThrottle = request.app.state.sign_in_throttles
    address = client_address(request)
    wait = throttles.sign_ups.retry_after(address)
    if wait > 0:
        return _throttled(wait, "sign_up_throttled", "too many new accounts from your address")
    throttles.sign_ups.failed(address)
    key = guest_key(body.guest_token) if body.guest_token else None
    try:
        identity, claimed = _store(request).create_person(body.name, body.password, key)
    except NameError_ as exc:
        return _refused_name(exc)
    return _signed_in(request, identity, 201, claimed)


@router.post(
    "/signin",
    summary="Sign in with name and password",
    responses={401: {"description": "wrong"}, 429: {"description": "throttled"}},
)
def signin(body: Credentials, request: Request) -> Response:
    refused = _csrf_refusal(request)
    if refused is not None:
        return refused
    throttles: SignInThrottle = request.app.state.sign_in_throttles
    address = client_address(request)
    with throttles.one_at_a_time(body.name, address):
        wait, why = throttles.retry_after(body.name, address)
        if wait > 0:
            return _throttled(wait, "sign_in_throttled", f"too many wrong passwords ({why})")
        identity = _store(request).verify_person(body.name, body.password)
        if identity is None:
            throttles.failed(body.name, address)
            return refuse(401, "wrong_password", "unknown name or wrong password")
        throttles.succeeded(body.name, address)
    claimed = 0
    if body.guest_token:
        claimed = _store(request).claim_guest(identity.id, guest_key(body.guest_token))
    return _signed_in(request, identity, 200, claimed)


@router.post("/signout", status_code=204, summary="Sign out this browser")
def signout(request: Request) -> Response:
    refused = _csrf_refusal(request)
    if refused is not None:
        return refused
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        _store(request).end_session(token)
    response = Response(status_code=204)
    _clear_session(response, request)
    return response


SIGNED_OUT = "signed out everywhere (or the password changed)"


def _drop_connections(request: Request, identity: Identity) -> None:
    """Close the person's live WebSocket, on this process or (in a cluster) on whichever holds
    it (its session has ended): the seats it holds play on as after any disconnect, a new
    hello needs a new sign-in."""
    loop = getattr(request.app.state, "loop", None)
    hub = getattr(request.app.state, "hub", None)
    if loop is None or hub is None:
        return
    key = f"person:{identity.id}"

    def close() -> None:
        session = hub.online.get(key)
        if session is not None and hasattr(session, "fatal"):
            session.fatal("bad_token", SIGNED_OUT)
        if hub.cluster is not None:
            hub.cluster.signed_out(key, SIGNED_OUT)

    loop.call_soon_threadsafe(close)


@router.post("/signout-everywhere", status_code=204, summary="Sign out every browser")
def signout_everywhere(request: Request) -> Response:
    refused = _csrf_refusal(request)
    if refused is not None:
        return refused
    identity = current_person(request)
    if identity is None:
        return refuse(401, "not_signed_in", "not signed in")
    _store(request).end_all_sessions(identity.id)
    _drop_connections(request, identity)
    response = Response(status_code=204)
    _clear_session(response, request)
    return response


@router.post("/password", summary="Change the password (signs out every other browser)")
def change_password(body: PasswordChange, request: Request) -> Response:
    refused = _csrf_refusal(request)
    if refused is not None:
        return refused
    identity = current_person(request)
    if identity is None:
        return refuse(401, "not_signed_in", "not signed in")
    throttles: SignInThrottle = request.app.state.sign_in_throttles
    address = client_address(request)
    # the old password is guessed no faster than at the sign-in, nor side by side
    with throttles.one_at_a_time(identity.name, address):
        wait, why = throttles.retry_after(identity.name, address)
        if wait > 0:
            return _throttled(wait, "sign_in_throttled", f"too many wrong passwords ({why})")
        try:
            changed = _store(request).change_password(identity.id, body.old, body.new)
        except NameError_ as exc:
            return _refused_name(exc)
        if not changed:
            throttles.failed(identity.name, address)
            return refuse(401, "wrong_current_password", "the current password is wrong")
        throttles.succeeded(identity.name, address)
    _drop_connections(request, identity)
    return _signed_in(request, identity, 200, 0)


@router.post("/claim", summary="Move a guest's games (this browser's) to the account")
def claim(body: Claim, request: Request) -> Response:
    refused = _csrf_refusal(request)
    if refused is not None:
        return refused
    identity = current_person(request)
    if identity is None:
        return refuse(401, "not_signed_in", "not signed in")
    claimed = _store(request).claim_guest(identity.id, guest_key(body.guest_token))
    return JSONResponse({"claimed_games": claimed})


def ws_person(conn: HTTPConnection, store: Store) -> tuple[Identity | None, str]:
    """The person a WebSocket handshake's session cookie names, or ``None`` and why. A
    handshake from a page of another site is refused (browsers send cookies with cross-site
    WebSocket handshakes, and SameSite does not cover every case)."""
    if not same_origin(conn):
        return None, "a person's hello must come from this server's pages (Origin)"
    token = conn.cookies.get(SESSION_COOKIE)
    if not token:
        return None, "not signed in (no session cookie): sign in at /signin"
    identity = store.session_identity(token)
    if identity is None:
        return None, "the session has ended (signed out or expired): sign in again"
    return identity, ""
