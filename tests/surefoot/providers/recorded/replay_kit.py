"""Replaying recorded provider traffic through surefoot's adapters.

The recordings in ``data/`` were made by other projects against the live APIs (see
``SOURCES.md``). A ``ReplayServer`` on 127.0.0.1 answers the official SDK with the recorded
responses, in order, after checking each request the way surefoot's strict fake server for that
API does; ``differences`` then compares the request surefoot built with the request the other
project sent (and the live API accepted), field by field.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, TypeVar

from surefoot.messages import StreamEvent
from surefoot.testing import _fake_anthropic as fake_anthropic
from surefoot.testing import _fake_google as fake_google
from surefoot.testing import _fake_openai_chat as fake_chat
from surefoot.testing import _fake_openai_responses as fake_responses
from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply, sse_event

DATA: Final = Path(__file__).parent / "data"
T = TypeVar("T")


def load(name: str) -> dict[str, Any]:
    """One recording from ``data/``."""
    recording: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return recording


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run one coroutine to completion, bounded in time."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout=30))


async def collect(events: AsyncIterator[StreamEvent]) -> list[StreamEvent]:
    """Every event of a stream."""
    return [event async for event in events]


# -- replies -------------------------------------------------------------------------------


def json_reply(status: int, body: object) -> Reply:
    """A recorded JSON body; errors say ``x-should-retry: false`` so the SDK asks once."""
    reply = Reply.json(status, body)
    if status >= 400:
        reply.headers["x-should-retry"] = "false"
    return reply


def sse_reply(text: str) -> Reply:
    """A recorded stream, byte for byte."""
    return Reply.sse([text.encode()])


def events_reply(events: Iterable[Mapping[str, Any]], name: str, *, done: bool = False) -> Reply:
    """A stream rebuilt from recorded event data (one ``data:`` line each, named by the
    event's ``name`` field as the live APIs name them); ``done`` ends it with ``[DONE]``."""
    chunks = [sse_event(dict(event), str(event[name])) for event in events]
    if done:
        chunks.append(b"data: [DONE]\n\n")
    return Reply.sse(chunks)


def exchange_reply(exchange: Mapping[str, Any]) -> Reply:
    """The recorded response of one cassette exchange."""
    response = exchange["response"]
    if "sse" in response:
        return sse_reply(response["sse"])
    return json_reply(response["status"], response["json"])


# -- strict checks, as surefoot's fake servers make them -----------------------------------


def _anthropic(body: Any) -> Reply | None:
    problem = fake_anthropic.request_problem(body)
    if problem is None:
        return None
    return fake_anthropic.error_reply(400, "invalid_request_error", problem)


def _responses(body: Any) -> Reply | None:
    problem = fake_responses.request_problem(body)
    return None if problem is None else fake_responses.error_reply(problem)


def _google(body: Any) -> Reply | None:
    problem = fake_google.check_request(body)
    if problem is None:
        return None
    error = {"code": 400, "message": problem, "status": "INVALID_ARGUMENT"}
    return json_reply(400, {"error": error})


def _chat(body: Any) -> Reply | None:
    problem = fake_chat.check_request(body)
    if problem is None:
        return None
    message, param = problem
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": None}
    return json_reply(400, {"error": error})


STRICT: Final[Mapping[str, Callable[[Any], Reply | None]]] = {
    "anthropic": _anthropic,
    "openai": _responses,
    "google": _google,
    "openai-chat": _chat,
}
"""Each API's strict request check (the one its fake server makes), answering a violation
with that API's error."""

RESOURCE: Final[Mapping[str, str]] = {
    "anthropic": "/v1/messages",
    "openai": "/responses",
    "google": "/interactions",
    "openai-chat": "/chat/completions",
}
"""Where each API is asked (the end of the request path)."""


class ReplayServer(FakeHTTPServer):
    """Answers each request with the next recorded reply, once the request has passed the
    strict check of ``api`` (a key of ``STRICT``); a rejected request uses up no reply."""

    def __init__(self, api: str, replies: Sequence[Reply]) -> None:
        super().__init__()
        self.check = STRICT[api]
        self.resource = RESOURCE[api]
        self.replies = list(replies)
        self.rejections: list[Reply] = []

    @property
    def bodies(self) -> list[Any]:
        """Every request body received, in order."""
        return [request.body for request in self.requests]

    def handle(self, request: RecordedRequest) -> Reply:
        """The strict check, then the next recorded reply (a 500 once they are used up)."""
        path = request.path.partition("?")[0]
        if request.method != "POST" or not path.endswith(self.resource):
            return json_reply(404, {"error": {"message": f"not {self.resource}: {path}"}})
        rejection = self.check(request.body)
        if rejection is not None:
            self.rejections.append(rejection)
            return rejection
        if not self.replies:
            return json_reply(500, {"error": {"message": "no recorded reply left"}})
        return self.replies.pop(0)


# -- the official OpenAPI schema of Responses input items -----------------------------------


@functools.cache
def _responses_schema() -> dict[str, Any]:
    return load("openai_responses_input.schema.json")


def schema_problems(items: Sequence[object]) -> list[str]:
    """Why each input item fails the official schema (an item is valid when one of the
    ``InputItem`` members surefoot uses validates it, as the spec's discriminated union
    says); empty when all are valid."""
    from jsonschema import Draft202012Validator

    spec = _responses_schema()
    validators = {
        member: Draft202012Validator(
            {"$ref": f"#/components/schemas/{member}", "components": spec["components"]}
        )
        for member in spec["input_item_members"]
    }
    problems = []
    for index, item in enumerate(items):
        if not any(v.is_valid(item) for v in validators.values()):
            errors = {m: v.iter_errors(item) for m, v in validators.items()}
            reasons = [f"{m}: {next(e).message}" for m, e in errors.items()]
            problems.append(f"input[{index}] matches no item type ({'; '.join(reasons)})")
    return problems


# -- field-by-field comparison -------------------------------------------------------------


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


MISSING: Final = _Marker("MISSING")
"""A field one side does not have."""
ANY: Final = _Marker("ANY")
"""In an allowed difference: any value (checked on its own where it matters)."""

Difference = tuple[str, Any, Any]
"""(path, recorded value, surefoot's value)."""


def differences(recorded: object, ours: object, path: str = "") -> list[Difference]:
    """Every field where ``ours`` differs from ``recorded``, walking objects and lists."""
    if isinstance(recorded, dict) and isinstance(ours, dict):
        found: list[Difference] = []
        for key in sorted(set(recorded) | set(ours)):
            where = f"{path}.{key}" if path else str(key)
            found += differences(recorded.get(key, MISSING), ours.get(key, MISSING), where)
        return found
    if isinstance(recorded, list) and isinstance(ours, list):
        found = []
        for index in range(max(len(recorded), len(ours))):
            left = recorded[index] if index < len(recorded) else MISSING
            right = ours[index] if index < len(ours) else MISSING
            found += differences(left, right, f"{path}[{index}]")
        return found
    same = recorded == ours and type(recorded) is type(ours)
    return [] if same else [(path, recorded, ours)]


def unexplained(
    recorded: object, ours: object, allowed: Mapping[str, tuple[object, object]]
) -> tuple[list[Difference], list[str]]:
    """The differences no ``allowed`` entry explains, and the allowed entries that explain
    none (so each entry documents a difference that really exists).

    ``allowed`` maps a path pattern (``*`` matches within a path, ``[*]`` any index) to the
    (recorded, ours) values it allows; ``ANY`` allows any value on that side.
    """
    found = differences(recorded, ours)
    rest = [d for d in found if not any(_fits(d, p, v) for p, v in allowed.items())]
    unused = [p for p, v in allowed.items() if not any(_fits(d, p, v) for d in found)]
    return rest, unused


def _fits(difference: Difference, pattern: str, values: tuple[object, object]) -> bool:
    path, left, right = difference
    if not _path_pattern(pattern).fullmatch(path):
        return False
    return _value_fits(left, values[0]) and _value_fits(right, values[1])


@functools.cache
def _path_pattern(pattern: str) -> re.Pattern[str]:
    """``[*]`` matches any index, ``*`` any run of characters within one field name."""
    escaped = re.escape(pattern).replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.\[]*")
    return re.compile(escaped)


def _value_fits(value: object, expected: object) -> bool:
    if expected is ANY:
        return True
    if isinstance(expected, _Marker):
        return value is expected
    return bool(value == expected) and type(value) is type(expected)
