"""The rest of ``Agent``'s public surface: how it is built, what it says about its
conversations, held leases, resuming on the right model, streams that end early, and turns
resumed from a journal that stopped in an odd place."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from surefoot import (
    Agent,
    ConfigurationError,
    MemoryJournal,
    MemoryLedger,
    ModelRequest,
    ModelResponse,
    Ok,
    Recovery,
    SurefootError,
    ToolError,
    ToolSet,
    TurnResult,
)
from surefoot.journal import ModelRef
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    ResponseDone,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    UserMessage,
    stream_from_request,
)
from surefoot.testing import FunctionModel, ScriptedModel, call, turn, write_transcript


def run(coroutine: Any) -> TurnResult:
    result: TurnResult = asyncio.run(coroutine)
    return result


def tools(log: list[str] | None = None) -> ToolSet:
    """``lookup`` (a read) and ``book`` (a write)."""
    found = log if log is not None else []
    toolset = ToolSet()

    @toolset.tool(effect="read")
    def lookup(day: str) -> dict[str, Any]:
        """Look one day up."""
        found.append(f"lookup {day}")
        return {"day": day, "free": True}

    @toolset.tool(effect="write")
    def book(day: str) -> dict[str, Any]:
        """Book one day."""
        found.append(f"book {day}")
        return {"booked": day}

    return toolset


# -- construction and queries ---------------------------------------------------------------


def test_a_journal_and_ledger_of_different_users_are_refused() -> None:
    """One agent serves one user: a journal of "ana" with a ledger of "bea" is a
    configuration error, before any turn."""
    with pytest.raises(ConfigurationError, match="same user"):
        Agent(
            model=ScriptedModel([]),
            tools=tools(),
            journal=MemoryJournal(user="ana"),
            ledger=MemoryLedger(user="bea"),
        )


def test_queries_about_conversations() -> None:
    """``conversations`` (most recent first), ``exists``, ``turn_model`` and ``run_turn_sync``
    on an agent of its own."""
    model = ScriptedModel([turn("uno"), turn("dos")], model_name="m-1")
    agent = Agent(model=model, tools=tools(), journal=MemoryJournal())
    first = agent.run_turn_sync("hola", conversation_id="c1")
    second = agent.run_turn_sync("hola", conversation_id="c2")
    assert (first.reply, second.reply) == ("uno", "dos")
    assert agent.conversations() == ["c2", "c1"]
    assert agent.exists("c1")
    assert not agent.exists("c3")
    assert agent.turn_model("c1") == ModelRef("scripted", "m-1", None)
    assert agent.turn_model("c3") is None
    assert agent.model_ref == ModelRef("scripted", "m-1", None)


def test_resume_of_a_conversation_that_does_not_exist_is_an_error() -> None:
    """There is nothing to resume: a ``SurefootError`` naming the conversation."""
    agent = Agent(model=ScriptedModel([]), tools=tools())
    with pytest.raises(SurefootError, match="'nope'"):
        run(agent.resume("nope"))


def test_a_held_lease_is_used_and_must_be_for_that_conversation() -> None:
    """A lease taken with ``hold`` runs the turn without taking another one (and stays held
    after it); a lease of another conversation is refused."""
    agent = Agent(model=ScriptedModel([turn("hecho")]), tools=tools())
    with agent.hold("c1") as lease:
        result = run(agent.run_turn("hola", conversation_id="c1", lease=lease))
        assert result.reply == "hecho"
        assert agent.journal.acquire("c1", seconds=5) is None  # still held by us
        with pytest.raises(ConfigurationError, match="another conversation"):
            run(agent.run_turn("hola", conversation_id="c2", lease=lease))
    assert agent.journal.acquire("c1", seconds=5) is not None  # released at the end


def test_a_paused_turn_resumes_only_on_its_own_model() -> None:
    """A turn paused for a confirmation records its model; resuming on another model is
    refused, saying both, and nothing runs."""
    log: list[str] = []
    toolset = ToolSet()

    @toolset.tool(effect="write", confirm=True)
    def cancel(day: str) -> dict[str, Any]:
        """Cancel a booking."""
        log.append(day)
        return {"cancelled": day}

    journal = MemoryJournal()
    first = Agent(
        model=ScriptedModel([turn(call("cancel", {"day": "lunes"}))], model_name="alpha"),
        tools=toolset,
        journal=journal,
    )
    paused = run(first.run_turn("cancela el lunes", conversation_id="c1"))
    assert paused.pending_confirmation is not None
    assert first.decide("c1", paused.pending_confirmation.id, approved=True)
    other = Agent(model=ScriptedModel([], model_name="beta"), tools=toolset, journal=journal)
    with pytest.raises(ConfigurationError) as caught:
        run(other.resume("c1"))
    assert "(alpha)" in str(caught.value)
    assert "(beta)" in str(caught.value)
    assert log == []


# -- streams --------------------------------------------------------------------------------


class CutStream:
    """A model whose stream sends text and then ends without a final response."""

    provider = "cut"
    model_name = "cut-1"

    async def request(self, request: ModelRequest) -> ModelResponse:
        del request
        raise AssertionError("the agent streams")

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        del request
        yield TextDelta("Empiezo a")


def test_a_stream_without_a_final_response_is_a_provider_error() -> None:
    """The deltas already shown are passed on, then the turn ends as ``provider_error``
    (``bad_response``), told by the harness in the agent's language."""
    seen: list[object] = []
    agent = Agent(model=CutStream(), tools=tools(), stream=True, lang="en")
    result = run(agent.run_turn("hola", on_event=seen.append))
    assert (result.stop_reason, result.reply_author) == ("provider_error", "harness")
    assert result.provider_error is not None
    assert (result.provider_error.kind, result.provider_error.provider) == ("bad_response", "cut")
    assert "it returned an unexpected response." in result.reply
    assert seen[0] == TextDelta("Empiezo a")
    assert seen[-1] == HarnessMessage(result.reply, "provider_error")


def test_stream_from_request_gives_the_text_then_the_response() -> None:
    """For a model without native streaming: one delta with the whole text (none when there
    is no text), then the response."""
    model = ScriptedModel([turn("Todo el texto."), turn(call("lookup", {"day": "lunes"}))])

    async def events() -> list[StreamEvent]:
        request = ModelRequest([UserMessage("hola")])
        return [e async for e in stream_from_request(model, request)] + [
            e async for e in stream_from_request(model, request)
        ]

    first, done, only = asyncio.run(events())
    assert first == TextDelta("Todo el texto.")
    assert isinstance(done, ResponseDone)
    assert done.response.message.text == "Todo el texto."
    assert isinstance(only, ResponseDone)
    assert only.response.message.tool_calls[0].name == "lookup"


@pytest.mark.parametrize(
    ("lang", "reply"),
    [
        ("es", "El modelo se ha negado a responder a esta petición."),
        ("pt", "O modelo recusou-se a responder a este pedido."),
        ("en", "The model declined to answer this request."),
    ],
)
def test_a_refusal_without_text_is_told_by_the_agent(lang: Any, reply: str) -> None:
    """An empty refusal ends the turn as ``refusal`` with the harness's text in the agent's
    language (a refusal with text keeps the model's own words)."""
    agent = Agent(
        model=ScriptedModel([turn(finish="refusal"), turn("No puedo.", finish="refusal")]),
        tools=tools(),
        lang=lang,
    )
    empty = run(agent.run_turn("algo"))
    worded = run(agent.run_turn("algo"))
    assert (empty.stop_reason, empty.reply) == ("refusal", reply)
    assert (worded.stop_reason, worded.reply) == ("refusal", "No puedo.")


# -- resuming from the journal --------------------------------------------------------------


def test_a_turn_that_stopped_after_a_pause_goes_on_with_the_next_round() -> None:
    """The journal ends with a ``pause`` response (the process died before asking again):
    resume asks the model once more and finishes the turn; a second resume only reports."""
    journal = MemoryJournal()
    write_transcript(
        journal,
        "c1",
        [UserMessage("piensa"), AssistantMessage((), finish="pause", provider="scripted")],
    )
    model = FunctionModel(lambda request: turn(f"{len(request.messages)} mensajes"))
    agent = Agent(model=model, tools=tools(), journal=journal)
    assert not agent.unfinished("c1")
    result = run(agent.resume("c1"))
    assert (result.stop_reason, result.reply, result.model_requests) == (
        "completed",
        "2 mensajes",
        1,
    )
    again = run(agent.resume("c1"))
    assert (again.stop_reason, again.reply, again.model_requests) == ("completed", "2 mensajes", 0)
    assert len(model.requests) == 1


def test_results_that_stopped_the_turn_without_a_stop_message_end_it_on_resume() -> None:
    """An older journal: the results of a stop_turn error but no harness message after them.
    Resume ends the turn with the stop message (never asking the model) and journals it."""
    journal = MemoryJournal()
    failure = ToolError("outcome_unknown", "No se sabe si se reservó.", Recovery.STOP_TURN)
    booking = call("book", {"day": "lunes"}, call_id="call_b")
    write_transcript(
        journal,
        "c1",
        [
            UserMessage("reserva el lunes"),
            AssistantMessage((booking,), finish="tool_use", provider="scripted"),
            ToolResultsMessage((ToolResult("call_b", "book", failure),)),
        ],
    )
    log: list[str] = []
    model = ScriptedModel([])
    agent = Agent(model=model, tools=tools(log), journal=journal, lang="en", app_name="Agenda")
    result = run(agent.resume("c1"))
    assert (result.stop_reason, result.reply_author) == ("stop_turn", "harness")
    assert result.reply == (
        "Agenda can't confirm whether the action finished, and did not repeat it so as not to "
        "do it twice. Before asking again, check your data to see whether it was done."
        "\n\nIn this turn:\n• not confirmed whether it was saved: book (day lunes)"
    )
    assert model.requests == []
    assert log == []
    assert journal.load("c1")[-1] == HarnessMessage(result.reply, "stop_turn")


def _refusing_words(call: ToolCall, lang: str) -> str:
    raise LookupError(call.name)


@pytest.mark.parametrize(
    ("words", "line"),
    [
        (lambda call, lang: f"the booking for {call.arguments['day']} ({lang})", "the booking"),
        (lambda call, lang: "  ", "book (day lunes)"),
        (_refusing_words, "book (day lunes)"),
    ],
    ids=["its words", "empty words", "failing words"],
)
def test_a_write_that_may_not_have_run_is_listed_in_the_applications_words(
    words: Any, line: str
) -> None:
    """``Agent(call_words=...)``: the harness's reply lists a write that may not have run in
    the application's words for its call; words that say nothing, or fail, leave the tool's
    name and arguments."""
    journal = MemoryJournal()
    failure = ToolError("outcome_unknown", "No se sabe si se reservó.", Recovery.STOP_TURN)
    booking = call("book", {"day": "lunes"}, call_id="call_b")
    write_transcript(
        journal,
        "c1",
        [
            UserMessage("reserva el lunes"),
            AssistantMessage((booking,), finish="tool_use", provider="scripted"),
            ToolResultsMessage((ToolResult("call_b", "book", failure),)),
        ],
    )
    agent = Agent(
        model=ScriptedModel([]), tools=tools(), journal=journal, lang="en", call_words=words
    )
    reply = run(agent.resume("c1")).reply
    listed = reply.rsplit("\n", 1)[-1]
    assert listed.startswith(f"• not confirmed whether it was saved: {line}"), reply
    if line == "the booking":
        assert listed.endswith("the booking for lunes (en)")


def test_a_resumed_turn_runs_the_calls_left_without_results() -> None:
    """The journal ends with a response whose calls have no results (the process died while
    running them): resume runs them and asks the model for the answer."""
    journal = MemoryJournal()
    write_transcript(
        journal,
        "c1",
        [
            UserMessage("¿está libre el martes?"),
            AssistantMessage(
                (call("lookup", {"day": "martes"}, call_id="call_l"),),
                finish="tool_use",
                provider="scripted",
            ),
        ],
    )
    log: list[str] = []
    model = ScriptedModel([turn("Sí, está libre.")])
    agent = Agent(model=model, tools=tools(log), journal=journal)
    assert agent.unfinished("c1")
    assert agent.pending_confirmation("c1") is None  # unfinished, but nobody is asked
    result = run(agent.resume("c1"))
    assert (result.stop_reason, result.reply) == ("completed", "Sí, está libre.")
    assert log == ["lookup martes"]
    sent = model.requests[0].messages[-1]
    assert isinstance(sent, ToolResultsMessage)
    assert sent.results[0].outcome == Ok({"day": "martes", "free": True})
