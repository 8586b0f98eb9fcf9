"""Listing commands with nothing to list say so in the user's language (they printed nothing
before), ``--json`` stays an empty list, and ``--version`` names both distributions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest


def gym(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database whose default user has nothing (another user has a weight)."""
    directory = tmp_path_factory.mktemp("empty")
    db = str(directory / "gym.db")
    seeded = gym("measurements", "add", "2020-01-01", "--weight-kg", "70", "--db", db,
                 "--user", "other", cwd=directory)  # fmt: skip
    assert seeded.returncode == 0, seeded.stderr
    return db


NOTHING = {
    ("measurements", "list"): {
        "es": "Aún no hay medidas guardadas.",
        "pt": "Ainda não há medidas salvas.",
        "en": "No measurements saved yet.",
    },
    ("writes",): {
        "es": "El Coach aún no ha intentado ninguna escritura.",
        "pt": "O Coach ainda não tentou nenhuma escrita.",
        "en": "The Coach has not attempted any write yet.",
    },
    ("diagnostics",): {
        "es": "No hay diagnósticos: ninguna herramienta ha fallado.",
        "pt": "Não há diagnósticos: nenhuma ferramenta falhou.",
        "en": "No diagnostics: no tool has failed.",
    },
    ("approvals", "list"): {
        "es": "No hay acciones esperando tu confirmación.",
        "pt": "Não há ações aguardando sua confirmação.",
        "en": "No actions are waiting for your confirmation.",
    },
}


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
@pytest.mark.parametrize("command", list(NOTHING), ids=" ".join)
def test_an_empty_listing_says_nothing_yet(
    empty_db: str, tmp_path: Path, command: tuple[str, ...], lang: str
) -> None:
    shown = gym(*command, "--db", empty_db, "--lang", lang, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == NOTHING[command][lang] + "\n"
    as_json = gym(*command, "--db", empty_db, "--lang", lang, "--json", cwd=tmp_path)
    assert json.loads(as_json.stdout) == []


def test_version_names_gymnasia_and_surefoot(tmp_path: Path) -> None:
    shown = gym("--version", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    expected = f"gymnasia {version('gymnasia')} (surefoot {version('surefoot')})\n"
    assert shown.stdout == expected
