"""The pages of the person's other data: meals, routines, notes and goals, each a list with
Edit and Delete on every record (as the measurements page), and the 404 page.

Every record row carries what app.js needs and nothing it must parse from the text:
``data-record`` (the JSON that names the record for the API), ``data-values`` (the editable
values), ``data-edit-title`` and ``data-delete-title``. One edit dialog and one delete dialog
per page; their ``data-url`` is the API route they post to. Every value is escaped where it is
placed."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from html import escape
from typing import Any, Final

from surefoot import Lang

from .. import meals
from ..diet import meal_json
from ..i18n import day
from ..texts import number, t
from ..training import routine_json
from ..words import word
from ._i18n import ui
from ._pages import PageContext, delete_dialog, edit_actions, layout

MEAL_DAYS: Final = 14
"""How many of the latest days with meals the meals page shows."""

_UNITS: Final = {"weight_kg": "kg", "body_fat_pct": "%"}


def _data(value: object) -> str:
    return escape(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _page(ctx: PageContext, page: str, content: str, *, lead: str = "") -> str:
    """One records page, titled by its ``<page>_title`` text."""
    title = ui(ctx.lang, f"{page}_title")
    lead_html = f'<p class="lead">{escape(lead)}</p>' if lead else ""
    body = f"""<main class="measurements-layout records-layout">
  <h1>{escape(title)}</h1>
  {lead_html}
  {content}
</main>"""
    return layout(ctx, title=title, body=body, page=page)


def _row(lang: Lang, cells: Sequence[tuple[str, str, str]], meta: dict[str, str]) -> str:
    """One record: ``cells`` are ``(column label, html, css class)``; ``meta`` the row's
    ``data-*`` attributes (already escaped)."""
    attrs = "".join(f' data-{name}="{value}"' for name, value in meta.items())
    tds = "".join(
        f'<td data-label="{escape(label)}" class="{css}"><div>{html}</div></td>'
        for label, html, css in cells
    )
    actions = (
        '<td class="row-actions">'
        f'<button type="button" class="button secondary small edit-record">'
        f"{escape(ui(lang, 'edit'))}</button> "
        f'<button type="button" class="button deny small delete-record">'
        f"{escape(ui(lang, 'delete'))}</button></td>"
    )
    return f'<tr class="record"{attrs}>{tds}{actions}</tr>'


def _table(lang: Lang, columns: Sequence[tuple[str, str]], rows: Sequence[str]) -> str:
    """A table that becomes one card per row on a narrow screen (``.records-table``)."""
    head = "".join(f'<th scope="col" class="{css}">{escape(label)}</th>' for label, css in columns)
    actions = f'<th scope="col"><span class="sr-only">{escape(ui(lang, "actions"))}</span></th>'
    return (
        f'<table class="records-table"><thead><tr>{head}{actions}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _field(label: str, name: str, kind: str = "text") -> str:
    """One input of an edit dialog: ``text``, ``decimal``, ``date`` or ``area``."""
    if kind == "area":
        control = f'<textarea name="{name}" rows="4"></textarea>'
    else:
        mode = {"decimal": "decimal", "date": "numeric"}.get(kind, "text")
        control = (
            f'<input type="text" name="{name}" inputmode="{mode}" autocomplete="off" '
            f'data-kind="{kind}">'
        )
    return f'<label class="field"><span>{escape(label)}</span>{control}</label>'


def _dialogs(lang: Lang, api: str, fields: str, *, hint: str, delete_body: str) -> str:
    hint_html = f'<p class="hint">{escape(hint)}</p>' if hint else ""
    return f"""<dialog id="edit-dialog" class="dialog" aria-labelledby="edit-title"
  data-url="/api/{api}/edit">
  <form id="edit-form" method="dialog" novalidate>
    <h2 id="edit-title"></h2>
    {hint_html}
    <div class="fields one">{fields}</div>
    {edit_actions(lang)}
  </form>
</dialog>
{delete_dialog(lang, delete_body, url=f"/api/{api}/delete")}"""


def _day(value: str, lang: Lang) -> str:
    """A stored date (``YYYY-MM-DD``) in words."""
    return day(dt.date.fromisoformat(value), lang)


def _empty(lang: Lang, key: str) -> str:
    return f'<p class="empty">{escape(ui(lang, key))}</p>'


# -- notes -----------------------------------------------------------------------------------


def notes_page(ctx: PageContext, notes: Sequence[dict[str, str]]) -> str:
    """Every memory note: key, description and content."""
    lang = ctx.lang
    if not notes:
        return _page(ctx, "notes", _empty(lang, "no_notes"))
    rows = []
    for note in notes:
        key = note["key"]
        cells = [
            (ui(lang, "note_key"), f"<strong>{escape(key)}</strong>", "key"),
            (ui(lang, "note_description"), escape(note["description"]), ""),
            (ui(lang, "note_value"), escape(note["value"]), "long"),
        ]
        meta = {
            "record": _data({"key": key}),
            "values": _data({"description": note["description"], "value": note["value"]}),
            "edit-title": escape(ui(lang, "edit_note_title").format(key=key)),
            "delete-title": escape(ui(lang, "delete_note_title").format(key=key)),
        }
        rows.append(_row(lang, cells, meta))
    columns = [(ui(lang, k), "") for k in ("note_key", "note_description", "note_value")]
    fields = _field(ui(lang, "note_description"), "description") + _field(
        ui(lang, "note_value"), "value", "area"
    )
    content = f'<section class="card">{_table(lang, columns, rows)}</section>' + _dialogs(
        lang, "notes", fields, hint="", delete_body=ui(lang, "delete_note_body")
    )
    return _page(ctx, "notes", content)


# -- goals -----------------------------------------------------------------------------------


def goals_page(
    ctx: PageContext, goals: Sequence[dict[str, Any]], latest: dict[str, tuple[str, float]]
) -> str:
    """Every goal: its measure, target, date, and the latest value measured."""
    lang = ctx.lang
    if not goals:
        return _page(ctx, "goals", _empty(lang, "no_goals"))
    rows = []
    for goal in goals:
        measure = goal["measure"]
        unit = _UNITS.get(measure, "cm")
        field = t(lang, f"offline_field_{measure}")
        last = latest.get(measure)
        last_html = (
            f"{escape(number(last[1], lang))} {unit} "
            f"<span class='muted'>({escape(_day(last[0], lang))})</span>"
            if last
            else "—"
        )
        by_date = _day(goal["by_date"], lang) if goal["by_date"] else ui(lang, "goal_no_date")
        cells = [
            (ui(lang, "goal_measure"), f"<strong>{escape(ui(lang, measure))}</strong>", "key"),
            (ui(lang, "goal_target"), f"{escape(number(goal['target'], lang))} {unit}", "num"),
            (ui(lang, "goal_by"), escape(by_date), ""),
            (ui(lang, "goal_latest"), last_html, "num"),
        ]
        meta = {
            "record": _data({"measure": measure}),
            "values": _data({"target": goal["target"], "by_date": goal["by_date"]}),
            "edit-title": escape(ui(lang, "edit_goal_title").format(field=field)),
            "delete-title": escape(ui(lang, "delete_goal_title").format(field=field)),
        }
        rows.append(_row(lang, cells, meta))
    columns = [
        (ui(lang, "goal_measure"), ""),
        (ui(lang, "goal_target"), "num"),
        (ui(lang, "goal_by"), ""),
        (ui(lang, "goal_latest"), "num"),
    ]
    fields = _field(ui(lang, "goal_target"), "target", "decimal") + _field(
        ui(lang, "goal_by"), "by_date", "date"
    )
    dialogs = _dialogs(
        lang,
        "goals",
        fields,
        hint=ui(lang, "goal_date_hint"),
        delete_body=ui(lang, "delete_goal_body"),
    )
    content = f'<section class="card">{_table(lang, columns, rows)}</section>{dialogs}'
    return _page(ctx, "goals", content)


# -- meals -----------------------------------------------------------------------------------


def meals_page(
    ctx: PageContext, days: Sequence[tuple[dt.date, Sequence[tuple[int, str, str, float]]]]
) -> str:
    """The latest days with meals, newest first: per day, each logged food by meal, with its
    energy, and the day's total."""
    lang = ctx.lang
    if not days:
        return _page(ctx, "meals", _empty(lang, "no_meals"))
    cards = "".join(_meal_day(lang, when, entries) for when, entries in days)
    fields = _field(ui(lang, "grams"), "grams", "decimal")
    dialogs = _dialogs(
        lang, "meals", fields, hint=ui(lang, "edit_hint"), delete_body=ui(lang, "delete_meal_body")
    )
    lead = ui(lang, "meals_lead").format(days=MEAL_DAYS)
    return _page(ctx, "meals", cards + dialogs, lead=lead)


def _meal_day(lang: Lang, when: dt.date, entries: Sequence[tuple[int, str, str, float]]) -> str:
    rows: list[str] = []
    total = 0.0
    for meal in meals.MEAL_IDS:
        logged = [e for e in entries if e[1] == meal]
        if not logged:
            continue
        shown = meal_json(
            when, meal, [(f, g) for _, _, f, g in logged], lang, [e[0] for e in logged]
        )
        total += shown["totals"]["energy_kcal"]
        rows.extend(_meal_row(lang, when, shown["label"], item) for item in shown["items"])
    columns = [
        (ui(lang, "meal"), ""),
        (ui(lang, "food"), ""),
        (ui(lang, "grams"), "num"),
        (ui(lang, "kcal"), "num"),
    ]
    return (
        f'<section class="card meal-day" data-date="{when.isoformat()}">'
        f'<h2>{escape(day(when, lang))} <span class="muted">· {escape(ui(lang, "day_total"))}: '
        f"{escape(number(total, lang))} kcal</span></h2>"
        f"{_table(lang, columns, rows)}</section>"
    )


def _meal_row(lang: Lang, when: dt.date, label: str, item: dict[str, Any]) -> str:
    food = item["name"] or word(lang, "w_unknown_food")
    grams = number(item["grams"], lang)
    kcal = "—" if item["energy_kcal"] is None else number(item["energy_kcal"], lang)
    names = {"food": food, "meal": label, "date": day(when, lang), "grams": grams}
    cells = [
        (ui(lang, "meal"), escape(label), ""),
        (ui(lang, "food"), escape(food), "key"),
        (ui(lang, "grams"), escape(grams), "num"),
        (ui(lang, "kcal"), escape(kcal), "num"),
    ]
    meta = {
        "record": _data({"item_id": item["item_id"]}),
        "values": _data({"grams": item["grams"]}),
        "edit-title": escape(ui(lang, "edit_meal_title").format(**names)),
        "delete-title": escape(t(lang, "ask_delete_meal_item", **names)),
    }
    return _row(lang, cells, meta)


# -- routines --------------------------------------------------------------------------------


def routines_page(ctx: PageContext, routines: Sequence[dict[str, Any]]) -> str:
    """Every routine: its name, category, and each exercise with its series."""
    lang = ctx.lang
    if not routines:
        return _page(ctx, "routines", _empty(lang, "no_routines"))
    rows = [_routine_row(lang, r) for r in routines]
    columns = [(ui(lang, "routine_name"), ""), (ui(lang, "exercises"), "")]
    fields = _field(ui(lang, "routine_name"), "name")
    dialogs = _dialogs(
        lang, "routines", fields, hint="", delete_body=ui(lang, "delete_routine_body")
    )
    content = f'<section class="card">{_table(lang, columns, rows)}</section>{dialogs}'
    return _page(ctx, "routines", content)


def _routine_row(lang: Lang, routine: dict[str, Any]) -> str:
    shown = routine_json(routine, lang)
    steps = []
    for step in shown["exercises"]:
        name = step["name"] or word(lang, "w_unknown_exercise")
        series = "; ".join(
            ui(lang, "series_line").format(
                reps=s["reps"], kg=number(s["weight_kg"], lang), rest=s["rest_seconds"]
            )
            for s in step["series"]
        )
        steps.append(f"<li><strong>{escape(name)}</strong>: {escape(series)}</li>")
    category = ui(lang, f"category_{routine['category']}")
    name = routine["name"]
    cells = [
        (
            ui(lang, "routine_name"),
            f"<strong>{escape(name)}</strong><br><span class='muted'>{escape(category)}</span>",
            "key",
        ),
        (ui(lang, "exercises"), f'<ol class="steps">{"".join(steps)}</ol>', "long"),
    ]
    meta = {
        "record": _data({"routine_id": routine["id"]}),
        "values": _data({"name": name}),
        "edit-title": escape(ui(lang, "edit_routine_title").format(name=name)),
        "delete-title": escape(
            t(lang, "ask_delete_routine", name=name, count=len(routine["exercises"]))
        ),
    }
    return _row(lang, cells, meta)


# -- not found -------------------------------------------------------------------------------


def not_found_page(ctx: PageContext) -> str:
    """An address the app does not have, in the app's layout and the person's language."""
    lang = ctx.lang
    body = f"""<main class="measurements-layout not-found">
  <h1>{escape(ui(lang, "not_found_title"))}</h1>
  <p class="lead">{escape(ui(lang, "not_found_body"))}</p>
  <p><a class="button primary" href="/?lang={lang}">{escape(ui(lang, "not_found_back"))}</a></p>
</main>"""
    return layout(ctx, title=ui(lang, "not_found_title"), body=body, page="not-found")
