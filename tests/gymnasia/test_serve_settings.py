"""What ``gymnasia serve`` sets up before it serves.

* It moves what a process holds once it is ready to serve out of the garbage collector's
  reach (``gc.freeze``), in one process and in each of ``--workers N``: a worker's full
  collection then walks only what its requests made, instead of stopping them all for the
  150,000-odd objects of its modules and its app (70 to 110 ms a time under the load test).
* It keeps an idle connection open longer than a proxy in front of it (60 s is the usual
  default) or a browser tab's pause: the side that closes first races the other's next
  request on that connection, which then gets no answer at all."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gymnasia.cli import _serve


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The test process's objects are its own again afterwards (and before: a count from an
    earlier freeze would pass for this one)."""
    gc.unfreeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _serve_with(
    monkeypatch: pytest.MonkeyPatch, *args: str
) -> list[tuple[Any, dict[str, Any], int]]:
    """Run ``gymnasia serve ARGS`` in this process up to where it would start serving: what
    ``uvicorn.run`` was given, with how many objects were frozen at that moment."""
    import uvicorn
    from typer.testing import CliRunner

    from gymnasia.cli import app

    started: list[tuple[Any, dict[str, Any], int]] = []
    monkeypatch.setattr(
        uvicorn,
        "run",
        lambda target, **settings: started.append((target, settings, gc.get_freeze_count())),
    )
    monkeypatch.setenv(_serve.WORKER_OPTIONS, "")  # restored afterwards: serve sets it
    result = CliRunner().invoke(app, ["serve", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return started


def test_one_process_freezes_what_it_started_with_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    started = _serve_with(monkeypatch, "--db", str(tmp_path / "gym.db"))
    [(target, _, frozen)] = started
    assert not isinstance(target, str)  # the app itself, in this process
    target.state.coach.close()
    assert frozen > 10_000  # the modules and the app, not a handful


def test_each_worker_freezes_what_it_started_with(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    [(target, _, _)] = _serve_with(monkeypatch, "--db", pg_url, "--workers", "2")
    assert target == "gymnasia.cli._serve:worker_app"
    assert os.environ[_serve.WORKER_OPTIONS]
    gc.unfreeze()
    web_app = _serve.worker_app()  # what uvicorn calls in each worker
    try:
        assert gc.get_freeze_count() > 10_000
    finally:
        web_app.state.coach.close()


def test_idle_connections_outlast_a_proxys_and_a_tabs_pause(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    """uvicorn's own default closes a connection after 5 idle seconds: in the load test, a
    second tab's request sent on its connection as the server closed it got no answer (a
    browser sends it again, Locust's client does not); behind a proxy that keeps its
    connections to the server 60 s, it would be the proxy's ``502``."""
    [(target, one, _)] = _serve_with(monkeypatch, "--db", str(tmp_path / "gym.db"))
    target.state.coach.close()
    [(_, several, _)] = _serve_with(monkeypatch, "--db", pg_url, "--workers", "2")
    assert one["timeout_keep_alive"] == several["timeout_keep_alive"] == _serve.KEEP_ALIVE
    assert _serve.KEEP_ALIVE > 60
