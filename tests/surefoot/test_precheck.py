"""A write that confirms may declare a precheck: an error it returns is the call's outcome
without asking anyone (the handler does not run, no key is claimed); None lets the call go on
to its question; it runs before a confirmation policy, and not again once a person decided."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from surefoot import (
    Agent,
    ConfigurationError,
    MemoryJournal,
    MemoryLedger,
    Recovery,
    ToolContext,
    ToolError,
    ToolSet,
)
from surefoot.diagnostics import MemoryDiagnostics
from surefoot.testing import ScriptedModel, call, turn


class Notes:
    """Notes, a delete tool over them that confirms, and counts of what ran."""

    def __init__(self, *, confirm: Any = True, raises: bool = False) -> None:
        self.notes = {"plan": "legs"}
        self.checked: list[str] = []
        self.deleted: list[str] = []
        self.tools = ToolSet()
        self.raises = raises

        @self.tools.tool(effect="write", confirm=confirm, precheck=self.exists)
        def forget(key: str) -> dict[str, Any] | ToolError:
            """Delete one note."""
            if self.notes.pop(key, None) is None:
                return ToolError("not_found", "no such note", Recovery.CHOOSE_ALTERNATIVE)
            self.deleted.append(key)
            return {"deleted": key}

    def exists(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolError | None:
        self.checked.append(arguments["key"])
        if self.raises:
            raise RuntimeError("the check's storage failed")
        if arguments["key"] in self.notes:
            return None
        message = f"There is no note '{arguments['key']}' ({ctx.lang})."
        return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)

    def agent(self, key: str) -> Agent:
        model = ScriptedModel([turn(call("forget", {"key": key})), turn("Done.")])
        return Agent(
            model=model,
            tools=self.tools,
            journal=MemoryJournal(),
            ledger=MemoryLedger(),
            diagnostics=MemoryDiagnostics(),
        )


def test_an_action_that_cannot_do_anything_is_not_asked() -> None:
    """Deleting a missing note: ``not_found`` at once, not executed, nothing waits, no key
    claimed in the ledger."""
    notes = Notes()
    agent = notes.agent("old")
    done = agent.run_turn_sync("Forget 'old'.")
    assert done.stop_reason == "completed"
    assert done.pending_confirmation is None
    [record] = done.calls
    assert (record.outcome.code, record.executed) == ("not_found", False)
    assert record.outcome.message == "There is no note 'old' (en)."
    assert notes.checked == ["old"]
    assert agent.writes() == []
    assert agent.pending_confirmations() == []


def test_an_action_that_can_do_something_is_asked_and_checked_once() -> None:
    """The precheck lets the question through; once approved, the handler runs and the
    precheck is not asked again."""
    notes = Notes()
    agent = notes.agent("plan")
    paused = agent.run_turn_sync("Forget 'plan'.")
    assert paused.stop_reason == "awaiting_confirmation"
    assert paused.pending_confirmation is not None
    agent.decide(paused.conversation_id, paused.pending_confirmation.id, approved=True)
    done = asyncio.run(agent.resume(paused.conversation_id))
    assert done.stop_reason == "completed"
    assert notes.deleted == ["plan"]
    assert notes.checked == ["plan"]


def test_the_precheck_runs_before_a_policy() -> None:
    """Under a policy that would ask nothing, the precheck still runs first: a missing note
    is its ``not_found`` (the handler does not run), an existing one runs unasked."""
    notes = Notes(confirm=lambda arguments, ctx: None)
    missing = notes.agent("old").run_turn_sync("Forget 'old'.")
    [record] = missing.calls
    assert (record.outcome.code, record.executed) == ("not_found", False)
    done = notes.agent("plan").run_turn_sync("Forget 'plan'.")
    assert done.stop_reason == "completed"
    assert notes.deleted == ["plan"]
    assert notes.checked == ["old", "plan"]


def test_a_precheck_that_raises_is_diagnosed_and_the_person_is_asked() -> None:
    """A failing check cannot decide for the person: they are asked, as without one."""
    notes = Notes(raises=True)
    agent = notes.agent("old")
    paused = agent.run_turn_sync("Forget 'old'.")
    assert paused.stop_reason == "awaiting_confirmation"
    [diagnostic] = agent.diagnostics()
    assert diagnostic.exception_type == "RuntimeError"


def test_a_read_cannot_declare_a_precheck() -> None:
    """Only writes wait for a person, so only writes may have a check before asking."""
    tools = ToolSet()

    def read(key: str) -> dict[str, Any]:
        """Read one note."""
        return {}

    with pytest.raises(ConfigurationError, match="precheck"):
        tools.tool(precheck=lambda arguments, ctx: None)(read)
