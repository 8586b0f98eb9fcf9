"""Through the real ``gymnasia`` command line: a decision binds only the call it was made on
(also when a local server names every call ``call_0``), a user never sees or decides another
user's actions, and a turn always goes on with the model it was started with."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gymnasia.app import open_coach
from gymnasia.cli._agent import busy_message
from gymnasia.store import GymStore
from surefoot import ConversationBusyError, Ok, open_database
from surefoot.executor import CallRecord
from surefoot.messages import ToolCall
from surefoot.testing import FakeOpenAIChatServer, ScriptedModel, call, turn

API_KEY = "test-key"


def gymnasia(db: str, *args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    """Run ``gymnasia ARGS --db DB`` in a fresh process; assert its exit code."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GYMNASIA_", "OPENAI_"))}
    done = subprocess.run(
        [sys.executable, "-m", "gymnasia", *args, "--db", db],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == expect, (done.returncode, done.stdout, done.stderr[-3000:])
    return done


def as_json(done: subprocess.CompletedProcess[str]) -> Any:
    """The one JSON value a command printed."""
    return json.loads(done.stdout)


def seed_notes(db: str, user: str, *keys: str) -> None:
    """Save a note under each key for ``user``."""
    database = open_database(db)
    try:
        store = GymStore(database, user=user)
        with store.transaction() as tx:
            for key in keys:
                store.save_memory(tx, key, f"note {key}", f"value of {key}")
    finally:
        database.close()


def notes(db: str, user: str) -> list[str]:
    """The user's note keys."""
    database = open_database(db, create=False)
    try:
        return GymStore(database, user=user).memory_keys()
    finally:
        database.close()


@pytest.fixture
def db(db_url: str) -> str:
    """The database every command of a test shares."""
    return db_url


def chat_server(*turns: Any) -> FakeOpenAIChatServer:
    """A local OpenAI-compatible server that names every call ``call_0``, like Ollama."""
    return FakeOpenAIChatServer(list(turns), duplicate_ids=True)


def ask(db: str, url: str, message: str, *extra: str) -> dict[str, Any]:
    """One turn on the local server, as JSON."""
    args = ["ask", message, "--json", "--lang", "en", "--provider", "openai-chat"]
    args += ["--base-url", url, "--api-key", API_KEY, *extra]
    result: dict[str, Any] = as_json(gymnasia(db, *args))
    return result


@pytest.mark.parametrize("approved", [True, False])
def test_a_decision_on_call_0_is_not_inherited_by_the_next_call_0(db: str, approved: bool) -> None:
    """Turn 1 asks to delete "alpha" as call_0 and the person approves (or denies); turn 2
    asks to delete "beta", again call_0: it waits for its own decision, and beta is kept."""
    seed_notes(db, "default", "alpha", "beta")
    with chat_server(
        turn(call("delete_memory", {"key": "alpha"})),
        turn("Done with alpha."),
        turn(call("delete_memory", {"key": "beta"})),
    ) as fake:
        url = fake.base_url + "/v1"
        first = ask(db, url, "Delete my note alpha.")
        pending = first["pending_confirmation"]
        assert first["stop_reason"] == "awaiting_confirmation"
        assert pending["arguments"] == {"key": "alpha"}
        verb = "approve" if approved else "deny"
        decided = as_json(
            gymnasia(db, "approvals", verb, pending["id"], "--api-key", API_KEY, "--json")
        )
        assert decided["stop_reason"] == "completed"
        assert decided["reply"] == "Done with alpha."  # the local server answered, not offline
        cid = first["conversation_id"]
        second = ask(db, url, "Now delete beta.", "--conversation", cid)
        assert second["stop_reason"] == "awaiting_confirmation"
        assert second["tool_calls"] == []
        assert second["pending_confirmation"]["arguments"] == {"key": "beta"}
        assert second["pending_confirmation"]["id"] != pending["id"]
        assert len(fake.bodies) == 3
    assert notes(db, "default") == (["beta"] if approved else ["alpha", "beta"])
    listed = as_json(gymnasia(db, "approvals", "list", "--json"))
    assert [row["arguments"] for row in listed] == [{"key": "beta"}]


def test_a_user_never_sees_or_decides_another_users_action(db: str) -> None:
    """Alice's pending delete is not listed for bob, bob cannot approve it (no such action),
    and bob's own note of the same name is untouched; alice still can."""
    seed_notes(db, "alice", "goal")
    seed_notes(db, "bob", "goal")
    coach = open_coach(
        db=db,
        user="alice",
        lang="en",
        model=ScriptedModel([turn(call("delete_memory", {"key": "goal"}))]),
    )
    try:
        paused = asyncio.run(coach.agent.run_turn("delete my goal"))
    finally:
        coach.close()
    assert paused.pending_confirmation is not None
    approval = paused.pending_confirmation.id
    assert as_json(gymnasia(db, "approvals", "list", "--user", "bob", "--json")) == []
    refused = gymnasia(
        db, "approvals", "approve", approval, "--user", "bob", "--lang", "en", expect=2
    )
    assert "no pending action" in refused.stderr
    gymnasia(db, "resume", paused.conversation_id, "--user", "bob", expect=2)
    assert as_json(gymnasia(db, "writes", "--user", "bob", "--json")) == []
    assert notes(db, "bob") == ["goal"]
    assert notes(db, "alice") == ["goal"]
    mine = as_json(gymnasia(db, "approvals", "list", "--user", "alice", "--json"))
    assert [row["id"] for row in mine] == [approval]


def test_approve_and_resume_continue_on_the_turns_own_provider(db: str) -> None:
    """A turn started on a local server is approved without naming a provider: the
    continuation goes to that server (it used to go to the offline model). Naming another
    provider is refused in one line; nothing runs."""
    seed_notes(db, "default", "alpha")
    with chat_server(
        turn(call("delete_memory", {"key": "alpha"})),
        turn("Deleted it, as you approved."),
    ) as fake:
        first = ask(db, fake.base_url + "/v1", "Delete alpha.")
        approval = first["pending_confirmation"]["id"]
        wrong = gymnasia(db, "approvals", "approve", approval, "--provider", "offline", expect=2)
        assert "openai-chat" in wrong.stderr
        assert notes(db, "default") == ["alpha"]
        done = as_json(
            gymnasia(db, "approvals", "approve", approval, "--json", "--api-key", API_KEY)
        )
        assert (done["provider"], done["reply"]) == ("openai-chat", "Deleted it, as you approved.")
        assert len(fake.bodies) == 2
        second = fake.bodies[1]["messages"]
        assert second[-1]["role"] == "tool"
        again = as_json(
            gymnasia(db, "resume", first["conversation_id"], "--json", "--api-key", API_KEY)
        )
        assert again["model_requests"] == 0  # finished: nothing asked, nothing run
    assert notes(db, "default") == []


def test_resume_without_a_key_for_the_turns_provider_is_one_line(db: str) -> None:
    """The turn's provider needs a key the environment does not have: one line, exit 2."""
    seed_notes(db, "default", "alpha")
    with chat_server(turn(call("delete_memory", {"key": "alpha"}))) as fake:
        first = ask(db, fake.base_url + "/v1", "Delete alpha.")
    cid = first["conversation_id"]
    database = open_database(db)
    try:  # record the turn as one on a keyed provider, as if asked with --provider openai
        database.query("UPDATE sf_conversations SET provider = 'openai' WHERE id = ?", (cid,))
    finally:
        database.close()
    done = gymnasia(db, "resume", cid, expect=2)
    assert "OPENAI_API_KEY" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_busy_turn_that_had_saved_a_write_says_so_not_nothing_was_done(tmp_path: Path) -> None:
    """The CLI's words for a conversation lost mid-turn list the saved write and how to check
    it; "nothing was done" is kept for a turn that did nothing."""
    coach = open_coach(db=str(tmp_path / "g.db"))
    try:
        saved = CallRecord(
            ToolCall("1", "write_measurement", {"date": "2026-12-03", "weight_kg": 77.4}),
            Ok({"date": "2026-12-03", "weight_kg": 77.4}),
            executed=True,
            key="k",
        )
        lost = busy_message(coach, "es", ConversationBusyError("c_1", calls=(saved,)))
        assert "No se ha hecho nada" not in lost
        assert "• guardado: peso 77,4 kg (2026-12-03)" in lost
        assert "gymnasia writes --conversation c_1" in lost
        assert "Nothing was done" in busy_message(coach, "en", ConversationBusyError("c_1"))
    finally:
        coach.close()
