"""A small real HTTP server on 127.0.0.1 for fake provider APIs.

Subclasses implement ``handle``; the server records every request (method, path, headers,
JSON body) and can cut streamed bodies into chunks of odd sizes to exercise SSE parsers.
It binds only to the loopback address, serves on a daemon thread, and stops on ``close``.
``ScriptedHTTPServer`` adds the script of assistant turns the fake provider APIs play.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from .._exceptions import ScriptError
from .._messages import AssistantMessage


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass(slots=True)
class Reply:
    """What the fake server answers: a status, headers, and a body (bytes or SSE chunks)."""

    status: int
    body: bytes | Iterable[bytes] = b""
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, payload: Any) -> Reply:
        """A JSON reply."""
        return cls(status, json.dumps(payload).encode(), {"content-type": "application/json"})

    @classmethod
    def sse(cls, events: Iterable[bytes]) -> Reply:
        """A ``text/event-stream`` reply."""
        return cls(200, events, {"content-type": "text/event-stream", "cache-control": "no-cache"})


def sse_event(data: Any, event: str | None = None) -> bytes:
    """One server-sent event with a JSON ``data`` line (and an ``event`` line if given)."""
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


def rechunk(chunks: Iterable[bytes], sizes: Sequence[int]) -> Iterator[bytes]:
    """The same bytes cut into pieces of ``sizes`` (cycled)."""
    data = b"".join(chunks)
    index = 0
    position = 0
    while position < len(data):
        size = max(1, sizes[index % len(sizes)])
        yield data[position : position + size]
        position += size
        index += 1


class FakeHTTPServer:
    """Base class: a threaded loopback HTTP server that records requests."""

    chunk_sizes: Sequence[int] | None = None
    """When set, streamed bodies are re-cut into chunks of these sizes."""
    latency: float = 0.0
    """Seconds each request waits before it is answered, as a model's would; requests wait
    at the same time (a load test's fixed model latency). Set it at any moment."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- to implement ----------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Reply:
        """Answer one request."""
        del request
        return Reply.json(404, {"error": "not found"})

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the running server."""
        if self._server is None:
            msg = "the server is not running; use it as a context manager or call start()"
            raise RuntimeError(msg)
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> Self:
        """Start serving on a free loopback port."""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Each header block and chunk is its own send: with Nagle's algorithm on, a chunk
            # waits for the client's delayed ACK of the one before (some 40 ms a response).
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                outer._serve(self, "GET")

            def do_POST(self) -> None:
                outer._serve(self, "POST")

            def do_DELETE(self) -> None:
                outer._serve(self, "DELETE")

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                del format, args

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -------------------------------------------------------------------------

    def _serve(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        if self.latency > 0:
            time.sleep(self.latency)
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest(
            method, handler.path, {k.lower(): v for k, v in handler.headers.items()}, body
        )
        with self._lock:
            self.requests.append(request)
            reply = self.handle(request)
        self._write(handler, reply)

    def _write(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        handler.send_response(reply.status)
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        if isinstance(reply.body, bytes):
            handler.send_header("content-length", str(len(reply.body)))
            handler.end_headers()
            handler.wfile.write(reply.body)
            return
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        chunks = reply.body
        if self.chunk_sizes:
            chunks = rechunk(chunks, self.chunk_sizes)
        for chunk in chunks:
            handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()


class _Server(ThreadingHTTPServer):
    """The stdlib's threaded server, quiet about a client that hung up mid-reply (one that
    timed out, as the tests of timeouts ask of it); any other error is printed as before."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset
            return
        super().handle_error(request, client_address)


class ScriptedHTTPServer(FakeHTTPServer):
    """Base class of the fake provider APIs: plays scripted assistant ``turns`` in order.

    ``handle`` takes each turn with ``next_turn``; ``served`` counts the turns taken.

    ``cached_input_tokens``: how many input tokens each response says were read from the
    prompt cache, in its API's own shape, on top of the input tokens the fake counts (so the
    adapters' ``input_tokens`` is the same with or without it). None (the default) sends the
    usage each fake always sent; set the attribute between requests to vary it per turn.
    """

    def __init__(
        self,
        turns: Sequence[AssistantMessage],
        *,
        chunk_sizes: Sequence[int] | None = None,
        cached_input_tokens: int | None = None,
    ) -> None:
        super().__init__()
        self.turns = list(turns)
        self.served = 0
        self.cached_input_tokens = cached_input_tokens
        if chunk_sizes is not None:
            self.chunk_sizes = chunk_sizes

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        return len(self.turns) - self.served

    def assert_consumed(self) -> None:
        """Raise ``ScriptError`` if a scripted turn was never asked for."""
        if self.remaining:
            msg = f"{self.remaining} scripted turn(s) were never requested"
            raise ScriptError(msg)

    def next_turn(self) -> AssistantMessage | None:
        """The next scripted turn, now counted as served; None when the script is used up."""
        if not self.remaining:
            return None
        self.served += 1
        return self.turns[self.served - 1]
