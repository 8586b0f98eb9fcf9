"""What the executor remembers within one user turn, and the two rules that read it.

* **The convergence guard**: a call identical (tool + canonical arguments) to one that already
  failed in the turn is not run again: the second time it yields that error with
  ``choose_alternative``, past the limit with ``stop_turn``. A write that succeeds in between
  changes the data, so failures against the data are forgotten (read 2020-01-03: not_found;
  save it; read it again: it runs).
* **The repeat rule**: a write that succeeded in an earlier round of the turn, asked for again
  with identical validated arguments while no other write has succeeded since, is not run
  again: the model gets ``already_done`` with the first call's result, and asking once more
  stops the turn. Identical calls in one response each run (two identical sets are two sets);
  once another write succeeded (save, delete, save again) the data may have changed and the
  repeat runs; a tool declared ``repeatable`` is exempt.

Everything here is a function of the turn's calls, their rounds and their recorded outcomes,
so ``Executor.replay`` rebuilds it from the journal and a resumed turn decides exactly as the
live run did. ``user_texts`` (what grounding reads) and the day each was said come from the
journal too: the ``Agent`` fills them from the conversation's user messages whenever it builds
a turn, live or resumed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ._grounding import Words
from ._outcome import ErrorCode, Recovery, ToolError
from ._texts import Lang, text


class Identified(Protocol):
    """A call whose identity (tool + canonical arguments, hashed) is worked out on demand."""

    @property
    def fingerprint(self) -> str:
        """The call's identity."""
        ...


_DATA_BLIND = frozenset({ErrorCode.INVALID_ARGUMENTS, ErrorCode.UNKNOWN_TOOL})
"""Failures that no write can change (the call itself is wrong)."""


@dataclass(slots=True)
class TurnState:
    """What the executor remembers within one user turn."""

    conversation_id: str
    user_turn: int
    lang: Lang = "en"
    stopped: bool = False
    failures: dict[str, tuple[str, int, ToolError]] = field(default_factory=dict)
    """The turn's failures by call identity: the first error and how often. Failures noted
    with ``failed`` join it when the guard first reads it."""
    ordinals: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, bool] = field(default_factory=dict)
    """A person's decisions in this turn, by the idempotency key of the exact call decided
    (True approved, False denied). A decision for any other call is never applied."""
    given_keys: dict[str, str] = field(default_factory=dict)
    """Idempotency keys the caller supplied, by call id (an MCP client's retry key): such a
    write is keyed by it alone, so the same key with the same arguments is answered from the
    ledger and with other arguments is refused."""
    round: int = 0
    """The batch being run: 1 for the turn's first response's calls, and so on."""
    done: dict[str, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    """Writes that succeeded in this turn, by call identity: the round and the first result."""
    user_texts: tuple[str, ...] | None = None
    """What the person wrote in this conversation, oldest first, the current turn's message
    last: what grounded arguments are checked against. None: the conversation is not known
    here (an MCP server's calls, an executor run alone), and grounding checks nothing."""
    said_on: tuple[dt.date | None, ...] = ()
    """The day each of ``user_texts`` was said, where the journal has it (None: not known):
    an earlier message's "hoy" and "ayer" count from its own day."""
    today: dt.date | None = None
    """The turn's date: what the current message's relative dates ("hoy", "ayer") count
    from when its own day is not known."""
    _words: Words | None = field(default=None, repr=False)
    _unkeyed: list[tuple[Identified, ToolError]] = field(default_factory=list, repr=False)
    """Failures noted before their call's identity was needed (``failed``), in order."""

    def words(self) -> Words | None:
        """``user_texts`` read for grounding (once per turn), or None when not known."""
        if self.user_texts is None:
            return None
        if self._words is None:
            self._words = Words.read(self.user_texts, self.today, self.said_on)
        return self._words

    def stop_if(self, error: ToolError) -> ToolError:
        """``error``, after stopping the turn if it says so."""
        if error.recovery is Recovery.STOP_TURN:
            self.stopped = True
        return error

    def failed(self, call: Identified, error: ToolError) -> None:
        """``note_failure`` for ``call``, whose identity is worked out only when the guard
        or a write's success first needs ``failures`` (a turn whose one call fails never
        hashes its arguments)."""
        self._unkeyed.append((call, error))

    def has_failures(self) -> bool:
        """Whether any call failed in the turn so far."""
        return bool(self.failures or self._unkeyed)

    def _keyed(self) -> dict[str, tuple[str, int, ToolError]]:
        """``failures``, with the failures noted by ``failed`` counted in, in order."""
        if self._unkeyed:
            pending, self._unkeyed = self._unkeyed, []
            for call, error in pending:
                self._count(call.fingerprint, error)
        return self.failures

    def note_failure(self, identity: str, error: ToolError) -> None:
        """Count a failure of the call ``identity``; the first error is kept for the guard."""
        self._keyed()
        self._count(identity, error)

    def _count(self, identity: str, error: ToolError) -> None:
        seen = self.failures.get(identity)
        if seen is None:
            self.failures[identity] = (error.code, 1, error)
        else:
            self.failures[identity] = (seen[0], seen[1] + 1, seen[2])

    def guard(self, identity: str, limit: int) -> ToolError | None:
        """The escalated error if the call ``identity`` already failed in the turn."""
        seen = self._keyed().get(identity)
        if seen is None:
            return None
        code, count, first = seen
        self.failures[identity] = (code, count + 1, first)
        if count + 1 > limit:
            return first.with_recovery(Recovery.STOP_TURN, text(self.lang, "guard_stop", code=code))
        return first.with_recovery(
            Recovery.CHOOSE_ALTERNATIVE, text(self.lang, "guard_repeat", code=code)
        )

    def guarded(self, identity: str, error: ToolError, limit: int) -> ToolError:
        """``error``, escalated if this exact call already failed in the turn."""
        escalated = self.guard(identity, limit)
        if escalated is not None:
            return escalated
        self.note_failure(identity, error)
        return error

    def succeeded(self, identity: str, data: dict[str, Any]) -> None:
        """A write ``identity`` succeeded in this round (its first success is kept). The data
        may have changed: earlier successes of other writes become repeatable, and calls that
        failed against the data (``not_found``, ``unavailable``...) may be tried again; a call
        refused as malformed (``invalid_arguments``, ``unknown_tool``) stays refused."""
        changed = [k for k, (r, _) in self.done.items() if r < self.round and k != identity]
        for key in changed:
            del self.done[key]
        for key, (code, _, _) in list(self._keyed().items()):
            # what failed against the data before this write may not fail now; a call that
            # was malformed stays so
            if (
                key != identity
                and code not in _DATA_BLIND
                and (code != ErrorCode.ALREADY_DONE or key in changed)
            ):
                del self.failures[key]
        self.done.setdefault(identity, (self.round, data))

    def repeated(
        self, identity: str, tool: str, describe: Callable[[dict[str, Any]], str]
    ) -> ToolError | None:
        """``already_done`` if the write ``identity`` succeeded in an earlier round of this
        turn (``stop_turn`` if it was already answered so); None if it may run. ``describe``
        words the first result for the model ("weight 77.4 kg (2026-12-03)")."""
        done = self.done.get(identity)
        if done is None or done[0] >= self.round:
            return None
        seen = self._keyed().get(identity)
        if seen is not None and seen[0] == ErrorCode.ALREADY_DONE:
            self.note_failure(identity, seen[2])
            stop = text(self.lang, "already_done_stop", name=tool)
            return seen[2].with_recovery(Recovery.STOP_TURN, stop)
        error = ToolError(
            ErrorCode.ALREADY_DONE,
            text(self.lang, "already_done", name=tool, what=describe(done[1])),
            Recovery.CHOOSE_ALTERNATIVE,
            result=done[1],
        )
        self.note_failure(identity, error)
        return error
