"""CPU time by part of a load run (the server's workers, PostgreSQL, the fake model, Locust),
read from the processes themselves, so that a run says where the machine's cores went.

A process that ends during the run takes its CPU time with it (a killed worker, a backend of
a connection that closed, PostgreSQL's processes before a restart): each part counts, per
process, what it used between the first and the last look, and a process that appeared in
between from its start.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import psutil

Processes = Callable[[], Iterable[psutil.Process]]
"""The processes of one part now."""


def cpu_by_pid(processes: Iterable[psutil.Process]) -> dict[int, float]:
    """User and system CPU seconds of each process that still runs."""
    seen: dict[int, float] = {}
    for proc in processes:
        try:
            times = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        seen[proc.pid] = times.user + times.system
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
    """CPU seconds of each part between ``start`` and ``stop``."""

    def __init__(self, parts: dict[str, Processes]) -> None:
        self.parts = parts
        self._before: dict[str, dict[int, float]] = {}
        self._began = 0.0
        self.used: dict[str, float] = {}
        self.seconds = 0.0

    def start(self) -> None:
        """Take the first look."""
        self._before = {name: cpu_by_pid(find()) for name, find in self.parts.items()}
        self._began = time.monotonic()

    def stop(self) -> None:
        """Take the last look: ``used`` by part, over ``seconds``."""
        self.seconds = time.monotonic() - self._began
        for name, find in self.parts.items():
            before = self._before.get(name, {})
            now = cpu_by_pid(find())
            self.used[name] = sum(cpu - before.get(pid, 0.0) for pid, cpu in now.items())

    def line(self) -> str:
        """``name N% of a core`` for each part, heaviest first."""
        shares = sorted(self.used.items(), key=lambda item: -item[1])
        seconds = max(self.seconds, 1e-9)
        return ", ".join(f"{name} {100 * used / seconds:.0f}%" for name, used in shares)
