"""Shared fixtures: databases (SQLite and PostgreSQL, and a relay that can freeze the way to
PostgreSQL), and the CI rule that tests needing PostgreSQL or Chromium run under ``CI=true``
instead of skipping."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from pg_relay import Relay  # next to this file

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
PG_BASE = os.environ.get("SUREFOOT_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
CHROMIUM = "/usr/bin/chromium"


def _require(available: bool, what: str, why: str) -> None:
    if available:
        return
    if IN_CI:
        pytest.fail(f"{what} is required under CI=true but is not available: {why}")
    pytest.skip(f"{what} not available here ({why}); it runs in CI")


def _pg_reason() -> str | None:
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        psycopg.connect(PG_BASE, connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"cannot connect to {PG_BASE}: {type(exc).__name__}"
    return None


@pytest.fixture(scope="session")
def pg_server() -> str:
    """The PostgreSQL server URL (fails under CI=true when unreachable)."""
    reason = _pg_reason()
    _require(reason is None, "PostgreSQL", reason or "")
    return PG_BASE


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[Any]:
    """A PostgreSQL cluster of the module's own (``initdb`` in a temporary directory from the
    binaries installed here, as the load test makes one), so that a test may crash it (fails
    under CI=true when there are no binaries)."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks" / "load"))
    from cluster import Cluster, bin_dir

    _require(bin_dir() is not None, "PostgreSQL's initdb", "no /usr/lib/postgresql/*/bin")
    cluster = Cluster()
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty PostgreSQL schema for one test, dropped afterwards."""
    import psycopg

    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in pg_server else "?"
    yield f"{pg_server}{sep}options=-csearch_path%3D{schema}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def pg_relay(pg_url: str) -> Iterator[tuple[Relay, str]]:
    """A relay the test can freeze in front of its PostgreSQL (``pg_relay.Relay``), and
    ``pg_url`` pointed at it."""
    parts = urlsplit(pg_url)
    relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
    user = f"{parts.username}@" if parts.username else ""
    yield relay, urlunsplit(parts._replace(netloc=f"{user}127.0.0.1:{relay.port}"))
    relay.close()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A path for a new SQLite database file."""
    return str(tmp_path / "test.db")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each test using it runs once on SQLite and once on PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "test.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's chromium (fails under CI=true when missing)."""
    found = Path(CHROMIUM).exists() or shutil.which("chromium") is not None
    _require(found, "Chromium", f"{CHROMIUM} is missing (apt-get install chromium)")
    return CHROMIUM


ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", Path(__file__).parent.parent / "test-artifacts"))


@pytest.fixture(scope="session")
def artifacts_dir() -> Path:
    """Where tests write screenshots and reports (kept after the run)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


INSPECTOR_VERSION = "0.15.0"
"""The MCP Inspector the interop tests drive: the newest release that runs on Node 20 (0.16
and later need Node 22)."""
INSPECTOR_CACHE = (
    Path(os.environ.get("SUREFOOT_TEST_CACHE", Path.home() / ".cache" / "surefoot-tests"))
    / f"mcp-inspector-{INSPECTOR_VERSION}"
)


def _inspector_reason(cache: Path, bin_path: Path) -> str | None:
    """Install the pinned Inspector into ``cache`` unless it is there; why it is not."""
    if bin_path.exists():
        return None
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        return "node and npm are not on PATH"
    import subprocess

    try:
        proc = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(cache),
                "--no-audit",
                "--no-fund",
                f"@modelcontextprotocol/inspector@{INSPECTOR_VERSION}",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return "npm install took more than 300 s"
    if proc.returncode != 0 or not bin_path.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"npm install failed: {tail[0]}"
    return None


@pytest.fixture(scope="session")
def mcp_inspector() -> Path:
    """The MCP Inspector's launcher, installed once with npm into a cache directory (fails
    under CI=true when Node or the registry is unavailable)."""
    bin_path = INSPECTOR_CACHE / "node_modules" / ".bin" / "mcp-inspector"
    reason = _inspector_reason(INSPECTOR_CACHE, bin_path)
    _require(reason is None, f"MCP Inspector {INSPECTOR_VERSION}", reason or "")
    return bin_path
