"""The end-state checks of a load run: what the database holds against what people were
told (``LOAD_LOG``), and every conversation's journal replayed.

* **acknowledged writes stored exactly once** — a note a person was told was saved is in the
  database with its value (unless that person then deleted it), by exactly one committed
  write in the ledger; a note they were told was deleted is gone;
* **nothing unacknowledged stored** — every stored note was asked for by its own account,
  and one that nobody was told about (its turn was cut off) is a committed write in the
  ledger, which the person's writes page shows: reported, not silent;
* **no cross-account reads** — no answer showed a person another account's note, and no
  account's journal holds another's;
* **every journal replays** — each conversation loads, its turns are whole, and a turn that
  was interrupted either resumes to its end now or waits for a person's decision (reported);
* **clean errors** — every refusal was a JSON message (503 with ``Retry-After`` when the
  model or the database could not answer), never a traceback;
* **the people ran** — no person's action ended in an exception of the load test itself
  (Locust's ``stats_exceptions.csv``), and writes were acknowledged: a run whose people
  could not act would otherwise pass every check above with nothing to check.
"""

from __future__ import annotations

import asyncio
import csv
import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_model import NAME  # the benchmark's own module, next to it

from gymnasia.app import open_coach
from surefoot import SqlJournal, open_database
from surefoot.messages import AssistantMessage, HarnessMessage, ToolResultsMessage, UserMessage
from surefoot.providers import make_model

_KEY = re.compile(r"k\.(load-\d+)\.\d+")
LEASE = 60.0
"""The claims' lease in the run (surefoot's default, which the Coach keeps)."""


@dataclass
class Check:
    """One end-state check: its name, whether it held, and what it counted."""

    name: str
    ok: bool
    detail: str


@dataclass
class Log:
    """What the people of the run were told, from ``LOAD_LOG``."""

    saved: set[tuple[str, str]] = field(default_factory=set)
    tried: set[tuple[str, str]] = field(default_factory=set)
    deleted: set[tuple[str, str]] = field(default_factory=set)
    tried_delete: set[tuple[str, str]] = field(default_factory=set)
    ops: Counter[str] = field(default_factory=Counter)
    refusals: list[tuple[float, int]] = field(default_factory=list)
    """Each clean refusal of a turn: when (wall clock), and its status (409 or 503)."""
    dropped: list[tuple[float, str, str]] = field(default_factory=list)
    """Each request that got no answer at all (its connection closed or failed): when, the
    route, the client's error."""
    measured_from: float | None = None
    """When every person had signed in, and Locust's figures started afresh (wall clock)."""

    @property
    def refused(self) -> Counter[int]:
        """The refusals by status."""
        return Counter(status for _, status in self.refusals)

    @property
    def refused_at(self) -> list[float]:
        """When each refusal came (wall clock)."""
        return [t for t, _ in self.refusals]

    @property
    def busy_at(self) -> list[float]:
        """When each ``409 busy`` came (wall clock)."""
        return [t for t, status in self.refusals if status == 409]

    @classmethod
    def read(cls, path: Path) -> Log:
        log = cls()
        if not path.exists():
            return log
        for line in path.read_text(encoding="utf-8").splitlines():
            entry: dict[str, Any] = json.loads(line)
            op = entry["op"]
            log.ops[op] += 1
            if op == "measured":  # the run's, not a person's
                log.measured_from = float(entry["t"])
                continue
            pair = (entry["user"], entry.get("key", ""))
            {
                "save": log.saved,
                "try_save": log.tried,
                "delete": log.deleted,
                "try_delete": log.tried_delete,
            }.get(op, set()).add(pair)
            if op == "dropped":
                log.dropped.append((float(entry["t"]), entry["route"], entry["error"]))
            if op == "refused":
                log.refusals.append((float(entry["t"]), int(entry["status"])))
        return log


RUN_FILES = ("log.jsonl", "locust.log", "serve.log", "stats*.csv")
"""What a run writes in its work directory. Locust's log of what people were told
(``log.jsonl``) is appended to, line by line, so a directory reused for another run must lose
the last run's files first: the checks would read both runs' people as this run's."""


def fresh_workdir(workdir: Path) -> list[Path]:
    """Create ``workdir`` if needed and remove what an earlier run left in it (``RUN_FILES``;
    anything else stays); returns the files removed."""
    workdir.mkdir(parents=True, exist_ok=True)
    removed = sorted({found for pattern in RUN_FILES for found in workdir.glob(pattern)})
    for found in removed:
        found.unlink()
    return removed


def _committed_saves(db: Any) -> Counter[tuple[str, str]]:
    rows = db.query(
        "SELECT user_id, arguments FROM sf_ledger WHERE tool = 'save_memory' "
        "AND state = 'committed'"
    )
    return Counter((str(user), str(json.loads(args)["key"])) for user, args in rows)


def check_writes(url: str, log: Log) -> list[Check]:
    """Acknowledged writes stored exactly once; nothing unacknowledged stored unreported."""
    db = open_database(url)
    try:
        rows = db.query("SELECT user_id, key, value FROM gym_memory WHERE key LIKE 'k.%'")
        committed = _committed_saves(db)
    finally:
        db.close()
    stored = {(str(u), str(k)): str(v) for u, k, v in rows}
    lost = [p for p in log.saved - log.tried_delete if stored.get(p) != p[1]]
    doubled = [p for p in log.saved if committed[p] != 1]
    undeleted = [p for p in log.deleted if p in stored]
    unasked = [p for p in stored if p not in log.tried or _owner(p[1]) != p[0]]
    silent = [p for p in stored if p not in log.saved and committed[p] != 1]
    reported = sum(1 for p in stored if p not in log.saved)
    return [
        Check(
            "acknowledged writes stored exactly once",
            not (lost or doubled or undeleted),
            f"{len(log.saved)} saves and {len(log.deleted)} deletes acknowledged; lost "
            f"{len(lost)}, doubled {len(doubled)}, deleted but still there {len(undeleted)}",
        ),
        Check(
            "nothing unacknowledged stored",
            not (unasked or silent),
            f"{len(stored)} notes stored; never asked for {len(unasked)}; stored without the "
            f"person being told {reported}, of them not reported in the ledger {len(silent)}",
        ),
    ]


def _owner(key: str) -> str:
    found = _KEY.fullmatch(key)
    return found.group(1) if found else ""


def check_isolation(url: str, log: Log) -> Check:
    """No answer showed another account's note; no journal holds another account's."""
    db = open_database(url)
    try:
        rows = db.query("SELECT user_id, payload FROM sf_messages")
    finally:
        db.close()
    mixed = sum(1 for user, payload in rows if {*_KEY.findall(str(payload))} - {str(user)})
    seen = log.ops["foreign"]
    return Check(
        "no cross-account reads",
        seen == 0 and mixed == 0,
        f"answers showing another account's note {seen}; journal messages holding another "
        f"account's note {mixed} (of {len(rows)})",
    )


def check_journals(url: str, model_url: str) -> Check:
    """Every conversation loads and its turns are whole; an interrupted one is resumed now
    (it must end) or waits for a person (reported). Resumed once no write's claim is still
    in force: a turn cut off while its write ran (PostgreSQL went away under it, its worker
    alive) leaves the claim to its lease, and a resume before the lease ends reports the
    write as still in progress, as it should, instead of settling it."""
    db = open_database(url)
    try:
        _claims_lapse(db)
        pairs = db.query("SELECT user_id, id FROM sf_conversations ORDER BY user_id, id")
        broken, resumed, waiting = [], 0, 0
        shapes: list[str] = []
        model = make_model("openai-chat", NAME, api_key="load", base_url=model_url, timeout=30)
        coaches: dict[str, Any] = {}
        for user, cid in pairs:
            messages = SqlJournal(db, user=user).load(cid)
            if not _whole(messages):
                broken.append((user, cid))
                shapes.append(" ".join(type(m).__name__[:4] for m in messages))
            coach = coaches.get(user) or open_coach(db=url, model=model, user=user, database=db)
            coaches[user] = coach
            if coach.agent.pending_confirmation(cid) is not None:
                waiting += 1
            elif coach.agent.unfinished(cid):
                result = asyncio.run(coach.agent.resume(cid))
                resumed += 1
                if result.stop_reason not in ("completed", "awaiting_confirmation"):
                    broken.append((user, cid))
                    shapes.append(f"{user} {cid}: resumed, it ended {result.stop_reason}")
    finally:
        db.close()
    return Check(
        "every journal replays",
        not broken,
        f"{len(pairs)} conversations loaded; interrupted turns resumed now {resumed}, waiting "
        f"for a person's decision {waiting}; broken {len(broken)}"
        + "".join(f"\n    {shape}" for shape in shapes[:5]),
    )


def _claims_lapse(db: Any, limit: float = LEASE + 10.0) -> None:
    """Wait (at most ``limit`` seconds) until no pending write's claim is in force."""
    deadline = time.monotonic() + limit
    while (left := deadline - time.monotonic()) > 0:
        rows = db.query("SELECT MAX(lease_until) - {now} FROM sf_ledger WHERE state = 'pending'")
        held = rows[0][0]
        if held is None or held <= 0:
            return
        time.sleep(min(float(held) + 0.2, left))


def _whole(messages: list[Any]) -> bool:
    """Turns one after another: a user message, then responses each followed by its calls'
    results; a turn may end with the harness's message, or be cut off while the model was
    being asked (a killed worker, the database restarting): the next turn then goes on
    after it, as the harness does. Never a new message while calls wait for results (such
    a turn is resumed first), never results without their calls."""
    expecting = "user"
    calls: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            if expecting == "results":
                return False
            expecting = "response"
        elif isinstance(message, AssistantMessage):
            if expecting != "response":
                return False
            calls = [c.call_id for c in message.tool_calls]
            expecting = "results" if calls else "user"
        elif isinstance(message, ToolResultsMessage):
            if expecting != "results" or [r.call_id for r in message.results] != calls:
                return False
            expecting = "response"
        elif isinstance(message, HarnessMessage):  # a stop ends the turn
            expecting = "user"
    return True


KILL_WINDOW = 5.0
"""Seconds after a worker's kill in which a request with no answer is that worker's (it was
in flight there, or sent on a connection to it)."""


def check_errors(log: Log, killed_at: float | None = None) -> Check:
    """Every refusal a person got was clean. The requests that got no answer at all (their
    connection closed) are counted, and those of the killed worker told apart; a process
    killed mid-answer cannot answer, so they are not unclean answers."""
    unclean = log.ops["unclean"]
    refused = ", ".join(f"{n} x {s}" for s, n in sorted(log.refused.items())) or "none"
    killed = 0
    if killed_at is not None:
        killed = sum(1 for t, _, _ in log.dropped if 0 <= t - killed_at <= KILL_WINDOW)
    return Check(
        "clean errors (JSON message; 503 with Retry-After)",
        unclean == 0,
        f"unclean answers {unclean}; clean refusals: {refused}; no answer at all (connection "
        f"closed) {len(log.dropped)}, of them within {KILL_WINDOW:.0f} s of the worker's kill "
        f"{killed}",
    )


def check_people(exceptions: Path, log: Log) -> Check:
    """The people's actions ran to their end (no exception in the load test's own code) and
    some writes were acknowledged."""
    raised: Counter[str] = Counter()
    if exceptions.exists():
        with exceptions.open(newline="") as rows:
            for row in csv.DictReader(rows):
                raised[row["Message"]] += int(row["Count"])
    acknowledged = len(log.saved) + len(log.deleted)
    first = f"; the first: {next(iter(raised))}" if raised else ""
    return Check(
        "the people ran (no exception in their actions; writes acknowledged)",
        not raised and acknowledged > 0,
        f"exceptions {raised.total()}{first}; writes acknowledged {acknowledged}",
    )
