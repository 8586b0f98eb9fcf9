"""A worker process for the DBOS crash tests (not a test module).

    dbos_worker.py URL EXECUTOR run TOOL POINT   run one turn calling TOOL; SIGKILL itself at
                                                 POINT ("before_effect", "after_effect")
    dbos_worker.py URL EXECUTOR recover DEAD     recover the turns of worker DEAD, print each
                                                 one's result as JSON

TOOL is ``send_remote`` (its effect can be found again by its key) or ``post`` (it cannot).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from dbos import DBOS
from dbos_support import launch
from notes_app import NotesApp

from surefoot import Agent, SqlJournal, ToolContext, ToolError, open_database
from surefoot.dbos import DurableAgent
from surefoot.messages import ToolResultsMessage
from surefoot.testing import FunctionModel, call, turn

USER = "worker"


def _model(tool: str) -> FunctionModel:
    """Calls ``tool`` once, then answers: a function of the transcript, so any worker asks
    the same."""

    def plan(request: Any) -> Any:
        if isinstance(request.messages[-1], ToolResultsMessage):
            return turn("done")
        return turn(call(tool, {"text": "t"}))

    return FunctionModel(plan)


def _agent(url: str, tool: str, point: str | None) -> DurableAgent:
    db = open_database(url)

    def die(at: str, name: str) -> None:
        if at == {"before_effect": "before_effect", "after_effect": "after_commit"}.get(
            point or ""
        ):
            os.kill(os.getpid(), signal.SIGKILL)

    app = NotesApp(db, user=USER, on=die)
    tools = app.tools()

    @tools.tool(effect="write")
    def post(ctx: ToolContext, text: str) -> dict[str, Any]:
        """Post ``text`` where nobody can ask afterwards whether it arrived."""
        app._point("before_effect", "post")
        with db.transaction() as tx:
            app._effect(tx, ctx, {"text": text}, {"posted": text})
        app._point("after_commit", "post")
        return {"posted": text}

    agent = Agent(model=_model(tool), tools=tools, journal=SqlJournal(db, user=USER))
    return DurableAgent(agent, name="crash")


def main() -> None:
    url, executor, mode = sys.argv[1:4]
    if mode == "run":
        tool, point = sys.argv[4:6]
        durable = _agent(url, tool, point)
        launch(url, executor)
        asyncio.run(durable.run_turn("go", conversation_id="c1"))
        DBOS.destroy()
        return
    _agent(url, "send_remote", None)  # the tool is in the journal: the model only answers
    launch(url, executor)
    results = {}
    for workflow in DurableAgent.recover([sys.argv[4]]):
        result = DBOS.retrieve_workflow(workflow).get_result()
        results[workflow] = {
            "stop_reason": result.stop_reason,
            "reply": result.reply,
            "codes": [
                c.outcome.code if isinstance(c.outcome, ToolError) else "ok" for c in result.calls
            ],
            "steps": [s["function_name"] for s in DBOS.list_workflow_steps(workflow)],
        }
    print(json.dumps(results))
    DBOS.destroy()


if __name__ == "__main__":
    main()
