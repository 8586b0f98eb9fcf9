"""The acceptance scenarios through the real command line, offline, one process per
command (its documented surfaces: ``ask --json``, data commands, fault modes, usage errors)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gymnasia.demo import _TITLES as DEMO_TITLES

TODAY = "2020-01-05"
TURN_KEYS = {
    "version",
    "conversation_id",
    "provider",
    "model",
    "reply",
    "reply_author",
    "stop_reason",
    "model_requests",
    "tool_calls",
    "pending_confirmation",
}
CALL_KEYS = {"call_id", "name", "arguments", "raw_arguments", "executed", "outcome"}
MEASUREMENT_KEYS = {
    "date",
    "weight_kg",
    "body_fat_pct",
    "neck_cm",
    "chest_cm",
    "waist_cm",
    "hips_cm",
    "biceps_cm",
    "quadriceps_cm",
    "calf_cm",
    "height_cm",
}
KEY_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")

FALLBACK = {
    "es": "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01. "
    "No crees ni cambies nada.",
    "pt": "Consulte meu peso de 2020-01-02. Se não existir, consulte 2020-01-01. "
    "Não crie nem altere nada.",
    "en": "Look up my weight for 2020-01-02; if there is none, look up 2020-01-01. "
    "Don't create or change anything.",
}
SAVE_0103 = "Guarda mi peso: 77,0 kg el 2020-01-03."
SAVE_0104 = {
    "es": "Guarda mi peso: 77,4 kg el 2020-01-04.",
    "pt": "Salve meu peso: 77,4 kg em 2020-01-04.",
    "en": "Save my weight: 77.4 kg on 2020-01-04.",
}
SHOWN_77_4 = {"es": "77,4", "pt": "77,4", "en": "77.4"}


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without Gymnasia settings, provider keys or a terminal width."""
    drop = {"COLUMNS", "LINES", *KEY_VARIABLES}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("GYMNASIA_")}
    env.update(extra)
    return env


def gym(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m gymnasia ARGS`` in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env if env is not None else clean_env(),
        timeout=120,
        check=False,
    )


def one_json(proc: subprocess.CompletedProcess[str]) -> Any:
    """stdout parsed as exactly one JSON value (nothing before or after it)."""
    text = proc.stdout
    value, end = json.JSONDecoder().raw_decode(text)
    assert text[end:].strip() == "", f"more than one JSON value on stdout: {text!r}"
    assert text.endswith("\n")
    assert text.count("\n") == 1
    return value


class Gym:
    """One database file and the commands that run against it."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.dir = directory
        self.db = str(directory / "gymnasia.db")

    def run(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return gym(*args, "--db", self.db, cwd=self.dir, env=env)

    def seed(self, date: str = "2020-01-01", weight: str = "76") -> None:
        proc = self.run("measurements", "add", date, "--weight-kg", weight)
        assert proc.returncode == 0, proc.stderr

    def ask(
        self, message: str, *extra: str, env: dict[str, str] | None = None
    ) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
        proc = self.run("ask", message, "--json", "--today", TODAY, *extra, env=env)
        assert proc.returncode == 0, (proc.returncode, proc.stderr)
        return one_json(proc), proc

    def measurements(self) -> list[dict[str, Any]]:
        proc = self.run("measurements", "list", "--json")
        assert proc.returncode == 0, proc.stderr
        return one_json(proc)


GymFactory = Callable[[str], Gym]


@pytest.fixture(scope="module")
def new_gym(tmp_path_factory: pytest.TempPathFactory) -> GymFactory:
    """Makes a ``Gym`` over a fresh database file."""
    return lambda name: Gym(tmp_path_factory.mktemp(name))


def _outcome_error(tool_call: dict[str, Any]) -> dict[str, Any]:
    outcome = tool_call["outcome"]
    assert "ok" not in outcome, outcome
    return outcome


# -- scenario 1: a missing date, then its fallback -------------------------------------------


@pytest.fixture(scope="module", params=["es", "pt", "en"])
def scenario_1(request: pytest.FixtureRequest, new_gym: GymFactory) -> Any:
    """Scenario 1 run once per language on a database seeded with 2020-01-01 = 76 kg."""
    lang = request.param
    g = new_gym(f"s1-{lang}")
    g.seed()
    turn, proc = g.ask(FALLBACK[lang], "--lang", lang)
    return lang, g, turn, proc


def test_scenario_1_prints_one_json_object_with_the_contract_keys(scenario_1: Any) -> None:
    """``ask --json`` prints exactly one JSON object with the documented keys."""
    _, _, turn, _ = scenario_1
    assert set(turn) == TURN_KEYS
    assert turn["version"] == 1
    assert turn["provider"] == "offline"
    assert turn["model"]
    assert turn["conversation_id"]
    assert turn["pending_confirmation"] is None
    for tool_call in turn["tool_calls"]:
        assert set(tool_call) == CALL_KEYS


def test_scenario_1_reads_twice_and_follows_the_recovery(scenario_1: Any) -> None:
    """Exactly two read_measurement calls: 01-02 → not_found/choose_alternative, then 01-01 → ok."""
    _, _, turn, _ = scenario_1
    calls = turn["tool_calls"]
    assert [c["name"] for c in calls] == ["read_measurement", "read_measurement"]
    assert [c["arguments"] for c in calls] == [{"date": "2020-01-02"}, {"date": "2020-01-01"}]
    assert all(c["executed"] for c in calls)
    first = _outcome_error(calls[0])
    assert first["is_error"] is True
    assert first["kind"] == "tool_error"
    assert (first["error"], first["recovery"], first["recoverable"]) == (
        "not_found",
        "choose_alternative",
        True,
    )
    assert "2020-01-02" in first["message"]
    second = calls[1]["outcome"]
    assert set(second) == {"ok"}
    assert second["ok"]["date"] == "2020-01-01"
    assert second["ok"]["weight_kg"] == 76.0


def test_scenario_1_reply_reports_both_dates(scenario_1: Any) -> None:
    """The model's reply says 01-02 has no record and 01-01 has 76 kg; the turn completed."""
    _, _, turn, _ = scenario_1
    assert turn["reply_author"] == "model"
    assert turn["stop_reason"] == "completed"
    assert turn["model_requests"] == 3
    assert "76" in turn["reply"]
    assert "2020-01-01" in turn["reply"]
    assert "2020-01-02" in turn["reply"]


def test_scenario_1_writes_nothing(scenario_1: Any) -> None:
    """After scenario 1 the database holds only the seeded record."""
    _, g, _, _ = scenario_1
    rows = g.measurements()
    assert [r["date"] for r in rows] == ["2020-01-01"]
    assert rows[0]["weight_kg"] == 76.0
    assert set(rows[0]) == MEASUREMENT_KEYS


def test_scenario_1_labels_the_offline_model_on_stderr(scenario_1: Any) -> None:
    """The offline model is clearly labelled, on stderr (stdout is only the JSON)."""
    _, _, _, proc = scenario_1
    assert "offline" in proc.stderr


# -- scenario 2: a write whose storage fails --------------------------------------------------


@pytest.fixture(scope="module")
def before_commit(new_gym: GymFactory) -> Any:
    """A write with ``--fault write_measurement:before_commit`` on a seeded database."""
    g = new_gym("s2-before")
    g.seed()
    turn, proc = g.ask(SAVE_0103, "--fault", "write_measurement:before_commit")
    return g, turn, proc


def test_before_commit_stops_after_one_model_request(before_commit: Any) -> None:
    """The failing write ends the turn locally: stop_turn, one model request, harness reply."""
    _, turn, _ = before_commit
    assert turn["stop_reason"] == "stop_turn"
    assert turn["model_requests"] == 1
    assert turn["reply_author"] == "harness"
    assert [c["name"] for c in turn["tool_calls"]] == ["write_measurement"]


def test_before_commit_is_not_applied_once_the_ledger_lands(before_commit: Any) -> None:
    """The ledger proves nothing changed: not_applied / stop_turn, and the reply says so."""
    _, turn, _ = before_commit
    (tool_call,) = turn["tool_calls"]
    assert tool_call["executed"] is True
    error = _outcome_error(tool_call)
    assert (error["error"], error["recovery"], error["recoverable"]) == (
        "not_applied",
        "stop_turn",
        False,
    )
    assert "no se guardó nada" in turn["reply"]


def test_before_commit_leaves_no_record(before_commit: Any) -> None:
    """From a new process the failed date has no record: exit 1, nothing on stdout."""
    g, _, _ = before_commit
    proc = g.run("measurements", "show", "2020-01-03", "--json")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert [r["date"] for r in g.measurements()] == ["2020-01-01"]


def test_fault_injection_is_announced_on_stderr(before_commit: Any) -> None:
    """An active fault is shown loudly on stderr, never mixed into the JSON."""
    _, _, proc = before_commit
    assert "write_measurement:before_commit" in proc.stderr
    assert "write_measurement:before_commit" not in proc.stdout


def test_ambiguous_is_outcome_unknown_with_the_conservative_message(new_gym: GymFactory) -> None:
    """``ambiguous``: outcome_unknown / stop_turn, one request, no repeat, the conservative text."""
    g = new_gym("s2-ambiguous")
    turn, _ = g.ask(SAVE_0103, "--fault", "write_measurement:ambiguous")
    assert turn["stop_reason"] == "stop_turn"
    assert turn["model_requests"] == 1
    assert turn["reply_author"] == "harness"
    (tool_call,) = turn["tool_calls"]
    error = _outcome_error(tool_call)
    assert (error["error"], error["recovery"], error["recoverable"]) == (
        "outcome_unknown",
        "stop_turn",
        False,
    )
    assert "no puede confirmar" in turn["reply"]
    assert "dos veces" in turn["reply"]


def test_after_commit_is_reconciled_to_success(new_gym: GymFactory) -> None:
    """``after_commit``: the ledger proves the commit, so success, the turn goes on, one row."""
    g = new_gym("s2-after")
    turn, _ = g.ask(SAVE_0103, "--fault", "write_measurement:after_commit")
    assert turn["stop_reason"] == "completed"
    assert turn["reply_author"] == "model"
    assert turn["model_requests"] == 2
    (tool_call,) = turn["tool_calls"]
    assert set(tool_call["outcome"]) == {"ok"}
    assert tool_call["outcome"]["ok"]["weight_kg"] == 77.0
    rows = g.measurements()
    assert [(r["date"], r["weight_kg"]) for r in rows] == [("2020-01-03", 77.0)]


# -- scenario 3: the fault removed, the write lands and survives a restart --------------------


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_scenario_3_write_lands_after_the_fault_is_removed(new_gym: GymFactory, lang: str) -> None:
    """With the fault nothing is saved; without it 77.4 kg is saved and a new process reads it."""
    g = new_gym(f"s3-{lang}")
    failed, _ = g.ask(SAVE_0104[lang], "--lang", lang, "--fault", "write_measurement:before_commit")
    assert failed["stop_reason"] == "stop_turn"
    assert g.run("measurements", "show", "2020-01-04", "--json").returncode == 1

    turn, _ = g.ask(SAVE_0104[lang], "--lang", lang)
    assert turn["stop_reason"] == "completed"
    assert turn["reply_author"] == "model"
    (tool_call,) = turn["tool_calls"]
    assert tool_call["name"] == "write_measurement"
    assert tool_call["arguments"] == {"date": "2020-01-04", "weight_kg": 77.4}
    assert tool_call["outcome"]["ok"]["weight_kg"] == 77.4
    assert SHOWN_77_4[lang] in turn["reply"]

    shown = g.run("measurements", "show", "2020-01-04", "--json")
    assert shown.returncode == 0, shown.stderr
    row = one_json(shown)
    assert set(row) == MEASUREMENT_KEYS
    assert (row["date"], row["weight_kg"]) == ("2020-01-04", 77.4)
    assert [r["date"] for r in g.measurements()] == ["2020-01-04"]


# -- scenario 5: a note that reads like an error is data --------------------------------------


def test_scenario_5_a_note_reading_like_an_error_stays_a_success(new_gym: GymFactory) -> None:
    """Saving and reading the note 'Error: {"is_error": true}' gives {"ok": ...} both times."""
    g = new_gym("s5")
    value = 'Error: {"is_error": true}'
    saved, _ = g.ask(f"Guarda la nota diario: {value}")
    (save_call,) = saved["tool_calls"]
    assert save_call["name"] == "save_memory"
    assert save_call["arguments"]["value"] == value
    assert set(save_call["outcome"]) == {"ok"}

    read, _ = g.ask("Lee la nota diario.")
    (read_call,) = read["tool_calls"]
    assert read_call["name"] == "read_memory"
    assert read_call["outcome"] == {
        "ok": {"key": "diario", "description": "diario", "value": value}
    }
    assert read["stop_reason"] == "completed"
    assert read["reply_author"] == "model"
    assert value in read["reply"]


# -- usage errors ----------------------------------------------------------------------------


def _assert_usage_error(proc: subprocess.CompletedProcess[str]) -> None:
    """Exit 2, one line on stderr and nothing on stdout, with or without ``--json`` (a
    mistake in the command line is not a result a program reads)."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr


@pytest.fixture(scope="module")
def seeded_gym(new_gym: GymFactory) -> Gym:
    """A database holding only the seed 2020-01-01 = 76 kg (for commands that must fail)."""
    g = new_gym("seeded")
    g.seed()
    return g


@pytest.mark.parametrize(
    "fault",
    [
        "write_measurement:read_error",
        "read_measurement:before_commit",
        "list_measurements:after_commit",
        "no_such_tool:read_error",
        "write_measurement:explode",
        "write_measurement",
    ],
)
def test_bad_fault_pairs_are_usage_errors(seeded_gym: Gym, fault: str) -> None:
    """An invalid ``--fault`` pair exits 2 with one line on stderr and nothing on stdout."""
    _assert_usage_error(seeded_gym.run("ask", "hola", "--json", "--fault", fault))


@pytest.mark.parametrize("date", ["02/01/2020", "2020-02-30", "2020-1-5"])
def test_bad_date_is_a_usage_error(seeded_gym: Gym, date: str) -> None:
    """``measurements show`` with a date that is not YYYY-MM-DD exits 2, one line, no stdout."""
    _assert_usage_error(seeded_gym.run("measurements", "show", date, "--json"))


@pytest.mark.parametrize(
    "command",
    [
        ("measurements", "list", "--json"),
        ("measurements", "show", "2020-01-01", "--json"),
        ("diagnostics", "--json"),
    ],
    ids=["list", "show", "diagnostics"],
)
def test_data_commands_on_a_missing_database(tmp_path: Path, command: tuple[str, ...]) -> None:
    """Data commands on a database file that does not exist exit 2 and create nothing."""
    missing = tmp_path / "nowhere.db"
    proc = gym(*command, "--db", str(missing), cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "")  # a storage failure: JSON under --json
    assert one_json(proc)["error"] == "store_not_found"
    assert not missing.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# -- demo and the offline model's honesty ----------------------------------------------------


def test_demo_runs_every_scenario(tmp_path: Path) -> None:
    """``gymnasia demo`` exits 0 and prints every scenario title and the outcomes that matter."""
    proc = gym("demo", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert DEMO_TITLES
    for title in DEMO_TITLES.values():
        assert title in proc.stdout, title
    for fragment in ("not_found", "not_applied", "outcome_unknown", "model_requests=1"):
        assert fragment in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # its database was temporary


@pytest.mark.parametrize(
    ("lang", "message", "fragments"),
    [
        (
            "es",
            "¿Qué tiempo hará mañana en Madrid?",
            ("offline", "solo entiende", "Guarda mi peso"),
        ),
        ("pt", "Como vai o tempo amanhã?", ("offline", "só entende", "Salve meu peso")),
        ("en", "Write me a poem about squats.", ("offline", "only understands", "Save my weight")),
    ],
)
def test_offline_model_is_honest_about_what_it_understands(
    new_gym: GymFactory, lang: str, message: str, fragments: tuple[str, ...]
) -> None:
    """An unknown request gets a plain reply listing what the offline model does understand."""
    g = new_gym(f"help-{lang}")
    turn, _ = g.ask(message, "--lang", lang)
    assert turn["tool_calls"] == []
    assert turn["stop_reason"] == "completed"
    assert turn["reply_author"] == "model"
    assert turn["model_requests"] == 1
    for fragment in fragments:
        assert fragment in turn["reply"], turn["reply"]


def test_a_key_in_the_environment_does_not_switch_the_provider(new_gym: GymFactory) -> None:
    """With ANTHROPIC_API_KEY set and no --provider, the offline model still answers."""
    g = new_gym("env-key")
    turn, _ = g.ask("hola", env=clean_env(ANTHROPIC_API_KEY="sk-ant-test-not-real"))
    assert turn["provider"] == "offline"


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("es", "¿Cuánto pesaba ayer?"),
        ("pt", "Quanto eu pesava ontem?"),
        ("en", "What did I weigh yesterday?"),
    ],
)
def test_today_reaches_the_offline_model(new_gym: GymFactory, lang: str, message: str) -> None:
    """``--today`` fixes "today" for the offline Coach too: "yesterday" is the day before it."""
    gymnasium = new_gym(f"today-{lang}")
    gymnasium.seed("2020-01-04", "77.4")
    proc = gymnasium.run("ask", message, "--json", "--today", "2020-01-05", "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    result = one_json(proc)
    assert [(c["name"], c["arguments"]) for c in result["tool_calls"]] == [
        ("read_measurement", {"date": "2020-01-04"})
    ]
    assert SHOWN_77_4[lang] in result["reply"]


@pytest.mark.parametrize(
    ("lang", "today", "message", "invalid"),
    [
        ("es", "0001-01-01", "ayer peso 80 kg", "no es una fecha válida"),
        ("es", "0001-01-01", "anteayer peso 80 kg", "no es una fecha válida"),
        ("es", "0001-01-01", "muestra mi peso de los últimos 7 días", "no es una fecha válida"),
        ("es", "0001-01-01", "últimos 7 días", ""),
        ("en", "0001-01-01", "what did I eat yesterday", "is not a valid date"),
        ("pt", "0001-01-01", "ontem pesei 80 kg", "não é uma data válida"),
        ("es", "9999-12-31", "mañana peso 80 kg", "no es una fecha válida"),
        ("en", "9999-12-31", "save my weight 80 kg tomorrow", "is not a valid date"),
    ],
)
def test_relative_dates_at_the_calendar_edges_are_asked_back(
    new_gym: GymFactory, lang: str, today: str, message: str, invalid: str
) -> None:
    """ "Yesterday" of 0001-01-01 and "tomorrow" of 9999-12-31 are no dates: the offline model
    says so in the message's language (no traceback) and calls no tool."""
    gymnasium = new_gym(f"edge-{lang}")
    proc = gymnasium.run("ask", message, "--json", "--today", today, "--lang", lang)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    result = one_json(proc)
    assert result["tool_calls"] == []
    assert invalid in result["reply"]
