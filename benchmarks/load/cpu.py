"""CPU time by part of a load run (the server's workers, PostgreSQL, the fake model, Locust),
read from the processes themselves, so that a run says where the machine's cores went.

A process that ends during the run takes its CPU time with it (a killed worker, a backend of
a connection that closed, PostgreSQL's processes before a restart), so the parts are looked
at every half second while the run lasts: each part counts, per process, what it used
between the first look that saw it and the last one (a process that appeared in between,
from its start). What a process used in its last half second before it ended is not
counted.

The machine's own counters say the rest: how much of its cores stayed idle, and how much the
host of a virtual machine gave to others while this one wanted them (``steal``): a run on a
crowded host is slower with the same code, and says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import psutil

Processes = Callable[[], Iterable[psutil.Process]]
"""The processes of one part now."""


Pid = tuple[int, float]
"""A process: its id and when it started (an id can be given again to a later process)."""


def cpu_by_pid(processes: Iterable[psutil.Process]) -> dict[Pid, float]:
    """User and system CPU seconds of each process that still runs."""
    seen: dict[Pid, float] = {}
    for proc in processes:
        try:
            times = proc.cpu_times()
            seen[proc.pid, proc.create_time()] = times.user + times.system
        except psutil.NoSuchProcess:
            continue
    return seen


def tree(pid: int) -> Processes:
    """A process and its children, as they are when asked."""

    def processes() -> list[psutil.Process]:
        try:
            main = psutil.Process(pid)
            return [main, *main.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    return processes


class CpuSplit:
    """CPU seconds of each part between ``start`` and ``stop``, looked at every ``every``
    seconds in between."""

    def __init__(self, parts: dict[str, Processes], every: float = 0.5) -> None:
        self.parts = parts
        self.every = every
        self._first: dict[str, dict[Pid, float]] = {}
        self._last: dict[str, dict[Pid, float]] = {}
        self._began = 0.0
        self._done = threading.Event()
        self._looking: threading.Thread | None = None
        self.used: dict[str, float] = {}
        self.seconds = 0.0
        self._machine_began: tuple[float, float] = (0.0, 0.0)
        self.idle = 0.0
        self.stolen = 0.0
        """The machine's idle and stolen CPU seconds between ``start`` and ``stop``."""

    def start(self) -> None:
        """Take the first look, then one every ``every`` seconds until ``stop``."""
        self._first = {name: cpu_by_pid(find()) for name, find in self.parts.items()}
        self._last = {name: dict(seen) for name, seen in self._first.items()}
        self._began = time.monotonic()
        self._machine_began = _idle_and_stolen()
        self._done.clear()
        self._looking = threading.Thread(target=self._look_on, name="cpu-split", daemon=True)
        self._looking.start()

    def stop(self) -> None:
        """Take the last look: ``used`` by part, over ``seconds``."""
        self._done.set()
        if self._looking is not None:
            self._looking.join()
        self.seconds = time.monotonic() - self._began
        idle, stolen = _idle_and_stolen()
        self.idle, self.stolen = idle - self._machine_began[0], stolen - self._machine_began[1]
        self._look()
        for name in self.parts:
            first = self._first.get(name, {})
            last = self._last.get(name, {})
            self.used[name] = sum(cpu - first.get(pid, 0.0) for pid, cpu in last.items())

    def _look_on(self) -> None:
        while not self._done.wait(self.every):
            self._look()

    def _look(self) -> None:
        """Each part's processes now: the CPU of each one, kept as its latest."""
        for name, find in self.parts.items():
            self._last.setdefault(name, {}).update(cpu_by_pid(find()))

    def line(self) -> str:
        """``name N% of a core`` for each part, heaviest first, then the machine's idle and
        stolen shares, in % of a core as well."""
        shares = sorted(self.used.items(), key=lambda item: -item[1])
        seconds = max(self.seconds, 1e-9)
        parts = ", ".join(f"{name} {100 * used / seconds:.0f}%" for name, used in shares)
        return (
            f"{parts}; the machine ({psutil.cpu_count()} cores): idle "
            f"{100 * self.idle / seconds:.0f}%, taken by the host (steal) "
            f"{100 * self.stolen / seconds:.0f}%"
        )


def _idle_and_stolen() -> tuple[float, float]:
    """All cores' idle and stolen CPU seconds since the machine started (no steal counter
    outside Linux: 0)."""
    times = psutil.cpu_times()
    return times.idle, float(getattr(times, "steal", 0.0))
