"""The test doubles in ``surefoot.testing`` behave as documented (code built on surefoot
tests itself with them), and the lease heartbeat survives a failing renewal."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from surefoot import ConversationBusyError, MemoryJournal, ModelRequest, ModelResponse
from surefoot._heartbeat import Heartbeat
from surefoot.messages import UserMessage
from surefoot.testing import (
    FakeOpenAIChatServer,
    FunctionModel,
    ScriptedModel,
    ScriptError,
    Step,
    turn,
    write_transcript,
)
from surefoot.testing._http import FakeHTTPServer, rechunk

REQUEST = ModelRequest([UserMessage("hola")])


def ask(model: Any, request: ModelRequest = REQUEST) -> ModelResponse:
    response: ModelResponse = asyncio.run(model.request(request))
    return response


# -- scripted and function models -----------------------------------------------------------


def test_a_script_refuses_a_request_it_did_not_expect() -> None:
    """A ``Step`` whose check fails, and a request past the end, raise ``ScriptError``."""
    model = ScriptedModel([Step(turn("uno"), expect=lambda r: len(r.messages) == 2)])
    with pytest.raises(ScriptError, match="request #1 did not meet the script's expectation"):
        ask(model)
    with pytest.raises(ScriptError, match="the script has 1 turn"):
        ask(model)


def test_a_script_knows_what_was_never_asked_for() -> None:
    model = ScriptedModel([turn("uno"), turn("dos")])
    assert ask(model).message.text == "uno"
    assert model.remaining == 1
    with pytest.raises(ScriptError, match="1 scripted turn"):
        model.assert_consumed()


def test_a_function_model_may_be_async_and_may_give_a_whole_response() -> None:
    """An async function is awaited; a ``ModelResponse`` it returns is passed on as is
    (its usage kept); a bare turn is stamped with the model's provider and name."""

    async def plan(request: ModelRequest) -> ModelResponse:
        return ModelResponse(turn(f"{len(request.messages)}"), usage={"input_tokens": 3})

    whole = ask(FunctionModel(plan))
    assert (whole.message.text, whole.usage, whole.message.provider) == (
        "1",
        {"input_tokens": 3},
        None,
    )
    stamped = ask(FunctionModel(lambda request: turn("hola"), model_name="f-1"))
    assert (stamped.message.provider, stamped.message.model) == ("scripted", "f-1")


def test_a_scripted_stream_gives_words_then_the_response() -> None:
    model = ScriptedModel([turn("dos palabras")])

    async def events() -> list[Any]:
        return [e async for e in model.stream(REQUEST)]

    *deltas, done = asyncio.run(events())
    assert [d.text for d in deltas] == ["dos ", "palabras"]
    assert done.response.message.text == "dos palabras"


# -- the HTTP server under the fakes ----------------------------------------------------------


def send(url: str, method: str, data: bytes | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_the_base_server_records_every_request_and_answers_404() -> None:
    """GET, POST and DELETE are recorded with their bodies (text when not JSON) and get the
    default 404; the URL exists only while the server runs."""
    server = FakeHTTPServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    with server:
        base = server.base_url
        answers = [
            send(base + "/a", "GET"),
            send(base + "/b", "POST", b"not json"),
            send(base + "/c", "DELETE"),
        ]
    assert answers == [(404, {"error": "not found"})] * 3
    assert [(r.method, r.path, r.body) for r in server.requests] == [
        ("GET", "/a", None),
        ("POST", "/b", "not json"),
        ("DELETE", "/c", None),
    ]
    with pytest.raises(RuntimeError):
        _ = server.base_url


def test_rechunk_keeps_the_bytes_and_cycles_the_sizes() -> None:
    pieces = list(rechunk([b"abc", b"defgh"], [1, 3, 0]))
    assert pieces == [b"a", b"bcd", b"e", b"f", b"gh"]
    assert b"".join(pieces) == b"abcdefgh"


# -- journals and the heartbeat ---------------------------------------------------------------


def test_write_transcript_refuses_a_conversation_a_turn_holds() -> None:
    journal = MemoryJournal()
    lease = journal.acquire("c1", seconds=30)
    assert lease is not None
    with pytest.raises(ConversationBusyError):
        write_transcript(journal, "c1", [UserMessage("hola")])
    journal.release(lease)
    write_transcript(journal, "c1", [UserMessage("hola")])
    assert journal.load("c1") == [UserMessage("hola")]


def test_a_failing_renewal_is_logged_and_the_others_go_on(caplog: pytest.LogCaptureFixture) -> None:
    """A renewal that raises is logged at debug level; it keeps being tried, and a second
    renewal on the same heartbeat keeps running."""
    failures = threading.Semaphore(0)
    renewed = threading.Semaphore(0)

    def failing() -> None:
        failures.release()
        msg = "database unreachable"
        raise ConnectionError(msg)

    heartbeat = Heartbeat()
    with (
        caplog.at_level(logging.DEBUG, logger="surefoot"),
        heartbeat.keep(failing, every=0.01),
        heartbeat.keep(renewed.release, every=0.01),
    ):
        assert all(failures.acquire(timeout=10) for _ in range(3))
        assert all(renewed.acquire(timeout=10) for _ in range(3))
    assert "lease renewal failed" in caplog.text
    assert "database unreachable" in caplog.text


def test_a_fake_server_is_quiet_about_a_client_that_hung_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A client that times out mid-reply (as the timeout tests make it) leaves no traceback
    on stderr; the server goes on answering the next one."""
    body = b'{"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": true}'
    with FakeOpenAIChatServer([turn("hola"), turn("otra vez")]) as server:
        port = int(server.base_url.rsplit(":", 1)[1])
        server.latency = 0.3
        early = http.client.HTTPConnection("127.0.0.1", port, timeout=0.05)
        early.request("POST", "/v1/chat/completions", body=body)
        with pytest.raises(TimeoutError):
            early.getresponse()
        early.close()
        time.sleep(0.6)  # the server writes its reply to the closed connection
        server.latency = 0.0
        later = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        later.request("POST", "/v1/chat/completions", body=body)
        assert b"chatcmpl-fake2" in later.getresponse().read()  # its second reply
        later.close()
    assert "Traceback" not in capsys.readouterr().err
