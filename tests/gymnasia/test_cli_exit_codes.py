"""Each row of the exit-code table in ``docs/user-guide.md`` is a command that ends with that
code (and the table lists every code these cases produce)."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from pty_session import PROMPT, Terminal  # found through the path set above

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(?P<code>[0-9]+)` \|", re.MULTILINE)


def documented_codes() -> set[int]:
    """The codes of the exit-code table of the user guide."""
    guide = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    table = guide.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    return {int(found["code"]) for found in ROW.finditer(table)}


def gym(tmp_path: Path, *args: str, **env: str) -> int:
    """The exit code of ``gymnasia ARGS`` in a fresh process."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    proc = subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**clean, **env},
        timeout=120,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode


def seeded(tmp_path: Path) -> str:
    """A SQLite database with one weight on 2020-01-01."""
    db = str(tmp_path / "gym.db")
    assert gym(tmp_path, "measurements", "add", "2020-01-01", "--weight-kg", "76", "--db", db) == 0
    return db


def done(tmp_path: Path) -> int:
    return gym(tmp_path, "ask", "Consulta mi peso del 2020-01-01.", "--db", seeded(tmp_path))


def nothing_found(tmp_path: Path) -> int:
    return gym(tmp_path, "measurements", "show", "1999-01-01", "--db", seeded(tmp_path))


def usage_mistake(tmp_path: Path) -> int:
    return gym(tmp_path, "measurements", "show", "2024-13-01", "--db", seeded(tmp_path))


def provider_failed(tmp_path: Path) -> int:
    return gym(
        tmp_path,
        "ask",
        "hola",
        "--db",
        str(tmp_path / "gym.db"),
        "--provider",
        "openai-chat",
        "--model",
        "any",
        "--base-url",
        "http://127.0.0.1:9/v1",  # the discard port: nothing listens
        "--timeout",
        "5",
    )


def locked(tmp_path: Path) -> int:
    db = seeded(tmp_path)
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        args = ("measurements", "add", "2020-01-02", "--weight-kg", "76", "--db", db)
        return gym(tmp_path, *args, GYMNASIA_DB_TIMEOUT="0.2")
    finally:
        holder.close()


def unreachable(tmp_path: Path) -> int:
    return gym(tmp_path, "measurements", "list", "--db", "postgresql://postgres@127.0.0.1:9/x")


def interrupted(tmp_path: Path) -> int:
    term = Terminal(tmp_path, "chat")
    term.expect(PROMPT)
    term.send(b"\x03")
    return term.exit_code()


CASES: dict[int, Callable[[Path], int]] = {
    0: done,
    1: nothing_found,
    2: usage_mistake,
    3: provider_failed,
    4: locked,
    5: unreachable,
    130: interrupted,
}


def test_the_table_lists_exactly_the_tested_codes() -> None:
    """Every documented code has a case below, and every case's code is documented."""
    assert documented_codes() == set(CASES)


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_documented_code_is_what_its_case_exits_with(tmp_path: Path, code: int) -> None:
    """The command of each row ends with that row's code."""
    assert CASES[code](tmp_path) == code
