"""The web app's gate: one ASGI middleware in front of every route.

In order, for every HTTP request:

* **Host** — without an access token the app only answers to loopback host names, so a page
  on another site cannot reach it through DNS rebinding.
* **Access token** — when one is configured, every route needs it: the ``gymnasia_token``
  cookie, an ``Authorization: Bearer`` header or ``X-Gymnasia-Token``. ``?token=...`` on a
  page sets the cookie and redirects to the same address without it.
* **Origin** — a state-changing request (anything but GET/HEAD/OPTIONS) from another origin is
  refused with 403: an ``Origin`` that is not this server's own, or a ``Sec-Fetch-Site`` other
  than ``same-origin`` / ``none``. Those requests must also send JSON.
* **Size** — a request body over ``MAX_BODY`` bytes is refused with 413: at once when its
  ``Content-Length`` says so, else as soon as that many bytes have arrived (the rest is
  never read). A body within the limit is read here and handed on whole.
* **Accounts** — when the app has them (``_accounts``), any host may ask (each request
  then needs a session), and the sign-in forms (``form_paths``) may send a plain HTML form.
  ``/healthz`` and ``/readyz`` (``open_paths``) need no token.
* **Headers** — every response gets a strict Content-Security-Policy (everything is served
  from here, no inline script) and the usual anti-framing and no-sniff headers.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable
from typing import Final
from urllib.parse import urlencode, urlsplit

from starlette.datastructures import URL, Headers, QueryParams
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

AUTH_COOKIE: Final = "gymnasia_token"
AUTH_HEADER: Final = "x-gymnasia-token"
LOOPBACK_HOSTS: Final = frozenset({"127.0.0.1", "localhost", "::1"})
SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})
CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "object-src 'none'"
)
_SECURITY_HEADERS: Final = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)

MAX_BODY: Final = 64 * 1024

TokenPage = Callable[[Scope], str]
"""Renders the 'access token required' page for a request."""
TooLarge = Callable[[Scope], str]
"""The 'request too large' message for a request, in its language."""


def host_name(host_header: str) -> str:
    """The name part of a ``Host`` header: ``[::1]:8000`` → ``::1``, ``a:80`` → ``a``."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    return value.rpartition(":")[0] if value.count(":") == 1 else value


class Guard:
    """Host, token and origin checks, and security headers, around an ASGI app."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        access_token: str | None,
        token_page: TokenPage,
        allowed_hosts: Iterable[str] | None = None,
        too_large: TooLarge | None = None,
        max_body: int = MAX_BODY,
        form_paths: frozenset[str] = frozenset(),
        open_paths: frozenset[str] = frozenset(),
        signed_in: bool = False,
    ) -> None:
        self.app = app
        self._token = access_token
        self._form_paths = form_paths
        self._open_paths = open_paths
        self._token_page = token_page
        self._too_large = too_large
        self._max_body = max_body
        if allowed_hosts is not None:
            self._hosts: frozenset[str] | None = frozenset(h.lower() for h in allowed_hosts)
        else:
            self._hosts = None if access_token or signed_in else LOOPBACK_HOSTS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _respond(send, *refusal)
            return
        if self._token and _query_token(scope, self._token):
            await self._exchange_token(scope, send)
            return
        if scope["method"] not in SAFE_METHODS:
            body = await self._bounded_body(headers, receive)
            if body is None:
                await self._refuse_too_large(scope, send)
                return
            receive = _replay(body, receive)
        await self.app(scope, receive, _with_headers(send))

    async def _bounded_body(self, headers: Headers, receive: Receive) -> bytes | None:
        """The whole body, or None as soon as it is known to be over the limit."""
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self._max_body):
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return b"".join(chunks)
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _refuse_too_large(self, scope: Scope, send: Send) -> None:
        limit = self._max_body // 1024
        message = self._too_large(scope) if self._too_large else f"over {limit} KiB"
        body = json.dumps({"error": "too_large", "message": message}, ensure_ascii=False)
        await _respond(send, 413, "application/json", body.encode(), close=True)

    # -- checks ------------------------------------------------------------------------------

    def _refusal(self, scope: Scope, headers: Headers) -> tuple[int, str, bytes] | None:
        host = headers.get("host", "")
        if self._hosts is not None and host_name(host) not in self._hosts:
            return _json_error(400, "invalid_host")
        path = str(scope.get("path", ""))
        if self._token and path not in self._open_paths and not self._authorized(scope, headers):
            if _query_token(scope, self._token):
                return None
            if _wants_html(scope, headers):
                return 401, "text/html; charset=utf-8", self._token_page(scope).encode()
            return _json_error(401, "unauthorized")
        if scope["method"] not in SAFE_METHODS:
            if not same_origin(headers):
                return _json_error(403, "cross_origin")
            content_type = headers.get("content-type", "").split(";")[0].strip().lower()
            form = path in self._form_paths and content_type == "application/x-www-form-urlencoded"
            if content_type != "application/json" and not form:
                return _json_error(415, "json_required")
        return None

    def _authorized(self, scope: Scope, headers: Headers) -> bool:
        assert self._token is not None
        candidates = [
            cookie_parser(headers.get("cookie", "")).get(AUTH_COOKIE, ""),
            headers.get(AUTH_HEADER, ""),
        ]
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            candidates.append(value.strip())
        return any(_equal(c, self._token) for c in candidates if c)

    async def _exchange_token(self, scope: Scope, send: Send) -> None:
        assert self._token is not None
        url = URL(scope=scope)
        rest = [(k, v) for k, v in QueryParams(url.query).multi_items() if k != "token"]
        target = url.path + ("?" + urlencode(rest) if rest else "")
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = f"{AUTH_COOKIE}={self._token}; Path=/; HttpOnly; SameSite=Strict{secure}"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", target.encode()),
                    (b"set-cookie", cookie.encode()),
                    (b"cache-control", b"no-store"),
                    (b"content-length", b"0"),
                    *_SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})


def _query_token(scope: Scope, token: str) -> bool:
    """A page request whose ``?token=`` is the right one (the guard trades it for the cookie)."""
    if scope["method"] not in ("GET", "HEAD"):
        return False
    given = QueryParams(scope.get("query_string", b"")).get("token")
    return given is not None and _equal(given, token)


def same_origin(headers: Headers) -> bool:
    """Whether a request comes from this server's own pages (or from no browser page)."""
    site = headers.get("sec-fetch-site")
    if site is not None and site.lower() not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return parts.netloc.lower() == headers.get("host", "").strip().lower()


def _equal(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def _wants_html(scope: Scope, headers: Headers) -> bool:
    return not str(scope.get("path", "")).startswith(("/api/", "/static/")) and (
        "text/html" in headers.get("accept", "")
    )


def _json_error(status: int, code: str) -> tuple[int, str, bytes]:
    return status, "application/json", json.dumps({"error": code}).encode()


async def _respond(
    send: Send, status: int, content_type: str, body: bytes, *, close: bool = False
) -> None:
    """Answer at once; ``close`` asks the client to drop the connection (the request body
    was not read)."""
    extra = [(b"connection", b"close")] if close else []
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                *extra,
                *_SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app ``body`` whole, then waits as the server's would."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {name.lower() for name, _ in message.get("headers", [])}
            extra = [(n, v) for n, v in _SECURITY_HEADERS if n not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return wrapped
