"""A database that cannot be used is named by its real cause, in the person's language:
disk full, read-only or no permission, an input/output error on the file (never "check the
address and port" for a file), and a PostgreSQL database that does not exist, with how to
create it."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from gymnasia import app as gym_app
from gymnasia.cli import main
from gymnasia.cli._base import store_problem
from surefoot import StoreError
from surefoot.sql import Database

LONG_NOTE = "Guarda la nota grande: " + "x" * 4000


@dataclass
class Run:
    """What one command did."""

    code: int
    out: str
    err: str


@pytest.fixture
def gymnasia(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Call the CLI in this process: ``gymnasia("ask", ...)`` -> ``Run``."""
    for name in ("GYMNASIA_DB", "GYMNASIA_LANG", "GYMNASIA_TODAY"):
        monkeypatch.delenv(name, raising=False)

    def invoke(*args: str) -> Run:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["gymnasia", *args])
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        code = exited.value.code
        return Run(code if isinstance(code, int) else 1, captured.out, captured.err)

    return invoke


def opened_with(monkeypatch: pytest.MonkeyPatch, pragma: Callable[[Database], str]) -> None:
    """Every database the CLI opens from now on gets the SQLite ``PRAGMA`` ``pragma`` makes
    for it (the way to fill a disk or make a file read-only without privileges)."""
    real = gym_app.open_db

    def limited(target: str, *, create: bool = True) -> Database:
        db = real(target, create=create)
        db.query(f"PRAGMA {pragma(db)}")
        return db

    monkeypatch.setattr(gym_app, "open_db", limited)


def full(db: Database) -> str:
    """No page beyond those the file has: SQLITE_FULL on the first write that needs one."""
    pages = int(db.query("PRAGMA page_count")[0][0])
    return f"max_page_count = {pages}"


@pytest.mark.parametrize(
    ("lang", "words"),
    [("es", "no queda espacio"), ("pt", "não há espaço"), ("en", "no space left")],
)
def test_a_full_disk_is_named_as_such(
    gymnasia: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, lang: str, words: str
) -> None:
    """A write that finds the disk full ends with exit 5 and a line saying there is no
    space, not that the database cannot be reached."""
    db = str(tmp_path / "gym.db")
    assert gymnasia("measurements", "add", "2020-01-01", "--weight-kg", "76", "--db", db).code == 0
    opened_with(monkeypatch, full)
    run = gymnasia("ask", LONG_NOTE, "--db", db, "--lang", lang)
    assert run.code == 5, run
    assert words in run.err, run.err
    for wrong in ("puerto", "porta", "port", "conectar", "ligar", "connect"):
        assert wrong not in run.err, run.err
    assert gymnasia("ask", LONG_NOTE, "--db", db, "--json").out.startswith('{"error": "store_disk')


@pytest.mark.parametrize(
    ("lang", "words"),
    [("es", "no hay permiso"), ("pt", "não há permissão"), ("en", "no permission")],
)
def test_a_read_only_database_is_named_as_such(
    gymnasia: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any, lang: str, words: str
) -> None:
    """A database that can be read but not written (SQLite's read-only error, as a
    read-only file gives) ends with exit 2 and a line about permission."""
    db = str(tmp_path / "gym.db")
    assert gymnasia("measurements", "add", "2020-01-01", "--weight-kg", "76", "--db", db).code == 0
    opened_with(monkeypatch, lambda _db: "query_only = ON")
    add = ("measurements", "add", "2020-01-02", "--weight-kg", "77", "--db", db, "--lang", lang)
    run = gymnasia(*add)
    assert run.code == 2, run
    assert words in run.err, run.err


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_an_input_output_error_on_a_file_does_not_ask_for_an_address(lang: Any) -> None:
    """ "Unavailable" on a SQLite file is an input/output error on that file: the line says
    so (disk full, disconnected, damaged), never "check the address and port"."""
    problem = store_problem(StoreError("io", kind="unavailable"), lang, "/data/gym.db")
    assert problem.exit_code == 5
    assert "/data/gym.db" in str(problem)
    assert {"es": "entrada/salida", "pt": "entrada/saída", "en": "input/output"}[lang] in str(
        problem
    )
    for wrong in ("puerto", "porta", "port"):
        assert wrong not in str(problem)


def test_a_missing_postgresql_database_says_how_to_create_it(gymnasia: Any, pg_server: str) -> None:
    """A URL to a database the server does not have: exit 2, the name, and `createdb NAME` /
    `CREATE DATABASE NAME;`, in each language; ``--json`` gives ``store_not_found``."""
    name = "gym_" + uuid.uuid4().hex[:10]
    base = pg_server.rsplit("/", 1)[0]
    url = f"{base}/{name}"
    for lang, words in (("es", "Créala"), ("pt", "Crie-o"), ("en", "Create it")):
        run = gymnasia("measurements", "list", "--db", url, "--lang", lang)
        assert run.code == 2, run
        assert f"«{name}»" in run.err or f"'{name}'" in run.err
        assert f"`createdb {name}`" in run.err
        assert f"`CREATE DATABASE {name};`" in run.err
        assert words in run.err
    as_json = gymnasia("measurements", "list", "--db", url, "--json")
    assert as_json.out.startswith('{"error": "store_not_found"'), as_json


def test_an_unreachable_postgresql_server_is_still_unreachable(gymnasia: Any) -> None:
    """The control: no server at all is not "a missing database" (exit 5)."""
    run = gymnasia("measurements", "list", "--db", "postgresql://postgres@127.0.0.1:9/gym")
    assert run.code == 5, run
    assert "createdb" not in run.err
