"""What a real small model showed and scripted ones never did: it repeats a write that
already succeeded round after round, ends with an empty answer, and the harness's own reply
must then say what the turn did; token usage is reported per request and summed, and a
budget ends a turn."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from surefoot import (
    Agent,
    ConfigurationError,
    ErrorCode,
    ModelResponse,
    Ok,
    ProviderError,
    Recovery,
    SqlJournal,
    SqlLedger,
    ToolError,
    ToolSet,
    TurnResult,
    open_database,
)
from surefoot.messages import AssistantMessage, HarnessNote, TextPart
from surefoot.outcome import to_wire
from surefoot.sql import Database
from surefoot.testing import FunctionModel, ScriptedModel, call, turn

WEIGHT = {"date": "2026-12-03", "weight_kg": 77.4}


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    """A database (SQLite file or PostgreSQL schema), closed after the test."""
    database = open_database(db_url)
    yield database
    database.close()


def _weights(runs: list[dict[str, Any]], *, repeatable: bool = False) -> ToolSet:
    tools = ToolSet()

    @tools.tool(effect="write", repeatable=repeatable)
    def add_weight(date: str, weight_kg: float) -> dict[str, Any]:
        """Append a weight (not idempotent: each run adds a row)."""
        runs.append({"date": date, "weight_kg": weight_kg})
        return {"date": date, "weight_kg": weight_kg, "row": len(runs)}

    @tools.tool
    def read_weight(date: str) -> dict[str, Any]:
        """Read a weight."""
        return {"date": date, "weight_kg": 77.4}

    return tools


def _repeating(times: int, *, end: str = "Saved.") -> ScriptedModel:
    return ScriptedModel([*(turn(call("add_weight", WEIGHT)) for _ in range(times)), turn(end)])


def _run(agent: Agent, text: str = "Save my weight today: 77.4 kg", **kw: Any) -> TurnResult:
    result: TurnResult = asyncio.run(agent.run_turn(text, **kw))
    return result


# -- the repeat rule ------------------------------------------------------------------------


def test_a_write_repeated_in_the_next_round_does_not_run_and_says_already_done() -> None:
    """Ok, then the identical call again: not run, ``already_done`` with the first result."""
    runs: list[dict[str, Any]] = []
    result = _run(Agent(model=_repeating(2), tools=_weights(runs)))
    assert len(runs) == 1
    first, second = result.calls
    assert isinstance(first.outcome, Ok)
    assert first.executed
    error = second.outcome
    assert isinstance(error, ToolError)
    assert not second.executed
    assert second.key is None
    assert (error.code, error.recovery) == (ErrorCode.ALREADY_DONE, Recovery.CHOOSE_ALTERNATIVE)
    assert error.result == first.outcome.data
    assert "saved add_weight (date 2026-12-03, weight_kg 77.4, row 1)" in error.message
    assert to_wire(error)["result"] == {"date": "2026-12-03", "weight_kg": 77.4, "row": 1}
    assert result.stop_reason == "completed"
    assert result.reply == "Saved."


def test_a_further_repeat_ends_the_turn_and_the_reply_lists_the_saved_write() -> None:
    """The model asks a third time: the turn stops (the convergence guard), one write ran, and
    the harness's reply says what was saved."""
    runs: list[dict[str, Any]] = []
    model = _repeating(10)
    result = _run(Agent(model=model, tools=_weights(runs)))
    assert len(runs) == 1
    assert result.stop_reason == "stop_turn"
    assert result.reply_author == "harness"
    assert len(model.requests) == 3  # nothing after the stop
    last = result.calls[-1].outcome
    assert isinstance(last, ToolError)
    assert last.code == "already_done"
    assert last.recovery is Recovery.STOP_TURN
    assert "In this turn:" in result.reply
    assert "saved: add_weight (date 2026-12-03, weight_kg 77.4, row 1)" in result.reply


def test_identical_calls_in_one_response_each_run() -> None:
    """Two identical calls in one response are two writes, on purpose (two identical sets)."""
    runs: list[dict[str, Any]] = []
    model = ScriptedModel(
        [turn(call("add_weight", WEIGHT), call("add_weight", WEIGHT)), turn("ok")]
    )
    result = _run(Agent(model=model, tools=_weights(runs)))
    assert len(runs) == 2
    assert [r.executed for r in result.calls] == [True, True]
    assert len({r.key for r in result.calls}) == 2


def test_a_repeatable_tool_runs_again_in_a_later_round() -> None:
    """A tool declared ``repeatable`` opts out: each round's identical call runs."""
    runs: list[dict[str, Any]] = []
    _run(Agent(model=_repeating(3), tools=_weights(runs, repeatable=True)))
    assert len(runs) == 3


def test_another_write_in_between_makes_the_repeat_run() -> None:
    """Write A, write B, write A again: the data may have changed, so the second A runs."""
    runs: list[dict[str, Any]] = []
    other = {"date": "2026-12-02", "weight_kg": 78.0}
    model = ScriptedModel(
        [
            turn(call("add_weight", WEIGHT)),
            turn(call("add_weight", other)),
            turn(call("add_weight", WEIGHT)),
            turn("done"),
        ]
    )
    result = _run(Agent(model=model, tools=_weights(runs)))
    assert len(runs) == 3
    assert all(isinstance(r.outcome, Ok) for r in result.calls)


def test_a_read_between_repeats_does_not_make_the_write_run_again() -> None:
    """Only a write changes the data: a read in between leaves the repeat ``already_done``."""
    runs: list[dict[str, Any]] = []
    model = ScriptedModel(
        [
            turn(call("add_weight", WEIGHT)),
            turn(call("read_weight", {"date": "2026-12-03"})),
            turn(call("add_weight", WEIGHT)),
            turn("done"),
        ]
    )
    result = _run(Agent(model=model, tools=_weights(runs)))
    assert len(runs) == 1
    assert isinstance(result.calls[-1].outcome, ToolError)


def test_the_rule_is_per_turn() -> None:
    """The same write in the next user turn is a new request of the person: it runs."""
    runs: list[dict[str, Any]] = []
    model = ScriptedModel([turn(call("add_weight", WEIGHT)), turn("ok")] * 2)
    agent = Agent(model=model, tools=_weights(runs))
    first = _run(agent)
    _run(agent, conversation_id=first.conversation_id)
    assert len(runs) == 2


def test_a_resumed_turn_keeps_the_rule(db: Database) -> None:
    """The process dies in round two, before its repeated write runs: the resumed turn
    rebuilds the rule from the journal's rounds and answers ``already_done``, never a second
    run (the key stays unminted, as in the live run)."""
    runs: list[dict[str, Any]] = []
    tools = _weights(runs)
    crash = {"armed": True}

    class Crash(BaseException):
        """The process dies."""

    @tools.tool
    def check(date: str) -> dict[str, Any]:
        """A read that kills the process the first time."""
        if crash["armed"]:
            crash["armed"] = False
            raise Crash
        return {"date": date}

    script = [
        turn(call("add_weight", WEIGHT)),
        turn(call("check", {"date": "d"}), call("add_weight", WEIGHT)),
        turn("done"),
    ]

    def agent(model: Any) -> Agent:
        return Agent(model=model, tools=tools, ledger=SqlLedger(db), journal=SqlJournal(db))

    with pytest.raises(Crash):
        _run(agent(ScriptedModel(script[:2])), conversation_id="c1")
    assert len(runs) == 1
    result = asyncio.run(agent(ScriptedModel(script[2:])).resume("c1"))
    assert len(runs) == 1
    repeat = result.calls[-1]
    assert isinstance(repeat.outcome, ToolError)
    assert repeat.outcome.code == "already_done"
    assert repeat.key is None
    assert result.reply == "done"
    assert len(SqlLedger(db).entries()) == 1


# -- an empty answer ------------------------------------------------------------------------


def test_an_empty_answer_is_asked_again_once_with_a_note() -> None:
    """An empty end of turn is not a completed answer: the model is asked once more, and the
    request carries the harness's note; its second answer is the reply."""
    model = ScriptedModel([turn(""), turn("Your weight is 77.4 kg.")])
    result = _run(Agent(model=model, tools=_weights([])))
    assert (result.stop_reason, result.reply_author) == ("completed", "model")
    assert result.reply == "Your weight is 77.4 kg."
    notes = [m for m in model.requests[1].messages if isinstance(m, HarnessNote)]
    assert len(notes) == 1
    assert "empty" in notes[0].text
    assert not any(isinstance(m, HarnessNote) for m in model.requests[0].messages)


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("es", ("estaba vacía", "guardado: add_weight (date 2026-12-03", "ya ocurrió")),
        ("pt", ("estava vazia", "salvo: add_weight (date 2026-12-03", "já aconteceu")),
        ("en", ("was empty", "saved: add_weight (date 2026-12-03", "already happened")),
    ],
)
def test_an_empty_answer_after_a_write_is_asked_again_with_what_was_done(
    lang: str, words: tuple[str, ...]
) -> None:
    """A small model that saved, then answered nothing, was asked "what was done in this
    turn" and said it had no information: the note now lists the turn's writes, in the
    turn's language, for the answer to tell."""
    model = ScriptedModel([turn(call("add_weight", WEIGHT)), turn(""), turn("Guardado.")])
    result = _run(Agent(model=model, tools=_weights([]), lang=lang))  # type: ignore[arg-type]
    assert (result.stop_reason, result.reply) == ("completed", "Guardado.")
    notes = [m for m in model.requests[2].messages if isinstance(m, HarnessNote)]
    assert len(notes) == 1
    for word in words:
        assert word in notes[0].text.lower()
    assert "{" not in notes[0].text


def test_an_empty_answer_after_a_read_only_turn_gets_the_plain_note() -> None:
    """Reads are not listed: the note is the plain one."""
    model = ScriptedModel([turn(call("read_weight", {"date": "2026-12-03"})), turn(""), turn("Ok")])
    _run(Agent(model=model, tools=_weights([]), lang="en"))
    notes = [m for m in model.requests[2].messages if isinstance(m, HarnessNote)]
    assert [n.text.split(".")[0] for n in notes] == ["Your last answer was empty"]
    assert "already happened" not in notes[0].text


def test_two_empty_answers_end_with_the_harness_reply_listing_the_write() -> None:
    """Write, then blank, then blank again: the harness answers and says what was saved."""
    runs: list[dict[str, Any]] = []
    model = ScriptedModel([turn(call("add_weight", WEIGHT)), turn("\n"), turn("  ")])
    result = _run(Agent(model=model, tools=_weights(runs), lang="es"))
    assert (result.stop_reason, result.reply_author) == ("empty_answer", "harness")
    assert result.model_requests == 3
    assert "El modelo no ha dado ninguna respuesta" in result.reply
    assert "guardado: add_weight (date 2026-12-03, weight_kg 77.4, row 1)" in result.reply


def test_an_empty_answer_with_nothing_done_says_so_in_every_language() -> None:
    """No write in the turn: the harness's reply says only that the model gave no answer."""
    for lang, words in (
        ("es", "ninguna respuesta"),
        ("pt", "nenhuma resposta"),
        ("en", "no answer"),
    ):
        model = ScriptedModel([turn(""), turn("")])
        result = _run(Agent(model=model, tools=_weights([]), lang=lang))  # type: ignore[arg-type]
        assert result.stop_reason == "empty_answer"
        assert words in result.reply
        assert "\n\n" not in result.reply


def test_a_resumed_turn_does_not_ask_again_twice(db: Database) -> None:
    """The note is journaled: after a crash on the re-ask, the resumed turn knows it already
    asked once, so one more empty answer ends the turn."""

    class Crash(BaseException):
        pass

    asked = {"n": 0}

    def plan(request: Any) -> AssistantMessage:
        asked["n"] += 1
        if asked["n"] == 2:
            raise Crash
        return turn("")

    def agent() -> Agent:
        return Agent(
            model=FunctionModel(plan),
            tools=_weights([]),
            ledger=SqlLedger(db),
            journal=SqlJournal(db),
        )

    with pytest.raises(Crash):
        _run(agent(), conversation_id="c1")
    first = agent()
    assert isinstance(first.journal.load("c1")[-1], HarnessNote)
    result = asyncio.run(first.resume("c1"))
    assert result.stop_reason == "empty_answer"
    assert result.model_requests == 1


# -- the harness's reply says what the turn did -----------------------------------------


def test_a_round_limit_reply_lists_the_saved_writes() -> None:
    """The round limit after a write: the reply names the write and its saved value."""
    runs: list[dict[str, Any]] = []
    model = ScriptedModel(
        [turn(call("add_weight", WEIGHT)), turn(call("read_weight", {"date": "x"})), turn("late")]
    )
    result = _run(Agent(model=model, tools=_weights(runs), max_rounds=1))
    assert result.stop_reason == "round_limit"
    assert "saved: add_weight (date 2026-12-03, weight_kg 77.4, row 1)" in result.reply


def test_a_provider_failure_after_a_write_lists_it_with_the_tools_description() -> None:
    """The provider fails after a write: the reply says what was saved, worded by the tool's
    ``describe``, in the turn's language."""
    tools = ToolSet()

    def weight_words(data: dict[str, Any], lang: str) -> str:
        return {"en": f"weight {data['weight_kg']} kg", "es": f"peso {data['weight_kg']} kg"}[lang]

    @tools.tool(effect="write", idempotent=True, describe=weight_words)
    def save_weight(weight_kg: float) -> dict[str, Any]:
        """Save today's weight."""
        return {"weight_kg": weight_kg}

    def plan(request: Any) -> AssistantMessage:
        if len(request.messages) > 1:
            raise ProviderError(provider="fake", status=500, kind="server", safe_message="it broke")
        return turn(call("save_weight", {"weight_kg": 77.4}))

    result = _run(Agent(model=FunctionModel(plan), tools=tools, lang="es"))
    assert result.stop_reason == "provider_error"
    assert "En este turno:\n• guardado: peso 77.4 kg" in result.reply


def test_a_describe_that_fails_falls_back_to_the_plain_words() -> None:
    """A tool's ``describe`` that raises never breaks the reply."""
    tools = ToolSet()

    def broken(data: dict[str, Any], lang: str) -> str:
        raise KeyError("nope")

    @tools.tool(effect="write", describe=broken)
    def save(value: int) -> dict[str, Any]:
        """Save a value."""
        return {"value": value}

    model = ScriptedModel([turn(call("save", {"value": 3})), turn(""), turn("")])
    result = _run(Agent(model=model, tools=tools))
    assert "saved: save (value 3)" in result.reply


def test_repeatable_only_applies_to_writes() -> None:
    """``repeatable`` on a read is a declaration mistake."""
    tools = ToolSet()
    with pytest.raises(ConfigurationError):

        @tools.tool(repeatable=True)
        def look() -> dict[str, Any]:
            """Look."""
            return {}


# -- usage and the token budget ----------------------------------------------------------


class _Counting:
    """A model that reports fixed usage per request (cached input included)."""

    provider, model_name = "fake", "counting"

    def __init__(self, script: list[AssistantMessage]) -> None:
        self.script = list(script)

    async def request(self, request: Any) -> ModelResponse:
        usage = {"input_tokens": 100, "cache_read_input_tokens": 40, "output_tokens": 10}
        return ModelResponse(self.script.pop(0), usage)

    def stream(self, request: Any) -> Any:
        raise NotImplementedError  # this test double only answers whole responses


def test_turn_usage_is_per_request_and_summed() -> None:
    """Two requests: input counts cached tokens once, output summed, each request kept."""
    model = _Counting([turn(call("read_weight", {"date": "d"})), turn("ok")])
    result = _run(Agent(model=model, tools=_weights([])))  # type: ignore[arg-type]
    usage = result.usage
    assert (usage.input_tokens, usage.cached_input_tokens, usage.output_tokens) == (280, 80, 20)
    assert usage.total_tokens == 300
    assert len(usage.requests) == 2


def test_a_token_budget_ends_the_turn_with_its_own_reason() -> None:
    """Over ``max_tokens_per_turn``: the calls asked for run, the model is not asked again."""
    runs: list[dict[str, Any]] = []
    model = _Counting([turn(call("add_weight", WEIGHT)), turn("never")])
    agent = Agent(model=model, tools=_weights(runs), max_tokens_per_turn=100)  # type: ignore[arg-type]
    result = _run(agent)
    assert (result.stop_reason, result.reply_author, result.model_requests) == (
        "token_budget",
        "harness",
        1,
    )
    assert len(runs) == 1
    assert "100 tokens" in result.reply
    assert "saved: add_weight" in result.reply
    assert len(model.script) == 1


def test_a_non_positive_budget_is_refused() -> None:
    """``max_tokens_per_turn=0`` is a configuration mistake."""
    with pytest.raises(ConfigurationError):
        Agent(model=ScriptedModel([]), tools=ToolSet(), max_tokens_per_turn=0)


def test_text_part_with_only_blanks_is_empty() -> None:
    """A response of one whitespace text part is an empty answer too."""
    message = AssistantMessage(parts=(TextPart(" \n"),))
    model = ScriptedModel([message, turn("fine")])
    result = _run(Agent(model=model, tools=ToolSet()))
    assert result.reply == "fine"
    assert result.model_requests == 2


def test_a_read_that_failed_runs_again_after_a_write_changed_the_data() -> None:
    """read → not_found, the write saves it, the same read again: it runs and finds it (the
    guard forgets failures against the data once a write succeeded); a malformed call stays
    refused."""
    saved: dict[str, float] = {}
    tools = ToolSet()

    @tools.tool
    def look(date: str) -> dict[str, Any] | ToolError:
        """Look a date up."""
        if date not in saved:
            return ToolError("not_found", "Nothing on that date.", Recovery.CHOOSE_ALTERNATIVE)
        return {"date": date, "weight_kg": saved[date]}

    @tools.tool(effect="write")
    def save(date: str, weight_kg: float) -> dict[str, Any]:
        """Save a weight."""
        saved[date] = weight_kg
        return {"date": date, "weight_kg": weight_kg}

    model = ScriptedModel(
        [
            turn(call("look", {"date": "d"}), call("look", {"day": "d"})),
            turn(call("save", {"date": "d", "weight_kg": 70.0})),
            turn(call("look", {"date": "d"}), call("look", {"day": "d"})),
            turn("found"),
        ]
    )
    result = _run(Agent(model=model, tools=tools))
    third, fourth = result.calls[3], result.calls[4]
    assert third.executed
    assert third.outcome == Ok({"date": "d", "weight_kg": 70.0})
    assert isinstance(fourth.outcome, ToolError)
    assert fourth.outcome.code == "invalid_arguments"
    assert not fourth.executed
    assert "already failed" in fourth.outcome.message  # the guard still knows this one
