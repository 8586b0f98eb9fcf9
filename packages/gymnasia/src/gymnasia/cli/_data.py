"""Data commands that work without the agent: measurements, meals, routines, foods,
exercises and export (``delete-data`` is in ``_erase``)."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from typing import TYPE_CHECKING, Annotated, Any, cast, get_args

import typer

from .. import i18n
from ..rules import MAX_YEARS_BACK, MEASUREMENT_LIMITS, date_problem, oldest_date, unlikely_question
from ..store import MEASUREMENT_FIELDS, DateTaken
from ..texts import number, t
from ._base import (
    DbOpt,
    JsonOpt,
    LangOpt,
    TodayOpt,
    UsageProblem,
    UserOpt,
    app,
    confirmed,
    err,
    exercises_app,
    existing_store,
    foods_app,
    goals_app,
    meals_app,
    measurements_app,
    out,
    parse_amount,
    parse_bounded,
    parse_choice,
    parse_date,
    parse_lang,
    parse_meal,
    parse_today,
    routines_app,
)
from ._help import field_help
from ._output import nutrients, print_meal, write_json

if TYPE_CHECKING:  # each command imports what it uses: ``gymnasia --help`` loads none of it
    from surefoot import Lang
    from surefoot.sql import Tx

    from .. import catalog
    from ..training import Plan

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
    if not rows:
        out.print(t(language, "no_measurements_yet"), markup=False)
    for row in rows:  # the date as the other commands take it, then the values in words
        out.print(f"{row['date']}  {_measurement_values_text(row, language)}", markup=False)


@goals_app.command("list")
def goals_list(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List the saved goals: per measure, its target and optional date."""
    from ..tools import describe_goal

    language = parse_lang(lang)
    store = existing_store(db, language, user)
    rows = store.goals()
    store.db.close()
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    if not rows:
        out.print(t(language, "goals_empty"), markup=False)
    for row in rows:  # a goal's date in words: no command takes it back
        by_date = row["by_date"] and i18n.day(dt.date.fromisoformat(row["by_date"]), language)
        out.print(describe_goal({**row, "by_date": by_date}, language), markup=False)


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
    if row is None:  # exit 1 and nothing on stdout, also under --json: there is no record
        err.print(t(language, "no_such_record", date=day.isoformat()), markup=False)
        raise typer.Exit(1)
    if json_output:
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    out.print(i18n.day(day, language), markup=False)
    for name in MEASUREMENT_FIELDS:
        if row[name] is not None:  # a field never measured is not shown
            shown = i18n.quantity(row[name], _unit(name), language)
            out.print(f"{t(language, f'offline_field_{name}')}: {shown}", markup=False)


def _field_option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _unit(name: str) -> str:
    """The unit of measurement field ``name``, from its suffix."""
    return {"kg": "kg", "pct": "%", "cm": "cm"}[name.rsplit("_", 1)[1]]


def _field(name: str) -> Any:
    return typer.Option(_field_option(name), help=field_help(name))


WeightOpt = Annotated[str | None, _field("weight_kg")]
BodyFatOpt = Annotated[str | None, _field("body_fat_pct")]
NeckOpt = Annotated[str | None, _field("neck_cm")]
ChestOpt = Annotated[str | None, _field("chest_cm")]
WaistOpt = Annotated[str | None, _field("waist_cm")]
HipsOpt = Annotated[str | None, _field("hips_cm")]
BicepsOpt = Annotated[str | None, _field("biceps_cm")]
QuadricepsOpt = Annotated[str | None, _field("quadriceps_cm")]
CalfOpt = Annotated[str | None, _field("calf_cm")]
HeightOpt = Annotated[str | None, _field("height_cm")]
YesOpt = Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")]
SureOpt = Annotated[
    bool, typer.Option("--yes", help="Save a value that is allowed but unlikely without asking.")
]


def _today(today: str | None, lang: Lang) -> dt.date:
    """The person's today: --today, GYMNASIA_TODAY, else the clock's."""
    return parse_today(today, lang) or dt.date.today()  # noqa: DTZ011 - a calendar date


def _check_date(day: dt.date, today: dt.date, lang: Lang, what: str) -> None:
    """A record's date follows the tools' rule (``gymnasia.rules``): not after today, not
    more than a century before it."""
    problem = date_problem(day, today)
    if problem is None:
        return
    message = t(
        lang,
        f"cli_{problem}",
        date=day.isoformat(),
        today=today.isoformat(),
        oldest=oldest_date(today).isoformat(),
        years=MAX_YEARS_BACK,
        what=t(lang, f"rule_record_{what}"),
    )
    raise UsageProblem(message, code=problem)


def _check_likely(question: str | None, lang: Lang, *, sure: bool) -> None:
    """A value that is allowed but unlikely (``gymnasia.rules``) is saved after a person's
    yes: asked on a terminal, refused with the facts and the flag elsewhere, unless --yes."""
    if question is None or sure:
        return
    if not sys.stdin.isatty():
        raise UsageProblem(t(lang, "cli_unlikely_refused", question=question), code="unlikely")
    if not confirmed(question, lang):
        raise _missing(t(lang, "cli_not_saved"))


def _measurement_values(given: dict[str, str | None], lang: Lang) -> dict[str, float]:
    """The typed values (decimal comma or point), each within its field's range."""
    values: dict[str, float] = {}
    for name, text in given.items():
        low, high = MEASUREMENT_LIMITS[name]
        value = parse_bounded(text, _field_option(name), lang, low, high)
        if value is not None:
            values[name] = value
    return values


def _measurement_values_text(row: dict[str, Any], lang: Lang) -> str:
    """A record's values in words: ``peso 77,4 kg, cintura 80 cm``."""
    return ", ".join(
        f"{t(lang, f'offline_field_{k}')} {i18n.quantity(row[k], _unit(k), lang)}"
        for k in MEASUREMENT_FIELDS
        if row[k] is not None
    )


def _measurement_line(row: dict[str, Any], lang: Lang) -> str:
    """A record in words: ``3 dic 2020: peso 77,4 kg``."""
    when = i18n.day(dt.date.fromisoformat(row["date"]), lang)
    return f"{when}: {_measurement_values_text(row, lang)}"


def _missing(message: str) -> UsageProblem:
    """Something to change or delete is not there: one line, exit 1 (as ``show`` does)."""
    return UsageProblem(message, exit_code=1)


@measurements_app.command("add")
def measurements_add(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    weight_kg: WeightOpt = None,
    body_fat_pct: BodyFatOpt = None,
    neck_cm: NeckOpt = None,
    chest_cm: ChestOpt = None,
    waist_cm: WaistOpt = None,
    hips_cm: HipsOpt = None,
    biceps_cm: BicepsOpt = None,
    quadriceps_cm: QuadricepsOpt = None,
    calf_cm: CalfOpt = None,
    height_cm: HeightOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    today: TodayOpt = None,
    sure: SureOpt = False,
    json_output: JsonOpt = False,
) -> None:
    """Save (upsert) a measurement directly: given fields replace, the others are kept. A date
    after today is refused; a value far from the nearest record is asked about (--yes: not)."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    now = _today(today, language)
    _check_date(day, now, language, "measurement")
    values = _measurement_values(
        {
            "weight_kg": weight_kg,
            "body_fat_pct": body_fat_pct,
            "neck_cm": neck_cm,
            "chest_cm": chest_cm,
            "waist_cm": waist_cm,
            "hips_cm": hips_cm,
            "biceps_cm": biceps_cm,
            "quadriceps_cm": quadriceps_cm,
            "calf_cm": calf_cm,
            "height_cm": height_cm,
        },
        language,
    )
    if not values:
        raise UsageProblem(t(language, "give_a_value", example="--weight-kg 76,5"))
    store = existing_store(db, language, user, create=True)
    try:
        nearest = store.nearest_values(day, values)
        _check_likely(unlikely_question(language, values, day, nearest, now), language, sure=sure)
        with store.transaction() as tx:
            saved = store.upsert_measurement(tx, day, values)
    finally:
        store.db.close()
    if json_output:
        write_json(saved)
        return
    out.print(f"{t(language, 'saved')}: {_measurement_line(saved, language)}", markup=False)


@measurements_app.command("edit")
def measurements_edit(
    date: Annotated[str, typer.Argument(help="The date of the record (YYYY-MM-DD).")],
    db: DbOpt = None,
    weight_kg: WeightOpt = None,
    body_fat_pct: BodyFatOpt = None,
    neck_cm: NeckOpt = None,
    chest_cm: ChestOpt = None,
    waist_cm: WaistOpt = None,
    hips_cm: HipsOpt = None,
    biceps_cm: BicepsOpt = None,
    quadriceps_cm: QuadricepsOpt = None,
    calf_cm: CalfOpt = None,
    height_cm: HeightOpt = None,
    clear: Annotated[
        list[str] | None,
        typer.Option("--clear", help="Empty this field (e.g. --clear waist-cm); repeatable."),
    ] = None,
    new_date: Annotated[
        str | None, typer.Option("--new-date", help="Move the record to this date.")
    ] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    today: TodayOpt = None,
    sure: SureOpt = False,
    json_output: JsonOpt = False,
) -> None:
    """Correct an existing measurement: given fields replace, --clear empties, the rest is
    kept; --new-date moves it (exit 1 when the date has no record). A new date after today is
    refused; a value far from the nearest other record is asked about (--yes: not)."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    target = parse_date(new_date, language) if new_date else None
    now = _today(today, language)
    if target is not None:
        _check_date(target, now, language, "measurement")
    values = _measurement_values(
        {
            "weight_kg": weight_kg,
            "body_fat_pct": body_fat_pct,
            "neck_cm": neck_cm,
            "chest_cm": chest_cm,
            "waist_cm": waist_cm,
            "hips_cm": hips_cm,
            "biceps_cm": biceps_cm,
            "quadriceps_cm": quadriceps_cm,
            "calf_cm": calf_cm,
            "height_cm": height_cm,
        },
        language,
    )
    emptied = [
        parse_choice(c.strip().replace("-", "_"), "--clear", MEASUREMENT_FIELDS, language) or ""
        for c in clear or []
    ]
    both = sorted(set(emptied) & set(values))
    if both:
        raise UsageProblem(t(language, "set_and_clear", fields=", ".join(both)))
    if not values and not emptied and target in (None, day):
        raise UsageProblem(t(language, "give_a_value", example="--weight-kg 76,5"))
    store = existing_store(db, language, user)
    try:
        landing = target or day
        nearest = store.nearest_values(landing, values, besides=(day,))
        question = unlikely_question(language, values, landing, nearest, now)
        _check_likely(question, language, sure=sure)
        with store.transaction() as tx:
            current = store.read_measurement(day, tx=tx)
            if current is None:
                raise _missing(t(language, "no_such_record", date=day.isoformat()))
            kept = [n for n in MEASUREMENT_FIELDS if current[n] is not None and n not in emptied]
            if not values and not kept:
                raise UsageProblem(t(language, "record_would_be_empty", date=day.isoformat()))
            saved = store.update_measurement(tx, day, values, clear=emptied, new_date=target)
    except DateTaken as taken:
        raise UsageProblem(t(language, "date_taken", date=taken.date.isoformat())) from None
    finally:
        store.db.close()
    assert saved is not None
    if json_output:
        write_json(saved)
        return
    out.print(f"{t(language, 'updated')}: {_measurement_line(saved, language)}", markup=False)


@measurements_app.command("delete")
def measurements_delete(
    date: Annotated[str, typer.Argument(help="The date of the record (YYYY-MM-DD).")],
    db: DbOpt = None,
    yes: YesOpt = False,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Delete the measurement of one date (asks first; exit 1 when there is none)."""
    language = parse_lang(lang)
    day = parse_date(date, language)
    store = existing_store(db, language, user)
    try:
        found = store.read_measurement(day)
        if found is None:
            raise _missing(t(language, "no_such_record", date=day.isoformat()))
        values = _measurement_values_text(found, language)
        question = t(language, "ask_delete_measurement", date=day.isoformat(), values=values)
        if not yes and not confirmed(question, language):
            raise _missing(t(language, "not_deleted"))
        with store.transaction() as tx:
            removed = store.delete_measurement(tx, day)
        if removed is None:  # deleted by someone else while we asked
            raise _missing(t(language, "no_such_record", date=day.isoformat()))
    finally:
        store.db.close()
    if json_output:
        write_json({"deleted": removed})
        return
    out.print(f"{t(language, 'deleted')}: {_measurement_line(removed, language)}", markup=False)


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


@app.command("import")
def import_data(
    file: Annotated[str, typer.Argument(help="A file 'gymnasia export' wrote ('-': stdin).")],
    db: DbOpt = None,
    replace: Annotated[
        bool,
        typer.Option("--replace", help="Swap the user's existing data for the file's."),
    ] = False,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    today: TodayOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Load what 'gymnasia export' wrote into --user's data, all of it or nothing: a
    malformed file (or one naming an unknown food or exercise, or dated after today) changes
    nothing, and a user who already has data is refused unless --replace. Reads at most
    64 MiB, and only a regular file or '-'."""
    from ..backup import ExportError, read_export, read_source

    language = parse_lang(lang)
    try:
        text = read_source(file, language)
    except ExportError as unreadable:
        raise UsageProblem(unreadable.problem) from None
    try:
        data = read_export(text, language, parse_today(today, language))
    except ExportError as bad:
        message = t(language, "import_malformed", file=file, problem=bad.problem)
        raise UsageProblem(message) from None
    rows = data.rows()
    store = existing_store(db, language, user, create=True)
    try:
        with store.transaction() as tx:
            if store.has_data(tx):
                if not replace:
                    raise UsageProblem(t(language, "import_not_empty", user=user))
                store.delete_all_in(tx)
            store.import_all(tx, rows)
    finally:
        store.db.close()
    counts = {name: len(records) for name, records in rows.items()}
    if json_output:
        write_json({"user": user, "imported": counts})
        return
    out.print(t(language, "imported", user=user, **counts), markup=False, soft_wrap=True)


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
    from .. import meals
    from ..diet import meal_json, totals

    language = parse_lang(lang)
    day = parse_date(date, language)
    chosen = parse_meal(meal, language) if meal is not None else None
    store = existing_store(db, language, user)
    logged = store.meal_entries(day, chosen)
    store.db.close()
    shown = [
        meal_json(
            day,
            m,
            [(food, grams) for _, mm, food, grams in logged if mm == m],
            language,
            [item for item, mm, _, _ in logged if mm == m],
        )
        for m in ((chosen,) if chosen else meals.MEAL_IDS)
    ]
    day_totals = totals((food, grams) for _, _, food, grams in logged)
    if json_output:
        write_json(
            shown[0] if chosen else {"date": day.isoformat(), "meals": shown, "totals": day_totals}
        )
        return
    out.print(i18n.day(day, language), style="bold", markup=False)
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
    today: TodayOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Log an amount of one food in one meal (adds an item; never replaces); a date after
    today is refused."""
    from .. import catalog
    from ..diet import logged_meal

    language = parse_lang(lang)
    day = parse_date(date, language)
    _check_date(day, _today(today, language), language, "meal")
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
        saved = logged_meal(store, day, chosen, language, tx=tx)
    store.db.close()
    if json_output:
        write_json(saved)
        return
    added = t(
        language,
        "meal_added",
        grams=number(amount, language),
        food=food.name(language),
        meal=saved["label"],
        date=i18n.day(day, language),
        kcal=number(saved["totals"]["energy_kcal"], language),
    )
    out.print(added, markup=False, soft_wrap=True)


def _item_id(value: str, lang: Lang) -> int:
    if value.isascii() and value.isdigit() and 0 < int(value) < 2**63:
        return int(value)
    raise UsageProblem(t(lang, "bad_item_id", value=value))


@meals_app.command("edit")
def meals_edit(
    item: Annotated[str, typer.Argument(help="The item's id, as 'meals show' lists it.")],
    db: DbOpt = None,
    grams: Annotated[
        str | None, typer.Option("--grams", help="New amount (1-5000; 150 or 150,5).")
    ] = None,
    food_id: Annotated[str | None, typer.Option("--food", help="Another food id.")] = None,
    meal: Annotated[str | None, typer.Option("--meal", help="Move it to this meal.")] = None,
    date: Annotated[
        str | None, typer.Option("--date", help="Move it to this date (YYYY-MM-DD).")
    ] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    today: TodayOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Correct one logged food: its amount, the food, its meal or its date (exit 1 when there
    is no such item; a date after today is refused). Prints the meal it is now in."""
    from .. import catalog
    from ..diet import logged_meal

    language = parse_lang(lang)
    item_id = _item_id(item, language)
    changes: dict[str, Any] = {}
    if grams is not None:
        amount = parse_amount(grams, 1, 5000)
        if amount is None:
            raise UsageProblem(t(language, "bad_grams", value=grams))
        changes["grams"] = amount
    if food_id is not None:
        if food_id not in catalog.foods():
            raise UsageProblem(t(language, "unknown_food", value=food_id))
        changes["food_id"] = food_id
    if meal is not None:
        changes["meal"] = parse_meal(meal, language)
    if date is not None:
        changes["date"] = parse_date(date, language)
        _check_date(changes["date"], _today(today, language), language, "meal")
    if not changes:
        raise UsageProblem(t(language, "give_a_value", example="--grams 150"))
    store = existing_store(db, language, user)
    try:
        with store.transaction() as tx:
            saved = store.update_meal_item(tx, item_id, changes)
            if saved is None:
                raise _missing(t(language, "no_such_item", item_id=item_id))
            day = dt.date.fromisoformat(saved["date"])
            shown = logged_meal(store, day, saved["meal"], language, tx=tx)
    finally:
        store.db.close()
    if json_output:
        write_json({**shown, "item_id": item_id})
        return
    out.print(f"{t(language, 'updated')}: [bold]{i18n.day(day, language)}[/bold]")
    print_meal(shown, language)


@meals_app.command("delete")
def meals_delete(
    item: Annotated[str, typer.Argument(help="The item's id, as 'meals show' lists it.")],
    db: DbOpt = None,
    yes: YesOpt = False,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Delete one logged food (asks first; exit 1 when there is no such item)."""
    from .. import catalog, meals
    from ..diet import logged_meal

    language = parse_lang(lang)
    item_id = _item_id(item, language)
    store = existing_store(db, language, user)
    try:
        found = store.meal_item(item_id)
        if found is None:
            raise _missing(t(language, "no_such_item", item_id=item_id))
        food = catalog.foods().get(found["food_id"])
        question = t(
            language,
            "ask_delete_meal_item",
            grams=number(found["grams"], language),
            food=food.name(language) if food else found["food_id"],
            meal=meals.label(found["meal"], language),
            date=found["date"],
        )
        if not yes and not confirmed(question, language):
            raise _missing(t(language, "not_deleted"))
        with store.transaction() as tx:
            removed = store.delete_meal_item(tx, item_id)
            if removed is None:
                raise _missing(t(language, "no_such_item", item_id=item_id))
            day = dt.date.fromisoformat(removed["date"])
            left = logged_meal(store, day, removed["meal"], language, tx=tx)
    finally:
        store.db.close()
    if json_output:
        write_json({"deleted": removed, "meal": left})
        return
    out.print(f"{t(language, 'deleted')}: [bold]{i18n.day(day, language)}[/bold]")
    print_meal(left, language)


@routines_app.command("list")
def routines_list(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List saved routines with their exercises and series."""
    from ..training import routine_json

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
        _print_routine(routine, language)


_SERIES = re.compile(r"([0-9]{1,3})[xX\u00d7]([0-9]{1,4}(?:[.,][0-9]+)?)/([0-9]{1,3})")


def _series(text: str, lang: Lang) -> tuple[int, float, int]:
    """``REPSxKG/REST`` (``8x22,5/90``) as ``(reps, weight_kg, rest_seconds)``."""
    found = _SERIES.fullmatch(text.strip())
    if found is not None:
        reps, load, rest = int(found[1]), parse_amount(found[2], 0, 1000), int(found[3])
        if 1 <= reps <= 100 and load is not None and rest <= 600:
            return reps, load, rest
    raise UsageProblem(t(lang, "bad_series", value=text))


def _exercise(exercise_id: str, series: list[str], lang: Lang) -> tuple[str, Any]:
    from .. import catalog

    if exercise_id not in catalog.exercises():
        raise UsageProblem(t(lang, "unknown_exercise", value=exercise_id))
    return exercise_id, [_series(one, lang) for one in series]


def _routine_line(routine: dict[str, Any], lang: Lang) -> None:
    from ..training import routine_json

    _print_routine(routine_json(routine, lang), lang)


def _print_routine(shown: dict[str, Any], lang: Lang) -> None:
    """A routine as ``routine_json`` gives it: name and kind, then each exercise's series."""
    kind = t(lang, f"offline_category_{shown['category']}")
    out.print(f"{shown['name']} ({kind})", style="bold", markup=False, soft_wrap=True)
    for index, step in enumerate(shown["exercises"], start=1):
        series = ", ".join(
            f"{s['reps']} x {i18n.quantity(s['weight_kg'], 'kg', lang)}/{s['rest_seconds']} s"
            for s in step["series"]
        )
        name = step["name"] or step["exercise_id"]
        out.print(f"  {index}. {name}: {series}", markup=False, soft_wrap=True)


class _RoutineEdit:
    """One routine command: the routine found by name, changed in one transaction."""

    def __init__(self, db: str | None, lang: Lang, user: str, name: str) -> None:
        self.lang = lang
        self.name = name
        self.store = existing_store(db, lang, user)

    def run(self, edit: Any, *, ask: Any = None) -> dict[str, Any]:
        """``edit(tx, routine_id, stored)`` inside one transaction; the routine as saved.
        With ``ask(stored)``, a person must first say yes to that question (asked before the
        transaction opens, so nobody waits on the database while a person thinks)."""
        try:
            if ask is not None:
                routine_id = self.store.find_routine(self.name)
                if routine_id is None:
                    raise _missing(t(self.lang, "no_such_routine", name=self.name))
                if not confirmed(ask(self.store.routines(routine_id)[0]), self.lang):
                    raise _missing(t(self.lang, "not_deleted"))
            with self.store.transaction() as tx:
                routine_id = self.store.find_routine(self.name, tx=tx)
                if routine_id is None:
                    raise _missing(t(self.lang, "no_such_routine", name=self.name))
                stored = self.store.routines(routine_id, tx=tx)[0]
                edit(tx, routine_id, stored)
                found = self.store.routines(routine_id, tx=tx)
        finally:
            self.store.db.close()
        return found[0] if found else stored

    def show(self, routine: dict[str, Any], *, json_output: bool) -> None:
        from ..training import routine_json

        if json_output:
            write_json(routine_json(routine, self.lang))
        else:
            _routine_line(routine, self.lang)


RoutineArg = Annotated[str, typer.Argument(help="The routine's name (case and accents ignored).")]


@routines_app.command("create")
def routines_create(
    name: Annotated[str, typer.Argument(help="The new routine's name.")],
    category: Annotated[
        str, typer.Option("--category", help="strength, hypertrophy, cardio or flexibility.")
    ],
    exercise: Annotated[
        list[str],
        typer.Option(
            "--exercise",
            help="'ID SERIES...', a series being REPSxKG/REST: --exercise 'back_squat 5x100/180 "
            "5x100/180'; repeat for each exercise, in order.",
        ),
    ],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Save a new routine: its exercises in order, each with its series."""
    from ..training import MAX_EXERCISES, RoutineCategory, routine_json

    language = parse_lang(lang)
    name = name.strip()
    if not 1 <= len(name) <= 100:
        raise UsageProblem(t(language, "bad_routine_name"))
    chosen = parse_choice(category, "--category", get_args(RoutineCategory), language)
    plan = []
    for spec in exercise:
        words = spec.split()
        if len(words) < 2:
            raise UsageProblem(t(language, "bad_exercise_spec", value=spec))
        plan.append(_exercise(words[0], words[1:], language))
    if len(plan) > MAX_EXERCISES:
        raise UsageProblem(t(language, "routine_too_long", name=name, count=MAX_EXERCISES))
    store = existing_store(db, language, user, create=True)
    try:
        with store.transaction() as tx:
            routine_id = store.create_routine(tx, name, chosen or "", plan)
            if routine_id is None:
                raise UsageProblem(t(language, "routine_taken", name=name))
            (saved,) = store.routines(routine_id, tx=tx)
    finally:
        store.db.close()
    if json_output:
        write_json(routine_json(saved, language))
        return
    saved_line = t(language, "routine_saved", name=name, count=len(plan))
    out.print(saved_line, markup=False, soft_wrap=True)


@routines_app.command("rename")
def routines_rename(
    routine: RoutineArg,
    new_name: Annotated[str, typer.Argument(help="Its new name.")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Give a routine a new name (exit 1 when there is no such routine)."""
    language = parse_lang(lang)
    new_name = new_name.strip()
    if not 1 <= len(new_name) <= 100:
        raise UsageProblem(t(language, "bad_routine_name"))
    command = _RoutineEdit(db, language, user, routine)

    def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
        del stored
        if not command.store.rename_routine(tx, routine_id, new_name):
            raise UsageProblem(t(language, "routine_taken", name=new_name))

    command.show(command.run(edit), json_output=json_output)


@routines_app.command("add-exercise")
def routines_add_exercise(
    routine: RoutineArg,
    exercise_id: Annotated[str, typer.Argument(help="An exercise id ('exercises search').")],
    series: Annotated[list[str], typer.Argument(help="Its series, each REPSxKG/REST (8x22,5/90).")],
    position: Annotated[
        int | None, typer.Option("--position", help="Where, from 1 (default: at the end).")
    ] = None,
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Add an exercise with its series to a routine, at the end or at --position."""
    from ..training import MAX_EXERCISES, plan_of

    language = parse_lang(lang)
    step = _exercise(exercise_id, series, language)
    command = _RoutineEdit(db, language, user, routine)

    def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
        plan = plan_of(stored)
        if len(plan) >= MAX_EXERCISES:
            raise UsageProblem(
                t(language, "routine_too_long", name=stored["name"], count=len(plan))
            )
        at = len(plan) if position is None else position - 1
        if not 0 <= at <= len(plan):
            count = len(plan)
            raise UsageProblem(
                t(language, "bad_position", value=position, name=stored["name"], count=count)
            )
        command.store.replace_routine_exercises(tx, routine_id, [*plan[:at], step, *plan[at:]])

    command.show(command.run(edit), json_output=json_output)


@routines_app.command("remove-exercise")
def routines_remove_exercise(
    routine: RoutineArg,
    position: Annotated[int, typer.Argument(help="The exercise's place, from 1.")],
    db: DbOpt = None,
    yes: YesOpt = False,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Remove the exercise at a position from a routine (asks first)."""
    from ..training import plan_of, routine_json

    language = parse_lang(lang)
    command = _RoutineEdit(db, language, user, routine)

    def check(stored: dict[str, Any]) -> Plan:
        plan = plan_of(stored)
        if not 1 <= position <= len(plan):
            count = len(plan)
            raise UsageProblem(
                t(language, "bad_position", value=position, name=stored["name"], count=count)
            )
        if len(plan) == 1:
            raise UsageProblem(t(language, "last_exercise", name=stored["name"]))
        return plan

    def ask(stored: dict[str, Any]) -> str:
        check(stored)
        step = routine_json(stored, language)["exercises"][position - 1]
        exercise = step["name"] or step["exercise_id"]
        name = stored["name"]
        return t(language, "ask_remove_exercise", exercise=exercise, position=position, name=name)

    def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
        plan = check(stored)
        command.store.replace_routine_exercises(
            tx, routine_id, plan[: position - 1] + plan[position:]
        )

    command.show(command.run(edit, ask=None if yes else ask), json_output=json_output)


@routines_app.command("reorder")
def routines_reorder(
    routine: RoutineArg,
    order: Annotated[
        list[int], typer.Argument(help="Every current position once, in the new order: 3 1 2.")
    ],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Put a routine's exercises in a new order (each keeps its series)."""
    from ..training import moved, plan_of

    language = parse_lang(lang)
    command = _RoutineEdit(db, language, user, routine)

    def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
        plan = moved(plan_of(stored), order)
        if plan is None:
            raise UsageProblem(t(language, "bad_order", count=len(stored["exercises"])))
        command.store.replace_routine_exercises(tx, routine_id, plan)

    command.show(command.run(edit), json_output=json_output)


@routines_app.command("delete")
def routines_delete(
    routine: RoutineArg,
    db: DbOpt = None,
    yes: YesOpt = False,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Delete a routine with its exercises (asks first)."""
    from ..training import routine_json

    language = parse_lang(lang)
    command = _RoutineEdit(db, language, user, routine)

    def ask(stored: dict[str, Any]) -> str:
        count = len(stored["exercises"])
        return t(language, "ask_delete_routine", name=stored["name"], count=count)

    def edit(tx: Tx, routine_id: int, stored: dict[str, Any]) -> None:
        del stored
        command.store.delete_routine(tx, routine_id)

    removed = command.run(edit, ask=None if yes else ask)
    if json_output:
        write_json({"deleted": routine_json(removed, language)})
        return
    out.print(t(language, "routine_deleted", name=removed["name"]), markup=False)


@foods_app.command("search")
def foods_search(
    query: Annotated[str | None, typer.Argument(help="Words of the name (any language).")] = None,
    category: Annotated[
        str | None, typer.Option("--category", help="Only this category (cereals, dairy, ...).")
    ] = None,
    max_calories: Annotated[
        str | None, typer.Option("--max-calories", help="At most this many kcal per 100 g.")
    ] = None,
    min_protein: Annotated[
        str | None, typer.Option("--min-protein", help="At least this many g of protein per 100 g.")
    ] = None,
    sort_by: Annotated[
        str | None,
        typer.Option(
            "--sort-by",
            help="name; calories, carbs or fat (lowest first); protein or fiber (highest first).",
        ),
    ] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Search the bundled food table (values per 100 g); every match is listed."""
    from .. import catalog

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
            f"{food.id}  {food.name(language)} "
            f"[{t(language, f'food_category_{food.category}')}]  {values}",
            markup=False,
            soft_wrap=True,
        )


@exercises_app.command("search")
def exercises_search(
    query: Annotated[str | None, typer.Argument(help="Words of the name (any language).")] = None,
    muscle_group: Annotated[
        str | None,
        typer.Option("--muscle-group", help="Only this muscle group (back, chest, ...)."),
    ] = None,
    equipment: Annotated[
        str | None, typer.Option("--equipment", help="Only this equipment (barbell, band, ...).")
    ] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Search the bundled exercise table; every match is listed."""
    from .. import catalog

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
            f"{item.id}  {item.name(language)} [{_exercise_kinds(item, language)}]",
            markup=False,
            soft_wrap=True,
        )


def _exercise_kinds(item: catalog.Exercise, lang: Lang) -> str:
    """An exercise's muscle group, equipment and difficulty in words."""
    return ", ".join(
        (
            t(lang, f"muscle_{item.muscle_group}"),
            t(lang, f"equipment_{item.equipment}"),
            t(lang, f"difficulty_{item.difficulty}"),
        )
    )
