"""Running a coroutine from synchronous code, on one event loop per thread.

``asyncio.run`` builds a new event loop for every call and closes it after (more than a whole
in-memory turn costs). ``run_sync`` keeps one loop per thread instead and runs each
coroutine on it as a task, in a copy of the caller's context. Each thread gets its own loop,
made on its first call and closed when the thread ends (the main thread's at exit). Tasks a
coroutine started and left running stay on the thread's loop and run on during its next call
(``asyncio.run`` would have cancelled them); surefoot's own turns leave none.

Ctrl-C: the signal handler is left alone (installing one around every call, as
``asyncio.Runner`` does, costs more than the rest of the call). A ``KeyboardInterrupt`` that
lands in the coroutine's own code goes up through it like in synchronous code (its
``except`` and ``finally`` blocks run); one that lands between its steps cancels it, lets it
unwind, and is raised after.

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
    """One thread's event loop; closed when the thread's state is dropped."""

    __slots__ = ("loop",)

    def __init__(self) -> None:
        import asyncio  # made on first use: `import surefoot` does not load asyncio

        self.loop = asyncio.new_event_loop()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        loop = self.loop
        task = loop.create_task(_stopping(loop, coroutine))
        try:
            loop.run_forever()  # until the task stops the loop as it ends
        except BaseException:
            if not task.done():  # interrupted between its steps: let it unwind first
                task.cancel()
                with contextlib.suppress(BaseException):
                    loop.run_forever()
            raise
        return task.result()

    def close(self) -> None:
        """What ``asyncio.run`` does at its end: cancel what is left, finish async
        generators and the default executor, close the loop."""
        import asyncio

        loop = self.loop
        if loop.is_closed():
            return
        try:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a thread's teardown must not raise
            self.close()


async def _stopping(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """``coroutine``, then stop ``loop`` in the same step: a coroutine that never suspends
    costs the loop one iteration (``run_until_complete`` takes a second one to stop)."""
    try:
        return await coroutine
    finally:
        loop.stop()


class _ThreadRunners(threading.local):
    """Each thread's ``_Runner``, made on its first use."""

    held: _Runner | None = None

    def get(self) -> _Runner:
        if self.held is None:
            self.held = _Runner()
        return self.held


_RUNNERS = _ThreadRunners()


@atexit.register
def _close_this_thread() -> None:
    """At exit (on the main thread): close its loop rather than leave it to the collector."""
    _RUNNERS.held = None


def run_sync(coroutine: Coroutine[Any, Any, T], *, what: str = "run_sync") -> T:
    """Run ``coroutine`` to its end on this thread's event loop and return its result.
    Raises ``ConfigurationError`` when called from inside a running event loop."""
    import asyncio

    if asyncio._get_running_loop() is not None:  # the check without raising and catching
        coroutine.close()
        msg = (
            f"{what} cannot be called from inside a running event loop (it would block it); "
            "await the coroutine instead"
        )
        raise ConfigurationError(msg)
    return _RUNNERS.get().run(coroutine)


def thread_loop() -> asyncio.AbstractEventLoop:
    """This thread's loop as ``run_sync`` uses it (made if needed)."""
    return _RUNNERS.get().loop
