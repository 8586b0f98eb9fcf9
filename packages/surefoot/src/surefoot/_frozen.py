"""Frozen records that are quicker to build.

A ``@dataclass(frozen=True, slots=True)`` sets each field in ``__init__`` through
``object.__setattr__``, since its own ``__setattr__`` refuses: about three times the cost of a
plain assignment, paid for every field of every record a turn builds (its lease, its calls
and their results, the turn's result). ``quick_init`` gives such a class an ``__init__`` that
sets each field through its slot's own descriptor instead: the same parameters, defaults and
``__post_init__``, at about half that cost. The record stays as frozen as before: assigning to
a field afterwards still raises ``FrozenInstanceError``.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, TypeVar

T = TypeVar("T")

_FACTORY = object()
"""The default of a parameter whose field has a ``default_factory``."""


def quick_init(cls: type[T]) -> type[T]:
    """``cls``, a frozen dataclass with slots, with its quicker ``__init__`` (see above)."""
    frozen = is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    if not (frozen and "__slots__" in cls.__dict__):
        msg = f"{cls.__qualname__} is not a frozen dataclass with slots"
        raise TypeError(msg)
    namespace: dict[str, Any] = {"_FACTORY": _FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for f in fields(cls):  # type: ignore[arg-type]
        name = f.name
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__  # the slot's descriptor
        has_default = f.default is not MISSING
        has_factory = f.default_factory is not MISSING
        if has_default:
            namespace[f"_default_{name}"] = f.default
        if has_factory:
            namespace[f"_factory_{name}"] = f.default_factory
        if not f.init:
            if has_default:
                body.append(f"    _set_{name}(self, _default_{name})")
            elif has_factory:
                body.append(f"    _set_{name}(self, _factory_{name}())")
            continue
        param = name
        value = name
        if has_default:
            param = f"{name}=_default_{name}"
        elif has_factory:
            param = f"{name}=_FACTORY"
            value = f"_factory_{name}() if {name} is _FACTORY else {name}"
        (keyword if f.kw_only else positional).append(param)
        body.append(f"    _set_{name}(self, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({signature}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - built from the class's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
