"""Gymnasia's writes opt into surefoot's grounding: write_measurement and add_meal_food take
their numbers and dates only from the person's words."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Any

from gymnasia.app import open_coach
from gymnasia.offline import OfflineModel
from surefoot import Lang, Ok, ToolError
from surefoot.testing import ScriptedModel, call, turn

TODAY = dt.date(2024, 3, 10)


def test_a_weight_the_person_wrote_in_grams_is_not_saved() -> None:
    """ "220 g de arroz" is no weight: write_measurement(weight_kg=220) is not_in_message."""
    arguments = {"date": "2024-03-10", "weight_kg": 220}
    model = ScriptedModel([turn(call("write_measurement", arguments)), turn("¿Cuánto pesas?")])
    coach = open_coach(db="sqlite:///:memory:", model=model, lang="es", today=TODAY)
    try:
        result = asyncio.run(coach.agent.run_turn("Hoy he comido 220 g de arroz"))
        assert coach.store.read_measurement(TODAY) is None
    finally:
        coach.close()
    outcome = result.calls[0].outcome
    assert isinstance(outcome, ToolError)
    assert outcome.code == "not_in_message"
    assert [d.field for d in outcome.details] == ["weight_kg"]


def test_the_offline_models_lb_conversion_waits_for_the_persons_yes() -> None:
    """The offline model converts 172 lb to 78.02 kg like any model: the write waits for a
    confirmation that names what the person wrote, and runs once approved."""
    model = OfflineModel(lang="en", today=TODAY)
    coach = open_coach(db="sqlite:///:memory:", model=model, lang="en", today=TODAY)
    try:
        paused = asyncio.run(coach.agent.run_turn("Save my weight: 172 lb on 2020-01-04"))
        pending = paused.pending_confirmation
        assert pending is not None
        assert pending.arguments == {"date": "2020-01-04", "weight_kg": 78.02}
        assert "172 lb" in paused.reply
        assert coach.store.read_measurement(dt.date(2020, 1, 4)) is None
        coach.agent.decide(pending.conversation_id, pending.id, approved=True)
        asyncio.run(coach.agent.resume(pending.conversation_id))
        saved = coach.store.read_measurement(dt.date(2020, 1, 4))
    finally:
        coach.close()
    assert saved is not None
    assert saved["weight_kg"] == 78.02


def _goal_turn(
    message: str, arguments: dict[str, object], lang: Lang = "es"
) -> tuple[Ok | ToolError, list[dict[str, Any]]]:
    model = ScriptedModel([turn(call("save_goal", arguments)), turn("Listo.")])
    coach = open_coach(db="sqlite:///:memory:", model=model, lang=lang, today=TODAY)
    try:
        result = asyncio.run(coach.agent.run_turn(message))
        return result.calls[0].outcome, coach.store.goals()
    finally:
        coach.close()


def test_a_goal_date_the_person_did_not_give_is_not_saved() -> None:
    """ "Mi meta es pesar 72 kg" has no date: a model that fills in today's (as a real one
    did) gets not_in_message on by_date and nothing is saved; the same goal without a date,
    or with the date the person said, is saved as said."""
    outcome, goals = _goal_turn(
        "Mi meta es pesar 72 kg",
        {"measure": "weight_kg", "target": 72, "by_date": TODAY.isoformat()},
    )
    assert isinstance(outcome, ToolError)
    assert outcome.code == "not_in_message"
    assert [d.field for d in outcome.details] == ["by_date"]
    assert goals == []
    outcome, goals = _goal_turn("Mi meta es pesar 72 kg", {"measure": "weight_kg", "target": 72})
    assert not isinstance(outcome, ToolError)
    assert [(g["measure"], g["target"], g["by_date"]) for g in goals] == [("weight_kg", 72.0, None)]
    outcome, goals = _goal_turn(
        "Quiero pesar 72 kg el 2024-06-30",
        {"measure": "weight_kg", "target": 72, "by_date": "2024-06-30"},
    )
    assert [(g["target"], g["by_date"]) for g in goals] == [(72.0, "2024-06-30")]


def test_a_goal_target_the_person_did_not_give_is_not_saved() -> None:
    """ "Quiero bajar 5 kg" names no target weight: save_goal(target=70) is not_in_message."""
    outcome, goals = _goal_turn("Quiero bajar 5 kg", {"measure": "weight_kg", "target": 70})
    assert isinstance(outcome, ToolError)
    assert outcome.code == "not_in_message"
    assert [d.field for d in outcome.details] == ["target"]
    assert goals == []


def test_an_optional_argument_the_person_did_not_give_may_be_left_out() -> None:
    """The refusal of an invented deadline tells the model it may leave by_date out (it has a
    default); a required one (write_measurement's date) only says to ask."""
    outcome, _ = _goal_turn(
        "I want to get to 72 kg",
        {"measure": "weight_kg", "target": 72, "by_date": TODAY.isoformat()},
        "en",
    )
    assert isinstance(outcome, ToolError)
    (detail,) = outcome.details
    assert "leave this argument out" in detail.expected
    model = ScriptedModel(
        [turn(call("write_measurement", {"date": "2024-03-01", "weight_kg": 72})), turn("ok")]
    )
    coach = open_coach(db="sqlite:///:memory:", model=model, lang="en", today=TODAY)
    try:
        result = asyncio.run(coach.agent.run_turn("I weigh 72 kg"))
    finally:
        coach.close()
    refused = result.calls[0].outcome
    assert isinstance(refused, ToolError)
    assert [d.field for d in refused.details] == ["date"]
    assert "leave this argument out" not in refused.details[0].expected
