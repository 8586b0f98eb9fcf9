"""The ledger's side of a write: what its outcome is once the handler returned, failed, was
interrupted or was taken over, and what an unconfirmed write turns out to be.

The ledger decides, never the handler's word alone: a success is reported only once the ledger
recorded it committed; a failure after the effect may have happened is settled by the ledger
(an atomic write's effect commits with its record) or by the tool's ``reconcile`` hook, and
stays ``outcome_unknown`` when neither can tell. Nothing here ever runs a handler again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ._context import ToolContext
from ._ledger import Ledger, LedgerEntry
from ._outcome import ErrorCode, Ok, Outcome, Recovery, ToolError, from_record, to_record
from ._texts import Lang, text
from ._tools import ReconcileResult, Tool, ToolSet

Diagnose = Callable[[BaseException, ToolContext], None]


class Settler:
    """Settles writes in ``ledger``; ``diagnose`` keeps what went wrong for the diagnostics."""

    def __init__(self, tools: ToolSet, ledger: Ledger, diagnose: Diagnose) -> None:
        self.tools = tools
        self.ledger = ledger
        self._diagnose = diagnose

    def settle(
        self, tool: Tool, key: str, arguments: dict[str, Any], ctx: ToolContext, outcome: Outcome
    ) -> Outcome:
        """Record the handler's outcome; report success only if the ledger agrees."""
        if isinstance(outcome, Ok):
            if ctx._committed_in_tx:
                # commit_in wrote the record inside the handler's transaction; whether that
                # transaction committed only the ledger can tell (a handler may catch the
                # failure of its own commit and still return its data): the ledger's own
                # check when it gave one (the transaction's COMMIT returned), else a read
                landed = ctx._landed() if ctx._landed is not None else None
                if landed is not None:
                    return Ok(landed)
                if (recorded := _committed(self.ledger.get(key))) is not None:
                    return recorded
                self._diagnose(_RolledBackError(tool.name), ctx)
                return self.after_failure(tool, key, arguments, ctx, ctx.lang)
            if self.ledger.finalize(key, ctx.attempt, "committed", result=outcome.data):
                return outcome
        elif self.ledger.finalize(key, ctx.attempt, "failed", error=to_record(outcome)):
            return outcome
        return self._fenced(tool, key, ctx.lang)

    def abandon(self, tool: Tool, key: str, attempt: int, lang: Lang) -> None:
        """Best effort, on the way out of an interrupted write: mark it ``unknown`` so that
        the next resume or reconcile settles it at once instead of waiting out its lease."""
        # the interruption wins over a failure here; the claim's lease expires anyway
        with contextlib.suppress(Exception):
            self.ledger.finalize(key, attempt, "unknown", error=to_record(_unknown(tool, lang)))

    def after_failure(
        self, tool: Tool, key: str, arguments: dict[str, Any], ctx: ToolContext, lang: Lang
    ) -> Outcome:
        """The outcome of a write whose handler failed (raised, or returned what no reader
        can load)."""
        unknown = _unknown(tool, lang)
        if ctx._unverifiable:
            self.ledger.finalize(key, ctx.attempt, "unknown", error=to_record(unknown))
            return unknown
        entry = self.ledger.get(key)
        if (recorded := _committed(entry)) is not None:
            return recorded
        if tool.atomic and entry is not None and entry.state == "pending":
            failed = _not_applied(tool, lang)
            if self.ledger.finalize(key, ctx.attempt, "failed", error=to_record(failed)):
                return failed
            # settled meanwhile: a commit the server carried out after the caller had given up
            # on it (its answer never came) lands with its ledger record
            return self._fenced(tool, key, lang)
        return self._reconcile_or_unknown(tool, key, ctx.attempt, arguments, unknown, lang)

    def settled(self, tool: Tool, entry: LedgerEntry, fingerprint: str, lang: Lang) -> Outcome:
        """The outcome of a key that was already claimed (replay, resume, another worker)."""
        if entry.fingerprint != fingerprint:
            return ToolError(
                ErrorCode.INVALID_ARGUMENTS, text(lang, "key_mismatch"), Recovery.CORRECT_ARGUMENTS
            )
        if (recorded := _committed(entry)) is not None:
            return recorded
        if entry.state == "failed" and entry.error is not None:
            return from_record(entry.error)
        if entry.state == "pending" and entry.lease_expired:
            expired = self.ledger.expire(entry.key)
            entry = expired if expired is not None else entry
        if entry.state == "unknown":
            unknown = ToolError(
                ErrorCode.OUTCOME_UNKNOWN,
                text(lang, "held_back", name=tool.name),
                Recovery.STOP_TURN,
            )
            return self._reconcile_or_unknown(
                tool, entry.key, entry.attempt, entry.arguments, unknown, lang
            )
        # its attempt is in flight (or its worker died moments ago): never Ok, never re-run
        return ToolError(
            ErrorCode.IN_PROGRESS, text(lang, "in_progress", name=tool.name), Recovery.STOP_TURN
        )

    def reconcile(
        self, *, conversation_id: str | None = None, lang: Lang = "en", orphaned: bool = False
    ) -> list[LedgerEntry]:
        """Settle unconfirmed writes: expired ``pending`` become ``unknown`` (all ``pending``
        ones when ``orphaned``: the conversation's last writer is known to be dead), then each
        ``unknown`` is decided by the ledger (atomic writes) or the tool's ``reconcile`` hook.
        Writes nobody can decide stay ``unknown``. Returns the entries as they now are."""
        if orphaned and conversation_id is None:
            msg = "only one conversation's writes can be orphaned"
            raise ValueError(msg)
        settled: list[LedgerEntry] = []
        open_entries = [
            *self.ledger.entries(conversation_id=conversation_id, state="pending"),
            *self.ledger.entries(conversation_id=conversation_id, state="unknown"),
        ]
        for entry in open_entries:
            current: LedgerEntry | None = entry
            if entry.state == "pending" and (entry.lease_expired or orphaned):
                current = self.ledger.expire(entry.key, orphaned=orphaned)
            if current is None or current.state != "unknown":
                continue
            tool = self.tools.get(current.tool)
            if tool is not None:
                self._reconcile_or_unknown(
                    tool,
                    current.key,
                    current.attempt,
                    current.arguments,
                    _unknown(tool, lang),
                    lang,
                )
            refreshed = self.ledger.get(current.key)
            if refreshed is not None:
                settled.append(refreshed)
        return settled

    def _fenced(self, tool: Tool, key: str, lang: Lang) -> Outcome:
        """The claim was taken over while the handler ran: the ledger decides, not us."""
        entry = self.ledger.get(key)
        if (recorded := _committed(entry)) is not None:
            return recorded
        unknown = _unknown(tool, lang)
        if entry is not None and entry.state == "unknown":
            return self._reconcile_or_unknown(
                tool, key, entry.attempt, entry.arguments, unknown, lang
            )
        if entry is not None and entry.state == "failed" and entry.error is not None:
            return from_record(entry.error)
        return unknown

    def _reconcile_or_unknown(
        self,
        tool: Tool,
        key: str,
        attempt: int,
        arguments: dict[str, Any],
        unknown: ToolError,
        lang: Lang,
    ) -> Outcome:
        verdict = self._verdict(tool, key, arguments)
        if isinstance(verdict, Ok):
            self.ledger.finalize(key, attempt, "committed", result=verdict.data)
            return verdict
        if verdict == "absent":
            failed = _not_applied(tool, lang)
            if self.ledger.finalize(key, attempt, "failed", error=to_record(failed)):
                return failed
            # settled meanwhile, as in ``after_failure``
            recorded = _committed(self.ledger.get(key))
            return recorded if recorded is not None else unknown
        self.ledger.finalize(key, attempt, "unknown", error=to_record(unknown))
        return unknown

    def _verdict(self, tool: Tool, key: str, arguments: dict[str, Any]) -> ReconcileResult:
        """Did the write with ``key`` take effect? The ledger first, then the tool's hook."""
        entry = self.ledger.get(key)
        if (recorded := _committed(entry)) is not None:
            return recorded
        if tool.atomic and entry is not None and entry.state == "unknown":
            return "absent"  # its effect commits only together with the ledger's record
        if tool.reconcile is None:
            return None
        try:
            return tool.reconcile(key, arguments)
        except Exception:  # noqa: BLE001 - a failing check decides nothing
            return None


def _committed(entry: LedgerEntry | None) -> Ok | None:
    """The write's success as the ledger recorded it, if it did."""
    if entry is not None and entry.state == "committed" and entry.result is not None:
        return Ok(entry.result)
    return None


def _unknown(tool: Tool, lang: Lang) -> ToolError:
    return ToolError(
        ErrorCode.OUTCOME_UNKNOWN, text(lang, "outcome_unknown", name=tool.name), Recovery.STOP_TURN
    )


def _not_applied(tool: Tool, lang: Lang) -> ToolError:
    return ToolError(
        ErrorCode.NOT_APPLIED, text(lang, "not_applied", name=tool.name), Recovery.STOP_TURN
    )


class _RolledBackError(RuntimeError):
    """What the diagnostics show when a handler reported success after ``commit_in`` but the
    transaction holding the record did not commit."""

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"{tool} returned success, but the transaction in which it called ctx.commit_in "
            "did not commit: the write is settled by the ledger instead"
        )
