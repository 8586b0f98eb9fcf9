"""What the four provider adapters share; it imports no SDK.

Each adapter stays one module per wire API: its own pure mapping (transcript → request,
response → turn) and its own ``_translate``, the one place where its SDK's exceptions become
``ProviderError``. This module holds only what those modules would otherwise each repeat: the
options and properties of a model (``SDKModel``), the client lifetime (``client_for_request``),
the TLS context and HTTP-library lookups, the status → kind mapping and safe messages
``_translate`` uses, lenient argument parsing and call-id bookkeeping.

Client lifetime: one SDK client per request, closed when the request (or the stream) ends,
all of them sharing one TLS context built once per process (``tls_context``). Loading a CA
store costs far more than the rest of a client (a millisecond or two), and far more than a
request to a local server, so it is the part that is never rebuilt. A client per event loop,
closed at loop shutdown, was the other candidate: it reuses connections, but it closes its
sockets only if the loop finalizes async generators (``asyncio.run`` does; a loop driven by
``run_until_complete`` and then closed does not, and its sockets are reported unclosed, an
error under ``filterwarnings = error``), and it would still build a new client, and a new
TLS context, for every ``asyncio.run``. A client per request leaves no socket behind whatever
the caller does with loops, at the price of one new connection per request, small next to a
model's answer.

A caller that owns a long-lived loop can do better: within ``async with
model.connections():`` the loop's requests share one client, and its kept-alive
connections, closed when the block ends, on that loop (a web server opens it for its life:
a new client and connection per request was a tenth of a ``gymnasia serve`` worker's CPU
per request to a local model, under py-spy).
"""

from __future__ import annotations

import abc
import asyncio
import collections
import contextlib
import dataclasses
import functools
import importlib
import json
import ssl
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from types import ModuleType
from typing import Any, ClassVar, Final, TypeVar

from .._exceptions import ProviderConnectionError, ProviderError, ProviderErrorKind
from .._messages import AssistantMessage
from .._outcome import dumps
from ._ids import generated_id

_Client = TypeVar("_Client")

# -- the model's options -------------------------------------------------------------------


class SDKModel(abc.ABC):
    """The options every adapter takes and the two ``Model`` properties.

    A subclass sets ``_provider``, makes its SDK client (``_client``) and adds ``request``
    and ``stream``, each opening its SDK client with ``client_for_request``.
    """

    _provider: ClassVar[str]

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        max_tokens: int = 1024,
        max_retries: int | None = None,
    ) -> None:
        """``max_retries`` None keeps the SDK's own retry policy (model calls may retry)."""
        self._model = model
        self._api_key = api_key
        self._base_url = base_url
        self._timeout = timeout
        self._max_tokens = max_tokens
        self._max_retries = max_retries
        self._shared: dict[asyncio.AbstractEventLoop, Any] = {}

    @property
    def provider(self) -> str:
        """The adapter's provider label (its module's ``PROVIDER``)."""
        return self._provider

    @property
    def model_name(self) -> str:
        """The model's name as the provider knows it."""
        return self._model

    @property
    def base_url(self) -> str | None:
        """The endpoint this model talks to (None: the provider's own)."""
        return self._base_url

    @contextlib.asynccontextmanager
    async def connections(self) -> AsyncIterator[None]:
        """Within the block, the requests of this event loop share one SDK client, so its
        connections stay open from one request to the next; the client is closed when the
        block ends. Outside it, and on other loops, each request has a client of its own
        (see the module's docstring). A client that cannot be made now (no API key) is not
        shared: each request then fails as it would have."""
        loop = asyncio.get_running_loop()
        if loop in self._shared:  # already open on this loop: the outer block closes it
            yield
            return
        try:
            made = self._client()
        except ProviderError:
            yield
            return
        async with made as client:
            self._shared[loop] = client
            try:
                yield
            finally:
                del self._shared[loop]

    @abc.abstractmethod
    def _client(self) -> Any:
        """A new SDK client (``async with`` closes it); each adapter makes its own."""

    def _request_client(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """The client of one request: the loop's shared one (``connections``), left open,
        or a new one closed when the request ends."""
        try:
            shared = self._shared.get(asyncio.get_running_loop())
        except RuntimeError:  # no running loop
            shared = None
        return contextlib.nullcontext(shared) if shared is not None else self._client()

    def _retries(self, sdk_default: int) -> int:
        """``max_retries``, or the SDK's own default when it is None."""
        return sdk_default if self._max_retries is None else self._max_retries

    def _with_model(self, message: AssistantMessage) -> AssistantMessage:
        """``message``, naming this model when the response named none."""
        if message.model is not None:
            return message
        return dataclasses.replace(message, model=self._model)


@contextlib.asynccontextmanager
async def client_for_request(
    make: Callable[[], contextlib.AbstractAsyncContextManager[_Client]],
    errors: Callable[[], tuple[type[BaseException], ...]],
    translate: Callable[[Any], ProviderError],
) -> AsyncIterator[_Client]:
    """A fresh SDK client from ``make`` for one request (or one stream), closed when it ends;
    an exception of ``errors()`` raised meanwhile leaves as ``translate(exc)``, the adapter's
    one translation place."""
    try:
        async with make() as client:
            yield client
    except errors() as exc:
        raise translate(exc) from exc


# -- the HTTP layer under the SDKs ---------------------------------------------------------


@functools.cache
def _http_libraries() -> tuple[ModuleType, ...]:
    """The HTTP libraries the SDKs may run on, those installed: ``httpx2`` (newer SDKs),
    then ``httpx``."""
    found: list[ModuleType] = []
    for name in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            continue
    return tuple(found)


def http_errors(name: str) -> tuple[type[Exception], ...]:
    """The exception class ``name`` (``TransportError``, ``HTTPError``, ...) of every
    installed HTTP library, for the errors an SDK lets escape while a stream is read."""
    return tuple(getattr(library, name) for library in _http_libraries())


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The HTTP library's default TLS context, built once per process and shared by every
    SDK client (it honours ``SSL_CERT_FILE`` and ``SSL_CERT_DIR``, as the SDKs' own do)."""
    context: ssl.SSLContext = _http_libraries()[0].create_ssl_context()
    return context


# -- errors: pieces for each adapter's ``_translate`` --------------------------------------

API_MESSAGES: Final[Mapping[ProviderErrorKind, str]] = {
    "auth": "the API key was rejected or lacks permission",
    "rate_limit": "requests are being rate-limited",
    "overloaded": "the API is overloaded",
    "bad_request": "the API rejected the request as invalid",
    "server": "the API failed to answer",
    "bad_response": "the API answered with an error",
}
"""Safe messages by kind for a vendor's own API (Anthropic, OpenAI Responses)."""

OUTPUT_NAME: Final = "final_answer"
"""The name structured outputs give the final answer's schema (``Agent(output_type=...)``)."""

PROVIDER_MESSAGES: Final[Mapping[ProviderErrorKind, str]] = {
    "auth": "the provider refused the credentials",
    "rate_limit": "the provider's rate limit was reached",
    "overloaded": "the provider is overloaded",
    "bad_request": "the provider rejected the request",
    "server": "the provider failed with a server error",
    "bad_response": "the provider's response could not be read",
}
"""Safe messages by kind for Google and OpenAI-compatible servers."""

BILLING_IS_AUTH: Final = (401, 402, 403)
"""Statuses that are ``auth`` where 402 means billing, which only the key's owner can fix."""


def kind_for_status(status: int | None, *, auth: Collection[int] = (401, 403)) -> ProviderErrorKind:
    """The ``ProviderError.kind`` for an HTTP error status (None: no status to go by)."""
    if status is None:
        return "bad_response"
    if status in auth:
        return "auth"
    if status == 429:
        return "rate_limit"
    if status in (503, 529):
        return "overloaded"
    if 400 <= status < 500:
        return "bad_request"
    if status >= 500:
        return "server"
    return "bad_response"


def bad_response(provider: str, problem: str) -> ProviderError:
    """A ``bad_response`` error: the answer could not be read as the wire API's."""
    return ProviderError(provider=provider, status=None, kind="bad_response", safe_message=problem)


def connection_error(provider: str, message: str) -> ProviderConnectionError:
    """A ``connection`` error: the provider was not reached, or stopped answering."""
    return ProviderConnectionError(
        provider=provider, status=None, kind="connection", safe_message=message
    )


def credentials_error(provider: str, message: str) -> ProviderError:
    """An ``auth`` error found before any request is sent: no key, or credentials the SDK
    refuses."""
    return ProviderError(provider=provider, status=None, kind="auth", safe_message=message)


# -- reading responses ---------------------------------------------------------------------


def _not_json(constant: str) -> object:
    """``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (Python's parser takes them)."""
    msg = f"{constant} is not a JSON value"
    raise ValueError(msg)


def decode_json(content: bytes, provider: str) -> object:
    """A response body decoded; ``bad_response`` when it is not JSON."""
    try:
        return json.loads(content, parse_constant=_not_json)
    except (ValueError, RecursionError):
        raise bad_response(provider, "the response body is not JSON") from None


def json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed when it is a JSON object, else None."""
    try:
        value = json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def lenient_arguments(value: object) -> tuple[dict[str, Any] | None, str | None]:
    """(parsed object, raw text) of a call's arguments as lenient servers send them: missing
    or blank text is ``{}``; an object as is; text parsed; anything else unparseable."""
    if value is None:
        return {}, None
    if isinstance(value, dict):
        return value, None
    if not isinstance(value, str):
        return None, dumps(value)
    if not value.strip():
        return {}, value
    return json_object(value), value


def token_counts(data: object, names: Mapping[str, str]) -> dict[str, int]:
    """Our token counts (``names``: ours → the wire's) from ``data["usage"]``; integers only."""
    usage = data.get("usage") if isinstance(data, dict) else None
    if not isinstance(usage, dict):
        return {}
    return {ours: n for ours, theirs in names.items() if type(n := usage.get(theirs)) is int}


CACHE_READ: Final = "cache_read_input_tokens"
"""The usage kind of the input tokens read from a prompt cache (Anthropic's own name)."""


def count_at(data: object, *path: str) -> int | None:
    """The non-negative integer at ``path`` in nested objects, else None."""
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data if type(data) is int and data >= 0 else None


def split_cached(counts: dict[str, int], cached: int | None) -> dict[str, int]:
    """``counts`` with the ``cached`` input tokens taken out of ``input_tokens`` (wires that
    count them inside it: OpenAI, Google, llama.cpp) and reported as ``cache_read_input_tokens``,
    so no token is counted twice. Zero is reported too: the API said none were read from the
    cache. Without a reported ``input_tokens`` or a ``cached`` count, ``counts`` is unchanged;
    a ``cached`` count above the input (no real server sends one) is capped at the input."""
    total = counts.get("input_tokens")
    if total is None or cached is None:
        return counts
    read = min(cached, total)
    return {**counts, "input_tokens": total - read, CACHE_READ: read}


# -- call ids ------------------------------------------------------------------------------


class CallIds:
    """Wire ids for one request: ``wire`` applied (the API's own id rules), unique across the
    conversation (some servers reuse ``call_0`` every turn), and each result gets its own
    call's id. Deterministic, so the same transcript always yields the same request.

    A call's candidates are ``wire(id)``, then ``wire(id#1)``, ``wire(id#2)``, ...; it takes
    the first one not yet used. Used ids are only ever added, so every candidate an earlier
    namesake passed over is still taken: the search resumes where that namesake stopped, and
    a transcript that reuses one id for every call maps in linear time."""

    def __init__(self, wire: Callable[[str], str]) -> None:
        self._wire = wire
        self._used: set[str] = set()
        self._next: dict[str, int] = {}
        self._open: dict[str, collections.deque[str]] = {}

    def start_turn(self) -> None:
        """An assistant message begins: its calls are the ones the next results answer."""
        self._open = {}

    def for_call(self, call_id: str) -> str:
        """The wire id of a call (unique in this request)."""
        repeat = self._next.get(call_id, 0)
        wire = self._wire(f"{call_id}#{repeat}" if repeat else call_id)
        while wire in self._used:
            repeat += 1
            wire = self._wire(f"{call_id}#{repeat}")
        self._next[call_id] = repeat + 1
        self._used.add(wire)
        self._open.setdefault(call_id, collections.deque()).append(wire)
        return wire

    def for_result(self, call_id: str) -> str:
        """The wire id of the call this result answers (its first unanswered namesake)."""
        waiting = self._open.get(call_id)
        if waiting:
            return waiting.popleft()
        return self._wire(call_id)


class ResponseCallIds:
    """Call ids for the calls of one response: the server's when present and unique in it,
    else a ``generated_id`` stable for that response (some servers omit ids or repeat one)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def take(self, raw: object, seed: str) -> str:
        """The id of the response's next call, which the server sent as ``raw``."""
        index = len(self._seen)
        call_id = raw if isinstance(raw, str) and raw and raw not in self._seen else None
        if call_id is None:
            call_id = generated_id(seed, index)
        self._seen.add(call_id)
        return call_id
