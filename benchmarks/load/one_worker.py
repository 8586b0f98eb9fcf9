"""One ``gymnasia serve`` worker serving chat turns for many accounts: what a turn costs.

Where ``make load`` measures the whole (100 people, four workers, Locust and the faults on the
same cores), this measures one worker process apart, in CPU seconds, which a busy machine
changes far less than it changes wall time. It brings up the same pieces (its own PostgreSQL
cluster unless ``--db-url``, the fake model at a fixed latency, accounts) and one
``gymnasia serve --workers 1``, then, one phase after another:

* **sign in**: every account through the form (one Argon2 verification each);
* **first turn**: each account's first chat turn (a note saved), one account at a time;
* **turns**: ``--turns`` more turns for each account, ``--concurrency`` people at once;
* **list** and **open**: as many reads of the list of conversations, and of the
  conversation whole, the pages' requests (``GET /api/conversations[/{id}]``).

For each phase it prints the turns, the wall time, the worker's CPU per request, the CPU of
PostgreSQL's processes per request (own cluster only), the times PostgreSQL flushed its log
to the disk per request (``pg_stat_wal``'s ``wal_sync``: the commits that waited, a flush
shared by commits waiting at once counted once, and the log writer's own flushes; the whole
server's with ``--db-url``), and the latency percentiles. With
``--py-spy DIR`` each phase is also sampled by py-spy (``pip install py-spy``) into
``DIR/<phase>.txt``, the functions that took the worker's CPU, heaviest first.

    .venv/bin/python benchmarks/load/one_worker.py [--accounts 40] [--turns 5] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cluster import Cluster, free_port  # noqa: E402 - the benchmark's own modules, next to it
from cpu import Processes, cpu_by_pid  # noqa: E402
from fake_model import NAME, LoadModel  # noqa: E402
from run import MODEL_TIMEOUT, PASSWORD, _accounts, _wait_ready  # noqa: E402


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=40, help="accounts (people)")
    parser.add_argument("--turns", type=int, default=5, help="turns per account after the first")
    parser.add_argument("--concurrency", type=int, default=8, help="people at once (turns)")
    parser.add_argument("--latency", type=float, default=0.05, help="model latency, seconds")
    parser.add_argument("--db-url", default=os.environ.get("LOAD_DB_URL"), help="PostgreSQL")
    parser.add_argument("--py-spy", type=Path, help="sample each phase with py-spy into DIR")
    return parser.parse_args()


class Person:
    """One account's browser: its cookies and its notes."""

    def __init__(self, base: str, name: str) -> None:
        self.name = name
        self.client = httpx.Client(base_url=base, timeout=120)
        self.seq = 0
        self.cid: str | None = None

    def sign_in(self) -> float:
        began = time.perf_counter()
        page = self.client.get("/signin")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        form = {"name": self.name, "password": PASSWORD, "csrf": found.group(1) if found else ""}
        answer = self.client.post("/signin", data=form)
        if answer.status_code not in (200, 303) or "gymnasia_session" not in self.client.cookies:
            raise SystemExit(f"{self.name} could not sign in: {answer.status_code}")
        return time.perf_counter() - began

    def write(self) -> float:
        """One chat turn that saves a note; its seconds."""
        self.seq += 1
        body: dict[str, object] = {"message": f"k.{self.name}.{self.seq}", "lang": "es"}
        if self.cid:
            body["conversation_id"] = self.cid
        began = time.perf_counter()
        answer = self.client.post("/api/chat", json=body)
        took = time.perf_counter() - began
        events = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
        done = [e["turn"] for e in events if e.get("type") == "done"]
        if answer.status_code != 200 or not done:
            raise SystemExit(
                f"{self.name}: a turn failed: {answer.status_code} {answer.text[:300]}"
            )
        self.cid = done[0]["conversation_id"]
        if not any(c["name"] == "save_memory" and c["executed"] for c in done[0]["tool_calls"]):
            raise SystemExit(f"{self.name}: the turn saved nothing: {done[0]}")
        return took

    def listing(self) -> float:
        """The list of the account's conversations (the chat page's side bar); its seconds."""
        return self._page("/api/conversations")

    def opened(self) -> float:
        """The account's conversation, whole (a tab opened on it); its seconds."""
        return self._page(f"/api/conversations/{self.cid}")

    def _page(self, path: str) -> float:
        began = time.perf_counter()
        answer = self.client.get(path)
        took = time.perf_counter() - began
        if answer.status_code != 200:
            raise SystemExit(f"{self.name}: {path} failed: {answer.status_code}")
        return took


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


@contextmanager
def _serve(url: str, model_url: str, port: int, log: Path) -> Iterator[psutil.Process]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    command = [
        sys.executable, "-m", "gymnasia", "serve", "--db", url, "--port", str(port),
        "--workers", "1", "--provider", "openai-chat", "--model", NAME, "--base-url", model_url,
        "--api-key", "load", "--timeout", str(MODEL_TIMEOUT), "--lang", "es",
    ]  # fmt: skip
    with log.open("w") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_ready(f"http://127.0.0.1:{port}", proc)
            yield psutil.Process(proc.pid)
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()


def _postgres(cluster: Cluster | None) -> Processes:
    """The cluster's processes now (its backends come and go), or none with ``--db-url``."""
    return list if cluster is None else cluster.processes


class Phases:
    """Runs each phase, measuring it (and sampling it with py-spy if asked)."""

    def __init__(
        self,
        server: psutil.Process,
        postgres: Processes,
        spy: Path | None,
        url: str,
    ) -> None:
        self.server, self.postgres, self.spy, self.url = server, postgres, spy, url
        self.rows: list[tuple[str, int, float, float, float, int, list[float]]] = []

    def _flushes(self) -> int:
        """The times the server has flushed its log to the disk so far."""
        import psycopg

        with psycopg.connect(self.url, connect_timeout=10) as conn:
            row = conn.execute("SELECT wal_sync FROM pg_stat_wal").fetchone()
        return int(row[0]) if row else 0

    def run(self, name: str, jobs: list[Callable[[], float]], concurrency: int) -> None:
        sampler = self._sample(name)
        # a backend that ends within the phase takes its CPU time with it: counted as it
        # stands at the start, the phase's backends are those of the one connection
        pg_before = cpu_by_pid(self.postgres())
        flushed = self._flushes()
        server_before = sum(cpu_by_pid([self.server]).values())
        began = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            took = list(pool.map(lambda job: job(), jobs))
        wall = time.perf_counter() - began
        server = sum(cpu_by_pid([self.server]).values()) - server_before
        pg_now = cpu_by_pid(self.postgres())
        pg = sum(cpu - pg_before.get(pid, 0.0) for pid, cpu in pg_now.items())
        flushed = self._flushes() - flushed
        if sampler is not None:
            sampler.send_signal(signal.SIGINT)
            sampler.wait(timeout=60)
            _summarise(self.spy / f"{name}.raw", self.spy / f"{name}.txt")
        self.rows.append((name, len(jobs), wall, server, pg, flushed, took))

    def _sample(self, name: str) -> subprocess.Popen[bytes] | None:
        if self.spy is None:
            return None
        py_spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        self.spy.mkdir(parents=True, exist_ok=True)
        command = [
            py_spy, "record", "--pid", str(self.server.pid), "--rate", "250", "--format", "raw",
            "--output", str(self.spy / f"{name}.raw"), "--nonblocking",
        ]  # fmt: skip
        sampler = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached
        return sampler

    def print(self) -> None:
        print(
            f"{'phase':12} {'requests':>8} {'wall s':>7} {'req/s':>6} {'worker CPU ms/req':>18} "
            f"{'PG CPU ms/req':>14} {'flushes/req':>12} {'p50 ms':>7} {'p99 ms':>7}"
        )
        for name, count, wall, server, pg, flushed, took in self.rows:
            ordered = sorted(took)
            p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
            print(
                f"{name:12} {count:>8} {wall:>7.1f} {count / wall:>6.1f} "
                f"{1000 * server / count:>18.1f} {1000 * pg / count:>14.1f} "
                f"{flushed / count:>12.2f} "
                f"{1000 * statistics.median(took):>7.0f} {1000 * p99:>7.0f}"
            )


def _summarise(raw: Path, out: Path, top: int = 40) -> None:
    """py-spy's collapsed stacks as two lists: the functions the samples were in (self), and
    the functions on the stack (inclusive), heaviest first."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = [_frame(f) for f in stack.split(";")]
        total += int(count)
        own[frames[-1]] += int(count)
        for frame in set(frames):
            inclusive[frame] += int(count)
    lines = [f"{total} samples"]
    for title, counts in (("self", own), ("inclusive", inclusive)):
        lines.append(f"\n-- {title}")
        lines += [f"{100 * n / total:5.1f}%  {name}" for name, n in counts.most_common(top)]
    out.write_text("\n".join(lines) + "\n")


def _frame(frame: str) -> str:
    """``function (path/to/module.py:line)`` as ``function (module.py)``."""
    name, _, where = frame.partition(" (")
    return f"{name} ({Path(where.split(':')[0]).name})"


def main() -> None:
    """Bring the pieces up, run the phases, print what they cost."""
    options = _options()
    with ExitStack() as stack:
        workdir = Path(stack.enter_context(_tempdir()))
        url, cluster = stack.enter_context(_database(options.db_url))
        model = stack.enter_context(LoadModel(latency=options.latency))
        _accounts(url, options.accounts)
        port = free_port()
        server = stack.enter_context(
            _serve(url, model.base_url + "/v1", port, workdir / "serve.log")
        )
        base = f"http://127.0.0.1:{port}"
        people = [Person(base, f"load-{n:03d}") for n in range(1, options.accounts + 1)]
        phases = Phases(server, _postgres(cluster), options.py_spy, url)
        phases.run("sign in", [p.sign_in for p in people], 1)
        phases.run("first turn", [p.write for p in people], 1)
        later = [p.write for _ in range(options.turns) for p in people]
        phases.run("turns", later, options.concurrency)
        pages = [p.listing for _ in range(options.turns) for p in people]
        phases.run("list", pages, options.concurrency)
        pages = [p.opened for _ in range(options.turns) for p in people]
        phases.run("open", pages, options.concurrency)
        load = os.getloadavg()
        print(
            f"one serve worker on PostgreSQL, {options.accounts} accounts, model latency "
            f"{options.latency * 1000:.0f} ms, turns {options.concurrency} at once; "
            f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
        )
        phases.print()


@contextmanager
def _tempdir() -> Iterator[str]:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gymnasia-one-worker-") as path:
        yield path


if __name__ == "__main__":
    main()
