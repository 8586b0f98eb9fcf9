"""Streaming to a terminal: the reply's text is printed as it arrives.

``Agent(stream=True)`` asks the model for a streamed response and hands each piece of text to
``on_event`` as a ``TextDelta``; a tool call's record arrives the same way once it ran. The
model here is the real OpenAI-compatible chat adapter talking to
``surefoot.testing.FakeOpenAIChatServer`` on 127.0.0.1, which streams its scripted answer as
server-sent events the way Ollama or llama.cpp would. Needs the ``openai`` extra
(``pip install 'surefoot[openai]'``). Run it with ``python examples/streaming.py``.
"""

from __future__ import annotations

from typing import Any

from surefoot import Agent, ToolSet, TurnEvent
from surefoot.executor import CallRecord
from surefoot.messages import TextDelta
from surefoot.providers import make_model
from surefoot.testing import FakeOpenAIChatServer, call, turn

tools = ToolSet()


@tools.tool
def weekly_plan(goal: str) -> dict[str, Any]:
    """The training days of a week for one goal."""
    return {"goal": goal, "days": ["Monday", "Wednesday", "Friday"]}


def show(event: TurnEvent) -> None:
    """Print text as it streams in, and one line per tool call."""
    if isinstance(event, TextDelta):
        print(event.text, end="", flush=True)
    elif isinstance(event, CallRecord):
        print(f"[{event.call.name} -> {'error' if event.outcome.is_error else 'ok'}]", flush=True)


def main() -> None:
    """One streamed turn with a tool call in the middle."""
    answer = "Train on Monday, Wednesday and Friday: three full-body sessions with a day of rest."
    script = [turn(call("weekly_plan", {"goal": "strength"})), turn(answer)]
    with FakeOpenAIChatServer(script, chunk_sizes=[6]).start() as server:
        model = make_model(
            "openai-chat", "fake-chat", api_key="none", base_url=server.base_url + "/v1"
        )
        agent = Agent(model=model, tools=tools, stream=True)
        result = agent.run_turn_sync("Plan my week for strength.", on_event=show)
        print()
        print(f"({len(server.bodies)} streamed requests, stop: {result.stop_reason})")


if __name__ == "__main__":
    main()
