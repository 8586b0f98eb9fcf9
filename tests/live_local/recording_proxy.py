"""A small recording HTTP proxy on 127.0.0.1, for the live-local suite.

It sits between ``gymnasia ask`` and the model server: every request is forwarded as it came
(method, path, body, the headers that matter), the whole response is read and sent back, and
both bodies are kept, so a test can assert what reached the model on the wire and read the
``usage`` and ``timings`` the server reported. It keeps at most ``limit`` exchanges and
``body_limit`` bytes of each body; what does not fit is counted, never silently lost.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

_FORWARDED = ("content-type", "authorization", "accept", "user-agent")
"""Request headers passed on (no Accept-Encoding: the recorded responses stay plain text)."""


@dataclass(frozen=True)
class Exchange:
    """One request and its response, as they crossed the proxy."""

    method: str
    path: str
    request_body: bytes
    status: int
    response_body: bytes
    seconds: float
    truncated: bool

    def request_json(self) -> Any:
        """The request body as JSON (None when it is not JSON or was cut)."""
        return _json(self.request_body)

    def response_json(self) -> Any:
        """The response body as JSON (None when it is not JSON or was cut)."""
        return _json(self.response_body)


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


class RecordingProxy:
    """Forwards to ``upstream`` (``http://host:port``, any path) and records each exchange."""

    def __init__(self, upstream: str, *, limit: int = 200, body_limit: int = 4 << 20) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or parts.hostname is None:
            msg = f"the proxy forwards to plain http only, not {upstream!r}"
            raise ValueError(msg)
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self.limit = limit
        self.body_limit = body_limit
        self.dropped = 0
        self._exchanges: list[Exchange] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``: the proxy's own address."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    @property
    def exchanges(self) -> list[Exchange]:
        """What was recorded so far, oldest first (a copy)."""
        with self._lock:
            return list(self._exchanges)

    def chat_exchanges(self) -> list[Exchange]:
        """The Chat Completions requests (``POST …/chat/completions``), oldest first."""
        return [
            e for e in self.exchanges if e.method == "POST" and e.path.endswith("/chat/completions")
        ]

    def _record(self, exchange: Exchange) -> None:
        with self._lock:
            if len(self._exchanges) < self.limit:
                self._exchanges.append(exchange)
            else:
                self.dropped += 1

    def _forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, bytes]:
        conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=1800)
        try:
            conn.request(method, path, body=body or None, headers=headers)
            response = conn.getresponse()
            data = response.read()
            return response.status, response.getheader("Content-Type") or "", data
        finally:
            conn.close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _relay(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k: v for k, v in self.headers.items() if k.lower() in _FORWARDED}
                started = time.monotonic()
                try:
                    status, content_type, data = proxy._forward(
                        self.command, self.path, headers, body
                    )
                except (OSError, http.client.HTTPException) as exc:
                    status, content_type = 502, "text/plain"
                    data = f"recording proxy: upstream failed: {type(exc).__name__}: {exc}".encode()
                limit = proxy.body_limit
                proxy._record(
                    Exchange(
                        method=self.command,
                        path=self.path,
                        request_body=body[:limit],
                        status=status,
                        response_body=data[:limit],
                        seconds=time.monotonic() - started,
                        truncated=len(body) > limit or len(data) > limit,
                    )
                )
                self.send_response(status)
                self.send_header("Content-Type", content_type or "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                """Relay a GET (``/v1/models``, ``/health``)."""
                self._relay()

            def do_POST(self) -> None:
                """Relay a POST (``/v1/chat/completions``)."""
                self._relay()

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
                """Quiet: the exchanges are recorded, not logged."""

        return Handler
