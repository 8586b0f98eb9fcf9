"""What the adapters share: call-id bookkeeping (linear, and the same ids as the plain search),
the status → kind mapping and the lenient readers of bodies, arguments and usage."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surefoot import ProviderError
from surefoot.providers._common import (
    BILLING_IS_AUTH,
    CallIds,
    count_at,
    decode_json,
    kind_for_status,
    lenient_arguments,
    split_cached,
    token_counts,
)
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


# -- the small pieces every adapter's error and response handling uses -------------------------


@pytest.mark.parametrize(
    ("status", "auth", "kind"),
    [
        (None, (401, 403), "bad_response"),
        (401, (401, 403), "auth"),
        (402, (401, 403), "bad_request"),
        (402, BILLING_IS_AUTH, "auth"),
        (429, (401, 403), "rate_limit"),
        (529, (401, 403), "overloaded"),
        (418, (401, 403), "bad_request"),
        (504, (401, 403), "server"),
        (304, (401, 403), "bad_response"),
    ],
)
def test_kind_for_status(status: int | None, auth: tuple[int, ...], kind: str) -> None:
    assert kind_for_status(status, auth=auth) == kind


def test_a_body_that_is_not_json_is_a_bad_response() -> None:
    assert decode_json(b'{"a": 1}', "p") == {"a": 1}
    with pytest.raises(ProviderError) as caught:
        decode_json(b"<html>", "p")
    assert (caught.value.provider, caught.value.kind) == ("p", "bad_response")
    assert caught.value.safe_message == "the response body is not JSON"
    with pytest.raises(ProviderError):  # Python's parser takes NaN; JSON has no such value
        decode_json(b'{"input": {"kg": NaN}}', "p")


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        (None, ({}, None)),
        ({"a": 1}, ({"a": 1}, None)),
        ("  ", ({}, "  ")),
        ('{"a": 1}', ({"a": 1}, '{"a": 1}')),
        ('{"a": ', (None, '{"a": ')),
        ("[1]", (None, "[1]")),
        ([1, 2], (None, "[1,2]")),
        ('{"kg": NaN}', (None, '{"kg": NaN}')),
        ('{"kg": -Infinity}', (None, '{"kg": -Infinity}')),
    ],
    ids=["missing", "object", "blank", "text", "cut", "list_text", "list", "nan", "infinity"],
)
def test_lenient_arguments(value: object, parsed: tuple[Any, str | None]) -> None:
    """Missing or blank is ``{}``; an object or object text parses; anything else keeps its
    raw text and has no arguments."""
    assert lenient_arguments(value) == parsed


def test_token_counts_take_integers_only() -> None:
    names = {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens"}
    assert token_counts({"usage": {"prompt_tokens": 3, "completion_tokens": 2.5}}, names) == {
        "input_tokens": 3
    }
    assert token_counts({"usage": None}, names) == {}
    assert token_counts([], names) == {}


def test_count_at_takes_non_negative_integers_on_the_path_only() -> None:
    """A nested count is read where the path leads; anything else there (or no path) is None."""
    data = {"usage": {"details": {"cached": 7, "zero": 0, "minus": -1, "flag": True, "f": 2.0}}}
    assert count_at(data, "usage", "details", "cached") == 7
    assert count_at(data, "usage", "details", "zero") == 0
    for key in ("minus", "flag", "f", "absent"):
        assert count_at(data, "usage", "details", key) is None
    assert count_at({"usage": None}, "usage", "details", "cached") is None
    assert count_at([], "usage") is None


@given(total=st.integers(0, 10**6), cached=st.integers(0, 10**6), output=st.integers(0, 10**6))
def test_split_cached_keeps_the_input_total_and_never_overlaps(
    total: int, cached: int, output: int
) -> None:
    """The cached tokens leave ``input_tokens``; the two add up to the wire's input count (a
    cached count above it is capped), so the values sum to the wire's input plus output."""
    usage = split_cached({"input_tokens": total, "output_tokens": output}, cached)
    assert set(usage) == {"input_tokens", "output_tokens", "cache_read_input_tokens"}
    assert usage["cache_read_input_tokens"] == min(cached, total)
    assert usage["input_tokens"] + usage["cache_read_input_tokens"] == total
    assert sum(usage.values()) == total + output


def test_split_cached_needs_an_input_count_and_a_cached_count() -> None:
    """No cached count, or no input count to take it from: the counts stay as they are."""
    assert split_cached({"input_tokens": 9, "output_tokens": 2}, None) == {
        "input_tokens": 9,
        "output_tokens": 2,
    }
    assert split_cached({"output_tokens": 2}, 5) == {"output_tokens": 2}
    assert split_cached({"input_tokens": 9}, 0) == {"input_tokens": 9, "cache_read_input_tokens": 0}
