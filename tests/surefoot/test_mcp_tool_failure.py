"""The ToolFailure proposal's ``_meta`` key (a proposal for MCP, not the specification): a
surefoot server carries its contract there beside the envelope, and surefoot's client reads a
read's failure from it when a server sends nothing else."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from surefoot import ErrorCode, Ok, Recovery, ToolContext, ToolError
from surefoot.mcp._client import RemoteOutcomeUnknownError, _outcome
from surefoot.mcp._server import TOOL_FAILURE, call_result, error_content


@pytest.mark.parametrize(
    ("code", "recovery", "kind", "retryable"),
    [
        ("not_found", Recovery.CHOOSE_ALTERNATIVE, "capability", False),
        (ErrorCode.INVALID_ARGUMENTS, Recovery.CORRECT_ARGUMENTS, "capability", False),
        (ErrorCode.UNAVAILABLE, Recovery.CHOOSE_ALTERNATIVE, "reliability", True),
        (ErrorCode.IN_PROGRESS, Recovery.STOP_TURN, "reliability", True),
        (ErrorCode.OUTCOME_UNKNOWN, Recovery.STOP_TURN, "reliability", False),
        ("quota_exceeded", Recovery.STOP_TURN, "reliability", False),
        (ErrorCode.DENIED, Recovery.CHOOSE_ALTERNATIVE, "governance", False),
    ],
)
def test_an_error_carries_the_proposal_s_keys_beside_the_envelope(
    code: str, recovery: Recovery, kind: str, retryable: bool
) -> None:
    """Class, code, retryable, correlation id and guidance under ``_meta``; the envelope in
    ``structuredContent`` is unchanged; a write whose outcome is unknown is never retryable."""
    error = ToolError(code, "What happened, safely worded.", recovery)
    result = call_result(error, "mcp_call_1")
    assert result.structured_content == error_content(error)
    wire = result.model_dump(by_alias=True, exclude_none=True)
    assert wire["_meta"][TOOL_FAILURE] == {
        "class": kind,
        "code": code,
        "retryable": retryable,
        "correlationId": "mcp_call_1",
        "agentGuidance": "What happened, safely worded.",
    }


def test_a_success_carries_no_failure() -> None:
    """Only errors have the key."""
    assert call_result(ToolError("x", "m", Recovery.STOP_TURN)).meta is not None
    assert call_result(Ok({"a": 1})).meta is None


def _only_meta(failure: Any) -> types.CallToolResult:
    """An error result as a server that follows only the proposal sends it."""
    return types.CallToolResult(
        content=[types.TextContent(text="failed")], is_error=True, _meta={TOOL_FAILURE: failure}
    )


def _ctx() -> ToolContext:
    return ToolContext("call_1", "lookup", "c1", "en")


def test_a_read_s_failure_is_read_from_the_proposal_s_keys() -> None:
    """Without surefoot's envelope, a read's code and guidance come from the proposal's key
    (invalid arguments are to be corrected; anything else has an alternative)."""
    failure = {"class": "capability", "code": "not_found", "agentGuidance": "No such entry."}
    outcome = _outcome(_only_meta(failure), _ctx(), write=False)
    assert outcome == ToolError("not_found", "No such entry.", Recovery.CHOOSE_ALTERNATIVE)
    wrong = {"code": "invalid_arguments", "agentGuidance": "term must be text"}
    corrected = _outcome(_only_meta(wrong), _ctx(), write=False)
    assert isinstance(corrected, ToolError)
    assert corrected.recovery is Recovery.CORRECT_ARGUMENTS


@pytest.mark.parametrize(
    "failure",
    [
        {"code": "Not Found!", "agentGuidance": "x"},
        {"code": "not_found", "agentGuidance": "  "},
        {"code": "outcome_unknown", "agentGuidance": "maybe"},
        "not an object",
    ],
)
def test_a_malformed_or_unsettled_failure_is_unavailable(failure: Any) -> None:
    """A code that is not snake_case, no guidance, or an unsettled code: the safe default."""
    outcome = _outcome(_only_meta(failure), _ctx(), write=False)
    assert isinstance(outcome, ToolError)
    assert outcome.code == ErrorCode.UNAVAILABLE


def test_a_write_s_failure_stays_unknown_whatever_the_proposal_says() -> None:
    """The proposal does not say whether a failed write changed anything: outcome unknown."""
    failure = {"class": "capability", "code": "not_found", "agentGuidance": "No such entry."}
    with pytest.raises(RemoteOutcomeUnknownError):
        _outcome(_only_meta(failure), _ctx(), write=True)
