"""Meals and foods: read a day's meals, log grams of a food in a meal, search the food table.

Logging needs everything read whole: grams (g or kg), the food's words, one meal, one past
date. The food's id is never guessed here: the model searches the table with the user's words
first and picks a food only when exactly one matches, or one is named exactly.
"""

from __future__ import annotations

from typing import Any, Final

from .. import meals
from ..catalog import fold
from ..rules import AMOUNT_LIMITS
from ._intents import AddFood, Intent, ReadMeals, SearchFoods, Unclear
from ._lex import DateLiteral, Mark, Number, Word
from ._measure import number_problem, one_write_date
from ._sentence import Quantity, Sentence
from ._words import FUNCTION_WORDS

_GRAMS: Final = {"g": 1, "kg": 1000}
_GLUE: Final = frozenset({"de", "of", "da", "do", "del"})
_INTO: Final = frozenset(
    {"a", "al", "en", "para", "to", "in", "for", "na", "no", "ao", "em", "on", "at", "into"}
)
_ARTICLES: Final = frozenset(
    {"la", "el", "mi", "my", "the", "o", "a", "os", "as", "meu", "minha", "los", "las", "mis"}
)
_SPAN_END: Final = ".;!?:"
_STRICT_FOOD_NOUNS: Final = frozenset(
    {"alimento", "alimentos", "food", "foods", "ingrediente", "ingredientes"}
)


# -- meals -------------------------------------------------------------------------------------


def parse_meals(s: Sentence) -> Intent | Unclear | None:
    """Read meals, or log a food in a meal."""
    grams = [q for q in s.quantities if q.unit in _GRAMS]
    eats = s.has("verb", "eat")
    named = s.has("meal") and (not s.has("field") or bool(grams))
    logged = "save" in s.actions() and any(q.unit == "g" for q in grams)
    if not (eats or named or logged or s.has("noun", "meals")):
        return None
    plain, negated = s.actions(), s.actions(negated=True)
    if "save" in plain and plain & {"read", "list", "delete"}:
        return Unclear("several", "mixed")
    if "delete" in plain:
        return None  # meal items cannot be deleted by this model: the help says what can
    stated = eats or (s.has("meal") and not s.has("field"))  # "hoy en la cena 200 g de ..."
    statement = stated and bool(grams) and not s.is_question() and not negated
    if "save" in plain or statement:
        return _not_asked(s) or _add(s)
    if "save" in negated or ("eat" in negated and grams):
        return Unclear("add_food", "negated")
    return _read(s)


def _not_asked(s: Sentence) -> Unclear | None:
    """A wish without a save verb ("quiero comer 150 g de arroz") is no meal eaten; a
    negation or a condition anywhere ("si como ...", "..., no en la cena") is no write either."""
    if s.has("wish") and "save" not in s.actions():
        return Unclear("add_food", "intention")
    if s.has("neg"):
        return Unclear("add_food", "negated")
    if s.has("if"):
        return Unclear("add_food", "conditional")
    return _qualified(s)


def _qualified(s: Sentence) -> Unclear | None:
    """What changes the amount or whose meal it is, which the parser does not model: another
    person ("para mi hijo"), a multiplier ("2x150 g", "dos raciones de 150 g"), a part ("solo
    me comí la mitad"). It asks; it never writes the bare number."""
    if s.has("other", "someone"):
        return Unclear("add_food", "not_yours_meal")
    if s.has("qualifier", "part"):
        return Unclear("add_food", "partial")
    multiple = s.where("qualifier", "multiple")
    if multiple:
        return Unclear("add_food", "multiplied", s.items[multiple[0]].token.text)
    return None


def _read(s: Sentence) -> ReadMeals | Unclear:
    for ref in s.dates:
        if ref.problem is not None:
            return Unclear("read_meal", ref.problem, ref.text)
        if ref.end is not None:
            return Unclear("read_meal", "date_many", ref.text)
    dates = list(dict.fromkeys(ref.value for ref in s.dates if ref.value is not None))
    if not dates:
        return Unclear("read_meal", "date_missing")
    if len(dates) > 1:
        return Unclear("read_meal", "date_many", ", ".join(ref.text for ref in s.dates))
    named = [m for m in s.values("meal") if m != "?"]
    if not named:
        named = ["mid_morning", "afternoon"] if s.has("meal", "?") else list(meals.MEAL_IDS)
    chosen = tuple(m for m in meals.MEAL_IDS if m in named)
    return ReadMeals(dates[0], chosen, values_given=bool(s.quantities))


def _add(s: Sentence) -> AddFood | Unclear:
    several = _several(s)
    if several is not None:
        return several
    grams = _grams(s)
    if isinstance(grams, Unclear):
        return grams
    amount, quantity = grams
    span = _food_span(s, quantity)
    words = [s.items[i].token.text for i in span if isinstance(s.items[i].token, Word)]
    query = " ".join(_trim(words))
    if not query:
        return Unclear("add_food", "food_missing")
    meal = _meal(s, set(span))
    if isinstance(meal, Unclear):
        return meal
    date = one_write_date(s, "add_food")
    if isinstance(date, Unclear):
        return date
    return AddFood(date, meal, query, amount)


def _several(s: Sentence) -> AddFood | Unclear | None:
    """Several foods, each right after its own grams ("150 g de lentejas cocidas y 100 g de
    arroz integral"): each is logged in the one meal and date. Only when every number is such
    an amount followed by a food's words; None otherwise (one food, or what ``_grams`` asks)."""
    weighed = [q for q in s.quantities if q.unit in _GRAMS]
    if len(weighed) < 2 or len(weighed) != len(s.quantities):
        return None
    foods: list[tuple[str, float]] = []
    spans: set[int] = set()
    for quantity in weighed:
        amount = _amount(quantity)
        if isinstance(amount, Unclear):
            return amount
        span = _span_after(s, quantity)
        words = _trim([s.items[i].token.text for i in span if isinstance(s.items[i].token, Word)])
        if not words:
            return None
        foods.append((" ".join(words), amount))
        spans.update(span)
    meal = _meal(s, spans)
    if isinstance(meal, Unclear):
        return meal
    date = one_write_date(s, "add_food")
    if isinstance(date, Unclear):
        return date
    (query, amount), *more = foods
    return AddFood(date, meal, query, amount, tuple(more))


def _grams(s: Sentence) -> tuple[float, Quantity] | Unclear:
    quantities = s.quantities
    weighed = [q for q in quantities if q.unit in _GRAMS]
    if len(weighed) > 1:
        return Unclear("add_food", "mixed")
    if not weighed:
        subject = quantities[0].text if quantities else ""
        return Unclear("add_food", "grams_missing", subject)
    if len(quantities) > 1:  # "2x150 g", "150 g, 3 portions": a number the amount depends on
        extra = next(q for q in quantities if q is not weighed[0])
        return Unclear("add_food", "multiplied", extra.text)
    quantity = weighed[0]
    amount = _amount(quantity)
    if isinstance(amount, Unclear):
        return amount
    return amount, quantity


def _amount(quantity: Quantity) -> float | Unclear:
    """The grams a weighed quantity says, or what is unclear about it (its number, its
    range)."""
    problem = number_problem(quantity)
    if problem is not None:
        return Unclear("add_food", problem, quantity.text)
    assert quantity.number.value is not None
    amount = float(round(quantity.number.value * _GRAMS[quantity.unit or "g"], 2))
    low, high = AMOUNT_LIMITS["grams"]
    if not low <= amount <= high:
        return Unclear("add_food", "out_of_range", quantity.text, "grams")
    return amount


def _stops(s: Sentence, index: int) -> bool:
    """Whether the food's words end before item ``index``."""
    item = s.items[index]
    if s.mark_at(index, _SPAN_END) or isinstance(item.token, Number | DateLiteral):
        return True
    if item.means("meal") or item.means("day") or item.means("verb") or index in s.date_items:
        return True
    if item.norm not in _INTO:
        return False
    after = index + 1
    while after < len(s.items) and s.items[after].norm in _ARTICLES:
        after += 1
    return after < len(s.items) and (
        s.items[after].means("meal") or s.items[after].means("day") or after in s.date_items
    )


def _span_after(s: Sentence, quantity: Quantity) -> list[int]:
    """The items after the amount up to the next number, meal, date or verb."""
    at = quantity.end
    while at < len(s.items) and s.items[at].norm in _GLUE:
        at += 1
    span: list[int] = []
    while at < len(s.items) and not _stops(s, at):
        span.append(at)
        at += 1
    return span


def _food_span(s: Sentence, quantity: Quantity) -> list[int]:
    """The items naming the food: after the amount ("150 g de arroz blanco a la comida"), or
    between the verb and the amount ("añade arroz blanco, 150 g, a la comida")."""
    span = _span_after(s, quantity)
    if any(isinstance(s.items[i].token, Word) for i in span):
        return span
    verbs = [v.index for v in s.verbs if v.index < quantity.index]
    start = verbs[-1] + 1 if verbs else 0
    return [i for i in range(start, quantity.index) if not s.items[i].means("meal")]


def _trim(words: list[str]) -> list[str]:
    """Drop glue words at either end ("de arroz de" → "arroz")."""
    while words and fold(words[0]) in FUNCTION_WORDS:
        words = words[1:]
    while words and fold(words[-1]) in FUNCTION_WORDS:
        words = words[:-1]
    return words


def _meal(s: Sentence, span: set[int]) -> str | Unclear:
    found = [
        (i, s.items[i].value("meal") or "")
        for i in s.where("meal")
        if i not in span and not isinstance(s.items[i].token, Mark)
    ]
    named = list(dict.fromkeys(value for _, value in found))
    if not named:
        return Unclear("add_food", "meal_missing")
    if len(named) > 1:
        said = ", ".join(dict.fromkeys(s.items[i].token.text for i, _ in found))
        return Unclear("add_food", "meal_many", said)
    if named[0] == "?":
        return Unclear("add_food", "meal_ambiguous", s.items[found[0][0]].token.text)
    return named[0]


# -- foods ---------------------------------------------------------------------------------------


def parse_foods(s: Sentence) -> Intent | Unclear | None:
    """Search the food table: words of a name, a category, kcal and protein limits, an order."""
    if s.has("verb", "eat") or s.dates:
        return None
    plain = s.actions()
    strict = any(s.items[i].norm in _STRICT_FOOD_NOUNS for i in s.where("noun", "food"))
    searched = "search" in plain and (
        s.has("noun", "food") or s.has("food_category") or s.has("nutrient")
    )
    asked = strict and (bool(plain & {"read", "list"}) or s.is_question())
    if not (searched or asked):
        return None
    arguments = _food_arguments(s)
    if isinstance(arguments, Unclear):
        return arguments
    return SearchFoods(tuple(arguments.items()))


def _food_arguments(s: Sentence) -> dict[str, Any] | Unclear:
    arguments: dict[str, Any] = {}
    used: set[int] = set()
    for at in s.where("compare"):
        found = _limit(s, at, used)
        if isinstance(found, Unclear):
            return found
        if found is not None:
            arguments[found[0]] = found[1]
    order = _order(s, used)
    if isinstance(order, Unclear):
        return order
    if order is not None:
        arguments["sort_by"] = order
    category = s.values("food_category")
    if category:
        arguments["category"] = category[0]
        used.update(s.where("food_category"))
    words = [
        s.items[i].token.text for i in range(len(s.items)) if i not in used and _content_word(s, i)
    ]
    if words:
        arguments["query"] = " ".join(words)
    return dict(sorted(arguments.items()))


def _content_word(s: Sentence, index: int) -> bool:
    item = s.items[index]
    if not isinstance(item.token, Word) or item.meaningful:
        return False
    return item.norm not in FUNCTION_WORDS and item.norm not in _TABLE_WORDS


_TABLE_WORDS: Final = frozenset({"tabla", "table", "tabela", "lista", "base", "datos", "dados"})
_LIMITS: Final = {("max", "calories"): "max_calories", ("min", "protein"): "min_protein"}


def _nutrient_near(s: Sentence, start: int, step: int, span: int = 3) -> int | None:
    at = start
    for _ in range(span):
        if not 0 <= at < len(s.items):
            return None
        if s.items[at].means("nutrient"):
            return at
        if s.items[at].norm not in FUNCTION_WORDS:
            return None
        at += step
    return None


def _limit(s: Sentence, at: int, used: set[int]) -> tuple[str, float] | Unclear | None:
    """A limit: "menos de 100 kcal", "al menos 20 g de proteína", "protein at least 20 g"."""
    quantity = next((q for q in s.quantities if q.index == at + 1), None)
    if quantity is None:
        return None
    problem = number_problem(quantity)
    if problem is not None:
        return Unclear("search_foods", problem, quantity.text)
    nutrient_at = _limited_nutrient(s, at, quantity)
    nutrient = "calories" if quantity.unit == "kcal" else None
    if nutrient_at is not None:
        nutrient = s.items[nutrient_at].value("nutrient")
    name = _LIMITS.get((s.items[at].value("compare") or "", nutrient or ""))
    if name is None:
        return Unclear("search_foods", "filter_unsupported", s.raw(at, quantity.end))
    assert quantity.number.value is not None
    value = float(quantity.number.value)
    low, high = AMOUNT_LIMITS[name]
    if not low <= value <= high:
        return Unclear("search_foods", "out_of_range", quantity.text, name)
    used.update({at, *range(quantity.index, quantity.end)})
    if nutrient_at is not None:
        used.add(nutrient_at)
    return name, value


def _limited_nutrient(s: Sentence, at: int, quantity: Quantity) -> int | None:
    """Where the limited nutrient is named: after the amount ("20 g de proteína") or before
    the comparison ("protein at least 20 g"); an amount in kcal names it itself."""
    if quantity.unit == "kcal":
        return None
    after = _nutrient_near(s, quantity.end, 1)
    return after if after is not None else _nutrient_near(s, at - 1, -1)


_ORDERS: Final = {
    ("desc", "protein"): "protein",
    ("desc", "fiber"): "fiber",
    ("asc", "calories"): "calories",
    ("asc", "carbs"): "carbs",
    ("asc", "fat"): "fat",
}


def _order(s: Sentence, used: set[int]) -> str | Unclear | None:
    """An order: "ricos en proteína", "low in fat", "sorted by calories"; a lone "proteína"
    or "fibra" asks for the richest first."""
    for at in s.where("sort"):
        nutrient_at = at if s.items[at].means("nutrient") else _nutrient_near(s, at + 1, 1)
        if nutrient_at is None or nutrient_at in used:
            continue
        direction = s.items[at].value("sort") or ""
        nutrient = s.items[nutrient_at].value("nutrient") or ""
        used.update({at, nutrient_at})
        if direction == "by":
            return nutrient
        order = _ORDERS.get((direction, nutrient))
        if order is None:
            return Unclear("search_foods", "filter_unsupported", s.raw(at, nutrient_at + 1))
        return order
    for at in s.where("nutrient"):
        if at in used:
            continue
        nutrient = s.items[at].value("nutrient") or ""
        used.add(at)
        if nutrient in {"protein", "fiber"}:
            return nutrient
        return Unclear("search_foods", "filter_unsupported", s.items[at].token.text)
    return None
