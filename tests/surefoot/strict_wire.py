"""Would the strict fake servers accept the next request built from a journal? (Not a test
module.) Each wire API's pure request builder runs over the transcript, and the matching
fake's own checker says what the real API would reject."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from surefoot import ModelRequest
from surefoot.messages import AssistantMessage, Message, ToolSpec, UserMessage
from surefoot.providers import anthropic, google_interactions, openai_chat, openai_responses
from surefoot.testing import (
    _fake_anthropic,
    _fake_google,
    _fake_openai_chat,
    _fake_openai_responses,
)


def next_request(messages: Sequence[Message]) -> list[Message]:
    """The transcript as the next request would carry it: calls still waiting for a decision
    are left out (they are answered before any request), and a new user message follows a
    finished turn."""
    shown = list(messages)
    if shown and isinstance(shown[-1], AssistantMessage) and shown[-1].tool_calls:
        shown.pop()
    if not shown or not isinstance(shown[-1], UserMessage):
        shown.append(UserMessage("next"))
    return shown


def wire_problems(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """What each strict fake would reject in the next request built from ``messages``."""
    request = ModelRequest(messages=next_request(messages), tools=tools, system="s")
    found: dict[str, Any] = {
        "anthropic": _fake_anthropic.request_problem(
            anthropic.build_request(request, model="m", max_tokens=64)
        ),
        "openai": _fake_openai_responses.request_problem(
            openai_responses.build_request(request, model="m", max_tokens=64)
        ),
        "google": _fake_google.check_request(
            google_interactions.build_request(request, model="m", max_tokens=64)
        ),
        "openai-chat": _fake_openai_chat.check_request(
            openai_chat.build_request(request, model="m", max_tokens=64)
        ),
    }
    return {name: problem for name, problem in found.items() if problem is not None}
