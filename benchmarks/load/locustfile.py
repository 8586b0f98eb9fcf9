"""The people of the load test (Locust): each signs in to an account of its own and then
writes notes through the Coach, reads them back (pages and turns), deletes one after saying
yes to the confirmation, and now and then sends two messages at once from two tabs of one
conversation.

By default each person acts again 0.1-0.5 s after its last answer, as fast as the server lets
it (a closed loop: the rate is what the server can give). With ``LOAD_RATE`` (chat turns a
second, all the people together, ``LOAD_USERS`` of them) each person starts its actions at
random times instead, so many a second on average that together they ask for that rate
whatever the server answers: the latency is then the server's at that rate, not at its
limit.

Every write a person was told was done is logged (``LOAD_LOG``, one JSON object a line) with
every write that was tried, for the end-state checks of ``run.py``; so is every answer that
showed a person another account's key (``foreign``) and every error that was not clean (no
JSON message, a traceback, a 5xx other than 503 with ``Retry-After``).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import random
import re
import threading
import time
from typing import Any
from urllib.parse import urlencode

import gevent
from locust import FastHttpUser, task

PASSWORD = os.environ.get("LOAD_PASSWORD", "load-pass-123")
LOG_PATH = os.environ.get("LOAD_LOG", "load-log.jsonl")
_NUMBERS = itertools.count(1)
_SIGNED_IN = itertools.count(1)
PEOPLE = int(os.environ.get("LOAD_USERS") or 1)
_LOG_LOCK = threading.Lock()
_KEY = re.compile(r"k\.(load-\d+)\.\d+")
WRITE, READ, DELETE, TABS = 5, 3, 1, 1
"""The actions' weights: how often a person picks each."""
CHATS_PER_ACTION = (WRITE + READ + DELETE + 2 * TABS) / (WRITE + READ + DELETE + TABS)
"""Chat turns an action sends, on average (two tabs send two; the others one, once the person
has a note to read or delete)."""


@functools.cache
def _log_file() -> Any:
    """The run's log, opened at the first entry and kept open for the run's whole life
    (line-buffered: each entry is in the file as soon as it is logged, whatever becomes of
    Locust afterwards)."""
    return open(LOG_PATH, "a", encoding="utf-8", buffering=1)


def log(entry: dict[str, Any]) -> None:
    """Append one entry to the run's log, a whole line at once."""
    with _LOG_LOCK:
        _log_file().write(json.dumps(entry) + "\n")


def _measure_from_now(environment: Any) -> None:
    """Every person has signed in: Locust's figures start afresh from here (the sign-ins of
    the ramp, all the people at once, are a crowd no steady service sees), and the moment is
    logged for the run's own counts over the same time."""
    environment.stats.reset_all()
    log({"op": "measured", "t": time.time()})


def _gap() -> float | None:
    """Seconds between a person's action starts on average, with ``LOAD_RATE``; else None."""
    rate = float(os.environ.get("LOAD_RATE") or 0)
    if rate <= 0:
        return None
    return PEOPLE * CHATS_PER_ACTION / rate


GAP = _gap()


class Person(FastHttpUser):
    """One account, one main conversation, its notes (Locust's geventhttpclient user: a
    fraction of the CPU per request of its ``requests`` one, on the cores the server uses)."""

    _due = 0.0
    """When the next action is due to start, with ``GAP`` (monotonic clock)."""

    def wait_time(self) -> float:
        """0.1-0.5 s after the answer; with ``GAP``, starts at random times, ``GAP`` seconds
        apart on average (a Poisson process: independent people, who do not fall into step
        as people at a fixed pace do after a slow moment). An action that ends after the
        next start was due is followed at once, with no run of actions to catch up."""
        if GAP is None:
            return random.uniform(0.1, 0.5)
        now = time.monotonic()
        self._due = max((self._due or now) + random.expovariate(1 / GAP), now)
        return self._due - now

    def on_start(self) -> None:
        self.name = f"load-{next(_NUMBERS):03d}"
        self.seq = 0
        self.cid: str | None = None
        self.saved: list[str] = []
        self._sign_in()
        if next(_SIGNED_IN) == PEOPLE:
            _measure_from_now(self.environment)

    def _sign_in(self) -> None:
        """Through the form, as a browser does (again whenever a session is gone)."""
        page = self.client.get("/signin", name="/signin")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text or "")
        form = {"name": self.name, "password": PASSWORD, "csrf": found.group(1) if found else ""}
        self.client.post(
            "/signin",
            data=urlencode(form),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            name="/signin [post]",
            allow_redirects=False,
        )

    def _key(self) -> str:
        self.seq += 1
        return f"k.{self.name}.{self.seq}"

    def _check(self, name: str, response: Any) -> bool:
        """Count another account's key and any error that is not clean; False when no answer
        came at all (the connection closed or failed: Locust counts it as a failure)."""
        if response.text is None:
            error = repr(getattr(response, "error", None))[:200]
            log({"op": "dropped", "user": self.name, "route": name, "error": error,
                 "t": time.time()})  # fmt: skip
            return False
        foreign = {m for m in _KEY.findall(response.text) if m != self.name}
        if foreign:
            log({"op": "foreign", "user": self.name, "route": name, "seen": sorted(foreign)})
        status = response.status_code
        clean = status < 500 or (status == 503 and "retry-after" in response.headers)
        if status >= 400:
            try:
                clean = clean and bool(response.json().get("message"))
            except ValueError:
                clean = False
        if "Traceback" in response.text:
            clean = False
        if not clean:
            log({"op": "unclean", "user": self.name, "route": name, "status": status})
        if status == 401:  # signed out (a sign-in cut off by a killed worker): sign in again
            self._sign_in()
        return True

    def _chat(self, message: str, cid: str | None, name: str) -> dict[str, Any] | None:
        """One turn; its final JSON when it ran to the end."""
        body: dict[str, Any] = {"message": message, "lang": "es"}
        if cid:
            body["conversation_id"] = cid
        with self.client.post("/api/chat", json=body, name=name, catch_response=True) as r:
            if not self._check(name, r):
                r.failure(f"no answer: {r.error!r}")
                return None
            if r.status_code in (409, 503):
                r.success()  # a clean refusal, counted apart in the table
                log({"op": "refused", "user": self.name, "status": r.status_code,
                     "t": time.time()})  # fmt: skip
                return None
            events = [json.loads(line) for line in r.text.splitlines() if line.strip()]
            done = [e["turn"] for e in events if e.get("type") == "done"]
            return dict(done[0]) if done else None

    def _write(self, cid: str | None, name: str) -> None:
        key = self._key()
        log({"op": "try_save", "user": self.name, "key": key})
        turn = self._chat(key, cid, name)
        if turn is None:
            return
        self.cid = self.cid or turn["conversation_id"]
        if _ok(turn, "save_memory"):
            self.saved.append(key)
            log({"op": "save", "user": self.name, "key": key, "cid": turn["conversation_id"]})

    @task(WRITE)
    def write(self) -> None:
        self._write(self.cid, "chat: write")

    @task(READ)
    def read(self) -> None:
        listing = self.client.get("/api/conversations", name="/api/conversations")
        self._check("/api/conversations", listing)
        if self.cid:
            r = self.client.get(f"/api/conversations/{self.cid}", name="/api/conversations/{id}")
            self._check("/api/conversations/{id}", r)
        if self.saved:
            turn = self._chat(f"read {random.choice(self.saved)}", self.cid, "chat: read")
            if turn is not None and not _ok(turn, "read_memory"):
                log({"op": "read_failed", "user": self.name})

    @task(DELETE)
    def delete_with_approval(self) -> None:
        if not self.saved:
            return
        key = self.saved.pop(0)
        log({"op": "try_delete", "user": self.name, "key": key})
        turn = self._chat(f"delete {key}", None, "chat: delete")
        if turn is None or turn.get("pending_confirmation") is None:
            return
        cid, approval = turn["conversation_id"], turn["pending_confirmation"]["id"]
        name = "/api/approvals/{cid}/{id}"
        url = f"/api/approvals/{cid}/{approval}"
        with self.client.post(url, json={"approved": True}, name=name, catch_response=True) as r:
            if not self._check(name, r):
                r.failure(f"no answer: {r.error!r}")
                return
            if r.status_code != 200:
                r.success()  # a clean refusal (the decision already made, or busy)
                return
            events = [json.loads(line) for line in r.text.splitlines() if line.strip()]
            done = [e["turn"] for e in events if e.get("type") == "done"]
        if done and _ok(done[0], "delete_memory"):
            log({"op": "delete", "user": self.name, "key": key})

    @task(TABS)
    def two_tabs(self) -> None:
        if self.cid is None:
            return
        tabs = [gevent.spawn(self._write, self.cid, "chat: two tabs") for _ in range(2)]
        gevent.joinall(tabs)


def _ok(turn: dict[str, Any], tool: str) -> bool:
    """The turn ran ``tool`` and it succeeded (what the person is told was done)."""
    return any(
        c["name"] == tool and c["executed"] and "ok" in c["outcome"] for c in turn["tool_calls"]
    )
