"""Fresh random ids (conversations, lease owners) without a system call each.

An id is a keyed BLAKE2b hash of a counter, the key drawn once per process from the operating
system (and drawn again in a forked child, so parent and child never share a sequence).
Nobody who lacks the key can predict the next id, and asking the kernel for randomness on
every id, which costs a system call (slow in sandboxes and under load), is avoided.
"""

from __future__ import annotations

import itertools
import os

_key = os.urandom(32)
_counter = itertools.count()


def _reseed() -> None:
    global _key, _counter
    _key, _counter = os.urandom(32), itertools.count()


os.register_at_fork(after_in_child=_reseed)


def random_hex(nbytes: int) -> str:
    """``nbytes`` random bytes as hex (at most 64)."""
    from hashlib import blake2b  # loaded at the first id: `import surefoot` stays light

    key, number = _key, next(_counter)  # next() on a count is atomic under the GIL
    return blake2b(number.to_bytes(8, "little"), key=key, digest_size=nbytes).hexdigest()
