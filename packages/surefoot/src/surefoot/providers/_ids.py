"""Call ids that travel between providers.

Each wire API has its own id rules: Anthropic wants ``^[a-zA-Z0-9_-]+$``, OpenAI's
``call_id`` is at most 64 characters, some local servers reuse ``call_0`` or omit ids. The
neutral transcript keeps whatever id the producing provider used; an adapter maps it, at
request time, deterministically, so the same transcript always yields the same request and a
call and its result always map to the same id.
"""

from __future__ import annotations

import hashlib
import re

_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def _digest(call_id: str) -> str:
    return hashlib.sha256(call_id.encode()).hexdigest()[:24]


def wire_id(call_id: str, *, pattern: re.Pattern[str] = _ANTHROPIC_ID, max_len: int = 64) -> str:
    """``call_id`` if it fits the pattern and length, else a stable ``sf_<hash>`` id."""
    if len(call_id) <= max_len and pattern.fullmatch(call_id):
        return call_id
    return "sf_" + _digest(call_id)


def generated_id(seed: str, index: int) -> str:
    """An id for a call a server sent without one (stable for the same response)."""
    return "sf_gen_" + hashlib.sha256(f"{seed}\x00{index}".encode()).hexdigest()[:20]
