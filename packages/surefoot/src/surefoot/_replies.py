"""The replies the harness writes itself, when it ends a turn.

Whenever the harness writes the reply (a stop, the round limit, an empty answer, a provider
failure, the token budget, a call waiting for a person), it also tells the person what this
turn did, from the program's own records, never from the model's words::

    <why the turn ended>

    In this turn:
    • saved: weight 77.4 kg (2026-12-03)
    • not confirmed whether it was saved: add_meal_food (...)

A write is "saved" when its outcome is ``Ok`` (run now, or answered from the ledger), "not
saved" when it is ``not_applied``, and "not confirmed" when it is ``outcome_unknown`` or
``in_progress``. A saved write is described by its tool's ``describe`` (the tool's name and
the result's top-level values by default); a call that saved nothing, or may not have, by the
application's ``call_words`` (the tool's name and its arguments by default).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._exceptions import ProviderConnectionError, ProviderError
from ._messages import ToolCall
from ._outcome import ErrorCode, Ok, Outcome, Recovery, ToolError, dumps
from ._records import CallRecord
from ._texts import Lang, text
from ._tools import Tool, ToolSet

WhereToCheck = Callable[[ToolCall, Lang], str | None]
"""Where a person checks a write whose outcome is unknown: a call and a language to a
phrase (a command, a page), or None."""

CallWords = Callable[[ToolCall, Lang], str | None]
"""A write's call in a person's words (what it was asked to do, to which data), or None."""

_UNCONFIRMED = frozenset({ErrorCode.OUTCOME_UNKNOWN, ErrorCode.IN_PROGRESS})
_PROVIDER_PROBLEMS = {
    "auth": "provider_auth",
    "rate_limit": "provider_rate_limit",
    "overloaded": "provider_overloaded",
    "bad_request": "provider_bad_request",
}


class Replies:
    """The harness's words for the person, in ``lang``."""

    def __init__(
        self,
        tools: ToolSet,
        *,
        lang: Lang,
        app_name: str,
        where_to_check: WhereToCheck | None = None,
        call_words: CallWords | None = None,
    ) -> None:
        self.tools = tools
        self.lang: Lang = lang
        self.app_name = app_name
        self.where_to_check = where_to_check
        self.call_words = call_words

    def stopped(self, records: Sequence[CallRecord]) -> str:
        """Why a stop_turn outcome among ``records`` ended the turn."""
        stopping = [
            r.outcome
            for r in records
            if isinstance(r.outcome, ToolError) and r.outcome.recovery is Recovery.STOP_TURN
        ]
        codes = {e.code for e in stopping}
        if codes & _UNCONFIRMED:
            record = next(r for r in records if _code(r.outcome) in _UNCONFIRMED)
            return self._unconfirmed(record.call)
        if ErrorCode.NOT_APPLIED in codes:
            return text(self.lang, "stop_not_applied", app=self.app_name)
        first = next((e for e in stopping if e.code != ErrorCode.NOT_EXECUTED), stopping[0])
        return text(self.lang, "stop_generic", app=self.app_name, reason=first.message)

    def round_limit(self, rounds: int) -> str:
        """The turn used its ``rounds`` tool rounds."""
        return text(self.lang, "round_limit", app=self.app_name, rounds=rounds)

    def provider_failed(self, exc: ProviderError) -> str:
        """The provider failed to answer."""
        problem = text(self.lang, _provider_problem_key(exc))
        return text(self.lang, "provider_error", provider=exc.provider, problem=problem)

    def plain(self, key: str, **values: object) -> str:
        """The harness text ``key`` (``max_tokens``, ``empty_answer``, ...)."""
        return text(self.lang, key, app=self.app_name, **values)

    def with_what_was_done(self, reply: str, records: Sequence[CallRecord]) -> str:
        """``reply`` followed by what the turn's writes did, if it had any."""
        lines = self.what_was_done(records)
        if not lines:
            return reply
        return reply + "\n\n" + text(self.lang, "turn_did") + "\n" + "\n".join(lines)

    def what_was_done(self, records: Sequence[CallRecord]) -> list[str]:
        """One line per write of ``records`` that was saved, not saved, or is unconfirmed."""
        lines: list[str] = []
        for record in records:
            tool = self.tools.get(record.call.name)
            if tool is None or tool.effect != "write":
                continue
            outcome = record.outcome
            if isinstance(outcome, Ok):
                lines.append(self._line("turn_saved", self.described(tool, outcome.data)))
            elif outcome.code == ErrorCode.NOT_APPLIED:
                lines.append(self._line("turn_not_applied", self._call_text(tool, record.call)))
            elif outcome.code in _UNCONFIRMED:
                lines.append(self._line("turn_unknown", self._call_text(tool, record.call)))
        return lines

    def described(self, tool: Tool, data: dict[str, Any]) -> str:
        """What ``tool`` saved, in a person's words (its ``describe``, else a plain default)."""
        return described(tool, data, self.lang)

    def _line(self, key: str, what: str) -> str:
        return "• " + text(self.lang, key, what=what)

    def _call_text(self, tool: Tool, call: ToolCall) -> str:
        """The application's words for ``call``, else its tool's name and its arguments (also
        when those words fail or say nothing)."""
        if self.call_words is not None:
            try:
                said = self.call_words(call, self.lang)
            except Exception:  # noqa: BLE001 - failing words fall back to the plain ones
                said = None
            if isinstance(said, str) and said.strip():
                return said.strip()
        return f"{tool.name} ({_values(call.arguments)})" if call.arguments else tool.name

    def _unconfirmed(self, call: ToolCall) -> str:
        tool = self.tools.get(call.name)
        message = text(self.lang, "stop_outcome_unknown", app=self.app_name)
        where = self.where_to_check(call, self.lang) if self.where_to_check else None
        if tool is not None and tool.idempotent:
            message += text(self.lang, "stop_idempotent_hint")
            if where:
                message += text(self.lang, "stop_idempotent_where", where=where)
        elif where:
            message += text(self.lang, "stop_check_first", where=where)
        else:
            message += text(self.lang, "stop_check_first_default")
        return message


def described(tool: Tool, data: dict[str, Any], lang: Lang) -> str:
    """What ``tool`` saved, in a person's words: its ``describe``, else its name and the
    result's top-level values (also when ``describe`` fails or says nothing)."""
    if tool.describe is not None:
        try:
            said = tool.describe(data, lang)
        except Exception:  # noqa: BLE001 - a failing description falls back to the plain one
            said = ""
        if isinstance(said, str) and said.strip():
            return said.strip()
    return f"{tool.name} ({_values(data)})" if data else tool.name


def _values(data: dict[str, Any], *, limit: int = 160) -> str:
    """The top-level values of ``data`` as ``name value`` pairs, nulls left out, bounded."""
    pairs = []
    for name, value in data.items():
        if value is None:
            continue
        shown = value if isinstance(value, str) else dumps(value)
        pairs.append(f"{name} {shown}")
    joined = ", ".join(pairs)
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def _code(outcome: Outcome) -> str | None:
    return outcome.code if isinstance(outcome, ToolError) else None


def _provider_problem_key(exc: ProviderError) -> str:
    if isinstance(exc, ProviderConnectionError):
        return "provider_connection"
    return _PROVIDER_PROBLEMS.get(exc.kind, "provider_other")
