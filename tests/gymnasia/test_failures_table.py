"""Every storage and configuration failure, through the real command line (one process per
row): one line on stderr in the user's language (or one JSON object on stdout under
``--json``), the documented exit code, no traceback, and never the password of a database
URL. Rows cover es, pt and en.

The full disk is simulated honestly with SQLite's ``PRAGMA max_page_count``: the command runs
under a small launcher that caps every new SQLite connection at its file's current size, so
the next write that needs a page fails with ``SQLITE_FULL``, the code a full disk gives. The
read-only directory (mode 0555) is one the command cannot write: as root, who may otherwise
write anywhere, the command runs without the capabilities that let root ignore file modes
(``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``, dropped from its bounding set).
"""

from __future__ import annotations

import ctypes
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gymnasia.texts import t

PASSWORD = "Sup3r-S3cret-pw"
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
GYM = (sys.executable, "-m", "gymnasia")
PR_CAPBSET_DROP = 24
ROOT_FILE_CAPABILITIES = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER


def _as_plain_user() -> None:
    """In the child before it runs the command: drop root's power over file modes."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in ROOT_FILE_CAPABILITIES:
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


# Caps each new SQLite connection at the file's size, then runs ``python -m gymnasia``.
FULL_DISK_LAUNCHER = """
import runpy, sqlite3, sys
_connect = sqlite3.connect
def connect(*args, **kwargs):
    conn = _connect(*args, **kwargs)
    conn.execute("PRAGMA max_page_count = 1")  # raised to the file's current page count
    return conn
sqlite3.connect = connect
sys.argv = ["gymnasia", *sys.argv[1:]]
runpy.run_module("gymnasia", run_name="__main__", alter_sys=True)
"""


def clean_env(**extra: str) -> dict[str, str]:
    drop = {"COLUMNS", "LINES", *KEY_VARIABLES}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("GYMNASIA_")}
    env.update(extra)
    return env


@dataclass
class Place:
    """A directory for one row, and what was set up in it."""

    directory: Path
    env: dict[str, str] = field(default_factory=clean_env)
    launcher: list[str] = field(default_factory=lambda: [sys.executable, "-m", "gymnasia"])
    before: Callable[[], None] | None = None
    cleanup: list[Callable[[], None]] = field(default_factory=list)


def _seeded(place: Place, name: str = "gym.db") -> Path:
    """A real Gymnasia database with one measurement in it."""
    db = place.directory / name
    proc = subprocess.run(
        [*GYM, "measurements", "add", "2020-01-01", "--weight-kg", "80", "--db", str(db)],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=place.directory,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return db


# -- the set-ups -------------------------------------------------------------------------------


def not_a_database(place: Place) -> str:
    notes = place.directory / "notes.txt"
    notes.write_text("shopping: eggs, oats, spinach\n" * 400)
    return str(notes)


def a_directory(place: Place) -> str:
    return str(place.directory)


def full_disk(place: Place) -> str:
    db = _seeded(place)
    place.launcher = [sys.executable, "-c", FULL_DISK_LAUNCHER]
    return str(db)


def read_only_directory(place: Place) -> str:
    if os.geteuid() == 0:
        place.before = _as_plain_user
    locked = place.directory / "readonly"
    locked.mkdir()
    locked.chmod(0o555)
    place.cleanup.append(lambda: locked.chmod(0o755))
    return str(locked / "gym.db")


def locked_for_long(place: Place) -> str:
    """Locked by another process for 20 s, and the command told to wait 0.3 s: a command that
    ignored ``GYMNASIA_DB_TIMEOUT`` (and waited its default 30 s) would get the lock and
    succeed, failing the row's exit code."""
    db = _seeded(place)
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(20, holder.close)
    release.start()
    place.cleanup += [release.cancel, holder.close]
    place.env["GYMNASIA_DB_TIMEOUT"] = "0.3"
    return str(db)


def wrong_port(_: Place) -> str:
    return "postgresql://postgres@127.0.0.1:1/test"


def password_in_url(_: Place) -> str:
    return f"postgresql://postgres:{PASSWORD}@127.0.0.1:1/test?sslmode=disable"


def password_in_parameter(_: Place) -> str:
    return f"postgresql://postgres@127.0.0.1:1/test?password={PASSWORD}"


def unsupported_scheme(_: Place) -> str:
    return f"mysql://root:{PASSWORD}@127.0.0.1/gym"


def fresh_database(place: Place) -> str:
    return str(place.directory / "new.db")


# -- the table ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    setup: Callable[[Place], str]
    args: tuple[str, ...]
    lang: str
    exit_code: int
    says: str
    json_error: str | None = None  # the row runs with --json and expects this error code


ROWS = [
    Row("not_a_database", not_a_database, ("measurements", "list"), "es", 2,
        "no es una base de datos de Gymnasia"),
    Row("not_a_database_json", not_a_database, ("ask", "hola"), "en", 2,
        "is not a Gymnasia database", "store_not_a_database"),
    Row("directory", a_directory, ("ask", "hola"), "pt", 2,
        "não é um banco de dados do Gymnasia"),
    Row("directory_json", a_directory, ("measurements", "list"), "es", 2,
        "no es una base de datos", "store_not_a_database"),
    Row("full_disk", full_disk, ("ask", "Nota: " + "muy larga " * 4000), "en", 5,
        "no space left for the database"),
    Row("full_disk_json", full_disk, ("ask", "Nota: " + "muy larga " * 4000), "es", 5,
        "no queda espacio", "store_disk_full"),
    Row("read_only_directory", read_only_directory, ("ask", "hola"), "es", 2,
        "no hay permiso para leer o escribir"),
    Row("read_only_directory_json", read_only_directory, ("ask", "hello"), "en", 2,
        "no permission to read or write", "store_permission"),
    Row("locked_for_long", locked_for_long, ("ask", "olá"), "pt", 4,
        "está bloqueado por outro processo"),
    Row("locked_for_long_data", locked_for_long, ("measurements", "add", "2020-01-02",
        "--weight-kg", "79"), "en", 4, "locked by another process"),
    Row("locked_for_long_json", locked_for_long, ("ask", "hola"), "es", 4,
        "bloqueada", "store_locked"),
    Row("wrong_port", wrong_port, ("ask", "hello"), "en", 5,
        "cannot reach the database postgresql://postgres@127.0.0.1:1/test"),
    Row("wrong_port_data", wrong_port, ("measurements", "list"), "pt", 5,
        "não é possível conectar ao banco de dados"),
    Row("password", password_in_url, ("ask", "hola"), "es", 5,
        "no se puede conectar con la base de datos postgresql://postgres@127.0.0.1:1/test"),
    Row("password_json", password_in_url, ("ask", "hola"), "pt", 5,
        "postgresql://postgres@127.0.0.1:1/test?sslmode=disable", "store_unavailable"),
    Row("password_parameter", password_in_parameter, ("measurements", "list"), "en", 5,
        "cannot reach the database postgresql://postgres@127.0.0.1:1/test"),
    Row("unsupported_scheme", unsupported_scheme, ("ask", "hola"), "es", 2,
        "dirección de base de datos no admitida mysql://root@127.0.0.1/gym"),
    Row("unsupported_scheme_serve", unsupported_scheme, ("serve", "--port", "1"), "pt", 2,
        "endereço de banco de dados não suportado"),
    Row("unsupported_scheme_json", unsupported_scheme, ("measurements", "list"), "en", 2,
        "unsupported database address", "store_unsupported_url"),
    Row("missing_database", fresh_database, ("measurements", "list"), "pt", 2,
        "não existe"),
    # configuration
    Row("unknown_provider", fresh_database, ("ask", "hola", "--provider", "mistral"), "es", 2,
        "proveedor desconocido «mistral»"),
    Row("missing_key", fresh_database, ("ask", "hola", "--provider", "anthropic"), "pt", 2,
        "falta a chave de anthropic"),
    Row("bad_base_url", fresh_database, ("ask", "hi", "--provider", "openai-chat",
        "--base-url", "localhost:11434/v1"), "en", 2, "--base-url 'localhost:11434/v1'"),
    Row("bad_base_url_json", fresh_database, ("ask", "hola", "--provider", "openai-chat",
        "--base-url", f"http://u:{PASSWORD}@h:port/v1"), "es", 2, "--base-url", "configuration"),
    Row("bad_lang", fresh_database, ("measurements", "list", "--lang", "fr"), "es", 2,
        "--lang debe ser uno de es, pt, en"),
]  # fmt: skip


@pytest.fixture
def place(tmp_path: Path) -> Iterator[Place]:
    made = Place(tmp_path)
    yield made
    for undo in reversed(made.cleanup):
        undo()


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_a_failure_is_one_clear_line(row: Row, place: Place) -> None:
    target = row.setup(place)
    args = [*row.args, "--db", target]
    if "--lang" not in row.args:
        args += ["--lang", row.lang]
    if row.json_error is not None:
        args.append("--json")
    proc = subprocess.run(
        [*place.launcher, *args],
        capture_output=True,
        text=True,
        env=place.env,
        cwd=place.directory,
        timeout=120,
        check=False,
        preexec_fn=place.before,
    )
    shown = proc.stdout + proc.stderr
    assert proc.returncode == row.exit_code, shown
    assert "Traceback" not in shown
    assert PASSWORD not in shown
    # a command that started before it failed has said which model it runs on; nothing else
    banner = t(row.lang, "offline_banner")  # type: ignore[arg-type]
    problems = [line for line in proc.stderr.splitlines() if line != banner]
    if row.json_error is None:
        assert proc.stdout == ""
        assert len(problems) == 1, proc.stderr
        assert problems[0].startswith("gymnasia: "), problems[0]
        assert row.says in problems[0]
    else:
        assert problems == []
        assert proc.stdout.count("\n") == 1
        value: Any = json.loads(proc.stdout)
        assert value == {"error": row.json_error, "message": value["message"]}
        assert row.says in value["message"]


def test_every_row_language_and_form_is_covered() -> None:
    assert {row.lang for row in ROWS} == {"es", "pt", "en"}
    for setup in (not_a_database, a_directory, full_disk, read_only_directory, locked_for_long):
        assert {row.json_error is None for row in ROWS if row.setup is setup} == {True, False}
