"""A PostgreSQL cluster of the load test's own: ``initdb`` in a temporary directory from the
binaries installed on this machine, on a free loopback port, trust authentication (loopback
only), so that the test may restart it. Run as root, the server runs as ``postgres``."""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from contextlib import closing, suppress
from pathlib import Path

import psutil


def free_port() -> int:
    """A loopback TCP port nobody listens on now."""
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bin_dir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are (the newest PostgreSQL installed), if anywhere."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return None if initdb is None else Path(initdb).parent


def _bin_dir() -> Path:
    """``bin_dir()``, or the run ends with what to do instead."""
    found = bin_dir()
    if found is None:
        msg = "no initdb on this machine: pass --db-url postgresql://... instead"
        raise SystemExit(msg)
    return found


_FLUSHERS = ("walwriter", "background writer", "checkpointer")
"""The server's processes that write the log (or pages, and the log before them) in the
background."""


class Cluster:
    """``start``, ``restart`` and ``stop`` one throwaway cluster; ``url`` connects to it."""

    def __init__(self) -> None:
        self.bin = _bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="gymnasia-load-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self._as:
            shutil.chown(self.root, "postgres")

    def _run(self, *args: str) -> None:
        subprocess.run([*self._as, *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        """``initdb`` (the first time) and start the server; returns once it accepts."""
        if not self.data.exists():
            self._run(
                str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust"
            )
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 "
            f"-c unix_socket_directories={self.root} -c max_connections=200"
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-w",
            "-l", str(self.root / "log"), "start",
        )  # fmt: skip
        self._wait()

    def restart(self) -> float:
        """Stop at once (``-m immediate``: connections drop, as in a crash) and start again;
        seconds it was away."""
        began = time.monotonic()
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        self.start()
        return time.monotonic() - began

    def crash(self) -> None:
        """Die as at a power cut, as far as the processes go: the writers that flush the log
        in the background are frozen first, so that what no commit waited for is still only
        in the server's memory; then every process is killed. ``start`` recovers from the log
        on disk."""
        for process in self.processes():
            with suppress(psutil.Error):
                title = " ".join(process.cmdline())
                if any(name in title for name in _FLUSHERS):
                    process.send_signal(signal.SIGSTOP)
        processes = self.processes()
        for process in processes:
            with suppress(psutil.Error):
                process.send_signal(signal.SIGKILL)
        psutil.wait_procs(processes, timeout=30)

    def stop(self) -> None:
        """Stop the server (continued first, if a fault left it stopped with SIGSTOP) and
        remove its directory."""
        for process in self.processes():
            with suppress(psutil.Error):
                process.send_signal(signal.SIGCONT)
        with suppress(subprocess.CalledProcessError):  # not running
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def _wait(self) -> None:
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(self.url, connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def processes(self) -> list[psutil.Process]:
        """The cluster's processes now: the postmaster and its children (backends come and
        go, and a restart makes them all anew); none while it is down."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            main = psutil.Process(pid)
            return [main, *main.children()]
        except (OSError, ValueError, IndexError, psutil.NoSuchProcess):
            return []
