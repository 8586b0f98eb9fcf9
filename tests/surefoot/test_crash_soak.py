"""A crash soak of the write ledger: worker processes run writes through
surefoot's ``Executor`` on one SQLite file while a nemesis SIGKILLs them at random and at fail
points, and holds one past its lease with SIGSTOP. Checked before reconciliation: no
confirmed write lost, at most one effect per write, matching arguments, no effect behind a
``failed``; then after it: only ``committed``/``failed`` remain and they agree with the
effects. Two deliberately broken workers prove the checker can fail.

``SUREFOOT_SOAK_SECONDS`` (default 20) and ``SUREFOOT_SOAK_SEED`` tune the soak.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from surefoot import SqlLedger, open_database

WORKER = Path(__file__).with_name("soak_worker.py")
SECONDS = float(os.environ.get("SUREFOOT_SOAK_SECONDS", "20"))
WORKERS = 4
LEASE = 2.0


def _read_log(path: Path) -> list[dict[str, Any]]:
    records = []
    for line in path.read_text().splitlines() if path.exists() else []:
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a torn last line: the write was never reported
    return records


# -- the checker -------------------------------------------------------------------------------


@dataclass
class Verdict:
    """What the checker found: violations (must be none) and counts for the report."""

    violations: list[str] = field(default_factory=list)
    states: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    failpoints: Counter[str] = field(default_factory=Counter)
    effects: int = 0
    integrity: str = ""


Ledger = dict[str, dict[str, Any]]
Effect = tuple[str, str, str, str]


def _load(db_path: Path) -> tuple[Ledger, list[Effect], str]:
    conn = sqlite3.connect(db_path)
    try:
        ledger = {
            row[0]: {
                "tool": row[1],
                "arguments": json.loads(row[2]),
                "state": row[3],
                "result": json.loads(row[4]) if row[4] is not None else None,
            }
            for row in conn.execute("SELECT key, tool, arguments, state, result FROM sf_ledger")
        }
        effects = conn.execute("SELECT key, job, arguments, result FROM soak_effects").fetchall()
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    return ledger, effects, integrity


def _check_confirmed(outcomes: list[dict[str, Any]], ledger: Ledger) -> list[str]:
    """Every write a worker reported as confirmed is committed, with the reported result."""
    bad = []
    for r in outcomes:
        if r["outcome"] != "ok":
            continue
        entry = ledger.get(r["key"])
        state = entry["state"] if entry else "missing"
        if state != "committed":
            bad.append(
                f"confirmed write {r['arguments']['job']} ({r['key']}) is {state} in the ledger"
            )
        elif entry is not None and entry["result"] != r["result"]:
            bad.append(f"confirmed {r['key']} reported {r['result']}, ledger has {entry['result']}")
        if r["state"] != "committed":
            bad.append(f"write {r['key']} confirmed while the ledger showed {r['state']}")
    return bad


def _check_effects(effects: list[Effect], ledger: Ledger) -> list[str]:
    """At most one effect per key and per write, under a claimed key with its arguments,
    never behind a ``failed``, and equal to what a ``committed`` recorded."""
    bad = []
    by_key: dict[str, list[Effect]] = defaultdict(list)
    by_job: Counter[str] = Counter()
    for row in effects:
        by_key[row[0]].append(row)
        by_job[row[1]] += 1
    for key, rows in by_key.items():
        entry = ledger.get(key)
        if len(rows) > 1:
            bad.append(f"key {key} has {len(rows)} effects")
        if entry is None:
            bad.append(f"effect under key {key}, which was never claimed")
        elif json.loads(rows[0][2]) != entry["arguments"]:
            bad.append(
                f"effect of {key} has arguments {rows[0][2]}, the claim {entry['arguments']}"
            )
        elif entry["state"] == "failed":
            bad.append(f"key {key} is failed but has an effect")
        elif entry["state"] == "committed" and json.loads(rows[0][3]) != entry["result"]:
            bad.append(f"key {key} committed {entry['result']} but its effect says {rows[0][3]}")
    bad.extend(f"write {job} has {n} effects" for job, n in by_job.items() if n > 1)
    for key, entry in ledger.items():
        if entry["state"] == "committed" and key not in by_key:
            bad.append(f"key {key} is committed but has no effect")
    return bad


def _check_ledger(ledger: Ledger, *, settled: bool) -> list[str]:
    """One key per write (a second key is a retry); after reconciliation, only settled rows."""
    claims = Counter(e["arguments"]["job"] for e in ledger.values())
    bad = [
        f"write {job} was claimed under {n} keys (retried)" for job, n in claims.items() if n > 1
    ]
    if settled:
        bad.extend(
            f"key {key} is still {e['state']} after reconciliation"
            for key, e in ledger.items()
            if e["state"] not in ("committed", "failed")
        )
    return bad


def check(db_path: Path, logs: Path, *, settled: bool) -> Verdict:
    """Check the ledger, the effects and the workers' logs against each other."""
    ledger, effects, integrity = _load(db_path)
    records = [r for path in sorted(logs.glob("w*.log")) for r in _read_log(path)]
    outcomes = [r for r in records if r["kind"] == "outcome"]
    verdict = Verdict(integrity=integrity, effects=len(effects))
    verdict.states.update(e["state"] for e in ledger.values())
    verdict.failpoints.update(
        r["point"] if r["action"] == "kill" else f"{r['point']}:stop"
        for r in records
        if r["kind"] == "failpoint"
    )
    verdict.outcomes.update(
        "replayed" if r["outcome"] == "ok" and not r["executed"] else r["outcome"] for r in outcomes
    )
    verdict.violations = [
        *_check_confirmed(outcomes, ledger),
        *_check_effects(effects, ledger),
        *_check_ledger(ledger, settled=settled),
    ]
    if integrity != "ok":
        verdict.violations.append(f"integrity_check: {integrity}")
    return verdict


# -- running workers -----------------------------------------------------------------------------


@dataclass
class Lab:
    """One soak's files and processes."""

    root: Path
    lease: float = LEASE
    procs: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    ours: set[int] = field(default_factory=set)
    errors: dict[int, Path] = field(default_factory=dict)
    born: dict[int, int] = field(default_factory=dict)
    paused: dict[int, float] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    incarnations: int = 0

    @property
    def db(self) -> Path:
        """The one SQLite file every worker writes."""
        return self.root / "soak.db"

    @property
    def logs(self) -> Path:
        """Where the workers' logs and stderr go."""
        return self.root / "logs"

    def init(self) -> None:
        """Create the database and the effects table."""
        self.logs.mkdir(parents=True, exist_ok=True)
        _run_worker("init", "--db", str(self.db))

    def start(self, worker: int, *extra: str) -> subprocess.Popen[bytes]:
        """Start (or restart) ``worker`` with extra arguments."""
        self.incarnations += 1
        self.errors[worker] = self.logs / f"w{worker}.{self.incarnations}.err"
        log = self.logs / f"w{worker}.log"
        self.born[worker] = log.stat().st_size if log.exists() else 0
        err = self.errors[worker].open("wb")
        proc = subprocess.Popen(
            [
                sys.executable,
                str(WORKER),
                "work",
                "--db",
                str(self.db),
                "--worker",
                str(worker),
                "--log",
                str(self.logs / f"w{worker}.log"),
                "--lease",
                str(self.lease),
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        err.close()
        self.procs[worker] = proc
        return proc

    def kill(self, worker: int) -> None:
        """SIGKILL ``worker`` (counted as the nemesis's)."""
        proc = self.procs[worker]
        if proc.poll() is None:
            self.ours.add(proc.pid)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            self.counts["kills"] += 1

    def reap(self, worker: int) -> bool:
        """True if ``worker`` was killed; fails the test if it crashed or exited by itself."""
        proc = self.procs[worker]
        code = proc.poll()
        if code is None:
            return False
        if code != -signal.SIGKILL:
            err = self.errors[worker].read_text()
            pytest.fail(f"worker {worker} exited with {code}:\n{err[-3000:]}")
        return True

    def writing(self, worker: int) -> bool:
        """Whether this incarnation of ``worker`` is past its start-up and writing."""
        log = self.logs / f"w{worker}.log"
        alive = self.procs[worker].poll() is None
        return alive and log.exists() and log.stat().st_size > self.born[worker]

    def stop_all(self) -> None:
        """SIGKILL every worker still running and wait for all."""
        for worker in self.procs:
            self.kill(worker)
        for proc in self.procs.values():
            proc.wait(timeout=30)

    def log_of(self, worker: int) -> list[dict[str, Any]]:
        """``worker``'s log records."""
        return _read_log(self.logs / f"w{worker}.log")


def _run_worker(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(WORKER), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _stopped(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def _random_plan(rng: random.Random) -> list[str]:
    if rng.random() < 0.4:
        return []
    point = rng.choice(["after_claim", "after_effect", "in_finalize", "before_ack"])
    tool = "plain_write" if point == "in_finalize" else rng.choice(["atomic_write", "plain_write"])
    return ["--failpoint", point, "--fail-tool", tool, "--fail-at", str(rng.randint(1, 6))]


def _wait_for(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def _stall(lab: Lab, worker: int) -> dict[str, Any]:
    """Stop ``worker`` right after it claimed an atomic write, expire its claim as another
    worker would once the lease ran out, then let it go on: its late commit must be fenced."""
    lab.kill(worker)
    proc = lab.start(
        worker,
        "--failpoint",
        "after_claim",
        "--fail-tool",
        "atomic_write",
        "--fail-action",
        "stop",
    )
    _wait_for(lambda: _stopped(proc.pid) or proc.poll() is not None, 60, "the worker to stop")
    assert proc.poll() is None, "the stalled worker died instead of stopping"
    event = next(r for r in reversed(lab.log_of(worker)) if r["kind"] == "failpoint")
    time.sleep(lab.lease + 0.5)
    db = open_database(str(lab.db))
    try:
        ledger = SqlLedger(db)
        expired = [
            ledger.expire(e.key)
            for e in ledger.entries(state="pending")
            if e.conversation_id.startswith(f"soak-w{worker}-") and e.lease_expired
        ]
    finally:
        db.close()
    fenced = [e.key for e in expired if e is not None and e.state == "unknown"]
    assert event["key"] in fenced
    proc.send_signal(signal.SIGCONT)
    lab.counts["pauses"] += 1

    def logged() -> bool:
        return any(r["kind"] == "outcome" and r["key"] == event["key"] for r in lab.log_of(worker))

    _wait_for(logged, 60, "the stalled write's outcome")
    return next(
        r for r in lab.log_of(worker) if r["kind"] == "outcome" and r["key"] == event["key"]
    )


def _pause(lab: Lab, worker: int, until: float) -> None:
    """SIGSTOP ``worker``; the nemesis SIGCONTs it at ``until`` (past its lease)."""
    proc = lab.procs[worker]
    if proc.poll() is None and worker not in lab.paused:
        proc.send_signal(signal.SIGSTOP)
        lab.paused[worker] = until
        lab.counts["pauses"] += 1


def _resume_due(lab: Lab, *, everyone: bool = False) -> None:
    for worker, until in list(lab.paused.items()):
        if everyone or time.monotonic() >= until:
            lab.procs[worker].send_signal(signal.SIGCONT)
            del lab.paused[worker]


def nemesis(lab: Lab, rng: random.Random, seconds: float) -> dict[str, Any]:
    """Run ``WORKERS`` workers for ``seconds`` of random kills, fail points and pauses."""
    for worker in range(WORKERS):
        lab.start(worker, *_random_plan(rng))
    deadline = time.monotonic() + seconds
    stall_at = time.monotonic() + seconds / 3
    stalled: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        _resume_due(lab)
        for worker in range(WORKERS):
            if lab.reap(worker):
                lab.start(worker, *_random_plan(rng))
        if stalled is None and time.monotonic() >= stall_at and not lab.paused:
            stalled = _stall(lab, rng.randrange(WORKERS))
            continue
        busy = [w for w in range(WORKERS) if lab.writing(w) and w not in lab.paused]
        roll = rng.random()
        if busy and roll < 0.5:
            lab.kill(rng.choice(busy))
        elif busy and roll < 0.58 and not lab.paused:
            _pause(lab, rng.choice(busy), time.monotonic() + lab.lease * 1.5)
        time.sleep(rng.uniform(0.1, 0.4))
    _resume_due(lab, everyone=True)
    lab.stop_all()
    assert stalled is not None, "the soak ended before its stall episode"
    return stalled


@pytest.mark.slow
def test_crash_soak_loses_no_confirmed_write_and_doubles_no_effect(tmp_path: Path) -> None:
    """Kills, fail points, a stall past the lease: invariants hold before and after settling."""
    seed = int(os.environ.get("SUREFOOT_SOAK_SEED", random.randrange(1 << 30)))
    rng = random.Random(seed)
    lab = Lab(tmp_path)
    lab.init()
    started = time.monotonic()
    stalled = nemesis(lab, rng, SECONDS)
    before = check(lab.db, lab.logs, settled=False)
    report = json.loads(_run_worker("reconcile", "--db", str(lab.db)))
    after = check(lab.db, lab.logs, settled=True)
    elapsed = time.monotonic() - started
    print(
        f"\ncrash soak (seed {seed}, {WORKERS} workers, {SECONDS:.0f} s, {elapsed:.1f} s total): "
        f"incarnations={lab.incarnations} kills={lab.counts['kills']} "
        f"failpoints={dict(before.failpoints)} "
        f"pauses={lab.counts['pauses']} writes={sum(before.outcomes.values())} "
        f"{dict(before.outcomes)} effects={after.effects} ledger_before={dict(before.states)} "
        f"open_before_reconcile={report['open']} reconciled={report['reconciled']} "
        f"ledger_after={dict(after.states)} stalled_write={stalled['outcome']} "
        f"violations={len(before.violations) + len(after.violations)}"
    )
    assert before.violations == []
    assert after.violations == []
    assert after.integrity == "ok"
    assert stalled["outcome"] != "ok", "a write fenced off past its lease was confirmed"
    assert stalled["state"] == "unknown"
    assert before.outcomes["ok"] > 0
    assert lab.counts["kills"] > 0


# -- mutation controls ---------------------------------------------------------------------------


def _scripted(tmp_path: Path, mutant: str, failpoint: list[str]) -> Verdict:
    """One worker dies at ``failpoint``, a second incarnation finishes four jobs; no
    reconciliation. The lease is long, so the second incarnation finds the write pending."""
    lab = Lab(tmp_path / mutant, lease=30.0)
    lab.init()
    first = lab.start(0, "--jobs", "4", "--mutant", mutant, *failpoint)
    assert first.wait(timeout=60) == -signal.SIGKILL
    second = lab.start(0, "--jobs", "4", "--mutant", mutant)
    assert second.wait(timeout=60) == 0
    return check(lab.db, lab.logs, settled=False)


RETRY_PLAN = ["--failpoint", "after_effect", "--fail-tool", "plain_write"]
EARLY_ACK_PLAN = ["--failpoint", "after_effect", "--fail-tool", "atomic_write"]


def test_checker_fails_a_worker_that_retries_unknown_writes(tmp_path: Path) -> None:
    """Re-running an unknown write under a new claim is caught (the honest worker passes)."""
    honest = _scripted(tmp_path, "none", RETRY_PLAN)
    assert honest.violations == []
    assert honest.outcomes["in_progress"] == 1  # its claim is still leased: never Ok, never re-run
    mutant = _scripted(tmp_path, "retry_unknown", RETRY_PLAN)
    assert any("has 2 effects" in v for v in mutant.violations), mutant.violations
    assert any("claimed under 2 keys" in v for v in mutant.violations), mutant.violations


def test_checker_fails_a_worker_that_acknowledges_before_the_commit(tmp_path: Path) -> None:
    """Logging a write as confirmed before its ledger commit is caught (the honest one passes)."""
    honest = _scripted(tmp_path, "none", EARLY_ACK_PLAN)
    assert honest.violations == []
    mutant = _scripted(tmp_path, "early_ack", EARLY_ACK_PLAN)
    assert any("is pending in the ledger" in v for v in mutant.violations), mutant.violations
