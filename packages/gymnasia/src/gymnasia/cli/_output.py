"""How results are shown: live traces, the ``--json`` form of a turn, meals and ledger rows."""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import Any

import typer

from surefoot import Lang, TurnEvent, TurnResult
from surefoot.executor import CallRecord
from surefoot.messages import TextDelta

from .. import render
from ..app import Coach
from ..texts import number, t
from ._base import out


def live_printer() -> Any:
    streamed: list[str] = []

    def on_event(event: TurnEvent) -> None:
        if isinstance(event, TextDelta):
            if not streamed:
                out.print("  [cyan]Coach:[/cyan] ", end="")
            streamed.append(event.text)
            out.print(event.text, end="", markup=False)
        elif isinstance(event, CallRecord):
            render.print_call(out, event)

    on_event.streamed = streamed  # type: ignore[attr-defined]
    return on_event


def report(result: TurnResult, coach: Coach, *, json_output: bool) -> None:
    if json_output:
        payload = render.turn_json(result, provider=coach.provider, model=coach.model_name)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    else:
        if result.reply_author == "harness" or result.stop_reason != "completed":
            out.print()
        render.print_turn(out, result, calls=False)
    if result.stop_reason == "provider_error":
        raise typer.Exit(3)


def write_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def nutrients(values: dict[str, Any], lang: Lang) -> str:
    return t(lang, "nutrients", **{k: number(v, lang) for k, v in values.items()})


def print_meal(shown: dict[str, Any], lang: Lang) -> None:
    out.print(f"[bold]{shown['label']}[/bold] ({shown['meal']})")
    if not shown["items"]:
        out.print(f"  {t(lang, 'meal_empty')}")
    for item in shown["items"]:
        name = item["name"] or item["food_id"]
        energy = item["energy_kcal"]
        kcal = "?" if energy is None else number(energy, lang)
        ref = f"[{item['item_id']}] " if "item_id" in item else ""
        out.print(
            f"  {ref}{number(item['grams'], lang)} g {name}: {kcal} kcal",
            markup=False,
            soft_wrap=True,
        )
    if shown["items"]:
        out.print(f"  = {nutrients(shown['totals'], lang)}", soft_wrap=True)


def entry_json(entry: Any) -> dict[str, Any]:
    return {
        "key": entry.key,
        "conversation_id": entry.conversation_id,
        "tool": entry.tool,
        "arguments": entry.arguments,
        "state": entry.state,
        "attempt": entry.attempt,
        "result": entry.result,
        "error": entry.error,
        "created_at": dt.datetime.fromtimestamp(entry.created_at, dt.UTC).isoformat(),
        "updated_at": dt.datetime.fromtimestamp(entry.updated_at, dt.UTC).isoformat(),
    }
