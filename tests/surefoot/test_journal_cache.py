"""``SqlJournal``'s transcript cache, on SQLite and PostgreSQL: a load parses only what it has
not seen, and anything another writer did (appended from another connection or process, took
the lease over) makes the next load read the database again."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from surefoot import (
    Agent,
    ConversationBusyError,
    SqlJournal,
    SqlLedger,
    StoreError,
    ToolSet,
    open_database,
)
from surefoot import _sql as sql_module
from surefoot.journal import Lease
from surefoot.messages import HarnessMessage, Message, UserMessage
from surefoot.sql import Database
from surefoot.testing import ScriptedModel, turn, write_transcript


@pytest.fixture
def two(db_url: str) -> Iterator[tuple[Database, Database]]:
    """Two connections to the database under test, as two processes would hold."""
    first, second = open_database(db_url), open_database(db_url)
    yield first, second
    first.close()
    second.close()


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every message the SQL journal parses from its stored JSON."""
    seen = [0]
    original = sql_module.message_from_json

    def counted(data: dict[str, Any]) -> Message:
        seen[0] += 1
        return original(data)

    monkeypatch.setattr(sql_module, "message_from_json", counted)
    return seen


def _fresh(db: Database, conversation_id: str) -> list[Message]:
    """What a journal with nothing cached loads."""
    return SqlJournal(db).load(conversation_id)


def test_a_second_load_parses_nothing_and_an_own_append_only_its_messages(
    two: tuple[Database, Database], parses: list[int]
) -> None:
    journal = SqlJournal(two[0])
    write_transcript(journal, "c1", [UserMessage(f"m{i}") for i in range(5)])
    assert len(journal.load("c1")) == 5
    parses[0] = 0
    assert [m.text for m in journal.load("c1")] == [f"m{i}" for i in range(5)]  # type: ignore[union-attr]
    assert parses[0] == 0
    lease = journal.acquire("c1", seconds=30)
    assert lease is not None
    journal.append("c1", UserMessage("m5"), HarnessMessage("stop", "stop_turn"), lease=lease)
    assert parses[0] == 2  # the two appended messages, read back once
    loaded = journal.load("c1")
    assert parses[0] == 2
    assert loaded == _fresh(two[1], "c1")
    assert len(loaded) == 7
    journal.release(lease)


def test_another_connection_appending_is_seen_by_the_next_load(
    two: tuple[Database, Database], parses: list[int]
) -> None:
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    write_transcript(mine, "c1", [UserMessage("a"), UserMessage("b")])
    assert len(mine.load("c1")) == 2
    write_transcript(theirs, "c1", [UserMessage("c")])
    parses[0] = 0
    loaded = mine.load("c1")
    assert [m.text for m in loaded] == ["a", "b", "c"]  # type: ignore[union-attr]
    assert parses[0] == 3  # a full load, not the stale copy
    assert mine.load("c1") == loaded
    assert parses[0] == 3


def test_the_holder_appending_again_under_its_lease_is_seen(
    two: tuple[Database, Database], parses: list[int]
) -> None:
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    held = theirs.acquire("c1", seconds=30)
    assert held is not None
    theirs.append("c1", UserMessage("one"), lease=held)
    assert len(mine.load("c1")) == 1  # cached while they still hold the lease
    theirs.append("c1", UserMessage("two"), lease=held)  # same fence, one more message
    parses[0] = 0
    assert [m.text for m in mine.load("c1")] == ["one", "two"]  # type: ignore[union-attr]
    assert parses[0] == 2
    theirs.release(held)


def test_another_process_appending_is_seen_by_the_next_load(db_url: str) -> None:
    db = open_database(db_url)
    try:
        journal = SqlJournal(db)
        write_transcript(journal, "c1", [UserMessage("here")])
        assert len(journal.load("c1")) == 1
        script = (
            "import sys\n"
            "from surefoot import SqlJournal, open_database\n"
            "from surefoot.messages import UserMessage\n"
            "from surefoot.testing import write_transcript\n"
            "db = open_database(sys.argv[1])\n"
            "write_transcript(SqlJournal(db), 'c1', [UserMessage('there')])\n"
            "db.close()\n"
        )
        subprocess.run([sys.executable, "-c", script, db_url], check=True, timeout=60)
        assert [m.text for m in journal.load("c1")] == ["here", "there"]  # type: ignore[union-attr]
    finally:
        db.close()


def test_a_lease_taken_over_invalidates_the_cache(
    two: tuple[Database, Database], parses: list[int]
) -> None:
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    lease = mine.acquire("c1", seconds=30)
    assert lease is not None
    mine.append("c1", UserMessage("mine"), lease=lease)
    assert len(mine.load("c1")) == 1
    two[1].query("UPDATE sf_conversations SET lease_until = 0")  # my lease lapses
    taken = theirs.acquire("c1", seconds=30)
    assert taken is not None
    assert taken.fence == lease.fence + 1
    # the new holder took the lease and has not appended yet: the next load reads again
    parses[0] = 0
    assert [m.text for m in mine.load("c1")] == ["mine"]  # type: ignore[union-attr]
    assert parses[0] == 1
    theirs.append("c1", UserMessage("theirs"), lease=taken)
    with pytest.raises(ConversationBusyError):
        mine.append("c1", UserMessage("late"), lease=lease)
    assert [m.text for m in mine.load("c1")] == ["mine", "theirs"]  # type: ignore[union-attr]
    theirs.release(taken)
    # taking it back carries nothing stale over
    again = mine.acquire("c1", seconds=30)
    assert again is not None
    mine.append("c1", UserMessage("mine again"), lease=again)
    assert mine.load("c1") == _fresh(two[1], "c1")
    assert len(mine.load("c1")) == 3
    mine.release(again)


def test_turns_alternating_between_two_agents_see_every_message(
    two: tuple[Database, Database],
) -> None:
    tools = ToolSet()
    agents = [
        Agent(
            model=ScriptedModel([turn(f"answer {i}") for i in range(4)]),
            tools=tools,
            lang="en",
            journal=SqlJournal(db),
            ledger=SqlLedger(db),
        )
        for db in two
    ]
    for index in range(8):
        agent = agents[index % 2]
        result = agent.run_turn_sync(f"question {index}", conversation_id="c1")
        assert result.stop_reason == "completed"
        assert agent.journal.load("c1") == _fresh(two[index % 2], "c1")
    texts = [getattr(m, "text", "") for m in agents[0].journal.load("c1")]
    assert texts == [t for i in range(8) for t in (f"question {i}", f"answer {i // 2}")]


def test_the_cache_keeps_at_most_its_size(two: tuple[Database, Database]) -> None:
    journal = SqlJournal(two[0], cache_size=3)
    for index in range(6):
        write_transcript(journal, f"c{index}", [UserMessage(str(index))])
        assert [m.text for m in journal.load(f"c{index}")] == [str(index)]  # type: ignore[union-attr]
    assert len(journal._copies) == 3
    for index in range(6):
        assert [m.text for m in journal.load(f"c{index}")] == [str(index)]  # type: ignore[union-attr]
    assert len(journal._copies) == 3


# -- an append numbers its messages from the cache only when that is safe ---------------------


def _texts(messages: list[Message]) -> list[str]:
    return [m.text for m in messages if isinstance(m, UserMessage)]


def _holding(db: Database, cid: str, *, cached: bool) -> tuple[SqlJournal, Lease]:
    """A journal on ``db`` holding ``cid``, its first message ("one") appended; loaded
    (so cached) if ``cached``."""
    journal = SqlJournal(db)
    lease = journal.acquire(cid, seconds=60)
    assert lease is not None
    journal.append(cid, UserMessage("one"), lease=lease)
    if cached:
        assert _texts(journal.load(cid)) == ["one"]
    return journal, lease


def test_a_reader_that_loads_while_the_holder_appends_does_not_break_its_numbers(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader's load stores the copy it read after the holder appended and committed more:
    that copy is older than the database, and the holder's next appends still number their
    messages right (a load never vouches for the last number)."""
    db = open_database(db_url)
    journal, lease = _holding(db, "c_race", cached=False)
    journal._copies.forget("c_race")  # evicted: the reader's load reads the messages again
    remember = journal._copies.remember

    def holder_appends_first(conversation_id: str, cached: Any) -> None:
        journal.append("c_race", UserMessage("two"), lease=lease)
        remember(conversation_id, cached)

    monkeypatch.setattr(journal._copies, "remember", holder_appends_first)
    assert _texts(journal.load("c_race")) == ["one"]  # read before "two" committed
    monkeypatch.setattr(journal._copies, "remember", remember)
    journal.append("c_race", UserMessage("three"), lease=lease)
    journal.append("c_race", UserMessage("four"), lease=lease)
    assert _texts(journal.load("c_race")) == ["one", "two", "three", "four"]
    assert _texts(SqlJournal(db).load("c_race")) == ["one", "two", "three", "four"]
    db.close()


def test_an_append_whose_commit_failed_after_it_landed_is_followed_by_a_right_number(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database committed an append but the answer was lost (the connection dropped at
    ``COMMIT``): the append fails, and the next one asks the database for the last number
    instead of trusting the cache."""
    db = open_database(db_url)
    journal, lease = _holding(db, "c_lost", cached=True)
    committed = db._committed

    def answer_lost(tx: Any) -> None:
        committed(tx)
        raise StoreError("the answer to COMMIT was lost", kind="unavailable", url=db.url)

    monkeypatch.setattr(db, "_committed", answer_lost)
    with pytest.raises(StoreError):
        journal.append("c_lost", UserMessage("two"), lease=lease)
    monkeypatch.setattr(db, "_committed", committed)
    journal.append("c_lost", UserMessage("three"), lease=lease)
    assert _texts(SqlJournal(db).load("c_lost")) == ["one", "two", "three"]
    db.close()


def test_an_append_in_a_transaction_that_rolls_back_leaves_no_trace(pg_url: str) -> None:
    """An append inside the application's own transaction is a savepoint: when that
    transaction rolls back, the message is gone, the cache does not keep it, and the next
    append takes its number (PostgreSQL: SQLite has no transaction inside another)."""
    db = open_database(pg_url)
    journal, lease = _holding(db, "c_nested", cached=True)

    def append_then_fail() -> None:
        with db.transaction():
            journal.append("c_nested", UserMessage("rolled back"), lease=lease)
            raise RuntimeError("the application fails after the append")

    with pytest.raises(RuntimeError):
        append_then_fail()
    journal.append("c_nested", UserMessage("two"), lease=lease)
    assert _texts(journal.load("c_nested")) == ["one", "two"]
    assert db.query("SELECT seq FROM sf_messages WHERE conversation_id = 'c_nested'") == [
        (1,),
        (2,),
    ]
    assert _texts(SqlJournal(db).load("c_nested")) == ["one", "two"]
    db.close()


def test_an_append_under_a_lease_taken_over_writes_nothing(
    two: tuple[Database, Database],
) -> None:
    """The first holder's journal still numbers from its own last append (on PostgreSQL, the
    append is then one statement, the fence check inside it); its lease lapsed and another
    holder took the conversation and appended: the late append is refused and writes
    nothing, and the transcript is what the holders committed, in order."""
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    lapsed = mine.acquire("c1", seconds=-1)  # lapses at once, as after a long pause
    assert lapsed is not None
    assert mine.load("c1") == []  # as a turn begins
    mine.append("c1", UserMessage("one"), lease=lapsed)
    held = theirs.acquire("c1", seconds=30)
    assert held is not None
    assert held.fence > lapsed.fence
    theirs.append("c1", UserMessage("theirs"), lease=held)
    with pytest.raises(ConversationBusyError):
        mine.append("c1", UserMessage("late"), UserMessage("later"), lease=lapsed)
    expected = ["one", "theirs"]
    assert [m.text for m in _fresh(two[0], "c1")] == expected  # type: ignore[union-attr]
    assert [m.text for m in mine.load("c1")] == expected  # type: ignore[union-attr]
    theirs.release(held)


def test_load_many_checks_every_cached_copy_in_one_statement(
    two: tuple[Database, Database], parses: list[int]
) -> None:
    """A list of conversations this journal has read is one round trip and parses nothing; one
    another connection appended to since is read again, and only that one."""
    journal = SqlJournal(two[0])
    for i in range(3):
        write_transcript(journal, f"c{i}", [UserMessage(f"c{i} m{j}") for j in range(2)])
    expected = {f"c{i}": journal.load(f"c{i}") for i in range(3)}
    parses[0] = 0
    before = two[0].counts.round_trips
    got = journal.load_many(["c2", "c0", "missing", "c1", "c0"])
    assert two[0].counts.round_trips - before == 1
    assert parses[0] == 0
    assert list(got) == ["c2", "c0", "missing", "c1"]
    assert got == {**expected, "missing": []}
    write_transcript(SqlJournal(two[1]), "c1", [UserMessage("c1 m2")])
    parses[0] = 0
    got = journal.load_many(["c0", "c1", "c2"])
    assert parses[0] == 3  # c1 read again, whole: its cached copy was not current
    assert got["c1"] == _fresh(two[1], "c1")
    assert [m.text for m in got["c1"]] == ["c1 m0", "c1 m1", "c1 m2"]  # type: ignore[union-attr]
    assert (got["c0"], got["c2"]) == (expected["c0"], expected["c2"])


def test_load_many_checks_a_long_list_in_batches(
    two: tuple[Database, Database], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql_module, "_PROBE_BATCH", 2)
    journal = SqlJournal(two[0])
    for i in range(5):
        write_transcript(journal, f"c{i}", [UserMessage(f"c{i}")])
    ids = [f"c{i}" for i in (4, 0, 3, 1, 2)]
    expected = {cid: journal.load(cid) for cid in ids}
    before = two[0].counts.round_trips
    assert journal.load_many(ids) == expected
    assert two[0].counts.round_trips - before == 3
    assert journal.load_many([]) == {}


def _held_and_checked(journal: SqlJournal, conversation_id: str) -> Lease:
    """A hold on a conversation whose cached copy this journal's own append under that hold
    left, as a turn has after its first append."""
    write_transcript(journal, conversation_id, [UserMessage("before")])
    journal.load(conversation_id)
    lease = journal.acquire(conversation_id, seconds=30)
    assert lease is not None
    journal.append(conversation_id, UserMessage("mine"), lease=lease)
    return lease


def test_the_holder_loads_its_own_appends_without_asking_the_database(
    two: tuple[Database, Database], parses: list[int]
) -> None:
    """Only a holder appends: while this journal holds the conversation and its copy is what
    its own appends left, a load sends no statement; released, it asks again, and sees what
    another writer appended since."""
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    lease = _held_and_checked(mine, "c1")
    sent, parses[0] = two[0].counts.round_trips, 0
    assert [m.text for m in mine.load("c1")] == ["before", "mine"]  # type: ignore[union-attr]
    assert (two[0].counts.round_trips - sent, parses[0]) == (0, 0)
    mine.release(lease)
    write_transcript(theirs, "c1", [UserMessage("theirs")])
    assert [m.text for m in mine.load("c1")] == ["before", "mine", "theirs"]  # type: ignore[union-attr]
    # held again after another's hold: the copy is read again, then trusted after an append
    again = mine.acquire("c1", seconds=30)
    assert again is not None
    sent = two[0].counts.round_trips
    assert len(mine.load("c1")) == 3
    assert two[0].counts.round_trips - sent == 1
    mine.append("c1", UserMessage("mine again"), lease=again)
    sent = two[0].counts.round_trips
    assert mine.load("c1") == _fresh(two[1], "c1")
    assert two[0].counts.round_trips - sent == 0
    mine.release(again)


def test_a_hold_found_lost_by_its_renewal_makes_the_next_load_ask(
    two: tuple[Database, Database],
) -> None:
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    lease = _held_and_checked(mine, "c1")
    two[1].query("UPDATE sf_conversations SET lease_until = 0")  # my lease lapses
    taken = theirs.acquire("c1", seconds=30)
    assert taken is not None
    theirs.append("c1", UserMessage("theirs"), lease=taken)
    assert mine.renew(lease, seconds=30) is False
    assert [m.text for m in mine.load("c1")] == ["before", "mine", "theirs"]  # type: ignore[union-attr]
    theirs.release(taken)


def test_a_conversation_made_anew_under_the_same_id_carries_no_copy_over(
    two: tuple[Database, Database],
) -> None:
    """Erased and started again with the same id (a page still open on it), its fence
    counts from the start again and can reach the one this journal's copy had: the copy is
    not carried over to the new conversation's hold, as its creation time differs."""
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    lease = _held_and_checked(mine, "c1")
    mine.release(lease)
    two[1].query("DELETE FROM sf_messages")
    two[1].query("DELETE FROM sf_conversations")
    while True:  # the new conversation's holds, until the next one takes the fence after mine
        held = theirs.acquire("c1", seconds=30)
        assert held is not None
        if held.fence == lease.fence:
            theirs.append("c1", UserMessage("new"), lease=held)
        theirs.release(held)
        if held.fence >= lease.fence:
            break
    again = mine.acquire("c1", seconds=30)
    assert again is not None
    assert again.fence == lease.fence + 1
    assert [m.text for m in mine.load("c1")] == ["new"]  # type: ignore[union-attr]
    mine.release(again)


def test_a_readers_copy_of_an_erased_conversation_stored_late_is_not_trusted(
    two: tuple[Database, Database],
) -> None:
    """A load reads the conversation, and before it stores its copy the conversation is
    erased, made anew under the same id and held by this journal, which appends to it: the
    late copy, of the erased conversation, happens to match the new one's fence and
    numbers, but not its creation time, and the holder does not trust it."""
    mine, theirs = SqlJournal(two[0]), SqlJournal(two[1])
    write_transcript(theirs, "c1", [UserMessage("old")])
    remember = mine._copies.remember
    holds: list[Lease] = []

    def erased_and_made_anew_first(conversation_id: str, cached: Any) -> None:
        two[1].query("DELETE FROM sf_messages")
        two[1].query("DELETE FROM sf_conversations")
        lease = mine.acquire("c1", seconds=30)
        assert lease is not None
        holds.append(lease)
        mine.append("c1", UserMessage("new one"), lease=lease)
        remember(conversation_id, cached)

    mine._copies.remember = erased_and_made_anew_first  # type: ignore[method-assign]
    assert [m.text for m in mine.load("c1")] == ["old"]  # type: ignore[union-attr]
    mine._copies.remember = remember  # type: ignore[method-assign]
    mine.append("c1", UserMessage("new two"), lease=holds[0])
    assert [m.text for m in mine.load("c1")] == ["new one", "new two"]  # type: ignore[union-attr]
    assert mine.load("c1") == _fresh(two[1], "c1")
    mine.release(holds[0])
