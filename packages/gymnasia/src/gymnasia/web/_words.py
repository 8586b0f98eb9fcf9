"""Writes and waiting calls in a person's words, for the writes page and the approval card:
what the action is ("Borrar una nota") and what it touches ("nota «X»", "150 g de arroz,
comida, el 2020-01-04"), never a tool name or JSON.

The arguments are worded with the tools' own ``describe_measurement`` and ``describe_goal``,
the food and exercise tables, the meal labels and the measurement fields' names (the
arguments, not the result: a measurement's result is the whole day's record, not what this
write changed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from surefoot import Lang, Tool, ToolSet

from .. import catalog, meals
from ..store import MEASUREMENT_FIELDS
from ..texts import number, t
from ..tools import describe_goal, describe_measurement
from ._i18n import ui


def action(tool: str, lang: Lang) -> str:
    """The action ``tool`` performs, as a person names it ("Guardar una medida")."""
    key = f"act_{tool}"
    return ui(lang, key) if _has(key) else ui(lang, "act_other")


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


def _described(tool: Tool, data: dict[str, Any], lang: Lang) -> str:
    try:
        said = tool.describe(data, lang) if tool.describe is not None else ""
    except Exception:  # noqa: BLE001 - a failing description falls back to the arguments
        return ""
    return said.strip() if isinstance(said, str) else ""


def _argument_words(arguments: dict[str, Any], lang: Lang) -> str:
    measured = describe_measurement(arguments, lang)  # "peso 77,4 kg (2020-01-04)"
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
    name = food.name(lang) if food is not None else ui(lang, "w_unknown_food")
    if isinstance(grams, int | float):
        return ui(lang, "w_grams_of").format(grams=number(float(grams), lang), food=name)
    return name


def _text(key: str) -> Callable[[Any, Lang], str]:
    def word(value: Any, lang: Lang) -> str:
        return ui(lang, key).format(value=_short(str(value)))

    return word


def _meal(value: Any, lang: Lang) -> str:
    return meals.label(value, lang) if value in meals.MEAL_IDS else _short(str(value))


def _measure(value: Any, lang: Lang) -> str:
    return t(lang, f"offline_field_{value}") if value in MEASUREMENT_FIELDS else ""


def _exercise(value: Any, lang: Lang) -> str:
    known = catalog.exercises().get(str(value))
    return known.name(lang) if known is not None else ui(lang, "w_unknown_exercise")


def _series(value: Any, lang: Lang) -> str:
    count = len(value) if isinstance(value, list) else 0
    return ui(lang, "w_series_one" if count == 1 else "w_series_many").format(n=count)


def _routine_exercises(value: Any, lang: Lang) -> str:
    count = len(value) if isinstance(value, list) else 0
    return ui(lang, "w_exercises_one" if count == 1 else "w_exercises_many").format(n=count)


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


def _has(key: str) -> bool:
    try:
        ui("es", key)
    except KeyError:
        return False
    return True
