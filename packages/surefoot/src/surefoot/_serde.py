"""Transcript messages to and from JSON, for journals and fixtures.

Outcomes are stored in their tagged form (``{"ok": data}`` or the envelope), so the mark
is read back as stored, never guessed from the data.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, assert_never

from ._messages import (
    AssistantMessage,
    AssistantPart,
    HarnessMessage,
    HarnessNote,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
)
from ._outcome import from_record, to_record


def message_to_json(message: Message) -> dict[str, Any]:
    """A JSON object for ``message``."""
    match message:
        case UserMessage(text=t, said_on=day):
            said = {} if day is None else {"said_on": day.isoformat()}
            return {"kind": "user", "text": t, **said}
        case HarnessMessage(text=t, reason=r):
            return {"kind": "harness", "text": t, "reason": r}
        case HarnessNote(text=t, reason=r):
            return {"kind": "harness_note", "text": t, "reason": r}
        case AssistantMessage():
            return {
                "kind": "assistant",
                "parts": [_part_to_json(p) for p in message.parts],
                "finish": message.finish,
                "provider": message.provider,
                "model": message.model,
                "provider_details": message.provider_details,
            }
        case ToolResultsMessage(results=results):
            return {
                "kind": "tool_results",
                "results": [_result_to_json(r) for r in results],
            }
        case _:
            assert_never(message)


def _result_to_json(result: ToolResult) -> dict[str, Any]:
    out = {
        "call_id": result.call_id,
        "name": result.name,
        "executed": result.executed,
        "outcome": to_record(result.outcome),
    }
    if result.key is not None:
        out["key"] = result.key
    return out


def _part_to_json(part: AssistantPart) -> dict[str, Any]:
    match part:
        case TextPart(text=t, provider_details=None):
            return {"kind": "text", "text": t}
        case TextPart(text=t, provider_details=details):
            return {"kind": "text", "text": t, "provider_details": details}
        case ToolCall():
            return {
                "kind": "tool_call",
                "call_id": part.call_id,
                "name": part.name,
                "arguments": part.arguments,
                "raw_arguments": part.raw_arguments,
                "provider_details": part.provider_details,
            }
        case ReasoningPart(provider=p, data=d):
            return {"kind": "reasoning", "provider": p, "data": d}
        case _:
            assert_never(part)


def message_from_json(data: dict[str, Any]) -> Message:
    """Inverse of ``message_to_json``; raises ``ValueError`` on an unknown kind."""
    kind = data.get("kind")
    if kind == "user":
        day = data.get("said_on")
        return UserMessage(data["text"], said_on=dt.date.fromisoformat(day) if day else None)
    if kind == "harness":
        return HarnessMessage(data["text"], data["reason"])
    if kind == "harness_note":
        return HarnessNote(data["text"], data["reason"])
    if kind == "assistant":
        return AssistantMessage(
            parts=tuple(_part_from_json(p) for p in data["parts"]),
            finish=data.get("finish", "end_turn"),
            provider=data.get("provider"),
            model=data.get("model"),
            provider_details=data.get("provider_details"),
        )
    if kind == "tool_results":
        return ToolResultsMessage(
            tuple(
                ToolResult(
                    call_id=r["call_id"],
                    name=r["name"],
                    outcome=from_record(r["outcome"]),
                    executed=r.get("executed", True),
                    key=r.get("key"),
                )
                for r in data["results"]
            )
        )
    msg = f"unknown message kind {kind!r}"
    raise ValueError(msg)


def _part_from_json(data: dict[str, Any]) -> AssistantPart:
    kind = data.get("kind")
    if kind == "text":
        return TextPart(data["text"], data.get("provider_details"))
    if kind == "tool_call":
        return ToolCall(
            call_id=data["call_id"],
            name=data["name"],
            arguments=data.get("arguments"),
            raw_arguments=data.get("raw_arguments"),
            provider_details=data.get("provider_details"),
        )
    if kind == "reasoning":
        return ReasoningPart(data["provider"], data["data"])
    msg = f"unknown part kind {kind!r}"
    raise ValueError(msg)
