"""Typed final output: ``Agent(output_type=...)`` asks for the schema (natively where the API
can), validates the final answer, sends a bad one back for correction within a bound, then
ends with a marked failure; the value is ``TurnResult.output``, on all four APIs."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from surefoot import Agent, ConfigurationError, ModelRequest, SqlJournal, ToolSet, open_database
from surefoot.messages import HarnessNote, UserMessage
from surefoot.providers import anthropic, google_interactions, openai_chat, openai_responses
from surefoot.testing import FunctionModel, ScriptedModel, call, turn

sys.path.insert(0, str(Path(__file__).parent / "providers"))

from test_adapter_contract import ADAPTERS, Adapter, bodies, run  # the four adapters' harness


class Weight(BaseModel):
    """The answer a program wants: a date and a weight."""

    date: str
    weight_kg: float


def _tools() -> ToolSet:
    tools = ToolSet()

    @tools.tool
    def read_weight(date: str) -> dict[str, Any]:
        """Read the weight of a date."""
        return {"date": date, "weight_kg": 76.0}

    return tools


GOOD = '{"date": "2020-01-01", "weight_kg": 76.0}'


def _turn(agent: Agent) -> Any:
    return asyncio.run(agent.run_turn("What did I weigh on 2020-01-01?"))


def test_a_valid_final_answer_is_the_typed_output() -> None:
    """The final JSON validates: ``output`` is the model's instance; the request carried the
    schema and the system prompt states it."""
    model = ScriptedModel([turn(call("read_weight", {"date": "2020-01-01"})), turn(GOOD)])
    result = _turn(Agent(model=model, tools=_tools(), output_type=Weight, system="Be brief."))
    assert result.output == Weight(date="2020-01-01", weight_kg=76.0)
    assert result.stop_reason == "completed"
    request = model.requests[0]
    assert request.output_schema == Weight.model_json_schema()
    assert request.system is not None
    assert request.system.startswith("Be brief.\n\n")
    assert '"weight_kg"' in request.system


def test_a_fenced_json_answer_is_accepted() -> None:
    """A model that wraps its JSON in a ```json fence still gives a valid output."""
    model = ScriptedModel([turn(f"```json\n{GOOD}\n```")])
    assert _turn(Agent(model=model, tools=_tools(), output_type=Weight)).output is not None


def test_a_bad_answer_is_sent_back_with_what_is_wrong_then_corrected() -> None:
    """A wrong type is named in a note to the model (in the agent's language); the corrected
    answer is the output."""
    model = ScriptedModel([turn('{"date": "2020-01-01", "weight_kg": "heavy"}'), turn(GOOD)])
    result = _turn(Agent(model=model, tools=_tools(), output_type=Weight, lang="es"))
    assert result.output == Weight(date="2020-01-01", weight_kg=76.0)
    (note,) = [m for m in model.requests[1].messages if isinstance(m, HarnessNote)]
    assert note.reason == "invalid_output"
    assert "weight_kg" in note.text
    assert "no tiene la forma pedida" in note.text


def test_answers_that_never_validate_end_with_a_marked_failure() -> None:
    """Past ``output_retries`` the turn ends ``invalid_output``, written by the harness, and
    ``output`` is None."""
    model = ScriptedModel([turn("76 kg"), turn("it was 76"), turn("{}")])
    agent = Agent(model=model, tools=_tools(), output_type=Weight, output_retries=2)
    result = _turn(agent)
    assert (result.stop_reason, result.reply_author) == ("invalid_output", "harness")
    assert result.output is None
    assert result.model_requests == 3
    assert "2 corrections" in result.reply


def test_without_an_output_type_nothing_changes() -> None:
    """No output type: no schema in the request, any text is the answer, no output."""
    model = ScriptedModel([turn("76 kg")])
    result = _turn(Agent(model=model, tools=_tools()))
    assert (result.reply, result.output) == ("76 kg", None)
    assert model.requests[0].output_schema is None


@dataclass
class Reading:
    """A dataclass output."""

    weight_kg: float


class Summary(TypedDict):
    """A TypedDict output."""

    text: str


@pytest.mark.parametrize(
    ("output_type", "answer", "expected"),
    [(Reading, '{"weight_kg": 76}', Reading(76.0)), (Summary, '{"text": "ok"}', {"text": "ok"})],
)
def test_dataclass_and_typeddict_outputs(output_type: Any, answer: str, expected: Any) -> None:
    """A dataclass or a TypedDict is an output type too."""
    model = ScriptedModel([turn(answer)])
    assert _turn(Agent(model=model, tools=_tools(), output_type=output_type)).output == expected


@pytest.mark.parametrize("output_type", [int, list[str], str])
def test_an_output_type_that_is_not_an_object_is_refused(output_type: Any) -> None:
    """Every API's structured output is an object: anything else is a configuration error."""
    with pytest.raises(ConfigurationError, match="JSON object"):
        Agent(model=ScriptedModel([]), tools=_tools(), output_type=output_type)


def test_a_resumed_turn_counts_the_corrections_already_made(tmp_path: Path) -> None:
    """The notes are journaled: killed while asking for the correction, the resumed turn
    knows its one correction is used, so the next bad answer ends it."""
    db = open_database(str(tmp_path / "t.db"))

    class Crash(BaseException):
        """The process dies."""

    asked: list[ModelRequest] = []

    def answer_then_die(request: ModelRequest) -> Any:
        asked.append(request)
        if len(asked) > 1:
            raise Crash
        return turn("no")

    agent = Agent(
        model=FunctionModel(answer_then_die),
        tools=_tools(),
        output_type=Weight,
        output_retries=1,
        journal=SqlJournal(db),
    )
    with pytest.raises(Crash):
        asyncio.run(agent.run_turn("weight?", conversation_id="c1"))
    again = Agent(
        model=FunctionModel(lambda request: turn("still no")),
        tools=_tools(),
        output_type=Weight,
        output_retries=1,
        journal=SqlJournal(db),
    )
    result = asyncio.run(again.resume("c1"))
    assert (result.stop_reason, result.model_requests) == ("invalid_output", 1)
    db.close()


# -- native structured outputs, per API ------------------------------------------------------

SCHEMA = Weight.model_json_schema()
REQUEST = ModelRequest(messages=(UserMessage("hi"),), output_schema=SCHEMA)


def test_each_api_is_asked_natively_in_its_own_shape() -> None:
    """Anthropic ``output_config``, Responses ``text.format``, Google ``response_format``, and
    OpenAI's own chat endpoint ``response_format`` (local servers: the prompt alone)."""
    body = anthropic.build_request(REQUEST, model="m", max_tokens=10)
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    body = openai_responses.build_request(REQUEST, model="m", max_tokens=10)
    assert body["text"] == {
        "format": {"type": "json_schema", "name": "final_answer", "schema": SCHEMA, "strict": False}
    }
    body = google_interactions.build_request(REQUEST, model="m", max_tokens=10)
    assert body["response_mime_type"] == "application/json"
    assert body["response_format"] == {
        "type": "text",
        "mime_type": "application/json",
        "schema": SCHEMA,
    }
    hosted = openai_chat.build_request(
        REQUEST, model="m", max_tokens=10, limit_parameter="max_completion_tokens"
    )
    assert hosted["response_format"]["json_schema"]["schema"] == SCHEMA
    local = openai_chat.build_request(REQUEST, model="m", max_tokens=10)
    assert "response_format" not in local


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_typed_output_over_each_api_through_its_fake_server(name: str) -> None:
    """Through the official SDK and the strict fake server: a tool round, a bad answer sent
    back, then a valid one that is the output."""
    adapter: Adapter = ADAPTERS[name]
    script = [
        turn(call("read_weight", {"date": "2020-01-01"}, call_id="c1")),
        turn('{"date": 1}'),
        turn(GOOD),
    ]
    with adapter.fake(script) as server:
        agent = Agent(model=adapter.model(server), tools=_tools(), output_type=Weight)
        result = run(agent.run_turn("What did I weigh?"))
        server.assert_consumed()
        sent = bodies(server)
    assert result.output == Weight(date="2020-01-01", weight_kg=76.0)
    assert len(sent) == 3
    assert "Your final answer does not have the form" in json.dumps(sent[2])
