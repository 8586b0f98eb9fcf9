"""Eight processes race for the same write key, round after round: the database decides,
exactly one claim owns each key, and exactly one effect lands per key."""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from typing import Any

import pytest

from surefoot import SqlLedger, open_database

PROCESSES = 8
ROUNDS = 500
EFFECTS = ["CREATE TABLE race_effects (key TEXT NOT NULL, worker INTEGER NOT NULL)"]
"""No unique constraint on purpose: a duplicate effect must be visible, not refused."""


def _racer(url: str, worker: int, rounds: int, barrier: Any, results: Any) -> None:
    """One process: for every round, wait for all, claim the round's key, and if it owns the
    claim, write the effect and ``commit_in`` in one transaction."""
    db = open_database(url)
    ledger = SqlLedger(db)
    won: list[int] = []
    saw: Counter[str] = Counter()
    try:
        for index in range(rounds):
            key = f"race-{index}"
            barrier.wait(timeout=60)
            claim = ledger.claim(
                key=key,
                conversation_id="race",
                tool="effect",
                fingerprint="fp",
                arguments={"round": index},
                lease_seconds=600,
            )
            if not claim.owned:
                saw[claim.entry.state] += 1
                continue
            with db.transaction() as tx:
                tx.execute("INSERT INTO race_effects (key, worker) VALUES (?, ?)", (key, worker))
                ledger.commit_in(tx, key, claim.entry.attempt, {"worker": worker})
            won.append(index)
        results.put((worker, won, dict(saw), None))
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which fails the test
        barrier.abort()
        results.put((worker, won, dict(saw), f"{type(exc).__name__}: {exc}"))
    finally:
        db.close()


def _race(url: str) -> dict[str, Any]:
    """Run the race on ``url`` and return what the processes and the database say."""
    setup = open_database(url)
    setup.migrate("race", EFFECTS)
    setup.close()
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(PROCESSES)
    results = ctx.Queue()
    workers = [
        ctx.Process(target=_racer, args=(url, w, ROUNDS, barrier, results))
        for w in range(PROCESSES)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    reports = [results.get(timeout=120) for _ in workers]
    elapsed = time.perf_counter() - started
    for worker in workers:
        worker.join(timeout=30)
    results.close()
    results.join_thread()
    check = open_database(url)
    try:
        effects = check.query("SELECT key, worker FROM race_effects")
        entries = SqlLedger(check).entries(conversation_id="race")
    finally:
        check.close()
    return {"reports": reports, "effects": effects, "entries": entries, "seconds": elapsed}


@pytest.mark.slow
def test_one_effect_per_key_when_eight_processes_race(db_url: str) -> None:
    """8 processes, 500 rounds, on one key each: one owner, one effect, one committed row."""
    race = _race(db_url)
    errors = [r[3] for r in race["reports"] if r[3] is not None]
    assert errors == []
    owners: Counter[int] = Counter()
    winner_of: dict[str, int] = {}
    seen: Counter[str] = Counter()
    for worker, won, saw, _ in race["reports"]:
        owners.update(won)
        winner_of.update({f"race-{index}": worker for index in won})
        seen.update(saw)
    assert sorted(owners) == list(range(ROUNDS))
    assert set(owners.values()) == {1}, "some round was owned by more than one process"
    per_key = Counter(key for key, _ in race["effects"])
    assert len(per_key) == ROUNDS
    assert set(per_key.values()) == {1}, "some key got more than one effect"
    assert dict(race["effects"]) == winner_of
    assert len(race["entries"]) == ROUNDS
    for entry in race["entries"]:
        assert (entry.state, entry.attempt) == ("committed", 1)
        assert entry.result == {"worker": winner_of[entry.key]}
    assert sum(seen.values()) == ROUNDS * (PROCESSES - 1)
    distinct = len(set(winner_of.values()))
    store = "postgresql" if db_url.startswith("postgresql") else "sqlite"
    print(
        f"\nrace on {store}: "
        f"{PROCESSES} processes x {ROUNDS} rounds in {race['seconds']:.1f} s; "
        f"{distinct} distinct winners; losers saw {dict(seen)}"
    )
    assert distinct > 1, "one process won every round: the processes did not really race"
