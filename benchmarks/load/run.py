"""``make load``: Gymnasia web under many people at once, with faults, then the end-state checks.

It brings up a PostgreSQL cluster of its own (``initdb`` in a temporary directory, so it may
restart it; or ``--db-url``), the fake model (``fake_model.py``, a fixed latency),
``gymnasia serve --workers N`` over them, and N accounts; then Locust (``locustfile.py``)
runs the people for ``--duration`` seconds while, at set moments, one worker is killed with
SIGKILL, PostgreSQL is restarted, the model turns slow past the Coach's timeout for a
while, and PostgreSQL stops answering for a while (every one of its processes stopped with
SIGSTOP, then SIGCONT: connections stay open and nothing comes back, as from a paused
host). It prints the throughput, the latency percentiles and errors per endpoint, the
faults, and the end-state checks (``checks.py``), and exits 1 when a check fails.

By default each person acts again as soon as it has its answer and a short pause: the run
finds the most the server gives, and the latency there, at its limit. ``--rate`` paces the
people to ask for that many chat turns a second in all: the latency at that rate.

    .venv/bin/python benchmarks/load/run.py [--users 100] [--duration 120] [--no-faults]
        [--rate 150]
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path

import httpx
import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from checks import (  # noqa: E402 - the benchmark's own modules, next to it
    Check,
    Log,
    check_errors,
    check_isolation,
    check_journals,
    check_people,
    check_writes,
    fresh_workdir,
)
from cluster import Cluster, free_port  # noqa: E402
from cpu import CpuSplit, tree  # noqa: E402
from fake_model import NAME, LoadModel  # noqa: E402

from gymnasia.accounts import AccountStore  # noqa: E402
from surefoot import open_database  # noqa: E402
from surefoot._owner import owner_is_gone  # noqa: E402

PASSWORD = "load-pass-123"
MODEL_TIMEOUT = 2.0
"""The Coach's model timeout in the run (seconds); the slow-model fault goes past it."""
DB_TIMEOUT = 2.0
"""How long the Coach waits for PostgreSQL's answer (``GYMNASIA_DB_TIMEOUT``, seconds); the
fault that stops the server goes past it."""
TARGET_TURNS, TARGET_P99_MS = 150.0, 500
"""The goal for the default run (4 workers, 100 people, on 2 cores): chat turns a second,
and the highest p99 of the chat rows. Printed against what the run did; not a check, since
it measures the machine as much as the code."""


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100, help="simulated people")
    parser.add_argument("--workers", type=int, default=4, help="serve --workers")
    parser.add_argument("--duration", type=int, default=120, help="seconds of load")
    parser.add_argument("--latency", type=float, default=0.05, help="model latency, seconds")
    parser.add_argument("--spawn-rate", type=float, default=25.0, help="people started a second")
    parser.add_argument("--db-url", default=os.environ.get("LOAD_DB_URL"), help="PostgreSQL")
    parser.add_argument("--no-faults", action="store_true", help="load only, no faults")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="chat turns a second the people ask for, paced (default: as fast as answered)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep the logs and Locust's CSV here (an earlier run's are removed first)",
    )
    return parser.parse_args()


@contextmanager
def _database(url: str | None) -> Iterator[tuple[str, Cluster | None]]:
    if url:
        yield url, None
        return
    cluster = Cluster()
    try:
        cluster.start()
        yield cluster.url, cluster
    finally:
        cluster.stop()


def _accounts(url: str, users: int) -> None:
    database = open_database(url)
    try:
        store = AccountStore(database)
        for number in range(1, users + 1):
            store.add(f"load-{number:03d}", PASSWORD)
    finally:
        database.close()


@contextmanager
def _serve(url: str, model_url: str, workers: int, port: int, log: Path) -> Iterator[int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    env["GYMNASIA_DB_TIMEOUT"] = str(DB_TIMEOUT)
    command = [
        sys.executable, "-m", "gymnasia", "serve", "--db", url, "--port", str(port),
        "--workers", str(workers), "--provider", "openai-chat", "--model", NAME,
        "--base-url", model_url, "--api-key", "load", "--timeout", str(MODEL_TIMEOUT),
        "--lang", "es",
    ]  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_ready(f"http://127.0.0.1:{port}", proc)
            yield proc.pid
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()


def _wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("gymnasia serve stopped before it was ready (see its log)")
        try:
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise SystemExit("gymnasia serve was not ready within 120 s")


class Faults:
    """The faults of a run, each at its moment; what happened, for the report."""

    def __init__(
        self, serve_pid: int, cluster: Cluster | None, model: LoadModel, duration: int
    ) -> None:
        self.serve_pid, self.cluster, self.model = serve_pid, cluster, model
        self.duration = duration
        self.report: list[str] = []
        self.database_back: float | None = None
        """When PostgreSQL answered again after its restart (wall clock)."""
        self.killed_at: float | None = None
        """When a worker was killed (wall clock)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _at(self, fraction: float, began: float) -> bool:
        """Sleep until ``fraction`` of the run; False if the run ended first."""
        return not self._stop.wait(max(0.0, began + fraction * self.duration - time.monotonic()))

    def _run(self) -> None:
        began = time.monotonic()
        if self._at(0.3, began):
            self._kill_a_worker()
        if self._at(0.5, began):
            self._restart_database()
        if self._at(0.7, began):
            self._slow_model(0.1 * self.duration)
        if self._at(0.85, began):
            self._silent_database(0.07 * self.duration)

    def _kill_a_worker(self) -> None:
        workers = [
            child
            for child in psutil.Process(self.serve_pid).children()
            if "spawn_main" in " ".join(child.cmdline())  # not multiprocessing's tracker
        ]
        if not workers:
            self.report.append("SIGKILL a worker: no worker found")
            return
        victim = workers[0]
        victim.send_signal(signal.SIGKILL)
        self.killed_at = time.time()
        self.report.append(f"SIGKILL worker pid {victim.pid} at 30% of the run")

    def _restart_database(self) -> None:
        if self.cluster is None:
            self.report.append("PostgreSQL restart: skipped (a --db-url given)")
            return
        down = time.time()
        away = self.cluster.restart()
        self.database_back = time.time()
        self.report.append(f"PostgreSQL stopped (immediate) and started: away {away:.1f} s")
        for after in (2.0, 5.0, 15.0):  # seconds since it was back
            if self._stop.wait(max(0.0, self.database_back + after - time.time())):
                return
            stale = _held_since_before(self.cluster.url, down)
            self.report.append(f"{after:.0f} s after it was back, still held from before: {stale}")

    def _slow_model(self, seconds: float) -> None:
        normal = self.model.latency
        self.model.latency = MODEL_TIMEOUT + 1.0
        self._stop.wait(seconds)
        self.model.latency = normal
        self.report.append(
            f"model slower than the Coach's {MODEL_TIMEOUT:.0f} s timeout for {seconds:.0f} s"
        )

    def _silent_database(self, seconds: float) -> None:
        """Every PostgreSQL process stopped (SIGSTOP) for ``seconds``, then continued: the
        connections stay open and no answer comes, past the Coach's ``DB_TIMEOUT``."""
        if self.cluster is None:
            self.report.append("PostgreSQL silent: skipped (a --db-url given)")
            return
        stopped = []
        for process in self.cluster.processes():
            with suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGSTOP)
                stopped.append(process)
        try:
            self._stop.wait(seconds)
        finally:
            for process in stopped:
                with suppress(psutil.NoSuchProcess):
                    process.send_signal(signal.SIGCONT)
        self.report.append(
            f"PostgreSQL silent (its {len(stopped)} processes stopped with SIGSTOP) for "
            f"{seconds:.0f} s, past the Coach's {DB_TIMEOUT:.0f} s wait for it"
        )


def _held_since_before(url: str, down: float) -> int:
    """Conversations whose hold was last taken or renewed before ``down`` and is still in
    force, by a process that still runs: holds that could not be let go while PostgreSQL was
    away (the lease is 60 s; a hold taken since it is back runs to at least then + 60 s;
    the killed worker's holds are free to take already, as their owner is gone)."""
    database = open_database(url)
    try:
        rows = database.query(
            "SELECT owner FROM sf_conversations WHERE owner IS NOT NULL "
            "AND lease_until > {now} AND lease_until < ?",
            (down + 60.0,),
        )
    finally:
        database.close()
    return sum(1 for (owner,) in rows if not owner_is_gone(str(owner)))


def _locust(base: str, options: argparse.Namespace, workdir: Path, cpu: CpuSplit) -> Path:
    """Run the people; ``cpu`` is measured from their start to their end."""
    env = {
        **os.environ,
        "LOAD_LOG": str(workdir / "log.jsonl"),
        "LOAD_PASSWORD": PASSWORD,
        "LOAD_RATE": str(options.rate),
        "LOAD_USERS": str(options.users),
    }
    command = [
        sys.executable, "-m", "locust", "-f", str(HERE / "locustfile.py"), "--headless",
        "-u", str(options.users), "-r", str(options.spawn_rate), "-t", f"{options.duration}s",
        "--host", base, "--csv", str(workdir / "stats"), "--only-summary",
        "--stop-timeout", "15", "--loglevel", "WARNING",
    ]  # fmt: skip
    with (workdir / "locust.log").open("w") as out:
        locust = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        cpu.start()
        try:
            # waited for here, for its CPU time (its start-up included), which ends with it
            _, status, usage = os.wait4(locust.pid, 0)
            locust.returncode = os.waitstatus_to_exitcode(status)
        finally:
            cpu.stop()
        cpu.used["Locust"] = usage.ru_utime + usage.ru_stime
    return workdir / "stats_stats.csv"


def _table(stats: Path, log: Log, ended: float) -> None:
    """Locust's rows, then the chat turns a second and the goal, over the time Locust
    measured: from when every person had signed in (the people reset Locust's figures then:
    the ramp, all of them signing in within a few seconds, is left out) to the end."""
    print(f"\n{'endpoint':38} {'requests':>9} {'fails':>6} {'req/s':>7} "
          f"{'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}")  # fmt: skip
    chats, p99, seconds = 0, 0, 0.0
    with stats.open() as rows:
        for row in csv.DictReader(rows):
            if row["Request Count"] == "0":  # a route only the ramp took (sign-in)
                continue
            print(
                f"{row['Type'] + ' ' + row['Name']:38.38} {row['Request Count']:>9} "
                f"{row['Failure Count']:>6} {float(row['Requests/s']):>7.1f} "
                f"{row['50%']:>7} {row['95%']:>7} {row['99%']:>7}"
            )
            if row["Name"].startswith("chat:"):  # less the failures: no turn to count
                chats += int(row["Request Count"]) - int(row["Failure Count"])
                p99 = max(p99, int(float(row["99%"])))
            if row["Name"] == "Aggregated" and float(row["Requests/s"]) > 0:
                seconds = int(row["Request Count"]) / float(row["Requests/s"])
    if log.measured_from is None:
        start, since = ended - seconds, "from the start (not every person got through signing in)"
    else:
        start, since = log.measured_from, "from when every person had signed in"
    refused = sum(1 for t in log.refused_at if t >= start)
    turns = chats - refused
    rate = turns / max(seconds, 1e-9)
    print(
        f"\nover the {seconds:.0f} s {since}: chat turns (POST /api/chat "
        f"answered with a turn) {turns} ({rate:.1f}/s; {refused} more refused, busy or "
        f"unavailable, and the failures apart); p99 of the chat rows: up to {p99} ms"
    )
    print(
        f"against the goal of {TARGET_TURNS:.0f} chat turns a second with a p99 of "
        f"{TARGET_P99_MS} ms: {rate:.1f}/s ({_met(rate >= TARGET_TURNS)}), p99 {p99} ms "
        f"({_met(p99 <= TARGET_P99_MS)})"
    )


def _met(ok: bool) -> str:
    return "met" if ok else "not met"


def _after_restart(faults: Faults, log: Log, serve_log: Path) -> None:
    """The 409s around the PostgreSQL restart, per 10 s from 30 s before it was back to 60 s
    after (two tabs of one conversation get some at any time; a hold that could not be let go
    while it was away adds more, until it is released or its 60 s lease runs out), and the
    releases the server's log says failed."""
    back = faults.database_back
    if back is None:
        return
    buckets = Counter(int((t - back) // 10) for t in log.busy_at if -30 <= t - back < 60)
    counts = ", ".join(f"{10 * b:+d}..{10 * b + 10:+d} s {buckets[b]}" for b in range(-3, 6))
    print(f"409 busy around the restart (from when PostgreSQL was back): {counts}")
    failed = serve_log.read_text(errors="replace").count("could not release")
    print(f"releases that failed (serve.log, 'could not release'): {failed}")


def _dropped(faults: Faults, log: Log) -> None:
    """The requests that got no answer at all, by the client's error, and when they came
    from the worker's kill."""
    if not log.dropped:
        print("requests with no answer at all (connection closed or failed): 0")
        return
    kinds = Counter(error.split("(")[0] for _, _, error in log.dropped)
    killed = faults.killed_at
    after = (
        ", ".join(f"{t - killed:+.1f}" for t, _, _ in sorted(log.dropped))
        if killed is not None
        else "no worker killed"
    )
    print(
        f"requests with no answer at all (connection closed or failed): {len(log.dropped)} "
        f"({', '.join(f'{n} x {kind}' for kind, n in kinds.most_common())}); seconds from "
        f"the worker's kill: {after}"
    )


def main() -> int:
    """Run the load and the checks; 1 if a check failed."""
    options = _options()
    with ExitStack() as stack:
        workdir = options.workdir or Path(
            stack.enter_context(tempfile.TemporaryDirectory(prefix="gymnasia-load-"))
        )
        if removed := fresh_workdir(workdir):
            print(f"{workdir}: removed {len(removed)} files of an earlier run")
        url, cluster = stack.enter_context(_database(options.db_url))
        model = stack.enter_context(LoadModel(latency=options.latency))
        _accounts(url, options.users)
        port = free_port()
        serve = _serve(url, model.base_url + "/v1", options.workers, port, workdir / "serve.log")
        pid = stack.enter_context(serve)
        faults = Faults(pid, cluster, model, options.duration)
        if not options.no_faults:
            faults.start()
        cpu = CpuSplit(
            {
                "serve workers": tree(pid),
                "PostgreSQL": cluster.processes if cluster is not None else list,
                "fake model (and this script)": lambda: [psutil.Process()],
            }
        )
        began = time.monotonic()
        stats = _locust(f"http://127.0.0.1:{port}", options, workdir, cpu)
        elapsed, ended = time.monotonic() - began, time.time()
        faults.stop()
        log = Log.read(workdir / "log.jsonl")
        pace = (
            f"paced to ask for {options.rate:g} chat turns a second"
            if options.rate > 0
            else "each acting again 0.1-0.5 s after its answer"
        )
        print(f"{options.users} people ({pace}), serve --workers {options.workers} on "
              f"PostgreSQL, model latency {options.latency * 1000:.0f} ms, "
              f"{elapsed:.0f} s")  # fmt: skip
        _table(stats, log, ended)
        writes = len(log.saved) + len(log.deleted)
        print(
            f"\nchat turns with an acknowledged write, in the whole run: {writes} "
            f"({writes / options.duration:.1f}/s)"
        )
        print(f"CPU while the people ran, in % of one core: {cpu.line()}")
        for line in faults.report:
            print(f"fault: {line}")
        _after_restart(faults, log, workdir / "serve.log")
        _dropped(faults, log)
        model.latency = 0.0
        checks = [
            *check_writes(url, log),
            check_isolation(url, log),
            check_journals(url, model.base_url + "/v1"),
            check_errors(log, faults.killed_at),
            check_people(workdir / "stats_exceptions.csv", log),
        ]
    return _verdict(checks)


def _verdict(checks: list[Check]) -> int:
    print()
    for item in checks:
        print(f"[{'ok' if item.ok else 'FAILED'}] {item.name}: {item.detail}")
    return 0 if all(item.ok for item in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
