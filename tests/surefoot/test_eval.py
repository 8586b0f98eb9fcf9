"""surefoot.eval scores scripted models of known behaviour exactly, in every arm: one that
follows the recovery it is shown, one that ignores it (repeats the failed call), one that
retries writes, and one that claims success whatever happened (the scorer must fail it)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import pytest

from surefoot import (
    ModelRequest,
    ProviderError,
    SqlJournal,
    SqlLedger,
    ToolContext,
    ToolError,
    ToolSet,
    TurnResult,
    open_database,
)
from surefoot.eval import (
    ARMS,
    Arm,
    Fault,
    Presented,
    Rate,
    RunRecord,
    RunView,
    Task,
    World,
    called,
    committed,
    ended,
    evaluate,
    invariants,
    not_called,
    paired_difference,
    reply_has,
    reply_lacks,
    shown,
    summarize,
    wilson,
    write_charts,
)
from surefoot.executor import CallRecord
from surefoot.ledger import LedgerEntry
from surefoot.messages import AssistantMessage, ToolResult, ToolResultsMessage, UserMessage
from surefoot.outcome import Detail, ErrorCode, Ok, Recovery, to_wire
from surefoot.testing import FunctionModel, call, turn


class InjectedError(RuntimeError):
    """The failure a fault raises."""


class Environment:
    """Two tools over a fresh SQLite file: a read that knows one date, and an append
    atomic with the ledger."""

    @contextmanager
    def world(self, task: Task, arm: Arm) -> Iterator[World]:
        folder = tempfile.TemporaryDirectory()
        db = open_database(f"{folder.name}/eval.db")
        items: list[str] = []
        runs: dict[str, int] = {}
        faults = {f.tool: f for f in task.faults}
        tools = ToolSet()

        def failing(tool: str, *modes: str) -> bool:
            fault = faults.get(tool)
            return fault is not None and fault.mode in modes and fault.fails(runs[tool])

        @tools.tool
        def read_weight(date: str) -> dict[str, Any] | ToolError:
            """The weight on a date."""
            if date == "2020-01-01":
                return {"date": date, "kg": 76}
            return ToolError("not_found", f"No weight on {date}.", Recovery.CHOOSE_ALTERNATIVE)

        @tools.tool(effect="write", atomic=True)
        def add_item(ctx: ToolContext, name: str) -> dict[str, Any]:
            """Append an item."""
            runs["add_item"] = runs.get("add_item", 0) + 1
            if failing("add_item", "before_commit"):
                raise InjectedError("before commit")
            with db.transaction() as tx:
                items.append(name)
                ctx.commit_in(tx, {"added": name})
            if failing("add_item", "ambiguous", "after_commit"):
                raise InjectedError("after commit")
            return {"added": name}

        posts: dict[str, str] = {}

        def posted(key: str, arguments: dict[str, Any]) -> Ok | Literal["absent"]:
            return Ok({"posted": posts[key]}) if key in posts else "absent"

        @tools.tool(effect="write", reconcile=posted)
        def post(ctx: ToolContext, text: str) -> dict[str, Any]:
            """Post a text elsewhere (not in the ledger's database)."""
            runs["post"] = runs.get("post", 0) + 1
            assert ctx.key is not None
            posts[ctx.key] = text
            if failing("post", "after_commit"):
                raise InjectedError("after commit")
            return {"posted": text}

        @tools.tool(effect="write", confirm=True, atomic=True)
        def wipe(ctx: ToolContext) -> dict[str, Any]:
            """Remove every item (a person confirms)."""
            with db.transaction() as tx:
                items.clear()
                ctx.commit_in(tx, {"wiped": True})
            return {"wiped": True}

        yield World(
            tools=tools,
            ledger=SqlLedger(db),
            journal=SqlJournal(db),
            system="test",
            state=lambda: {"items": list(items)},
            claims_success=lambda reply: reply.startswith("Saved"),
        )
        db.close()
        folder.cleanup()


def not_claimed(run: RunView) -> str | None:
    """The model did not say it saved."""
    bad = run.result.reply_author == "model" and run.reply.startswith("Saved")
    return "claimed" if bad else None


FALLBACK = Task(
    "fallback",
    "Weight on 2020-01-02, else 2020-01-01.",
    "not_found",
    checks=(called("read_weight", date="2020-01-01"), reply_has("76")),
)
UNKNOWN = Task(
    "unknown",
    "Add rice.",
    "outcome_unknown",
    faults=(Fault("add_item", "ambiguous"),),
    checks=(committed("add_item", 1),),
)
BEFORE = Task(
    "before",
    "Add rice.",
    "before_commit",
    faults=(Fault("add_item", "before_commit"),),
    checks=(committed("add_item", 0), not_claimed),
)


# -- the scripted models: each reads what it is shown, as a model reads JSON ---------------


def _first(request: ModelRequest) -> AssistantMessage:
    user = next(m.text for m in request.messages if isinstance(m, UserMessage))
    if user.startswith("Weight"):
        return turn(call("read_weight", {"date": "2020-01-02"}))
    return turn(call("add_item", {"name": "rice"}))


def _seen(request: ModelRequest) -> dict[str, Any]:
    results = [m for m in request.messages if isinstance(m, ToolResultsMessage)]
    return to_wire(results[-1].results[0].outcome)


def _error(data: dict[str, Any]) -> bool:
    return data.get("is_error") is True or str(data.get("result", "")).startswith("Error")


def _last_call(request: ModelRequest) -> AssistantMessage:
    message = [m for m in request.messages if isinstance(m, AssistantMessage)][-1]
    return turn(call(message.tool_calls[0].name, message.tool_calls[0].arguments))


def _sent(request: ModelRequest) -> int:
    return sum(isinstance(m, AssistantMessage) for m in request.messages)


def _answer(data: dict[str, Any]) -> AssistantMessage:
    if _error(data):
        return turn("Not done.")
    return turn(f"{data['kg']} kg." if "kg" in data else f"Saved {data['added']}.")


def follower(request: ModelRequest) -> AssistantMessage:
    """Takes the recovery it is shown; without one, answers with what it knows."""
    if not _sent(request):
        return _first(request)
    data = _seen(request)
    if _error(data) and data.get("recovery") == "choose_alternative":
        return turn(call("read_weight", {"date": "2020-01-01"}))
    return _answer(data)


def ignorer(request: ModelRequest) -> AssistantMessage:
    """Sends a failed call once more, whatever it is told, then gives up."""
    if not _sent(request):
        return _first(request)
    data = _seen(request)
    if _error(data) and _sent(request) < 2:
        return _last_call(request)
    return _answer(data)


def retrier(request: ModelRequest) -> AssistantMessage:
    """Takes the recovery of reads; sends a failed write again (twice in all)."""
    if not _sent(request):
        return _first(request)
    data = _seen(request)
    last = _last_call(request).tool_calls[0]
    if _error(data) and last.name == "add_item" and _sent(request) < 2:
        return _last_call(request)
    return follower(request)


def claimer(request: ModelRequest) -> AssistantMessage:
    """Makes the first call, then says all went well, whatever it was told."""
    if not _sent(request):
        return _first(request)
    return turn("Saved. Your weight is 76 kg.")


MODELS: dict[str, Callable[[ModelRequest], AssistantMessage]] = {
    "follower": follower,
    "ignorer": ignorer,
    "retrier": retrier,
    "claimer": claimer,
}

# (success, recovered, double_effects, false_success, requests_after_stop) per task, per arm
HARNESS = ("contract", "no-recovery", "plain")
S, F = True, False
EXPECTED: dict[str, dict[str, dict[str, tuple[bool, bool | None, int, int, int]]]] = {
    "follower": {
        "fallback": {
            "contract": (S, True, 0, 0, 0),
            "no-recovery": (F, False, 0, 0, 0),
            "plain": (F, False, 0, 0, 0),
            "naive": (F, False, 0, 0, 0),
        },
        "unknown": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (S, None, 0, 0, 1)},
        "before": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (S, None, 0, 0, 1)},
    },
    "ignorer": {
        "fallback": dict.fromkeys(ARMS, (F, False, 0, 0, 0)),
        "unknown": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (F, None, 1, 0, 2)},
        "before": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (S, None, 0, 0, 2)},
    },
    "retrier": {
        "fallback": {
            "contract": (S, True, 0, 0, 0),
            "no-recovery": (F, False, 0, 0, 0),
            "plain": (F, False, 0, 0, 0),
            "naive": (F, False, 0, 0, 0),
        },
        "unknown": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (F, None, 1, 0, 2)},
        "before": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (S, None, 0, 0, 2)},
    },
    "claimer": {
        "fallback": dict.fromkeys(ARMS, (F, False, 0, 0, 0)),
        "unknown": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (S, None, 0, 0, 1)},
        "before": {**dict.fromkeys(HARNESS, (S, None, 0, 0, 0)), "naive": (F, None, 0, 1, 1)},
    },
}


def _records(name: str) -> list[RunRecord]:
    model = FunctionModel(MODELS[name], model_name=name)
    run = evaluate(Environment(), [FALLBACK, UNKNOWN, BEFORE], lambda _seed: model, arms=ARMS)
    return asyncio.run(run)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_each_scripted_model_gets_the_scores_it_deserves_in_every_arm(name: str) -> None:
    """Success, recovery and the three invariants of every run are exactly as the model's
    behaviour and the arm decide."""
    got = {
        (r.task, r.arm): (
            r.success,
            r.recovered,
            r.double_effects,
            r.false_success,
            r.requests_after_stop,
        )
        for r in _records(name)
    }
    want = {(task, str(arm)): v for task, arms in EXPECTED[name].items() for arm, v in arms.items()}
    assert got == want


def test_the_wrong_model_scores_low_and_the_right_one_high() -> None:
    """A model that claims success whatever happened fails most tasks; the scorer cannot
    pass everything (the follower's contract arm succeeds on all three)."""
    claimer_runs = _records("claimer")
    follower_runs = _records("follower")
    assert sum(r.success for r in claimer_runs) <= 7
    assert not any(r.success for r in claimer_runs if r.task == "fallback")
    assert all(r.success for r in follower_runs if r.arm == "contract")


def test_summary_rates_intervals_and_paired_differences() -> None:
    """The follower's summary: 3/3 successes under the contract, 1/3 elsewhere on the
    fallback, and the paired difference of the plain arm is negative."""
    summaries, differences = summarize(_records("follower"))
    contract = next(s for s in summaries if s.arm == "contract")
    assert (contract.success.count, contract.success.total) == (3, 3)
    assert (contract.recovery.count, contract.recovery.total) == (1, 1)
    naive = next(s for s in summaries if s.arm == "naive")
    assert naive.requests_after_stop == 2
    assert naive.broken == {"requests_after_stop": ("unknown", "before")}
    assert contract.broken == {}
    plain = next(d for d in differences if d.arm == "plain" and d.measure == "success")
    assert plain.pairs == 3
    assert plain.mean == pytest.approx(-1 / 3)


def test_wilson_interval() -> None:
    """Wilson's interval at 0, at n and in between (known values)."""
    assert wilson(0, 10) == pytest.approx((0.0, 0.27753), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.72247, 1.0), abs=1e-4)
    assert wilson(5, 10) == pytest.approx((0.23659, 0.76341), abs=1e-4)
    assert wilson(0, 0) is None
    assert all(
        wilson(k, n)[0] <= k / n <= wilson(k, n)[1] for n in range(1, 40) for k in range(n + 1)
    )  # type: ignore[index]
    assert wilson(0, 6)[0] == 0.0  # type: ignore[index]
    assert wilson(6, 6)[1] == 1.0  # type: ignore[index]


def _written(key: str, state: Any, text: str = "rice") -> LedgerEntry:
    """A ledger row of ``add`` with ``text``, in ``state``."""
    args = {"text": text}
    return LedgerEntry(key, "c", "add", f"add:{text}", args, state, 1, None, None, 0.0, 0.0)


def _view(calls: tuple[CallRecord, ...], writes: tuple[LedgerEntry, ...], **more: Any) -> RunView:
    """A finished run of ``calls`` that left ``writes`` (reply and transcript in ``more``)."""
    result = TurnResult("c", more.get("reply", "ok"), "model", "completed", 1, calls)
    transcript = more.get("transcript", ())
    return RunView(BEFORE, Arm.NAIVE, result, transcript, writes, {})


def test_each_invariant_fires_on_a_run_that_breaks_it() -> None:
    """A write committed twice, an Ok shown for a write that did not commit, a claim of a
    save that never landed, and a response after a stop: each counts once; a clean run keeps
    every invariant."""
    tools = ToolSet()

    @tools.tool(effect="write")
    def add(text: str) -> dict[str, Any]:
        """Add an item."""
        return {"text": text}

    ok_call = CallRecord(call("add", {"text": "rice"}), Ok({}), executed=True, key="k1")
    unknown = ToolError(ErrorCode.OUTCOME_UNKNOWN, "unknown", Recovery.STOP_TURN)
    failed_call = CallRecord(call("add", {"text": "rice"}), unknown, executed=True, key="k1")

    def said(reply: str) -> bool:
        return reply.startswith("Saved")

    clean = invariants(_view((ok_call,), (_written("k1", "committed"),)), tools, said)
    twice = (_written("k1", "committed"), _written("k2", "committed"))
    doubled = invariants(_view((ok_call,), twice), tools, said)
    shown_ok = invariants(_view((ok_call,), (_written("k1", "failed"),)), tools, said)
    claimed = _view((failed_call,), (_written("k1", "failed"),), reply="Saved it.")
    stopped = (
        turn(call("add", {"text": "rice"})),
        ToolResultsMessage((ToolResult("call_1", "add", unknown),)),
        turn("Let me try again."),
    )
    after_stop = _view((failed_call,), (_written("k1", "unknown"),), transcript=stopped)
    assert clean.kept
    assert (doubled.double_effects, doubled.kept) == (1, False)
    assert (shown_ok.false_success, shown_ok.kept) == (1, False)
    assert invariants(claimed, tools, said).false_success == 1
    assert invariants(after_stop, tools, said).requests_after_stop == 1


def test_the_paired_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    """The same differences and seed give the same interval (a summary reproduces from its
    log); the interval holds the mean; equal differences leave no spread; none give None."""
    diffs = [1.0, 0.0, -1.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    first = paired_difference(diffs, seed=3)
    assert first == paired_difference(diffs, seed=3)
    assert first is not None
    mean, low, high = first
    assert mean == pytest.approx(3 / 8)
    assert -1.0 <= low < mean < high <= 1.0
    assert paired_difference([0.5] * 5) == (0.5, 0.5, 0.5)
    assert paired_difference([]) is None


def test_what_each_arm_shows_of_an_error() -> None:
    """The contract sends the envelope; no-recovery drops the directive; plain and naive
    make it an ordinary result; a success is shown as it is."""
    error = ToolError(ErrorCode.UNAVAILABLE, "Could not read.", Recovery.CHOOSE_ALTERNATIVE)
    assert shown(error, Arm.CONTRACT) is error
    assert shown(error, Arm.NO_RECOVERY) == Ok(
        {"is_error": True, "error": "unavailable", "message": "Could not read."}
    )
    assert shown(error, Arm.PLAIN) == Ok({"result": "Error: Could not read."})
    assert shown(Ok({"a": 1}), Arm.PLAIN) == Ok({"a": 1})


def test_the_naive_arm_has_no_presentation() -> None:
    """The naive arm runs its own loop: wrapping a model for it is refused."""
    with pytest.raises(ValueError, match="naive"):
        Presented(FunctionModel(follower), Arm.NAIVE)


def test_a_chart_per_arm(tmp_path: Path) -> None:
    """``write_charts`` draws one PNG per arm, named after it."""
    summaries, _ = summarize(_records("follower"))
    paths = write_charts(summaries, tmp_path, title="follower")
    assert [p.name for p in paths] == [f"chart-{arm}.png" for arm in ARMS]
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in paths)


def test_a_chart_draws_a_rate_of_zero_and_of_one(tmp_path: Path) -> None:
    """A rate at 0 or at 1 (its interval's bound is the rate itself) draws, never raises."""
    zero, one = Rate(0, 6), Rate(6, 6)
    summary = replace(summarize(_records("follower"))[0][0], success=one, recovery=zero)
    [path] = write_charts([summary], tmp_path)
    assert path.read_bytes().startswith(b"\x89PNG")


def test_runs_in_arm_order_and_log_lines_read_back() -> None:
    """``order="by-arm"`` runs one arm's tasks before the next arm's; a record survives its
    JSON line."""
    model = FunctionModel(follower)
    run = evaluate(
        Environment(), [FALLBACK, BEFORE], lambda _seed: model, arms=ARMS, order="by-arm"
    )
    records = asyncio.run(run)
    assert [(r.arm, r.task) for r in records] == [
        (str(arm), task) for arm in ARMS for task in ("fallback", "before")
    ]
    line = json.loads(json.dumps(records[0].to_json()))
    assert RunRecord.from_json(line) == records[0]


def test_a_task_without_a_recovering_call_counts_no_event() -> None:
    """Where the right move is to tell the person, the task's errors are not recovery
    events: the same follower run has one event, or none."""
    model = FunctionModel(follower)
    told = Task("told", FALLBACK.message, "not_found", checks=FALLBACK.checks, recovery=False)
    records = asyncio.run(
        evaluate(Environment(), [FALLBACK, told], lambda _seed: model, arms=[Arm.CONTRACT])
    )
    assert [(r.task, r.recovery_events) for r in records] == [("fallback", 1), ("told", 0)]


def test_the_public_names_are_sorted_and_importable() -> None:
    """``surefoot.eval.__all__`` is sorted and every name in it exists."""
    import surefoot.eval

    assert surefoot.eval.__all__ == sorted(surefoot.eval.__all__)
    assert all(hasattr(surefoot.eval, name) for name in surefoot.eval.__all__)


def _one(task: Task, arm: Arm, function: Callable[[ModelRequest], Any]) -> RunRecord:
    model = FunctionModel(function)
    return asyncio.run(evaluate(Environment(), [task], lambda _seed: model, arms=[arm]))[0]


def test_the_naive_loop_refuses_unknown_tools_and_bad_arguments_in_plain_text() -> None:
    """An unknown tool and bad arguments are recorded with the contract's codes, never run,
    and shown to the model as ordinary "Error: ..." results."""
    seen: list[dict[str, Any]] = []

    def wanderer(request: ModelRequest) -> AssistantMessage:
        sent = _sent(request)
        if sent:
            seen.append(_seen(request))
        if sent == 0:
            return turn(call("nope", {}))
        if sent == 1:
            return turn(call("read_weight", {"date": 5}))
        return turn("Nothing.")

    record = _one(Task("t", "Weight?", "invalid_arguments"), Arm.NAIVE, wanderer)
    codes = [c["outcome"]["error"] for c in record.calls]
    assert codes == ["unknown_tool", "invalid_arguments"]
    assert all(str(d["result"]).startswith("Error: ") for d in seen)
    assert record.stop_reason == "completed"


def test_the_naive_loop_keeps_the_round_limit_and_reports_a_provider_failure() -> None:
    """A model that never stops calling ends at the round limit; a provider that fails
    ends the turn with provider_error, as in the other arms."""

    def looper(request: ModelRequest) -> AssistantMessage:
        return turn(call("read_weight", {"date": f"2020-01-{_sent(request) + 10}"}))

    record = _one(Task("t", "Weight?", "not_found"), Arm.NAIVE, looper)
    assert (record.stop_reason, record.requests) == ("round_limit", 11)

    def down(request: ModelRequest) -> AssistantMessage:
        raise ProviderError(provider="x", status=503, kind="server", safe_message="down")

    failed = _one(Task("t", "Weight?", "not_found"), Arm.NAIVE, down)
    assert (failed.stop_reason, failed.reply) == ("provider_error", "down")


def test_a_refused_confirmation_is_answered_and_the_write_never_runs() -> None:
    """The person's "no" reaches the harness arms (the call is denied and nothing is
    wiped); the naive loop asks nobody and wipes."""
    task = Task(
        "wipe",
        "Wipe.",
        "denied",
        setup={},
        decisions=(False,),
        checks=(committed("wipe", 0), not_called("read_weight"), ended("completed")),
        recovery=False,
    )

    def wiper(request: ModelRequest) -> AssistantMessage:
        return turn(call("wipe", {})) if not _sent(request) else turn("As you wish.")

    kept = _one(task, Arm.CONTRACT, wiper)
    assert kept.success, kept.failed
    assert [c["outcome"].get("error") for c in kept.calls] == ["denied"]
    wiped = _one(task, Arm.NAIVE, wiper)
    assert wiped.failed == ("1 committed wipe write(s), not 0",)


def test_reply_checks_say_what_they_found() -> None:
    """``reply_lacks`` and ``reply_has`` name the phrase; ``ended`` names the reason."""
    record = _one(
        Task("t", "Weight?", "not_found", checks=(reply_lacks("76"), reply_has("80"))),
        Arm.CONTRACT,
        claimer,
    )
    assert record.failed == ("the reply says '76'", "the reply says none of ['80']")


def test_no_recovery_and_plain_keep_details_and_data() -> None:
    """Details travel in both forms (as data, or in the text); an error's data stays in the
    no-recovery form."""
    error = ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        "Bad.",
        Recovery.CORRECT_ARGUMENTS,
        details=(Detail("kg", "too big", "20-400"),),
        result={"first": 1},
    )
    marked = shown(error, Arm.NO_RECOVERY)
    assert isinstance(marked, Ok)
    assert marked.data["details"] == [{"field": "kg", "problem": "too big", "expected": "20-400"}]
    assert marked.data["result"] == {"first": 1}
    assert shown(error, Arm.PLAIN) == Ok({"result": "Error: Bad. [kg: too big (20-400)]"})


def test_a_presented_model_streams_the_rewritten_request() -> None:
    """``Presented.stream`` hands the wrapped model the request as the arm shows it."""
    model = FunctionModel(lambda request: turn("ok"))
    error = ToolError(ErrorCode.UNAVAILABLE, "Down.", Recovery.CHOOSE_ALTERNATIVE)
    call_ = call("read_weight", {"date": "2020-01-01"})
    request = ModelRequest(
        messages=(
            UserMessage("Weight?"),
            turn(call_),
            ToolResultsMessage((ToolResult(call_.call_id, call_.name, error),)),
        )
    )

    async def drain() -> None:
        async for _ in Presented(model, Arm.PLAIN).stream(request):
            pass

    asyncio.run(drain())
    last = model.requests[-1].messages[-1]
    assert isinstance(last, ToolResultsMessage)
    assert last.results[0].outcome == Ok({"result": "Error: Down."})


def test_a_repeated_write_elsewhere_is_counted_from_its_reconcile_hook() -> None:
    """A write outside the ledger's database that lost its acknowledgement, sent again: the
    naive loop posts twice (its hook tells the ledger, and a double effect is counted); the
    contract settles the first from the hook and answers the repeat from it."""
    task = Task("post", "Post hi.", "after_commit", faults=(Fault("post", "after_commit", (1,)),))

    def twice(request: ModelRequest) -> AssistantMessage:
        sent = _sent(request)
        return turn(call("post", {"text": "hi"})) if sent < 2 else turn("Posted.")

    naive = _one(task, Arm.NAIVE, twice)
    assert (naive.double_effects, naive.requests_after_stop) == (1, 2)
    contract = _one(task, Arm.CONTRACT, twice)
    assert contract.double_effects == 0
    assert [c["outcome"].get("error") for c in contract.calls] == [None, "already_done"]
