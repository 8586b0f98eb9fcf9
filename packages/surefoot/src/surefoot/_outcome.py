"""The outcome contract: what one tool execution yields.

An outcome is a value, never a string to parse::

    Outcome = Ok | ToolError

``Ok`` carries the tool's data (a JSON object). ``ToolError`` carries a stable code, a safe
localized message, a recovery directive and optional structured details. The error mark is set
by the program when the outcome is built and travels with it; nothing downstream re-derives it
from text.

On the wire an error is the versioned envelope::

    {"kind": "tool_error", "version": 1, "is_error": true, "error": "not_found",
     "message": "...", "recovery": "choose_alternative", "recoverable": true}

with ``details`` (a list of ``{"field", "problem", "expected"?}``) when the arguments were
wrong, and ``result`` when the error carries data (``already_done``: what the first call
returned).

A success is the data object itself. ``to_record`` / ``from_record`` give the tagged form used
in journals and in ``--json`` output (``{"ok": data}`` or the envelope), which keeps the mark
explicit even for data that looks like an envelope.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Literal

from ._frozen import quick_init

ENVELOPE_KIND: Final = "tool_error"
_CODE: Final = re.compile(r"[a-z][a-z0-9_]*")
ENVELOPE_VERSION: Final = 1


class Recovery(StrEnum):
    """What the caller should do after an error."""

    CORRECT_ARGUMENTS = "correct_arguments"
    """Fix the call (``details`` says what) and try again."""
    CHOOSE_ALTERNATIVE = "choose_alternative"
    """This call will not work; another query or tool may."""
    STOP_TURN = "stop_turn"
    """The harness ends the turn; the model is not called again in it."""


class ErrorCode(StrEnum):
    """The codes the harness owns. Tools add their own snake_case domain codes, and may
    return ``invalid_arguments``, ``unavailable``, ``not_applied`` or ``outcome_unknown`` when
    that is the truth; ``not_executed`` (the mark of a call the harness never ran) returned by
    a handler is treated as the handler's failure."""

    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGUMENTS = "invalid_arguments"
    UNAVAILABLE = "unavailable"
    OUTCOME_UNKNOWN = "outcome_unknown"
    NOT_APPLIED = "not_applied"
    NOT_EXECUTED = "not_executed"
    DENIED = "denied"
    IN_PROGRESS = "in_progress"
    ALREADY_DONE = "already_done"
    """A write that already succeeded in this turn, asked for again with the same arguments
    in a later round: not run again; ``result`` carries what the first one returned."""
    NOT_IN_MESSAGE = "not_in_message"
    """A grounded argument the person did not say (or said in another unit): not run; the
    model is to ask the person. ``details`` names each such field."""


HARNESS_CODES: Final = frozenset(code.value for code in ErrorCode)


@dataclass(frozen=True, slots=True)
class Detail:
    """One structured problem with the arguments of a call."""

    field: str
    problem: str
    expected: str | None = None

    def to_json(self) -> dict[str, str]:
        """The wire form: ``{"field", "problem", "expected"?}``."""
        out = {"field": self.field, "problem": self.problem}
        if self.expected is not None:
            out["expected"] = self.expected
        return out


@quick_init
@dataclass(frozen=True, slots=True)
class Ok:
    """A successful execution: the tool's data, always a JSON object.

    A handler may return any JSON value, a pydantic model or a dataclass; data that is not a
    JSON object (a list, a string, a number, a boolean, null) is wrapped as
    ``{"result": value}``, since every provider sends a success as an object."""

    data: dict[str, Any]
    kind: Literal["ok"] = "ok"

    @property
    def is_error(self) -> Literal[False]:
        """Always False: the mark is part of the type."""
        return False


@quick_init
@dataclass(frozen=True, slots=True)
class ToolError:
    """A failed execution: a stable code, a safe message and what to do next."""

    code: str
    message: str
    recovery: Recovery
    details: tuple[Detail, ...] = field(default=())
    result: dict[str, Any] | None = None
    """Data that goes with the error (``already_done`` carries the first call's result)."""
    kind: Literal["tool_error"] = "tool_error"

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", str(self.code))
        if not _CODE.fullmatch(self.code):
            msg = f"error code must be snake_case, got {self.code!r}"
            raise ValueError(msg)
        if not isinstance(self.message, str) or not self.message.strip():
            msg = "an error message must be a non-empty string"
            raise ValueError(msg)
        _check_text(self.message)
        object.__setattr__(self, "recovery", Recovery(self.recovery))
        object.__setattr__(self, "details", tuple(self.details))
        if not all(_well_formed(d) for d in self.details):
            msg = "details must be Detail values of strings"
            raise ValueError(msg)
        if self.result is not None:
            checked_data(self.result)

    @property
    def is_error(self) -> Literal[True]:
        """Always True: the mark is part of the type."""
        return True

    @property
    def recoverable(self) -> bool:
        """False exactly when the recovery is ``stop_turn``."""
        return self.recovery is not Recovery.STOP_TURN

    def with_recovery(self, recovery: Recovery, message: str | None = None) -> ToolError:
        """The same error with another recovery (and optionally another message)."""
        return ToolError(
            code=self.code,
            message=self.message if message is None else message,
            recovery=recovery,
            details=self.details,
            result=self.result,
        )


Outcome = Ok | ToolError


def _well_formed(detail: object) -> bool:
    return (
        isinstance(detail, Detail)
        and isinstance(detail.field, str)
        and isinstance(detail.problem, str)
        and isinstance(detail.expected, str | None)
    )


def to_wire(outcome: Outcome) -> dict[str, Any]:
    """What the model receives: the data object, or the error envelope."""
    if isinstance(outcome, Ok):
        return outcome.data
    envelope: dict[str, Any] = {
        "kind": ENVELOPE_KIND,
        "version": ENVELOPE_VERSION,
        "is_error": True,
        "error": outcome.code,
        "message": outcome.message,
        "recovery": outcome.recovery.value,
        "recoverable": outcome.recoverable,
    }
    if outcome.details:
        envelope["details"] = [d.to_json() for d in outcome.details]
    if outcome.result is not None:
        envelope["result"] = outcome.result
    return envelope


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    """The one JSON serialization used for everything a model sees (compact, UTF-8 kept)."""
    return _ENCODER.encode(value)


def to_wire_text(outcome: Outcome) -> str:
    """``to_wire`` serialized: the content sent to providers that take a string."""
    return dumps(to_wire(outcome))


MAX_DEPTH: Final = 64
"""How deeply a result's data may nest."""
MAX_CHARS: Final = 1_000_000
"""How long a result's data may be, serialized."""


def checked_data(value: object) -> dict[str, Any]:
    """``value`` if it is data every reader can load back unchanged: a JSON object of strings
    (valid Unicode), finite numbers, booleans, null, lists and objects with string keys, at
    most ``MAX_DEPTH`` deep and ``MAX_CHARS`` long once serialized. Raises ``ValueError``
    saying what is wrong otherwise (a set, bytes, a datetime, NaN, a cycle, ...)."""
    if not isinstance(value, dict):
        msg = f"the data must be a JSON object, not {type(value).__name__}"
        raise ValueError(msg)
    # the walk bounds the serialized length from above; only data that may be too long is
    # serialized to measure it
    if _check_value(value, 0) > MAX_CHARS and len(dumps(value)) > MAX_CHARS:
        msg = f"the data is longer than {MAX_CHARS} characters serialized"
        raise ValueError(msg)
    return value


_ATOM: Final = 32
"""At least the serialized length of null, a boolean, a float (its repr: 24 at most) or an
int below ``_BIG`` in size."""
_BIG: Final = 10**30


def _check_value(node: object, depth: int) -> float:
    """Check ``node``; return an upper bound on its serialized length (inf: not known).
    A string serializes to at most 6 characters per character (``\\u001f``) plus quotes."""
    if depth > MAX_DEPTH:
        msg = f"the data nests deeper than {MAX_DEPTH} levels (or refers to itself)"
        raise ValueError(msg)
    if isinstance(node, dict):
        total = 2.0
        for key, item in node.items():
            if type(key) is not str or not key.isascii():
                _check_key(key)
            # the commonest values are checked here (``_leaf`` checks the same, a call later)
            kind = type(item)
            if kind is str and item.isascii():
                total += 6 * (len(key) + len(item)) + 6
            elif (
                (kind is float and -math.inf < item < math.inf)
                or (kind is int and -_BIG < item < _BIG)
                or item is None
                or kind is bool
            ):
                total += 6 * len(key) + 4 + _ATOM
            else:
                total += 6 * len(key) + 4 + (_leaf(item) or _check_value(item, depth + 1))
        return total
    if isinstance(node, list | tuple):
        total = 2.0
        for item in node:
            total += (_leaf(item) or _check_value(item, depth + 1)) + 1
        return total
    return _leaf(node) or _check_scalar(node)


def _check_key(key: object) -> None:
    if not isinstance(key, str):
        msg = f"the data has a key that is not a string ({type(key).__name__})"
        raise ValueError(msg)
    if not key.isascii():
        _check_text(key)


def _check_scalar(node: object) -> float:
    """The slow path of a scalar: subclasses, huge ints, non-finite floats, non-JSON values."""
    if node is None or isinstance(node, bool | int):
        return math.inf  # a subclass, or an int too large to bound cheaply
    if isinstance(node, str):
        _check_text(node)
        return math.inf
    if isinstance(node, float):
        if not math.isfinite(node):
            msg = "the data holds a number that is not finite (NaN or Infinity)"
            raise ValueError(msg)
        return math.inf
    msg = f"the data holds a {type(node).__name__}, which is not a JSON value"
    raise ValueError(msg)


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode()
        except UnicodeEncodeError:
            msg = "the data holds text that is not valid Unicode (a lone surrogate)"
            raise ValueError(msg) from None


def _leaf(node: object) -> float:
    """A plain scalar's serialized length bound, after checking it; 0 for anything else
    (containers, subclasses, non-finite floats, huge ints: the full check decides)."""
    kind = type(node)
    if kind is str:
        assert isinstance(node, str)
        if not node.isascii():
            _check_text(node)
        return 6 * len(node) + 2
    if node is None or kind is bool:
        return _ATOM
    if kind is int:
        assert isinstance(node, int)
        return _ATOM if -_BIG < node < _BIG else 0
    if kind is float:
        assert isinstance(node, float)
        return _ATOM if math.isfinite(node) else 0
    return 0


def to_record(outcome: Outcome) -> dict[str, Any]:
    """The tagged form kept in journals and printed by ``--json``: ``{"ok": data}`` or envelope."""
    if isinstance(outcome, Ok):
        return {"ok": outcome.data}
    return to_wire(outcome)


def from_record(record: dict[str, Any]) -> Outcome:
    """Inverse of ``to_record``. Raises ``ValueError`` on anything else."""
    if set(record) == {"ok"} and isinstance(record["ok"], dict):
        return Ok(record["ok"])
    return envelope_to_error(record)


def envelope_to_error(envelope: dict[str, Any]) -> ToolError:
    """Parse a version-1 error envelope. Raises ``ValueError`` if it is not a valid one."""
    if envelope.get("kind") != ENVELOPE_KIND or envelope.get("is_error") is not True:
        msg = "not a tool_error envelope"
        raise ValueError(msg)
    if envelope.get("version") != ENVELOPE_VERSION:
        msg = f"unsupported envelope version {envelope.get('version')!r}"
        raise ValueError(msg)
    try:
        recovery = Recovery(envelope["recovery"])
        code, message = envelope["error"], envelope["message"]
        raw_details = envelope.get("details", ())
        if not isinstance(code, str) or not isinstance(message, str):
            raise TypeError
        details = tuple(_detail_from(d) for d in raw_details)
        result = envelope.get("result")
        if result is not None and not isinstance(result, dict):
            raise TypeError
    except (KeyError, TypeError, AttributeError) as exc:
        msg = "an envelope needs error, message and recovery, and well-formed details"
        raise ValueError(msg) from exc
    if envelope.get("recoverable") is not (recovery is not Recovery.STOP_TURN):
        msg = "recoverable must be false exactly when recovery is stop_turn"
        raise ValueError(msg)
    return ToolError(code=code, message=message, recovery=recovery, details=details, result=result)


def _detail_from(data: Any) -> Detail:
    if not isinstance(data, dict):
        raise TypeError
    expected = data.get("expected")
    if expected is not None and not isinstance(expected, str):
        raise TypeError
    return Detail(field=str(data["field"]), problem=str(data["problem"]), expected=expected)
