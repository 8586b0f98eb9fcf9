"""Declaring tools: a typed Python function becomes a tool with a schema and an effect.

::

    tools = ToolSet()

    @tools.tool(effect="read")
    def read_measurement(date: CalendarDate) -> dict[str, Any] | ToolError:
        "Read the measurement saved for one calendar date."
        ...

The function's parameters (except a leading ``ctx: ToolContext``) become a strict pydantic
model: exact JSON types (``"76"`` is not a number), no extra fields, real calendar dates. The
JSON Schema providers receive is generated from that same model, so what the model is told and
what the executor accepts cannot drift apart.

A handler returns its data or a ``ToolError`` for an expected domain condition. Its data is
any JSON value (a ``dict``, a ``list``, a ``str``, a number, a ``bool``, ``None``), a pydantic
model or a dataclass (serialized in JSON mode: a date becomes its ISO text). ``Ok.data`` is
always a JSON object, so data that is not one is wrapped: ``["a", "b"]`` becomes
``{"result": ["a", "b"]}``. A return annotation the harness cannot send as JSON (``bytes``,
``set``, a bare ``datetime``, another class) is refused when the tool is declared; the rules
are in ``_returns``. Anything a handler raises, or returns that is not JSON data, is caught by
the executor and turned into ``unavailable`` (reads) or ``outcome_unknown`` / ``not_applied``
(writes).
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Final,
    Literal,
    get_args,
    get_type_hints,
    overload,
)

from ._exceptions import ConfigurationError
from ._grounding import Grounded
from ._messages import ToolSpec
from ._outcome import Detail, Ok, ToolError
from ._returns import check_return_annotation, result_schema
from ._texts import Lang, has_text, text

if TYPE_CHECKING:
    from pydantic import BaseModel, GetCoreSchemaHandler
    from pydantic_core import CoreSchema

    from ._context import ToolContext

Effect = Literal["read", "write"]
ReconcileResult = Ok | Literal["absent"] | None
"""A reconcile hook's verdict: the effect happened (its result), provably did not, or unknown."""
Describe = Callable[[dict[str, Any], Lang], str]
"""A write's result in a person's words, in a language ("weight 77.4 kg, 3 Dec")."""
Confirm = Callable[[dict[str, Any], "ToolContext"], "str | None"]
"""A per-call confirmation policy: ``confirm(arguments, ctx)`` with the validated arguments
(as the handler gets them) returns None (this call runs without asking) or the question a
person answers before it runs ("Save 220 kg for today? Your last weight was 76 kg on 3 Dec.").
"""
Precheck = Callable[[dict[str, Any], "ToolContext"], "ToolError | None"]
"""A check before a person is asked: ``precheck(arguments, ctx)`` with the validated arguments
returns None (ask) or the ``ToolError`` that is the call's outcome without asking, when the
call cannot have any effect ("there is no note 'x'" for a delete).
"""

_NOT_ISO = "must be a calendar date written YYYY-MM-DD"
_NOT_A_DAY = "is not a real calendar date"
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _calendar_date(value: object) -> object:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if not isinstance(value, str) or not _ISO_DATE.fullmatch(value):
        raise ValueError(_NOT_ISO)
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ValueError(_NOT_A_DAY) from None


class _CalendarDay:
    """pydantic metadata for ``CalendarDate``: the check above, run before pydantic's own date
    validation. pydantic itself is imported only when a model that uses it is built (importing
    surefoot loads none of pydantic's machinery; declaring the first tool does)."""

    __slots__ = ()

    def __get_pydantic_core_schema__(
        self, source: object, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        from pydantic import BeforeValidator

        return BeforeValidator(_calendar_date).__get_pydantic_core_schema__(source, handler)

    def __repr__(self) -> str:
        return "CalendarDay()"


CalendarDate = Annotated[dt.date, _CalendarDay()]
"""A calendar date: exactly ``YYYY-MM-DD``, a real day, no time, no time zone."""


@dataclass(frozen=True, slots=True)
class Tool:
    """A declared tool. Build it with ``ToolSet.tool`` or ``Tool.from_function``.

    Attributes:
        name: The name the model calls it by (letters, digits and ``_``, at most 64).
        description: What the model reads about it (the function's docstring by default).
        handler: The function that runs it.
        arguments: The strict pydantic model its arguments are validated against.
        effect: ``"read"`` or ``"write"``; a write gets an idempotency key and a ledger entry.
        idempotent: Doing the write twice is the same as once.
        destructive: The write may change or remove data that exists (MCP's
            ``destructiveHint``). None, the default, means True for every write: only a write
            declared ``destructive=False`` is additive (it adds a row, an item, an issue and
            changes nothing there was). An idempotent upsert that can overwrite is destructive.
            Reads are never destructive (declaring it on a read is refused).
        title: A human title for the tool (MCP's ``title``); None: from its name
            (``add_meal_food`` is "Add meal food").
        confirm: A person approves each call of the write before it runs (True), or the
            calls a ``Confirm`` policy asks a question for: it runs after validation, before
            the write claims its key, and the approval stays bound to that exact call.
        reconcile: ``reconcile(key, arguments)``: whether a write whose fate is unknown took
            effect (``Ok``), provably did not (``"absent"``) or cannot be told (None).
        repeatable: An identical call in a later round of the same turn is a new write (a
            counter, "add another set"). By default it is not run again: the model gets
            ``already_done`` with the first call's result. Identical calls in one response
            always each run.
        precheck: A write that confirms (``confirm=True`` or a policy) first runs this
            ``Precheck`` on each call nobody has decided on, before its policy or question:
            an error it returns is the call's outcome, so nobody is asked about a call that
            could not do anything (deleting what does not exist). It reads only; the
            handler checks again when it runs.
        describe: ``describe(data, lang)``: how a person reads what this write saved (the
            harness lists a turn's writes when it writes the reply itself); by default the
            tool's name and the data's top-level values.
        grounded: The arguments that must come from the person's own words, by name
            (``Grounded.number("kg")``, ``Grounded.date()``): checked against the
            conversation's user messages before the handler runs (``_grounding``).
        wants_context: The handler takes a ``ToolContext`` first.
        is_async: The handler is a coroutine function.
    """

    name: str
    description: str
    handler: Callable[..., Any]
    arguments: type[BaseModel]
    effect: Effect = "read"
    idempotent: bool = False
    confirm: bool | Confirm = False
    destructive: bool | None = None
    title: str | None = None
    atomic: bool = False
    """The effect commits in the ledger's own database, in one transaction with the ledger
    (the handler calls ``ctx.commit_in``); a failure before that commit is then known to
    have changed nothing."""
    reconcile: Callable[[str, dict[str, Any]], ReconcileResult] | None = None
    repeatable: bool = False
    describe: Describe | None = None
    precheck: Precheck | None = None
    grounded: tuple[tuple[str, Grounded], ...] = ()
    wants_context: bool = False
    is_async: bool = False

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        effect: Effect = "read",
        idempotent: bool = False,
        confirm: bool | Confirm = False,
        destructive: bool | None = None,
        title: str | None = None,
        atomic: bool = False,
        reconcile: Callable[[str, dict[str, Any]], ReconcileResult] | None = None,
        repeatable: bool = False,
        describe: Describe | None = None,
        grounded: Mapping[str, Grounded] | None = None,
        precheck: Precheck | None = None,
    ) -> Tool:
        """Declare a tool from a typed function (its parameters become the arguments; its
        return annotation must be one the harness can send as JSON, or none). ``grounded``
        names the arguments of a write the person must have said (see ``ToolSet.tool``)."""
        if effect not in ("read", "write"):
            msg = f"effect must be 'read' or 'write', got {effect!r}"
            raise ConfigurationError(msg)
        if effect == "read" and (
            idempotent
            or confirm
            or atomic
            or reconcile
            or repeatable
            or precheck
            or destructive is not None
        ):
            msg = (
                "idempotent, confirm, destructive, atomic, reconcile, repeatable and precheck "
                "only apply to writes"
            )
            raise ConfigurationError(msg)
        if title is not None and not title.strip():
            msg = "a tool's title cannot be empty (leave it out to use the name)"
            raise ConfigurationError(msg)
        tool_name = name or func.__name__
        if not re.fullmatch(r"[a-zA-Z][a-zA-Z0-9_]{0,63}", tool_name):
            msg = f"tool name {tool_name!r} must be letters, digits and _ (at most 64)"
            raise ConfigurationError(msg)
        doc = description or inspect.getdoc(func) or ""
        if not doc:
            msg = f"tool {tool_name!r} needs a description (a docstring)"
            raise ConfigurationError(msg)
        model, wants_context = _arguments_model(func, tool_name)
        check_return_annotation(func, tool_name)
        checked = _grounded(grounded or {}, model, effect, tool_name)
        return cls(
            name=tool_name,
            description=doc,
            handler=func,
            arguments=model,
            effect=effect,
            idempotent=idempotent,
            confirm=confirm,
            destructive=destructive,
            title=title,
            atomic=atomic,
            reconcile=reconcile,
            repeatable=repeatable,
            describe=describe,
            precheck=precheck,
            grounded=checked,
            wants_context=wants_context,
            is_async=inspect.iscoroutinefunction(func),
        )

    def confirmation(self, arguments: dict[str, Any], ctx: ToolContext) -> tuple[bool, str | None]:
        """Whether this call waits for a person, and the question to ask them (None: the
        harness's own words). A static ``confirm`` asks for every call."""
        if not callable(self.confirm):
            return bool(self.confirm), None
        question = self.confirm(arguments, ctx)
        return question is not None, question

    def spec(self) -> ToolSpec:
        """The provider-facing declaration, generated from the argument model."""
        return ToolSpec(
            name=self.name,
            description=self.description,
            parameters=_json_schema(self.arguments),
            effect=self.effect,
        )

    def validate(
        self, arguments: dict[str, Any], lang: Lang = "en"
    ) -> BaseModel | tuple[Detail, ...]:
        """The validated arguments, or the problems found, in ``lang`` (the handler must not
        run)."""
        try:
            # NaN is written as NaN, for the model's check to refuse by name; a lone
            # surrogate or absurd nesting cannot be written at all
            payload = _to_json()(arguments, inf_nan_mode="constants")
        except ValueError:
            return (Detail("$", text(lang, "arg_invalid")),)
        try:
            # validated as the JSON text the model sent: an enum, a tuple, a UUID or a
            # datetime is then taken from its JSON form (as the schema tells the model), and
            # what JSON cannot hold (NaN, lone surrogates, absurd nesting) is refused
            return self.arguments.__pydantic_validator__.validate_json(payload)  # type: ignore[no-any-return]
        except Exception as exc:
            from pydantic import ValidationError  # loaded already: the model is pydantic's

            if not isinstance(exc, ValidationError):
                raise
            return tuple(_detail(err, self.arguments, lang) for err in exc.errors())

    @property
    def annotations(self) -> dict[str, bool]:
        """MCP tool annotations for this declaration: a write is destructive unless it was
        declared ``destructive=False`` (additive), idempotent or not."""
        return {
            "readOnlyHint": self.effect == "read",
            "idempotentHint": self.effect == "read" or self.idempotent,
            "destructiveHint": self.effect == "write" and self.destructive is not False,
        }

    @property
    def human_title(self) -> str:
        """The declared title, or one made from the name (``add_meal_food``: "Add meal
        food")."""
        return self.title or title_from_name(self.name)

    def result_schema(self) -> dict[str, Any]:
        """The JSON Schema of ``Ok.data`` for this tool, from the handler's return annotation
        (data that is not an object described as ``{"result": ...}``)."""
        return result_schema(self.handler)


def title_from_name(name: str) -> str:
    """A human title from a tool name: ``read_measurement`` is "Read measurement"."""
    words = name.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


@functools.cache
def _to_json() -> Callable[..., bytes]:
    """pydantic's JSON writer (several times faster than ``json``'s for small arguments),
    imported on first use like the rest of pydantic."""
    from pydantic_core import to_json

    return to_json


def _arguments_model(func: Callable[..., Any], tool_name: str) -> tuple[type[BaseModel], bool]:
    import pydantic

    from ._context import ToolContext

    hints = get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    wants_context = False
    for index, param in enumerate(inspect.signature(func).parameters.values()):
        annotation = hints.get(param.name)
        if annotation is ToolContext:
            if index != 0:
                msg = f"{tool_name}: the ToolContext parameter must come first"
                raise ConfigurationError(msg)
            wants_context = True
            continue
        if annotation is None:
            msg = f"{tool_name}: parameter {param.name!r} needs a type annotation"
            raise ConfigurationError(msg)
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            msg = f"{tool_name}: *args and **kwargs cannot become a schema"
            raise ConfigurationError(msg)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, default)
    model = pydantic.create_model(
        f"{tool_name}_arguments",
        __config__=pydantic.ConfigDict(strict=True, extra="forbid", allow_inf_nan=False),
        **fields,
    )
    return model, wants_context


def _grounded(
    grounded: Mapping[str, Grounded], model: type[BaseModel], effect: Effect, tool_name: str
) -> tuple[tuple[str, Grounded], ...]:
    """``grounded`` as declared, checked: only a write (a derived value waits for a person's
    confirmation, which only writes have), only its own arguments, only ``Grounded`` specs."""
    if grounded and effect != "write":
        msg = f"{tool_name}: grounded arguments only apply to writes"
        raise ConfigurationError(msg)
    for field in grounded:
        spec: object = grounded[field]  # an untyped caller may pass anything
        if field not in model.model_fields:
            msg = f"{tool_name}: grounded names {field!r}, which is not one of its arguments"
            raise ConfigurationError(msg)
        if not isinstance(spec, Grounded):
            msg = f"{tool_name}: grounded[{field!r}] must be Grounded.number(...) or .date()"
            raise ConfigurationError(msg)
    fields = model.model_fields
    return tuple(
        (name, replace(spec, optional=not fields[name].is_required()))
        for name, spec in grounded.items()
    )


def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    _strip_titles(schema)
    _plain_optionals(schema)
    _inline_definitions(schema)
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


_NULL: Final = {"type": "null"}


def _plain_optionals(node: object) -> None:
    """Declare each optional parameter (``x: float | None = None``) as its plain type, left
    out of ``required``, instead of pydantic's ``anyOf [{type: number}, {type: null}]`` with
    ``default: null``: half the characters a model reads before its first word, and what MCP
    clients build their forms from (one offered "80.5" as a string for the anyOf form). Only
    the declaration changes: the arguments model still takes an explicit null."""
    if isinstance(node, list):
        for item in node:
            _plain_optionals(item)
        return
    if not isinstance(node, dict):
        return
    properties = node.get("properties")
    if isinstance(properties, dict):
        required = set(node.get("required", ()))
        for name, prop in properties.items():
            if name not in required and isinstance(prop, dict):
                properties[name] = _without_null(prop)
    for key, value in node.items():
        if key != "properties":
            _plain_optionals(value)
        elif isinstance(value, dict):
            for prop in value.values():
                _plain_optionals(prop)


def _inline_definitions(schema: dict[str, Any]) -> None:
    """Write each nested model where it is used, when each is used once and none contains
    itself: ``{"$ref": "#/$defs/Series"}`` and a ``$defs`` table cost a model more to read
    (and to follow) than the object in place."""
    definitions = schema.get("$defs")
    if not isinstance(definitions, dict):
        return
    uses = _refs([value for key, value in schema.items() if key != "$defs"])
    inside = {name: _refs(body) for name, body in definitions.items()}
    for refs in inside.values():
        uses.extend(refs)
    if sorted(uses) != sorted(definitions):  # each exactly once, none unknown
        return
    if any(_reaches(name, name, inside, set()) for name in definitions):
        return
    del schema["$defs"]
    schema.update(_replace_refs(schema, definitions))


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return ref.removeprefix("#/$defs/")
    return None


def _refs(node: object) -> list[str]:
    """The names of the definitions ``node`` refers to, once per reference."""
    if isinstance(node, list):
        return [name for item in node for name in _refs(item)]
    if not isinstance(node, dict):
        return []
    name = _ref_name(node)
    return ([name] if name is not None else []) + _refs(list(node.values()))


def _reaches(start: str, target: str, inside: dict[str, list[str]], seen: set[str]) -> bool:
    """Whether definition ``start`` contains ``target``, at any depth."""
    for name in inside.get(start, ()):
        if name == target:
            return True
        if name not in seen:
            seen.add(name)
            if _reaches(name, target, inside, seen):
                return True
    return False


def _replace_refs(node: Any, definitions: dict[str, Any]) -> Any:
    """``node`` with each reference replaced by the definition it names (used once each)."""
    if isinstance(node, list):
        return [_replace_refs(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    replaced = {key: _replace_refs(value, definitions) for key, value in node.items()}
    name = _ref_name(replaced)
    if name is None:
        return replaced
    del replaced["$ref"]
    return {**_replace_refs(definitions[name], definitions), **replaced}


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    """``prop`` without its null option, when null is only how "not given" was spelled."""
    options = prop.get("anyOf")
    if "default" not in prop or prop["default"] is not None or not isinstance(options, list):
        return prop
    kept = [option for option in options if option != _NULL]
    if len(kept) != len(options) - 1 or not kept:
        return prop
    outer = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    if len(kept) == 1 and isinstance(kept[0], dict):
        return {**kept[0], **outer}
    return {"anyOf": kept, **outer}


def _strip_titles(node: object) -> None:
    if isinstance(node, dict):
        node.pop("title", None)
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                for prop in value.values():
                    _strip_titles(prop)
            else:
                _strip_titles(value)
    elif isinstance(node, list):
        for item in node:
            _strip_titles(item)


# pydantic error types, grouped by what was wrong; each group has the harness's own words
_GROUPS: dict[str, str] = {
    "missing": "missing",
    "extra_forbidden": "extra",
    "float_type": "number",
    "float_parsing": "number",
    "finite_number": "finite",
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "string_type": "string",
    "string_unicode": "string",
    "bool_type": "bool",
    "bool_parsing": "bool",
    "list_type": "list",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
    "greater_than_equal": "range",
    "greater_than": "range",
    "less_than_equal": "range",
    "less_than": "range",
    "literal_error": "choice",
    "enum": "choice",
    "string_too_short": "too_short",
    "too_short": "too_short",
    "string_too_long": "too_long",
    "too_long": "too_long",
    "date_type": "date",
    "date_parsing": "date",
    "date_from_datetime_parsing": "date",
    "date_from_datetime_inexact": "date",
}
_CALENDAR_PROBLEMS = frozenset({_NOT_ISO, _NOT_A_DAY})
_DATE_REPR = re.compile(r"datetime\.date\(([0-9]+), ([0-9]+), ([0-9]+)\)")

_CHOICE = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|-?[0-9][0-9.]*|True|False|None")
_SIGNS = {
    "greater_than_equal": ">=",
    "greater_than": ">",
    "less_than_equal": "<=",
    "less_than": "<",
}


def _fields_at(model: type[BaseModel], path: tuple[Any, ...]) -> tuple[str, ...]:
    """The field names of the (nested) object at ``path`` inside ``model``'s arguments."""
    from pydantic import BaseModel

    current: Any = model
    for part in path:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return ()
        info = current.model_fields.get(str(part))
        current = _model_in(info.annotation) if info is not None else None
    if isinstance(current, type) and issubclass(current, BaseModel):
        return tuple(current.model_fields)
    return ()


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside ``annotation`` (through lists, optionals, Annotated)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def _detail(err: Any, model: type[BaseModel], lang: Lang) -> Detail:
    """One pydantic error in the harness's own words in ``lang`` (pydantic's English text
    reaches nobody, except an application validator's own message in English)."""
    loc = ".".join(str(part) for part in err.get("loc", ()) if part != "__root__")
    fields = _fields_at(model, tuple(err.get("loc", ()))[:-1])
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    message = str(err.get("msg", ""))
    group = _GROUPS.get(kind, "invalid")
    if kind == "value_error" and message.removeprefix("Value error, ") in _CALENDAR_PROBLEMS:
        group = "date"
    values: dict[str, object] = {}
    if group == "extra":
        values["fields"] = ", ".join(fields) or text(lang, "arg_none")
    elif group == "range":
        limit = ctx.get(next(iter(ctx), ""), "")
        if isinstance(limit, dt.date):  # a date limit is not "a number"
            group, limit = "date_range", limit.isoformat()
        elif day := _DATE_REPR.fullmatch(str(limit)):  # pydantic may give it as its repr
            group, limit = "date_range", dt.date(*map(int, day.groups())).isoformat()
        values = {"sign": _SIGNS[kind], "limit": limit}
    elif group == "choice":
        # pydantic lists the choices joined by an English "or": keep only the values
        listed = str(ctx.get("expected", ""))
        values["choices"] = ", ".join(m[0] for m in _CHOICE.finditer(listed)) or listed
    elif group == "too_short":
        values["n"] = ctx.get("min_length", 1)
    elif group == "too_long":
        values["n"] = ctx.get("max_length", "")
    problem = text(lang, f"arg_{group}", **values)
    if group == "invalid" and lang == "en" and kind == "value_error":
        problem = message.removeprefix("Value error, ") or problem
    expected_key = f"arg_{group}_expected"
    expected = text(lang, expected_key, **values) if has_text(expected_key) else None
    return Detail(field=loc or "$", problem=problem, expected=expected)


class ToolSet:
    """A registry of tools, in declaration order."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._specs: tuple[ToolSpec, ...] | None = None
        for item in tools:
            self.add(item)

    def add(self, item: Tool) -> Tool:
        """Register ``item``; names are unique."""
        if item.name in self._tools:
            msg = f"tool {item.name!r} is declared twice"
            raise ConfigurationError(msg)
        self._tools[item.name] = item
        self._specs = None
        return item

    @overload
    def tool(self, func: Callable[..., Any], /) -> Tool: ...

    @overload
    def tool(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        effect: Effect = "read",
        idempotent: bool = False,
        confirm: bool | Confirm = False,
        destructive: bool | None = None,
        title: str | None = None,
        atomic: bool = False,
        reconcile: Callable[[str, dict[str, Any]], ReconcileResult] | None = None,
        repeatable: bool = False,
        describe: Describe | None = None,
        grounded: Mapping[str, Grounded] | None = None,
        precheck: Precheck | None = None,
    ) -> Callable[[Callable[..., Any]], Tool]: ...

    def tool(  # type: ignore[misc]  # mypy mis-reads the positional-only default here
        self,
        func: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        effect: Effect = "read",
        idempotent: bool = False,
        confirm: bool | Confirm = False,
        destructive: bool | None = None,
        title: str | None = None,
        atomic: bool = False,
        reconcile: Callable[[str, dict[str, Any]], ReconcileResult] | None = None,
        repeatable: bool = False,
        describe: Describe | None = None,
        grounded: Mapping[str, Grounded] | None = None,
        precheck: Precheck | None = None,
    ) -> Tool | Callable[[Callable[..., Any]], Tool]:
        """Decorator: declare ``func`` as a tool of this set (returns the ``Tool``).

        ``grounded`` (writes only) names the arguments the person must have said, and how::

            @tools.tool(effect="write", grounded={"weight_kg": Grounded.number("kg"),
                                                  "date": Grounded.date()})

        Before the handler runs, each given value is looked for in the conversation's user
        messages: a number with that unit or none ("77,4 kg", "setenta y siete"), a date
        the person gave ("2024-03-01", "30 de noviembre", "ayer"). A value they did not say,
        or said in another unit ("220 g" for kg), comes back as ``not_in_message``
        (``choose_alternative``: ask the person; ``details`` names the field) without
        running; a value derived from theirs ("170 lb" as 77.1 kg, "2x150 g" as 300 g) waits
        for their confirmation like ``confirm=True``. A value they typed exactly always
        runs. Only turns of an ``Agent`` are checked (an ``Executor`` given no user texts,
        such as an MCP server's, checks nothing). See ``docs/concepts/grounding.md``.
        """

        def register(f: Callable[..., Any]) -> Tool:
            return self.add(
                Tool.from_function(
                    f,
                    name=name,
                    description=description,
                    effect=effect,
                    idempotent=idempotent,
                    confirm=confirm,
                    destructive=destructive,
                    title=title,
                    atomic=atomic,
                    reconcile=reconcile,
                    repeatable=repeatable,
                    describe=describe,
                    grounded=grounded,
                    precheck=precheck,
                )
            )

        return register(func) if func is not None else register

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if declared."""
        return self._tools.get(name)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> tuple[str, ...]:
        """Declared names, in order."""
        return tuple(self._tools)

    def specs(self) -> tuple[ToolSpec, ...]:
        """Provider-facing declarations of every tool, generated once for the set (each
        agent over it asks again: a server that builds an agent per person shares them)."""
        if self._specs is None:
            self._specs = tuple(t.spec() for t in self._tools.values())
        return self._specs
