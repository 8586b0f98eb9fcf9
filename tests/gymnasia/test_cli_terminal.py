"""What a person sees in a terminal: ``ask`` prints the reply and at most one status line
(the trace only with ``--trace``), approvals in words with the exact commands that decide
them, no approval for a delete that cannot do anything, text a model or a file wrote shown
with its control and bidirectional characters neutralised, and replies wrapped under their
prefix."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gymnasia.render import approval_words, neutralised

TODAY = "2020-01-05"
SAVE = {
    "es": ("Guarda mi peso: 77,4 kg el 2020-01-04.", "Guardado: peso 77,4 kg (2020-01-04)"),
    "pt": ("Salve meu peso: 77,4 kg em 2020-01-04.", "Salvo: peso 77,4 kg (2020-01-04)"),
    "en": ("Save my weight: 77.4 kg on 2020-01-04.", "Saved: weight 77.4 kg (2020-01-04)"),
}
NOTE = {"es": "Guarda la nota {key}: {value}", "en": "Save the note {key}: {value}"}
DELETE = {"es": "Borra la nota {key}", "en": "Delete the note {key}"}
TRACE_MARKS = ("→", "stop_reason=", "model_requests=", '"ok"', "write_measurement")


def gym(
    *args: str, cwd: Path, columns: int = 200, lang: str = "es"
) -> subprocess.CompletedProcess[str]:
    """``gymnasia ARGS --db gym.db --lang LANG`` (and ``--today`` for a turn) in a fresh
    process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    env["COLUMNS"] = str(columns)
    dated = ("--today", TODAY) if args[0] in ("ask", "chat") else ()
    fixed = ("--db", str(cwd / "gym.db"), "--lang", lang, *dated)
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args, *fixed],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_ask_prints_the_reply_and_one_status_line(tmp_path: Path, lang: str) -> None:
    """By default a saved weight is the Coach's reply and one plain line in the person's
    language saying what was saved (the tool's own words), and no trace."""
    message, status = SAVE[lang]
    proc = gym("ask", message, cwd=tmp_path, lang=lang)
    assert proc.returncode == 0, proc.stderr
    lines = [line.strip() for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 2, proc.stdout
    assert lines[0].startswith("Coach: ")
    assert lines[1] == status
    assert not [mark for mark in TRACE_MARKS if mark in proc.stdout], proc.stdout


def test_a_reply_with_nothing_written_has_no_status_line(tmp_path: Path) -> None:
    """A look-up writes nothing: the reply alone."""
    gym("ask", SAVE["es"][0], cwd=tmp_path)
    proc = gym("ask", "Consulta mi peso del 2020-01-04.", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stdout
    assert "77,4" in lines[0]


@pytest.mark.parametrize("stream", ["--stream", "--no-stream"])
def test_trace_shows_the_calls_and_the_stop(tmp_path: Path, stream: str) -> None:
    """``--trace`` adds what the default leaves out: each call with its arguments and
    outcome, the stop reason and the number of model requests."""
    proc = gym("ask", SAVE["en"][0], stream, "--trace", cwd=tmp_path, lang="en")
    assert proc.returncode == 0, proc.stderr
    assert '→ write_measurement({"date": "2020-01-04", "weight_kg": 77.4})' in proc.stdout
    assert "stop_reason=completed model_requests=2" in proc.stdout
    assert proc.stdout.count("Coach:") == 1


def test_an_approval_is_in_words_with_the_commands_that_decide_it(tmp_path: Path) -> None:
    """Deleting a note waits for the person: the reply says what will happen to which data,
    the status line gives the exact commands; running the approve command deletes it."""
    assert gym("ask", NOTE["en"].format(key="diary", value="legs"), cwd=tmp_path).returncode == 0
    proc = gym("ask", DELETE["en"].format(key="diary"), cwd=tmp_path, lang="en")
    assert proc.returncode == 0, proc.stderr
    assert "Delete the note 'diary' from your memory? This cannot be undone." in proc.stdout
    assert "delete_memory" not in proc.stdout
    assert "{" not in proc.stdout  # no JSON arguments
    status = proc.stdout.strip().splitlines()[-1]
    assert status.strip().startswith("Waiting for your approval. To approve: gymnasia"), status
    approve = status.split("To approve: ", 1)[1].split(" · ", 1)[0]
    deny = status.split("to deny: ", 1)[1]
    assert deny == approve.replace(" approve ", " deny ")
    words = shlex.split(approve)
    assert words[:3] == ["gymnasia", "approvals", "approve"]
    assert words[4:] == ["--db", str(tmp_path / "gym.db")]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    done = subprocess.run(
        [sys.executable, "-m", "gymnasia", *words[1:], "--lang", "en"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Deleted: note 'diary'" in done.stdout
    listed = gym("approvals", "list", "--json", cwd=tmp_path)
    assert json.loads(listed.stdout) == []


def test_the_approvals_list_is_in_words(tmp_path: Path) -> None:
    """``approvals list`` shows each waiting action as its question and its commands."""
    gym("ask", NOTE["es"].format(key="diario", value="pierna"), cwd=tmp_path)
    gym("ask", DELETE["es"].format(key="diario"), cwd=tmp_path)
    proc = gym("approvals", "list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "¿Borrar la nota «diario» de tu memoria?" in proc.stdout
    assert "gymnasia approvals approve ap_" in proc.stdout
    assert "delete_memory" not in proc.stdout


@pytest.mark.parametrize("lang", ["es", "en"])
def test_deleting_a_note_that_does_not_exist_asks_nobody(tmp_path: Path, lang: str) -> None:
    """The tool's precheck finds there is no such note: ``not_found`` comes back without an
    approval, the handler never runs, and nothing waits."""
    gym("ask", NOTE[lang].format(key="kept", value="x"), cwd=tmp_path, lang=lang)
    proc = gym("ask", DELETE[lang].format(key="nothing"), "--json", cwd=tmp_path, lang=lang)
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout)
    assert turn["stop_reason"] == "completed"
    assert turn["pending_confirmation"] is None
    [call] = turn["tool_calls"]
    assert (call["name"], call["executed"]) == ("delete_memory", False)
    assert (call["outcome"]["error"], call["outcome"]["recovery"]) == (
        "not_found",
        "choose_alternative",
    )
    assert json.loads(gym("approvals", "list", "--json", cwd=tmp_path).stdout) == []


def test_deleting_a_missing_note_shows_no_code(tmp_path: Path) -> None:
    """What the person reads is that there is no such note, with no raw code nor a question."""
    proc = gym("ask", DELETE["es"].format(key="nada"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Coach: No hay ninguna nota «nada»."


def test_a_note_with_control_characters_cannot_drive_the_terminal(tmp_path: Path) -> None:
    """A note holding an escape sequence (clear the screen), a carriage return and a
    right-to-left override is shown with each as a visible escape, by ``ask`` and by the data
    commands alike."""
    hostile = "ok\x1b[2J\rfake\u202egnp.exe"
    saved = gym("ask", NOTE["es"].format(key="trap", value=hostile), cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    read = gym("ask", "Lee la nota trap.", cwd=tmp_path)
    assert read.returncode == 0, read.stderr
    for shown in (saved.stdout, read.stdout):
        assert not {"\x1b", "\r", "\u202e"} & set(shown), repr(shown)
    assert "ok\\x1b[2J\\x0dfake\\u202egnp.exe" in read.stdout


def test_neutralised_escapes_controls_and_bidi_and_keeps_the_rest() -> None:
    """Newlines, tabs, accents, emoji and other scripts stay; C0 and C1 controls, DEL and
    the bidirectional controls become visible escapes; applying it twice changes nothing."""
    kept = "Peso: 77,4 kg\n\t→ ¡bien! 💪 日本語 العربية"
    assert neutralised(kept) == kept
    assert neutralised("a\x1b[31mb\x07c\x7fd\x9be\u2066f\u200fg") == (
        "a\\x1b[31mb\\x07c\\x7fd\\x9be\\u2066f\\u200fg"
    )
    once = neutralised("\x1b]0;title\x07\u202e")
    assert neutralised(once) == once


def test_a_long_reply_wraps_under_its_prefix(tmp_path: Path) -> None:
    """A reply longer than the terminal is wrapped at its width, every line after the first
    starting under the reply's first column, not under "Coach:"."""
    proc = gym("ask", "¿Qué tiempo hace mañana en Lisboa?", "--no-stream", cwd=tmp_path, columns=48)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.rstrip("\n").splitlines()
    assert lines[0].startswith("  Coach: ")
    assert len(lines) > 3, proc.stdout
    for line in lines[1:]:
        assert len(line) <= 48, line
        assert line[:10].strip() == line[9], repr(line)  # 9 spaces, then the text


@pytest.mark.parametrize(
    ("lang", "food", "weight", "note"),
    [
        (
            "es",
            "¿Añadir 300 g de Copos de avena a: Comida, 2020-01-04?",
            "¿Guardar peso 77,1 kg (2020-01-04)?",
            "¿Borrar la nota «plan» de tu memoria? No se puede deshacer.",
        ),
        (
            "pt",
            "Adicionar 300 g de Aveia em flocos a: Almoço, 2020-01-04?",
            "Salvar peso 77,1 kg (2020-01-04)?",
            "Excluir a nota «plan» da sua memória? Não dá para desfazer.",
        ),
        (
            "en",
            "Add 300 g of Rolled oats to: Lunch, 2020-01-04?",
            "Save weight 77.1 kg (2020-01-04)?",
            "Delete the note 'plan' from your memory? This cannot be undone.",
        ),
    ],
)
def test_approval_words_name_the_data(lang: Any, food: str, weight: str, note: str) -> None:
    """What a waiting write will do, in the person's language, with the food's and the
    meal's names and the value with its unit: never the tool's name or JSON."""
    meal = {"date": "2020-01-04", "meal": "lunch", "food_id": "rolled_oats", "grams": 300.0}
    assert approval_words("add_meal_food", meal, lang) == food
    assert approval_words("write_measurement", {"date": "2020-01-04", "weight_kg": 77.1}, lang) == (
        weight
    )
    assert approval_words("delete_memory", {"key": "plan"}, lang) == note
