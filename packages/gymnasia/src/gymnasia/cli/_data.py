"""Data commands that work without the agent: measurements, meals, routines, foods,
exercises, export and delete-data."""

from __future__ import annotations

import json
import sys
from typing import Annotated, cast, get_args

import typer

from surefoot import open_database

from .. import catalog, meals
from ..diet import meal_json, totals
from ..store import MEASUREMENT_FIELDS, GymStore
from ..texts import number, t
from ..training import routine_json
from ._base import (
    DbOpt,
    JsonOpt,
    LangOpt,
    UsageProblem,
    UserOpt,
    app,
    db_target,
    err,
    exercises_app,
    existing_store,
    foods_app,
    meals_app,
    measurements_app,
    out,
    parse_amount,
    parse_bounded,
    parse_choice,
    parse_date,
    parse_lang,
    parse_meal,
    routines_app,
)
from ._output import nutrients, print_meal, write_json

# -- data commands -----------------------------------------------------------------------------


@measurements_app.command("list")
def measurements_list(
    db: DbOpt = None,
    date_from: Annotated[
        str | None, typer.Option("--from", help="First date (YYYY-MM-DD).")
    ] = None,
    date_to: Annotated[str | None, typer.Option("--to", help="Last date (YYYY-MM-DD).")] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List saved measurements, by date."""
    language = parse_lang(lang)
    start = parse_date(date_from, language) if date_from else None
    end = parse_date(date_to, language) if date_to else None
    store = existing_store(db, language, user)
    rows = store.list_measurements(start, end)
    store.db.close()
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        values = ", ".join(f"{k}={v:g}" for k, v in row.items() if k != "date" and v is not None)
        out.print(f"{row['date']}  {values}")


@measurements_app.command("show")
def measurements_show(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Show the measurement of one date (exit 1 when there is none)."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    store = existing_store(db, language, user)
    row = store.read_measurement(day)
    store.db.close()
    if row is None:
        err.print(t(language, "no_such_record", date=day.isoformat()))
        raise typer.Exit(1)
    if json_output:
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    for key, value in row.items():
        out.print(f"{key}: {value}")


@measurements_app.command("add")
def measurements_add(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    weight_kg: Annotated[float | None, typer.Option("--weight-kg")] = None,
    body_fat_pct: Annotated[float | None, typer.Option("--body-fat-pct")] = None,
    waist_cm: Annotated[float | None, typer.Option("--waist-cm")] = None,
    height_cm: Annotated[float | None, typer.Option("--height-cm")] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
) -> None:
    """Save (upsert) a measurement directly, for seeding or without chatting."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    values = {
        k: v
        for k, v in {
            "weight_kg": weight_kg,
            "body_fat_pct": body_fat_pct,
            "waist_cm": waist_cm,
            "height_cm": height_cm,
        }.items()
        if v is not None
    }
    if not values:
        msg = "give at least one value, e.g. --weight-kg 76"
        raise UsageProblem(msg)
    from ..tools import build_tools

    store = GymStore(open_database(db_target(db)), user=user)
    tool = build_tools(store).get("write_measurement")
    assert tool is not None
    checked = tool.validate({"date": day.isoformat(), **values})
    if isinstance(checked, tuple):
        problems = "; ".join(f"{d.field}: {d.expected or d.problem}" for d in checked)
        store.db.close()
        raise UsageProblem(problems)
    with store.transaction() as tx:
        saved = store.upsert_measurement(tx, day, values)
    store.db.close()
    out.print(
        f"{t(language, 'saved')}: {saved['date']} "
        + ", ".join(f"{k}={saved[k]:g}" for k in MEASUREMENT_FIELDS if saved[k] is not None)
    )


@app.command("export")
def export_data(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
) -> None:
    """Print all of the user's data as one JSON object (for backups and moving)."""
    store = existing_store(db, parse_lang(lang), user)
    data = store.export()
    store.db.close()
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


@app.command("delete-data")
def delete_data(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete all of the user's data (asks first)."""
    store = existing_store(db, parse_lang(lang), user)
    try:
        if not yes and not typer.confirm(f"Delete all data of user {user!r}?", default=False):
            raise typer.Exit(1)
        removed = store.delete_all()
    finally:
        store.db.close()
    out.print(f"deleted {removed} row(s)")


@meals_app.command("show")
def meals_show(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    meal: Annotated[
        str | None, typer.Option("--meal", help="Only this meal (id or label).")
    ] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Show what was logged on a date: one meal, or every meal of the day and its totals."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    chosen = parse_meal(meal, language) if meal is not None else None
    store = existing_store(db, language, user)
    logged = store.meal_items(day, chosen)
    store.db.close()
    shown = [
        meal_json(day, m, [(food, grams) for mm, food, grams in logged if mm == m], language)
        for m in ((chosen,) if chosen else meals.MEAL_IDS)
    ]
    day_totals = totals((food, grams) for _, food, grams in logged)
    if json_output:
        write_json(
            shown[0] if chosen else {"date": day.isoformat(), "meals": shown, "totals": day_totals}
        )
        return
    out.print(f"[bold]{day.isoformat()}[/bold]")
    for item in shown:
        print_meal(item, language)
    if not chosen:
        out.print(f"{t(language, 'day_total')}: {nutrients(day_totals, language)}", soft_wrap=True)


@meals_app.command("add")
def meals_add(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    meal: Annotated[str, typer.Argument(help="The meal: an id or a label (es, pt, en).")],
    food_id: Annotated[str, typer.Argument(help="A food id ('gymnasia foods search').")],
    grams: Annotated[str, typer.Argument(help="How much, in grams (1-5000; 150 or 150,5).")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Log an amount of one food in one meal (adds an item; never replaces)."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    chosen = parse_meal(meal, language)
    food = catalog.foods().get(food_id)
    if food is None:
        raise UsageProblem(t(language, "unknown_food", value=food_id))
    amount = parse_amount(grams, 1, 5000)
    if amount is None:
        raise UsageProblem(t(language, "bad_grams", value=grams))
    store = existing_store(db, language, user)
    with store.transaction() as tx:
        store.add_meal_item(tx, day, chosen, food_id, amount)
        logged = store.meal_items(day, chosen, tx=tx)
    store.db.close()
    saved = meal_json(day, chosen, [(f, g) for _, f, g in logged], language)
    if json_output:
        write_json(saved)
        return
    added = t(
        language,
        "meal_added",
        grams=number(amount, language),
        food=food.name(language),
        meal=saved["label"],
        date=day.isoformat(),
        kcal=number(saved["totals"]["energy_kcal"], language),
    )
    out.print(added, markup=False, soft_wrap=True)


@routines_app.command("list")
def routines_list(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List saved routines with their exercises and series."""
    language = parse_lang(lang)
    store = existing_store(db, language, user)
    rows = [routine_json(r, language) for r in store.routines()]
    store.db.close()
    if json_output:
        write_json(rows)
        return
    if not rows:
        out.print(t(language, "no_routines"))
    for routine in rows:
        title = f"{routine['name']} ({routine['category']})"
        out.print(title, style="bold", markup=False, soft_wrap=True)
        for index, step in enumerate(routine["exercises"], start=1):
            series = ", ".join(
                f"{s['reps']} x {number(s['weight_kg'], language)} kg/{s['rest_seconds']} s"
                for s in step["series"]
            )
            name = step["name"] or step["exercise_id"]
            out.print(f"  {index}. {name}: {series}", markup=False, soft_wrap=True)


@foods_app.command("search")
def foods_search(
    query: Annotated[str | None, typer.Argument(help="Words of the name (any language).")] = None,
    category: Annotated[str | None, typer.Option("--category")] = None,
    max_calories: Annotated[str | None, typer.Option("--max-calories", help="kcal/100 g")] = None,
    min_protein: Annotated[str | None, typer.Option("--min-protein", help="g/100 g")] = None,
    sort_by: Annotated[str | None, typer.Option("--sort-by")] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Search the bundled food table (values per 100 g); every match is listed."""
    language = parse_lang(lang)
    sort = parse_choice(sort_by, "--sort-by", get_args(catalog.FoodSort), language)
    found, _ = catalog.search_foods(
        lang=language,
        query=query,
        category=parse_choice(category, "--category", catalog.food_categories(), language),
        max_calories=parse_bounded(max_calories, "--max-calories", language, 0, 1000),
        min_protein=parse_bounded(min_protein, "--min-protein", language, 0, 100),
        sort_by=cast("catalog.FoodSort | None", sort),
        limit=None,
    )
    if json_output:
        write_json([food.to_json(language) for food in found])
        return
    if not found:
        out.print(t(language, "nothing_found"))
    for food in found:
        values = nutrients(dict(food.per_100g), language)
        out.print(
            f"{food.id}  {food.name(language)} [{food.category}]  {values}",
            markup=False,
            soft_wrap=True,
        )


@exercises_app.command("search")
def exercises_search(
    query: Annotated[str | None, typer.Argument(help="Words of the name (any language).")] = None,
    muscle_group: Annotated[str | None, typer.Option("--muscle-group")] = None,
    equipment: Annotated[str | None, typer.Option("--equipment")] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Search the bundled exercise table; every match is listed."""
    language = parse_lang(lang)
    found, _ = catalog.search_exercises(
        lang=language,
        query=query,
        muscle_group=parse_choice(
            muscle_group, "--muscle-group", catalog.muscle_groups(), language
        ),
        equipment=parse_choice(equipment, "--equipment", catalog.equipment_kinds(), language),
        limit=None,
    )
    if json_output:
        write_json([item.to_json(language) for item in found])
        return
    if not found:
        out.print(t(language, "nothing_found"))
    for item in found:
        out.print(
            f"{item.id}  {item.name(language)} [{item.muscle_group}, {item.equipment}, "
            f"{item.difficulty}]",
            markup=False,
            soft_wrap=True,
        )
