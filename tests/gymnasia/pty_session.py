"""A command on a real pseudo-terminal (its controlling terminal), for tests of what a
person types: line editing, Ctrl-C, Ctrl-D."""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import termios
import time
from pathlib import Path

import pytest

PROMPT = b"> "


class Terminal:
    """``gymnasia ARGS`` with a pseudo-terminal as its controlling terminal."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
        env.update(GYMNASIA_HISTORY=str(tmp_path / "history"), COLUMNS="100", TERM="xterm")
        argv = [sys.executable, "-m", "gymnasia", *args, "--db", str(tmp_path / "gym.db")]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become gymnasia
            # as a shell starts a foreground job: Ctrl-C's signal is neither ignored nor
            # blocked (a test runner's worker, or the job that started it, may do either, and
            # both the disposition SIG_IGN and the blocked mask survive exec)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            os.execve(sys.executable, argv, env)
        self.seen = b""

    def expect(self, wanted: bytes, timeout: float = 90) -> bytes:
        """Read until ``wanted`` was shown (all of it since the last call is returned)."""
        deadline = time.monotonic() + timeout
        while wanted not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"never shown: {wanted!r}; shown: {self.seen[-400:]!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                assert chunk, f"ended before {wanted!r}; shown: {self.seen[-400:]!r}"
                self.seen += chunk
        shown, _, self.seen = self.seen.partition(wanted)
        return shown + wanted

    def send(self, data: bytes) -> None:
        """Type ``data`` once the program waits for it. A prompt is printed a moment before
        readline takes the terminal out of line mode, and a key pressed in between meets the
        wrong terminal settings; and a Ctrl-C that lands after that but before readline
        sleeps on the terminal is lost (CPython's readline looks for a signal only when its
        wait is interrupted). Both happen on a loaded machine, so wait for the sleep."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not self._waiting_for_a_key():
            time.sleep(0.02)
        os.write(self.fd, data)

    def _waiting_for_a_key(self) -> bool:
        """The terminal is out of line mode and the program sleeps (on it)."""
        if termios.tcgetattr(self.fd)[3] & termios.ICANON:
            return False
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:  # no /proc (or the program ended): the terminal mode is all we know
            return True
        return stat.rpartition(")")[2].split()[0] == "S"

    def exit_code(self, timeout: float = 60) -> int:
        """How the process ended (reading what it still shows, so it never blocks)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    self.seen += os.read(self.fd, 4096)
                except OSError:
                    time.sleep(0.05)
        os.kill(self.pid, 9)
        pytest.fail(f"still running; shown: {self.seen[-400:]!r}")
