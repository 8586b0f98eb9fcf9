"""Each reply is printed once by ``ask`` and ``chat``, with streaming on and off (it used to
be streamed and then printed again on the same line); ``chat`` shows piped lines and asks its
confirmations in the user's language."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TODAY = "2020-01-05"
SAVE = "Guarda mi peso: 77,0 kg el 2020-01-03."
SAVED = "Guardado: 77 kg el 2020-01-03."
READ = "¿Cuánto pesaba el 2020-01-03?"
READ_BACK = "El 2020-01-03 hay 77 kg."


def gym(
    *args: str, cwd: Path, stdin: str | None = None, today: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    env["COLUMNS"] = "200"
    dated = ("--today", TODAY) if today else ()
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args, "--db", str(cwd / "gym.db"), *dated],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_ask_prints_each_reply_once(tmp_path: Path, stream: str) -> None:
    saved = gym("ask", SAVE, stream, cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    assert saved.stdout.count(SAVED) == 1, saved.stdout
    assert saved.stdout.count("Coach:") == 1
    read = gym("ask", READ, stream, "--trace", cwd=tmp_path)
    assert read.stdout.count(READ_BACK) == 1, read.stdout
    assert read.stdout.count("stop_reason=completed") == 1


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_chat_prints_each_reply_once(tmp_path: Path, stream: str) -> None:
    proc = gym("chat", stream, "--trace", cwd=tmp_path, stdin=f"{SAVE}\n{READ}\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(SAVED) == 1, proc.stdout
    assert proc.stdout.count(READ_BACK) == 1, proc.stdout
    assert proc.stdout.count("Coach:") == 2
    assert proc.stdout.count("stop_reason=completed") == 2


def test_a_harness_reply_after_streamed_text_is_printed_once(tmp_path: Path) -> None:
    """The harness's own reply (a write with an unknown outcome) is not streamed: it is
    printed once, after the trace."""
    proc = gym(
        "ask", SAVE, "--stream", "--trace", "--fault", "write_measurement:ambiguous", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Gymnasia:") == 1, proc.stdout
    assert proc.stdout.count("stop_reason=") == 1


@pytest.mark.parametrize(
    ("lang", "answer", "deleted"),
    [("es", "sí", True), ("es", "s", True), ("pt", "sim", True), ("en", "yes", True),
     ("es", "quizá", False), ("es", "", False)],
)  # fmt: skip
def test_chat_asks_for_confirmation_in_the_users_language(
    tmp_path: Path, lang: str, answer: str, deleted: bool
) -> None:
    """A delete in ``chat`` waits for a person: the question takes the language's own yes
    ("sí"/"s", "sim", "yes"; it used to take only "y", and said "invalid input" in English
    to anything else); any other answer leaves the record. Piped lines are shown."""
    added = gym("measurements", "add", "2020-01-01", "--weight-kg", "76", cwd=tmp_path, today=False)
    assert added.returncode == 0, added.stderr
    request = {"es": "borra la medición del 2020-01-01", "pt": "apaga a medição de 2020-01-01",
               "en": "delete the measurement of 2020-01-01"}[lang]  # fmt: skip
    proc = gym("chat", "--lang", lang, cwd=tmp_path, stdin=f"{request}\n{answer}\n")
    assert proc.returncode == 0, proc.stderr
    hint = "[y/N]" if lang == "en" else "[s/N]"
    assert f"> {request}\n" in proc.stdout
    question = {"es": "¿Borrar el registro de medidas del 2020-01-01",
                "pt": "Excluir o registro de medidas de 2020-01-01",
                "en": "Delete the measurement record of 2020-01-01"}[lang]  # fmt: skip
    asked = next(line for line in proc.stdout.splitlines() if hint in line)
    assert question in asked, proc.stdout  # in words, not a tool name and JSON
    assert asked.rstrip().endswith(f"{hint} {answer}".rstrip()), asked
    assert "invalid input" not in proc.stdout + proc.stderr
    shown = gym("measurements", "show", "2020-01-01", cwd=tmp_path, today=False)
    assert (shown.returncode != 0) is deleted, shown.stdout
