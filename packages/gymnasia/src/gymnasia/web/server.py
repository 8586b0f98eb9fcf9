"""``gymnasia serve``: the web app over one Coach.

Pages: ``/`` (chat with streaming, conversations, tool trace, confirmations),
``/measurements`` (table and weight chart), ``/meals``, ``/routines``, ``/goals``, ``/notes``
(each record with Edit and Delete: ``_data_pages``, ``_data_api``) and ``/writes``; any other
address is a 404 page in the app's style. A language chosen with ``?lang=`` is remembered in a
cookie and draws the next pages. API::

    GET  /api/config                          provider, model, offline?, active faults
    GET  /api/conversations                   [{id, title, messages, pending}]
    GET  /api/conversations/{id}              the transcript from the journal
    POST /api/chat {message, conversation_id?}            → NDJSON turn stream
    POST /api/approvals/{conversation}/{approval} {approved}  → NDJSON turn stream (once)
    GET  /api/measurements?from=&to=          saved measurements, by date
    POST /api/measurements/{date}/edit {field: number | null, ..., new_date?}  → {measurement}
    POST /api/measurements/{date}/delete {}   → {deleted}
    POST /api/{meals,routines,notes,goals}/{edit,delete}  → see ``_data_api``

A turn streams as NDJSON, one event per line: ``start`` (the conversation id), ``text``
(a delta as it arrives), ``call`` (one call's record as it completes, ``render.call_json``),
``harness`` (the harness's own message), then ``done`` with ``render.turn_json`` — or
``error`` with a safe message if the server itself failed.

One process holds one database connection, one tool set and one model client
(``app.coach_parts``), and a Coach per signed-in account over them (its store, journal and
ledger); a second turn on a conversation waits for the first under that conversation's
``asyncio.Lock``, turns on different conversations run at once. Across processes (several
``serve`` workers, several hosts on one PostgreSQL) each turn also holds its conversation in
the database (``Agent.hold``): a turn on a conversation another process is running gets
``409 {"error": "busy"}`` and changes nothing.
Both are held by the task that runs the turn, so a client that disconnects never cuts a turn
short or leaves them held. Everything sent is passed through the Coach's redactor, so a
configured key cannot leave the process even by accident.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import hashlib
import json
import logging
import traceback
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AsyncExitStack, ExitStack, asynccontextmanager
from importlib.resources import files
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, assert_never

from fastapi import Body, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    TypeAdapter,
    ValidationError,
    field_validator,
)
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Scope

from surefoot import (
    Agent,
    CalendarDate,
    ConversationBusyError,
    Lang,
    Model,
    Redactor,
    StoreError,
    TurnEvent,
    TurnPendingError,
    TurnResult,
)
from surefoot.executor import CallRecord
from surefoot.journal import Lease
from surefoot.messages import (
    AssistantMessage,
    HarnessMessage,
    HarnessNote,
    Message,
    TextDelta,
    ToolCall,
    ToolResultsMessage,
    UserMessage,
)
from surefoot.sql import Deferral, deferred_flush
from surefoot.tracing import Tracer

from .. import render
from ..app import Coach, coach_parts, dbos_launched, open_coach
from ..checks import check_link
from ..i18n import day
from ..rules import MEASUREMENT_LIMITS
from ..store import MEASUREMENT_FIELDS, DateTaken
from ..texts import APP_NAME, number, t
from ..tools import BodyFat, Girth, Height, Weight
from ..words import action, call_words
from . import _data_api
from ._accounts import (
    FORM_PATHS,
    OPEN_PATHS,
    SESSION_SECONDS,
    Accounts,
    Limits,
    SignIn,
    account_badge,
    current_user,
)
from ._data_pages import (
    MEAL_DAYS,
    goals_page,
    meals_page,
    not_found_page,
    notes_page,
    routines_page,
)
from ._i18n import pick_lang, ui
from ._pages import PageContext, chat_page, measurements_page, token_page, writes_page
from ._security import MAX_BODY, Guard
from ._signin import health_routes, signin_routes

if TYPE_CHECKING:
    from surefoot.dbos import DurableAgent

logger = logging.getLogger("gymnasia.web")

ID_PATTERN: Final = r"^[A-Za-z0-9_.:\-]{1,128}$"
STATIC_TYPES: Final = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css"}
NDJSON: Final = "application/x-ndjson"
LANG_COOKIE: Final = "gymnasia_lang"
"""The language a person chose with the page's switch: the next page is drawn in it."""
_NO_STORE: Final = {"cache-control": "no-store"}
RETRY_AFTER: Final = 5
"""Seconds a person is asked to wait when the model or the database cannot answer."""

Event = dict[str, Any]
RunTurn = Callable[[Callable[[TurnEvent], Awaitable[None]], Lease], Awaitable[TurnResult]]


class ChatRequest(BaseModel):
    """``POST /api/chat``: the message, the conversation it continues, and the language of
    the page it was written on (the turn runs in it; by default the server's)."""

    model_config = ConfigDict(extra="forbid")

    message: str = Field(min_length=1, max_length=8000)
    conversation_id: str | None = Field(default=None, pattern=ID_PATTERN)
    lang: Lang | None = None

    @field_validator("message")
    @classmethod
    def _encodable(cls, value: str) -> str:
        """Text that can be stored and sent: no lone surrogate (``"\\ud800"`` in JSON)."""
        value.encode("utf-8")  # UnicodeEncodeError is a ValueError: a 422, not a 500
        return value


class ApprovalRequest(BaseModel):
    """``POST /api/approvals/{conversation_id}/{approval_id}``."""

    model_config = ConfigDict(extra="forbid")

    approved: StrictBool
    lang: Lang | None = None


ConversationId = Annotated[str, Path(pattern=ID_PATTERN)]


class MeasurementEdit(BaseModel):
    """``POST /api/measurements/{date}/edit``: a field given a number replaces its value, a
    field given null is emptied, a field left out keeps its value; ``new_date`` moves the
    record. The ranges are the tools'."""

    model_config = ConfigDict(extra="forbid", strict=True)

    weight_kg: Weight | None = None
    body_fat_pct: BodyFat | None = None
    neck_cm: Girth | None = None
    chest_cm: Girth | None = None
    waist_cm: Girth | None = None
    hips_cm: Girth | None = None
    biceps_cm: Girth | None = None
    quadriceps_cm: Girth | None = None
    calf_cm: Girth | None = None
    height_cm: Height | None = None
    new_date: CalendarDate | None = None

    def changes(self) -> tuple[dict[str, float], list[str]]:
        """``(values to set, fields to empty)``."""
        given: list[str] = [n for n in MEASUREMENT_FIELDS if n in self.model_fields_set]
        values = {n: getattr(self, n) for n in given if getattr(self, n) is not None}
        return values, [n for n in given if getattr(self, n) is None]


class DeleteRequest(BaseModel):
    """``POST /api/measurements/{date}/delete``: nothing but the date in the path."""

    model_config = ConfigDict(extra="forbid")


def create_app(
    *,
    db: str,
    lang: Lang = "es",
    faults: tuple[str, ...] = (),
    model: Model | None = None,
    access_token: str | None = None,
    today: dt.date | None = None,
    secrets: tuple[str, ...] = (),
    user: str = "default",
    allowed_hosts: Sequence[str] | None = None,
    tracer: Tracer | None = None,
    session_seconds: float = SESSION_SECONDS,
    signin_limits: Limits | None = None,
    engine: Literal["journal", "dbos"] = "journal",
) -> FastAPI:
    """The web app over a Coach opened on ``db`` (the offline model unless ``model``).

    Raises what ``open_coach`` raises (``FaultSpecError``, ``StoreError``) before anything is
    served. Without ``access_token`` the app answers only to loopback host names (or to
    ``allowed_hosts``); with one, every route requires it. ``tracer`` observes the Coach's
    turns (``open_coach``). When ``db`` has accounts, every route but sign-in asks for one
    and serves that account's data (``_accounts``); sessions last ``session_seconds``.
    ``engine="dbos"`` runs its turns as DBOS workflows in ``db`` (a
    PostgreSQL database), DBOS launched with the app.
    """

    # built once: every account's Coach shares the tools, their schemas and the model
    parts = coach_parts(
        model=model,
        faults=faults,
        today=today,
        stream=True,
        extra_secrets=(*secrets, access_token or ""),
        surface="web",
        tracer=tracer,
    )
    coach = open_coach(db=db, lang=lang, user=user, parts=parts)
    try:
        accounts = Accounts(
            coach,
            lambda name: parts.coach(coach.db, user=name, lang=lang),
            session_seconds=session_seconds,
            limits=signin_limits,
        )
        web = _Web(coach, lang, accounts, today)
    except BaseException:
        coach.close()
        raise

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as engine_stack:
            # a provider's client, and its connections, kept for the server's life
            connections = getattr(model, "connections", None)
            if connections is not None:
                await engine_stack.enter_async_context(connections())
            if engine == "dbos":
                web.durable = engine_stack.enter_context(dbos_launched(coach, db))
            try:
                yield
            finally:
                await web.drain()
                coach.close()

    app = FastAPI(
        title=f"{APP_NAME} Coach",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    app.state.coach = coach
    app.state.accounts = accounts
    _pages(app, web)
    _api(app, web)
    _errors(app, web)
    health_routes(app, accounts, lang)
    if accounts.enabled:
        signin_routes(app, accounts, lang)
        app.add_middleware(SignIn, accounts=accounts, lang=lang)
    app.add_middleware(
        Guard,
        access_token=access_token or None,
        token_page=web.token_page,
        allowed_hosts=allowed_hosts,
        too_large=web.too_large,
        form_paths=FORM_PATHS if accounts.enabled else frozenset(),
        open_paths=OPEN_PATHS,
        signed_in=accounts.enabled,
    )
    return app


class _Web:
    """The request's Coach, the conversations' locks, and how things are shown and sent."""

    def __init__(
        self, coach: Coach, lang: Lang, accounts: Accounts, today: dt.date | None = None
    ) -> None:
        self.primary = coach
        self.accounts = accounts
        self.lang: Lang = lang
        self.fixed_today = today
        self.locks = _ConversationLocks()
        self.tasks: set[asyncio.Task[None]] = set()
        self.redact = Redactor(coach.secrets)
        self.static = {name: _static(name) for name in STATIC_TYPES}
        digest = hashlib.sha256(b"".join(self.static.values())).hexdigest()
        self.asset_version = digest[:12]
        self.durable: DurableAgent | None = None  # turns on DBOS: its workflows hold the chat

    @property
    def coach(self) -> Coach:
        """The Coach of the request's user (``Accounts.coach``): routes read and write
        through it, never through one chosen when the app was built."""
        return self.accounts.coach()

    # -- showing ---------------------------------------------------------------------------

    def today(self) -> dt.date:
        """The person's today: the server's ``--today``, else the clock's."""
        return self.fixed_today or dt.date.today()  # noqa: DTZ011 - a calendar date

    def lang_of(self, request: Request) -> Lang:
        """The page's language: ``?lang=``, else the one the person chose before (a cookie),
        else the server's."""
        chosen = pick_lang(request.cookies.get(LANG_COOKIE), self.lang)
        return pick_lang(request.query_params.get("lang"), chosen)

    def page(self, request: Request, page: str, status: int = 200) -> HTMLResponse:
        """A page; a language chosen with ``?lang=`` is remembered for the next ones."""
        response = self.html(page, status)
        given = request.query_params.get("lang")
        if given is not None and pick_lang(given, self.lang) == given:
            response.set_cookie(
                LANG_COOKIE, given, max_age=365 * 24 * 3600, samesite="lax", httponly=True
            )
        return response

    def context(self, request: Request) -> PageContext:
        return PageContext(
            lang=self.lang_of(request),
            path=request.url.path,
            provider=self.coach.provider,
            model_name=self.coach.model_name,
            faults=self.coach.faults.describe() if self.coach.faults else "",
            asset_version=self.asset_version,
            account=account_badge(self.lang_of(request), current_user()),
        )

    def html(self, page: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(self.redact(page), status_code=status, headers=_NO_STORE)

    def json(self, value: Any, status: int = 200, *, retry_after: int | None = None) -> Response:
        body = self.redact(json.dumps(value, ensure_ascii=False))
        headers = dict(_NO_STORE)
        if retry_after is not None:
            headers["retry-after"] = str(retry_after)
        return Response(body, status_code=status, media_type="application/json", headers=headers)

    def too_large(self, scope: Scope) -> str:
        return ui(self.lang_of(Request(scope)), "too_large").format(limit=MAX_BODY // 1024)

    def request_lang(self, request: Request, body: object = None) -> Lang:
        """The language of a request: its ``lang`` in the query, else in its JSON body, else
        the person's chosen one."""
        given = request.query_params.get("lang")
        if given is None and isinstance(body, dict) and isinstance(body.get("lang"), str):
            given = body["lang"]
        return pick_lang(given, self.lang_of(request))

    def store_failure(self, exc: StoreError, lang: Lang) -> Event:
        """A database that cannot be used, as the page shows it (the address without its
        password)."""
        key = "no_database" if exc.kind == "not_found" else f"store_{exc.kind}"
        url = exc.url or self.coach.db.url
        return {"error": f"store_{exc.kind}", "message": t(lang, key, url=url, path=url)}

    def token_page(self, scope: Scope) -> str:
        request = Request(scope)
        return self.redact(token_page(self.lang_of(request), request.url.path))

    # -- turns -----------------------------------------------------------------------------

    async def locked_turn(
        self,
        conversation_id: str,
        refusal: Callable[[], Response | None],
        run: RunTurn,
        lang: Lang,
    ) -> Response:
        """Under the conversation's lock and holding it: ``refusal()`` may answer instead;
        else stream ``run`` (a turn in ``lang``). A conversation another process holds is
        ``409 busy``."""
        key = (current_user() or "", conversation_id)
        release = await self.locks.acquire(key)
        held = ExitStack()
        held.callback(release)
        started = False
        # the hold's commit need not wait for the disk: the turn's task ends its scope (a
        # refusal gives the hold back, and that waits)
        commits = Deferral()
        try:
            try:
                with deferred_flush(commits, flush=False):
                    lease = held.enter_context(self.coach.agent.hold(conversation_id))
            except ConversationBusyError:
                return self.json({"error": "busy", "message": ui(lang, "busy")}, 409)
            refused = refusal()
            if refused is not None:
                return refused
            if self.durable is not None:
                held.close()  # on DBOS each step of the workflow holds the conversation itself
            response = await self.stream(conversation_id, run, lease, held, lang, commits)
            started = True
            return response
        finally:
            if not started:
                held.close()

    async def stream(
        self,
        conversation_id: str,
        run: RunTurn,
        lease: Lease,
        held: ExitStack,
        lang: Lang,
        commits: Deferral,
    ) -> Response:
        """Run a turn in its own task (which releases the lock and the conversation, and ends
        the ``commits`` scope the hold was taken in) and stream its events, from the first
        one after ``start``. A turn that fails before anything happened (the model did not
        answer, the database failed) is not streamed: it is ``503`` with ``Retry-After`` and
        the message in ``lang`` (``_unavailable``)."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        turn = self._turn(conversation_id, run, lease, held, queue, lang, commits)
        task = asyncio.create_task(turn)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        head: list[Event] = []
        while (item := await queue.get()) is not None:
            head.append(item)
            if item["type"] != "start":
                break
        refused = await _unavailable(head, queue)
        if refused is not None:
            status, body = refused
            return self.json(body, status, retry_after=RETRY_AFTER if status == 503 else None)
        return StreamingResponse(
            self._lines(queue, head, ended=item is None),
            media_type=NDJSON,
            headers={**_NO_STORE, "x-accel-buffering": "no"},
        )

    async def _turn(
        self,
        conversation_id: str,
        run: RunTurn,
        lease: Lease,
        held: ExitStack,
        queue: asyncio.Queue[Event | None],
        lang: Lang,
        commits: Deferral,
    ) -> None:
        calls: list[Event] = []

        async def on_event(event: TurnEvent) -> None:
            item = event_json(event)
            if item["type"] == "call":
                calls.append(item["call"])
            elif item["type"] == "harness" and (link := check_link(calls, lang)) is not None:
                item["check"] = link
            queue.put_nowait(item)

        ending: Event | None = None
        try:
            # the turn's journal commits (and the hold's) need not wait for the disk: giving
            # the hold back waits, and so does this scope's end, before the person is told
            # how the turn ended
            with deferred_flush(commits):
                try:
                    queue.put_nowait({"type": "start", "conversation_id": conversation_id})
                    ending = await self._ending(conversation_id, run, lease, on_event, lang)
                finally:
                    try:
                        held.close()
                    # a release the database was away or locked for is retried in the
                    # background (surefoot's hold); one it refused otherwise lapses with the
                    # lease
                    except StoreError:
                        logger.warning("could not release %s: %s", conversation_id, self._trace())
        except StoreError:  # the scope's last wait: the turn's outcome is still what it was
            logger.warning("turn of %s not flushed: %s", conversation_id, self._trace())
        finally:
            if ending is not None:
                queue.put_nowait(ending)
            queue.put_nowait(None)

    async def _ending(
        self,
        conversation_id: str,
        run: RunTurn,
        lease: Lease,
        on_event: Callable[[TurnEvent], Awaitable[None]],
        lang: Lang,
    ) -> Event:
        """Run the turn: its last event, ``done`` or ``error`` (with a safe message)."""
        try:
            result = await run(on_event, lease)
            turn = render.turn_json(
                result, provider=self.coach.provider, model=self.coach.model_name
            )
            if result.pending_confirmation is not None:
                turn["pending_confirmation"] = self.pending(conversation_id, lang)
        except ConversationBusyError as exc:  # its hold was lost mid-turn: say what it did
            done = self.coach.agent_for(lang).replies.what_was_done(exc.calls)
            message = ui(lang, "busy")
            if exc.writes and done:
                message = "\n".join(
                    [t(lang, "busy_interrupted", conversation=conversation_id), *done]
                )
            return {"type": "error", "error": "busy", "message": message, "done": done}
        except StoreError as exc:
            logger.error("turn failed in %s: %s", conversation_id, self._trace())
            return {"type": "error", **self.store_failure(exc, lang)}
        except Exception:  # noqa: BLE001 - any failure ends the stream with a safe message
            logger.error("turn failed in %s: %s", conversation_id, self._trace())
            return {"type": "error", "message": ui(lang, "server_error")}
        return {"type": "done", "turn": turn}

    def _trace(self) -> str:
        return self.redact(traceback.format_exc())

    async def _lines(
        self, queue: asyncio.Queue[Event | None], head: list[Event], *, ended: bool
    ) -> AsyncIterator[bytes]:
        """The events as NDJSON lines; those that are already waiting when the stream is
        ready for more go together, in one write (nothing waits to be grouped)."""
        lines = [self._line(item) for item in head]
        while True:
            while not ended and not queue.empty():
                more = queue.get_nowait()
                if more is None:
                    ended = True
                else:
                    lines.append(self._line(more))
            if lines:
                yield b"".join(lines)
                lines = []
            if ended:
                return
            more = await queue.get()
            if more is None:
                return
            lines.append(self._line(more))

    def _line(self, item: Event) -> bytes:
        return (self.redact(json.dumps(item, ensure_ascii=False)) + "\n").encode()

    async def drain(self) -> None:
        """Let running turns finish (bounded) before the database closes."""
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=60)

    # -- the journal -----------------------------------------------------------------------

    def conversations(self, limit: int = 100) -> list[dict[str, Any]]:
        agent = self.coach.agent
        out = []
        listed = agent.conversations()[:limit]
        for cid, messages in agent.journal.load_many(listed).items():
            first = next((m.text for m in messages if isinstance(m, UserMessage)), "")
            # only a turn that ended on calls without results can wait for a decision: the
            # others need no second read of their journal
            last = messages[-1] if messages else None
            waits = isinstance(last, AssistantMessage) and bool(last.tool_calls)
            out.append(
                {
                    "id": cid,
                    "title": first[:90],
                    "messages": sum(isinstance(m, UserMessage) for m in messages),
                    "pending": waits and agent.pending_confirmation(cid) is not None,
                }
            )
        return out

    def pending(self, conversation_id: str, lang: Lang | None = None) -> dict[str, Any] | None:
        """The call waiting for a decision, as ``--json`` shows it and in words (``action``,
        ``summary``, and the tool's own ``question`` when it asks one), or None."""
        shown = lang or self.lang
        agent = self.coach.agent_for(shown)  # the tool's question, in the page's language
        pending = agent.pending_confirmation(conversation_id)
        if pending is None:
            return None
        return {
            "id": pending.id,
            "tool": pending.tool,
            "arguments": pending.arguments,
            "action": action(pending.tool, shown),
            "summary": call_words(agent.tools, pending.tool, pending.arguments, shown),
            "question": pending.question,
        }

    def chat_refusal(self, conversation_id: str, lang: Lang) -> Response | None:
        """Why a new message cannot start a turn now (a decision to make first), or None."""
        pending = self.pending(conversation_id, lang)
        if pending is not None:
            return self.json({"error": "pending_confirmation", "pending": pending}, 409)
        return None

    def decide(
        self, conversation_id: str, approval: str, *, approved: bool, lang: Lang
    ) -> Response | None:
        """Record the decision on the waiting call; a refusal (404 / 409, with a message in
        ``lang``) if there is none."""
        agent = self.coach.agent
        if agent.decide(conversation_id, approval, approved=approved):
            return None
        recorded = agent.approval(conversation_id, approval)
        if recorded is None:
            message = ui(lang, "no_such_confirmation")
            return self.json({"error": "no_such_confirmation", "message": message}, 404)
        if recorded.approved is not None and agent.unfinished(conversation_id):
            return None  # decided, then interrupted before it ran: finish the turn as decided
        message = ui(lang, "already_decided")
        return self.json(
            {"error": "already_decided", "approved": recorded.approved, "message": message}, 409
        )


class _ConversationLocks:
    """One ``asyncio.Lock`` per conversation in use: a second turn on a conversation in this
    process waits for the first; turns on different conversations run at once."""

    def __init__(self) -> None:
        self._locks: dict[tuple[str, str], tuple[asyncio.Lock, int]] = {}

    async def acquire(self, key: tuple[str, str]) -> Callable[[], None]:
        """Take ``key``'s lock; returns what releases it."""
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            await lock.acquire()
        except BaseException:
            self._drop(key)
            raise

        def release() -> None:
            lock.release()
            self._drop(key)

        return release

    def _drop(self, key: tuple[str, str]) -> None:
        lock, users = self._locks[key]
        if users == 1:
            del self._locks[key]
        else:
            self._locks[key] = (lock, users - 1)


async def _unavailable(
    head: list[Event], queue: asyncio.Queue[Event | None]
) -> tuple[int, Event] | None:
    """``(status, body)`` for a turn whose first event says it could not run, or None: 503
    when the model did not answer or the database failed, 500 when the server did. A turn
    the model failed is finished first (its stop is in the journal) and the body carries it."""
    first = head[-1] if head else None
    if first is None:
        return None
    if first["type"] == "error" and first.get("error") != "busy":
        code = str(first.get("error", "server_error"))
        status = 503 if code.startswith("store_") else 500
        return status, {"error": code, "message": first["message"]}
    if first["type"] == "harness" and first.get("reason") == "provider_error":
        rest = []
        while (item := await queue.get()) is not None:
            rest.append(item)
        done = next((e["turn"] for e in rest if e["type"] == "done"), None)
        conversation = head[0].get("conversation_id")
        return 503, {
            "error": "model_unavailable",
            "message": first["text"],
            "conversation_id": conversation,
            "turn": done,
        }
    return None


def event_json(event: TurnEvent) -> Event:
    """One streamed event."""
    match event:
        case TextDelta():
            return {"type": "text", "text": event.text}
        case CallRecord():
            return {"type": "call", "call": render.call_json(event)}
        case HarnessMessage():
            return {"type": "harness", "text": event.text, "reason": event.reason}
        case _:
            assert_never(event)


def transcript_json(messages: Sequence[Message], lang: Lang = "es") -> list[Event]:
    """A journaled conversation as the chat shows it: user, assistant, call, harness items (a
    stop over an unconfirmed write links the page that shows it)."""
    items: list[Event] = []
    turn_calls: list[Event] = []
    for item in _transcript(messages):
        if item["type"] == "user":
            turn_calls = []
        elif item["type"] == "call":
            turn_calls.append(item["call"])
        elif item["type"] == "harness" and (link := check_link(turn_calls, lang)) is not None:
            item["check"] = link
        items.append(item)
    return items


def _transcript(messages: Sequence[Message]) -> Iterator[Event]:
    calls: dict[str, ToolCall] = {}
    for message in messages:
        match message:
            case UserMessage():
                yield {"type": "user", "text": message.text}
            case AssistantMessage():
                calls.update({c.call_id: c for c in message.tool_calls})
                if message.text:
                    yield {"type": "assistant", "text": message.text}
            case ToolResultsMessage():
                for r in message.results:
                    call = calls.get(r.call_id) or ToolCall(r.call_id, r.name, None)
                    record = CallRecord(call, r.outcome, executed=r.executed)
                    yield {"type": "call", "call": render.call_json(record)}
            case HarnessMessage():
                yield {"type": "harness", "text": message.text, "reason": message.reason}
            case HarnessNote():
                pass  # the harness's words to the model: the person never sees them
            case _:
                assert_never(message)


def _static(name: str) -> bytes:
    return files("gymnasia.web").joinpath("static", name).read_bytes()


def _new_conversation_id() -> str:
    return "c_" + uuid.uuid4().hex[:20]


# -- routes ----------------------------------------------------------------------------------


def _pages(app: FastAPI, web: _Web) -> None:
    @app.get("/", response_class=HTMLResponse)
    async def chat(request: Request) -> HTMLResponse:
        return web.page(request, chat_page(web.context(request)))

    @app.get("/measurements", response_class=HTMLResponse)
    async def measurements(request: Request) -> HTMLResponse:
        store = web.coach.store
        rows = store.list_measurements()
        return web.page(request, measurements_page(web.context(request), rows))

    @app.get("/writes", response_class=HTMLResponse)
    async def writes(request: Request) -> HTMLResponse:
        entries = web.coach.agent.writes()
        page = writes_page(web.context(request), entries, web.coach.agent.tools)
        return web.page(request, page)

    @app.get("/meals", response_class=HTMLResponse)
    async def meals(request: Request) -> HTMLResponse:
        store = web.coach.store
        dates = sorted({row["date"] for row in store.meal_log()}, reverse=True)[:MEAL_DAYS]
        days = [(d, store.meal_entries(d)) for d in map(dt.date.fromisoformat, dates)]
        return web.page(request, meals_page(web.context(request), days))

    @app.get("/routines", response_class=HTMLResponse)
    async def routines(request: Request) -> HTMLResponse:
        store = web.coach.store
        return web.page(request, routines_page(web.context(request), store.routines()))

    @app.get("/notes", response_class=HTMLResponse)
    async def notes(request: Request) -> HTMLResponse:
        store = web.coach.store
        found = (store.read_memory(key) for key in store.memory_keys())
        rows = [note for note in found if note is not None]
        return web.page(request, notes_page(web.context(request), rows))

    @app.get("/goals", response_class=HTMLResponse)
    async def goals(request: Request) -> HTMLResponse:
        store = web.coach.store
        latest = {
            name: (row["date"], float(row[name]))
            for row in store.list_measurements()
            for name in MEASUREMENT_FIELDS
            if row[name] is not None
        }
        return web.page(request, goals_page(web.context(request), store.goals(), latest))

    @app.get("/static/{name}")
    async def static(request: Request, name: str) -> Response:
        body = web.static.get(name)
        if body is None:
            return web.json(
                {"error": "not_found", "message": ui(web.lang_of(request), "not_found_api")}, 404
            )
        return Response(body, media_type=STATIC_TYPES[name], headers={"cache-control": "no-cache"})


def _errors(app: FastAPI, web: _Web) -> None:
    """Requests that cannot be served: one JSON error in the request's language, never
    pydantic's English, never the input echoed back."""

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        lang = web.request_lang(request, exc.body)
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return web.json({"error": "invalid_json", "message": ui(lang, "invalid_json")}, 400)
        fields = sorted({_field_name(e.get("loc", ())) for e in errors})
        message = ui(lang, "invalid_request").format(fields=", ".join(fields))
        return web.json({"error": "invalid_request", "message": message, "fields": fields}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """An address the app does not have: a page in its style for a person, JSON under
        /api and /static; a method an address does not take (405)."""
        lang = web.lang_of(request)
        path = request.url.path
        if exc.status_code == 404 and not path.startswith(("/api/", "/static/")):
            return web.page(request, not_found_page(web.context(request)), 404)
        error = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid")
        key = {404: "not_found_api", 405: "method_not_allowed"}.get(exc.status_code)
        message = ui(lang, key) if key else ui(lang, "invalid_request").format(fields="?")
        response = web.json({"error": error, "message": message}, exc.status_code)
        response.headers.update(exc.headers or {})
        return response

    @app.exception_handler(StoreError)
    async def store_failed(request: Request, exc: StoreError) -> Response:
        logger.error("request failed: %s", web.redact(traceback.format_exc()))
        lang = web.request_lang(request, await _json_body(request))
        response = web.json(web.store_failure(exc, lang), 503)
        if exc.kind in ("locked", "unavailable"):
            response.headers["retry-after"] = str(RETRY_AFTER)
        return response


async def _json_body(request: Request) -> object:
    """The request's JSON body as the route read it (None if it has none, or not JSON)."""
    if request.method in ("GET", "HEAD"):
        return None
    try:
        return json.loads(await request.body())
    except (ValueError, RuntimeError):
        return None


_KNOWN_FIELDS: Final = frozenset(
    {*ChatRequest.model_fields, *ApprovalRequest.model_fields, "from", "to", "body"}
)


def _field_name(loc: Sequence[object]) -> str:
    """A request field as the error names it: ours by name, anything else as ``?``."""
    named = [str(part) for part in loc[1:] if isinstance(part, str)]
    if not named:
        return "body"  # the body as a whole (not an object, say)
    return ".".join(named) if all(p in _KNOWN_FIELDS for p in named) else "?"


def _api(app: FastAPI, web: _Web) -> None:
    _read_api(app, web)
    _measurement_api(app, web)
    api = _data_api.DataApi(lambda: web.coach.store, web.json, web.lang_of, web.today)
    _data_api.register(app, api)
    _turn_api(app, web)


def _read_api(app: FastAPI, web: _Web) -> None:
    @app.get("/api/config")
    async def config() -> Response:
        faults = web.coach.faults
        return web.json(
            {
                "app": f"{APP_NAME} Coach",
                "lang": web.lang,
                "provider": web.coach.provider,
                "model": web.coach.model_name,
                "offline": web.coach.provider == "offline",
                "faults": [f"{tool}:{mode}" for tool, mode in sorted(faults.modes.items())],
            }
        )

    @app.get("/api/conversations")
    async def conversations() -> Response:
        return web.json({"conversations": web.conversations()})

    @app.get("/api/conversations/{conversation_id}")
    async def conversation(request: Request, conversation_id: ConversationId) -> Response:
        messages = web.coach.agent.transcript(conversation_id)
        if not messages:
            message = ui(web.lang_of(request), "conversation_gone")
            return web.json({"error": "not_found", "message": message}, 404)
        return web.json(
            {
                "conversation_id": conversation_id,
                "items": transcript_json(messages, web.lang_of(request)),
                "pending_confirmation": web.pending(conversation_id, web.lang_of(request)),
            }
        )

    @app.get("/api/measurements")
    async def measurements(
        date_from: Annotated[CalendarDate | None, Query(alias="from")] = None,
        date_to: Annotated[CalendarDate | None, Query(alias="to")] = None,
    ) -> Response:
        rows = web.coach.store.list_measurements(date_from, date_to)
        return web.json({"measurements": rows})


def _measurement_api(app: FastAPI, web: _Web) -> None:
    """Edit and delete one measurement (the measurements page's buttons)."""

    @app.post("/api/measurements/{date}/edit")
    async def edit_measurement(
        request: Request, date: str, raw: Annotated[dict[str, Any], Body()]
    ) -> Response:
        lang = web.lang_of(request)
        chosen = _calendar_date(date)
        if chosen is None:
            return web.json({"error": "invalid_date", "message": ui(lang, "bad_date")}, 422)
        try:
            body = MeasurementEdit.model_validate(raw)
        except ValidationError as exc:
            return web.json(_invalid(exc, lang), 422)
        values, emptied = body.changes()
        store = web.coach.store
        try:
            with store.transaction() as tx:
                current = store.read_measurement(chosen, tx=tx)
                if current is None:
                    message = ui(lang, "measurement_gone")
                    return web.json({"error": "not_found", "message": message}, 404)
                kept = [n for n in MEASUREMENT_FIELDS if current[n] is not None]
                if not values and not set(kept) - set(emptied):
                    message = ui(lang, "measurement_empty")
                    return web.json({"error": "empty", "message": message}, 422)
                saved = store.update_measurement(
                    tx, chosen, values, clear=emptied, new_date=body.new_date
                )
        except DateTaken as taken:
            message = ui(lang, "measurement_date_taken").format(date=day(taken.date, lang))
            return web.json({"error": "conflict", "message": message}, 409)
        return web.json({"measurement": saved})

    @app.post("/api/measurements/{date}/delete")
    async def delete_measurement(request: Request, date: str, body: DeleteRequest) -> Response:
        del body
        lang = web.lang_of(request)
        chosen = _calendar_date(date)
        if chosen is None:
            return web.json({"error": "invalid_date", "message": ui(lang, "bad_date")}, 422)
        store = web.coach.store
        with store.transaction() as tx:
            removed = store.delete_measurement(tx, chosen)
        if removed is None:
            return web.json({"error": "not_found", "message": ui(lang, "measurement_gone")}, 404)
        return web.json({"deleted": removed})


def _invalid(exc: ValidationError, lang: Lang) -> dict[str, Any]:
    """The first problem of an edit, in ``lang``: which field, and what it takes."""
    loc = exc.errors()[0].get("loc", ())
    field = str(loc[0]) if loc else ""
    if field in MEASUREMENT_LIMITS:
        low, high = MEASUREMENT_LIMITS[field]
        text = ui(lang, "field_invalid").format(
            field=ui(lang, field), low=number(low, lang), high=number(high, lang)
        )
    elif field == "new_date":
        text = ui(lang, "bad_date")
    else:
        text = ui(lang, "field_unknown").format(field=field or "?")
    return {"error": "invalid", "field": field, "message": text}


_DATE: Final[TypeAdapter[dt.date]] = TypeAdapter(CalendarDate)


def _calendar_date(value: str) -> dt.date | None:
    """``value`` as the tools read a date (exactly YYYY-MM-DD, a real day), or None."""
    try:
        return _DATE.validate_python(value)
    except ValidationError:
        return None


def _turn_api(app: FastAPI, web: _Web) -> None:
    @app.post("/api/chat")
    async def chat(body: ChatRequest) -> Response:
        cid = body.conversation_id or _new_conversation_id()
        lang = body.lang or web.lang
        agent = web.coach.agent_for(lang)
        run: RunTurn = functools.partial(_chat_turn, agent, body.message, cid)
        if web.durable is not None:
            run = functools.partial(_dbos_chat, web.durable, body.message, cid)
        return await web.locked_turn(cid, lambda: web.chat_refusal(cid, lang), run, lang)

    @app.post("/api/approvals/{conversation_id}/{approval_id}")
    async def approval(
        conversation_id: ConversationId, approval_id: ConversationId, body: ApprovalRequest
    ) -> Response:
        lang = body.lang or web.lang
        agent = web.coach.agent_for(lang)
        durable = web.durable
        run: RunTurn = (
            functools.partial(_dbos_decided, durable, conversation_id, approval_id, body.approved)
            if durable is not None
            else lambda on_event, lease: agent.resume(
                conversation_id, on_event=on_event, lease=lease
            )
        )
        return await web.locked_turn(
            conversation_id,
            lambda: web.decide(conversation_id, approval_id, approved=body.approved, lang=lang),
            run,
            lang,
        )


async def _dbos_chat(
    durable: DurableAgent,
    message: str,
    conversation_id: str,
    on_event: Callable[[TurnEvent], Awaitable[None]],
    _lease: Lease,
) -> TurnResult:
    """A new message as a DBOS workflow, its steps' events streamed as they run here."""
    return await durable.run_turn(message, conversation_id=conversation_id, on_event=on_event)


async def _dbos_decided(
    durable: DurableAgent,
    conversation_id: str,
    approval: str,
    approved: bool,
    on_event: Callable[[TurnEvent], Awaitable[None]],
    _lease: Lease,
) -> TurnResult:
    """A decision (recorded) sent to the workflow that waits for it; a turn that ran on the
    journal is finished there."""
    if await durable.pending(conversation_id):
        return await durable.deliver(
            conversation_id, approval, approved=approved, on_event=on_event
        )
    return await durable.agent.resume(conversation_id, on_event=on_event)


async def _chat_turn(
    agent: Agent,
    message: str,
    conversation_id: str,
    on_event: Callable[[TurnEvent], Awaitable[None]],
    lease: Lease,
) -> TurnResult:
    """A new message. A turn interrupted before its calls got results is finished first (the
    new turn refuses to start before it appends anything or asks the model; a dead writer's
    unsettled writes it may have settled by then, as the resume would); if that turn now
    waits for a decision, its result is the answer and the message waits."""
    try:
        return await agent.run_turn(
            message, conversation_id=conversation_id, on_event=on_event, lease=lease
        )
    except TurnPendingError:
        finished = await agent.resume(conversation_id, on_event=on_event, lease=lease)
        if finished.pending_confirmation is not None:
            return finished
    return await agent.run_turn(
        message, conversation_id=conversation_id, on_event=on_event, lease=lease
    )
