"""Turning turn results into what people and programs read: a trace, the ``--json`` form,
and ``neutralised``, which every text a model or a file wrote passes through before it
reaches a terminal."""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from rich.console import Console

    from surefoot import Lang, TurnResult
    from surefoot.executor import CallRecord

_BIDI: Final = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_UNSAFE: Final[dict[int, str]] = {
    **{code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]},
    **{ord(ch): f"\\u{ord(ch):04x}" for ch in _BIDI + "\u2028\u2029"},
}
del _UNSAFE[ord("\n")], _UNSAFE[ord("\t")]


def neutralised(text: str) -> str:
    """``text`` safe to put on a terminal: every control character but newline and tab (an
    escape sequence, a carriage return, a backspace, DEL, the C1 range) and every
    bidirectional control is written as a visible escape (``\\x1b``, ``\\u202e``), so what a
    model or a file wrote cannot clear the screen, move the cursor, overwrite a line or
    reorder the characters of one. Idempotent: the escapes are plain text."""
    return text.translate(_UNSAFE)


def approval_words(tool: str, arguments: dict[str, Any], lang: Lang) -> str:
    """What a write that waits for a person will do, and to which data, as a question in
    their words: Gymnasia's sentence for that tool, a measurement as ``describe`` words it,
    else the tool's name in plain words and the values it was given."""
    from .texts import has_text, t

    values = {k: v.isoformat() if isinstance(v, dt.date) else v for k, v in arguments.items()}
    if has_text(f"approve_{tool}"):
        try:
            return t(lang, f"approve_{tool}", **values)
        except KeyError:  # an argument the sentence names is missing: the plain form below
            pass
    if tool in ("write_measurement", "edit_measurement"):
        from .tools import describe_measurement

        what = describe_measurement(values, lang)
        if what:
            return t(lang, "approve_save", what=what)
    if tool == "add_meal_food":
        food = _meal_food_words(values, lang)
        if food:
            return food
    given = ", ".join(f"{k} {v}" for k, v in values.items() if v is not None)
    return t(lang, "approve_generic", title=tool.replace("_", " "), values=given or "-")


def _meal_food_words(values: dict[str, Any], lang: Lang) -> str | None:
    """A food to add to a meal, with the food's and the meal's names in ``lang``."""
    from . import catalog, meals
    from .texts import number, t

    food = catalog.foods().get(str(values.get("food_id")))
    meal = meals.resolve(str(values.get("meal")))
    grams = values.get("grams")
    if food is None or meal is None or not isinstance(grams, int | float):
        return None
    return t(
        lang,
        "approve_add_meal_food",
        grams=number(float(grams), lang),
        food=food.name(lang),
        meal=meals.label(meal, lang),
        date=values.get("date"),
    )


def call_json(record: CallRecord) -> dict[str, Any]:
    """One tool call as ``--json`` lists it."""
    from surefoot.outcome import to_record

    call = record.call
    return {
        "call_id": call.call_id,
        "name": call.name,
        "arguments": call.arguments,
        "raw_arguments": call.raw_arguments,
        "executed": record.executed,
        "outcome": to_record(record.outcome),
    }


def turn_json(result: TurnResult, *, provider: str, model: str) -> dict[str, Any]:
    """The one JSON object ``gymnasia ask --json`` prints."""
    pending = result.pending_confirmation
    return {
        "version": 1,
        "conversation_id": result.conversation_id,
        "provider": provider,
        "model": model,
        "reply": result.reply,
        "reply_author": result.reply_author,
        "stop_reason": result.stop_reason,
        "model_requests": result.model_requests,
        "tool_calls": [call_json(r) for r in result.calls],
        "pending_confirmation": None
        if pending is None
        else {"id": pending.id, "tool": pending.tool, "arguments": pending.arguments},
    }


def dumps(value: Any) -> str:
    """Pretty JSON for people-facing ``--json`` output."""
    return json.dumps(value, ensure_ascii=False, indent=2)


def outcome_label(record: CallRecord) -> str:
    """``ok`` or ``error <code> → <recovery>`` (plus ``not executed``)."""
    from surefoot import Ok, ToolError

    outcome = record.outcome
    if isinstance(outcome, Ok):
        label = "ok"
    else:
        assert isinstance(outcome, ToolError)
        label = f"error {outcome.code} → {outcome.recovery.value}"
    return label if record.executed else f"{label} (not executed)"


def print_call(console: Console, record: CallRecord) -> None:
    """One trace line for a call, and its outcome."""
    from rich.markup import escape

    from surefoot import Ok
    from surefoot.outcome import to_record

    args = json.dumps(record.call.arguments, ensure_ascii=False)
    if record.call.arguments is None:
        args = repr(record.call.raw_arguments)
    style = "green" if isinstance(record.outcome, Ok) else "red"
    name, args = neutralised(record.call.name), neutralised(args)
    console.print(f"  [bold]→ {escape(name)}[/bold]({escape(args)})")
    data = neutralised(json.dumps(to_record(record.outcome), ensure_ascii=False))
    console.print(f"    [{style}]{escape(outcome_label(record))}[/{style}] {escape(data)}")


def print_turn(
    console: Console, result: TurnResult, *, calls: bool = True, reply: bool = True
) -> None:
    """The trace of a finished turn: calls, reply (unless it was already shown as it
    streamed), stop reason, model requests."""
    from rich.markup import escape

    if calls:
        for record in result.calls:
            print_call(console, record)
    if reply:
        author = "Coach" if result.reply_author == "model" else "Gymnasia"
        style = "cyan" if result.reply_author == "model" else "yellow"
        console.print(f"  [{style}]{author}:[/{style}] {escape(neutralised(result.reply))}")
    console.print(
        f"  [dim]stop_reason={result.stop_reason} model_requests={result.model_requests}[/dim]"
    )
