"""Diet tools: the bundled food table and the user's meal log.

A meal's nutrients are always computed here, from the food table and the logged grams; the
model gives only which food and how much (any other field is rejected by the schema), so a
total can never be one the model made up.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from surefoot import (
    CalendarDate,
    Detail,
    ErrorCode,
    Lang,
    Recovery,
    ToolContext,
    ToolError,
    ToolSet,
)
from surefoot.grounding import Grounded
from surefoot.sql import Tx

from . import catalog, meals
from .faults import Faults
from .rules import AMOUNT_LIMITS, date_refusal
from .store import GymStore
from .texts import t

if TYPE_CHECKING:
    from .tools import StoreOf


def _meal_id(value: str) -> str:
    meal = meals.resolve(value)
    if meal is None:
        raise PydanticCustomError(
            "literal_error",
            "is not a meal id or label",
            {"expected": meals.accepted_values()},
        )
    return meal


Meal = Annotated[
    str,
    AfterValidator(_meal_id),
    Field(
        description="breakfast, mid_morning, lunch, afternoon, dinner, or a label in es/pt/en "
        "(Almuerzo is mid_morning, Comida lunch)",
    ),
]
FoodId = Annotated[str, Field(min_length=1, max_length=100, description="From search_foods")]
ItemId = Annotated[int, Field(ge=1, description="From read_meal")]
Grams = Annotated[float, Field(ge=AMOUNT_LIMITS["grams"][0], le=AMOUNT_LIMITS["grams"][1])]
Query = Annotated[str, Field(min_length=1, max_length=100, description="Name words, any language")]
MaxCalories = Annotated[float, Field(ge=0, le=1000, description="At most, kcal per 100 g")]
MinProtein = Annotated[float, Field(ge=0, le=100, description="At least, g per 100 g")]
SortBy = Annotated[
    catalog.FoodSort,
    Field(description="protein, fiber: highest first; calories, carbs, fat: lowest first"),
]


def _round(value: float) -> float:
    return round(value, 1)


def _amounts(food_id: str, grams: float) -> dict[str, float] | None:
    """The nutrients in ``grams`` of ``food_id``, unrounded (None: not in the food table)."""
    food = catalog.foods().get(food_id)
    if food is None:
        return None
    return {nutrient: food.per_100g[nutrient] * grams / 100 for nutrient in catalog.NUTRIENTS}


def totals(items: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Nutrient totals of ``(food_id, grams)`` items, from the food table, to one decimal."""
    sums = dict.fromkeys(catalog.NUTRIENTS, 0.0)
    for food_id, grams in items:
        for nutrient, amount in (_amounts(food_id, grams) or {}).items():
            sums[nutrient] += amount
    return {nutrient: _round(total) for nutrient, total in sums.items()}


def meal_json(
    date: dt.date,
    meal: str,
    items: Sequence[tuple[str, float]],
    lang: Lang,
    ids: Sequence[int] | None = None,
) -> dict[str, Any]:
    """One meal as the tools return it: its ``(food_id, grams)`` items, in order, with their
    nutrients and the meal's totals, all computed from the food table. With ``ids`` (one per
    item) each item also carries its ``item_id``, which edit and delete take."""
    rows: list[dict[str, Any]] = []
    unknown: list[str] = []
    for index, (food_id, grams) in enumerate(items):
        food = catalog.foods().get(food_id)
        amounts = _amounts(food_id, grams)
        row: dict[str, Any] = {} if ids is None else {"item_id": ids[index]}
        row.update({"food_id": food_id, "name": food.name(lang) if food else None})
        row["grams"] = grams
        for nutrient in catalog.NUTRIENTS:
            row[nutrient] = None if amounts is None else _round(amounts[nutrient])
        if amounts is None:
            unknown.append(food_id)
        rows.append(row)
    out: dict[str, Any] = {
        "date": date.isoformat(),
        "meal": meal,
        "label": meals.label(meal, lang),
        "items": rows,
        "totals": totals(items),
    }
    if unknown:
        out["foods_not_in_table"] = unknown
    return out


def register_diet_tools(
    tools: ToolSet, stores: StoreOf, faults: Faults, today: Callable[[], dt.date]
) -> None:
    """Declare ``search_foods``, ``read_meal``, ``add_meal_food``, ``edit_meal_item`` and
    ``delete_meal_item`` (a person confirms it) on ``tools``; a meal is dated today or
    earlier (``rules.py``)."""

    @tools.tool
    def search_foods(
        ctx: ToolContext,
        *,
        query: Query | None = None,
        category: catalog.FoodCategory | None = None,
        max_calories: MaxCalories | None = None,
        min_protein: MinProtein | None = None,
        sort_by: SortBy | None = None,
    ) -> dict[str, Any]:
        """Search the food table (nutrients per 100 g): every filter given must hold; up to
        15 foods, and total_matches."""
        faults.on_read(ctx.tool)
        found, total = catalog.search_foods(
            lang=ctx.lang,
            query=query,
            category=category,
            max_calories=max_calories,
            min_protein=min_protein,
            sort_by=sort_by,
        )
        return {"foods": [food.to_json(ctx.lang) for food in found], "total_matches": total}

    @tools.tool
    def read_meal(ctx: ToolContext, date: CalendarDate, meal: Meal) -> dict[str, Any]:
        """The foods logged in one meal of one date, with item_id, nutrients and totals (an
        empty meal says nothing about the others)."""
        faults.on_read(ctx.tool)
        return logged_meal(stores(ctx), date, meal, ctx.lang)

    # grams and date only from the person's words: "0,25 kg" logged as 250 g waits for a yes
    @tools.tool(
        effect="write",
        destructive=False,
        atomic=True,
        grounded={"grams": Grounded.number("g"), "date": Grounded.date()},
    )
    def add_meal_food(
        ctx: ToolContext, date: CalendarDate, meal: Meal, food_id: FoodId, grams: Grams
    ) -> dict[str, Any] | ToolError:
        """Log the grams of one food the user ate in one meal of a date (today or earlier);
        each call adds one more item, so call it once per food. Grams of food are not body
        weight; another person's meal is not the user's."""
        refused = date_refusal(ctx.lang, "date", date, today(), what="meal")
        if refused is not None:
            return refused
        if food_id not in catalog.foods():
            return ToolError(
                "not_found",
                t(ctx.lang, "food_not_found", food_id=food_id),
                Recovery.CHOOSE_ALTERNATIVE,
            )
        store = stores(ctx)
        with store.transaction() as tx:
            store.add_meal_item(tx, date, meal, food_id, grams)
            saved = logged_meal(store, date, meal, ctx.lang, tx=tx)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    _register_meal_changes(tools, stores, faults, today)


def _register_meal_changes(
    tools: ToolSet, stores: StoreOf, faults: Faults, today: Callable[[], dt.date]
) -> None:
    @tools.tool(effect="write", atomic=True)
    def edit_meal_item(
        ctx: ToolContext,
        item_id: ItemId,
        grams: Grams | None = None,
        food_id: FoodId | None = None,
        meal: Meal | None = None,
        date: CalendarDate | None = None,
    ) -> dict[str, Any] | ToolError:
        """Correct one logged food: its grams, food, meal or date (what is not given is
        kept)."""
        changes: dict[str, Any] = {
            name: value
            for name, value in (("grams", grams), ("food_id", food_id), ("meal", meal))
            if value is not None
        }
        if date is not None:
            changes["date"] = date
        if not changes:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                t(ctx.lang, "no_changes"),
                Recovery.CORRECT_ARGUMENTS,
                details=(Detail("grams", "no change given", "at least one change"),),
            )
        refused = date_refusal(ctx.lang, "date", date, today(), what="meal")
        if refused is not None:
            return refused
        if food_id is not None and food_id not in catalog.foods():
            return ToolError(
                "not_found",
                t(ctx.lang, "food_unknown_change", food_id=food_id),
                Recovery.CHOOSE_ALTERNATIVE,
            )
        store = stores(ctx)
        with store.transaction() as tx:
            item = store.update_meal_item(tx, item_id, changes)
            if item is None:
                message = t(ctx.lang, "meal_item_not_found", item_id=item_id)
                return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)
            day = dt.date.fromisoformat(item["date"])
            saved = logged_meal(store, day, item["meal"], ctx.lang, tx=tx)
            saved["item_id"] = item_id
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    @tools.tool(effect="write", confirm=True, atomic=True)
    def delete_meal_item(ctx: ToolContext, item_id: ItemId) -> dict[str, Any] | ToolError:
        """Delete one logged food (a person confirms)."""
        store = stores(ctx)
        with store.transaction() as tx:
            item = store.delete_meal_item(tx, item_id)
            if item is None:
                message = t(ctx.lang, "meal_item_not_found", item_id=item_id)
                return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)
            day = dt.date.fromisoformat(item["date"])
            deleted = {
                "deleted": item,
                "meal": logged_meal(store, day, item["meal"], ctx.lang, tx=tx),
            }
            faults.before_commit(ctx)
            ctx.commit_in(tx, deleted)
        faults.after_commit(ctx)
        return deleted


def logged_meal(
    store: GymStore, date: dt.date, meal: str, lang: Lang, *, tx: Tx | None = None
) -> dict[str, Any]:
    """One meal of ``date`` as logged (as ``tx`` sees it, when given), with item ids."""
    entries = store.meal_entries(date, meal, tx=tx)
    return meal_json(
        date, meal, [(food, grams) for _, _, food, grams in entries], lang, [e[0] for e in entries]
    )
