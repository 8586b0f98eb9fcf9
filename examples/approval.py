"""A write a person approves: ``confirm=True`` pauses the turn until someone decides.

The turn stops with ``awaiting_confirmation`` before the write runs; ``Agent.decide`` records
the person's answer for that exact call and ``Agent.resume_sync`` runs the turn on. Answer
``y`` to delete, anything else to keep. Run it with ``python examples/approval.py`` (or
``echo y | python examples/approval.py``).
"""

from __future__ import annotations

import sys
from typing import Any

from surefoot import Agent, ModelRequest, ToolError, ToolSet
from surefoot.messages import AssistantMessage, ToolResultsMessage
from surefoot.testing import FunctionModel, call, turn

notes = {"n1": "Drink more water", "n2": "Stretch after runs"}
tools = ToolSet()


@tools.tool(effect="write", confirm=True)
def delete_note(note_id: str) -> dict[str, Any]:
    """Delete one memory note for good."""
    removed = notes.pop(note_id)
    return {"deleted": note_id, "text": removed}


def coach(request: ModelRequest) -> AssistantMessage:
    """A stand-in for a model: asks for the delete, then says what became of it."""
    last = request.messages[-1]
    if not isinstance(last, ToolResultsMessage):
        return turn(call("delete_note", {"note_id": "n1"}))
    [result] = last.results
    if isinstance(result.outcome, ToolError):
        return turn(f"I kept the note ({result.outcome.code}).")
    return turn("Done: the note about water is gone.")


def main() -> None:
    """Ask, pause for a person, decide, resume."""
    agent = Agent(model=FunctionModel(coach), tools=tools)
    paused = agent.run_turn_sync("Delete my note about water.")
    pending = paused.pending_confirmation
    assert pending is not None, paused.stop_reason
    print(f"turn paused ({paused.stop_reason}): {pending.tool}({pending.arguments})")
    print("Delete it? [y/N] ", end="", flush=True)
    approved = sys.stdin.readline().strip().lower() in {"y", "yes"}
    print("yes" if approved else "no")
    agent.decide(paused.conversation_id, pending.id, approved=approved)
    done = agent.resume_sync(paused.conversation_id)
    [record] = done.calls
    print(f"{record.call.name}: {'ran' if record.executed else 'not run'}")
    print(f"reply ({done.reply_author}): {done.reply}")
    print(f"notes left: {sorted(notes)}")


if __name__ == "__main__":
    main()
