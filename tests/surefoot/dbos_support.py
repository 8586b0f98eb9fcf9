"""DBOS for the tests (not a test module): a fresh PostgreSQL database per test session for
DBOS's system tables and the journal, dropped afterwards, and DBOS launched on it once per
process (DBOS is one per process)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

DBOS_VERSION = "surefoot-tests"
"""Every worker of the tests runs this application version: a worker recovers only the
workflows of its own version."""


def with_database(base: str, name: str) -> str:
    """``base`` (a server URL) pointing at database ``name``."""
    head, _, query = base.partition("?")
    server = head.rsplit("/", 1)[0]
    return f"{server}/{name}" + (f"?{query}" if query else "")


def create_database(base: str) -> tuple[str, str]:
    """A fresh database on ``base``'s server: its name and URL."""
    import psycopg

    name = "sf_dbos_" + uuid.uuid4().hex[:10]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name, with_database(base, name)


def drop_database(base: str, name: str) -> None:
    """Drop database ``name`` (its connections closed first)."""
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def launch(url: str, executor_id: str = "pytest") -> None:
    """DBOS on ``url``, launched in this process."""
    from dbos import DBOS

    DBOS(
        config={
            "name": "surefoot-tests",
            "system_database_url": url,
            "application_version": DBOS_VERSION,
            "executor_id": executor_id,
            "log_level": "WARNING",
        }
    )
    DBOS.launch()


@pytest.fixture(scope="session")
def dbos_url(pg_server: str) -> Iterator[str]:
    """A database of its own for this session, with DBOS launched on it."""
    from dbos import DBOS

    name, url = create_database(pg_server)
    launch(url)
    yield url
    DBOS.destroy()
    drop_database(pg_server, name)
