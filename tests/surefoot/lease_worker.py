"""A turn that stops itself right after its write commits: ``test_lease_loss.py`` runs it
(this is not a test module).

::

    python lease_worker.py --db URL --marker FILE

It runs one turn in conversation ``c1`` whose model asks for ``save_note`` then answers; the
note's transaction commits, then the process writes ``FILE`` and SIGSTOPs itself, so the test
can hold it past its lease and let another process take the conversation over. When it is
continued it prints one JSON line: how the turn ended, or that its hold was lost and what it
had already done.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from surefoot import Agent, ConversationBusyError, Ok, SqlJournal, SqlLedger, open_database
from surefoot.outcome import to_record
from surefoot.testing import ScriptedModel, call, turn

sys.path.insert(0, str(Path(__file__).parent))

from notes_app import NotesApp  # the path tests' small app

LEASE = 1.0


def main() -> None:
    """Run the turn and report how it ended."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--marker", required=True)
    options = parser.parse_args()
    db = open_database(options.db)
    app = NotesApp(db)

    def stop_after_commit(point: str, tool: str) -> None:
        if point == "after_commit" and tool == "save_note":
            Path(options.marker).write_text("committed")
            os.kill(os.getpid(), signal.SIGSTOP)

    app.on = stop_after_commit
    model = ScriptedModel([turn(call("save_note", {"key": "a", "value": "77.4"})), turn("saved")])
    agent = Agent(
        model=model,
        tools=app.tools(),
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
        lease_seconds=LEASE,
    )
    try:
        result = asyncio.run(agent.run_turn("save a", conversation_id="c1"))
    except ConversationBusyError as exc:
        writes = [
            {"tool": r.call.name, "ok": isinstance(r.outcome, Ok), "outcome": to_record(r.outcome)}
            for r in exc.writes
        ]
        lines = agent.replies.what_was_done(exc.calls)
        print(json.dumps({"busy": True, "writes": writes, "lines": lines}))
        return
    print(json.dumps({"busy": False, "stop_reason": result.stop_reason}))


if __name__ == "__main__":
    main()
