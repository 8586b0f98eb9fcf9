"""What a turn is made of: each call with its one outcome, and the tokens its requests used."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ._frozen import quick_init
from ._messages import ToolCall
from ._outcome import Outcome


@quick_init
@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call and its one outcome.

    Attributes:
        call: The call as the model made it.
        outcome: Its one outcome, ``Ok`` or ``ToolError``.
        executed: Whether its handler ran in this attempt (False for a refused call, and
            for a write answered from the ledger).
        key: A write's idempotency key (None for reads and for calls refused before one
            was minted).
    """

    call: ToolCall
    outcome: Outcome
    executed: bool
    key: str | None = None


_CACHED = "cache_read_input_tokens"
_CREATED = "cache_creation_input_tokens"


@quick_init
@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens a turn's model requests used, as the providers reported them.

    Attributes:
        input_tokens: Every input token, those read from a prompt cache included.
        output_tokens: Every output token (reasoning included).
        cached_input_tokens: The input tokens read from a prompt cache (a part of
            ``input_tokens``), where the API reports them.
        requests: Each request's own counts, in order (``ModelResponse.usage``: kinds that
            never overlap); empty for a request whose provider reported none.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    requests: tuple[Mapping[str, int], ...] = ()

    @property
    def total_tokens(self) -> int:
        """Input and output together."""
        return self.input_tokens + self.output_tokens

    def add(self, counts: Mapping[str, int]) -> Usage:
        """This usage with one more request's ``counts``."""
        return self.extended((counts,))

    def extended(self, requests: Iterable[Mapping[str, int]]) -> Usage:
        """This usage with more requests' counts, in order (each a ``ModelResponse.usage``)."""
        inputs, outputs, cached = self.input_tokens, self.output_tokens, self.cached_input_tokens
        kept = list(self.requests)
        for counts in requests:
            if counts:  # else the provider reported none
                get = counts.get
                read = get(_CACHED, 0)
                inputs += get("input_tokens", 0) + read + get(_CREATED, 0)
                outputs += get("output_tokens", 0)
                cached += read
            kept.append(dict(counts))
        return Usage(inputs, outputs, cached, tuple(kept))

    @classmethod
    def of(cls, requests: Sequence[Mapping[str, int]]) -> Usage:
        """The usage of ``requests``, each a ``ModelResponse.usage``."""
        return cls().extended(requests)


NO_USAGE = Usage()
"""No request yet (a usage is immutable: one for every turn that starts)."""
