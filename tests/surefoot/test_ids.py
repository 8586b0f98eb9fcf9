"""Fresh ids (conversations, lease owners): unique, and a forked child never repeats its
parent's sequence."""

from __future__ import annotations

import os

from surefoot._ids import random_hex
from surefoot._loop import new_conversation_id


def test_ids_are_unique_and_of_the_asked_length() -> None:
    ids = {random_hex(10) for _ in range(20_000)}
    assert len(ids) == 20_000
    assert all(len(i) == 20 and int(i, 16) >= 0 for i in ids)
    conversation = new_conversation_id()
    assert conversation.startswith("c_")
    assert len(conversation) == 22


def test_a_forked_child_draws_a_new_sequence() -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next ids and leave at once
        os.close(read)
        os.write(write, " ".join(random_hex(10) for _ in range(3)).encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 4096).decode().split()
    os.close(read)
    os.waitpid(pid, 0)
    parent = [random_hex(10) for _ in range(3)]
    assert len(child) == 3
    assert not set(child) & set(parent)
