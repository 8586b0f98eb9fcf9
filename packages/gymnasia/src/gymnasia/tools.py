"""The Coach's tools (names and arguments are a contract the CLI, web app and tests rely on).

Every tool returns typed data or a contract error; none reports success for something it did
not do. Writes are atomic with the ledger: the effect and the ledger's ``committed`` record
land in one transaction (``ctx.commit_in``), so a failure before that commit is known to have
changed nothing. The exception is ``create_feature_issue`` (``feedback.py``): its effect is a
GitHub issue, found again by the idempotency key it carries.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import Field

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

from .diet import register_diet_tools
from .faults import Faults
from .feedback import FeedbackSettings, register_feedback_tools
from .rules import (
    MEASUREMENT_LIMITS,
    date_problem,
    date_refusal,
    goal_date_refusal,
    goal_target_refusal,
    unlikely_question,
)
from .store import MEASUREMENT_FIELDS, DateTaken, GymStore
from .texts import number, t
from .training import register_training_tools

Precheck = Callable[[dict[str, Any], ToolContext], ToolError | None]
"""A check before a person is asked to approve a write (surefoot's ``Tool.precheck``)."""
StoreOf = Callable[[ToolContext], GymStore]
"""Which store a call reads and writes: one bound store (``build_tools(store)``), or each
call's own account's (``store_in_context``)."""
Today = Callable[[], dt.date]
"""The person's today: their ``--today`` / ``GYMNASIA_TODAY``, else the clock's, asked at
each call (a server that runs past midnight moves on with the day)."""

MEASUREMENT_GROUNDING: Final[dict[str, Grounded]] = {
    "date": Grounded.date(),
    "weight_kg": Grounded.number("kg"),
    "body_fat_pct": Grounded.number("%"),
    **{name: Grounded.number("cm") for name in MEASUREMENT_FIELDS if name.endswith("_cm")},
}
"""What write_measurement takes only from the person's words (surefoot's grounding): a value
they did not say is asked back; one converted from theirs (lb, m, in) waits for their yes."""
GOAL_GROUNDING: Final[dict[str, Grounded]] = {
    "target": Grounded.number(),
    "by_date": Grounded.date(),
}
"""What save_goal takes only from the person's words: the target they said, and a date only
if they gave one (a model that fills in today's date for "I want to get to 72 kg" is asked
to ask them)."""


def _bounded(field: str) -> Any:
    """The field's range; its name says the rest (a description per field would be read by
    the model ten times over in each measurement tool)."""
    low, high = MEASUREMENT_LIMITS[field]
    return Field(ge=low, le=high)


Weight = Annotated[float, _bounded("weight_kg")]
BodyFat = Annotated[float, _bounded("body_fat_pct")]
Girth = Annotated[float, _bounded("waist_cm")]
Height = Annotated[float, _bounded("height_cm")]
MeasurementField = Literal[
    "weight_kg",
    "body_fat_pct",
    "neck_cm",
    "chest_cm",
    "waist_cm",
    "hips_cm",
    "biceps_cm",
    "quadriceps_cm",
    "calf_cm",
    "height_cm",
]
assert get_args(MeasurementField) == MEASUREMENT_FIELDS
Clear = Annotated[
    list[MeasurementField],
    Field(max_length=len(MEASUREMENT_FIELDS), description="Fields to empty."),
]
Key = Annotated[str, Field(min_length=1, max_length=100)]
Text = Annotated[str, Field(max_length=5000)]


def store_in_context(ctx: ToolContext) -> GymStore:
    """The store of the account a call runs for: the ``store`` of its agent's
    ``app_context`` (``app.open_coach`` puts each account's there). Tools built over it hold
    no account of their own, so one tool set serves every account of a process; a call whose
    context has no store raises rather than read or write anyone's data."""
    store = ctx.app.get("store")
    if not isinstance(store, GymStore):
        msg = f"{ctx.tool} runs for an account: its agent's app_context has no store"
        raise LookupError(msg)
    return store


def build_tools(
    store: GymStore | StoreOf,
    faults: Faults | None = None,
    feedback: FeedbackSettings | None = None,
    *,
    today: dt.date | None = None,
) -> ToolSet:
    """The Coach's tool set over ``store`` (or, given ``store_in_context``, over the store of
    each call's account), with ``faults`` injected where configured, and
    ``create_feature_issue`` (a GitHub issue, not atomic) when ``feedback`` settings are given.
    ``today`` fixes the person's today for the date rules (default: the clock's, each call)."""
    faults = faults or Faults()
    tools = ToolSet()
    stores: StoreOf = (lambda _ctx: store) if isinstance(store, GymStore) else store

    def day() -> dt.date:
        return today or dt.date.today()  # noqa: DTZ011 - a calendar date

    _measurement_tools(tools, stores, faults, day)
    _goal_tools(tools, stores, faults, day)
    _memory_tools(tools, stores, faults)
    register_diet_tools(tools, stores, faults, day)
    register_training_tools(tools, stores, faults)
    if feedback is not None:
        register_feedback_tools(tools, settings=feedback, faults=faults)
    return tools


def clear_question(
    lang: Lang, store: GymStore, date: dt.date, clear: list[str] | None, *, values: set[str]
) -> str | None:
    """The question before fields of a record are emptied, with the values that go ("¿Borrar
    cintura 82 cm del registro del 2024-03-10?"); None when nothing stored would be lost, or
    when the tool refuses the edit without any effect (a field both set and emptied, or a
    record left empty)."""
    current = store.read_measurement(date) if clear and not values & set(clear) else None
    if current is None:
        return None
    kept = [f for f in MEASUREMENT_FIELDS if current[f] is not None and f not in (clear or [])]
    if not kept and not values:
        return None
    lost = [
        f"{t(lang, f'offline_field_{f}')} {number(float(current[f]), lang)} {_unit(f)}"
        for f in MEASUREMENT_FIELDS
        if f in (clear or []) and current[f] is not None
    ]
    if not lost:
        return None
    return t(lang, "confirm_clear_fields", values=", ".join(lost), date=date.isoformat())


def _unit(field: str) -> str:
    return {"weight_kg": "kg", "body_fat_pct": "%"}.get(field, "cm")


def _given(arguments: dict[str, Any]) -> dict[str, float]:
    return {n: float(v) for n in MEASUREMENT_FIELDS if (v := arguments.get(n)) is not None}


def _measurement_tools(tools: ToolSet, stores: StoreOf, faults: Faults, today: Today) -> None:
    def unlikely_write(arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """A person confirms a value that is allowed but unlikely (``rules.py``)."""
        values, date = _given(arguments), arguments["date"]
        if not values or date_problem(date, today()) is not None:
            return None  # refused by the handler, asked of nobody
        nearest = stores(ctx).nearest_values(date, values)
        return unlikely_question(ctx.lang, values, date, nearest, today())

    @tools.tool
    def read_measurement(ctx: ToolContext, date: CalendarDate) -> dict[str, Any] | ToolError:
        """The body measurements saved for one date (only that date)."""
        faults.on_read(ctx.tool)
        found = stores(ctx).read_measurement(date)
        if found is None:
            return ToolError(
                "not_found",
                t(ctx.lang, "measurement_not_found", date=date.isoformat()),
                Recovery.CHOOSE_ALTERNATIVE,
            )
        return found

    @tools.tool
    def list_measurements(
        ctx: ToolContext, date_from: CalendarDate, date_to: CalendarDate
    ) -> dict[str, Any] | ToolError:
        """The body measurements saved between two dates, both included."""
        faults.on_read(ctx.tool)
        if date_from > date_to:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                t(ctx.lang, "range_reversed"),
                Recovery.CORRECT_ARGUMENTS,
                details=(Detail("date_from", "is after date_to", "a date on or before date_to"),),
            )
        return {"measurements": stores(ctx).list_measurements(date_from, date_to)}

    @tools.tool(
        effect="write",
        idempotent=True,
        atomic=True,
        describe=describe_measurement,
        grounded=MEASUREMENT_GROUNDING,
        confirm=unlikely_write,
    )
    def write_measurement(
        ctx: ToolContext,
        date: CalendarDate,
        weight_kg: Weight | None = None,
        body_fat_pct: BodyFat | None = None,
        neck_cm: Girth | None = None,
        chest_cm: Girth | None = None,
        waist_cm: Girth | None = None,
        hips_cm: Girth | None = None,
        biceps_cm: Girth | None = None,
        quadriceps_cm: Girth | None = None,
        calf_cm: Girth | None = None,
        height_cm: Height | None = None,
    ) -> dict[str, Any] | ToolError:
        """Save the user's own body measurements of one date, today or earlier (given
        fields replace, the others are kept). Not for a goal (save_goal), a change ("lost 2
        kg"), a lifted load, grams of food (add_meal_food) or another person's data."""
        values = {
            name: value
            for name, value in {
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
            }.items()
            if value is not None
        }
        if not values:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                t(ctx.lang, "no_fields"),
                Recovery.CORRECT_ARGUMENTS,
                details=(Detail("weight_kg", "no measurement given", "at least one field"),),
            )
        refused = date_refusal(ctx.lang, "date", date, today(), what="measurement")
        if refused is not None:
            return refused
        store = stores(ctx)
        with store.transaction() as tx:
            saved = store.upsert_measurement(tx, date, values)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    _measurement_edits(tools, stores, faults, today)


def _measurement_edits(tools: ToolSet, stores: StoreOf, faults: Faults, today: Today) -> None:
    def unlikely_edit(arguments: dict[str, Any], ctx: ToolContext) -> str | None:
        """A person confirms emptying fields of a record (a deletion), and a corrected value
        that is allowed but unlikely."""
        values, date = _given(arguments), arguments["new_date"] or arguments["date"]
        store = stores(ctx)
        emptied = clear_question(
            ctx.lang, store, arguments["date"], arguments.get("clear"), values=set(values)
        )
        if not values or date_problem(date, today()) is not None:
            return emptied
        nearest = store.nearest_values(date, values, besides=(arguments["date"],))
        unlikely = unlikely_question(ctx.lang, values, date, nearest, today())
        asked = [q for q in (emptied, unlikely) if q]
        return " ".join(asked) or None

    @tools.tool(effect="write", atomic=True, confirm=unlikely_edit, describe=describe_measurement)
    def edit_measurement(
        ctx: ToolContext,
        date: CalendarDate,
        new_date: CalendarDate | None = None,
        weight_kg: Weight | None = None,
        body_fat_pct: BodyFat | None = None,
        neck_cm: Girth | None = None,
        chest_cm: Girth | None = None,
        waist_cm: Girth | None = None,
        hips_cm: Girth | None = None,
        biceps_cm: Girth | None = None,
        quadriceps_cm: Girth | None = None,
        calf_cm: Girth | None = None,
        height_cm: Height | None = None,
        clear: Clear | None = None,
    ) -> dict[str, Any] | ToolError:
        """Correct the record that exists for one date: given fields replace, those in clear
        are emptied, the others are kept; new_date moves it to a date without one. No record
        there: use write_measurement."""
        given = {
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
        }
        values = {name: value for name, value in given.items() if value is not None}
        emptied = list(clear or [])
        both = sorted(set(emptied) & set(values))
        if both:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                t(ctx.lang, "set_and_clear", fields=", ".join(both)),
                Recovery.CORRECT_ARGUMENTS,
                details=(Detail("clear", f"also sets {both[0]}", "fields not given a value"),),
            )
        if not values and not emptied and new_date in (None, date):
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                t(ctx.lang, "no_changes"),
                Recovery.CORRECT_ARGUMENTS,
                details=(Detail("weight_kg", "no change given", "at least one change"),),
            )
        refused = date_refusal(ctx.lang, "new_date", new_date, today(), what="measurement")
        if refused is not None:
            return refused
        store = stores(ctx)
        with store.transaction() as tx:
            current = store.read_measurement(date, tx=tx)
            if current is None:
                message = t(ctx.lang, "measurement_missing", date=date.isoformat())
                return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)
            kept = [n for n in MEASUREMENT_FIELDS if current[n] is not None and n not in emptied]
            if not values and not kept:
                message = t(ctx.lang, "measurement_would_be_empty", date=date.isoformat())
                return ToolError(
                    ErrorCode.INVALID_ARGUMENTS,
                    message,
                    Recovery.CORRECT_ARGUMENTS,
                    details=(Detail("clear", "empties every field", "keep at least one field"),),
                )
            try:
                saved = store.update_measurement(tx, date, values, clear=emptied, new_date=new_date)
            except DateTaken as taken:
                message = t(ctx.lang, "measurement_date_taken", date=taken.date.isoformat())
                return ToolError("conflict", message, Recovery.CHOOSE_ALTERNATIVE)
            assert saved is not None  # read above, in this same transaction
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    @tools.tool(
        effect="write",
        confirm=True,
        precheck=_measurement_exists(stores),
        atomic=True,
        describe=describe_deleted_measurement,
    )
    def delete_measurement(ctx: ToolContext, date: CalendarDate) -> dict[str, Any] | ToolError:
        """Delete the whole measurement record of one date (a person confirms)."""
        store = stores(ctx)
        with store.transaction() as tx:
            removed = store.delete_measurement(tx, date)
            if removed is None:
                message = t(ctx.lang, "measurement_missing", date=date.isoformat())
                return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)
            deleted = {"deleted": removed}
            faults.before_commit(ctx)
            ctx.commit_in(tx, deleted)
        faults.after_commit(ctx)
        return deleted


def _goal_tools(tools: ToolSet, stores: StoreOf, faults: Faults, today: Today) -> None:
    @tools.tool
    def read_goals(ctx: ToolContext) -> dict[str, Any]:
        """The user's goals: per measure, its target and optional date."""
        faults.on_read(ctx.tool)
        return {"goals": stores(ctx).goals()}

    @tools.tool(
        effect="write",
        idempotent=True,
        atomic=True,
        describe=describe_goal,
        grounded=GOAL_GROUNDING,
    )
    def save_goal(
        ctx: ToolContext,
        measure: MeasurementField,
        target: float,
        by_date: CalendarDate | None = None,
    ) -> dict[str, Any] | ToolError:
        """Save the user's goal for one measure ("I want to get to 74 kg"), replacing that
        measure's goal; by_date only if the user said a date, else leave it out. A goal is not
        a measurement: what the user measures now is write_measurement."""
        refused = goal_target_refusal(ctx.lang, measure, target) or goal_date_refusal(
            ctx.lang, by_date, today()
        )
        if refused is not None:
            return refused
        store = stores(ctx)
        with store.transaction() as tx:
            saved = store.save_goal(tx, measure, target, by_date)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved


def _memory_tools(tools: ToolSet, stores: StoreOf, faults: Faults) -> None:
    @tools.tool
    def list_memory_keys(ctx: ToolContext) -> dict[str, Any]:
        """The keys of the user's memory notes."""
        faults.on_read(ctx.tool)
        return {"keys": stores(ctx).memory_keys()}

    @tools.tool
    def read_memory(ctx: ToolContext, key: Key) -> dict[str, Any] | ToolError:
        """Read one memory note by its key."""
        faults.on_read(ctx.tool)
        found = stores(ctx).read_memory(key)
        if found is None:
            return ToolError(
                "not_found", t(ctx.lang, "memory_not_found", key=key), Recovery.CHOOSE_ALTERNATIVE
            )
        return found

    @tools.tool(effect="write", idempotent=True, atomic=True, describe=describe_note)
    def save_memory(ctx: ToolContext, key: Key, description: Text, value: Text) -> dict[str, Any]:
        """Save one memory note the user asks to keep, such as a preference (creates or
        replaces that key only). Not for a goal of a measure (save_goal)."""
        store = stores(ctx)
        with store.transaction() as tx:
            saved = store.save_memory(tx, key, description, value)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    @tools.tool(
        effect="write",
        confirm=True,
        precheck=_note_exists(stores),
        atomic=True,
        describe=describe_note,
    )
    def delete_memory(ctx: ToolContext, key: Key) -> dict[str, Any] | ToolError:
        """Delete one memory note (a person confirms)."""
        store = stores(ctx)
        with store.transaction() as tx:
            if not store.delete_memory(tx, key):
                return ToolError(
                    "not_found",
                    t(ctx.lang, "memory_not_found", key=key),
                    Recovery.CHOOSE_ALTERNATIVE,
                )
            deleted = {"deleted": key}
            faults.before_commit(ctx)
            ctx.commit_in(tx, deleted)
        faults.after_commit(ctx)
        return deleted


def _measurement_exists(stores: StoreOf) -> Precheck:
    """Nobody is asked to delete a measurement record that is not there."""

    def check(arguments: dict[str, Any], ctx: ToolContext) -> ToolError | None:
        if stores(ctx).read_measurement(arguments["date"]) is not None:
            return None
        message = t(ctx.lang, "measurement_missing", date=arguments["date"].isoformat())
        return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)

    return check


def _note_exists(stores: StoreOf) -> Precheck:
    """Nobody is asked to delete a note that is not there."""

    def check(arguments: dict[str, Any], ctx: ToolContext) -> ToolError | None:
        if stores(ctx).read_memory(arguments["key"]) is not None:
            return None
        message = t(ctx.lang, "memory_not_found", key=arguments["key"])
        return ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)

    return check


_UNITS: Final = {"weight_kg": "kg", "body_fat_pct": "%"}


def describe_measurement(data: dict[str, Any], lang: Lang) -> str:
    """A saved measurement in a person's words: "peso 77,4 kg (2026-12-03)"."""
    values = [
        f"{t(lang, f'offline_field_{name}')} {number(float(value), lang)} {_UNITS.get(name, 'cm')}"
        for name, value in data.items()
        if name in MEASUREMENT_FIELDS and isinstance(value, int | float)
    ]
    return f"{', '.join(values)} ({data.get('date', '')})" if values else ""


def describe_note(data: dict[str, Any], lang: Lang) -> str:
    """A note saved or deleted, in a person's words: "nota «treino»"."""
    key = data.get("key", data.get("deleted"))
    return t(lang, "note_described", key=key) if isinstance(key, str) else ""


def describe_deleted_measurement(data: dict[str, Any], lang: Lang) -> str:
    """A deleted measurement record: "registro de medidas del 2020-01-01"."""
    deleted = data.get("deleted")
    date = deleted.get("date") if isinstance(deleted, dict) else None
    return t(lang, "measurement_record_described", date=date) if date else ""


def describe_goal(data: dict[str, Any], lang: Lang) -> str:
    """A saved goal in a person's words: "objetivo de peso: 74 kg (para el 2027-03-01)"."""
    measure = str(data.get("measure", ""))
    if measure not in MEASUREMENT_FIELDS or not isinstance(data.get("target"), int | float):
        return ""
    unit = _UNITS.get(measure, "cm")
    target = f"{number(float(data['target']), lang)} {unit}"
    text = t(lang, "goal_described", field=t(lang, f"offline_field_{measure}"), target=target)
    if data.get("by_date"):
        text += f" ({t(lang, 'goal_by', date=data['by_date'])})"
    return text
