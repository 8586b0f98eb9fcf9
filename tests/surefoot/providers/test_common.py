"""Call-id bookkeeping shared by the adapters: linear, and the same ids as the plain search."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from surefoot.providers._common import CallIds
from surefoot.providers._ids import wire_id


class PlainCallIds:
    """The obvious mapping, kept here as the reference: each call searches its candidates
    from the start (quadratic when a server reuses one id), each result takes the first
    unanswered call of its id."""

    def __init__(self, wire: Callable[[str], str]) -> None:
        self._wire = wire
        self._used: set[str] = set()
        self._open: list[tuple[str, str]] = []

    def start_turn(self) -> None:
        self._open = []

    def for_call(self, call_id: str) -> str:
        wire, repeat = self._wire(call_id), 0
        while wire in self._used:
            repeat += 1
            wire = self._wire(f"{call_id}#{repeat}")
        self._used.add(wire)
        self._open.append((call_id, wire))
        return wire

    def for_result(self, call_id: str) -> str:
        for index, (open_id, wire) in enumerate(self._open):
            if open_id == call_id:
                del self._open[index]
                return wire
        return self._wire(call_id)


def _short(call_id: str) -> str:
    return wire_id(call_id, max_len=8)


Step = tuple[str, str]
ids = st.sampled_from(["call_0", "call_1", "call_0#1", "call_0#2", "x#1", "call_0#1#1", "a b"])
steps = st.lists(
    st.one_of(st.just(("turn", "")), st.tuples(st.sampled_from(["call", "result"]), ids)),
    max_size=60,
)


def _play(mapper: CallIds | PlainCallIds, plan: list[Step]) -> list[str]:
    out: list[str] = []
    for action, call_id in plan:
        if action == "turn":
            mapper.start_turn()
        elif action == "call":
            out.append(mapper.for_call(call_id))
        else:
            out.append(mapper.for_result(call_id))
    return out


@given(steps, st.sampled_from([wire_id, _short]))
def test_call_ids_match_the_plain_search(plan: list[Step], wire: Callable[[str], str]) -> None:
    """Whatever the ids (reused, colliding with another id's candidates, mapped to hashes),
    the linear mapping gives exactly the ids the plain search gives: requests stay
    byte-identical."""
    assert _play(CallIds(wire), plan) == _play(PlainCallIds(wire), plan)


def test_a_reused_id_is_mapped_in_linear_time() -> None:
    """Ten thousand calls that all reuse ``call_0`` each try one candidate, not all earlier
    ones (counted, not timed)."""
    tried: list[str] = []

    def counting(call_id: str) -> str:
        tried.append(call_id)
        return wire_id(call_id)

    ids_ = CallIds(counting)
    for _ in range(10_000):
        ids_.start_turn()
        wire = ids_.for_call("call_0")
        assert ids_.for_result("call_0") == wire
    assert len(tried) == 10_000
    assert len(set(tried)) == 10_000
