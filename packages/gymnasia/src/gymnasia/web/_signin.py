"""The sign-in routes (``_accounts`` describes the scheme): ``/signin``, ``/signin/link``,
``/signout``; and ``/healthz`` and ``/readyz``, served without a session."""

from __future__ import annotations

import asyncio
import json

from fastapi import FastAPI, Request
from starlette.responses import Response

from surefoot import Lang, StoreError

from ..accounts import MIN_PASSWORD, NAME_PATTERN
from ._accounts import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    Accounts,
    cookie,
    csrf_ok,
    form_of,
    gone_page,
    html,
    link_page,
    new_csrf,
    safe_next,
    signin_page,
    text,
    unavailable,
)
from ._i18n import pick_lang


def signin_routes(app: FastAPI, accounts: Accounts, default: Lang) -> None:
    """Add the sign-in, link and sign-out routes."""
    _form_routes(app, accounts, default)
    _link_routes(app, accounts, default)
    _signout_route(app, accounts, default)


def _lang_of(request: Request, default: Lang) -> Lang:
    return pick_lang(request.query_params.get("lang"), default)


def _form(accounts: Accounts, request: Request, page: str, status: int, csrf: str) -> Response:
    """A page with a form, and its CSRF value set as the cookie."""
    csrf_cookie = cookie(CSRF_COOKIE, csrf, request, max_age=accounts.session_seconds)
    return html(page, status, csrf_cookie)


def _form_routes(app: FastAPI, accounts: Accounts, default: Lang) -> None:
    def lang_of(request: Request) -> Lang:
        return _lang_of(request, default)

    def form(request: Request, page: str, status: int, csrf: str) -> Response:
        return _form(accounts, request, page, status, csrf)

    @app.get("/signin")
    async def signin(request: Request) -> Response:
        lang, csrf = lang_of(request), new_csrf(accounts)
        next_path = safe_next(request.query_params.get("next"))
        return form(request, signin_page(lang, csrf, next_path), 200, csrf)

    @app.post("/signin")
    async def signin_post(request: Request) -> Response:
        lang, fields, csrf = lang_of(request), await form_of(request), new_csrf(accounts)
        next_path = safe_next(fields.get("next"))
        if not csrf_ok(accounts, request, fields.get("csrf", "")):
            page = signin_page(lang, csrf, next_path, text(lang, "expired_form"))
            return form(request, page, 403, csrf)
        name = fields.get("name", "").strip()
        subjects = (f"name:{name}", f"address:{request.client.host if request.client else ''}")
        if _limited(accounts, subjects):
            minutes = int(accounts.limits.window // 60)
            page = signin_page(lang, csrf, next_path, text(lang, "limited").format(minutes=minutes))
            response = form(request, page, 429, csrf)
            response.headers["retry-after"] = str(int(accounts.limits.window))
            return response
        password = fields.get("password", "")
        known = NAME_PATTERN.fullmatch(name) is not None
        # Argon2 takes tens of milliseconds of CPU: on a thread, so other requests go on
        if not known or not await asyncio.to_thread(accounts.store.check_password, name, password):
            accounts.store.record_failure(subjects, keep_seconds=accounts.limits.window)
            page = signin_page(lang, csrf, next_path, text(lang, "wrong"))
            return form(request, page, 401, csrf)
        return _signed_in(accounts, request, name, next_path)


def _link_routes(app: FastAPI, accounts: Accounts, default: Lang) -> None:
    def lang_of(request: Request) -> Lang:
        return _lang_of(request, default)

    def form(request: Request, page: str, status: int, csrf: str) -> Response:
        return _form(accounts, request, page, status, csrf)

    @app.get("/signin/link")
    async def link(request: Request) -> Response:
        lang, csrf = lang_of(request), new_csrf(accounts)
        code = request.query_params.get("code", "")
        user = accounts.store.link_user(code) if code else None
        if user is None:
            return html(gone_page(lang), 410)
        return form(request, link_page(lang, csrf, code, user), 200, csrf)

    @app.post("/signin/link")
    async def link_post(request: Request) -> Response:
        lang, fields, csrf = lang_of(request), await form_of(request), new_csrf(accounts)
        code = fields.get("code", "")
        user = accounts.store.link_user(code) if code else None
        if user is None:
            return html(gone_page(lang), 410)
        password = fields.get("password", "")
        problem = ""
        if not csrf_ok(accounts, request, fields.get("csrf", "")):
            problem = text(lang, "expired_form")
        elif len(password) < MIN_PASSWORD:
            problem = text(lang, "short").format(min=MIN_PASSWORD)
        if problem:
            return form(request, link_page(lang, csrf, code, user, problem), 422, csrf)
        if accounts.store.use_link(code) != user:
            return html(gone_page(lang), 410)
        accounts.store.set_password(user, password)
        return _signed_in(accounts, request, user, "/")


def _signout_route(app: FastAPI, accounts: Accounts, default: Lang) -> None:
    @app.post("/signout")
    async def signout(request: Request) -> Response:
        signed = request.cookies.get(SESSION_COOKIE, "")
        session = accounts.unsign(signed, "session") if signed else None
        if session is not None:
            accounts.store.close_session(session)
        query = f"?lang={_lang_of(request, default)}"
        response = Response(status_code=303, headers={"location": f"/signin{query}"})
        response.headers.append("set-cookie", cookie(SESSION_COOKIE, "", request, max_age=0))
        response.headers["cache-control"] = "no-store"
        return response


def _limited(accounts: Accounts, subjects: tuple[str, str]) -> bool:
    limits, store = accounts.limits, accounts.store
    name, address = subjects
    return (
        store.recent_failures(name, seconds=limits.window) >= limits.per_name
        or store.recent_failures(address, seconds=limits.window) >= limits.per_address
    )


def _signed_in(accounts: Accounts, request: Request, user: str, next_path: str) -> Response:
    session = accounts.store.open_session(user, seconds=accounts.session_seconds)
    value = accounts.sign(session, "session")
    response = Response(status_code=303, headers={"location": next_path})
    response.headers.append(
        "set-cookie", cookie(SESSION_COOKIE, value, request, max_age=accounts.session_seconds)
    )
    response.headers.append("set-cookie", cookie(CSRF_COOKIE, "", request, max_age=0))
    response.headers["cache-control"] = "no-store"
    return response


def health_routes(app: FastAPI, accounts: Accounts, default: Lang) -> None:
    """``/healthz``: the process answers. ``/readyz``: and its database does (else 503 with
    ``Retry-After``)."""

    @app.get("/healthz")
    async def healthz() -> Response:
        return Response(json.dumps({"status": "ok"}), media_type="application/json")

    @app.get("/readyz")
    async def readyz(request: Request) -> Response:
        try:
            accounts.primary.db.query("SELECT 1")
        except StoreError:
            return unavailable(pick_lang(request.query_params.get("lang"), default))
        return Response(json.dumps({"status": "ready"}), media_type="application/json")
