"""What a misbehaving server does to a request, under the SDK's own HTTP client: each failure
the provider's fake servers cannot produce (they speak HTTP well) becomes the error a person
can act on, and the proxy of the environment is honoured.

The server here answers raw bytes, on 127.0.0.1, one connection at a time (the proxy is a
``FakeHTTPServer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from surefoot import ProviderConnectionError
from surefoot.messages import ModelRequest, UserMessage
from surefoot.providers.openai_chat import OpenAIChatModel
from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply

REQUEST = ModelRequest([UserMessage("hola")])
ANSWER = {
    "id": "c1",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hola."}, "finish_reason": "stop"}
    ],
}


@contextlib.contextmanager
def raw_server(answer: Callable[[bytes], bytes]) -> Iterator[str]:
    """A server on 127.0.0.1 that reads each request whole (its head and a body of
    ``content-length``), writes ``answer(request)`` back and closes the connection; it
    serves at most 20 connections. Yields its address (``host:port``)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)

    def serve() -> None:
        for _ in range(20):
            try:
                connection, _address = listener.accept()
            except OSError:  # closed, or nobody came
                return
            with connection:
                connection.settimeout(10)
                connection.sendall(answer(_read_request(connection)))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.shutdown(socket.SHUT_RDWR)  # wakes the accept that waits
        listener.close()
        thread.join(timeout=10)


def _read_request(connection: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += connection.recv(65536)
    return head + b"\r\n\r\n" + body


def chat(base_url: str) -> OpenAIChatModel:
    """The Chat Completions adapter on ``base_url``, without retries."""
    return OpenAIChatModel("m", api_key="k", base_url=base_url, max_retries=0)


def run(awaitable: Any) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(awaitable, timeout=30)

    return asyncio.run(main())


async def streamed(model: OpenAIChatModel) -> list[Any]:
    return [event async for event in model.stream(REQUEST)]


def test_a_server_that_hangs_up_mid_answer_is_unreachable_not_slow() -> None:
    """A stream cut off after its first event (no closing chunk): the provider is reported
    unreachable (``ProviderConnectionError``), never as a timeout and never as a crash."""
    event = b'data: {"id":"c1","choices":[{"index":0,"delta":{"content":"Ho"}}]}\n\n'
    cut = (
        b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
        + f"{len(event):x}\r\n".encode()
        + event
        + b"\r\n"
    )
    with (
        raw_server(lambda _request: cut) as address,
        pytest.raises(ProviderConnectionError) as caught,
    ):
        run(streamed(chat(f"http://{address}/v1")))
    assert caught.value.kind == "connection"
    assert "timed out" not in caught.value.safe_message


def test_an_answer_that_is_not_http_is_a_connection_error() -> None:
    """Bytes that are not an HTTP response (another service on the port): a connection
    error that is not a timeout."""
    garbage = b"SSH-2.0-OpenSSH_9.6\r\n"
    with (
        raw_server(lambda _request: garbage) as address,
        pytest.raises(ProviderConnectionError) as caught,
    ):
        run(chat(f"http://{address}/v1").request(REQUEST))
    assert "timed out" not in caught.value.safe_message


class _Proxy(FakeHTTPServer):
    """A forward proxy that answers every request itself, as the model would."""

    def handle(self, request: RecordedRequest) -> Reply:
        return Reply.json(200, ANSWER)


def test_the_proxy_of_the_environment_carries_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """``HTTP_PROXY`` is honoured: the request reaches the proxy, for the model's host."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTPS_PROXY", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    with _Proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url)
        monkeypatch.setenv("http_proxy", proxy.base_url)
        reply = run(chat("http://model.invalid/v1").request(REQUEST))
    assert reply.message.text == "Hola."
    first = proxy.requests[0]
    assert (first.method, first.path) == ("POST", "http://model.invalid/v1/chat/completions")
