"""The tools each model request declares: the first request stays small whatever the message,
every domain is reachable, a called tool stays offered, and the offline Coach sees them all."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gymnasia import offer as offer_module
from gymnasia.app import Coach, open_coach
from gymnasia.offer import BUDGET, DOMAINS, Offer
from surefoot import ModelRequest
from surefoot.messages import Message, ToolResultsMessage, UserMessage
from surefoot.providers.openai_chat import build_request
from surefoot.testing import FunctionModel, call, turn

LIMIT = 8500
"""The issue's acceptance: system prompt + tools of the first request, in characters."""

FIRST_MESSAGES: dict[str, tuple[str, ...]] = {
    "measurements": (
        "Peso 80 kg hoy",
        "Registra mi cintura: 84 cm ayer",
        "¿Cuánto pesaba el 3 de enero?",
        "Hoje pesei 72,5 kg",
        "Minha gordura corporal é 18%",
        "Corrige el peso de ayer, era 79",
        "I weighed 81 kg this morning",
        "Delete yesterday's measurement",
        "Show my measurements of the last 30 days",
    ),
    "memory": (
        "Guarda una nota: entreno por la mañana",
        "¿Qué notas tengo?",
        "Anota no lembrete: comprar creatina",
        "Quais são as minhas notas?",
        "Remember that I prefer running to cycling",
        "Forget the note about my knee",
    ),
    "goals": (
        "Mi objetivo es llegar a 75 kg",
        "Quero chegar a 70 kg",
        "I want to get to 74 kg",
        "What is my target weight?",
    ),
    "diet": (
        "¿Qué comí ayer en la cena?",
        "Desayuné 200 g de avena con leche",
        "Busca alimentos ricos en proteína",
        "Borra el arroz de la comida de hoy",
        "No almoço comi 150 g de frango",
        "Quais frutas têm menos calorias?",
        "I had 2 eggs and toast for breakfast",
        "Which foods are high in fiber?",
    ),
    "training": (
        "Crea una rutina de fuerza con sentadillas y press de banca",
        "Muéstrame mis rutinas",
        "Renombra la rutina Push a Empuje",
        "Quita el tercer ejercicio de la rutina Pierna",
        "Cria um treino de hipertrofia para costas",
        "Busca exercícios com halteres",
        "Add deadlifts, 3 sets of 5 at 100 kg, to my Pull routine",
        "Reorder my Legs workout: squats first",
    ),
    "feedback": (
        "Sugiere la función: modo oscuro. Para entrenar de noche",
        "Me gustaría que la app exportara a CSV",
        "Sugira a funcionalidade: gráficos de peso",
        "Suggest the feature: a weekly summary. To see my progress",
    ),
}
NO_DOMAIN: tuple[str, ...] = ("hola", "Olá, tudo bem?", "hi", "¿Qué puedes hacer?", "ok", "")
EVERYTHING: tuple[str, ...] = (
    (
        "Registra mi peso 80 kg y mi cintura 84 cm, corrige la grasa de ayer, borra la rutina "
        "Push, "
        "crea una rutina de fuerza con sentadillas, anota que prefiero correr, comí 200 g de arroz "
        "en la cena, busca alimentos con proteína y sugiere una función para la app"
    ),
    (
        "Registre meu peso 80 kg, apague a rotina Push, crie um treino de força, anote que prefiro "
        "correr, no jantar comi 200 g de arroz e sugira uma funcionalidade para o aplicativo"
    ),
    (
        "Log my weight 80 kg, fix yesterday's waist, delete my Push routine, create a strength "
        "routine, remember I prefer running, I had 200 g of rice for dinner, and suggest a feature "
        "for the app"
    ),
)
CORPUS: tuple[str, ...] = (
    *(text for texts in FIRST_MESSAGES.values() for text in texts),
    *NO_DOMAIN,
    *EVERYTHING,
)


@pytest.fixture(scope="module")
def coach(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Coach]:
    """A Coach over a language model (a function that is never asked here)."""
    path = tmp_path_factory.mktemp("offer") / "gymnasia.db"
    opened = open_coach(
        db=str(path), model=FunctionModel(lambda _: turn("ok")), today=dt.date(2026, 1, 5)
    )
    yield opened
    opened.close()


def _first_request(coach: Coach, text: str) -> dict[str, Any]:
    request = ModelRequest(
        messages=(UserMessage(text),),
        tools=coach.agent.offered((UserMessage(text),)),
        system=coach.agent.system,
    )
    return build_request(request, model="m", max_tokens=1024)


def _chars(coach: Coach, body: dict[str, Any]) -> int:
    tools = json.dumps(body.get("tools", []), ensure_ascii=False)
    return len(coach.agent.system or "") + len(tools)


def _names(coach: Coach, messages: tuple[Message, ...]) -> set[str]:
    return {spec.name for spec in coach.agent.offered(messages)}


@pytest.mark.parametrize("text", CORPUS)
def test_the_first_request_fits_whatever_the_message(coach: Coach, text: str) -> None:
    """System prompt + tools of the first request stay within the budget, under 8,500."""
    for lang in ("es", "pt", "en"):
        agent = coach.agent_for(lang)
        request = ModelRequest(
            messages=(UserMessage(text),),
            tools=agent.offered((UserMessage(text),)),
            system=agent.system,
        )
        body = build_request(request, model="m", max_tokens=1024)
        chars = len(agent.system or "") + len(json.dumps(body["tools"], ensure_ascii=False))
        assert chars <= BUDGET <= LIMIT, (lang, text, chars)


def test_every_tool_together_would_not_fit(coach: Coach) -> None:
    """The policy is what keeps the limit: all 25 declarations are well over it."""
    every = coach.agent.tools.specs()
    assert len(every) == 25
    offer = Offer(every, coach.agent.system)
    assert offer.cost(spec.name for spec in every) > LIMIT


@pytest.mark.parametrize("domain", [d.name for d in DOMAINS])
def test_each_domain_is_offered_when_a_message_is_about_it(coach: Coach, domain: str) -> None:
    """Every first message of a domain, in es/pt/en, is offered that domain's essentials."""
    essentials = next(d.essentials for d in DOMAINS if d.name == domain)
    for text in FIRST_MESSAGES[domain]:
        offered = _names(coach, (UserMessage(text),))
        assert set(essentials) <= offered, (text, sorted(offered))


def test_a_diet_question_offers_the_diet_tools_and_not_training(coach: Coach) -> None:
    """ "¿Qué comí ayer?" declares the meal and food tools, none of the routines'."""
    offered = _names(coach, (UserMessage("¿Qué comí ayer en la cena?"),))
    assert {"search_foods", "read_meal", "add_meal_food", "edit_meal_item"} <= offered
    assert not offered & {"create_routine", "write_measurement", "create_feature_issue"}


def test_asked_changes_come_before_other_domains(coach: Coach) -> None:
    """A delete the message asks for is offered even when several domains compete."""
    text = "Registra mi peso 80 kg, anota que prefiero correr y borra la rutina Push"
    offered = _names(coach, (UserMessage(text),))
    assert {"write_measurement", "save_memory", "delete_routine", "read_routines"} <= offered


def test_a_message_about_nothing_gets_the_reads_of_every_domain(coach: Coach) -> None:
    """ "hola" is offered each domain's reads, and no write."""
    offered = _names(coach, (UserMessage("hola"),))
    reads = {name for domain in DOMAINS for name in domain.reads}
    assert offered == reads
    assert all(coach.agent.tools.get(name).effect == "read" for name in offered)  # type: ignore[union-attr]


def test_a_tool_called_earlier_stays_offered(coach: Coach) -> None:
    """After a feature request was proposed, a diet question still declares that tool."""
    proposed = call("create_feature_issue", {"title": "t", "description": "d"}, call_id="c1")
    messages: tuple[Message, ...] = (
        UserMessage("Sugiere la función: modo oscuro"),
        turn(proposed),
        ToolResultsMessage(()),
        turn("Hecho."),
        UserMessage("¿Qué comí ayer en la cena?"),
    )
    offered = _names(coach, messages)
    assert "create_feature_issue" in offered
    assert "read_meal" in offered


def test_a_tool_called_in_this_turn_is_offered_first(coach: Coach) -> None:
    """Mid-turn, the group of the tool just called keeps its place before anything else."""
    searched = call("search_exercises", {"query": "sentadilla"}, call_id="c1")
    text = EVERYTHING[0]
    offered = _names(coach, (UserMessage(text), turn(searched)))
    assert {"search_exercises", "create_routine"} <= offered


def test_each_user_message_is_read_once_however_long_the_conversation(
    coach: Coach, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every request reads the whole conversation, but a message already read is not tagged
    again: 30 earlier turns cost one tagging each, not one per later request."""
    tagged: list[str] = []
    real_tag = offer_module.tag

    def counting(text: str, tokens: Any) -> Any:
        tagged.append(text)
        return real_tag(text, tokens)

    monkeypatch.setattr(offer_module, "tag", counting)
    offer_module.mentions.cache_clear()
    history: tuple[Message, ...] = ()
    for number in range(30):
        history = (*history, UserMessage(f"nota {number}: peso 80 kg"), turn("Hecho."))
        coach.agent.offered(history)
        coach.agent.offered(history)  # the turn's second request
    assert sorted(tagged) == sorted(f"nota {n}: peso 80 kg" for n in range(30))
    assert "write_measurement" in _names(coach, history)


def test_an_actual_turn_sends_the_offered_tools(tmp_path: Path) -> None:
    """A real turn's first request carries exactly what the policy offers."""
    model = FunctionModel(lambda _: turn("Anotado."))
    coach = open_coach(db=str(tmp_path / "g.db"), model=model, today=dt.date(2026, 1, 5))
    try:
        asyncio.run(coach.agent.run_turn("Desayuné 200 g de avena"))
    finally:
        coach.close()
    first = model.requests[0]
    assert {spec.name for spec in first.tools} == {
        "search_foods",
        "read_meal",
        "add_meal_food",
        "edit_meal_item",
        "delete_meal_item",
    }


def test_the_offline_coach_is_offered_every_tool(tmp_path: Path) -> None:
    """The rule-based model reads no declaration: it keeps all 25 and plans as before."""
    coach = open_coach(db=str(tmp_path / "g.db"), today=dt.date(2026, 1, 5))
    try:
        every = coach.agent.tools.specs()
        assert coach.agent.offered((UserMessage("hola"),)) == every
        result = asyncio.run(coach.agent.run_turn("Peso 80 kg hoy"))
        assert result.stop_reason == "completed"
        assert coach.store.read_measurement(dt.date(2026, 1, 5)) is not None
    finally:
        coach.close()


def test_every_gymnasia_schema_is_valid_and_plain(coach: Coach) -> None:
    """Each tool's schema is valid draft 2020-12, closed, and has no anyOf-null optional."""
    for spec in coach.agent.tools.specs():
        schema = spec.parameters
        Draft202012Validator.check_schema(schema)
        assert schema["additionalProperties"] is False
        text = json.dumps(schema)
        assert '"null"' not in text, spec.name
        assert "$defs" not in schema, spec.name
        required = set(schema.get("required", ()))
        for name, prop in schema["properties"].items():
            if name not in required:
                assert "default" not in prop or prop["default"] is not None, (spec.name, name)
