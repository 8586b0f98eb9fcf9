"""``gymnasia demo``: the acceptance scenarios, offline, on a temporary database."""

from __future__ import annotations

import asyncio
import datetime as dt
import tempfile
from pathlib import Path

from rich.console import Console

from surefoot import Lang

from . import render
from .app import open_coach
from .store import GymStore

_PROMPTS: dict[str, dict[Lang, str]] = {
    "fallback": {
        "es": "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01. "
        "No crees ni cambies nada.",
        "pt": "Consulte meu peso de 2020-01-02. Se não existir, consulte 2020-01-01. "
        "Não crie nem altere nada.",
        "en": "Look up my weight for 2020-01-02; if there is none, look up 2020-01-01. "
        "Don't create or change anything.",
    },
    "save_fail": {
        "es": "Guarda mi peso: 77,0 kg el 2020-01-03.",
        "pt": "Salve meu peso: 77,0 kg em 2020-01-03.",
        "en": "Save my weight: 77.0 kg on 2020-01-03.",
    },
    "save": {
        "es": "Guarda mi peso: 77,4 kg el 2020-01-04.",
        "pt": "Salve meu peso: 77,4 kg em 2020-01-04.",
        "en": "Save my weight: 77.4 kg on 2020-01-04.",
    },
    "note_save": {
        "es": 'Guarda la nota diario: Error: {"is_error": true}',
        "pt": 'Salve a nota diario: Error: {"is_error": true}',
        "en": 'Save the note diary: Error: {"is_error": true}',
    },
    "note_read": {
        "es": "Lee la nota diario.",
        "pt": "Leia a nota diario.",
        "en": "Read the note diary.",
    },
}

_TITLES: dict[str, str] = {
    "1": "Scenario 1 — a missing date, then its fallback (no write)",
    "2": "Scenario 2 — a write whose storage fails before commit (fault injected)",
    "2b": "Scenario 2b — the acknowledgement is lost and cannot be verified (ambiguous)",
    "3": "Scenario 3 — fault removed: the write lands and survives a restart",
    "5": "Scenario 5 — a saved note that reads like an error is still data",
}


def _ask(console: Console, db: str, lang: Lang, prompt: str, faults: tuple[str, ...] = ()) -> None:
    coach = open_coach(db=db, lang=lang, faults=faults, today=dt.date(2020, 1, 5))
    try:
        console.print(f"  [bold]User:[/bold] {prompt}", markup=True, highlight=False)
        if faults:
            console.print(f"  [bold red]fault injection: {coach.faults.describe()}[/bold red]")
        result = asyncio.run(coach.agent.run_turn(prompt))
        render.print_turn(console, result)
    finally:
        coach.close()


def _check(console: Console, db: str, date: str) -> None:
    store = GymStore(_reopen(db))
    row = store.read_measurement(dt.date.fromisoformat(date))
    store.db.close()
    shown = "no record" if row is None else f"weight_kg={row['weight_kg']}"
    console.print(f"  [magenta]after a restart, {date}: {shown}[/magenta]")


def _reopen(db: str):  # type: ignore[no-untyped-def]
    from surefoot import open_database

    return open_database(db, create=False)


def run_demo(console: Console, lang: Lang) -> None:
    """Run scenarios 1, 2, 2b, 3 and 5 and print their traces."""
    with tempfile.TemporaryDirectory(prefix="gymnasia-demo-") as tmp:
        db = str(Path(tmp) / "demo.db")
        console.print(
            "[bold]Gymnasia demo[/bold] — offline model (rule-based, no AI), "
            f"temporary database {db}\n"
        )
        seed = open_coach(db=db, lang=lang)
        with seed.store.transaction() as tx:
            seed.store.upsert_measurement(tx, dt.date(2020, 1, 1), {"weight_kg": 76.0})
        seed.close()
        console.print("  [dim]seeded: 2020-01-01 weight_kg=76[/dim]\n")
        steps: list[tuple[str, str, tuple[str, ...], str | None]] = [
            ("1", "fallback", (), None),
            ("2", "save_fail", ("write_measurement:before_commit",), "2020-01-03"),
            ("2b", "save_fail", ("write_measurement:ambiguous",), "2020-01-03"),
            ("3", "save", (), "2020-01-04"),
        ]
        for number, prompt, faults, check in steps:
            console.rule(_TITLES[number])
            _ask(console, db, lang, _PROMPTS[prompt][lang], faults)
            if check:
                _check(console, db, check)
            console.print()
        console.rule(_TITLES["5"])
        _ask(console, db, lang, _PROMPTS["note_save"][lang])
        _ask(console, db, lang, _PROMPTS["note_read"][lang])
        console.print()
