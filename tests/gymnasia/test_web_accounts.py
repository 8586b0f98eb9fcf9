"""The web app with accounts: signing in and out, sessions that end, CSRF and a rate limit on
the sign-in form, one-time links, and every route seeing only the signed-in account's data
(on SQLite and PostgreSQL). Without accounts the app stays as it was: one user, no sign-in."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import Route

from gymnasia.accounts import AccountStore
from gymnasia.store import GymStore
from gymnasia.web import create_app
from gymnasia.web._accounts import Limits
from surefoot import open_database

BASE = "http://127.0.0.1:8000"
PASSWORDS = {"ana": "ana-pass-1234", "bruno": "bruno-pass-1234"}
ANA_MARKERS = ("ana1", "ana-private-value", "61.37", "61,37")
DEFAULT_MARKERS = ("dflt1", "default-private-value", "52.19", "52,19")
NOT_ISOLATION_ROUTES = {
    "/signin": "the sign-in form: no account's data",
    "/signin/link": "a one-time link's form: no account's data",
    "/signout": "ends the session the loop runs in; test_sign_out_ends_the_session covers it",
    "/healthz": "the process answers: no data",
    "/readyz": "the database answers: no data",
    "/static/{name}": "the same files for everyone",
}


def _seed(db: str) -> None:
    """Accounts ana and bruno; ana and the single-user ``default`` each have a note and a
    weight that nobody else may see."""
    database = open_database(db)
    try:
        accounts = AccountStore(database)
        for name, password in PASSWORDS.items():
            assert accounts.add(name, password)
        for user, key, weight in (("ana", "ana1", 61.37), ("default", "dflt1", 52.19)):
            store = GymStore(database, user=user)
            with store.transaction() as tx:
                store.upsert_measurement(tx, dt.date(2020, 1, 1), {"weight_kg": weight})
                store.save_memory(tx, key, "private", f"{user}-private-value")
    finally:
        database.close()


@pytest.fixture
def app(db_url: str) -> FastAPI:
    """The web app on a database with two accounts (strict sign-in limits for the tests)."""
    _seed(db_url)
    return create_app(db=db_url, lang="es", signin_limits=Limits(per_name=3, per_address=10))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    """A client of ``app``, signed in as nobody."""
    with TestClient(app, base_url=BASE) as test_client:
        yield test_client


def _csrf(client: TestClient, path: str = "/signin") -> str:
    page = client.get(path)
    assert page.status_code == 200, page.text
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def sign_in(client: TestClient, name: str, password: str | None = None) -> Any:
    """Sign in through the form as a browser does; returns the form's answer."""
    client.cookies.clear()
    csrf = _csrf(client)
    form = {"name": name, "password": password or PASSWORDS[name], "csrf": csrf, "next": "/"}
    return client.post("/signin", data=form, follow_redirects=False)


def _turn(response: Any) -> dict[str, Any]:
    lines = [json.loads(line) for line in response.text.splitlines() if line]
    done = [e["turn"] for e in lines if e["type"] == "done"]
    assert len(done) == 1, lines
    return dict(done[0])


def test_signing_in_sets_a_signed_httponly_samesite_session(client: TestClient) -> None:
    """The right password opens a session: an HttpOnly, SameSite cookie whose value is signed
    (a changed byte is refused); the page then names the account and offers sign-out."""
    assert client.get("/api/config").status_code == 401
    assert client.get("/api/config").json()["error"] == "signed_out"
    page = client.get("/measurements?lang=en", headers={"accept": "text/html"})
    assert page.status_code == 200  # redirected to the form, which says where to go after
    assert 'name="next" value="/measurements?lang=en"' in page.text
    answer = sign_in(client, "ana")
    assert answer.status_code == 303
    session = next(c for c in answer.headers.get_list("set-cookie") if "gymnasia_session=" in c)
    assert "HttpOnly" in session
    assert "SameSite=Lax" in session
    assert client.get("/api/config").status_code == 200
    home = client.get("/")
    assert 'class="account-name">ana<' in home.text
    assert 'action="/signout' in home.text
    value = client.cookies["gymnasia_session"]
    client.cookies.set(
        "gymnasia_session",
        domain="127.0.0.1",
        value=value[:-1] + ("0" if value[-1] != "0" else "1"),
    )
    assert client.get("/api/config").status_code == 401


def test_a_wrong_password_or_name_opens_no_session(client: TestClient) -> None:
    """A wrong password, an unknown name and an account's name in another case are all
    refused with the same words and no session."""
    for name, password in (("ana", "not-her-pass"), ("nadie", "whatever-1"), ("ANA", None)):
        answer = sign_in(client, name, password or PASSWORDS["ana"])
        assert answer.status_code == 401, name
        assert "El nombre o la contraseña no son correctos." in answer.text
        assert "gymnasia_session" not in answer.headers.get("set-cookie", "")
        assert client.get("/api/config").status_code == 401


def test_the_sign_in_form_needs_its_own_csrf_value(client: TestClient) -> None:
    """Without the form's CSRF value, with one that is not the cookie's, with an unsigned
    one, or from another origin, the right password opens no session."""
    csrf = _csrf(client)
    form = {"name": "ana", "password": PASSWORDS["ana"]}
    assert client.post("/signin", data=form, follow_redirects=False).status_code == 403
    other = _csrf(client)  # a second form: the cookie now holds its value
    stale = client.post("/signin", data={**form, "csrf": csrf}, follow_redirects=False)
    assert stale.status_code == 403
    assert "El formulario caducó." in stale.text
    accented = {**form, "csrf": "ñ.ñ"}  # not ASCII: refused like any other, not a 500
    assert client.post("/signin", data=accented, follow_redirects=False).status_code == 403
    client.cookies.set("gymnasia_csrf", "forged.value", domain="127.0.0.1")
    forged = client.post("/signin", data={**form, "csrf": "forged.value"}, follow_redirects=False)
    assert forged.status_code == 403
    _csrf(client)
    cross = client.post(
        "/signin",
        data={**form, "csrf": client.cookies["gymnasia_csrf"]},
        headers={"origin": "http://evil.example"},
        follow_redirects=False,
    )
    assert cross.status_code == 403
    assert client.get("/api/config").status_code == 401
    assert other != csrf


def test_failed_sign_ins_are_limited_per_name(client: TestClient) -> None:
    """After three failures for a name, even the right password is refused with 429 and
    Retry-After (no password checked); another name still signs in."""
    for _ in range(3):
        assert sign_in(client, "ana", "wrong-pass-0").status_code == 401
    limited = sign_in(client, "ana")
    assert limited.status_code == 429
    assert int(limited.headers["retry-after"]) > 0
    assert "Demasiados intentos fallidos" in limited.text
    assert client.get("/api/config").status_code == 401
    assert sign_in(client, "bruno").status_code == 303


def test_failed_sign_ins_are_limited_per_address(client: TestClient) -> None:
    """Failures across many names from one address reach the address's limit."""
    for index in range(10):
        assert sign_in(client, f"nobody{index}", "wrong-pass-0").status_code == 401
    assert sign_in(client, "bruno").status_code == 429


def test_sign_out_ends_the_session(client: TestClient) -> None:
    """Sign-out clears the cookie and ends the session in the database: the old cookie,
    sent again, is refused."""
    sign_in(client, "ana")
    old = client.cookies["gymnasia_session"]
    form = {"content-type": "application/x-www-form-urlencoded"}  # an empty form, as sent
    out = client.post("/signout", content=b"", headers=form, follow_redirects=False)
    assert out.status_code == 303
    assert out.headers["location"].startswith("/signin")
    assert "Max-Age=0" in out.headers["set-cookie"]
    client.cookies.set("gymnasia_session", domain="127.0.0.1", value=old)
    assert client.get("/api/config").status_code == 401


def test_a_session_ends_when_it_expires(db_url: str) -> None:
    """The cookie lives as long as the session; once the session's end has passed (here set
    in the past in the database) it is refused, and signing in again works."""
    _seed(db_url)
    app = create_app(db=db_url, session_seconds=600.0)
    with TestClient(app, base_url=BASE) as client:
        answer = sign_in(client, "ana")
        assert "Max-Age=600;" in answer.headers["set-cookie"]
        assert client.get("/api/config").status_code == 200
        store: AccountStore = app.state.accounts.store
        with store.db.transaction() as tx:
            tx.execute("UPDATE gym_sessions SET expires_at = {now} - 1")
        assert client.get("/api/config").status_code == 401
        assert sign_in(client, "ana").status_code == 303
        assert client.get("/api/config").status_code == 200


def test_a_one_time_link_sets_the_password_once(app: FastAPI, client: TestClient) -> None:
    """A link made for a new account lets its opener choose the password and signs them in;
    the link then no longer works, and the chosen password does."""
    accounts: AccountStore = app.state.accounts.store
    assert accounts.add("carla", None)
    code = accounts.new_link("carla")
    page = client.get(f"/signin/link?code={code}&lang=en")
    assert page.status_code == 200
    assert "Account &#x27;carla&#x27;" in page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert csrf is not None
    short = {"code": code, "password": "short", "csrf": csrf.group(1)}
    assert client.post("/signin/link", data=short).status_code == 422
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get(f"/signin/link?code={code}").text)
    assert csrf is not None
    chosen = {"code": code, "password": "carla-pass-99", "csrf": csrf.group(1)}
    answer = client.post("/signin/link", data=chosen, follow_redirects=False)
    assert answer.status_code == 303
    assert client.get("/api/config").status_code == 200
    assert client.get(f"/signin/link?code={code}").status_code == 410
    assert sign_in(client, "carla", "carla-pass-99").status_code == 303


def _sample_path(path: str, samples: dict[str, str]) -> str:
    names = re.findall(r"{(\w+)}", path)
    missing = [n for n in names if n not in samples]
    assert not missing, f"{path}: give the isolation test a sample for {missing}"
    for name in names:
        path = path.replace("{" + name + "}", samples[name])
    return path


def _routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, path template) the app serves."""
    out = []
    for route in app.routes:
        if isinstance(route, Route):
            out += [(m, route.path) for m in sorted(route.methods or ()) if m != "HEAD"]
    return out


def _bodies() -> dict[str, dict[str, Any]]:
    return {
        "/api/chat": {"message": "Lista mis notas."},
        "/api/approvals/{conversation_id}/{approval_id}": {"approved": True},
        "/api/measurements/{date}/edit": {"weight_kg": 99.0},
    }


def test_every_route_sees_only_the_signed_in_accounts_data(app: FastAPI) -> None:
    """Bruno calls every route of the app (found by walking its routes, so a new one is
    included) with ana's conversation, approval and date in the path: no answer carries
    ana's or the single user's data, and ana's data, conversation and waiting approval are
    as they were. Signed out, every one of those routes is refused."""
    with TestClient(app, base_url=BASE) as client:
        sign_in(client, "ana")
        turn = _turn(client.post("/api/chat", json={"message": "Borra la nota ana1."}))
        ana_cid, approval = turn["conversation_id"], turn["pending_confirmation"]["id"]
        mine = client.get(f"/api/conversations/{ana_cid}").text + client.get("/measurements").text
        assert "ana1" in mine
        assert "61,37" in mine  # the markers do show, to their owner
        samples = {
            "conversation_id": ana_cid,
            "approval_id": approval,
            "date": "2020-01-01",
            "name": "app.js",
        }
        sign_in(client, "bruno")
        checked = []
        for method, template in _routes(app):
            if template in NOT_ISOLATION_ROUTES:
                continue
            path = _sample_path(template, samples)
            body = _bodies().get(template, {})
            answer = client.request(method, path, json=body if method == "POST" else None)
            leaked = [m for m in ANA_MARKERS + DEFAULT_MARKERS if m in answer.text]
            assert not leaked, f"{method} {template} showed {leaked} to bruno"
            assert answer.status_code < 500, (method, template, answer.text)
            checked.append((method, template))
        assert len(checked) >= 9
        sign_in(client, "ana")
        after = client.get(f"/api/conversations/{ana_cid}").json()
        assert after["pending_confirmation"]["id"] == approval
        assert client.get("/api/measurements").json()["measurements"][0]["weight_kg"] == 61.37
        client.cookies.clear()
        for method, template in checked:
            answer = client.request(method, _sample_path(template, samples), json={})
            assert answer.status_code == 401, (method, template)


def test_the_turns_of_two_accounts_write_to_their_own_rows(db_url: str) -> None:
    """Ana saves a weight through the Coach; it is hers in the database, and bruno's
    measurements stay empty."""
    _seed(db_url)
    with TestClient(create_app(db=db_url), base_url=BASE) as client:
        sign_in(client, "ana")
        turn = _turn(
            client.post("/api/chat", json={"message": "Guarda mi peso: 60 kg el 2020-01-05."})
        )
        assert turn["stop_reason"] == "completed", turn
        sign_in(client, "bruno")
        assert client.get("/api/measurements").json() == {"measurements": []}
    database = open_database(db_url)
    try:
        rows = database.query("SELECT user_id FROM gym_measurements WHERE date = '2020-01-05'")
    finally:
        database.close()
    assert rows == [("ana",)]


def test_without_accounts_the_app_serves_its_one_user_with_no_sign_in(tmp_path: Path) -> None:
    """A database with no account: no sign-in page, no cookie needed, the single user's data
    served, on loopback only."""
    db = str(tmp_path / "single.db")
    store = GymStore(open_database(db))
    with store.transaction() as tx:
        store.save_memory(tx, "dflt1", "private", "default-private-value")
    store.db.close()
    with TestClient(create_app(db=db), base_url=BASE) as client:
        assert client.get("/api/config").status_code == 200
        assert client.get("/signin").status_code == 404
        assert client.get("/", headers={"host": "coach.example"}).status_code == 400
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.get("/readyz").json() == {"status": "ready"}


def test_readiness_answers_503_when_the_database_does_not(app: FastAPI, client: TestClient) -> None:
    """``/readyz`` is 503 with Retry-After once the database is gone; ``/healthz`` stays 200."""
    app.state.coach.db.close()
    ready = client.get("/readyz?lang=en")
    assert ready.status_code == 503
    assert ready.headers["retry-after"] == "5"
    assert ready.json()["message"].startswith("The database is not answering")
    assert client.get("/healthz").status_code == 200


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_users_add_stores_an_argon2_hash_never_the_password(tmp_path: Path) -> None:
    """``users add`` keeps only an Argon2id hash; the same name twice is refused (exit 1),
    a bad name or a short password is a usage mistake (exit 2); ``users list`` names them."""
    db = str(tmp_path / "users.db")
    added = _cli(
        "users", "add", "ana", "--db", db, "--password-stdin", "--lang", "en", stdin="s3cret-pass\n"
    )
    assert added.returncode == 0, added.stderr
    assert "Account 'ana' created" in added.stdout
    raw = Path(db).read_bytes()
    assert b"s3cret-pass" not in raw
    assert b"$argon2id$" in raw
    again = _cli("users", "add", "ana", "--db", db, "--password-stdin", stdin="other-pass-1\n")
    assert again.returncode == 1
    assert "ya existe" in again.stderr
    assert (
        _cli("users", "add", "a b", "--db", db, "--password-stdin", stdin="x" * 9).returncode == 2
    )
    short = _cli("users", "add", "bea", "--db", db, "--password-stdin", stdin="short\n")
    assert short.returncode == 2
    assert "al menos 8" in short.stderr
    link = _cli("users", "add", "carla", "--db", db, "--link", "--url", "http://coach.example/")
    assert link.returncode == 0, link.stderr
    assert re.search(r"http://coach\.example/signin/link\?code=[\w-]{40,}", link.stdout)
    assert _cli("users", "list", "--db", db).stdout.split() == ["ana", "carla"]


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    """``serve --workers 2`` on a SQLite file stops before serving, with a message in the
    person's language saying what to use instead; ``--workers 0`` is refused too."""
    db = str(tmp_path / "one.db")
    for lang, words in (("es", "necesita PostgreSQL"), ("en", "needs PostgreSQL")):
        done = _cli("serve", "--db", db, "--workers", "2", "--lang", lang)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr
        assert "--workers 1" in done.stderr
        assert "Traceback" not in done.stderr
    assert _cli("serve", "--db", db, "--workers", "0").returncode == 2


def test_serve_with_two_workers_on_postgresql_serves_each_account(pg_url: str) -> None:
    """``serve --workers 2`` on PostgreSQL serves accounts: a session opened through one
    connection is found on every new one (the kernel spreads them over the workers), and
    each account's turn writes its own row."""
    _seed(pg_url)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    command = [sys.executable, "-m", "gymnasia", "serve", "--db", pg_url, "--port", str(port)]
    proc = subprocess.Popen(
        [*command, "--workers", "2"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_ready(base)
        for name, kg, when in (("ana", 61, "2020-01-05"), ("bruno", 70, "2020-01-06")):
            with httpx.Client(base_url=base, timeout=60) as client:
                page = client.get("/signin")
                csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
                assert csrf is not None
                form = {"name": name, "password": PASSWORDS[name], "csrf": csrf.group(1)}
                assert client.post("/signin", data=form).status_code == 303
                for _ in range(4):  # new connections: the kernel spreads them over both
                    client.headers["connection"] = "close"
                    assert client.get("/api/config").status_code == 200
                message = f"Guarda mi peso: {kg} kg el {when}."
                turn = _turn(client.post("/api/chat", json={"message": message}))
                assert turn["stop_reason"] == "completed", turn
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    database = open_database(pg_url)
    try:
        rows = database.query(
            "SELECT user_id, date FROM gym_measurements WHERE date >= '2020-01-05' ORDER BY date"
        )
    finally:
        database.close()
    assert rows == [("ana", "2020-01-05"), ("bruno", "2020-01-06")]


def _free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_ready(base: str) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    pytest.fail("serve --workers 2 was not ready")


def test_serve_on_dbos_serves_one_person_in_one_process(pg_url: str) -> None:
    """``serve --engine dbos`` runs one person's turns in one process: with ``--workers 2``, or
    on a database that has accounts, it stops before serving and says why."""
    two = _cli("serve", "--db", pg_url, "--engine", "dbos", "--workers", "2", "--lang", "en")
    assert two.returncode == 2, two.stderr
    assert "one person in one process" in two.stderr
    assert "Traceback" not in two.stderr
    _seed(pg_url)
    accounts = _cli("serve", "--db", pg_url, "--engine", "dbos", "--lang", "es")
    assert accounts.returncode == 2, accounts.stderr
    assert "una sola persona" in accounts.stderr
