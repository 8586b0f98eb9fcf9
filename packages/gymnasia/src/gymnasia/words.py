"""Writes and waiting calls in a person's words, for the writes page, the approval card and the
``writes`` and ``diagnostics`` commands: what the action is ("Borrar una nota"), what it
touches ("nota «X»", "150 g de arroz, comida, el 4 ene 2020") and in what state the ledger
holds it ("hecha"), never a tool name or JSON. Its words are the catalogue's ``words`` section.

The arguments are worded with the tools' own ``describe_measurement`` and ``describe_goal``,
the food and exercise tables, the meal labels and the measurement fields' names (the
arguments, not the result: a measurement's result is the whole day's record, not what this
write changed). Their dates are written as the language writes them (``i18n.day``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from . import catalog, meals
from .i18n import day, entry, moment, register
from .store import MEASUREMENT_FIELDS
from .texts import number, t
from .tools import describe_goal, describe_measurement

if TYPE_CHECKING:
    from surefoot import Lang, Tool, ToolSet
    from surefoot.ledger import LedgerEntry
    from surefoot.messages import ToolCall

_WORDS: Final[dict[str, dict[Lang, str]]] = {
    # -- the state of a write in the ledger ---------------------------------------------------
    "state_pending": {"es": "en curso", "pt": "em curso", "en": "in progress"},
    "state_committed": {"es": "hecha", "pt": "feita", "en": "done"},
    "state_failed": {"es": "no hecha", "pt": "não feita", "en": "not done"},
    "state_unknown": {"es": "sin confirmar", "pt": "não confirmada", "en": "unconfirmed"},
    # -- writes -----------------------------------------------------------------------------
    "act_write_measurement": {
        "es": "Guardar una medida",
        "pt": "Salvar uma medida",
        "en": "Save a measurement",
    },
    "act_edit_measurement": {
        "es": "Corregir una medida",
        "pt": "Corrigir uma medida",
        "en": "Correct a measurement",
    },
    "act_delete_measurement": {
        "es": "Borrar una medida",
        "pt": "Excluir uma medida",
        "en": "Delete a measurement",
    },
    "act_save_goal": {"es": "Guardar un objetivo", "pt": "Salvar uma meta", "en": "Save a goal"},
    "act_save_memory": {"es": "Guardar una nota", "pt": "Salvar uma nota", "en": "Save a note"},
    "act_delete_memory": {"es": "Borrar una nota", "pt": "Excluir uma nota", "en": "Delete a note"},
    "act_add_meal_food": {
        "es": "Anotar un alimento",
        "pt": "Registrar um alimento",
        "en": "Log a food",
    },
    "act_edit_meal_item": {
        "es": "Corregir un alimento anotado",
        "pt": "Corrigir um alimento registrado",
        "en": "Correct a logged food",
    },
    "act_delete_meal_item": {
        "es": "Quitar un alimento anotado",
        "pt": "Remover um alimento registrado",
        "en": "Remove a logged food",
    },
    "act_create_routine": {
        "es": "Crear una rutina",
        "pt": "Criar uma rotina",
        "en": "Create a routine",
    },
    "act_rename_routine": {
        "es": "Renombrar una rutina",
        "pt": "Renomear uma rotina",
        "en": "Rename a routine",
    },
    "act_add_routine_exercise": {
        "es": "Añadir un ejercicio a una rutina",
        "pt": "Adicionar um exercício a uma rotina",
        "en": "Add an exercise to a routine",
    },
    "act_reorder_routine_exercises": {
        "es": "Reordenar los ejercicios de una rutina",
        "pt": "Reordenar os exercícios de uma rotina",
        "en": "Reorder a routine's exercises",
    },
    "act_remove_routine_exercise": {
        "es": "Quitar un ejercicio de una rutina",
        "pt": "Remover um exercício de uma rotina",
        "en": "Remove an exercise from a routine",
    },
    "act_delete_routine": {
        "es": "Borrar una rutina",
        "pt": "Excluir uma rotina",
        "en": "Delete a routine",
    },
    "act_create_feature_issue": {
        "es": "Proponer una mejora a los desarrolladores",
        "pt": "Propor uma melhoria aos desenvolvedores",
        "en": "Suggest a feature to the developers",
    },
    "act_other": {"es": "Cambiar tus datos", "pt": "Alterar seus dados", "en": "Change your data"},
    "w_unknown_food": {
        "es": "un alimento que la tabla no tiene",
        "pt": "um alimento que a tabela não tem",
        "en": "a food the table does not have",
    },
    "w_unknown_exercise": {
        "es": "un ejercicio que la tabla no tiene",
        "pt": "um exercício que a tabela não tem",
        "en": "an exercise the table does not have",
    },
    "w_grams_of": {
        "es": "{grams} g de {food}",
        "pt": "{grams} g de {food}",
        "en": "{grams} g of {food}",
    },
    "w_date": {"es": "el {value}", "pt": "em {value}", "en": "on {value}"},
    "w_new_date": {"es": "pasa al {value}", "pt": "passa para {value}", "en": "moved to {value}"},
    "w_note": {"es": "nota «{value}»", "pt": "nota “{value}”", "en": "note '{value}'"},
    "w_quoted": {"es": "«{value}»", "pt": "“{value}”", "en": "'{value}'"},
    "w_routine": {"es": "rutina «{value}»", "pt": "rotina “{value}”", "en": "routine '{value}'"},
    "w_new_name": {
        "es": "nuevo nombre «{value}»",
        "pt": "novo nome “{value}”",
        "en": "new name '{value}'",
    },
    "w_item": {"es": "alimento n.º {value}", "pt": "alimento nº {value}", "en": "food #{value}"},
    "w_position": {"es": "puesto {value}", "pt": "posição {value}", "en": "position {value}"},
    "w_series_one": {"es": "1 serie", "pt": "1 série", "en": "1 set"},
    "w_series_many": {"es": "{n} series", "pt": "{n} séries", "en": "{n} sets"},
    "w_exercises_one": {"es": "1 ejercicio", "pt": "1 exercício", "en": "1 exercise"},
    "w_exercises_many": {"es": "{n} ejercicios", "pt": "{n} exercícios", "en": "{n} exercises"},
    # -- reads (a failed one is listed by ``gymnasia diagnostics``) ---------------------------
    "act_read_measurement": {
        "es": "Consultar una medida",
        "pt": "Consultar uma medida",
        "en": "Look up a measurement",
    },
    "act_list_measurements": {
        "es": "Listar las medidas",
        "pt": "Listar as medidas",
        "en": "List the measurements",
    },
    "act_read_goals": {
        "es": "Consultar los objetivos",
        "pt": "Consultar as metas",
        "en": "Look up the goals",
    },
    "act_list_memory_keys": {
        "es": "Listar las notas",
        "pt": "Listar as notas",
        "en": "List the notes",
    },
    "act_read_memory": {"es": "Leer una nota", "pt": "Ler uma nota", "en": "Read a note"},
    "act_search_foods": {
        "es": "Buscar alimentos",
        "pt": "Buscar alimentos",
        "en": "Search the foods",
    },
    "act_read_meal": {
        "es": "Consultar una comida",
        "pt": "Consultar uma refeição",
        "en": "Look up a meal",
    },
    "act_search_exercises": {
        "es": "Buscar ejercicios",
        "pt": "Buscar exercícios",
        "en": "Search the exercises",
    },
    "act_read_routines": {
        "es": "Consultar las rutinas",
        "pt": "Consultar as rotinas",
        "en": "Look up the routines",
    },
    "w_call": {"es": "llamada {value}", "pt": "chamada {value}", "en": "call {value}"},
}
register("words", _WORDS)

_DATES: Final = ("date", "new_date", "by_date")
"""The arguments that hold a calendar date (``YYYY-MM-DD``), written in words when shown."""


def word(lang: Lang, key: str) -> str:
    """The text ``key`` of the ``words`` section in ``lang``."""
    return entry("words", key, lang)


def action(tool: str, lang: Lang) -> str:
    """The action ``tool`` performs, as a person names it ("Guardar una medida")."""
    key = f"act_{tool}"
    return word(lang, key) if key in _WORDS else word(lang, "act_other")


def state(value: str, lang: Lang) -> str:
    """A write's ledger state (``committed``) as a person says it ("hecha")."""
    return word(lang, f"state_{value}")


def call_label(call_id: str, lang: Lang) -> str:
    """A tool call named by its id, for the diagnostics ("llamada c1")."""
    return word(lang, "w_call").format(value=call_id)


def call_words(
    tools: ToolSet | None,
    tool: str,
    arguments: dict[str, Any] | None,
    lang: Lang,
    result: dict[str, Any] | None = None,
) -> str:
    """What a write was asked to do (its ``arguments``), in ``lang``; when they say nothing
    a person reads, what it saved (``result``, worded by its tool's ``describe``); empty when
    there is nothing to say."""
    said = _argument_words(arguments or {}, lang)
    found: Tool | None = tools.get(tool) if tools is not None else None
    if not said and result is not None and found is not None:
        said = _described(found, result, lang)
    return said


def entry_words(entry: LedgerEntry, tools: ToolSet | None, lang: Lang) -> str:
    """What the write ``entry`` of the ledger was asked to do, in ``lang`` (``call_words``;
    what it saved when it is done and its arguments say nothing a person reads)."""
    result = entry.result if entry.state == "committed" else None
    return call_words(tools, entry.tool, entry.arguments, lang, result)


def write_line(entry: LedgerEntry, tools: ToolSet | None, lang: Lang) -> str:
    """A write on one line, for the terminal: when the ledger last changed it, its state, its
    action and what it touched ("5 dic 2026, 19:26 UTC · hecha · Guardar una medida: peso
    77,4 kg (3 dic 2020)")."""
    what = entry_words(entry, tools, lang)
    done = f"{action(entry.tool, lang)}: {what}" if what else action(entry.tool, lang)
    return f"{moment(entry.updated_at, lang)} · {state(entry.state, lang)} · {done}"


def call_in_words(tools: ToolSet) -> Callable[[ToolCall, Lang], str | None]:
    """``Agent(call_words=...)``: a write the harness's reply lists as not saved, or not
    confirmed, in these words (its arguments; its action when they say nothing), never its
    tool's name and arguments."""

    def said(call: ToolCall, lang: Lang) -> str:
        return call_words(tools, call.name, call.arguments, lang) or action(call.name, lang)

    return said


def _described(tool: Tool, data: dict[str, Any], lang: Lang) -> str:
    try:
        said = tool.describe(data, lang) if tool.describe is not None else ""
    except Exception:  # noqa: BLE001 - a failing description falls back to the arguments
        return ""
    return said.strip() if isinstance(said, str) else ""


def _dated(arguments: dict[str, Any], lang: Lang) -> dict[str, Any]:
    """``arguments`` with each calendar date written in words ("4 ene 2020"); a value that
    is no date is kept as it came."""
    shown = dict(arguments)
    for name in _DATES:
        value = shown.get(name)
        if isinstance(value, str):
            try:
                value = dt.date.fromisoformat(value)
            except ValueError:
                continue
        if isinstance(value, dt.date):
            shown[name] = day(value, lang)
    return shown


def _argument_words(arguments: dict[str, Any], lang: Lang) -> str:
    arguments = _dated(arguments, lang)
    measured = describe_measurement(arguments, lang)  # "peso 77,4 kg (4 ene 2020)"
    goal = describe_goal(arguments, lang)  # "objetivo de peso: 74 kg"
    parts = [measured, goal, _food(arguments, lang)]
    skip = {"date"} if measured else set()
    skip |= {"measure", "target", "by_date"} if goal else set()
    for name, value in arguments.items():
        word = _WORDERS.get(name)
        if word is not None and value is not None and name not in skip:
            parts.append(word(value, lang))
    return ", ".join(p for p in parts if p)


def _food(arguments: dict[str, Any], lang: Lang) -> str:
    food_id, grams = arguments.get("food_id"), arguments.get("grams")
    if not isinstance(food_id, str):
        return f"{number(float(grams), lang)} g" if isinstance(grams, int | float) else ""
    food = catalog.foods().get(food_id)
    name = food.name(lang) if food is not None else word(lang, "w_unknown_food")
    if isinstance(grams, int | float):
        return word(lang, "w_grams_of").format(grams=number(float(grams), lang), food=name)
    return name


def _text(key: str) -> Callable[[Any, Lang], str]:
    def worded(value: Any, lang: Lang) -> str:
        return word(lang, key).format(value=_short(str(value)))

    return worded


def _meal(value: Any, lang: Lang) -> str:
    return meals.label(value, lang) if value in meals.MEAL_IDS else _short(str(value))


def _measure(value: Any, lang: Lang) -> str:
    return t(lang, f"offline_field_{value}") if value in MEASUREMENT_FIELDS else ""


def _exercise(value: Any, lang: Lang) -> str:
    known = catalog.exercises().get(str(value))
    return known.name(lang) if known is not None else word(lang, "w_unknown_exercise")


def _series(value: Any, lang: Lang) -> str:
    count = len(value) if isinstance(value, list) else 0
    return word(lang, "w_series_one" if count == 1 else "w_series_many").format(n=count)


def _routine_exercises(value: Any, lang: Lang) -> str:
    count = len(value) if isinstance(value, list) else 0
    return word(lang, "w_exercises_one" if count == 1 else "w_exercises_many").format(n=count)


_WORDERS: Final[dict[str, Callable[[Any, Lang], str]]] = {
    "date": _text("w_date"),
    "new_date": _text("w_new_date"),
    "meal": _meal,
    "key": _text("w_note"),
    "value": _text("w_quoted"),
    "routine": _text("w_routine"),
    "name": _text("w_routine"),
    "new_name": _text("w_new_name"),
    "measure": _measure,
    "item_id": _text("w_item"),
    "position": _text("w_position"),
    "exercise_id": _exercise,
    "series": _series,
    "exercises": _routine_exercises,
    "title": _text("w_quoted"),
}


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
