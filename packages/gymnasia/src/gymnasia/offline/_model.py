"""``OfflineModel``: the rule-based model behind the ``Model`` protocol.

Each request reads the current turn (the last user message and the outcomes since), plans
the next step and answers with tool calls or the final text. It reacts to outcomes only by
their program-set mark, code and recovery label — never by reading message text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Sequence

from surefoot import Lang, ModelRequest, ModelResponse, Outcome
from surefoot.messages import (
    AssistantMessage,
    Message,
    StreamEvent,
    TextPart,
    ToolCall,
    ToolResultsMessage,
    UserMessage,
    stream_from_request,
)

from ._followup import follow_up
from ._intents import Unclear
from ._parse import understand
from ._plan import Call, Say, plan
from ._replies import Replies


class OfflineModel:
    """A rule-based stand-in for a language model, for demos, tests and working offline.

    ``today`` fixes the date that "hoy", "ayer", "today" ... count from (default: the day
    the message was said, as the journal keeps it, else the clock's date at each request).
    An earlier message read with this one counts from its own day."""

    provider = "offline"
    model_name = "gymnasia-offline-rules-2"

    def __init__(self, *, lang: Lang = "es", today: dt.date | None = None) -> None:
        self.lang: Lang = lang
        self.today = today

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Plan the next step of the current turn."""
        say = Replies(self.lang)
        said, results = _current_turn(request.messages)
        user = said.text if said is not None else ""
        today = self.today or (said.said_on if said is not None else None)
        today = today or dt.date.today()  # noqa: DTZ011 - a calendar date
        understood = understand(user, today=today, lang=self.lang)
        if understood is None or isinstance(understood, Unclear):
            understood = follow_up(request.messages, user, today, self.lang) or understood
        if understood is None:
            return self._say(say.help())
        if isinstance(understood, Unclear):
            return self._say(say.unclear(understood))
        step = plan(understood, results, say)
        if isinstance(step, Say):
            return self._say(step.text)
        return self._call(step, request, say)

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The same answer as one text delta, then the response."""
        return stream_from_request(self, request)

    def _say(self, text: str) -> ModelResponse:
        return ModelResponse(
            AssistantMessage(
                (TextPart(text),), "end_turn", provider=self.provider, model=self.model_name
            )
        )

    def _call(self, step: Call, request: ModelRequest, say: Replies) -> ModelResponse:
        offered = {spec.name for spec in request.tools}
        missing = next((name for name, _ in step.calls if name not in offered), None)
        if missing is not None:
            return self._say(say.tool_missing(missing))
        position = len(request.messages)
        calls = tuple(
            ToolCall(_call_id(position, i), name, arguments)
            for i, (name, arguments) in enumerate(step.calls)
        )
        return ModelResponse(
            AssistantMessage(calls, "tool_use", provider=self.provider, model=self.model_name)
        )


def _call_id(position: int, index: int) -> str:
    """``offline_<messages so far>``, with ``_<n>`` for the second call of a step onwards."""
    return f"offline_{position}" if index == 0 else f"offline_{position}_{index}"


def _current_turn(
    messages: Sequence[Message],
) -> tuple[UserMessage | None, list[tuple[ToolCall, Outcome]]]:
    """The last user message and the (call, outcome) pairs since, in order."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    if start < 0:
        return None, []
    user = messages[start]
    assert isinstance(user, UserMessage)
    calls: dict[str, ToolCall] = {}
    pairs: list[tuple[ToolCall, Outcome]] = []
    for message in messages[start + 1 :]:
        if isinstance(message, AssistantMessage):
            calls.update({c.call_id: c for c in message.tool_calls})
        elif isinstance(message, ToolResultsMessage):
            pairs.extend(
                (calls[r.call_id], r.outcome) for r in message.results if r.call_id in calls
            )
    return user, pairs
