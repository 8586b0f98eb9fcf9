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
            # as a shell starts a foreground job: Ctrl-C's signal is not ignored (a test
            # runner's worker may ignore it, and an ignored signal stays ignored across exec)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
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
        """Type ``data`` once the program reads the terminal: a prompt is printed a moment
        before readline takes the terminal out of line mode, and a key pressed in between
        (on a loaded machine) would meet the wrong terminal settings."""
        deadline = time.monotonic() + 5
        while termios.tcgetattr(self.fd)[3] & termios.ICANON and time.monotonic() < deadline:
            time.sleep(0.02)
        os.write(self.fd, data)

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
