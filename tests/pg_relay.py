"""A TCP relay the tests can freeze: frozen, it keeps its connections open and passes nothing
either way, as a server that hangs (its host paused, a network path losing packets) does;
and ``started``, a call on a thread of its own, for a test to watch it wait."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable

import pytest


def started(action: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    """``action`` running on a (daemon) thread of its own, and the list that receives what it
    raises."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            action()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, raised


class Relay:
    """A TCP relay on loopback to ``target``; ``frozen`` passes nothing, either way."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.frozen = threading.Event()
        self.accepted = 0
        self.forwarded = 0  # bytes from clients to the server
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._sockets: list[socket.socket] = [self._server]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            self.accepted += 1
            self._sockets.append(client)
            upstream = socket.create_connection(self.target)
            self._sockets.append(upstream)
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, upstream: bool) -> None:
        try:
            while True:
                self._hold()
                data = source.recv(65536)
                if not data:
                    break
                self._hold()
                if upstream:
                    self.forwarded += len(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def _hold(self) -> None:
        while self.frozen.is_set():
            time.sleep(0.02)

    def close(self) -> None:
        self.frozen.clear()
        for sock in self._sockets:
            sock.close()

    def ends(self, action: Callable[[], object], seconds: float = 20.0) -> BaseException | None:
        """Run ``action`` on a thread and return what it raised (None if nothing). If it is
        still waiting after ``seconds``, the test fails, after the relay is thawed so that
        the call ends and the test can close what it opened."""
        thread, raised = started(action)
        thread.join(seconds)
        if thread.is_alive():
            self.frozen.clear()
            thread.join(seconds)
            pytest.fail("the call was still waiting for a server that did not answer")
        return raised[0] if raised else None
