"""``make load --workdir DIR`` reused for another run starts from a clean directory: Locust's
log of what people were told is appended to, so an earlier run's lines would be read as this
run's people and the exactly-once check would report writes lost and doubled that were not."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks" / "load"))

from checks import Log, check_writes, fresh_workdir  # the load test's own module


def test_a_reused_workdir_loses_the_last_runs_files_and_only_those(tmp_path: Path) -> None:
    workdir = tmp_path / "load"
    workdir.mkdir()
    earlier = {"op": "save", "user": "load-001", "key": "k.load-001.1", "cid": "c1"}
    (workdir / "log.jsonl").write_text(json.dumps(earlier) + "\n")
    for name in ("locust.log", "serve.log", "stats_stats.csv", "stats_failures.csv"):
        (workdir / name).write_text("an earlier run\n")
    (workdir / "notes.txt").write_text("mine\n")
    removed = fresh_workdir(workdir)
    assert {p.name for p in removed} == {
        "log.jsonl",
        "locust.log",
        "serve.log",
        "stats_stats.csv",
        "stats_failures.csv",
    }
    assert sorted(p.name for p in workdir.iterdir()) == ["notes.txt"]
    assert Log.read(workdir / "log.jsonl").saved == set()


def test_a_new_workdir_is_made(tmp_path: Path) -> None:
    assert fresh_workdir(tmp_path / "new" / "load") == []
    assert (tmp_path / "new" / "load").is_dir()


def test_an_earlier_runs_saves_would_be_read_as_lost_writes(tmp_path: Path, pg_url: str) -> None:
    """Why it matters: a save acknowledged in an earlier run (another database) is not in this
    run's database, so the check fails on it; after ``fresh_workdir`` the log is this run's."""
    from surefoot import open_database

    open_database(pg_url).close()  # the surefoot tables, empty
    db = open_database(pg_url)
    try:
        db.query("CREATE TABLE gym_memory (user_id TEXT, key TEXT, value TEXT)")
    finally:
        db.close()
    earlier = {"op": "save", "user": "load-001", "key": "k.load-001.1", "cid": "c1"}
    (tmp_path / "log.jsonl").write_text(json.dumps(earlier) + "\n")
    stale = check_writes(pg_url, Log.read(tmp_path / "log.jsonl"))
    assert not stale[0].ok
    fresh_workdir(tmp_path)
    assert all(check.ok for check in check_writes(pg_url, Log.read(tmp_path / "log.jsonl")))


def test_a_run_whose_people_could_not_act_fails_the_people_check(tmp_path: Path) -> None:
    from checks import check_people

    exceptions = tmp_path / "stats_exceptions.csv"
    exceptions.write_text(
        "Count,Message,Traceback,Nodes\n209,name 'log' is not defined,\"  File x\",local\n"
    )
    saved = Log(saved={("load-001", "k.load-001.1")})
    failed = check_people(exceptions, saved)
    assert not failed.ok
    assert "exceptions 209; the first: name 'log' is not defined" in failed.detail
    assert not check_people(tmp_path / "none.csv", Log()).ok  # nothing acknowledged
    exceptions.write_text("Count,Message,Traceback,Nodes\n")
    held = check_people(exceptions, saved)
    assert held.ok
    assert held.detail == "exceptions 0; writes acknowledged 1"


def test_requests_with_no_answer_are_counted_and_the_killed_workers_told_apart(
    tmp_path: Path,
) -> None:
    from checks import check_errors

    killed = 1_000.0
    lines = [
        {"op": "dropped", "user": "load-001", "route": "chat: write", "t": killed + 0.1,
         "error": "HTTPConnectionClosed('connection closed.')"},
        {"op": "dropped", "user": "load-002", "route": "chat: read", "t": killed + 44.0,
         "error": "HTTPConnectionClosed('connection closed.')"},
        {"op": "refused", "user": "load-003", "status": 503, "t": killed + 50.0},
    ]  # fmt: skip
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    log = Log.read(path)
    assert [(t, route) for t, route, _ in log.dropped] == [
        (killed + 0.1, "chat: write"),
        (killed + 44.0, "chat: read"),
    ]
    assert log.refused_at == [killed + 50.0]
    held = check_errors(log, killed)
    assert held.ok  # no answer is not an unclean answer
    assert held.detail.endswith(
        "no answer at all (connection closed) 2, of them within 5 s of the worker's kill 1"
    )
    assert check_errors(log, None).detail.endswith("of the worker's kill 0")


def test_the_figures_are_over_the_time_after_every_person_signed_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The people reset Locust's figures once the last of them has signed in, and log when:
    the run's own counts (the refusals taken out of the chat turns) start at that moment too,
    and a route only the ramp took (the sign-in) leaves no empty row."""
    from run import _table

    began = 1_000.0
    lines = [
        {"op": "refused", "user": "load-001", "status": 409, "t": began - 1.0},
        {"op": "measured", "t": began},
        {"op": "refused", "user": "load-002", "status": 409, "t": began + 1.0},
        {"op": "save", "user": "load-002", "key": "k.load-002.1", "cid": "c1"},
    ]
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    log = Log.read(path)
    assert log.measured_from == began
    assert log.refused_at == [began - 1.0, began + 1.0]
    assert log.saved == {("load-002", "k.load-002.1")}
    stats = tmp_path / "stats_stats.csv"
    stats.write_text(
        "Type,Name,Request Count,Failure Count,Requests/s,50%,95%,99%\n"
        "POST,/signin [post],0,0,0.0,N/A,N/A,N/A\n"
        "POST,chat: write,101,0,10.1,120,200,300\n"
        ",Aggregated,101,0,10.1,120,200,300\n"
    )
    _table(stats, log, ended=began + 12.0)  # Locust's last request 2 s before the end
    printed = capsys.readouterr().out
    assert "/signin" not in printed
    assert (
        "over the 10 s from when every person had signed in: chat turns (POST /api/chat "
        "answered with a turn) 100 (10.0/s; 1 more refused" in printed
    )
    assert "p99 of the chat rows: up to 300 ms" in printed

    path.write_text(json.dumps(lines[0]) + "\n")  # someone never got through signing in
    _table(stats, Log.read(path), ended=began + 10.0)
    assert "from the start (not every person got through signing in)" in capsys.readouterr().out
