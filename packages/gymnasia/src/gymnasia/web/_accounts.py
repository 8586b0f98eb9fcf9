"""Signing in to the web app, when its database has accounts (``gymnasia users add``).

Without accounts the app serves one user on this machine, as it always has. With them:

* ``GET /signin`` shows the form; ``POST /signin`` (a plain form: name, password and the
  form's CSRF value, which must match the ``gymnasia_csrf`` cookie set with the form and be
  signed by the server) opens a session. A one-time link (``/signin/link?code=...``, printed
  by ``users add --link``) lets its opener choose the password and signs them in.
* A session is a random value in the ``gymnasia_session`` cookie (HttpOnly, SameSite=Lax,
  Secure over HTTPS), signed with a key kept in the database; the database keeps only its
  hash and when it ends. ``POST /signout`` ends it. Every worker reads the same rows, so a
  session opened on one works on all and sign-out ends it on all.
* Failed sign-ins are counted in the database per name and per client address; past the
  limit the form answers 429 with ``Retry-After`` and checks no password.
* ``SignIn``, an ASGI middleware, finds the session of every other request and makes its
  account the request's user (``current_user``): ``Accounts.coach()`` is then that user's
  Coach, so every route reads and writes only that user's rows. A request without a session
  gets the sign-in page (a page) or ``401 {"error": "signed_out"}`` (the API); with no user
  set, ``Accounts.coach()`` raises rather than serve anyone's data.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from html import escape
from typing import Final
from urllib.parse import parse_qs, urlencode

from starlette.datastructures import Headers
from starlette.requests import Request, cookie_parser
from starlette.responses import HTMLResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from surefoot import Lang, StoreError

from ..accounts import MIN_PASSWORD, AccountStore
from ..app import Coach
from ..texts import APP_NAME
from ._i18n import pick_lang

SESSION_COOKIE: Final = "gymnasia_session"
CSRF_COOKIE: Final = "gymnasia_csrf"
SESSION_SECONDS: Final = 12 * 3600.0
FORM_PATHS: Final = frozenset({"/signin", "/signin/link", "/signout"})
"""Routes that take a plain HTML form (``application/x-www-form-urlencoded``)."""
OPEN_PATHS: Final = frozenset({"/signin", "/signin/link", "/healthz", "/readyz"})
"""Routes served without a session (besides ``/static/``)."""
COACH_CACHE: Final = 1024
"""Accounts whose Coach a worker keeps built."""

_USER: ContextVar[str] = ContextVar("gymnasia_user")

_TEXTS: Final[dict[str, dict[Lang, str]]] = {
    "title": {"es": "Entrar", "pt": "Entrar", "en": "Sign in"},
    "name": {"es": "Nombre", "pt": "Nome", "en": "Name"},
    "password": {"es": "Contraseña", "pt": "Senha", "en": "Password"},
    "submit": {"es": "Entrar", "pt": "Entrar", "en": "Sign in"},
    "signout": {"es": "Salir", "pt": "Sair", "en": "Sign out"},
    "wrong": {
        "es": "El nombre o la contraseña no son correctos.",
        "pt": "O nome ou a senha não estão corretos.",
        "en": "The name or the password is not right.",
    },
    "limited": {
        "es": "Demasiados intentos fallidos. Espera {minutes} minutos y vuelve a probar.",
        "pt": "Muitas tentativas sem sucesso. Espere {minutes} minutos e tente de novo.",
        "en": "Too many failed attempts. Wait {minutes} minutes and try again.",
    },
    "expired_form": {
        "es": "El formulario caducó. Vuelve a escribir tu nombre y tu contraseña.",
        "pt": "O formulário expirou. Escreva de novo seu nome e sua senha.",
        "en": "The form expired. Type your name and password again.",
    },
    "signed_out": {
        "es": "Tu sesión terminó. Vuelve a entrar para seguir.",
        "pt": "Sua sessão terminou. Entre de novo para continuar.",
        "en": "Your session ended. Sign in again to go on.",
    },
    "link_title": {
        "es": "Elige tu contraseña",
        "pt": "Escolha sua senha",
        "en": "Choose your password",
    },
    "link_lead": {
        "es": "Cuenta «{user}». Con esta contraseña entrarás a partir de ahora.",
        "pt": "Conta «{user}». Com esta senha você entrará daqui em diante.",
        "en": "Account '{user}'. This is the password you will sign in with from now on.",
    },
    "link_gone": {
        "es": "Este enlace ya se usó o caducó. Pide otro a quien te dio la cuenta.",
        "pt": "Este link já foi usado ou expirou. Peça outro a quem lhe deu a conta.",
        "en": "This link was used already or has expired. Ask whoever gave you the account "
        "for another.",
    },
    "short": {
        "es": "La contraseña necesita al menos {min} caracteres.",
        "pt": "A senha precisa de pelo menos {min} caracteres.",
        "en": "The password needs at least {min} characters.",
    },
    "unavailable": {
        "es": "La base de datos no responde ahora mismo. Vuelve a intentarlo en unos segundos.",
        "pt": "O banco de dados não responde agora. Tente de novo em alguns segundos.",
        "en": "The database is not answering right now. Try again in a few seconds.",
    },
}


def text(lang: Lang, key: str) -> str:
    """The sign-in pages' word ``key`` in ``lang``."""
    return _TEXTS[key][lang]


def current_user() -> str | None:
    """The signed-in account of the request being served (None outside one, or without
    accounts)."""
    return _USER.get(None)


@dataclass(frozen=True)
class Limits:
    """Failed sign-ins allowed per name and per client address within ``window`` seconds."""

    per_name: int = 5
    per_address: int = 50
    window: float = 900.0


class Accounts:
    """Who a request is, and that person's Coach (one per account, built on first use over
    the app's one database)."""

    def __init__(
        self,
        primary: Coach,
        build: Callable[[str], Coach],
        *,
        session_seconds: float = SESSION_SECONDS,
        limits: Limits | None = None,
    ) -> None:
        self.primary = primary
        self.store = AccountStore(primary.db)
        self.enabled = self.store.any()
        self.session_seconds = session_seconds
        self.limits = limits or Limits()
        self._build = build
        self._coaches: OrderedDict[str, Coach] = OrderedDict()
        self._key = self.store.key("session") if self.enabled else b""

    def coach(self) -> Coach:
        """The Coach of the request's user: the one user's without accounts; with them, the
        signed-in account's (``LookupError`` outside a signed-in request)."""
        if not self.enabled:
            return self.primary
        user = _USER.get()
        coach = self._coaches.get(user)
        if coach is None:
            coach = self._build(user)
            self._coaches[user] = coach
            while len(self._coaches) > COACH_CACHE:
                self._coaches.popitem(last=False)
        else:
            self._coaches.move_to_end(user)
        return coach

    # -- signed values -----------------------------------------------------------------------

    def sign(self, value: str, purpose: str) -> str:
        mac = hmac.new(self._key, f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()
        return f"{value}.{mac}"

    def unsign(self, signed: str, purpose: str) -> str | None:
        value, _, _mac = signed.rpartition(".")
        expected = self.sign(value, purpose).encode("utf-8", "replace")
        if not value or not hmac.compare_digest(expected, signed.encode("utf-8", "replace")):
            return None
        return value

    def session_user(self, headers: Headers) -> str | None:
        """The account of the request's session cookie, if it is signed and live."""
        cookie = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE, "")
        session = self.unsign(cookie, "session") if cookie else None
        return self.store.session_user(session) if session else None


class SignIn:
    """Sets the request's user from its session, or answers for a request without one."""

    def __init__(self, app: ASGIApp, *, accounts: Accounts, lang: Lang) -> None:
        self.app = app
        self.accounts = accounts
        self.lang: Lang = lang

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if (
            scope["type"] != "http"
            or not self.accounts.enabled
            or path in OPEN_PATHS
            or path.startswith("/static/")
        ):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        lang = pick_lang(request.query_params.get("lang"), self.lang)
        try:
            user = self.accounts.session_user(request.headers)
        except StoreError:
            await unavailable(lang)(scope, receive, send)
            return
        if user is None:
            await _signed_out(request, lang)(scope, receive, send)
            return
        token = _USER.set(user)
        try:
            await self.app(scope, receive, send)
        finally:
            _USER.reset(token)


def unavailable(lang: Lang) -> Response:
    """503 with ``Retry-After``: the database cannot answer now."""
    body = {"error": "store_unavailable", "message": text(lang, "unavailable")}
    return Response(
        json.dumps(body, ensure_ascii=False),
        503,
        media_type="application/json",
        headers={"retry-after": "5", "cache-control": "no-store"},
    )


def _signed_out(request: Request, lang: Lang) -> Response:
    wants_page = request.method in ("GET", "HEAD") and "text/html" in request.headers.get(
        "accept", ""
    )
    if wants_page and not request.url.path.startswith("/api/"):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        query = urlencode({"lang": lang, "next": target})
        return Response(status_code=303, headers={"location": f"/signin?{query}"})
    body = {"error": "signed_out", "message": text(lang, "signed_out")}
    return Response(
        json.dumps(body, ensure_ascii=False),
        401,
        media_type="application/json",
        headers={"cache-control": "no-store"},
    )


# -- the pages -------------------------------------------------------------------------------


def account_badge(lang: Lang, user: str | None) -> str:
    """The signed-in account and its sign-out button, for a page's header ('' without one)."""
    if user is None:
        return ""
    return (
        f'<form class="signout" method="post" action="/signout?lang={lang}">'
        f'<span class="account-name">{escape(user)}</span>'
        f'<button type="submit">{escape(text(lang, "signout"))}</button></form>'
    )


def page(lang: Lang, title: str, body: str) -> str:
    """A sign-in page: ``title`` and ``body`` (already escaped)."""
    return f"""<!doctype html>
<html lang="{lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · {APP_NAME} Coach</title>
<link rel="icon" href="data:,"></head>
<body class="page-signin">
<main>
<h1>{escape(title)}</h1>
{body}
</main>
</body>
</html>
"""


def _problem(message: str) -> str:
    return f'<p class="signin-problem" role="alert">{escape(message)}</p>' if message else ""


def signin_page(lang: Lang, csrf: str, next_path: str, problem: str = "") -> str:
    """The sign-in form (name, password) with its CSRF value."""
    return page(
        lang,
        text(lang, "title"),
        f"""{_problem(problem)}<form method="post" action="/signin?lang={lang}">
<label>{escape(text(lang, "name"))}
<input name="name" autocomplete="username" required autofocus maxlength="64"></label>
<label>{escape(text(lang, "password"))}
<input type="password" name="password" autocomplete="current-password" required></label>
<input type="hidden" name="csrf" value="{escape(csrf)}">
<input type="hidden" name="next" value="{escape(next_path)}">
<button type="submit">{escape(text(lang, "submit"))}</button>
</form>""",
    )


def link_page(lang: Lang, csrf: str, code: str, user: str, problem: str = "") -> str:
    """A one-time link's form: the new password."""
    lead = text(lang, "link_lead").format(user=user)
    return page(
        lang,
        text(lang, "link_title"),
        f"""<p>{escape(lead)}</p>{_problem(problem)}
<form method="post" action="/signin/link?lang={lang}">
<input type="hidden" name="username" value="{escape(user)}" autocomplete="username">
<label>{escape(text(lang, "password"))}
<input type="password" name="password" autocomplete="new-password" required
  minlength="{MIN_PASSWORD}" autofocus></label>
<input type="hidden" name="csrf" value="{escape(csrf)}">
<input type="hidden" name="code" value="{escape(code)}">
<button type="submit">{escape(text(lang, "submit"))}</button>
</form>""",
    )


def gone_page(lang: Lang) -> str:
    """A one-time link that was used or has expired."""
    return page(lang, text(lang, "link_title"), f"<p>{escape(text(lang, 'link_gone'))}</p>")


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a path of this site, else ``/``."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    return value


async def form_of(request: Request) -> dict[str, str]:
    """A url-encoded form's fields (the first value of each)."""
    fields = parse_qs((await request.body()).decode("utf-8", "replace"), max_num_fields=20)
    return {name: values[0] for name, values in fields.items()}


def new_csrf(accounts: Accounts) -> str:
    """A signed CSRF value, set as the cookie and placed in the form."""
    return accounts.sign(secrets.token_urlsafe(16), "csrf")


def csrf_ok(accounts: Accounts, request: Request, given: str) -> bool:
    """The form's CSRF value is the cookie's and the server signed it."""
    cookie = request.cookies.get(CSRF_COOKIE, "")
    return bool(
        cookie
        and given
        and hmac.compare_digest(cookie.encode("utf-8", "replace"), given.encode("utf-8", "replace"))
        and accounts.unsign(given, "csrf") is not None
    )


def cookie(name: str, value: str, request: Request, *, max_age: float) -> str:
    """A ``Set-Cookie`` value: HttpOnly, SameSite=Lax, Secure over HTTPS."""
    secure = "; Secure" if request.url.scheme == "https" else ""
    return f"{name}={value}; Path=/; Max-Age={int(max_age)}; HttpOnly; SameSite=Lax{secure}"


def html(page: str, status: int = 200, *cookies: str) -> HTMLResponse:
    """A page that is never cached, setting ``cookies``."""
    response = HTMLResponse(page, status_code=status, headers={"cache-control": "no-store"})
    for value in cookies:
        response.headers.append("set-cookie", value)
    return response
