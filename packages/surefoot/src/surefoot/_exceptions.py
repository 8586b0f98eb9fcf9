"""Exceptions the harness raises to *developers*.

Tool failures are never exceptions past the executor: they become outcomes (``ToolError``).
What remains are problems for the program around the harness::

    SurefootError
    ├── ConfigurationError      a tool, registry or agent was declared wrongly
    ├── ProviderError           the model provider failed (auth, rate limit, bad request, ...)
    │   └── ProviderConnectionError   it could not be reached at all
    ├── ScriptError             a scripted test model met an unexpected or unconsumed step
    ├── StoreError              the journal/ledger database is unusable (``kind`` says why)
    ├── ConversationBusyError   another writer holds the conversation (its turn is running);
    │                           raised mid-turn, it carries what the turn had already done
    └── TurnPendingError        the conversation's last turn is unfinished (a decision to make,
                                or an interruption): resume it before starting another

Provider errors are translated from each SDK's exceptions at exactly one place per adapter;
database driver errors (SQLite, PostgreSQL) at exactly one place in the SQL stores. Both carry
a typed ``kind`` a program can branch on and a message that is safe to show: no driver or SDK
text, no password, no key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, get_args

from ._outcome import ErrorCode, ToolError

if TYPE_CHECKING:
    from ._records import CallRecord

ProviderErrorKind = Literal[
    "auth", "rate_limit", "overloaded", "bad_request", "server", "bad_response", "connection"
]
"""Why a provider failed: rejected credentials (or billing), rate limited, overloaded, a
request it refused, a server failure, an answer that could not be read, or not reached."""

PROVIDER_ERROR_KINDS: Final[tuple[ProviderErrorKind, ...]] = get_args(ProviderErrorKind)

StoreErrorKind = Literal[
    "locked",
    "unavailable",
    "not_a_database",
    "permission",
    "disk_full",
    "unsupported_url",
    "not_found",
    "misuse",
]
"""Why the database cannot be used:

* ``locked`` — another connection holds it (or a lock) past the busy timeout; try again later
* ``unavailable`` — it cannot be reached or the connection was lost (server down, wrong port,
  connection killed, an I/O failure)
* ``not_a_database`` — the file is not a database (another kind of file, a directory, or a
  damaged database)
* ``permission`` — no permission to read or write it (a read-only file, directory, file system
  or database role)
* ``disk_full`` — no space left for it to grow
* ``unsupported_url`` — the URL's scheme is not SQLite or PostgreSQL
* ``not_found`` — it does not exist (and was not to be created)
* ``misuse`` — the program used the store wrongly (a bug, not a state of the database)
"""

STORE_ERROR_KINDS: Final[tuple[StoreErrorKind, ...]] = get_args(StoreErrorKind)


class SurefootError(Exception):
    """Base class of every surefoot exception."""


class ConfigurationError(SurefootError):
    """Something was declared wrongly (a tool, a registry, an agent option, a provider).

    ``setting`` names the option at fault when one does (``provider``, ``api_key``,
    ``model``, ``base_url``), for a program to point at it in its own words.
    """

    def __init__(self, message: str, *, setting: str | None = None) -> None:
        super().__init__(message)
        self.setting = setting


class ScriptError(SurefootError):
    """A scripted model was asked for a step it did not have, or left steps unconsumed."""


class StoreError(SurefootError):
    """The journal or ledger database cannot be used.

    ``kind`` says why; ``url`` is the database's address with any password removed (None when
    there is none to show). The message is safe to show; the driver's exception, if any, is
    only the ``__cause__``.
    """

    def __init__(
        self, message: str, *, kind: StoreErrorKind = "misuse", url: str | None = None
    ) -> None:
        super().__init__(message)
        self.kind: StoreErrorKind = kind
        self.url = url


class ConversationBusyError(SurefootError):
    """Another writer holds this conversation: a turn is running in another process, or one
    that died recently still holds its lease.

    Raised when a turn starts, nothing was done: try again later. Raised in the middle of a
    turn (its hold was lost: the process was paused past its lease and another took the
    conversation over), ``calls`` holds what the turn had already done, and ``writes`` its
    writes that reached the ledger with their outcomes (saved, not applied, or unknown): a
    caller says "nothing was done" only when ``writes`` is empty."""

    def __init__(self, conversation_id: str, *, calls: tuple[CallRecord, ...] = ()) -> None:
        detail = f" after {len(calls)} call(s) of its turn" if calls else ""
        super().__init__(f"conversation {conversation_id!r} is busy: another turn holds it{detail}")
        self.conversation_id = conversation_id
        self.calls = calls

    @property
    def writes(self) -> tuple[CallRecord, ...]:
        """The turn's writes that reached the ledger (a denied one never did), in order."""
        return tuple(r for r in self.calls if r.key is not None and not _denied(r))


def _denied(record: CallRecord) -> bool:
    outcome = record.outcome
    return isinstance(outcome, ToolError) and outcome.code == ErrorCode.DENIED


class TurnPendingError(SurefootError):
    """The conversation's last turn has calls without results (it waits for a person's
    decision, or it was interrupted): ``Agent.resume`` must finish it before a new turn."""

    def __init__(self, conversation_id: str) -> None:
        super().__init__(
            f"conversation {conversation_id!r} has an unfinished turn; decide any pending "
            "confirmation and resume it first"
        )
        self.conversation_id = conversation_id


class ProviderError(SurefootError):
    """The model provider failed to answer.

    ``safe_message`` is fit to show a person: it never carries keys or response bodies.
    """

    def __init__(
        self,
        *,
        provider: str,
        status: int | None,
        kind: ProviderErrorKind,
        safe_message: str,
    ) -> None:
        super().__init__(f"{provider}: {kind} (status {status}): {safe_message}")
        self.provider = provider
        self.status = status
        self.kind: ProviderErrorKind = kind
        self.safe_message = safe_message


class ProviderConnectionError(ProviderError):
    """The provider could not be reached (connection refused, DNS, timeout)."""
