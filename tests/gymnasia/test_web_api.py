"""The web app's API and pages through FastAPI's TestClient (no browser, no network)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Protocol

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from gymnasia.store import GymStore
from gymnasia.web import create_app
from surefoot import open_database
from surefoot.messages import ToolResultsMessage

BASE = "http://127.0.0.1:8000"
SCENARIO_1 = "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01."
FAULTY_WRITE = "Guarda mi peso: 77,0 kg el 2020-01-03."
LEAK_KEY = "sk-ant-test-LEAKCHECK"

Events = list[dict[str, Any]]
MakeClient = Callable[..., TestClient]


class Reply(Protocol):
    """What the tests read of a response (TestClient's and httpx's alike)."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def text(self) -> str: ...


def seed(db: str, *, notes: tuple[str, ...] = ("X", "Y")) -> None:
    """2020-01-01 = 76 kg, and a few memory notes."""
    store = GymStore(open_database(db))
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 1), {"weight_kg": 76.0})
        for key in notes:
            store.save_memory(tx, key, f"note {key}", f"value of {key}")
    store.db.close()


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[MakeClient]:
    """Builds a seeded app and a TestClient for it; closes everything afterwards."""
    with ExitStack() as stack:
        count = 0

        def make(**options: Any) -> TestClient:
            nonlocal count
            count += 1
            db = str(tmp_path / f"web{count}.db")
            seed(db)
            app = create_app(db=db, **{"lang": "es", **options})
            return stack.enter_context(TestClient(app, base_url=BASE))

        yield make


def events(response: Reply) -> Events:
    """The NDJSON events of a streamed turn."""
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in response.text.splitlines() if line.strip()]


def done(items: Events) -> dict[str, Any]:
    """The final event's turn."""
    assert items[-1]["type"] == "done", items[-1]
    turn: dict[str, Any] = items[-1]["turn"]
    return turn


def chat(client: TestClient, message: str, conversation_id: str | None = None) -> Events:
    """One user turn over /api/chat."""
    body: dict[str, Any] = {"message": message}
    if conversation_id is not None:
        body["conversation_id"] = conversation_id
    return events(client.post("/api/chat", json=body))


def ask_delete(client: TestClient, key: str) -> tuple[str, str]:
    """Ask to delete note ``key``; returns (conversation id, pending call id)."""
    turn = done(chat(client, f"Borra la nota {key}."))
    assert turn["stop_reason"] == "awaiting_confirmation"
    pending = turn["pending_confirmation"]
    assert pending["tool"] == "delete_memory"
    assert pending["arguments"] == {"key": key}
    return turn["conversation_id"], pending["id"]


def note(client: TestClient, key: str) -> dict[str, str] | None:
    """The note ``key`` as stored, read through the app's own store."""
    app = client.app
    assert isinstance(app, FastAPI)
    found: dict[str, str] | None = app.state.coach.store.read_memory(key)
    return found


# -- turns -----------------------------------------------------------------------------------


def test_scenario_1_streams_two_reads_first_not_found(make_client: MakeClient) -> None:
    """Scenario 1 over /api/chat: two read_measurement records, the first not_found."""
    client = make_client()
    items = chat(client, SCENARIO_1)
    assert items[0]["type"] == "start"
    calls = [e["call"] for e in items if e["type"] == "call"]
    assert [c["name"] for c in calls] == ["read_measurement", "read_measurement"]
    assert calls[0]["arguments"] == {"date": "2020-01-02"}
    assert calls[0]["outcome"]["error"] == "not_found"
    assert calls[0]["outcome"]["recovery"] == "choose_alternative"
    assert calls[1]["outcome"]["ok"]["weight_kg"] == 76.0
    assert any(e["type"] == "text" for e in items)
    turn = done(items)
    assert turn["stop_reason"] == "completed"
    assert turn["reply"] == "No hay registro para el 2020-01-02. El 2020-01-01 hay 76 kg."
    assert turn["tool_calls"] == calls
    assert turn["conversation_id"] == items[0]["conversation_id"]


def test_fault_injected_write_stops_turn_and_shows_banner(make_client: MakeClient) -> None:
    """A failing write stops the turn after one model request; every page shows the banner."""
    client = make_client(faults=("write_measurement:before_commit",))
    items = chat(client, FAULTY_WRITE)
    turn = done(items)
    assert turn["stop_reason"] == "stop_turn"
    assert turn["reply_author"] == "harness"
    assert turn["model_requests"] == 1
    [call] = turn["tool_calls"]
    assert call["outcome"]["recovery"] == "stop_turn"
    assert call["outcome"]["error"] in ("not_applied", "outcome_unknown")
    harness = [e for e in items if e["type"] == "harness"]
    assert harness == [{"type": "harness", "text": turn["reply"], "reason": "stop_turn"}]
    assert client.get("/api/measurements", params={"from": "2020-01-03"}).json() == {
        "measurements": []
    }
    for path in ("/", "/measurements", "/?lang=en"):
        page = client.get(path).text
        assert 'class="fault-banner"' in page, path
        assert "write_measurement:before_commit" in page, path
    assert client.get("/api/config").json()["faults"] == ["write_measurement:before_commit"]


def test_no_fault_banner_and_offline_label_by_default(make_client: MakeClient) -> None:
    """Without faults there is no banner; the offline model is labelled on every page."""
    client = make_client()
    for path in ("/", "/measurements"):
        page = client.get(path).text
        assert "fault-banner" not in page
        assert 'class="model-label offline-label"' in page
    config = client.get("/api/config").json()
    assert config["offline"] is True
    assert config["faults"] == []


def test_transcript_and_conversations_come_from_the_journal(make_client: MakeClient) -> None:
    """The conversation list and a transcript are rebuilt from the journal with every mark."""
    client = make_client()
    cid = done(chat(client, SCENARIO_1))["conversation_id"]
    listed = client.get("/api/conversations").json()["conversations"]
    assert listed == [{"id": cid, "title": SCENARIO_1, "messages": 1, "pending": False}]
    data = client.get(f"/api/conversations/{cid}").json()
    assert [i["type"] for i in data["items"]] == ["user", "call", "call", "assistant"]
    assert data["items"][1]["call"]["outcome"]["error"] == "not_found"
    assert "ok" in data["items"][2]["call"]["outcome"]
    assert data["pending_confirmation"] is None
    assert client.get("/api/conversations/c_nope").status_code == 404
    assert client.get("/api/conversations/bad%20id").status_code == 422


def test_continuing_a_conversation_keeps_one_transcript(make_client: MakeClient) -> None:
    """A second message with the conversation id continues the same journal entry."""
    client = make_client()
    cid = done(chat(client, SCENARIO_1))["conversation_id"]
    assert done(chat(client, "Guarda mi peso: 77,4 kg el 2020-01-04.", cid))["reply"] == (
        "Guardado: 77,4 kg el 2020-01-04."
    )
    items = client.get(f"/api/conversations/{cid}").json()["items"]
    assert [i["type"] for i in items].count("user") == 2
    assert len(client.get("/api/conversations").json()["conversations"]) == 1


def test_the_list_reads_every_conversation_in_one_round_trip(make_client: MakeClient) -> None:
    """The list of conversations, most recent first, is two statements however many there are
    (which conversations, then one check of every copy this process has read), and a message
    added since is in the next list."""
    client = make_client()
    said = ["Guarda mi peso: 77,4 kg el 2020-01-04.", SCENARIO_1, "Hola"]
    ids = [done(chat(client, message))["conversation_id"] for message in said]
    listed = client.get("/api/conversations").json()["conversations"]
    assert [(c["id"], c["title"], c["messages"]) for c in listed] == [
        (cid, message, 1) for cid, message in reversed(list(zip(ids, said, strict=True)))
    ]
    counts = client.app.state.coach.db.counts  # type: ignore[attr-defined]
    before = counts.round_trips
    assert client.get("/api/conversations").json()["conversations"] == listed
    assert counts.round_trips - before == 2
    done(chat(client, "Hola otra vez", ids[0]))
    again = client.get("/api/conversations").json()["conversations"]
    assert (again[0]["id"], again[0]["messages"]) == (ids[0], 2)


# -- confirmations ---------------------------------------------------------------------------


def test_approving_a_delete_runs_it_once(make_client: MakeClient) -> None:
    """Approve deletes the note; approving again is 409 and runs nothing."""
    client = make_client()
    cid, call_id = ask_delete(client, "X")
    assert note(client, "X") is not None
    items = events(client.post(f"/api/approvals/{cid}/{call_id}", json={"approved": True}))
    [call] = [e["call"] for e in items if e["type"] == "call"]
    assert call["outcome"] == {"ok": {"deleted": "X"}}
    assert done(items)["reply"] == "Nota «X» borrada."
    assert note(client, "X") is None
    again = client.post(f"/api/approvals/{cid}/{call_id}", json={"approved": True})
    assert again.status_code == 409
    assert again.json() == {
        "error": "already_decided",
        "approved": True,
        "message": "Esta confirmación ya estaba decidida; no se ha repetido nada.",
    }
    flipped = client.post(f"/api/approvals/{cid}/{call_id}", json={"approved": False})
    assert flipped.status_code == 409
    app = client.app
    assert isinstance(app, FastAPI)
    messages = app.state.coach.agent.journal.load(cid)
    results = [r for m in messages if isinstance(m, ToolResultsMessage) for r in m.results]
    assert [r.name for r in results] == ["delete_memory"]


def test_denying_a_delete_keeps_the_note(make_client: MakeClient) -> None:
    """Deny records `denied` (choose_alternative) and the note stays."""
    client = make_client()
    cid, call_id = ask_delete(client, "Y")
    items = events(client.post(f"/api/approvals/{cid}/{call_id}", json={"approved": False}))
    [call] = [e["call"] for e in items if e["type"] == "call"]
    assert call["executed"] is False
    assert call["outcome"]["error"] == "denied"
    assert call["outcome"]["recovery"] == "choose_alternative"
    assert done(items)["stop_reason"] == "completed"
    assert note(client, "Y") == {"key": "Y", "description": "note Y", "value": "value of Y"}


def test_english_delete_phrasing_asks_for_confirmation(make_client: MakeClient) -> None:
    """'Delete the note X.' reaches the same confirmation as the Spanish phrasing."""
    client = make_client(lang="en")
    turn = done(chat(client, "Delete the note X."))
    assert turn["pending_confirmation"]["tool"] == "delete_memory"


def test_concurrent_double_approve_runs_once(tmp_path: Path) -> None:
    """Two approvals racing for one call: one runs it, the other gets 409."""
    db = str(tmp_path / "race.db")
    seed(db)
    app = create_app(db=db, lang="es")

    async def race() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as client:
            first = await client.post("/api/chat", json={"message": "Borra la nota X."})
            turn = done(events(first))
            cid, call_id = turn["conversation_id"], turn["pending_confirmation"]["id"]
            url = f"/api/approvals/{cid}/{call_id}"
            return list(
                await asyncio.gather(
                    client.post(url, json={"approved": True}),
                    client.post(url, json={"approved": True}),
                )
            )

    try:
        responses = asyncio.run(asyncio.wait_for(race(), timeout=30))
        assert sorted(r.status_code for r in responses) == [200, 409]
        ran = [r for r in responses if r.status_code == 200]
        calls = [e for e in events(ran[0]) if e["type"] == "call"]
        assert [c["call"]["outcome"] for c in calls] == [{"ok": {"deleted": "X"}}]
        assert app.state.coach.store.read_memory("X") is None
    finally:
        app.state.coach.close()


def test_chat_while_a_confirmation_is_pending_is_refused(make_client: MakeClient) -> None:
    """A new message cannot slip in before a pending call is decided (409, pending shown)."""
    client = make_client()
    cid, call_id = ask_delete(client, "X")
    response = client.post("/api/chat", json={"message": SCENARIO_1, "conversation_id": cid})
    assert response.status_code == 409
    assert response.json()["pending"]["id"] == call_id
    assert client.get(f"/api/conversations/{cid}").json()["pending_confirmation"]["id"] == call_id
    assert client.get("/api/conversations").json()["conversations"][0]["pending"] is True


def test_unknown_confirmation_is_404(make_client: MakeClient) -> None:
    """Deciding a call that is not waiting for anyone is 404 and records nothing."""
    client = make_client()
    cid = done(chat(client, SCENARIO_1))["conversation_id"]
    response = client.post(f"/api/approvals/{cid}/offline_1", json={"approved": True})
    assert response.status_code == 404
    assert client.post("/api/approvals/c_x/y", json={"approved": "yes"}).status_code == 422


# -- security --------------------------------------------------------------------------------


def test_cross_origin_posts_are_refused(make_client: MakeClient) -> None:
    """A POST from another origin (Origin or Sec-Fetch-Site) is 403 and runs nothing."""
    client = make_client()
    body = {"message": SCENARIO_1}
    for headers in (
        {"origin": "http://evil.example"},
        {"origin": "http://127.0.0.1:9999"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site", "origin": BASE},
    ):
        response = client.post("/api/chat", json=body, headers=headers)
        assert response.status_code == 403, headers
        assert response.json() == {"error": "cross_origin"}
    refused = client.post("/api/approvals/c_x/y", json={"approved": True}, headers={"origin": "x"})
    assert refused.status_code == 403
    assert client.get("/api/conversations").json()["conversations"] == []
    ok = client.post(
        "/api/chat", json=body, headers={"origin": BASE, "sec-fetch-site": "same-origin"}
    )
    assert ok.status_code == 200
    form = client.post("/api/chat", content="message=hi", headers={"content-type": "text/plain"})
    assert form.status_code == 415


def test_foreign_host_names_are_refused_without_a_token(make_client: MakeClient) -> None:
    """Without a token only loopback host names are served (no DNS rebinding)."""
    client = make_client()
    assert client.get("/", headers={"host": "evil.example"}).status_code == 400
    assert (
        client.get("/api/conversations", headers={"host": "evil.example:8000"}).status_code == 400
    )
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000"):
        assert client.get("/", headers={"host": host}).status_code == 200, host


def test_access_token_is_required_on_every_route(make_client: MakeClient) -> None:
    """With a token every route needs it; ?token= trades it for an HttpOnly cookie once."""
    token = "tok-0123456789abcdef"
    client = make_client(access_token=token)
    for path in ("/", "/measurements", "/api/conversations", "/api/config", "/static/app.js"):
        assert client.get(path).status_code == 401, path
    page = client.get("/", headers={"accept": "text/html"})
    assert page.status_code == 401
    assert 'name="token"' in page.text
    assert token not in page.text
    assert client.post("/api/chat", json={"message": SCENARIO_1}).status_code == 401
    assert client.get("/", headers={"x-gymnasia-token": "wrong"}).status_code == 401
    assert client.get("/", headers={"x-gymnasia-token": token}).status_code == 200
    assert (
        client.get("/api/config", headers={"authorization": f"Bearer {token}"}).status_code == 200
    )
    assert client.get("/?token=wrong").status_code == 401
    exchange = client.get(f"/measurements?lang=en&token={token}", follow_redirects=False)
    assert exchange.status_code == 303
    assert exchange.headers["location"] == "/measurements?lang=en"
    cookie = exchange.headers["set-cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert client.get("/api/config").status_code == 200  # the cookie now rides along
    assert token not in client.get("/").text
    assert client.get("/", headers={"host": "coach.example"}).status_code == 200


def test_every_response_carries_security_headers(make_client: MakeClient) -> None:
    """Pages and API responses carry a strict CSP and anti-framing headers."""
    client = make_client()
    for path in ("/", "/measurements", "/api/config", "/static/app.js", "/nope"):
        headers = client.get(path).headers
        assert "script-src 'self'" in headers["content-security-policy"], path
        assert headers["x-frame-options"] == "DENY"
        assert headers["x-content-type-options"] == "nosniff"
    for path in ("/docs", "/redoc", "/openapi.json", "/static/../server.py"):
        assert client.get(path).status_code == 404, path


def _get_paths(app: FastAPI, conversation_id: str) -> list[str]:
    paths: list[str] = []
    for route in app.routes:
        if isinstance(route, APIRoute) and "GET" in (route.methods or ()):
            path = route.path.replace("{conversation_id}", conversation_id)
            if "{name}" in path:
                paths.extend(path.replace("{name}", n) for n in ("app.js", "app.css", "x"))
            else:
                paths.append(path)
    return paths


def test_configured_keys_never_appear_in_any_response(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured API key appears in no page, no API answer and no streamed event."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", LEAK_KEY)
    client = make_client(
        secrets=(LEAK_KEY,), faults=("write_measurement:before_commit", "read_memory:read_error")
    )
    bodies: list[str] = []
    responses: list[Reply] = [
        client.post("/api/chat", json={"message": SCENARIO_1}),
        client.post("/api/chat", json={"message": FAULTY_WRITE}),
        client.post("/api/chat", json={"message": "Lee la nota X."}),
        client.post("/api/chat", json={"message": f"Guarda la nota k: {LEAK_KEY}"}),
        client.post("/api/chat", json={"message": "Borra la nota X."}),
    ]
    cid, call_id = done(events(responses[-1]))["conversation_id"], "offline_1"
    responses.append(client.post(f"/api/approvals/{cid}/{call_id}", json={"approved": True}))
    responses.append(client.post(f"/api/approvals/{cid}/{call_id}", json={"approved": True}))
    responses.append(client.post("/api/chat", json={"message": 1}))
    app = client.app
    assert isinstance(app, FastAPI)
    queries = ("", "?lang=en", "?lang=pt")
    responses.extend(client.get(p + q) for p in _get_paths(app, cid) for q in queries)
    responses.append(client.get("/api/conversations/c_missing"))
    for response in responses:
        bodies.append(response.text)
        bodies.append(json.dumps(dict(response.headers)))
    assert len(bodies) > 40
    leaked = [b[:120] for b in bodies if LEAK_KEY in b or "LEAKCHECK" in b]
    assert leaked == []


# -- pages -----------------------------------------------------------------------------------


def test_measurements_page_draws_one_point_per_saved_weight(make_client: MakeClient) -> None:
    """The chart has one .weight-point per saved weight (a record without one draws none)."""
    client = make_client()
    store = client.app.state.coach.store  # type: ignore[attr-defined]
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 4), {"weight_kg": 77.4})
        store.upsert_measurement(tx, dt.date(2020, 1, 9), {"waist_cm": 80.0})
        store.upsert_measurement(tx, dt.date(2020, 1, 12), {"weight_kg": 75.9})
    page = client.get("/measurements").text
    points = re.findall(r'<circle class="weight-point"[^>]*data-date="([\d-]+)"', page)
    assert points == ["2020-01-01", "2020-01-04", "2020-01-12"]
    assert page.count("<tr data-date=") == 4
    assert "77,4" in page
    rows = client.get("/api/measurements", params={"from": "2020-01-02"}).json()["measurements"]
    assert [r["date"] for r in rows] == ["2020-01-04", "2020-01-09", "2020-01-12"]
    assert client.get("/api/measurements", params={"from": "01/02/2020"}).status_code == 422


def test_empty_measurements_page_says_so(tmp_path: Path) -> None:
    """With no data the page says there is nothing yet, and draws no chart."""
    app = create_app(db=str(tmp_path / "empty.db"), lang="en")
    with TestClient(app, base_url=BASE) as client:
        page = client.get("/measurements").text
    assert "No measurements saved yet" in page
    assert "weight-point" not in page


def test_lang_query_overrides_the_server_language(make_client: MakeClient) -> None:
    """?lang= switches the interface language and is remembered (a cookie); an unknown value
    falls back to the remembered one, else to the server's."""
    client = make_client(lang="es")
    assert '<html lang="es">' in client.get("/").text
    pt = client.get("/measurements?lang=pt").text
    assert '<html lang="pt">' in pt
    assert "Medidas corporais" in pt
    en = client.get("/?lang=en").text
    assert "Tool trace" in en
    assert "Offline model" in en
    assert '<html lang="en">' in client.get("/?lang=xx").text
    assert '<html lang="en">' in client.get("/measurements").text
    client.cookies.clear()
    assert '<html lang="es">' in client.get("/?lang=xx").text


# -- the serve command -----------------------------------------------------------------------


def _serve(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    db = str(tmp_path / "serve.db")
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", "serve", "--db", db, "--lang", "en", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("--host", "0.0.0.0"),
        ("--host", "0.0.0.0", "--allow-remote"),
        ("--host", "192.0.2.10", "--access-token", "t0ken-t0ken"),
    ],
)
def test_serve_refuses_a_public_host_without_remote_and_token(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    """`serve` on a non-loopback host needs --allow-remote and a token, else exit 2."""
    done_ = _serve(*args, tmp_path=tmp_path)
    assert done_.returncode == 2, done_.stderr
    assert "not a loopback address" in done_.stderr
    assert done_.stdout == ""


def test_serve_rejects_an_invalid_fault_before_serving(tmp_path: Path) -> None:
    """An invalid --fault pair is a usage error (exit 2), not a running server."""
    done_ = _serve("--fault", "read_measurement:before_commit", tmp_path=tmp_path)
    assert done_.returncode == 2
    assert "read_measurement" in done_.stderr


def test_a_turn_that_loses_its_conversation_after_a_write_says_what_it_saved(
    tmp_path: Path,
) -> None:
    """Another process takes the conversation over after the write committed: the chat's
    error names the saved write, never "nothing was done"."""
    from surefoot.messages import ModelRequest
    from surefoot.testing import FunctionModel, call, turn

    db = str(tmp_path / "lost.db")
    seed(db)

    def plan(request: ModelRequest) -> Any:
        if len(request.messages) == 1:
            return turn(call("write_measurement", {"date": "2020-01-03", "weight_kg": 77.0}))
        thief = open_database(db)  # another process takes the conversation over
        thief.query("UPDATE sf_conversations SET owner = 'another', fence = fence + 1")
        thief.close()
        return turn("Guardado.")

    app = create_app(db=db, lang="es", model=FunctionModel(plan))
    with TestClient(app, base_url=BASE) as client:
        found = chat(client, "Guarda mi peso: 77 kg el 2020-01-03.")
    (error,) = [e for e in found if e["type"] == "error"]
    assert error["error"] == "busy"
    assert error["done"] == ["• guardado: peso 77 kg (2020-01-03)"]
    assert "No se ha hecho nada" not in error["message"]
    assert "peso 77 kg (2020-01-03)" in error["message"]


def test_events_waiting_together_are_written_together() -> None:
    """A turn's events that are already queued when the stream asks for more go out in one
    write; one that comes later is written when it comes (nothing waits to be grouped)."""
    from gymnasia.web.server import _Web

    class Lines:
        def _line(self, item: dict[str, Any]) -> bytes:
            return (json.dumps(item) + "\n").encode()

    async def chunks() -> list[bytes]:
        queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        for kind in ("text", "call"):
            queue.put_nowait({"type": kind})
        stream = _Web._lines(Lines(), queue, [{"type": "start"}], ended=False)  # type: ignore[arg-type]
        written = [await anext(stream)]
        asyncio.get_running_loop().call_later(0.05, queue.put_nowait, {"type": "done"})
        asyncio.get_running_loop().call_later(0.05, queue.put_nowait, None)
        written += [chunk async for chunk in stream]
        return written

    written = asyncio.run(chunks())
    assert [chunk.count(b"\n") for chunk in written] == [3, 1]
    lines = b"".join(written).decode().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["start", "text", "call", "done"]


@pytest.mark.parametrize(
    ("message", "waits"),
    [("¿Cuánto pesaba el 2020-01-01?", 1), ("Hoy peso 75 kg", 3), ("hola", 1)],
)
def test_a_chat_turn_on_postgresql_waits_for_the_disk_only_where_it_must(
    pg_url: str, message: str, waits: int
) -> None:
    """On PostgreSQL a chat turn's journal commits (the hold taken, the person's message, the
    model's answers) do not wait for the disk. What waits: a write's claim and the write
    itself, and the hold given back, which covers the journal's commits before the person
    is told the turn is done; the turn's own wait at its end is not paid a second time."""
    import dataclasses

    seed(pg_url)
    app = create_app(db=pg_url, lang="es")
    with TestClient(app, base_url=BASE) as client:
        cid = done(chat(client, "hola"))["conversation_id"]  # the journal's copy is warm
        counts = app.state.coach.db.counts
        before = dataclasses.replace(counts)
        turn = done(chat(client, message, cid))
    deferred = counts.deferred - before.deferred
    assert counts.commits - before.commits - deferred == waits, turn
    assert deferred >= 3  # the hold, the person's message and the model's last answer
