"""The offline Coach says why a call failed in words, never by the error's code."""

from __future__ import annotations

import re

import pytest

from gymnasia.offline._replies import Replies
from surefoot import ErrorCode, Recovery, ToolError

CODES = [*(code.value for code in ErrorCode), "not_found", "conflict", "date_in_future", "x_y"]


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
@pytest.mark.parametrize("code", CODES)
def test_a_failure_is_explained_without_its_code(lang: str, code: str) -> None:
    """Every code, the harness's, the tools' and an unknown one, is a phrase with no code in it."""
    say = Replies(lang)  # type: ignore[arg-type]
    why = say.why(ToolError(code, "m", Recovery.CHOOSE_ALTERNATIVE))
    assert why
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", why)
    reply = say.t("save_failed", why=why)
    assert code not in reply


def test_known_codes_have_their_own_words() -> None:
    """A refusal and a storage failure are told apart; an unknown code gets the general words."""
    say = Replies("en")
    denied = say.why(ToolError("denied", "m", Recovery.CHOOSE_ALTERNATIVE))
    unavailable = say.why(ToolError("unavailable", "m", Recovery.CHOOSE_ALTERNATIVE))
    other = say.why(ToolError("x_y", "m", Recovery.CHOOSE_ALTERNATIVE))
    assert len({denied, unavailable, other}) == 3
    assert other == "something went wrong"
