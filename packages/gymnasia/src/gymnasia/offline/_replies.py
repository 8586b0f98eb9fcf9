"""What the offline model says: about what it understood, and about tools' outcomes.

Outcomes are read by their program-set mark (``Ok`` or ``ToolError``), code and recovery,
and an ``Ok``'s data; never by the text of an error message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from surefoot import Lang, Ok, Outcome, ToolError

from .. import meals
from ..rules import AMOUNT_LIMITS, MEASUREMENT_LIMITS
from ..texts import number, t
from ..tools import describe_goal
from ._intents import WRITE_ACTIONS, SaveMeasurement, Unclear
from ._measure import FIELDS

_SNACKS: Final = ("mid_morning", "afternoon")
_REASONS: Final = {
    code: f"why_{code}"
    for code in (
        "denied",
        "unavailable",
        "outcome_unknown",
        "not_applied",
        "not_executed",
        "invalid_arguments",
        "not_found",
        "conflict",
        "already_done",
        "not_in_message",
        "date_in_future",
        "date_too_old",
    )
}
"""The failures the offline Coach explains in words; any other is "something went wrong"."""
_NUTRIENT_KEYS: Final = {
    "protein": "protein_g",
    "carbs": "carbs_g",
    "fat": "fat_g",
    "fiber": "fiber_g",
}
_UNITS: Final = {"weight_kg": "kg", "body_fat_pct": "%", "height_cm": "cm"}
_OTHER_UNITS: Final = {
    "grams": "g",
    "load": "kg",
    "rest": "s",
    "max_calories": "kcal",
    "min_protein": "g",
}


def unit_of(field: str) -> str:
    """The unit a measurement field is kept in."""
    return _UNITS.get(field, "cm")


class Replies:
    """The offline model's sentences in one language."""

    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang

    def t(self, name: str, /, **values: object) -> str:
        """Gymnasia text ``name`` in this language."""
        return t(self.lang, name, **values)

    def why(self, outcome: ToolError) -> str:
        """Why a call failed, in the person's words (never the error's code)."""
        return self.t(_REASONS.get(outcome.code, "why_other"))

    def number(self, value: float) -> str:
        """A number as people write it in this language."""
        return number(float(value), self.lang)

    def field(self, name: str) -> str:
        """A measurement field's (or another value's) name."""
        return self.t(f"offline_field_{name}")

    # -- what was understood ----------------------------------------------------------------

    def help(self) -> str:
        """What this model understands."""
        return self.t("offline_help")

    def unclear(self, unclear: Unclear) -> str:
        """What was understood, what stops it, and (for a write) that nothing was written."""
        if unclear.problem == "negated":
            return self.t("offline_negated")
        problem = self._problem(unclear)
        text = self.t(
            "offline_unclear", action=self.t(f"offline_action_{unclear.action}"), problem=problem
        )
        if unclear.action in WRITE_ACTIONS:
            text = f"{text} {self.t('offline_nothing_written')}"
        return text

    def _problem(self, unclear: Unclear) -> str:
        name, field = unclear.problem, unclear.field
        values: dict[str, object] = {"subject": unclear.subject}
        if name == "value_missing" and field is None:
            return self.t("offline_problem_value_missing_any")
        if field is not None:
            values["field"] = self.field(field)
            values["units"] = self._units(field)
        if name == "out_of_range" and field is not None:
            low, high, unit = self._bounds(field)
            values.update(low=low, high=high, unit=unit)
        if name in {"meal_missing", "meal_ambiguous"}:
            choices = _SNACKS if name == "meal_ambiguous" else meals.MEAL_IDS
            values["meals"] = ", ".join(meals.label(m, self.lang) for m in choices)
        return self.t(f"offline_problem_{name}", **values)

    def _units(self, field: str) -> str:
        if field == "weight_kg":
            return self.t("offline_units_weight")
        if field == "body_fat_pct":
            return self.t("offline_units_percent")
        return self.t("offline_units_length")

    @staticmethod
    def _bounds(field: str) -> tuple[float, float, str]:
        if field in MEASUREMENT_LIMITS:
            low, high = MEASUREMENT_LIMITS[field]
            return low, high, unit_of(field)
        low, high = AMOUNT_LIMITS[field]
        return low, high, _OTHER_UNITS.get(field, "")

    # -- measurements -----------------------------------------------------------------------

    def read(self, date: str, outcome: Outcome, fields: Sequence[str]) -> str:
        """One date's record, focused on ``fields`` when the user named some."""
        if isinstance(outcome, ToolError):
            if outcome.code == "not_found":
                return self.t("no_record", date=date)
            return self.t("read_failed", date=date, why=self.why(outcome))
        data = outcome.data
        if tuple(fields) == ("weight_kg",):
            weight = data.get("weight_kg")
            if weight is None:
                return self.t("no_weight_on", date=date)
            return self.t("weight_on", date=date, weight=self.number(weight))
        shown = self._values(data, fields or FIELDS)
        if not shown:
            absent = ", ".join(self.field(f) for f in fields or FIELDS)
            return self.t("offline_fields_absent", date=date, fields=absent)
        return self.t("offline_measurement_on", date=date, values=shown)

    def _values(self, data: dict[str, Any], fields: Sequence[str], written: Any = None) -> str:
        written = dict(written or ())
        parts = []
        for field in fields:
            value = data.get(field)
            if value is None:
                continue
            part = f"{self.field(field)} {self.number(value)} {unit_of(field)}"
            if field in written:
                part += f" ({written[field]})"
            parts.append(part)
        return ", ".join(parts)

    def saved(self, intent: SaveMeasurement, outcome: Outcome) -> str:
        """A measurement write's outcome."""
        if isinstance(outcome, ToolError):
            return self.t("save_failed", why=self.why(outcome))
        data = outcome.data
        fields = [field for field, _ in intent.values]
        if fields == ["weight_kg"] and not intent.written:
            weight = self.number(data.get("weight_kg") or 0)
            return self.t("saved_weight", weight=weight, date=data.get("date", ""))
        values = self._values(data, fields, intent.written)
        return self.t("offline_saved_fields", date=data.get("date", ""), values=values)

    def goal_saved(self, outcome: Outcome) -> str:
        """A goal write's outcome."""
        if isinstance(outcome, ToolError):
            return self.t("save_failed", why=self.why(outcome))
        return self.t("goal_saved", goal=describe_goal(outcome.data, self.lang))

    def goals(self, outcome: Outcome) -> str:
        """The goals read, each as saved ("objetivo de peso: 74 kg (para el 2024-06-01)")."""
        if isinstance(outcome, ToolError):
            return self.t("tool_trouble", why=self.why(outcome))
        goals = [describe_goal(goal, self.lang) for goal in outcome.data.get("goals") or []]
        if not any(goals):
            return self.t("goals_empty")
        return f"{self.t('goals_header')}: {'; '.join(g for g in goals if g)}."

    def deleted(self, date: str, fields: Sequence[str], outcome: Outcome) -> str:
        """A measurement deletion's outcome (the whole record, or the fields named)."""
        if isinstance(outcome, ToolError):
            if outcome.code == "not_found":
                return self.t("no_record", date=date)
            return self.t("offline_measurement_not_deleted", date=date, why=self.why(outcome))
        if not fields:
            return self.t("offline_measurement_deleted", date=date)
        names = ", ".join(self.field(f) for f in fields)
        return self.t("offline_measurement_cleared", date=date, fields=names)

    def listed(self, start: str, end: str, outcome: Outcome, fields: Sequence[str]) -> str:
        """A range of records."""
        if isinstance(outcome, ToolError):
            return self.t("tool_trouble", why=self.why(outcome))
        items = outcome.data.get("measurements") or []
        if not items:
            return self.t("range_empty", start=start, end=end)
        shown = ", ".join(self._row(row, fields) for row in items)
        return self.t("range_list", start=start, end=end, count=len(items), items=shown)

    def _row(self, row: dict[str, Any], fields: Sequence[str]) -> str:
        if tuple(fields) == ("weight_kg",) or (not fields and set(_present(row)) <= {"weight_kg"}):
            weight = row.get("weight_kg")
            return f"{row['date']}: {self.number(weight)} kg" if weight is not None else row["date"]
        values = self._values(row, fields or FIELDS)
        return f"{row['date']}: {values}" if values else str(row["date"])

    # -- notes and feature requests ---------------------------------------------------------

    def note_saved(self, key: str, outcome: Outcome) -> str:
        """A note write's outcome."""
        if isinstance(outcome, ToolError):
            return self.t("save_failed", why=self.why(outcome))
        return self.t("note_saved", key=key)

    def note(self, key: str, outcome: Outcome) -> str:
        """A note, or why it could not be read."""
        if isinstance(outcome, Ok):
            return self.t("note_value", key=key, value=outcome.data.get("value", ""))
        if outcome.code == "not_found":
            return self.t("note_missing", key=key)
        return self.t("tool_trouble", why=self.why(outcome))

    def note_deleted(self, key: str, outcome: Outcome) -> str:
        """A note deletion's outcome."""
        if isinstance(outcome, Ok):
            return self.t("note_deleted", key=key)
        if outcome.code == "not_found":  # nothing to delete: said as the reading says it
            return self.t("note_missing", key=key)
        return self.t("note_not_deleted", key=key, why=self.why(outcome))

    def keys(self, outcome: Outcome) -> str:
        """The notes' keys."""
        if isinstance(outcome, ToolError):
            return self.t("tool_trouble", why=self.why(outcome))
        keys = outcome.data.get("keys") or []
        if not keys:
            return self.t("keys_empty")
        return self.t("keys_list", keys=", ".join(map(str, keys)))

    def feature(self, outcome: Outcome) -> str:
        """A feature request's outcome."""
        if isinstance(outcome, ToolError):
            return self.t("feature_not_created", why=self.why(outcome))
        data = outcome.data
        return self.t(
            "feature_created",
            number=data.get("number", "?"),
            title=data.get("title", ""),
            url=data.get("url", ""),
        )

    # -- meals and foods --------------------------------------------------------------------

    def meals(self, date: str, outcomes: Sequence[Outcome], *, named: bool) -> str:
        """Meals of a day; empty ones are shown only when the user named them."""
        lines: list[str] = []
        for outcome in outcomes:
            if isinstance(outcome, ToolError):
                return self.t("tool_trouble", why=self.why(outcome))
            line = self._meal(outcome.data)
            if line is None and named:
                line = f"{outcome.data.get('label', '')}: {self.t('meal_empty')}"
            if line is not None:
                lines.append(line)
        if not lines:
            return self.t("offline_meals_empty", date=date)
        return self.t("offline_meals_on", date=date, meals="; ".join(lines))

    def _meal(self, data: dict[str, Any]) -> str | None:
        items = data.get("items") or []
        if not items:
            return None
        foods = ", ".join(
            self.t(
                "offline_meal_item",
                grams=self.number(item.get("grams") or 0),
                food=item.get("name") or item.get("food_id", ""),
            )
            for item in items
        )
        kcal = self.number(round((data.get("totals") or {}).get("energy_kcal") or 0))
        return self.t("offline_meal_line", meal=data.get("label", ""), items=foods, kcal=kcal)

    def food_added(self, grams: float, outcome: Outcome) -> str:
        """A logged food's outcome."""
        if isinstance(outcome, ToolError):
            return self.t("offline_food_not_added", why=self.why(outcome))
        data = outcome.data
        items = data.get("items") or [{}]
        return self.t(
            "offline_food_added",
            grams=self.number(grams),
            food=items[-1].get("name") or items[-1].get("food_id", ""),
            meal=data.get("label", ""),
            date=data.get("date", ""),
            kcal=self.number(round((data.get("totals") or {}).get("energy_kcal") or 0)),
        )

    def foods(self, outcome: Outcome, sort_by: str | None = None) -> str:
        """Foods found, each with its kcal and the nutrient it was sorted by (or protein)."""
        if isinstance(outcome, ToolError):
            return self.t("tool_trouble", why=self.why(outcome))
        rows = outcome.data.get("foods") or []
        if not rows:
            return self.t("offline_foods_none")
        nutrient = sort_by if sort_by in _NUTRIENT_KEYS else "protein"
        items = "; ".join(self._food(row, nutrient) for row in rows)
        total = outcome.data.get("total_matches", len(rows))
        return self.t("offline_foods_found", shown=len(rows), total=total, items=items)

    def _food(self, row: dict[str, Any], nutrient: str) -> str:
        per_100g = row.get("per_100g") or {}
        return self.t(
            "offline_food_item",
            name=row.get("name", ""),
            kcal=self.number(per_100g.get("energy_kcal") or 0),
            amount=self.number(per_100g.get(_NUTRIENT_KEYS[nutrient]) or 0),
            nutrient=self.t(f"offline_nutrient_{nutrient}"),
        )

    # -- training ---------------------------------------------------------------------------

    def exercises(self, outcome: Outcome) -> str:
        """Exercises found."""
        if isinstance(outcome, ToolError):
            return self.t("tool_trouble", why=self.why(outcome))
        rows = outcome.data.get("exercises") or []
        if not rows:
            return self.t("offline_exercises_none")
        items = ", ".join(str(row.get("name", "")) for row in rows)
        total = outcome.data.get("total_matches", len(rows))
        return self.t("offline_exercises_found", shown=len(rows), total=total, items=items)

    def routines(self, outcome: Outcome) -> str:
        """The user's routines."""
        if isinstance(outcome, ToolError):
            return self.t("tool_trouble", why=self.why(outcome))
        rows = outcome.data.get("routines") or []
        if not rows:
            return self.t("offline_routines_none")
        items = "; ".join(
            f"{row.get('name', '')} ({self._category(row)}): "
            + ", ".join(
                str(step.get("name") or step.get("exercise_id"))
                for step in row.get("exercises", [])
            )
            for row in rows
        )
        return self.t("offline_routines_list", items=items)

    def _category(self, routine: dict[str, Any]) -> str:
        return self.t(f"offline_category_{routine.get('category', 'strength')}")

    def routine_created(self, outcome: Outcome) -> str:
        """A created routine, or why it was not created."""
        if isinstance(outcome, ToolError):
            return self.t("offline_routine_not_created", why=self.why(outcome))
        data = outcome.data
        steps = []
        for step in data.get("exercises", []):
            series = step.get("series") or [{}]
            first = series[0]
            bodyweight = not first.get("weight_kg")
            steps.append(
                self.t(
                    "offline_routine_item_bodyweight" if bodyweight else "offline_routine_item",
                    name=step.get("name") or step.get("exercise_id", ""),
                    sets=len(series),
                    reps=first.get("reps", ""),
                    load=self.number(first.get("weight_kg") or 0),
                    rest=first.get("rest_seconds", ""),
                )
            )
        return self.t(
            "offline_routine_created",
            name=data.get("name", ""),
            category=self._category(data),
            exercises="; ".join(steps),
        )

    def choose(self, kind: str, query: str, options: Sequence[str]) -> str:
        """Several rows match: ask which (``kind``: food or exercise)."""
        return self.t(f"offline_{kind}_choose", query=query, options=", ".join(options))

    def none_found(self, kind: str, query: str) -> str:
        """Nothing matches ``query`` (``kind``: food or exercise)."""
        return self.t(f"offline_{kind}_none", query=query)

    def tool_missing(self, tool: str) -> str:
        """The session does not offer a tool this model needs."""
        return self.t("offline_tool_missing", tool=tool)


def _present(row: dict[str, Any]) -> list[str]:
    return [f for f in FIELDS if row.get(f) is not None]
