"""Running a coroutine from synchronous code, on one event loop per thread.

``asyncio.run`` builds a new event loop for every call and closes it after (about a hundred
microseconds, more than a whole in-memory turn). ``run_sync`` keeps one ``asyncio.Runner`` per
thread instead and runs each coroutine on it, with ``asyncio.run``'s Ctrl-C handling on the
main thread (the running coroutine is cancelled, then ``KeyboardInterrupt`` is raised). Each
thread gets its own loop, made on its first call and closed when the thread ends. Tasks a
coroutine started and left running stay on the thread's loop and run on during its next call
(``asyncio.run`` would have cancelled them); surefoot's own turns leave none.

The thread's loop is never made its current event loop (``asyncio.get_event_loop``), so
nothing else on the thread sees it. Called from inside a running event loop, ``run_sync``
refuses: blocking there would stop that loop; await the coroutine instead.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ._exceptions import ConfigurationError

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")


class _Runner:
    """One thread's runner; closed (its loop with it) when the thread's state is dropped."""

    __slots__ = ("runner",)

    def __init__(self) -> None:
        import asyncio  # made on first use: `import surefoot` does not load asyncio

        self.runner = asyncio.Runner(loop_factory=asyncio.new_event_loop)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a thread's teardown must not raise
            self.runner.close()


class _ThreadRunners(threading.local):
    """Each thread's ``_Runner``, made on its first use."""

    held: _Runner | None = None

    def get(self) -> asyncio.Runner:
        if self.held is None:
            self.held = _Runner()
        return self.held.runner


_RUNNERS = _ThreadRunners()


@atexit.register
def _close_this_thread() -> None:
    """At exit (on the main thread): close its loop rather than leave it to the collector."""
    _RUNNERS.held = None


def run_sync(coroutine: Coroutine[Any, Any, T], *, what: str = "run_sync") -> T:
    """Run ``coroutine`` to its end on this thread's event loop and return its result.
    Raises ``ConfigurationError`` when called from inside a running event loop."""
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        coroutine.close()
        msg = (
            f"{what} cannot be called from inside a running event loop (it would block it); "
            "await the coroutine instead"
        )
        raise ConfigurationError(msg)
    return _RUNNERS.get().run(coroutine)


def thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's loop as ``run_sync`` uses it (made if needed)."""
    return _RUNNERS.get().get_loop()
