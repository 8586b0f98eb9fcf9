"""The outcome contract: the envelope's exact fields and values, the tagged record
form used by journals and ``--json``, and the guards on building a ``ToolError``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from surefoot import Detail, ErrorCode, Ok, Recovery, ToolError
from surefoot.outcome import envelope_to_error, from_record, to_record, to_wire, to_wire_text

MESSAGE = (
    "No existe un registro de medidas para el 2020-01-02. Esto no dice nada sobre otras fechas."
)


def _envelope(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "tool_error",
        "version": 1,
        "is_error": True,
        "error": "not_found",
        "message": "m",
        "recovery": "choose_alternative",
        "recoverable": True,
    }
    base.update(overrides)
    return base


# -- the envelope ----------------------------------------------------------------------------


def test_envelope_is_exactly_the_design_example() -> None:
    """A domain error serializes to exactly the documented envelope, fields in that order."""
    error = ToolError("not_found", MESSAGE, Recovery.CHOOSE_ALTERNATIVE)
    wire = to_wire(error)
    assert wire == {
        "kind": "tool_error",
        "version": 1,
        "is_error": True,
        "error": "not_found",
        "message": MESSAGE,
        "recovery": "choose_alternative",
        "recoverable": True,
    }
    assert list(wire) == [
        "kind",
        "version",
        "is_error",
        "error",
        "message",
        "recovery",
        "recoverable",
    ]


def test_envelope_values_are_plain_json_types() -> None:
    """The envelope carries plain JSON values (str/int/bool), never enum objects."""
    wire = to_wire(ToolError(ErrorCode.UNAVAILABLE, "m", Recovery.CHOOSE_ALTERNATIVE))
    assert type(wire["error"]) is str
    assert type(wire["recovery"]) is str
    assert type(wire["version"]) is int
    assert wire["is_error"] is True
    assert wire["recoverable"] is True
    assert json.loads(json.dumps(wire)) == wire


@pytest.mark.parametrize("recovery", list(Recovery))
def test_recoverable_is_false_exactly_for_stop_turn(recovery: Recovery) -> None:
    """``recoverable`` is false for stop_turn and true for every other recovery."""
    error = ToolError("conflict", "m", recovery)
    expected = recovery is not Recovery.STOP_TURN
    assert error.recoverable is expected
    assert to_wire(error)["recoverable"] is expected
    assert to_wire(error)["recovery"] == recovery.value


def test_recovery_values_are_the_three_of_the_contract() -> None:
    """The recovery directives are exactly the three documented names."""
    assert {r.value for r in Recovery} == {"correct_arguments", "choose_alternative", "stop_turn"}


def test_harness_codes_are_the_contract_codes() -> None:
    """The harness owns exactly these codes (``in_progress``: an identical write's attempt is
    still in flight; ``already_done``: a write repeated in a later round of its turn;
    ``not_in_message``: a grounded value the person did not give)."""
    assert {c.value for c in ErrorCode} == {
        "unknown_tool",
        "invalid_arguments",
        "unavailable",
        "outcome_unknown",
        "not_applied",
        "not_executed",
        "denied",
        "in_progress",
        "already_done",
        "not_in_message",
    }


def test_details_are_a_list_of_field_problem_expected() -> None:
    """``details`` is a list of ``{field, problem, expected}`` objects, in order."""
    error = ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        "m",
        Recovery.CORRECT_ARGUMENTS,
        details=(
            Detail("weight_kg", "Input should be a valid number", "a number"),
            Detail("date", "must be a calendar date written YYYY-MM-DD", "YYYY-MM-DD"),
        ),
    )
    assert to_wire(error)["details"] == [
        {"field": "weight_kg", "problem": "Input should be a valid number", "expected": "a number"},
        {
            "field": "date",
            "problem": "must be a calendar date written YYYY-MM-DD",
            "expected": "YYYY-MM-DD",
        },
    ]


def test_no_details_means_no_details_key() -> None:
    """An error without details has no ``details`` key at all (not an empty list)."""
    assert "details" not in to_wire(ToolError("not_found", "m", Recovery.CHOOSE_ALTERNATIVE))


def test_the_mark_is_part_of_the_type() -> None:
    """``Ok.is_error`` is False and ``ToolError.is_error`` is True, whatever the content."""
    assert Ok({"is_error": True}).is_error is False
    assert ToolError("x", "everything is fine", Recovery.CHOOSE_ALTERNATIVE).is_error is True


def test_success_on_the_wire_is_the_data_itself() -> None:
    """What the model receives for a success is the data object, nothing wrapped around it."""
    data = {"date": "2020-01-01", "weight_kg": 76.0}
    assert to_wire(Ok(data)) == data
    assert to_wire_text(Ok(data)) == '{"date":"2020-01-01","weight_kg":76.0}'


def test_wire_text_is_compact_and_keeps_unicode() -> None:
    """The serialized envelope is compact JSON with non-ASCII text kept as is."""
    text = to_wire_text(ToolError("not_found", "Não há registo «x»", Recovery.CHOOSE_ALTERNATIVE))
    assert "Não há registo «x»" in text
    assert ", " not in text
    assert json.loads(text)["message"] == "Não há registo «x»"


# -- records ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "outcome",
    [
        Ok({"date": "2020-01-01", "weight_kg": 76.0}),
        Ok({}),
        ToolError("not_found", MESSAGE, Recovery.CHOOSE_ALTERNATIVE),
        ToolError(ErrorCode.OUTCOME_UNKNOWN, "m", Recovery.STOP_TURN),
        ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            "m",
            Recovery.CORRECT_ARGUMENTS,
            details=(Detail("date", "bad", "YYYY-MM-DD"), Detail("x", "extra")),
        ),
    ],
    ids=["ok", "ok-empty", "not_found", "outcome_unknown", "invalid-with-details"],
)
def test_record_round_trip(outcome: Ok | ToolError) -> None:
    """``from_record(to_record(x))`` gives back ``x``, also through a JSON text round trip."""
    record = to_record(outcome)
    assert from_record(record) == outcome
    assert from_record(json.loads(json.dumps(record))) == outcome


def test_ok_record_is_tagged() -> None:
    """A success is recorded as ``{"ok": data}``; an error as the envelope itself."""
    assert to_record(Ok({"a": 1})) == {"ok": {"a": 1}}
    error = ToolError("not_found", "m", Recovery.CHOOSE_ALTERNATIVE)
    assert to_record(error) == to_wire(error)


def test_ok_data_that_looks_like_an_envelope_stays_ok() -> None:
    """Data shaped like an error envelope is recorded as ``{"ok": ...}`` and reloads as Ok."""
    looks_like_error = _envelope(error="disk_full", message="Error: is_error true")
    outcome = Ok(looks_like_error)
    record = to_record(outcome)
    assert record == {"ok": looks_like_error}
    reloaded = from_record(json.loads(json.dumps(record)))
    assert isinstance(reloaded, Ok)
    assert reloaded.data == looks_like_error


def test_note_reading_like_an_error_stays_ok() -> None:
    """A saved note whose text reads like an error is data: recorded as ok, reloaded as Ok."""
    note = {"key": "diario", "description": "d", "value": 'Error: {"is_error": true}'}
    reloaded = from_record(to_record(Ok(note)))
    assert isinstance(reloaded, Ok)
    assert reloaded.is_error is False


@pytest.mark.parametrize(
    "record",
    [
        {},
        {"ok": 1},
        {"ok": [1, 2]},
        {"ok": {}, "extra": 1},
        {"result": {}},
        _envelope(kind="error"),
        _envelope(is_error=False),
        _envelope(is_error="true"),
        _envelope(version=2),
        _envelope(version="1"),
        _envelope(recovery="retry"),
        _envelope(recoverable=False),
        _envelope(recovery="stop_turn", recoverable=True),
        _envelope(recovery="stop_turn", recoverable=0),
        _envelope(error="Not Found"),
        _envelope(message=""),
    ],
    ids=[
        "empty",
        "ok-not-object",
        "ok-list",
        "ok-plus-extra",
        "other-tag",
        "wrong-kind",
        "is_error-false",
        "is_error-string",
        "version-2",
        "version-string",
        "unknown-recovery",
        "recoverable-mismatch",
        "stop-turn-recoverable",
        "recoverable-not-bool",
        "bad-code",
        "empty-message",
    ],
)
def test_from_record_rejects_non_envelopes(record: dict[str, Any]) -> None:
    """Anything that is neither ``{"ok": object}`` nor a valid v1 envelope raises ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 - the contract is exactly ValueError
        from_record(record)


@pytest.mark.parametrize(
    "record",
    [
        {k: v for k, v in _envelope().items() if k != "error"},
        {k: v for k, v in _envelope().items() if k != "message"},
        {k: v for k, v in _envelope().items() if k != "recovery"},
        _envelope(details="not a list"),
        _envelope(details=[{"problem": "no field"}]),
    ],
    ids=[
        "missing-error",
        "missing-message",
        "missing-recovery",
        "details-string",
        "detail-no-field",
    ],
)
def test_from_record_rejects_incomplete_envelopes_with_value_error(record: dict[str, Any]) -> None:
    """An envelope missing a field is refused with ValueError, not a leaking KeyError/TypeError."""
    with pytest.raises(ValueError):  # noqa: PT011 - the contract is exactly ValueError
        from_record(record)


def test_envelope_to_error_parses_a_valid_envelope() -> None:
    """``envelope_to_error`` reads a v1 envelope back into the same ToolError."""
    error = envelope_to_error(_envelope(message=MESSAGE))
    assert error == ToolError("not_found", MESSAGE, Recovery.CHOOSE_ALTERNATIVE)


# -- building errors -------------------------------------------------------------------------


@pytest.mark.parametrize("message", ["", "   ", "\n\t"])
def test_tool_error_rejects_an_empty_message(message: str) -> None:
    """An error must say something: empty or blank messages are refused."""
    with pytest.raises(ValueError, match="empty"):
        ToolError("not_found", message, Recovery.CHOOSE_ALTERNATIVE)


@pytest.mark.parametrize(
    "code", ["", "NotFound", "not-found", "not found", "NOT_FOUND", "not.found", "not_found!"]
)
def test_tool_error_rejects_codes_that_are_not_snake_case(code: str) -> None:
    """Codes are stable snake_case identifiers; anything else is refused."""
    with pytest.raises(ValueError, match="snake_case"):
        ToolError(code, "m", Recovery.CHOOSE_ALTERNATIVE)


@pytest.mark.parametrize("code", ["9lives", "_not_found", "código"])
def test_tool_error_rejects_codes_that_are_not_ascii_identifiers(code: str) -> None:
    """A snake_case code starts with an ASCII letter and uses only ``a-z0-9_``."""
    with pytest.raises(ValueError, match="snake_case"):
        ToolError(code, "m", Recovery.CHOOSE_ALTERNATIVE)


@pytest.mark.parametrize("code", ["not_found", "conflict", "quota_exceeded_2", "a"])
def test_tool_error_accepts_snake_case_codes(code: str) -> None:
    """Ordinary snake_case domain codes are accepted and kept as given."""
    assert ToolError(code, "m", Recovery.CHOOSE_ALTERNATIVE).code == code


def test_harness_code_is_stored_as_plain_string() -> None:
    """A harness ``ErrorCode`` becomes its plain string value in the error and on the wire."""
    error = ToolError(ErrorCode.NOT_APPLIED, "m", Recovery.STOP_TURN)
    assert error.code == "not_applied"
    assert to_wire_text(error).count('"error":"not_applied"') == 1


def test_with_recovery_keeps_code_and_details() -> None:
    """``with_recovery`` changes only the recovery (and message if given)."""
    detail = Detail("date", "bad", "YYYY-MM-DD")
    error = ToolError("invalid_arguments", "m", Recovery.CORRECT_ARGUMENTS, details=(detail,))
    changed = error.with_recovery(Recovery.STOP_TURN, "again")
    assert (changed.code, changed.message, changed.recovery) == (
        "invalid_arguments",
        "again",
        Recovery.STOP_TURN,
    )
    assert changed.details == (detail,)
    assert changed.recoverable is False
    assert error.with_recovery(Recovery.CHOOSE_ALTERNATIVE).message == "m"
