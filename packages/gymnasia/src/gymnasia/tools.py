"""The Coach's tools (names and arguments are a contract the CLI, web app and tests rely on).

Every tool returns typed data or a contract error; none reports success for something it did
not do. Writes are atomic with the ledger: the effect and the ledger's ``committed`` record
land in one transaction (``ctx.commit_in``), so a failure before that commit is known to have
changed nothing. The exception is ``create_feature_issue`` (``feedback.py``): its effect is a
GitHub issue, found again by the idempotency key it carries.
"""

from __future__ import annotations

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
from .store import MEASUREMENT_FIELDS, DateTaken, GymStore
from .texts import number, t
from .training import register_training_tools

MEASUREMENT_LIMITS: Final[dict[str, tuple[float, float]]] = {
    "weight_kg": (20, 400),
    "body_fat_pct": (2, 75),
    **dict.fromkeys(
        ("neck_cm", "chest_cm", "waist_cm", "hips_cm", "biceps_cm", "quadriceps_cm", "calf_cm"),
        (10, 250),
    ),
    "height_cm": (50, 260),
}
"""The accepted range of each measurement field, for the tools, the CLI, the web and import."""
assert tuple(MEASUREMENT_LIMITS) == MEASUREMENT_FIELDS

MEASUREMENT_GROUNDING: Final[dict[str, Grounded]] = {
    "date": Grounded.date(),
    "weight_kg": Grounded.number("kg"),
    "body_fat_pct": Grounded.number("%"),
    **{name: Grounded.number("cm") for name in MEASUREMENT_FIELDS if name.endswith("_cm")},
}
"""What write_measurement takes only from the person's words (surefoot's grounding): a value
they did not say is asked back; one converted from theirs (lb, m, in) waits for their yes."""


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


def build_tools(
    store: GymStore, faults: Faults | None = None, feedback: FeedbackSettings | None = None
) -> ToolSet:
    """The Coach's tool set over ``store``, with ``faults`` injected where configured, and
    ``create_feature_issue`` (a GitHub issue, not atomic) when ``feedback`` settings are given."""
    faults = faults or Faults()
    tools = ToolSet()
    _measurement_tools(tools, store, faults)
    _memory_tools(tools, store, faults)
    register_diet_tools(tools, store, faults)
    register_training_tools(tools, store, faults)
    if feedback is not None:
        register_feedback_tools(tools, settings=feedback, faults=faults)
    return tools


def _measurement_tools(tools: ToolSet, store: GymStore, faults: Faults) -> None:
    @tools.tool
    def read_measurement(ctx: ToolContext, date: CalendarDate) -> dict[str, Any] | ToolError:
        """The body measurements saved for one date (only that date)."""
        faults.on_read(ctx.tool)
        found = store.read_measurement(date)
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
        return {"measurements": store.list_measurements(date_from, date_to)}

    @tools.tool(
        effect="write",
        idempotent=True,
        atomic=True,
        describe=describe_measurement,
        grounded=MEASUREMENT_GROUNDING,
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
        """Save the user's own body measurements of one date (given fields replace, the
        others are kept). Not for a goal or wish, a change ("lost 2 kg"), a lifted load or
        food grams."""
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
        with store.transaction() as tx:
            saved = store.upsert_measurement(tx, date, values)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    _measurement_edits(tools, store, faults)


def _measurement_edits(tools: ToolSet, store: GymStore, faults: Faults) -> None:
    @tools.tool(effect="write", atomic=True)
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

    @tools.tool(effect="write", confirm=True, atomic=True)
    def delete_measurement(ctx: ToolContext, date: CalendarDate) -> dict[str, Any] | ToolError:
        """Delete the whole measurement record of one date (a person confirms)."""
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


def _memory_tools(tools: ToolSet, store: GymStore, faults: Faults) -> None:
    @tools.tool
    def list_memory_keys(ctx: ToolContext) -> dict[str, Any]:
        """The keys of the user's memory notes."""
        faults.on_read(ctx.tool)
        return {"keys": store.memory_keys()}

    @tools.tool
    def read_memory(ctx: ToolContext, key: Key) -> dict[str, Any] | ToolError:
        """Read one memory note by its key."""
        faults.on_read(ctx.tool)
        found = store.read_memory(key)
        if found is None:
            return ToolError(
                "not_found", t(ctx.lang, "memory_not_found", key=key), Recovery.CHOOSE_ALTERNATIVE
            )
        return found

    @tools.tool(effect="write", idempotent=True, atomic=True)
    def save_memory(ctx: ToolContext, key: Key, description: Text, value: Text) -> dict[str, Any]:
        """Save one memory note the user asks to keep, such as a goal or a preference
        (creates or replaces that key only)."""
        with store.transaction() as tx:
            saved = store.save_memory(tx, key, description, value)
            faults.before_commit(ctx)
            ctx.commit_in(tx, saved)
        faults.after_commit(ctx)
        return saved

    @tools.tool(effect="write", confirm=True, atomic=True)
    def delete_memory(ctx: ToolContext, key: Key) -> dict[str, Any] | ToolError:
        """Delete one memory note (a person confirms)."""
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


_UNITS: Final = {"weight_kg": "kg", "body_fat_pct": "%"}


def describe_measurement(data: dict[str, Any], lang: Lang) -> str:
    """A saved measurement in a person's words: "peso 77,4 kg (2026-12-03)"."""
    values = [
        f"{t(lang, f'offline_field_{name}')} {number(float(value), lang)} {_UNITS.get(name, 'cm')}"
        for name, value in data.items()
        if name in MEASUREMENT_FIELDS and isinstance(value, int | float)
    ]
    return f"{', '.join(values)} ({data.get('date', '')})" if values else ""
