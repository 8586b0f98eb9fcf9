"""The turn loop: it obeys stop_turn locally, enforces the round limit,
answers every call exactly once, streams text, resumes without redoing a committed write, and
tells a provider failure apart from a local one."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Literal

import pytest

from surefoot import (
    Agent,
    ConfigurationError,
    MemoryJournal,
    MemoryLedger,
    ModelRequest,
    Ok,
    ProviderConnectionError,
    ProviderError,
    Recovery,
    SqlJournal,
    SqlLedger,
    Tool,
    ToolContext,
    ToolError,
    ToolSet,
    TurnEvent,
    TurnResult,
    open_database,
)
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    Message,
    TextDelta,
    ToolCall,
    ToolResultsMessage,
    UserMessage,
)
from surefoot.testing import (
    FunctionModel,
    ScriptedModel,
    ScriptError,
    Step,
    call,
    turn,
    write_transcript,
)

Lang = Literal["es", "pt", "en"]
LANGS: tuple[Lang, ...] = ("es", "pt", "en")

# What the conservative stop message means, as each language says it.
CANT_CONFIRM = {
    "es": ("no puede confirmar", "dos veces"),
    "pt": ("não consegue confirmar", "duas vezes"),
    "en": ("can't confirm", "twice"),
}
PROVIDER_WORD = {"es": "proveedor", "pt": "fornecedor", "en": "provider"}


class Counter:
    """Counts handler runs by name."""

    def __init__(self) -> None:
        self.runs: list[str] = []

    def count(self, name: str) -> int:
        return self.runs.count(name)


def _tools(counter: Counter) -> ToolSet:
    tools = ToolSet()

    @tools.tool
    def ping(n: int = 0) -> dict[str, Any]:
        """A read that always works."""
        counter.runs.append("ping")
        return {"pong": n}

    @tools.tool(effect="write")
    def broken_write(value: str) -> dict[str, Any]:
        """A write whose storage fails; nothing can tell whether it landed."""
        counter.runs.append("broken_write")
        msg = "database is locked"
        raise OSError(msg)

    @tools.tool(effect="write")
    def save(value: str) -> dict[str, Any]:
        """A write that works."""
        counter.runs.append("save")
        return {"saved": value}

    return tools


def _agent(model: Any, counter: Counter, **options: Any) -> Agent:
    options.setdefault("journal", MemoryJournal())
    return Agent(model=model, tools=_tools(counter), app_name="Gymnasia", **options)


def _run(agent: Agent, text: str = "hola", **options: Any) -> TurnResult:
    return asyncio.run(agent.run_turn(text, **options))


def _assert_every_call_answered(messages: Sequence[Message]) -> None:
    """Each assistant message with calls is followed by one result per call, in order."""
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage) and message.tool_calls:
            assert index + 1 < len(messages), "calls left unanswered at the end"
            results = messages[index + 1]
            assert isinstance(results, ToolResultsMessage), results
            assert [r.call_id for r in results.results] == [c.call_id for c in message.tool_calls]
        if isinstance(message, ToolResultsMessage):
            previous = messages[index - 1]
            assert isinstance(previous, AssistantMessage)


# -- stop_turn is obeyed locally -------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_stop_turn_ends_the_turn_without_another_model_request(lang: Lang) -> None:
    """outcome_unknown stops the turn: one request, the harness's localized conservative reply."""
    counter = Counter()
    model = ScriptedModel(
        [turn(call("broken_write", {"value": "77"})), turn("This step must never be requested.")]
    )
    journal = MemoryJournal()
    agent = _agent(model, counter, lang=lang, journal=journal)
    result = _run(agent)
    assert result.stop_reason == "stop_turn"
    assert result.model_requests == 1
    assert len(model.requests) == 1
    assert model.remaining == 1
    assert result.reply_author == "harness"
    for fragment in CANT_CONFIRM[lang]:
        assert fragment in result.reply, result.reply
    assert "Gymnasia" in result.reply
    assert counter.count("broken_write") == 1
    messages = journal.load(result.conversation_id)
    assert isinstance(messages[-1], HarnessMessage)
    assert messages[-1].reason == "stop_turn"
    assert messages[-1].text == result.reply
    _assert_every_call_answered(messages)


def test_stop_message_for_an_idempotent_write_says_asking_again_is_safe() -> None:
    """For a write declared idempotent, the conservative message may add that a retry is safe."""
    tools = ToolSet()

    @tools.tool(effect="write", idempotent=True)
    def upsert(value: str) -> dict[str, Any]:
        """An idempotent write that fails."""
        msg = "lost"
        raise OSError(msg)

    @tools.tool(effect="write")
    def append(value: str) -> dict[str, Any]:
        """A non-idempotent write that fails."""
        msg = "lost"
        raise OSError(msg)

    replies = {}
    for name in ("upsert", "append"):
        model = ScriptedModel([turn(call(name, {"value": "x"}))])
        agent = Agent(model=model, tools=tools, lang="en", app_name="Gymnasia")
        replies[name] = _run(agent).reply
    base = "Gymnasia can't confirm whether the action finished, and did not repeat it"
    assert replies["upsert"].startswith(base)
    assert replies["append"].startswith(base)
    # never both "check first" and "asking again is safe"
    assert "Asking again is safe" in replies["upsert"]
    assert "Before asking again" not in replies["upsert"]
    assert "Before asking again, check your data" in replies["append"]
    assert "safe" not in replies["append"]

    def where(tool_call: ToolCall, lang: Lang) -> str:
        return f"run 'app show {tool_call.arguments}' ({lang})"

    for name, says in (("upsert", "To see whether it was done: run"), ("append", "check whether")):
        model = ScriptedModel([turn(call(name, {"value": "x"}))])
        agent = Agent(
            model=model, tools=tools, lang="en", app_name="Gymnasia", where_to_check=where
        )
        reply = _run(agent).reply
        assert says in reply
        assert "run 'app show {'value': 'x'}' (en)." in reply


def test_calls_after_the_stop_are_answered_not_executed() -> None:
    """Calls after the failing write in the same response are answered with not_executed."""
    counter = Counter()
    model = ScriptedModel(
        [turn(call("ping"), call("broken_write", {"value": "a"}), call("save", {"value": "b"}))]
    )
    journal = MemoryJournal()
    result = _run(_agent(model, counter, journal=journal))
    codes = [r.outcome.code if isinstance(r.outcome, ToolError) else "ok" for r in result.calls]
    assert codes == ["ok", "outcome_unknown", "not_executed"]
    assert counter.runs == ["ping", "broken_write"]
    _assert_every_call_answered(journal.load(result.conversation_id))


# -- the round limit -------------------------------------------------------------------------


def test_round_limit_ends_the_turn_clearly() -> None:
    """A model that never stops calling tools is cut off after 10 tool rounds, with a message."""
    counter = Counter()
    model = FunctionModel(lambda request: turn(call("ping")))
    journal = MemoryJournal()
    result = _run(_agent(model, counter, lang="en", journal=journal))
    assert result.stop_reason == "round_limit"
    assert result.reply_author == "harness"
    assert "10" in result.reply
    assert "round" in result.reply
    assert counter.count("ping") == 10
    assert result.model_requests == 11
    messages = journal.load(result.conversation_id)
    _assert_every_call_answered(messages)
    last_results = messages[-2]
    assert isinstance(last_results, ToolResultsMessage)
    assert [r.outcome.code for r in last_results.results] == ["not_executed"]  # type: ignore[union-attr]
    assert isinstance(messages[-1], HarnessMessage)
    assert messages[-1].reason == "round_limit"


def test_round_limit_is_configurable() -> None:
    """``max_rounds=2`` runs two tool rounds, then stops with round_limit."""
    counter = Counter()
    model = FunctionModel(lambda request: turn(call("ping")))
    result = _run(_agent(model, counter, max_rounds=2))
    assert result.stop_reason == "round_limit"
    assert counter.count("ping") == 2


def test_a_final_answer_inside_the_limit_completes() -> None:
    """Ten rounds then an answer is within the limit: the turn completes normally."""
    counter = Counter()
    model = ScriptedModel([*(turn(call("ping", {"n": i})) for i in range(10)), turn("Done.")])
    result = _run(_agent(model, counter))
    assert result.stop_reason == "completed"
    assert result.reply == "Done."
    assert counter.count("ping") == 10
    model.assert_consumed()


# -- max_tokens ------------------------------------------------------------------------------


def test_max_tokens_with_tool_calls_runs_none_of_them() -> None:
    """A response cut off by its length limit may hold truncated calls: none is run."""
    counter = Counter()
    model = ScriptedModel([turn(call("save", {"value": "a"}), call("ping"), finish="max_tokens")])
    journal = MemoryJournal()
    result = _run(_agent(model, counter, journal=journal))
    assert result.stop_reason == "max_tokens"
    assert result.reply_author == "harness"
    assert counter.runs == []
    assert [r.executed for r in result.calls] == [False, False]
    assert {r.outcome.code for r in result.calls} == {"not_executed"}  # type: ignore[union-attr]
    assert result.model_requests == 1
    _assert_every_call_answered(journal.load(result.conversation_id))


def test_max_tokens_text_only_is_reported() -> None:
    """A text answer cut off by the length limit ends with stop_reason max_tokens."""
    model = ScriptedModel([turn("Half an ans", finish="max_tokens")])
    result = _run(_agent(model, Counter()))
    assert result.stop_reason == "max_tokens"
    assert result.reply == "Half an ans"


# -- the journal -----------------------------------------------------------------------------


def test_every_call_gets_exactly_one_result_in_order() -> None:
    """Over several rounds with mixed outcomes, each call has one result, in call order."""
    counter = Counter()
    model = ScriptedModel(
        [
            turn(
                call("ping"), call("nope"), call("ping", {"n": "bad"}), call("save", {"value": "a"})
            ),
            turn("Let me check again.", call("ping", {"n": 1}), call("ping", {"n": 2})),
            turn("All done."),
        ]
    )
    journal = MemoryJournal()
    result = _run(_agent(model, counter, journal=journal), "haz cosas")
    assert result.stop_reason == "completed"
    assert result.reply == "All done."
    messages = journal.load(result.conversation_id)
    assert [m.kind for m in messages] == [
        "user",
        "assistant",
        "tool_results",
        "assistant",
        "tool_results",
        "assistant",
    ]
    _assert_every_call_answered(messages)
    assert len(result.calls) == 6
    model.assert_consumed()


def test_the_model_sees_the_results_of_its_calls() -> None:
    """The second request carries the first response and its results, marks intact."""
    counter = Counter()
    model = ScriptedModel([turn(call("ping", {"n": 3}), call("nope")), turn("ok")])
    _run(_agent(model, counter))
    second = model.requests[1].messages
    results = second[-1]
    assert isinstance(results, ToolResultsMessage)
    assert results.results[0].outcome == Ok({"pong": 3})
    assert isinstance(results.results[1].outcome, ToolError)
    assert results.results[1].outcome.code == "unknown_tool"
    assert isinstance(second[0], UserMessage)


def test_conversation_continues_across_turns() -> None:
    """A second user turn in the same conversation sees the first one's transcript."""
    counter = Counter()
    model = ScriptedModel([turn("first"), turn("second")])
    agent = _agent(model, counter)
    first = _run(agent, "one")
    _run(agent, "two", conversation_id=first.conversation_id)
    assert [m.kind for m in model.requests[1].messages] == ["user", "assistant", "user"]


# -- scripted models fail loudly -------------------------------------------------------------


def test_scripted_model_raises_on_an_unexpected_request() -> None:
    """When the loop asks for a turn the script does not have, ScriptError surfaces."""
    model = ScriptedModel([turn(call("ping"))])
    with pytest.raises(ScriptError, match="asked for another"):
        _run(_agent(model, Counter()))


def test_assert_consumed_reports_unused_steps() -> None:
    """``assert_consumed`` raises when scripted turns were never requested."""
    model = ScriptedModel([turn("one"), turn("two")])
    _run(_agent(model, Counter()))
    with pytest.raises(ScriptError, match="never requested"):
        model.assert_consumed()


def test_step_expectation_is_checked() -> None:
    """A ``Step`` whose expectation fails raises ScriptError instead of answering."""

    def has_results(request: ModelRequest) -> bool:
        return isinstance(request.messages[-1], ToolResultsMessage)

    model = ScriptedModel([Step(turn("no tools yet"), expect=has_results)])
    with pytest.raises(ScriptError, match="expectation"):
        _run(_agent(model, Counter()))


# -- streaming -------------------------------------------------------------------------------


def test_streaming_emits_text_deltas() -> None:
    """With ``stream=True`` text reaches ``on_event`` in several deltas that add up to the reply."""
    events: list[TurnEvent] = []
    model = ScriptedModel([turn(call("ping")), turn("El 2020-01-01 hay 76 kg registrados.")])
    agent = _agent(model, Counter(), stream=True)
    result = _run(agent, on_event=events.append)
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 1
    assert "".join(deltas) == result.reply == "El 2020-01-01 hay 76 kg registrados."
    assert any(not isinstance(e, TextDelta) for e in events)  # the call's record came too


def test_async_event_handler_is_awaited() -> None:
    """An async ``on_event`` is awaited for each event."""
    seen: list[str] = []

    async def on_event(event: TurnEvent) -> None:
        await asyncio.sleep(0)
        seen.append(type(event).__name__)

    model = ScriptedModel([turn("hola mundo")])
    _run(_agent(model, Counter(), stream=True), on_event=on_event)
    assert seen == ["TextDelta", "TextDelta"]


def test_without_streaming_no_text_deltas() -> None:
    """With ``stream=False`` no TextDelta is emitted."""
    events: list[TurnEvent] = []
    model = ScriptedModel([turn("hola mundo")])
    _run(_agent(model, Counter()), on_event=events.append)
    assert not any(isinstance(e, TextDelta) for e in events)


# -- resume ----------------------------------------------------------------------------------


class Killed(BaseException):
    """Stands for the process being killed right after a write committed."""


def _durable_tools(db: Any, counter: Counter, *, kill: bool) -> ToolSet:
    tools = ToolSet()

    @tools.tool(effect="write", atomic=True)
    def record_weight(ctx: ToolContext, date: str, weight_kg: float) -> dict[str, Any]:
        """Store a weight atomically with the ledger."""
        counter.runs.append("record_weight")
        with db.transaction() as tx:
            tx.execute("INSERT INTO weights (date, kg) VALUES (?, ?)", (date, weight_kg))
            ctx.commit_in(tx, {"date": date, "weight_kg": weight_kg})
        if kill:
            raise Killed
        return {"date": date, "weight_kg": weight_kg}

    @tools.tool
    def ping() -> dict[str, Any]:
        """A read."""
        counter.runs.append("ping")
        return {}

    return tools


def _durable_agent(db: Any, model: Any, counter: Counter, *, kill: bool) -> Agent:
    return Agent(
        model=model,
        tools=_durable_tools(db, counter, kill=kill),
        ledger=SqlLedger(db),
        journal=SqlJournal(db),
    )


def test_resume_finishes_the_turn_without_redoing_a_committed_write(sqlite_url: str) -> None:
    """Killed after a commit, a new process resumes: the write replays, every call answered once."""
    counter = Counter()
    db = open_database(sqlite_url)
    db.migrate("test", ["CREATE TABLE weights (date TEXT PRIMARY KEY, kg REAL NOT NULL)"])
    first_model = ScriptedModel(
        [turn(call("record_weight", {"date": "2020-01-04", "weight_kg": 77.4}), call("ping"))]
    )
    agent = _durable_agent(db, first_model, counter, kill=True)
    conversation = "conv-resume"
    with pytest.raises(Killed):
        asyncio.run(agent.run_turn("Guarda 77,4 kg", conversation_id=conversation))
    db.close()

    db = open_database(sqlite_url)
    try:
        messages = SqlJournal(db).load(conversation)
        assert [m.kind for m in messages] == ["user", "assistant"]  # calls unanswered
        second_model = ScriptedModel([turn("Guardado: 77,4 kg.")])
        resumed = asyncio.run(
            _durable_agent(db, second_model, counter, kill=False).resume(conversation)
        )
        assert resumed.stop_reason == "completed"
        assert resumed.reply == "Guardado: 77,4 kg."
        assert counter.runs == ["record_weight", "ping"]
        write = resumed.calls[0]
        assert write.outcome == Ok({"date": "2020-01-04", "weight_kg": 77.4})
        assert write.executed is False
        assert db.query("SELECT date, kg FROM weights") == [("2020-01-04", 77.4)]
        messages = SqlJournal(db).load(conversation)
        assert [m.kind for m in messages] == ["user", "assistant", "tool_results", "assistant"]
        _assert_every_call_answered(messages)
        second_model.assert_consumed()
    finally:
        db.close()


def test_resume_of_a_finished_turn_does_not_call_the_model() -> None:
    """Resuming a conversation whose turn already ended returns that ending, no new request."""
    counter = Counter()
    journal = MemoryJournal()
    done = _run(_agent(ScriptedModel([turn("done")]), counter, journal=journal))
    idle = ScriptedModel([])
    again = asyncio.run(_agent(idle, counter, journal=journal).resume(done.conversation_id))
    assert again.reply == "done"
    assert again.stop_reason == "completed"
    assert idle.requests == []


def test_resume_with_the_memory_ledger_replays_committed_writes() -> None:
    """The same rule with the in-memory ledger: a committed write is not redone on resume."""
    counter = Counter()
    ledger = MemoryLedger()
    journal = MemoryJournal()
    model = ScriptedModel([turn(call("save", {"value": "a"})), turn("ok")])
    first = _run(_agent(model, counter, ledger=ledger, journal=journal))
    # Drop the results and the answer, as if the process died right after the write.
    messages = journal.load(first.conversation_id)[:2]
    replayed = MemoryJournal()
    write_transcript(replayed, first.conversation_id, messages)
    again = asyncio.run(
        _agent(ScriptedModel([turn("ok")]), counter, ledger=ledger, journal=replayed).resume(
            first.conversation_id
        )
    )
    assert again.stop_reason == "completed"
    assert counter.count("save") == 1
    assert again.calls[0].outcome == Ok({"saved": "a"})


# -- provider failures are not local failures ------------------------------------------------


def _raising_model(exc: ProviderError) -> FunctionModel:
    def fail(request: ModelRequest) -> AssistantMessage:
        raise exc

    return FunctionModel(fail)


@pytest.mark.parametrize("lang", LANGS)
def test_provider_error_is_reported_as_such_and_differs_from_a_local_failure(lang: Lang) -> None:
    """A provider failure is reported as one, in words unlike a local storage failure's."""
    exc = ProviderError(
        provider="fakeprov", status=503, kind="overloaded", safe_message="try later"
    )
    counter = Counter()
    provider = _run(_agent(_raising_model(exc), counter, lang=lang))
    local = _run(
        _agent(ScriptedModel([turn(call("broken_write", {"value": "a"}))]), counter, lang=lang)
    )
    assert provider.stop_reason == "provider_error"
    assert provider.reply_author == "harness"
    assert provider.provider_error is exc
    assert provider.model_requests == 1
    assert "fakeprov" in provider.reply
    assert PROVIDER_WORD[lang] in provider.reply.lower()
    assert local.stop_reason == "stop_turn"
    assert local.reply != provider.reply
    assert PROVIDER_WORD[lang] not in local.reply.lower()
    assert "fakeprov" not in local.reply


@pytest.mark.parametrize("lang", LANGS)
def test_connection_failure_has_its_own_wording(lang: Lang) -> None:
    """A provider that cannot be reached is told apart from one that answered badly."""
    unreachable = ProviderConnectionError(
        provider="fakeprov", status=None, kind="connection", safe_message="refused"
    )
    bad = ProviderError(provider="fakeprov", status=400, kind="bad_request", safe_message="bad")
    first = _run(_agent(_raising_model(unreachable), Counter(), lang=lang))
    second = _run(_agent(_raising_model(bad), Counter(), lang=lang))
    assert first.stop_reason == second.stop_reason == "provider_error"
    assert first.reply != second.reply


def test_provider_error_after_a_tool_round_keeps_the_results() -> None:
    """A provider failure on the second request keeps the first round's results journaled."""
    counter = Counter()
    exc = ProviderError(provider="p", status=500, kind="server", safe_message="boom")
    answers = iter([turn(call("save", {"value": "a"}))])

    def respond(request: ModelRequest) -> AssistantMessage:
        step = next(answers, None)
        if step is None:
            raise exc
        return step

    journal = MemoryJournal()
    result = _run(_agent(FunctionModel(respond), counter, journal=journal))
    assert result.stop_reason == "provider_error"
    assert result.model_requests == 2
    assert counter.count("save") == 1
    assert [r.outcome for r in result.calls] == [Ok({"saved": "a"})]
    messages = journal.load(result.conversation_id)
    _assert_every_call_answered(messages)
    assert isinstance(messages[-1], HarnessMessage)
    assert messages[-1].reason == "provider_error"


@pytest.mark.parametrize("effect", ["read", "write"])
def test_a_handler_returning_not_executed_is_its_failure_not_a_crash(effect: str) -> None:
    """``not_executed`` marks a call the harness never ran (replay relies on it); a handler
    that ran and returns it has failed: the turn ends normally (a read is unavailable, a write
    that ran is unknown), and the next turn runs (it used to raise from ``run_turn`` and
    leave the conversation unfinished for good)."""
    tools = ToolSet()

    def trade(symbol: str) -> dict[str, Any] | ToolError:
        """Place a trade."""
        del symbol
        return ToolError("not_executed", "The market is closed.", Recovery.STOP_TURN)

    tools.add(Tool.from_function(trade, effect=effect))  # type: ignore[arg-type]
    model = ScriptedModel([turn(call("trade", {"symbol": "X"})), turn("ok"), turn("again")])
    agent = Agent(model=model, tools=tools, lang="en")
    result = _run(agent, conversation_id="c1")
    (record,) = result.calls
    assert isinstance(record.outcome, ToolError)
    expected = "unavailable" if effect == "read" else "outcome_unknown"
    assert record.outcome.code == expected
    assert not agent.unfinished("c1")
    assert _run(agent, "next", conversation_id="c1").reply in {"ok", "again"}


@pytest.mark.parametrize(
    "options",
    [{"lang": "fr"}, {"lang": "ES"}, {"max_rounds": 0}, {"guard_limit": 0}, {"lease_seconds": 0}],
)
def test_an_agent_refuses_settings_it_cannot_honour(options: dict[str, Any]) -> None:
    """An unsupported language or a non-positive limit is refused when the agent is made
    (an unknown language used to be accepted and crash the first turn that needed a message)."""
    with pytest.raises(ConfigurationError):
        Agent(model=ScriptedModel([]), tools=ToolSet(), **options)


def test_offer_declares_only_the_named_tools_and_any_declared_tool_still_runs() -> None:
    """``offer`` chooses the declarations of each request; a declared tool it left out runs."""
    tools = ToolSet()

    @tools.tool
    def alpha() -> dict[str, Any]:
        """Alpha."""
        return {"a": 1}

    @tools.tool
    def beta() -> dict[str, Any]:
        """Beta."""
        return {"b": 2}

    seen: list[int] = []

    def offer(messages: Sequence[Message]) -> list[str]:
        seen.append(len(messages))
        return ["alpha"]

    model = ScriptedModel([turn(call("beta")), turn("done")])
    result = Agent(model=model, tools=tools, offer=offer).run_turn_sync("go")
    assert [tuple(s.name for s in r.tools) for r in model.requests] == [("alpha",), ("alpha",)]
    assert seen == [1, 3]  # the user message; then its response and results
    assert result.calls[0].outcome == Ok({"b": 2})


def test_a_request_carries_whole_earlier_turns_in_a_window_that_moves_in_steps() -> None:
    """``history_turns=2``: two to three earlier turns, the first moving two at a time; each
    turn here runs a call, whose results stay with it; the offer sees what is sent."""
    tools = ToolSet()

    @tools.tool
    def look() -> dict[str, Any]:
        """Look."""
        return {"seen": True}

    offered: list[list[str]] = []

    def said(messages: Sequence[Message]) -> list[str]:
        return [m.text for m in messages if isinstance(m, UserMessage)]

    def offer(messages: Sequence[Message]) -> list[str]:
        offered.append(said(messages))
        return ["look"]

    def answer(request: ModelRequest) -> AssistantMessage:
        last = request.messages[-1]
        return turn("done") if isinstance(last, ToolResultsMessage) else turn(call("look"))

    model = FunctionModel(answer)
    agent = Agent(model=model, tools=tools, offer=offer, history_turns=2)
    for number in range(7):
        agent.run_turn_sync(f"m{number}", conversation_id="c")
    sent = [said(r.messages) for r in model.requests[::2]]  # a turn's first request
    assert sent == [
        ["m0"],
        ["m0", "m1"],
        ["m0", "m1", "m2"],
        ["m0", "m1", "m2", "m3"],
        ["m2", "m3", "m4"],
        ["m2", "m3", "m4", "m5"],
        ["m4", "m5", "m6"],
    ]
    assert [said(r.messages) for r in model.requests[1::2]] == sent  # and its second
    assert offered == [said(r.messages) for r in model.requests]
    for request in model.requests:
        assert isinstance(request.messages[0], UserMessage)
        calls = [m for m in request.messages if isinstance(m, AssistantMessage) and m.tool_calls]
        answered = [m for m in request.messages if isinstance(m, ToolResultsMessage)]
        assert len(calls) == len(answered)
    assert len(agent.journal.load("c")) == 7 * 4  # the journal keeps everything


def test_without_a_window_a_request_carries_the_whole_conversation() -> None:
    model = ScriptedModel([turn(f"a{n}") for n in range(5)])
    agent = Agent(model=model, tools=ToolSet())
    for number in range(5):
        agent.run_turn_sync(f"m{number}", conversation_id="c")
    assert [len(r.messages) for r in model.requests] == [1, 3, 5, 7, 9]


@pytest.mark.parametrize("turns", [0, -1])
def test_a_window_of_no_turns_is_refused(turns: int) -> None:
    with pytest.raises(ConfigurationError, match="history_turns"):
        Agent(model=ScriptedModel([]), tools=ToolSet(), history_turns=turns)
