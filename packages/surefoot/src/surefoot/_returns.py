"""What a tool may return: the check of its return annotation when it is declared, and the
conversion of what its handler returned into an outcome when it runs.

A handler returns its data, a ``ToolError`` for an expected domain condition, or an ``Ok``.
Its data may be:

* any JSON value: a ``dict`` with string keys, a ``list`` or ``tuple``, a ``str``, an ``int``,
  a ``float``, a ``bool`` or ``None``, nested as deep as ``MAX_DEPTH`` (any other
  ``Mapping`` becomes a dict, any other ``Sequence`` but text a list);
* a pydantic model or a dataclass, anywhere in that data: it is serialized in pydantic's JSON
  mode (a date becomes its ISO text, a set a list, an enum its value).

``Ok.data`` is always a JSON object (every provider's wire format sends a success as one), so
data that is not an object is wrapped: a tool returning ``["a", "b"]`` yields
``Ok({"result": ["a", "b"]})``.

Declaring the tool checks its return annotation (``get_type_hints``: annotations written as
strings are resolved), so that nothing declared valid fails at run time for its type alone.
Accepted: none, ``Any``, ``object``, ``None``, ``bool``, ``int``, ``float``, ``str`` (and their
subclasses, such as a ``StrEnum``), ``Literal`` of those, ``dict`` / ``Mapping`` with string
keys, ``list`` / ``Sequence`` / ``tuple``, ``TypedDict``, unions, ``Optional``, ``Annotated``,
``NewType`` of accepted types, pydantic models and dataclasses (pydantic must be able to write
their JSON form), ``Ok`` and ``ToolError`` (as the whole result), and ``Awaitable`` /
``Coroutine`` of an accepted type. Anything else is refused with a ``ConfigurationError``:
``bytes``, ``set``, ``datetime`` and ``date`` outside a model or dataclass (sent as they are,
they are not JSON), other classes, ``Callable``, iterators, ``NamedTuple``.

What the handler returns is still checked at run time (``checked_data``): a value that is not
JSON (a ``datetime`` or a ``set`` in a dict, bytes, NaN, a cycle), an ``Ok`` or ``ToolError``
inside the data, or an ``Ok`` whose data is not an object is the handler's failure.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import sys
import types
import typing
from collections import abc
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, TypeGuard, Union

from ._exceptions import ConfigurationError
from ._outcome import MAX_DEPTH, ErrorCode, Ok, Outcome, ToolError, checked_data

if TYPE_CHECKING:
    from collections.abc import Callable

    from pydantic import BaseModel, TypeAdapter

RESULT_KEY: Final = "result"
"""The key under which data that is not a JSON object is wrapped in ``Ok.data``."""

_SCALARS: Final = (str, int, float)  # bool is an int
_AWAITABLES: Final = (abc.Awaitable, abc.Coroutine)
_ANYTHING: Final = (Any, object, typing.NoReturn, typing.Never)
_UNIONS: Final = frozenset({Union, types.UnionType})
_TEXT: Final = (str, bytes, bytearray, memoryview)
_LEAVES: Final = frozenset({str, int, float, bool, type(None)})
"""The types of values ``_plain`` leaves as they are without looking further."""
_SERIALIZED_ONLY: Final = frozenset({"datetime", "uuid", "decimal"})
"""The modules of classes pydantic serializes in a model or dataclass, but that are no JSON
values as they are."""
_HINT: Final = (
    "a tool returns JSON values (dict, list, str, int, float, bool, None), dataclasses, "
    "pydantic models, Ok or ToolError"
)


# -- at declaration ------------------------------------------------------------------------


def check_return_annotation(func: Callable[..., Any], tool_name: str) -> None:
    """Raise ``ConfigurationError`` naming the tool and its annotation if ``func`` declares a
    return type the harness cannot send to the model as JSON data."""
    declared = typing.get_type_hints(func, include_extras=True).get("return", Any)
    problem = _refusal(_awaited(declared), whole=True, seen=frozenset())
    if problem is not None:
        msg = (
            f"{tool_name}: the return annotation {_shown(declared)} cannot be sent to the "
            f"model as JSON: {problem} ({_HINT})"
        )
        raise ConfigurationError(msg)


def _awaited(declared: Any) -> Any:
    """The type an ``Awaitable[X]`` or ``Coroutine[..., X]`` annotation promises: ``X``."""
    if _among(typing.get_origin(declared), _AWAITABLES):
        args = typing.get_args(declared)
        return args[-1] if args else Any
    return declared


def _refusal(tp: Any, *, whole: bool, seen: frozenset[Any]) -> str | None:
    """Why ``tp`` cannot be what a handler returns (None: it can). ``whole``: ``tp`` is the
    whole result (where an ``Ok`` or ``ToolError`` may stand), not a part of the data."""
    if _among(tp, _ANYTHING) or tp is None or tp is type(None):
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        return _refusal(args[0], whole=whole, seen=seen)
    if origin in _UNIONS:
        return _first(_refusal(arg, whole=whole, seen=seen) for arg in args)
    if origin is Literal:
        return _first(_literal_refusal(arg) for arg in args)
    if hasattr(tp, "__supertype__"):  # a NewType
        return _refusal(tp.__supertype__, whole=whole, seen=seen)
    if type(tp).__name__ == "TypeAliasType":  # `type X = ...` (Python 3.12)
        return _refusal(tp.__value__, whole=whole, seen=seen)
    cls = origin if isinstance(origin, type) else tp  # list[int] is a list, Box[int] a Box
    if not isinstance(cls, type):
        return f"{_shown(tp)} is not a JSON value"
    if cls is Ok or cls is ToolError:
        return None if whole else f"{cls.__name__} cannot be nested in the data"
    return _class_refusal(cls, args, _shown(tp), seen)


def _class_refusal(
    cls: type, args: tuple[Any, ...], shown: str, seen: frozenset[Any]
) -> str | None:
    """Why a value of class ``cls`` (with type arguments ``args``) is not data."""
    if issubclass(cls, _SCALARS):  # with bool, and enums of str or int
        return None
    if _is_typed_dict(cls):
        if cls in seen:  # a recursive TypedDict: its fields are being checked already
            return None
        hints = typing.get_type_hints(cls)
        return _first(_refusal(hint, whole=False, seen=seen | {cls}) for hint in hints.values())
    if _serialized(cls):
        return _pydantic_refusal(cls)
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return f"{shown} is a NamedTuple (it would reach the model as a bare list)"
    if issubclass(cls, abc.Mapping):
        return _mapping_refusal(args, seen)
    if issubclass(cls, abc.Sequence) and not issubclass(cls, _TEXT):
        items = (arg for arg in args if arg is not Ellipsis)
        return _first(_refusal(arg, whole=False, seen=seen) for arg in items)
    if issubclass(cls, set | frozenset | enum.Enum) or cls.__module__ in _SERIALIZED_ONLY:
        return (
            f"{shown} is not a JSON value (in a dataclass or pydantic model it is "
            "serialized: a date as its ISO text, a set as a list)"
        )
    return f"{shown} is not a JSON value"


def _mapping_refusal(args: tuple[Any, ...], seen: frozenset[Any]) -> str | None:
    key = args[0] if args else Any
    value = args[1] if len(args) > 1 else Any
    if _refusal(key, whole=False, seen=seen) is not None or not _text_keys(key):
        return f"a JSON object's keys are strings, not {_shown(key)}"
    return _refusal(value, whole=False, seen=seen)


def _text_keys(key: Any) -> bool:
    """Whether keys of type ``key`` are always strings (or left to the run-time check)."""
    if _among(key, _ANYTHING):
        return True
    origin, args = typing.get_origin(key), typing.get_args(key)
    if origin is Annotated:
        return _text_keys(args[0])
    if origin in _UNIONS:
        return all(_text_keys(arg) for arg in args)
    if origin is Literal:
        return all(isinstance(arg, str) for arg in args)
    if hasattr(key, "__supertype__"):
        return _text_keys(key.__supertype__)
    return isinstance(key, type) and issubclass(key, str)


def _literal_refusal(value: object) -> str | None:
    if value is None or isinstance(value, str | int):  # bool is an int
        return None
    return f"the literal {value!r} is not a JSON value"


def _among(tp: Any, group: tuple[Any, ...]) -> bool:
    """``tp`` is one of ``group`` (by identity: an annotation need not be hashable)."""
    return any(tp is member for member in group)


def _first(problems: abc.Iterable[str | None]) -> str | None:
    return next((p for p in problems if p is not None), None)


def _is_typed_dict(cls: type) -> bool:
    return issubclass(cls, dict) and hasattr(cls, "__required_keys__")


def _serialized(cls: type) -> bool:
    """Whether pydantic serializes values of ``cls``: a pydantic model or a dataclass (never
    an ``Ok`` or ``ToolError``, which are outcomes, not data)."""
    if cls is Ok or cls is ToolError:
        return False
    if dataclasses.is_dataclass(cls):
        return True
    main = sys.modules.get("pydantic.main")
    return main is not None and issubclass(cls, main.BaseModel)


def _pydantic_refusal(cls: Any) -> str | None:  # Any: see _adapter
    """Why pydantic cannot write ``cls`` as JSON (None: it can). Its JSON Schema in
    serialization mode exists exactly when every field has a JSON form (a ``Callable`` or an
    arbitrary class has none)."""
    try:
        _adapter(cls).json_schema(mode="serialization")
    except Exception as exc:  # noqa: BLE001 - pydantic's many errors all mean "it cannot"
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return f"pydantic cannot write {_shown(cls)} as JSON ({type(exc).__name__}: {first_line})"
    return None


@functools.lru_cache(maxsize=256)
def _adapter(cls: Any) -> TypeAdapter[Any]:  # Any: mypy does not see a class as hashable
    """pydantic's adapter for ``cls`` (built once: building it is the slow part)."""
    from pydantic import TypeAdapter

    return TypeAdapter(cls)


def _shown(tp: Any) -> str:
    """``tp`` as it is written in code (``dict[str, bytes]``, ``date | None``, ``Reading``)."""
    if tp is None or tp is type(None):
        return "None"
    if tp is Ellipsis:
        return "..."
    if isinstance(tp, list):  # the parameters of a Callable
        return f"[{', '.join(_shown(arg) for arg in tp)}]"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if isinstance(tp, type) and not args:
        return tp.__qualname__
    if origin is Literal:
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin in _UNIONS:
        return " | ".join(_shown(arg) for arg in args)
    if origin is Annotated:
        extras = ", ".join(repr(extra) for extra in tp.__metadata__)
        return f"Annotated[{_shown(args[0])}, {extras}]"
    if origin is not None and args:
        return f"{_shown(origin)}[{', '.join(_shown(arg) for arg in args)}]"
    name = getattr(tp, "__name__", None)  # a NewType, a bare typing alias
    return name if isinstance(name, str) else repr(tp).replace("typing.", "")


# -- at run time ---------------------------------------------------------------------------


def outcome_of(value: object) -> Outcome:
    """What a handler returned, as an outcome: a ``ToolError`` or an ``Ok`` as they are, any
    other value as the data of an ``Ok``. Raises (``TypeError`` or ``ValueError``, saying
    what is wrong) if it is not an outcome of plain JSON data: the handler's failure."""
    if isinstance(value, ToolError):
        if value.code == ErrorCode.NOT_EXECUTED:  # the harness's mark for a call never run
            msg = "a tool cannot return not_executed: it ran (return not_applied if it did nothing)"
            raise TypeError(msg)
        return value  # its fields were checked when it was built
    if isinstance(value, Ok):
        checked_data(value.data)
        return value
    if type(value) is dict:
        # the common case, plain JSON data as it is, costs one walk; only data that is not
        # (a model, a dataclass inside, or data that is not JSON at all) is converted, then
        # checked again, which says what is wrong with it
        try:
            return Ok(checked_data(value))
        except ValueError:
            pass
    data = _plain(value, 0)
    return Ok(checked_data(data if isinstance(data, dict) else {RESULT_KEY: data}))


def _plain(node: object, depth: int) -> object:
    """``node`` with every model and dataclass in it serialized, tuples as lists and other
    mappings and sequences as dicts and lists: ``node`` itself when nothing needed changing.
    What is left that is not JSON is for ``checked_data`` to refuse by name."""
    if depth > MAX_DEPTH:
        msg = f"the data nests deeper than {MAX_DEPTH} levels (or refers to itself)"
        raise ValueError(msg)
    if isinstance(node, dict):
        changed: dict[Any, object] = {}
        for key, item in node.items():
            if type(item) not in _LEAVES:
                plain = _plain(item, depth + 1)
                if plain is not item:
                    changed[key] = plain
        return {**node, **changed} if changed else node
    if isinstance(node, list):
        items = [item if type(item) in _LEAVES else _plain(item, depth + 1) for item in node]
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if isinstance(node, Ok | ToolError):
        msg = f"the data holds a nested {type(node).__name__}: an outcome is never part of data"
        raise TypeError(msg)
    if _is_pydantic_model(node):
        return node.model_dump(mode="json")
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return _adapter(type(node)).dump_python(node, mode="json")
    if isinstance(node, abc.Mapping):
        return _plain(dict(node), depth)
    if isinstance(node, tuple) or (isinstance(node, abc.Sequence) and not isinstance(node, _TEXT)):
        return [item if type(item) in _LEAVES else _plain(item, depth + 1) for item in node]
    return node


def _is_pydantic_model(value: object) -> TypeGuard[BaseModel]:
    """``value`` is a pydantic model instance (if pydantic is not loaded, none can exist)."""
    main = sys.modules.get("pydantic.main")
    return main is not None and isinstance(value, main.BaseModel)


# -- the result's schema -------------------------------------------------------------------

_ANY_OBJECT: Final[dict[str, Any]] = {"type": "object"}


def result_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the ``Ok.data`` a handler's results become, from its
    return annotation: a model, a dataclass, a ``TypedDict`` or a ``dict`` as pydantic
    describes it in serialization mode; data that is not an object as ``{"result": ...}``
    (how ``outcome_of`` wraps it); a union as ``anyOf`` of those. ``ToolError`` is left out
    (it is no data); no annotation, ``Any``, ``object`` or an ``Ok`` only say "an object".
    Shared definitions are in ``$defs`` at the top."""
    try:
        declared = typing.get_type_hints(func, include_extras=True).get("return", Any)
    except Exception:  # noqa: BLE001 - a handler whose hints do not resolve says nothing more
        return dict(_ANY_OBJECT)
    members = _members(_awaited(declared))
    if members is None:
        return dict(_ANY_OBJECT)
    branches: list[dict[str, Any]] = []
    definitions: dict[str, Any] = {}
    for member in members:
        try:
            schema = _adapter(member).json_schema(mode="serialization")
        except Exception:  # noqa: BLE001 - refused at declaration already; say "an object"
            return dict(_ANY_OBJECT)
        for name, body in schema.pop("$defs", {}).items():
            if definitions.setdefault(name, body) != body:  # two types of one name
                return dict(_ANY_OBJECT)
        if not schema:  # Any, somewhere inside: any JSON value
            return dict(_ANY_OBJECT)
        if schema.get("type") != "object":
            schema = {
                "type": "object",
                "properties": {RESULT_KEY: schema},
                "required": [RESULT_KEY],
                "additionalProperties": False,
            }
        if schema not in branches:
            branches.append(schema)
    if not branches:  # only ToolError: never data
        return dict(_ANY_OBJECT)
    result = branches[0] if len(branches) == 1 else {"type": "object", "anyOf": branches}
    return {**result, "$defs": definitions} if definitions else result


def _members(tp: Any) -> list[Any] | None:
    """The types a result of annotation ``tp`` may be, unions flattened and ``ToolError``
    left out; None when one of them is anything (``Any``, ``object``, an ``Ok``)."""
    if _among(tp, _ANYTHING):
        return None
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        return _members(args[0])
    if type(tp).__name__ == "TypeAliasType":
        return _members(tp.__value__)
    if origin in _UNIONS:
        found: list[Any] = []
        for arg in args:
            inner = _members(arg)
            if inner is None:
                return None
            found.extend(inner)
        return found
    if tp is ToolError:
        return []
    if tp is Ok:
        return None
    return [type(None) if tp is None else tp]
