"""A fake Google Interactions API on 127.0.0.1, strict like the real one.

``FakeGoogleInteractionsServer(turns)`` answers ``POST /{version}/interactions`` with the
scripted assistant turns in order, as JSON or, when the body asks for ``stream: true``, as
SSE with the real event types (``interaction.created``, ``step.start``, ``step.delta``,
``step.stop``, ``interaction.completed``, then ``[DONE]``). It records every request body.

It rejects, with Google's 400 (``{"error": {"code": 400, "message", "status":
"INVALID_ARGUMENT"}}``): a ``function_result`` without ``name``; one whose ``call_id``
answers no earlier ``function_call`` (or one already answered); a ``function_call`` left
without a result before the next user input or the end of the input; a ``result`` that is
not a JSON object. When the script has no turn left it answers 500.

Scripted turns map onto steps: text → ``model_output``; calls → ``function_call``
(``raw`` arguments are sent as that text, like a broken server); a ``ReasoningPart`` with
provider ``google`` → a ``thought`` step (its ``signature`` and ``summary``). Usage reports
thought tokens apart from output tokens (``total_thought_tokens``), as the real API does, and,
with ``cached_input_tokens``, that many ``total_cached_tokens`` (and their
``cached_tokens_by_modality``), counted inside ``total_input_tokens`` as the real API counts
the prompt's cached part. Finish
reasons map onto statuses: ``tool_use`` → ``requires_action``, ``max_tokens`` →
``incomplete``, ``refusal`` → a ``model_output`` step carrying an ``error``, else
``completed``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, Final

from .._messages import AssistantMessage, ReasoningPart, TextPart, ToolCall
from ._http import RecordedRequest, Reply, ScriptedHTTPServer, sse_event

_CREATE_PATH: Final = re.compile(r"/v[0-9a-z]+/interactions")
_STATUS_BY_FINISH: Final = {"tool_use": "requires_action", "max_tokens": "incomplete"}


class FakeGoogleInteractionsServer(ScriptedHTTPServer):
    """Plays ``turns`` as Interactions API responses; see the module docstring."""

    def __init__(
        self,
        turns: Sequence[AssistantMessage],
        *,
        model: str = "gemini-fake",
        chunk_sizes: Sequence[int] | None = None,
        cached_input_tokens: int | None = None,
    ) -> None:
        super().__init__(turns, chunk_sizes=chunk_sizes, cached_input_tokens=cached_input_tokens)
        self.model = model

    @property
    def bodies(self) -> list[Any]:
        """Every create-interaction request body received, in order."""
        return [r.body for r in self.requests if _is_create(r)]

    def handle(self, request: RecordedRequest) -> Reply:
        """Check the request like the real API, then serve the next scripted turn."""
        if not _is_create(request):
            return _error(404, "NOT_FOUND", f"no route for {request.method} {request.path}")
        problem = check_request(request.body)
        if problem is not None:
            return _error(400, "INVALID_ARGUMENT", problem)
        turn = self.next_turn()
        if turn is None:
            return _error(500, "INTERNAL", "the fake server has no scripted turn left")
        interaction = render_interaction(
            turn,
            number=self.served,
            model=self.model,
            cached_input_tokens=self.cached_input_tokens,
        )
        if request.body.get("stream") is True:
            return Reply.sse(list(_sse(interaction)))
        return Reply.json(200, interaction)


def _is_create(request: RecordedRequest) -> bool:
    return request.method == "POST" and bool(_CREATE_PATH.fullmatch(request.path.split("?")[0]))


def _error(code: int, status: str, message: str) -> Reply:
    return Reply.json(code, {"error": {"code": code, "message": message, "status": status}})


# -- strictness ----------------------------------------------------------------------------


def check_request(body: Any) -> str | None:
    """What the real API would reject in ``body`` (a message), or None."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str):
        return "Invalid JSON payload: a model is required."
    steps = body.get("input")
    if isinstance(steps, str) or steps is None:
        return None
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        return "Invalid value at 'input': expected a list of steps."
    return _check_steps(steps)


def _check_steps(steps: list[dict[str, Any]]) -> str | None:
    calls: set[str] = set()
    pending: list[str] = []
    for index, step in enumerate(steps):
        kind = step.get("type")
        if kind == "user_input" and pending:
            return _unanswered(pending)
        if kind == "function_call":
            problem = _check_call(index, step, calls)
            pending.extend([step["id"]] if problem is None else [])
        elif kind == "function_result":
            problem = _check_result(index, step, pending)
        else:
            problem = None
        if problem is not None:
            return problem
    return _unanswered(pending) if pending else None


def _check_call(index: int, step: dict[str, Any], calls: set[str]) -> str | None:
    call_id = step.get("id")
    if not isinstance(call_id, str) or not call_id:
        return f"input[{index}].id: a function_call needs an id."
    if call_id in calls:
        return f"input[{index}].id: duplicate function_call id {call_id!r}."
    if not isinstance(step.get("name"), str) or not isinstance(step.get("arguments"), dict):
        return f"input[{index}]: a function_call needs a name and an arguments object."
    calls.add(call_id)
    return None


def _check_result(index: int, step: dict[str, Any], pending: list[str]) -> str | None:
    name = step.get("name")
    if not isinstance(name, str) or not name:
        return f"input[{index}].name: function_result.name is required."
    call_id = step.get("call_id")
    if call_id not in pending:
        return (
            f"input[{index}].call_id: function_result.call_id {call_id!r} does not match "
            "any function_call awaiting a result."
        )
    if not isinstance(step.get("result"), dict):
        return f"input[{index}].result: function_result.result must be a JSON object."
    if "is_error" in step and not isinstance(step["is_error"], bool):
        return f"input[{index}].is_error: must be a boolean."
    pending.remove(call_id)
    return None


def _unanswered(pending: list[str]) -> str:
    return f"function_call {pending[0]!r} has no matching function_result."


# -- rendering -----------------------------------------------------------------------------


def render_interaction(
    turn: AssistantMessage, *, number: int, model: str, cached_input_tokens: int | None = None
) -> dict[str, Any]:
    """The Interaction resource the real API would return for ``turn``."""
    steps = [step for part in turn.parts if (step := _step(part)) is not None]
    if turn.finish == "refusal":
        steps.append({"type": "model_output", "error": {"code": 3, "message": "blocked"}})
    thought = sum(len(json.dumps(s)) for s in steps if s["type"] == "thought") // 4
    output = sum(len(json.dumps(s)) for s in steps if s["type"] != "thought") // 4
    usage: dict[str, Any] = {
        "total_input_tokens": 10 * number,
        "total_output_tokens": output,
        "total_thought_tokens": thought,
        "total_tokens": 10 * number + output + thought,
    }
    if cached_input_tokens is not None:
        prompt = 10 * number + cached_input_tokens
        usage = {
            "total_tokens": prompt + output + thought,
            "total_input_tokens": prompt,
            "input_tokens_by_modality": [{"modality": "text", "tokens": prompt}],
            "total_cached_tokens": cached_input_tokens,
            "cached_tokens_by_modality": [{"modality": "text", "tokens": cached_input_tokens}],
            "total_output_tokens": output,
            "total_tool_use_tokens": 0,
            "total_thought_tokens": thought,
        }
    return {
        "id": f"interaction_{number}",
        "object": "interaction",
        "model": model,
        "status": _STATUS_BY_FINISH.get(turn.finish, "completed"),
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:01Z",
        "steps": steps,
        "usage": usage,
    }


def _step(part: TextPart | ToolCall | ReasoningPart) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"type": "model_output", "content": [{"type": "text", "text": part.text}]}
    if isinstance(part, ToolCall):
        arguments: Any = part.raw_arguments if part.arguments is None else part.arguments
        return {
            "type": "function_call",
            "id": part.call_id,
            "name": part.name,
            "arguments": arguments if arguments is not None else {},
        }
    if part.provider != "google":
        return None
    thought: dict[str, Any] = {"type": "thought"}
    for key in ("signature", "summary"):
        if key in part.data:
            thought[key] = part.data[key]
    return thought


def _sse(interaction: dict[str, Any]) -> Iterator[bytes]:
    head = {k: interaction[k] for k in ("id", "object", "model")}
    yield _event("interaction.created", interaction={**head, "status": "in_progress"})
    yield _event("interaction.status_update", interaction_id=head["id"], status="in_progress")
    for index, step in enumerate(interaction["steps"]):
        yield from _step_events(index, step)
    tail = {**head, "status": interaction["status"], "usage": interaction["usage"]}
    yield _event("interaction.completed", interaction=tail)
    yield b"data: [DONE]\n\n"


def _step_events(index: int, step: dict[str, Any]) -> Iterator[bytes]:
    kind = step["type"]
    if kind == "model_output":
        start = {k: v for k, v in step.items() if k != "content"}
        yield _event("step.start", index=index, step=start)
        for item in step.get("content", ()):
            for piece in _pieces(item["text"], 6):
                yield _event("step.delta", index=index, delta={"type": "text", "text": piece})
    elif kind == "function_call":
        yield _event("step.start", index=index, step={**step, "arguments": {}})
        arguments = step["arguments"]
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        for piece in _pieces(text, 5):
            yield _event(
                "step.delta", index=index, delta={"type": "arguments_delta", "arguments": piece}
            )
    else:
        yield _event("step.start", index=index, step={"type": "thought"})
        for content in step.get("summary", ()):
            yield _event(
                "step.delta", index=index, delta={"type": "thought_summary", "content": content}
            )
        if "signature" in step:
            delta = {"type": "thought_signature", "signature": step["signature"]}
            yield _event("step.delta", index=index, delta=delta)
    yield _event("step.stop", index=index)


def _event(event_type: str, **fields: Any) -> bytes:
    return sse_event({**fields, "event_type": event_type}, event_type)


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


__all__ = ["FakeGoogleInteractionsServer", "check_request", "render_interaction"]
