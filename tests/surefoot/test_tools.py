"""Declaring tools: the JSON Schema sent to providers, strict validation
of what comes back, and the declaration mistakes that must fail loudly."""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from surefoot import (
    Arguments,
    CalendarDate,
    ConfigurationError,
    Detail,
    Ok,
    Tool,
    ToolContext,
    ToolSet,
)

Weight = Annotated[float, Field(ge=20, le=400, description="Body weight in kg.")]


class Serie(Arguments):
    """One set of an exercise."""

    reps: Annotated[int, Field(ge=1, le=100)]
    weight_kg: Annotated[float, Field(ge=0)]


class Exercise(Arguments):
    """One exercise of a routine."""

    exercise_id: str
    series: list[Serie]


class Step(Arguments):
    """One step of a plan."""

    reps: int
    note: str | None = None


class Node(Arguments):
    """A node of a tree (it contains itself)."""

    label: str
    children: list[Node]


def _measurement_tool() -> Tool:
    def write_measurement(
        ctx: ToolContext,
        date: CalendarDate,
        weight_kg: Weight | None = None,
        meal: Literal["breakfast", "lunch", "dinner"] = "lunch",
    ) -> dict[str, Any]:
        """Save a measurement for one calendar date."""
        return {}

    return Tool.from_function(write_measurement, effect="write", idempotent=True)


def _routine_tool() -> Tool:
    def create_routine(
        name: Annotated[str, Field(min_length=1)],
        category: Literal["strength", "hypertrophy", "cardio", "flexibility"],
        exercises: list[Exercise],
    ) -> dict[str, Any]:
        """Create a routine."""
        return {}

    return Tool.from_function(create_routine, effect="write")


def _objects(node: object) -> Iterator[dict[str, Any]]:
    """Every object schema in ``node`` (anything with properties or type object)."""
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


# -- the schema ------------------------------------------------------------------------------


def test_every_object_schema_forbids_additional_properties() -> None:
    """Top-level and nested object schemas all carry ``additionalProperties: false``."""
    for tool in (_measurement_tool(), _routine_tool()):
        objects = list(_objects(tool.spec().parameters))
        assert len(objects) >= 1
        for schema in objects:
            assert schema.get("additionalProperties") is False, schema
    nested = list(_objects(_routine_tool().spec().parameters))
    assert len(nested) == 3  # the arguments, Exercise and Serie


def test_schema_of_a_tool_without_parameters_is_an_empty_closed_object() -> None:
    """A tool with no arguments still declares an object with no properties and no extras."""

    def list_memory_keys() -> dict[str, Any]:
        """List the keys."""
        return {}

    schema = Tool.from_function(list_memory_keys).spec().parameters
    assert schema["type"] == "object"
    assert schema["properties"] == {}
    assert schema["additionalProperties"] is False
    assert not schema.get("required")


def test_required_lists_exactly_the_parameters_without_default() -> None:
    """Parameters without a default are required; the others are not."""
    assert _measurement_tool().spec().parameters["required"] == ["date"]
    assert sorted(_routine_tool().spec().parameters["required"]) == [
        "category",
        "exercises",
        "name",
    ]


def test_calendar_date_is_a_string_with_date_format() -> None:
    """A ``CalendarDate`` parameter is declared as ``{"type": "string", "format": "date"}``."""
    date = _measurement_tool().spec().parameters["properties"]["date"]
    assert date == {"type": "string", "format": "date"}


def test_ranges_become_minimum_and_maximum() -> None:
    """``Field(ge=, le=)`` ranges appear as minimum/maximum, with the description kept."""
    weight = _measurement_tool().spec().parameters["properties"]["weight_kg"]
    assert (weight["minimum"], weight["maximum"]) == (20, 400)
    assert weight["description"] == "Body weight in kg."


def test_an_optional_parameter_is_its_plain_type_left_out_of_required() -> None:
    """``x: float | None = None`` is declared as a number, not anyOf-null with default null."""
    params = _measurement_tool().spec().parameters
    assert params["properties"]["weight_kg"] == {
        "description": "Body weight in kg.",
        "maximum": 400,
        "minimum": 20,
        "type": "number",
    }
    assert "weight_kg" not in params["required"]
    assert params["properties"]["meal"]["default"] == "lunch"  # a real default is kept


def test_an_explicit_null_for_an_optional_parameter_is_still_accepted() -> None:
    """Only the declaration changed: a model that sends null for an optional field is fine."""
    validated = _measurement_tool().validate({"date": "2020-01-01", "weight_kg": None})
    assert not isinstance(validated, tuple)
    assert validated.weight_kg is None  # type: ignore[attr-defined]
    refused = _measurement_tool().validate({"date": "2020-01-01", "weight_kg": "80.5"})
    assert isinstance(refused, tuple)
    assert [d.field for d in refused] == ["weight_kg"]


def test_a_required_nullable_parameter_keeps_its_null_option() -> None:
    """Without a default, null is a value the model must be able to send: anyOf stays."""

    def set_goal(
        weight_kg: float | None, note: Annotated[str, Field(max_length=9)] | None = None
    ) -> dict[str, Any]:
        """Set or clear the goal."""
        return {}

    params = Tool.from_function(set_goal, effect="write").spec().parameters
    assert params["properties"]["weight_kg"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert params["properties"]["note"] == {"maxLength": 9, "type": "string"}
    assert params["required"] == ["weight_kg"]


def test_a_nested_model_used_once_is_written_in_place() -> None:
    """A nested model used once is inlined (no $defs, no $ref); its optionals are plain too."""

    def plan(steps: list[Step], first: Step | None = None) -> dict[str, Any]:
        """Plan the steps."""
        return {}

    once = Tool.from_function(plan, effect="write").spec().parameters
    assert "$defs" in once  # Step is used twice: the table stays
    step = once["$defs"]["Step"]
    assert step["properties"]["note"] == {"type": "string"}
    assert once["properties"]["first"] == {"$ref": "#/$defs/Step"}
    routine = _routine_tool().spec().parameters
    assert "$defs" not in routine
    assert "$ref" not in str(routine)
    serie = routine["properties"]["exercises"]["items"]["properties"]["series"]["items"]
    assert serie["required"] == ["reps", "weight_kg"]
    assert serie["additionalProperties"] is False


def test_a_recursive_model_keeps_its_definitions() -> None:
    """A model that contains itself cannot be written in place: its $defs stay."""

    def save_tree(root: Node) -> dict[str, Any]:
        """Save a tree."""
        return {}

    params = Tool.from_function(save_tree, effect="write").spec().parameters
    assert "Node" in params["$defs"]
    assert params["properties"]["root"] == {"$ref": "#/$defs/Node"}


def test_every_schema_is_valid_draft_2020_12() -> None:
    """The declarations are valid JSON Schema 2020-12 (what MCP and providers expect)."""
    from jsonschema import Draft202012Validator

    for tool in (_measurement_tool(), _routine_tool()):
        Draft202012Validator.check_schema(tool.spec().parameters)


def test_literal_becomes_enum() -> None:
    """A ``Literal`` parameter is declared as a string enum."""
    meal = _measurement_tool().spec().parameters["properties"]["meal"]
    assert meal["enum"] == ["breakfast", "lunch", "dinner"]
    assert meal["type"] == "string"


def test_schema_has_no_generated_titles() -> None:
    """pydantic's generated ``title`` keys are stripped from properties (noise for models)."""
    props = _measurement_tool().spec().parameters["properties"]
    assert all("title" not in prop for prop in props.values())


def test_tool_context_is_excluded_from_the_schema() -> None:
    """A leading ``ctx: ToolContext`` is for the harness: not a property, not required."""
    tool = _measurement_tool()
    params = tool.spec().parameters
    assert "ctx" not in params["properties"]
    assert "ctx" not in params.get("required", [])
    assert tool.wants_context is True
    refused = tool.validate({"date": "2020-01-01", "ctx": None})
    assert isinstance(refused, tuple)
    assert [d.field for d in refused] == ["ctx"]


def test_spec_carries_name_description_and_effect() -> None:
    """The provider-facing spec has the tool's name, its docstring and its effect."""
    spec = _measurement_tool().spec()
    assert spec.name == "write_measurement"
    assert spec.description == "Save a measurement for one calendar date."
    assert spec.effect == "write"


# -- strict validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "field", "expected_fragment"),
    [
        ({"date": "2020-01-01", "weight_kg": "76"}, "weight_kg", "number"),
        ({"date": "2020-01-01", "weight_kg": "76kg"}, "weight_kg", "number"),
        ({"date": "2020-01-01", "weight_kg": True}, "weight_kg", "number"),
        ({"date": "2020-01-01", "weight_kg": 19.9}, "weight_kg", ">= 20"),
        ({"date": "2020-01-01", "weight_kg": 400.5}, "weight_kg", "<= 400"),
        ({"date": "02/01/2020"}, "date", "YYYY-MM-DD"),
        ({"date": "2020-02-30"}, "date", "YYYY-MM-DD"),
        ({"date": "2020-1-5"}, "date", "YYYY-MM-DD"),
        ({"date": "2020-01-01T00:00:00"}, "date", "YYYY-MM-DD"),
        ({"date": "2020-01"}, "date", "YYYY-MM-DD"),
        ({"date": 20200101}, "date", "YYYY-MM-DD"),
        ({"date": "2020-01-01", "meal": "brunch"}, "meal", "breakfast"),
        ({"date": "2020-01-01", "extra": 1}, "extra", "no such field"),
        ({}, "date", "required"),
    ],
    ids=[
        "number-as-string",
        "number-with-unit",
        "bool-for-number",
        "below-range",
        "above-range",
        "dd-mm-yyyy",
        "feb-30",
        "unpadded",
        "datetime",
        "prefix",
        "int-date",
        "enum",
        "extra-field",
        "missing-required",
    ],
)
def test_strict_validation_refuses_with_details(
    arguments: dict[str, Any], field: str, expected_fragment: str
) -> None:
    """Each malformed argument set is refused, naming the field and what was expected."""
    details = _measurement_tool().validate(arguments)
    assert isinstance(details, tuple)
    assert details
    assert all(isinstance(d, Detail) for d in details)
    by_field = {d.field: d for d in details}
    assert field in by_field, details
    assert expected_fragment in (by_field[field].expected or ""), by_field[field]
    assert by_field[field].problem


@pytest.mark.parametrize(
    "arguments",
    [
        {"date": "2020-01-01"},
        {"date": "2020-01-01", "weight_kg": 76},
        {"date": "2020-01-01", "weight_kg": 76.4},
        {"date": "2020-02-29", "weight_kg": 20, "meal": "dinner"},
        {"date": "2020-01-01", "weight_kg": None},
    ],
)
def test_valid_arguments_are_accepted(arguments: dict[str, Any]) -> None:
    """Well-typed arguments validate (an integer is a valid JSON number)."""
    validated = _measurement_tool().validate(arguments)
    assert not isinstance(validated, tuple), validated
    assert validated.date.isoformat() == arguments["date"]  # type: ignore[attr-defined]


def test_validation_reports_every_problem_at_once() -> None:
    """Several bad fields give several details, so the model can fix them in one go."""
    details = _measurement_tool().validate({"date": "02/01/2020", "weight_kg": "76kg", "x": 1})
    assert isinstance(details, tuple)
    assert {d.field for d in details} == {"date", "weight_kg", "x"}


def test_nested_problems_name_the_nested_path() -> None:
    """A problem deep in a nested model names its dotted path (``exercises.0.series.0.reps``)."""
    details = _routine_tool().validate(
        {
            "name": "Push",
            "category": "strength",
            "exercises": [{"exercise_id": "bench", "series": [{"reps": 0, "weight_kg": 40}]}],
        }
    )
    assert isinstance(details, tuple)
    assert [d.field for d in details] == ["exercises.0.series.0.reps"]
    assert details[0].expected == "a number >= 1"


def test_nested_extra_field_lists_the_nested_fields() -> None:
    """An unknown field inside a nested object says which fields *that object* allows."""
    details = _routine_tool().validate(
        {
            "name": "Push",
            "category": "strength",
            "exercises": [{"exercise_id": "bench", "series": [], "sets": 3}],
        }
    )
    assert isinstance(details, tuple)
    (detail,) = details
    assert detail.field == "exercises.0.sets"
    assert detail.expected is not None
    assert "exercise_id" in detail.expected
    assert "series" in detail.expected
    assert "category" not in detail.expected


def test_details_are_safe_to_show_the_model() -> None:
    """Details never echo pydantic's docs URLs or internal class names."""
    details = _measurement_tool().validate({"date": "x", "weight_kg": "76kg", "y": 2})
    assert isinstance(details, tuple)
    text = repr([d.to_json() for d in details])
    assert "errors.pydantic.dev" not in text
    assert "write_measurement_arguments" not in text


# -- declaration mistakes --------------------------------------------------------------------


def _documented(func: Any) -> Any:
    func.__doc__ = "A tool."
    return func


def test_ctx_must_come_first() -> None:
    """A ``ToolContext`` parameter anywhere but first is a configuration error."""

    def tool(date: CalendarDate, ctx: ToolContext) -> dict[str, Any]:
        """A tool."""
        return {}

    with pytest.raises(ConfigurationError, match="first"):
        Tool.from_function(tool)


def test_unannotated_parameter_is_refused() -> None:
    """Every parameter needs a type annotation (it becomes the schema)."""

    def tool(date) -> dict[str, Any]:
        """A tool."""
        return {}

    with pytest.raises(ConfigurationError, match="annotation"):
        Tool.from_function(tool)


@pytest.mark.parametrize("kind", ["args", "kwargs"])
def test_var_parameters_are_refused(kind: str) -> None:
    """``*args`` / ``**kwargs`` cannot become a schema."""

    def with_args(*args: int) -> dict[str, Any]:
        """A tool."""
        return {}

    def with_kwargs(**kwargs: int) -> dict[str, Any]:
        """A tool."""
        return {}

    with pytest.raises(ConfigurationError, match="args"):
        Tool.from_function(with_args if kind == "args" else with_kwargs)


def test_a_description_is_required() -> None:
    """A tool without a docstring or description is refused; an explicit description is used."""

    def nameless() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="description"):
        Tool.from_function(nameless)
    assert Tool.from_function(nameless, description="Explicit.").description == "Explicit."


@pytest.mark.parametrize("name", ["bad-name", "1starts_with_digit", "has space", "x" * 65, "ñu"])
def test_tool_names_must_be_provider_safe(name: str) -> None:
    """Names are letters, digits and ``_``, start with a letter, at most 64 characters."""

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="name"):
        Tool.from_function(tool, name=name)


@pytest.mark.parametrize(
    "options",
    [{"idempotent": True}, {"confirm": True}, {"atomic": True}, {"reconcile": lambda k, a: None}],
    ids=["idempotent", "confirm", "atomic", "reconcile"],
)
def test_write_only_options_on_a_read_tool_are_refused(options: dict[str, Any]) -> None:
    """idempotent/confirm/atomic/reconcile only make sense for writes."""

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="write"):
        Tool.from_function(tool, effect="read", **options)


def test_unknown_effect_is_refused() -> None:
    """The effect is ``read`` or ``write``, nothing else."""

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="effect"):
        Tool.from_function(tool, effect="delete")  # type: ignore[arg-type]


def test_duplicate_names_in_a_toolset_are_refused() -> None:
    """A ``ToolSet`` holds each name once."""
    tools = ToolSet()

    @tools.tool
    def ping() -> dict[str, Any]:
        """Ping."""
        return {}

    def another() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="twice"):
        tools.add(Tool.from_function(another, name="ping", description="Again."))


def test_toolset_keeps_declaration_order_and_returns_tools() -> None:
    """The decorator returns the ``Tool``; names and specs keep declaration order."""
    tools = ToolSet()

    @tools.tool(effect="write")
    def zeta(value: int) -> dict[str, Any]:
        """Z."""
        return {"value": value}

    @tools.tool
    async def alpha() -> dict[str, Any]:
        """A."""
        return {}

    assert isinstance(zeta, Tool)
    assert tools.names == ("zeta", "alpha")
    assert [s.name for s in tools.specs()] == ["zeta", "alpha"]
    assert len(tools) == 2
    assert tools.get("alpha") is alpha
    assert tools.get("missing") is None
    assert alpha.is_async is True
    assert zeta.is_async is False


# -- MCP annotations -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"effect": "read"}, (True, True, False)),
        ({"effect": "write", "idempotent": True}, (False, True, True)),
        ({"effect": "write", "idempotent": True, "destructive": False}, (False, True, False)),
        ({"effect": "write"}, (False, False, True)),
        ({"effect": "write", "destructive": True}, (False, False, True)),
        ({"effect": "write", "destructive": False}, (False, False, False)),
        ({"effect": "write", "confirm": True}, (False, False, True)),
    ],
    ids=[
        "read",
        "idempotent-upsert",
        "idempotent-additive",
        "write",
        "declared-destructive",
        "additive-write",
        "confirm-write",
    ],
)
def test_mcp_annotations(options: dict[str, Any], expected: tuple[bool, bool, bool]) -> None:
    """Effects map onto readOnlyHint / idempotentHint / destructiveHint: every write is
    destructive unless declared ``destructive=False``, an idempotent one included."""

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    hints = Tool.from_function(tool, **options).annotations
    assert (hints["readOnlyHint"], hints["idempotentHint"], hints["destructiveHint"]) == expected
    assert set(hints) == {"readOnlyHint", "idempotentHint", "destructiveHint"}


@pytest.mark.parametrize("destructive", [True, False])
def test_destructive_is_refused_on_a_read(destructive: bool) -> None:
    """A read changes nothing: declaring it destructive or not is a configuration error."""

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="destructive"):
        Tool.from_function(tool, effect="read", destructive=destructive)


def test_a_title_is_declared_or_made_from_the_name() -> None:
    """``title=`` is kept; without it the name becomes a sentence-case title."""
    tools = ToolSet()

    @tools.tool(effect="write", title="Log a food in a meal", destructive=False)
    @_documented
    def add_meal_food() -> dict[str, Any]:
        return {}

    @tools.tool
    @_documented
    def read_measurement() -> dict[str, Any]:
        return {}

    assert [t.human_title for t in tools] == ["Log a food in a meal", "Read measurement"]
    assert [t.title for t in tools] == ["Log a food in a meal", None]
    assert tools.get("add_meal_food") is not None
    assert tools.get("add_meal_food").destructive is False  # type: ignore[union-attr]


def test_an_empty_title_is_refused() -> None:
    """A blank title would show nothing to the person choosing the tool."""

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    with pytest.raises(ConfigurationError, match="title"):
        Tool.from_function(tool, title="  ")


def test_reconcile_hook_is_kept_on_the_tool() -> None:
    """A write's reconcile hook is stored for the executor to call."""

    def reconcile(key: str, arguments: dict[str, Any]) -> Ok | None:
        return None

    @_documented
    def tool() -> dict[str, Any]:
        return {}

    assert Tool.from_function(tool, effect="write", reconcile=reconcile).reconcile is reconcile


class Unit(enum.Enum):
    """A unit the schema lists as strings."""

    KG = "kg"
    LB = "lb"


def test_arguments_are_taken_from_their_json_form() -> None:
    """Types JSON has no literal for (an enum, a tuple, a UUID, a datetime, a Decimal) are
    validated from the JSON the schema describes, still strictly: they used to be refused
    whatever the model sent, since strict validation wanted Python objects."""
    tools = ToolSet()

    @tools.tool
    def log(
        unit: Unit,
        pair: tuple[int, int],
        ref: uuid.UUID,
        at: dt.datetime,
        amount: decimal.Decimal,
    ) -> dict[str, Any]:
        """Log it."""
        return {}

    assert log.spec().parameters["properties"]["unit"]["enum"] == ["kg", "lb"]  # in place
    good = {
        "unit": "lb",
        "pair": [1, 2],
        "ref": "12345678-1234-5678-1234-567812345678",
        "at": "2020-01-01T10:00:00",
        "amount": "1.5",
    }
    validated = log.validate(good)
    assert not isinstance(validated, tuple), validated
    assert (validated.unit, validated.pair) == (Unit.LB, (1, 2))  # type: ignore[attr-defined]
    wrong = log.validate({**good, "unit": "stone", "pair": ["1", 2]})
    assert isinstance(wrong, tuple)
    assert {detail.field for detail in wrong} == {"unit", "pair.0"}


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_numbers_must_be_finite(value: float) -> None:
    """NaN and the infinities are not numbers a tool receives (nor JSON): refused, named."""
    tools = ToolSet()

    @tools.tool
    def weigh(kg: float) -> dict[str, Any]:
        """Weigh."""
        return {}

    (detail,) = weigh.validate({"kg": value})  # type: ignore[misc]
    assert detail.field == "kg"
    assert "finite" in detail.problem
