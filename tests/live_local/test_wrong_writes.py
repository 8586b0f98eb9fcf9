"""Wrong writes on a real small model: what a person did not give is never stored (opt-in,
slow; ``make test-local`` runs it with the harness's invariants).

Each case is one ``gymnasia ask`` turn on a fresh database (``--today 2026-12-03``; some seed
76 kg on 2026-12-02), by kind, in es, pt and en: a date after today, a goal, grams of food, a
vague date, a jump against the person's history, another person's weight — none may store a
measurement — and two plain writes that must be stored exactly (today's weight; yesterday's).
After the turn the case reads the database (``gymnasia export``) and compares it with what the
person said: a stored value or date the person did not give is a **wrong write**; an expected
write stored as said is **exact**. The model's choices are recorded, not judged: a case fails
only on a wrong write. The records go to ``build/local-wrong-writes.json`` (or
``SUREFOOT_LOCAL_WRONG_WRITES``) and a table per kind is printed at the end.

``SUREFOOT_LOCAL_GYMNASIA`` runs another tree's code (a ``git archive`` of an older commit,
its ``packages/*/src`` put first on the path): how "before" is measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_local_model import ASK_TIMEOUT, MODEL, PROCESS_TIMEOUT, TODAY

RESULTS = Path(os.environ.get("SUREFOOT_LOCAL_WRONG_WRITES", "build/local-wrong-writes.json"))
OTHER_TREE = os.environ.get("SUREFOOT_LOCAL_GYMNASIA")
YESTERDAY = "2026-12-02"
_KEY = pytest.StashKey[list[dict[str, Any]]]()


@dataclass(frozen=True)
class Case:
    """One utterance and what may be stored after it (None: no new measurement)."""

    kind: str
    lang: str
    message: str
    expected: dict[str, Any] | None = None
    """The one measurement the person asked for: its date and values."""
    seed: bool = False
    """76 kg on 2026-12-02 before the turn."""
    goal: dict[str, Any] | None = None
    """The goal the person stated, as they stated it (a goal saved otherwise is wrong)."""


def _goal(target: float) -> dict[str, Any]:
    """A weight goal as the export lists it, with no date (none of the cases gives one)."""
    return {"goal": "weight_kg", "target": target}


def _cases() -> list[Case]:
    said = {
        "future_date": (
            "Guarda 82 kg para el 2026-12-31",
            "Salve 82 kg para 2026-12-31",
            "Record 82 kg for 2026-12-31",
        ),
        "goal": ("Quiero llegar a 74 kg", "Quero chegar a 74 kg", "I want to get to 74 kg"),
        "food_grams": (
            "Apunta 220 g de lentejas cocidas en la comida",
            "Registre 220 g de lentilha cozida no almoço",
            "Record 220 g of cooked lentils for lunch",
        ),
        "vague_date": (
            "El otro día pesé 81 kg",
            "Outro dia pesei 81 kg",
            "The other day I weighed 81 kg",
        ),
        "other_person": (
            "Mi hermano pesa 90 kg",
            "Meu irmão pesa 90 kg",
            "My brother weighs 90 kg",
        ),
    }
    cases = [
        Case(kind, lang, text, goal=_goal(74) if kind == "goal" else None)
        for kind, texts in said.items()
        for lang, text in zip(("es", "pt", "en"), texts, strict=True)
    ]
    jump = ("Hoy peso 220 kg", "Hoje peso 220 kg", "Today I weigh 220 kg")
    cases += [
        Case("jump", lang, text, seed=True)
        for lang, text in zip(("es", "pt", "en"), jump, strict=True)
    ]
    today = (
        "Guarda mi peso de hoy: 77,4 kg",
        "Salve meu peso de hoje: 77,4 kg",
        "Save my weight for today: 77.4 kg",
    )
    yesterday = ("Ayer pesé 78 kg", "Ontem pesei 78 kg", "Yesterday I weighed 78 kg")
    for lang, now, before in zip(("es", "pt", "en"), today, yesterday, strict=True):
        cases.append(Case("exact_today", lang, now, {"date": TODAY, "weight_kg": 77.4}))
        cases.append(Case("exact_yesterday", lang, before, {"date": YESTERDAY, "weight_kg": 78.0}))
    return sorted(cases, key=lambda c: c.lang)  # one language at a time: the prefix cache


def _second_set() -> list[Case]:
    """Other phrasings, written after the first set and measured as they stood: 24 writes a
    person asks for (other fields, decimal commas, several fields at once, relative and
    written dates) and 15 that must store no measurement (tomorrow, a goal, grams of food,
    someone else, a vague date), in es, pt and en; their kinds start with ``2:``."""
    days_ago, first = "2026-11-30", "2026-12-01"
    asked = {
        "today_comma": (
            ("Peso 80,2 kg hoy", "Hoje estou com 80,2 kg", "I'm 80.2 kg this morning"),
            {"date": TODAY, "weight_kg": 80.2},
        ),
        "yesterday_waist": (
            (
                "Ayer mi cintura medía 84 cm",
                "Ontem minha cintura media 84 cm",
                "My waist was 84 cm yesterday",
            ),
            {"date": YESTERDAY, "waist_cm": 84.0},
        ),
        "days_ago": (
            (
                "Hace tres días pesé 79,5 kg",
                "Há três dias pesei 79,5 kg",
                "Three days ago I weighed 79.5 kg",
            ),
            {"date": days_ago, "weight_kg": 79.5},
        ),
        "iso_date": (
            (
                "Anota 78,9 kg el 2026-11-28",
                "Anote 78,9 kg em 2026-11-28",
                "Log 78.9 kg on 2026-11-28",
            ),
            {"date": "2026-11-28", "weight_kg": 78.9},
        ),
        "body_fat": (
            (
                "Mi grasa corporal hoy es 21 %",
                "Meu percentual de gordura hoje é 21%",
                "Body fat today: 21%",
            ),
            {"date": TODAY, "body_fat_pct": 21.0},
        ),
        "two_fields": (
            (
                "Hoy: peso 81 kg y cintura 86 cm",
                "Hoje: peso 81 kg e cintura 86 cm",
                "Today: weight 81 kg, waist 86 cm",
            ),
            {"date": TODAY, "weight_kg": 81.0, "waist_cm": 86.0},
        ),
        "day_month": (
            (
                "El 1 de diciembre pesé 80 kg",
                "Em 1 de dezembro pesei 80 kg",
                "On December 1 I weighed 80 kg",
            ),
            {"date": first, "weight_kg": 80.0},
        ),
        "hips": (
            ("Guarda cadera 98 cm de hoy", "Salve quadril 98 cm hoje", "Save hips 98 cm for today"),
            {"date": TODAY, "hips_cm": 98.0},
        ),
    }
    refused = {
        "tomorrow": (
            "Apunta 79 kg para mañana",
            "Anote 79 kg para amanhã",
            "Put down 79 kg for tomorrow",
        ),
        "goal": ("Mi meta es pesar 72 kg", "Minha meta é pesar 72 kg", "My goal is to weigh 72 kg"),
        "food_grams": (
            "Desayuné 150 g de avena",
            "Comi 150 g de aveia no café da manhã",
            "I had 150 g of oats for breakfast",
        ),
        "other_person": ("Mi mujer pesa 65 kg", "Minha esposa pesa 65 kg", "My wife weighs 65 kg"),
        "vague_date": (
            "Hace unos días pesé 80 kg",
            "Uns dias atrás pesei 80 kg",
            "A few days ago I weighed 80 kg",
        ),
    }
    langs = ("es", "pt", "en")
    cases = [
        Case(f"2:{kind}", lang, text, expected)
        for kind, (texts, expected) in asked.items()
        for lang, text in zip(langs, texts, strict=True)
    ]
    cases += [
        Case(f"2:{kind}", lang, text, goal=_goal(72) if kind == "goal" else None)
        for kind, texts in refused.items()
        for lang, text in zip(langs, texts, strict=True)
    ]
    return sorted(cases, key=lambda c: c.lang)


CASES = _cases() + _second_set()


def _gymnasia(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    if OTHER_TREE:
        tree = Path(OTHER_TREE)
        paths = [tree / "packages/surefoot/src", tree / "packages/gymnasia/src"]
        env["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
    return subprocess.run(
        [sys.executable, "-m", "gymnasia", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def _measurements(db: Path) -> list[dict[str, Any]]:
    """The measurements and the goals stored (a goal as ``{"goal": measure, ...}``)."""
    proc = _gymnasia(["export", "--db", str(db)], 120)
    if proc.returncode != 0:
        return []
    exported = json.loads(proc.stdout)
    rows = exported["measurements"]
    rows += [{"goal": g["measure"], **g} for g in exported.get("goals", [])]
    return [{k: v for k, v in row.items() if v is not None and k != "measure"} for row in rows]


def judge(case: Case, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, Any]:
    """What the turn stored that was not there, and whether that is wrong or exact."""
    new = [row for row in after if row not in before]
    if case.expected is None:
        wrong = [row for row in new if row != case.goal]
        return {"stored": new, "wrong": bool(wrong), "exact": None}
    wrong = [row for row in new if row != case.expected]
    return {"stored": new, "wrong": bool(wrong), "exact": new == [case.expected]}


@pytest.fixture(scope="session")
def wrong_write_records(request: pytest.FixtureRequest) -> list[dict[str, Any]]:
    """Where each case leaves its record (written out as it goes)."""
    return request.config.stash.setdefault(_KEY, [])


@pytest.mark.live_local
@pytest.mark.parametrize("case", CASES, ids=[f"{c.kind.replace(':', '-')}-{c.lang}" for c in CASES])
def test_nothing_the_person_did_not_give_is_stored(
    case: Case, local_base_url: str, wrong_write_records: list[dict[str, Any]], tmp_path: Path
) -> None:
    """One utterance on the local model stores no value, date or goal the person did not give."""
    db = tmp_path / "w.db"
    if case.seed:
        seeded = _gymnasia(
            ["measurements", "add", YESTERDAY, "--weight-kg", "76", "--db", str(db)], 120
        )
        assert seeded.returncode == 0, seeded.stderr
    before = _measurements(db)
    args = ["ask", case.message, "--provider", "openai-chat", "--base-url", local_base_url]
    args += ["--model", MODEL, "--timeout", ASK_TIMEOUT, "--today", TODAY]
    args += ["--db", str(db), "--json", "--lang", case.lang]
    started = time.monotonic()
    proc = _gymnasia(args, PROCESS_TIMEOUT)
    wall = round(time.monotonic() - started, 1)
    turn = json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else {}
    verdict = judge(case, before, _measurements(db))
    record = {
        "kind": case.kind,
        "lang": case.lang,
        "message": case.message,
        "stop_reason": turn.get("stop_reason"),
        "calls": [(c["name"], c["arguments"]) for c in turn.get("tool_calls", [])],
        "reply": turn.get("reply"),
        "wall_seconds": wall,
        **verdict,
    }
    wrong_write_records.append(record)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(wrong_write_records, ensure_ascii=False, indent=2) + "\n")
    assert not verdict["wrong"], f"{case.kind}/{case.lang}: stored {verdict['stored']}"


def summary(records: list[dict[str, Any]]) -> list[str]:
    """One line per kind: cases, wrong writes, exact writes (where one was asked for)."""
    lines = [f"{'kind':<16} {'cases':>5} {'wrong':>5} {'exact':>7}"]
    for kind in dict.fromkeys(r["kind"] for r in records):
        rows = [r for r in records if r["kind"] == kind]
        asked = [r for r in rows if r["exact"] is not None]
        exact = f"{sum(r['exact'] for r in asked)}/{len(asked)}" if asked else "-"
        lines.append(f"{kind:<16} {len(rows):>5} {sum(r['wrong'] for r in rows):>5} {exact:>7}")
    lines.append(f"{'all':<16} {len(records):>5} {sum(r['wrong'] for r in records):>5}")
    return lines


def test_the_judge_tells_wrong_from_exact() -> None:
    """Offline: a new row where none was asked is wrong; the asked row is exact; another
    value or date instead is wrong; nothing stored for an asked write is neither."""
    goal = Case("goal", "en", "I want to get to 74 kg")
    asked = Case("exact_today", "en", "x", {"date": TODAY, "weight_kg": 77.4})
    row = {"date": TODAY, "weight_kg": 74.0}
    assert judge(goal, [], [row])["wrong"] is True
    assert judge(goal, [row], [row])["wrong"] is False
    assert judge(asked, [], [{"date": TODAY, "weight_kg": 77.4}]) == {
        "stored": [{"date": TODAY, "weight_kg": 77.4}],
        "wrong": False,
        "exact": True,
    }
    assert judge(asked, [], [{"date": YESTERDAY, "weight_kg": 77.4}])["wrong"] is True
    assert judge(asked, [], []) == {"stored": [], "wrong": False, "exact": False}
    stated = Case("goal", "en", "I want to get to 74 kg", goal=_goal(74))
    assert judge(stated, [], [_goal(74)])["wrong"] is False
    assert judge(stated, [], [{**_goal(74), "by_date": TODAY}])["wrong"] is True
    table = summary([{"kind": "goal", "wrong": True, "exact": None}])
    assert table[1].split() == ["goal", "1", "1", "-"]
