"""Turning turn results into what people and programs read: a trace, and the ``--json`` form."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from surefoot import Ok, ToolError, TurnResult
from surefoot.executor import CallRecord
from surefoot.outcome import to_record


def call_json(record: CallRecord) -> dict[str, Any]:
    """One tool call as ``--json`` lists it."""
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
    outcome = record.outcome
    if isinstance(outcome, Ok):
        label = "ok"
    else:
        assert isinstance(outcome, ToolError)
        label = f"error {outcome.code} → {outcome.recovery.value}"
    return label if record.executed else f"{label} (not executed)"


def print_call(console: Console, record: CallRecord) -> None:
    """One trace line for a call, and its outcome."""
    args = json.dumps(record.call.arguments, ensure_ascii=False)
    if record.call.arguments is None:
        args = repr(record.call.raw_arguments)
    style = "green" if isinstance(record.outcome, Ok) else "red"
    console.print(f"  [bold]→ {escape(record.call.name)}[/bold]({escape(args)})")
    data = json.dumps(to_record(record.outcome), ensure_ascii=False)
    console.print(f"    [{style}]{escape(outcome_label(record))}[/{style}] {escape(data)}")


def print_turn(
    console: Console, result: TurnResult, *, calls: bool = True, reply: bool = True
) -> None:
    """The trace of a finished turn: calls, reply (unless it was already shown as it
    streamed), stop reason, model requests."""
    if calls:
        for record in result.calls:
            print_call(console, record)
    if reply:
        author = "Coach" if result.reply_author == "model" else "Gymnasia"
        style = "cyan" if result.reply_author == "model" else "yellow"
        console.print(f"  [{style}]{author}:[/{style}] {escape(result.reply)}")
    console.print(
        f"  [dim]stop_reason={result.stop_reason} model_requests={result.model_requests}[/dim]"
    )
