"""A write whose outcome is unknown ends the turn with a message that names the commands
that show it (``gymnasia writes`` and the data command for that tool, with the same
``--db``, ``--user`` and ``--lang``) and does not contradict itself: an idempotent write is
safe to ask again; any other is checked first. Each named command is then run and shows the
write."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

TODAY = "2020-01-05"


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


def named_commands(reply: str) -> list[list[str]]:
    """The ``gymnasia ...`` commands quoted in ``reply`` («...» or '...'), as argument lists."""
    quoted = re.findall(r"«(gymnasia [^»]+)»|'(gymnasia [^']+)'", reply)
    return [shlex.split(a or b)[1:] for a, b in quoted]


@pytest.mark.parametrize(
    ("lang", "fault", "message", "data_command", "shows", "says", "never"),
    [
        (
            "es",
            "write_measurement:ambiguous",
            "Guarda mi peso: 77,0 kg el 2020-01-03.",
            ["measurements", "show", "2020-01-03"],
            "peso: 77 kg",
            "Volver a pedirlo es seguro",
            "Antes de volver a pedirlo",
        ),
        (
            "en",
            "add_meal_food:ambiguous",
            "Add 150 g of white rice, cooked to lunch today.",
            ["meals", "show", TODAY, "--meal", "lunch"],
            "150 g",
            "Before asking again, check whether it was done",
            "safe",
        ),
        (
            "pt",
            "save_memory:ambiguous",
            "Guarda a nota objetivo: correr 10 km.",
            None,
            "save_memory",
            "Voltar a pedir é seguro",
            "Antes de voltar a pedir",
        ),
    ],
)
def test_the_message_names_the_commands_that_show_the_write(
    tmp_path: Path,
    lang: str,
    fault: str,
    message: str,
    data_command: list[str] | None,
    shows: str,
    says: str,
    never: str,
) -> None:
    db = str(tmp_path / "gym.db")
    options = ["--db", db, "--user", "ana"]
    asked = gym("ask", message, *options, "--lang", lang, "--today", TODAY, "--json",
                "--fault", fault, cwd=tmp_path)  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    turn = json.loads(asked.stdout)
    assert (turn["reply_author"], turn["stop_reason"]) == ("harness", "stop_turn"), turn
    reply = turn["reply"]
    assert says in reply
    assert never not in reply
    commands = named_commands(reply)
    lang_options = [] if lang == "es" else ["--lang", lang]
    expected = [["writes", *options, *lang_options]]
    if data_command is not None:
        expected.append([*data_command, *options, *lang_options])
    assert commands == expected
    for command in commands:
        shown = gym(*command, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        assert shows in shown.stdout or command[0] == "writes"
    writes = gym(*commands[0], "--json", cwd=tmp_path)
    assert [w["tool"] for w in json.loads(writes.stdout)] == [fault.split(":", maxsplit=1)[0]]
