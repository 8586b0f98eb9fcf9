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


class LivePrinter:
    """Prints a turn as it runs: the model's text as it streams (after ``Coach:``) and each
    call's trace line. It remembers whether the reply was shown, so it is printed once."""

    def __init__(self) -> None:
        self.streamed: list[str] = []
        self._line_open = False

    def __call__(self, event: TurnEvent) -> None:
        if isinstance(event, TextDelta):
            if not self._line_open:
                out.print("  [cyan]Coach:[/cyan] ", end="")
                self._line_open = True
            self.streamed.append(event.text)
            out.print(event.text, end="", markup=False)
        elif isinstance(event, CallRecord):
            self.end_line()
            render.print_call(out, event)

    def end_line(self) -> None:
        """End the streamed line, if one is open."""
        if self._line_open:
            out.print()
            self._line_open = False

    def showed_reply(self, result: TurnResult) -> bool:
        """Whether ``result``'s reply is what was streamed (then it is not printed again)."""
        return result.reply_author == "model" and "".join(self.streamed).endswith(result.reply)


def live_printer() -> LivePrinter:
    return LivePrinter()


def print_result(result: TurnResult, printer: LivePrinter | None) -> None:
    """The end of a turn on the terminal: the reply unless it was streamed, the stop line."""
    shown = printer is not None and printer.showed_reply(result)
    if printer is not None:
        printer.end_line()
    render.print_turn(out, result, calls=False, reply=not shown)


def report(
    result: TurnResult, coach: Coach, *, json_output: bool, printer: LivePrinter | None = None
) -> None:
    if json_output:
        payload = render.turn_json(result, provider=coach.provider, model=coach.model_name)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    else:
        print_result(result, printer)
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
