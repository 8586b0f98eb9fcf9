"""Grounding: a write's declared arguments must come from the person's own words.

The words are the journal's user messages, so the checks hold on every adapter and on
resume; a relative date counts from the day its message was said (the Agent's clock when it
was journaled). Each case runs real turns of an ``Agent``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pytest

from surefoot import (
    Agent,
    CalendarDate,
    ConfigurationError,
    Lang,
    Ok,
    Recovery,
    SqlJournal,
    ToolError,
    ToolSet,
    TurnResult,
    open_database,
)
from surefoot._grounding import Words, absolute_dates, check, quantities, relative_dates
from surefoot.executor import Executor, TurnState
from surefoot.grounding import Grounded
from surefoot.messages import UserMessage
from surefoot.testing import FakeOpenAIChatServer, ScriptedModel, call, turn

TODAY = dt.date(2024, 3, 10)
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, timeout=30))


@dataclass
class Log:
    """A tiny app: measurements and foods, grounded, and one write that does not opt in."""

    saved: list[dict[str, Any]] = field(default_factory=list)

    def tools(self) -> ToolSet:
        tools = ToolSet()

        @tools.tool(
            effect="write",
            grounded={
                "weight_kg": Grounded.number("kg"),
                "waist_cm": Grounded.number("cm"),
                "body_fat_pct": Grounded.number("%"),
                "date": Grounded.date(),
            },
        )
        def write_measurement(
            date: CalendarDate,
            weight_kg: float | None = None,
            waist_cm: float | None = None,
            body_fat_pct: float | None = None,
        ) -> dict[str, Any]:
            """Save measurements of one date."""
            values = {"weight_kg": weight_kg, "waist_cm": waist_cm, "body_fat_pct": body_fat_pct}
            row = {"date": date.isoformat(), **{k: v for k, v in values.items() if v is not None}}
            self.saved.append(row)
            return row

        @tools.tool(effect="write", grounded={"grams": Grounded.number("g")})
        def add_food(food: str, grams: float) -> dict[str, Any]:
            """Log grams of one food."""
            self.saved.append({"food": food, "grams": grams})
            return {"food": food, "grams": grams}

        @tools.tool(effect="write")
        def plain_write(weight_kg: float) -> dict[str, Any]:
            """A write that declares nothing grounded."""
            self.saved.append({"plain": weight_kg})
            return {"plain": weight_kg}

        return tools


def agent_for(
    model: Any, app: Log, *, lang: Lang = "en", journal: SqlJournal | None = None
) -> Agent:
    return Agent(model=model, tools=app.tools(), lang=lang, today=lambda: TODAY, journal=journal)


def one_call(user: str, name: str, arguments: dict[str, Any], *, lang: Lang = "en") -> TurnResult:
    """One turn: the model makes exactly this call, then answers."""
    model = ScriptedModel([turn(call(name, arguments)), turn("Done.")])
    return run(agent_for(model, Log(), lang=lang).run_turn(user))


def outcome_of(result: TurnResult) -> Ok | ToolError:
    (record,) = result.calls
    return record.outcome


def said(texts: list[str], spec: Grounded, value: object) -> str:
    """How grounding sorts ``value`` for ``texts``: said, derived or missing."""
    verdict = check((("x", spec),), {"x": value}, Words.read(texts, TODAY))
    return "missing" if verdict.missing else "derived" if verdict.derived else "said"


# -- reading the person's words ----------------------------------------------------------------


def test_decimal_commas_and_points_read_the_same() -> None:
    """ "77,4", "77.4" and unambiguous thousands groups are numbers; "1,077" is 1.077 only."""
    assert [str(q.value) for q in quantities("peso 77,4 kg, o 77.4 kg")] == ["77.4", "77.4"]
    assert [str(q.value) for q in quantities("1.234.567 g y 1,234.5 lb y 1.234,5 g")] == [
        "1234567",
        "1234.5",
        "1234.5",
    ]
    assert said(["I weigh 1,077 kg"], Grounded.number("kg"), 1077.0) == "missing"
    assert said(["peso 77,4 kg"], Grounded.number("kg"), 77.4) == "said"


def test_units_and_their_spellings_are_read() -> None:
    """kg, kilos, quilos, g, gramos, gramas, lb, libras, cm, %, por ciento and " are units."""
    text = (
        '77 kilos, 78 quilos, 150 gramos, 160 gramas, 170 libras, 82 cm, 18,5 %, 21 por ciento, 32"'
    )
    assert [(str(q.value), q.unit) for q in quantities(text)] == [
        ("77", "kg"),
        ("78", "kg"),
        ("150", "g"),
        ("160", "g"),
        ("170", "lb"),
        ("82", "cm"),
        ("18.5", "%"),
        ("21", "%"),
        ("32", "in"),
    ]


def test_numbers_in_words_are_read_in_es_pt_en() -> None:
    """ "setenta y siete", "setenta e sete", "seventy-seven", "doce" and "cien" are numbers."""
    assert said(["peso setenta y siete kilos"], Grounded.number("kg"), 77) == "said"
    assert said(["peso setenta e sete quilos"], Grounded.number("kg"), 77.0) == "said"
    assert said(["I weigh seventy-seven kg"], Grounded.number("kg"), 77) == "said"
    assert said(["doce gramos"], Grounded.number("g"), 12) == "said"
    assert said(["cien gramos de arroz"], Grounded.number("g"), 100) == "said"
    assert said(["setenta y siete kilos"], Grounded.number("kg"), 70) == "missing"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("setenta y siete con cuatro kg", 77.4),
        ("setenta y ocho coma dos kilos", 78.2),
        ("sesenta y nueve punto cinco kg", 69.5),
        ("setenta e sete vírgula quatro kg", 77.4),
        ("sessenta e nove ponto cinco kg", 69.5),
        ("seventy-seven point four kg", 77.4),
        ("seventy point two five kg", 70.25),
        ("setenta y seis y medio kg", 76.5),
        ("setenta e seis e meio kg", 76.5),
        ("seventy-six and a half kg", 76.5),
    ],
)
def test_decimals_in_words_are_read_whole(text: str, value: float) -> None:
    """A decimal part in words ("coma dos", "vírgula quatro", "point two five", "con cuatro",
    "y medio") belongs to its number: the whole value is said, its parts are not."""
    assert said([text], Grounded.number("kg"), value) == "said"
    assert said([text], Grounded.number("kg"), int(value)) == "missing"


def test_hundreds_in_words_are_read() -> None:
    """ "doscientos", "trezentos", "two hundred and fifty" are numbers."""
    assert said(["doscientos gramos de arroz"], Grounded.number("g"), 200) == "said"
    assert said(["trezentos gramas de arroz"], Grounded.number("g"), 300) == "said"
    assert said(["duzentos e cinquenta gramas"], Grounded.number("g"), 250) == "said"
    assert said(["two hundred and fifty grams"], Grounded.number("g"), 250) == "said"
    assert said(["diez con sesenta kilos"], Grounded.number("kg"), 10.6) == "missing"


def test_relative_and_written_dates_are_read() -> None:
    """hoy/hoje/today, ayer, anteayer, "hace 3 días", "há 2 dias", "3 days ago", a weekday
    (the last one before today), ISO, "30/11" and "30 de noviembre" are dates; the digits of a
    date are no number."""
    assert relative_dates("hoy", TODAY) == {TODAY}
    assert relative_dates("hoje e ontem", TODAY) == {TODAY, dt.date(2024, 3, 9)}
    assert relative_dates("yesterday", TODAY) == {dt.date(2024, 3, 9)}
    assert relative_dates("anteayer", TODAY) == {dt.date(2024, 3, 8)}
    assert relative_dates("hace 3 días", TODAY) == {dt.date(2024, 3, 7)}
    assert relative_dates("há dois dias", TODAY) == {dt.date(2024, 3, 8)}
    assert relative_dates("3 days ago", TODAY) == {dt.date(2024, 3, 7)}
    assert relative_dates("the other day", TODAY) == set()
    assert relative_dates("há uma semana", TODAY) == {dt.date(2024, 3, 3)}
    assert relative_dates("el lunes pasado", TODAY) == {dt.date(2024, 3, 4)}
    assert relative_dates("na sexta-feira", TODAY) == {dt.date(2024, 3, 8)}
    assert relative_dates("last Sunday", TODAY) == {dt.date(2024, 3, 3)}  # TODAY is a Sunday
    assert absolute_dates("el 2024-03-01", TODAY) == {dt.date(2024, 3, 1)}
    assert dt.date(2023, 11, 30) in absolute_dates("el 30/11", TODAY)
    assert absolute_dates("30 de noviembre de 2023", TODAY) == {dt.date(2023, 11, 30)}
    assert absolute_dates("November 30, 2023", TODAY) == {dt.date(2023, 11, 30)}
    assert quantities("77 kg el 2024-03-01") == quantities("77 kg")


# -- through a turn --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("user", "arguments"),
    [
        ("Guarda mi peso: 77,4 kg hoy", {"date": "2024-03-10", "weight_kg": 77.4}),
        ("Save my weight: 77.4 kg on 2024-03-01", {"date": "2024-03-01", "weight_kg": 77.4}),
        ("Ontem: cintura 82 cm", {"date": "2024-03-09", "waist_cm": 82.0}),
        ("grasa 18,5 % el 4 de enero de 2024", {"date": "2024-01-04", "body_fat_pct": 18.5}),
        ("Weight 80 today", {"date": "2024-03-10", "weight_kg": 80}),
    ],
)
def test_a_value_typed_exactly_is_never_blocked(user: str, arguments: dict[str, Any]) -> None:
    """What the person typed (with the tool's unit or none) runs, in any of the languages."""
    outcome = outcome_of(one_call(user, "write_measurement", arguments))
    assert isinstance(outcome, Ok), outcome


def test_every_number_written_either_way_is_said() -> None:
    """Across many values, a number written with a comma or a point, with its unit, is said."""
    for tenths in range(200, 4000, 37):
        value = tenths / 10
        for text in (f"{value} kg", f"{value}".replace(".", ",") + " kg", f"{value}kg"):
            assert said([text], Grounded.number("kg"), value) == "said", text


def test_220_g_for_weight_kg_is_refused_with_the_field_in_details() -> None:
    """ "220 g" is not a weight in kg: not_in_message, choose_alternative, nothing runs."""
    app = Log()
    model = ScriptedModel(
        [
            turn(call("write_measurement", {"date": "2024-03-10", "weight_kg": 220})),
            turn("¿Cuánto pesas?"),
        ]
    )
    result = run(agent_for(model, app, lang="es").run_turn("Hoy he comido 220 g de arroz"))
    outcome = outcome_of(result)
    assert isinstance(outcome, ToolError)
    assert (outcome.code, outcome.recovery) == ("not_in_message", Recovery.CHOOSE_ALTERNATIVE)
    assert "pregúntaselo a la persona" in outcome.message
    (detail,) = outcome.details
    assert detail.field == "weight_kg"
    assert "220 g" in detail.problem
    assert app.saved == []


def test_a_number_not_in_the_message_is_refused() -> None:
    """A weight the person never wrote is not_in_message, its field named."""
    outcome = outcome_of(
        one_call(
            "Save my weight today", "write_measurement", {"date": "2024-03-10", "weight_kg": 76.0}
        )
    )
    assert isinstance(outcome, ToolError)
    assert outcome.code == "not_in_message"
    assert [d.field for d in outcome.details] == ["weight_kg"]


def test_the_other_day_is_not_today() -> None:
    """ "the other day" gives no date: today's date is refused, the date field named."""
    outcome = outcome_of(
        one_call(
            "The other day I weighed 80 kg",
            "write_measurement",
            {"date": "2024-03-10", "weight_kg": 80},
        )
    )
    assert isinstance(outcome, ToolError)
    assert outcome.code == "not_in_message"
    assert [d.field for d in outcome.details] == ["date"]


def test_lb_to_kg_is_asked_about_then_runs_once_confirmed() -> None:
    """170 lb saved as 77.1 kg waits for the person's yes (saying what they wrote), then runs."""
    app = Log()
    arguments = {"date": "2024-03-10", "weight_kg": 77.1}
    model = ScriptedModel([turn(call("write_measurement", arguments)), turn("Saved.")])
    agent = agent_for(model, app)
    paused = run(agent.run_turn("I weigh 170 lb today"))
    assert paused.stop_reason == "awaiting_confirmation"
    assert "170 lb" in paused.reply
    assert "weight_kg = 77.1" in paused.reply
    assert app.saved == []
    pending = paused.pending_confirmation
    assert pending is not None
    assert pending.arguments == arguments
    assert agent.decide(pending.conversation_id, pending.id, approved=True)
    done = run(agent.resume(pending.conversation_id))
    assert done.reply == "Saved."
    assert app.saved == [{"date": "2024-03-10", "weight_kg": 77.1}]


def test_a_declined_conversion_tells_the_model_to_ask() -> None:
    """A conversion the person declines is denied, with a message about the worked-out value."""
    app = Log()
    model = ScriptedModel([turn(call("add_food", {"food": "rice", "grams": 300})), turn("OK.")])
    agent = agent_for(model, app, lang="pt")
    paused = run(agent.run_turn("Comi 2x150 g de arroz"))
    pending = paused.pending_confirmation
    assert pending is not None
    assert "2x150 g" in paused.reply
    agent.decide(pending.conversation_id, pending.id, approved=False)
    done = run(agent.resume(pending.conversation_id))
    denied = done.calls[-1].outcome
    assert isinstance(denied, ToolError)
    assert denied.code == "denied"
    assert "valor calculado" in denied.message
    assert app.saved == []


def test_a_tool_that_does_not_opt_in_is_unaffected() -> None:
    """The same 220 that grounding refuses for kg runs in a write that declares nothing."""
    outcome = outcome_of(
        one_call("Hoy he comido 220 g de arroz", "plain_write", {"weight_kg": 220})
    )
    assert isinstance(outcome, Ok)


def test_an_executor_without_user_texts_checks_nothing() -> None:
    """No conversation known (an MCP server, an executor alone): a grounded write just runs."""
    app = Log()
    executor = Executor(app.tools())
    state = TurnState("c_alone", 0)
    batch = run(executor.run_batch([call("add_food", {"food": "rice", "grams": 999})], state))
    assert isinstance(batch.records[0].outcome, Ok)


YESTERDAY = dt.date(2024, 3, 9)


def test_an_earlier_turns_relative_date_grounds_the_day_it_meant() -> None:
    """A number said in an earlier turn grounds "save it", and so does that turn's "hoy",
    counted from the day it was said: the same day, today's date runs."""
    app = Log()
    model = ScriptedModel(
        [
            turn("¿Anoto tu peso?"),
            turn(call("write_measurement", {"date": "2024-03-10", "weight_kg": 80})),
            turn("Guardado."),
        ]
    )
    agent = agent_for(model, app, lang="es")
    first = run(agent.run_turn("hoy peso 80 kg"))
    second = run(agent.run_turn("guárdalo", conversation_id=first.conversation_id))
    assert isinstance(outcome_of(second), Ok)
    assert app.saved == [{"date": "2024-03-10", "weight_kg": 80}]


def test_a_hoy_said_the_day_before_grounds_that_day_not_today() -> None:
    """ "hoy" said on 9 March and "guárdalo" on the 10th: the 10th was never said (what a
    model counting from today would write) and is refused, a number never said is refused,
    and the 9th runs."""
    app = Log()
    days = iter([YESTERDAY, TODAY])
    model = ScriptedModel(
        [
            turn("¿Anoto tu peso?"),
            turn(call("write_measurement", {"date": "2024-03-10", "weight_kg": 80})),
            turn(call("write_measurement", {"date": "2024-03-09", "weight_kg": 81})),
            turn(call("write_measurement", {"date": "2024-03-09", "weight_kg": 80})),
            turn("Guardado."),
        ]
    )
    agent = Agent(model=model, tools=app.tools(), lang="es", today=lambda: next(days))
    first = run(agent.run_turn("hoy peso 80 kg"))
    second = run(agent.run_turn("guárdalo", conversation_id=first.conversation_id))
    today, unsaid, meant = (record.outcome for record in second.calls)
    assert isinstance(today, ToolError)
    assert (today.code, [d.field for d in today.details]) == ("not_in_message", ["date"])
    assert isinstance(unsaid, ToolError)
    assert (unsaid.code, [d.field for d in unsaid.details]) == ("not_in_message", ["weight_kg"])
    assert isinstance(meant, Ok)
    assert app.saved == [{"date": "2024-03-09", "weight_kg": 80}]


def test_relative_dates_count_from_their_own_messages_day() -> None:
    """Each message's "hoy" is the day it was said; an earlier message whose day is not known
    (journaled before days were kept) grounds no relative date; the current message counts
    from its own day when known (a turn resumed after midnight), else from today."""
    texts = ["hoy peso 80 kg", "guárdalo"]
    assert Words.read(texts, TODAY, (TODAY, TODAY)).dates == {TODAY}
    assert Words.read(texts, TODAY, (YESTERDAY, TODAY)).dates == {YESTERDAY}
    assert Words.read(texts, TODAY, (None, TODAY)).dates == set()
    assert Words.read(texts, TODAY).dates == set()
    assert Words.read(["peso 80 kg ayer"], TODAY, (YESTERDAY,)).dates == {dt.date(2024, 3, 8)}
    assert Words.read(["peso 80 kg ayer"], TODAY).dates == {YESTERDAY}
    said_new_year = Words.read(["peso 80 kg el 30/12"], TODAY, (dt.date(2025, 1, 2),))
    assert said_new_year.dates == {dt.date(2025, 12, 30), dt.date(2024, 12, 30)}


def test_each_user_message_is_journaled_with_the_day_it_was_said(tmp_path: Path) -> None:
    """On a SQLite journal reopened by another Agent, the user messages carry the day of
    their turn: what an earlier "hoy" counts from."""
    path = str(tmp_path / "days.db")
    days = iter([YESTERDAY, TODAY])
    database = open_database(path)
    agent = Agent(
        model=ScriptedModel([turn("Vale."), turn("Vale.")]),
        tools=Log().tools(),
        today=lambda: next(days),
        journal=SqlJournal(database),
    )
    first = run(agent.run_turn("hoy peso 80 kg"))
    run(agent.run_turn("guárdalo", conversation_id=first.conversation_id))
    database.close()
    database = open_database(path)
    try:
        loaded = SqlJournal(database).load(first.conversation_id)
    finally:
        database.close()
    assert [(m.text, m.said_on) for m in loaded if isinstance(m, UserMessage)] == [
        ("hoy peso 80 kg", YESTERDAY),
        ("guárdalo", TODAY),
    ]


def test_a_turn_resumed_the_next_day_reads_hoy_as_the_day_it_was_said(tmp_path: Path) -> None:
    """A conversion waiting for a yes since the 10th, approved and resumed on the 11th: the
    turn's "today" is still the 10th, so the confirmed write runs."""
    path = str(tmp_path / "midnight.db")
    app = Log()
    steps = [
        turn(call("write_measurement", {"date": "2024-03-10", "weight_kg": 77.1})),
        turn("Saved."),
    ]
    database = open_database(path)
    live = agent_for(ScriptedModel(steps), app, journal=SqlJournal(database))
    paused = run(live.run_turn("I weigh 170 lb today"))
    database.close()
    assert paused.stop_reason == "awaiting_confirmation"
    database = open_database(path)
    try:
        later = Agent(
            model=ScriptedModel(steps[1:]),
            tools=app.tools(),
            today=lambda: dt.date(2024, 3, 11),
            journal=SqlJournal(database),
        )
        pending = later.pending_confirmation(paused.conversation_id)
        assert pending is not None
        later.decide(paused.conversation_id, pending.id, approved=True)
        done = run(later.resume(paused.conversation_id))
    finally:
        database.close()
    assert isinstance(done.calls[0].outcome, Ok)
    assert app.saved == [{"date": "2024-03-10", "weight_kg": 77.1}]


def test_a_resume_gives_the_same_answer(tmp_path: Path) -> None:
    """On a SQLite journal, a fresh Agent resuming the turn reads the same words from the
    journal: the conversion still waits for a yes, and the refused call stays refused."""
    path = str(tmp_path / "ground.db")
    app = Log()
    steps = [
        turn(
            call("add_food", {"food": "bread", "grams": 999}, call_id="c1"),
            call("write_measurement", {"date": "2024-03-10", "weight_kg": 77.1}, call_id="c2"),
        ),
        turn("Saved."),
    ]
    database = open_database(path)
    live = agent_for(ScriptedModel(steps), app, journal=SqlJournal(database))
    paused = run(live.run_turn("I weigh 170 lb today"))
    refused = outcome_of_first(paused)
    database.close()
    assert paused.stop_reason == "awaiting_confirmation"
    database = open_database(path)
    resumed_agent = agent_for(ScriptedModel(steps[1:]), app, journal=SqlJournal(database))
    assert resumed_agent.pending_confirmation(paused.conversation_id) is not None
    pending = resumed_agent.pending_confirmation(paused.conversation_id)
    assert pending is not None
    resumed_agent.decide(paused.conversation_id, pending.id, approved=True)
    done = run(resumed_agent.resume(paused.conversation_id))
    database.close()
    again = done.calls[0].outcome
    assert isinstance(refused, ToolError)
    assert isinstance(again, ToolError)
    assert (again.code, again.details) == (refused.code, refused.details)
    assert app.saved == [{"date": "2024-03-10", "weight_kg": 77.1}]


def outcome_of_first(result: TurnResult) -> Ok | ToolError:
    return result.calls[0].outcome


def test_a_fake_provider_server_gets_the_marked_result() -> None:
    """Over the OpenAI Chat wire, the refusal reaches the model as a marked error naming the
    field, and the model's question ends the turn."""
    from surefoot.providers.openai_chat import OpenAIChatModel

    script = [
        turn(call("write_measurement", {"date": "2024-03-10", "weight_kg": 220}, call_id="w1")),
        turn("How much do you weigh?"),
    ]
    app = Log()
    with FakeOpenAIChatServer(script) as server:
        model = OpenAIChatModel(
            "fake-chat", api_key="sk-test", base_url=f"{server.base_url}/v1", max_retries=0
        )
        result = run(agent_for(model, app).run_turn("I ate 220 g of rice today"))
        second = server.bodies[1]
    (tool_message,) = [m for m in second["messages"] if m["role"] == "tool"]
    sent = json.loads(tool_message["content"])
    assert sent["is_error"] is True
    assert sent["error"] == "not_in_message"
    assert sent["details"][0]["field"] == "weight_kg"
    assert result.reply == "How much do you weigh?"
    assert app.saved == []


def test_grounding_is_declared_on_writes_with_their_own_arguments() -> None:
    """A read, an unknown argument or an unknown unit is refused when the tool is declared."""
    tools = ToolSet()

    def read_day(date: CalendarDate) -> dict[str, Any]:
        """Read one day."""
        return {}

    with pytest.raises(ConfigurationError, match="only apply to writes"):
        tools.tool(grounded={"date": Grounded.date()})(read_day)
    with pytest.raises(ConfigurationError, match="not one of its arguments"):
        tools.tool(effect="write", grounded={"day": Grounded.date()})(read_day)
    with pytest.raises(ConfigurationError, match="unknown unit"):
        Grounded.number("stone")
