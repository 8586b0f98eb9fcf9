"""Crash and resume without a double write.

A child process runs a turn whose write commits (the effect and the ledger's record in one
SQLite transaction) and then dies at once, before the turn can go on. The parent opens the same
file, resumes the turn: the ledger already holds the write, so it is answered from there and
never runs again. Run it with ``python examples/crash_and_resume.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from surefoot import Agent, Ok, SqlJournal, SqlLedger, ToolContext, ToolSet, open_database
from surefoot.sql import Database
from surefoot.testing import ScriptedModel, call, turn

CONVERSATION = "crash-demo"


def coach(db: Database, model: ScriptedModel, *, die_after_commit: bool) -> Agent:
    """The agent over ``db``: one atomic write, ``save_weight``."""
    db.migrate("demo", ["CREATE TABLE weights (day TEXT PRIMARY KEY, kg REAL NOT NULL)"])
    tools = ToolSet()

    @tools.tool(effect="write", atomic=True)
    def save_weight(ctx: ToolContext, day: str, kg: float) -> dict[str, Any]:
        """Save the body weight (kg) of one day (YYYY-MM-DD)."""
        saved = {"day": day, "kg": kg}
        with db.transaction() as tx:
            tx.execute("INSERT INTO weights (day, kg) VALUES (?, ?)", (day, kg))
            ctx.commit_in(tx, saved)
        if die_after_commit:
            os._exit(3)  # the power goes out: committed, but nobody hears of it
        return saved

    return Agent(model=model, tools=tools, journal=SqlJournal(db), ledger=SqlLedger(db))


def child(path: str) -> None:
    """The process that dies mid-turn, right after its write committed."""
    model = ScriptedModel([turn(call("save_weight", {"day": "2020-01-01", "kg": 76.0}))])
    agent = coach(open_database(path), model, die_after_commit=True)
    agent.run_turn_sync("Save 76 kg for 2020-01-01.", conversation_id=CONVERSATION)


def main() -> None:
    """Crash a child mid-turn, then resume the turn here and count the rows."""
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "coach.db")
        crashed = subprocess.run([sys.executable, __file__, "--child", path], check=False)
        print(f"child process died mid-turn (exit {crashed.returncode})")
        db = open_database(path)
        model = ScriptedModel([turn("Saved: 76 kg on 2020-01-01.")])
        agent = coach(db, model, die_after_commit=False)
        print(f"unfinished turn in the journal: {agent.unfinished(CONVERSATION)}")
        result = agent.resume_sync(CONVERSATION)
        [record] = result.calls
        assert isinstance(record.outcome, Ok), record.outcome
        print(f"resumed: save_weight ran again: {record.executed}; outcome: {record.outcome.data}")
        print(f"reply: {result.reply}")
        rows = db.query("SELECT day, kg FROM weights")
        print(f"rows in the table: {len(rows)} {rows}")
        print(f"ledger: {[(w.tool, w.state) for w in agent.writes()]}")
        db.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
    else:
        main()
