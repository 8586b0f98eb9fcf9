"""Outcomes on the wire and on disk: the versioned error envelope a model reads, the record a
journal keeps, and the way back from either to a ``ToolError``."""

from ._outcome import (
    Detail,
    ErrorCode,
    Ok,
    Outcome,
    Recovery,
    ToolError,
    dumps,
    envelope_to_error,
    from_record,
    to_record,
    to_wire,
    to_wire_text,
)
from ._texts import LANGS, Lang

__all__ = [
    "LANGS",
    "Detail",
    "ErrorCode",
    "Lang",
    "Ok",
    "Outcome",
    "Recovery",
    "ToolError",
    "dumps",
    "envelope_to_error",
    "from_record",
    "to_record",
    "to_wire",
    "to_wire_text",
]
