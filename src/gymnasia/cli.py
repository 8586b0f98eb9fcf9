"""The ``gymnasia`` command line (DESIGN §7, §10).

Usage errors (bad date, missing database, invalid fault, unknown provider) end with one
localized line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import json
import os
import sys
from typing import Annotated, Any, NoReturn, cast, get_args

import typer
from rich.console import Console

from surefoot import (
    LANGS,
    CallRecord,
    Lang,
    Model,
    StoreError,
    TextDelta,
    TurnEvent,
    TurnResult,
    open_database,
)

from . import catalog, meals, render
from .app import (
    DEFAULT_MODELS,
    KEY_VARIABLES,
    PROVIDER_CHOICES,
    Coach,
    api_key_for,
    default_db_path,
    open_coach,
)
from .diet import meal_json, totals
from .faults import FaultSpecError
from .store import MEASUREMENT_FIELDS, GymStore
from .texts import number, t
from .training import routine_json

app = typer.Typer(
    name="gymnasia",
    help="Gymnasia Coach: a fitness coach over your own data, built on the surefoot harness.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
measurements_app = typer.Typer(help="Read and seed body measurements without the agent.")
approvals_app = typer.Typer(help="Confirm or refuse actions waiting for a person.")
app.add_typer(measurements_app, name="measurements")
app.add_typer(approvals_app, name="approvals")

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


class UsageProblem(Exception):  # noqa: N818 - a user mistake, reported as one line
    """A user mistake: one line on stderr, exit 2."""


DbOpt = Annotated[
    str | None,
    typer.Option("--db", help="SQLite file, sqlite:///path, or postgresql://... URL."),
]
LangOpt = Annotated[
    str, typer.Option("--lang", envvar="GYMNASIA_LANG", help="Language: es, pt or en.")
]
UserOpt = Annotated[str, typer.Option("--user", help="Whose data (one database, many users).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def _lang(value: str) -> Lang:
    for lang in LANGS:
        if value == lang:
            return lang
    msg = f"--lang must be one of {', '.join(LANGS)}"
    raise UsageProblem(msg)


def _db_target(db: str | None) -> str:
    return db or os.environ.get("GYMNASIA_DB") or str(default_db_path())


def _existing_store(db: str | None, lang: Lang, user: str) -> GymStore:
    target = _db_target(db)
    try:
        return GymStore(open_database(target, create=False), user=user)
    except StoreError:
        raise UsageProblem(t(lang, "no_database", path=target)) from None


def _date(value: str, lang: Lang) -> dt.date:
    if len(value) == 10:
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise UsageProblem(t(lang, "bad_date", value=value))


def _today(value: str | None, lang: Lang) -> dt.date | None:
    value = value or os.environ.get("GYMNASIA_TODAY")
    return _date(value, lang) if value else None


# -- the agent ---------------------------------------------------------------------------------


def _model(
    provider: str, model: str | None, base_url: str | None, api_key: str | None, timeout: float
) -> Model | None:
    if provider == "offline":
        return None
    if provider not in PROVIDER_CHOICES:
        msg = f"unknown provider {provider!r}; use one of {', '.join(PROVIDER_CHOICES)}"
        raise UsageProblem(msg)
    key = api_key_for(provider, api_key)
    if key is None and provider != "openai-chat":
        names = " / ".join(KEY_VARIABLES[provider])
        msg = f"no API key for {provider}: set {names} or pass --api-key"
        raise UsageProblem(msg)
    from surefoot.providers import make_model

    return make_model(
        provider,  # type: ignore[arg-type]
        model or DEFAULT_MODELS[provider],
        api_key=key or "not-needed",
        base_url=base_url,
        timeout=timeout,
    )


def _coach(
    *,
    db: str | None,
    provider: str,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    lang: Lang,
    user: str,
    faults: list[str] | None,
    today: str | None,
    timeout: float,
    stream: bool,
    github_api_url: str | None = None,
) -> Coach:
    chosen = _model(provider, model, base_url, api_key, timeout)
    try:
        coach = open_coach(
            db=_db_target(db),
            model=chosen,
            lang=lang,
            user=user,
            faults=tuple(faults or ()),
            today=_today(today, lang),
            stream=stream,
            extra_secrets=(api_key or "",),
            github_api_url=github_api_url,
        )
    except FaultSpecError as exc:
        raise UsageProblem(t(lang, "bad_fault", value=" ".join(faults or ()), reason=exc)) from None
    except StoreError as exc:
        raise UsageProblem(str(exc)) from None
    if provider == "offline":
        err.print(f"[dim]{t(lang, 'offline_banner')}[/dim]")
    if coach.faults:
        err.print(f"[bold red]{t(lang, 'fault_banner', faults=coach.faults.describe())}[/bold red]")
    return coach


ProviderOpt = Annotated[
    str,
    typer.Option(
        "--provider",
        envvar="GYMNASIA_PROVIDER",
        help="offline (default, rule-based), anthropic, openai, google or openai-chat.",
    ),
]
ModelOpt = Annotated[str | None, typer.Option("--model", help="The provider's model name.")]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="Talk to another endpoint (a local server).")
]
KeyOpt = Annotated[
    str | None, typer.Option("--api-key", help="API key (default: the usual variables).")
]
FaultOpt = Annotated[
    list[str] | None,
    typer.Option("--fault", help="QA only: TOOL:MODE (read_error, before_commit, ...)."),
]
TodayOpt = Annotated[str | None, typer.Option("--today", help="Fix 'today' (YYYY-MM-DD).")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Model request timeout (s).")]
StreamOpt = Annotated[
    bool | None, typer.Option("--stream/--no-stream", help="Stream the reply as it arrives.")
]
GitHubApiOpt = Annotated[
    str | None,
    typer.Option(
        "--github-api-url",
        help="GitHub API for feature requests (default: GYMNASIA_GITHUB_API_URL or "
        "https://api.github.com).",
    ),
]


@app.command()
def ask(
    message: Annotated[str, typer.Argument(help="What to ask the Coach.")],
    db: DbOpt = None,
    provider: ProviderOpt = "offline",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    fault: FaultOpt = None,
    json_output: JsonOpt = False,
    conversation: Annotated[
        str | None, typer.Option("--conversation", help="Continue this conversation.")
    ] = None,
    today: TodayOpt = None,
    timeout: TimeoutOpt = 120.0,
    stream: StreamOpt = None,
    github_api_url: GitHubApiOpt = None,
) -> None:
    """Ask the Coach one thing (one user turn)."""
    language = _lang(lang)
    streaming = (not json_output) if stream is None else stream
    coach = _coach(
        db=db,
        provider=provider,
        model=model,
        base_url=base_url,
        api_key=api_key,
        lang=language,
        user=user,
        faults=fault,
        today=today,
        timeout=timeout,
        stream=streaming and not json_output,
        github_api_url=github_api_url,
    )
    try:
        result = asyncio.run(
            coach.agent.run_turn(
                message,
                conversation_id=conversation,
                on_event=None if json_output else _live_printer(),
            )
        )
    finally:
        coach.close()
    _report(result, coach, json_output=json_output)


def _live_printer() -> Any:
    streamed: list[str] = []

    def on_event(event: TurnEvent) -> None:
        if isinstance(event, TextDelta):
            if not streamed:
                out.print("  [cyan]Coach:[/cyan] ", end="")
            streamed.append(event.text)
            out.print(event.text, end="", markup=False)
        elif isinstance(event, CallRecord):
            render.print_call(out, event)

    on_event.streamed = streamed  # type: ignore[attr-defined]
    return on_event


def _report(result: TurnResult, coach: Coach, *, json_output: bool) -> None:
    if json_output:
        payload = render.turn_json(result, provider=coach.provider, model=coach.model_name)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    else:
        if result.reply_author == "harness" or result.stop_reason != "completed":
            out.print()
        render.print_turn(out, result, calls=False)
    if result.stop_reason == "provider_error":
        raise typer.Exit(3)


@app.command()
def chat(
    db: DbOpt = None,
    provider: ProviderOpt = "offline",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    fault: FaultOpt = None,
    today: TodayOpt = None,
    timeout: TimeoutOpt = 120.0,
    stream: StreamOpt = None,
    github_api_url: GitHubApiOpt = None,
) -> None:
    """Talk with the Coach interactively (Ctrl-D to leave)."""
    language = _lang(lang)
    coach = _coach(
        db=db,
        provider=provider,
        model=model,
        base_url=base_url,
        api_key=api_key,
        lang=language,
        user=user,
        faults=fault,
        today=today,
        timeout=timeout,
        stream=stream is not False,
        github_api_url=github_api_url,
    )
    conversation: str | None = None
    try:
        while True:
            try:
                line = input("> ").strip()
            except (EOFError, KeyboardInterrupt):
                out.print()
                break
            if not line:
                continue
            result = asyncio.run(
                coach.agent.run_turn(line, conversation_id=conversation, on_event=_live_printer())
            )
            conversation = result.conversation_id
            result = _confirm_loop(coach, result)
            out.print()
            render.print_turn(out, result, calls=False)
    finally:
        coach.close()


def _confirm_loop(coach: Coach, result: TurnResult) -> TurnResult:
    while result.pending_confirmation is not None:
        pending = result.pending_confirmation
        args = json.dumps(pending.arguments, ensure_ascii=False)
        answer = typer.confirm(f"\n  ¿{pending.tool}({args})? / approve?", default=False)
        coach.agent.decide(pending.conversation_id, pending.call_id, approved=answer)
        result = asyncio.run(coach.agent.resume(pending.conversation_id, on_event=_live_printer()))
    return result


# -- the web app -------------------------------------------------------------------------------


def _is_loopback(host: str) -> bool:
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to bind (loopback unless --allow-remote).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    db: DbOpt = None,
    provider: ProviderOpt = "offline",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    fault: FaultOpt = None,
    today: TodayOpt = None,
    timeout: TimeoutOpt = 120.0,
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help="Allow a non-loopback --host (needs a token).")
    ] = False,
    access_token: Annotated[
        str | None,
        typer.Option(
            "--access-token",
            envvar="GYMNASIA_ACCESS_TOKEN",
            help="Require this token on every request (cookie, header or ?token= once).",
        ),
    ] = None,
) -> None:
    """Run the web app: chat with a tool trace, confirmations, and a measurements page."""
    language = _lang(lang)
    if not _is_loopback(host) and not (allow_remote and access_token):
        raise UsageProblem(t(language, "serve_remote_refused", host=host))
    chosen = _model(provider, model, base_url, api_key, timeout)
    import uvicorn

    from .web import create_app

    try:
        web_app = create_app(
            db=_db_target(db),
            lang=language,
            faults=tuple(fault or ()),
            model=chosen,
            access_token=access_token or None,
            today=_today(today, language),
            secrets=(api_key or "",),
            user=user,
        )
    except FaultSpecError as exc:
        raise UsageProblem(
            t(language, "bad_fault", value=" ".join(fault or ()), reason=exc)
        ) from None
    except StoreError as exc:
        raise UsageProblem(str(exc)) from None
    coach = web_app.state.coach
    if provider == "offline":
        err.print(f"[dim]{t(language, 'offline_banner')}[/dim]")
    if coach.faults:
        banner = t(language, "fault_banner", faults=coach.faults.describe())
        err.print(f"[bold red]{banner}[/bold red]")
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    err.print(t(language, "serve_listening", url=url), markup=False)
    if access_token:
        err.print(t(language, "serve_token_hint", url=url), markup=False)
    uvicorn.run(
        web_app,
        host=host,
        port=port,
        ws="none",
        lifespan="on",
        server_header=False,
        access_log=not access_token,  # an access log would record ?token=... once
    )


# -- demo --------------------------------------------------------------------------------------


@app.command()
def demo(lang: LangOpt = "es") -> None:
    """Run the acceptance scenarios offline on a temporary database, with a readable trace."""
    from .demo import run_demo

    run_demo(out, _lang(lang))


# -- data commands -----------------------------------------------------------------------------


@measurements_app.command("list")
def measurements_list(
    db: DbOpt = None,
    date_from: Annotated[
        str | None, typer.Option("--from", help="First date (YYYY-MM-DD).")
    ] = None,
    date_to: Annotated[str | None, typer.Option("--to", help="Last date (YYYY-MM-DD).")] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List saved measurements, by date."""
    language = _lang(lang)
    start = _date(date_from, language) if date_from else None
    end = _date(date_to, language) if date_to else None
    store = _existing_store(db, language, user)
    rows = store.list_measurements(start, end)
    store.db.close()
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        values = ", ".join(f"{k}={v:g}" for k, v in row.items() if k != "date" and v is not None)
        out.print(f"{row['date']}  {values}")


@measurements_app.command("show")
def measurements_show(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Show the measurement of one date (exit 1 when there is none)."""
    language = _lang(lang)
    day = _date(date, language)
    store = _existing_store(db, language, user)
    row = store.read_measurement(day)
    store.db.close()
    if row is None:
        err.print(t(language, "no_such_record", date=day.isoformat()))
        raise typer.Exit(1)
    if json_output:
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
        return
    for key, value in row.items():
        out.print(f"{key}: {value}")


@measurements_app.command("add")
def measurements_add(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    weight_kg: Annotated[float | None, typer.Option("--weight-kg")] = None,
    body_fat_pct: Annotated[float | None, typer.Option("--body-fat-pct")] = None,
    waist_cm: Annotated[float | None, typer.Option("--waist-cm")] = None,
    height_cm: Annotated[float | None, typer.Option("--height-cm")] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
) -> None:
    """Save (upsert) a measurement directly, for seeding or without chatting."""
    language = _lang(lang)
    day = _date(date, language)
    values = {
        k: v
        for k, v in {
            "weight_kg": weight_kg,
            "body_fat_pct": body_fat_pct,
            "waist_cm": waist_cm,
            "height_cm": height_cm,
        }.items()
        if v is not None
    }
    if not values:
        msg = "give at least one value, e.g. --weight-kg 76"
        raise UsageProblem(msg)
    from .tools import build_tools

    store = GymStore(open_database(_db_target(db)), user=user)
    tool = build_tools(store).get("write_measurement")
    assert tool is not None
    checked = tool.validate({"date": day.isoformat(), **values})
    if isinstance(checked, tuple):
        problems = "; ".join(f"{d.field}: {d.expected or d.problem}" for d in checked)
        store.db.close()
        raise UsageProblem(problems)
    with store.transaction() as tx:
        saved = store.upsert_measurement(tx, day, values)
    store.db.close()
    out.print(
        f"{t(language, 'saved')}: {saved['date']} "
        + ", ".join(f"{k}={saved[k]:g}" for k in MEASUREMENT_FIELDS if saved[k] is not None)
    )


@app.command()
def diagnostics(
    db: DbOpt = None,
    conversation: Annotated[str | None, typer.Option("--conversation")] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Local diagnostics of failed tool calls (exception, traceback), keys redacted."""
    from surefoot import Redactor, SqlDiagnostics

    from .app import configured_secrets

    language = _lang(lang)
    store = _existing_store(db, language, "default")
    redact = Redactor(configured_secrets())
    items = SqlDiagnostics(store.db).list(conversation_id=conversation)
    store.db.close()
    rows = [
        {
            "conversation_id": d.conversation_id,
            "call_id": d.call_id,
            "tool": d.tool,
            "key": d.key,
            "exception_type": d.exception_type,
            "message": redact(d.message),
            "traceback": redact(d.traceback),
            "created_at": dt.datetime.fromtimestamp(d.created_at, dt.UTC).isoformat(),
        }
        for d in items
    ]
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        out.print(f"[bold]{row['created_at']} {row['tool']} call={row['call_id']}[/bold]")
        out.print(f"  {row['exception_type']}: {row['message']}", markup=False)
        out.print(row["traceback"], markup=False)


# -- the durable side: approvals, resume, writes, reconcile ------------------------------------


def _offline_coach(db: str | None, lang: Lang, user: str) -> Coach:
    """The Coach over an existing database, offline (for commands that manage turns)."""
    _existing_store(db, lang, user).db.close()
    return open_coach(db=_db_target(db), lang=lang, user=user)


def _pending_rows(coach: Coach, conversation: str | None) -> list[dict[str, Any]]:
    ids = [conversation] if conversation else coach.agent.journal.conversations()
    rows = []
    for cid in ids:
        pending = coach.agent.pending_confirmation(cid)
        if pending is not None:
            rows.append(
                {
                    "id": pending.call_id,
                    "conversation_id": cid,
                    "tool": pending.tool,
                    "arguments": pending.arguments,
                }
            )
    return rows


@approvals_app.command("list")
def approvals_list(
    db: DbOpt = None,
    conversation: Annotated[str | None, typer.Option("--conversation")] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List actions waiting for a person's decision."""
    coach = _offline_coach(db, _lang(lang), user)
    rows = _pending_rows(coach, conversation)
    coach.close()
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        args = json.dumps(row["arguments"], ensure_ascii=False)
        out.print(f"{row['id']}  {row['conversation_id']}  {row['tool']}({args})", markup=False)


def _decide(
    db: str | None,
    call_id: str,
    conversation: str | None,
    lang: Lang,
    user: str,
    *,
    approved: bool,
    json_output: bool,
) -> None:
    coach = _offline_coach(db, lang, user)
    try:
        matches = [r for r in _pending_rows(coach, conversation) if r["id"] == call_id]
        if len(matches) != 1:
            problem = "no pending action with that id" if not matches else "use --conversation"
            raise UsageProblem(f"{call_id}: {problem}")
        cid = matches[0]["conversation_id"]
        coach.agent.decide(cid, call_id, approved=approved)
        result = asyncio.run(coach.agent.resume(cid))
    finally:
        coach.close()
    _report(result, coach, json_output=json_output)


ConversationOpt = Annotated[str | None, typer.Option("--conversation")]


@approvals_app.command("approve")
def approvals_approve(
    call_id: Annotated[str, typer.Argument(metavar="ID")],
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Approve a pending action: it runs now, once, and the turn continues."""
    _decide(db, call_id, conversation, _lang(lang), user, approved=True, json_output=json_output)


@approvals_app.command("deny")
def approvals_deny(
    call_id: Annotated[str, typer.Argument(metavar="ID")],
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Refuse a pending action: it does not run, and the Coach is told so."""
    _decide(db, call_id, conversation, _lang(lang), user, approved=False, json_output=json_output)


@app.command()
def resume(
    conversation_id: Annotated[str, typer.Argument(help="The conversation to finish.")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Finish a turn that was interrupted (settling unconfirmed writes first); nothing
    that committed is done again."""
    language = _lang(lang)
    coach = _offline_coach(db, language, user)
    try:
        if not coach.agent.journal.exists(conversation_id):
            raise UsageProblem(f"{conversation_id}: no such conversation")
        coach.agent.executor.reconcile(conversation_id=conversation_id, lang=language)
        result = asyncio.run(coach.agent.resume(conversation_id))
    finally:
        coach.close()
    _report(result, coach, json_output=json_output)


def _entry_json(entry: Any) -> dict[str, Any]:
    return {
        "key": entry.key,
        "conversation_id": entry.conversation_id,
        "tool": entry.tool,
        "arguments": entry.arguments,
        "state": entry.state,
        "attempt": entry.attempt,
        "result": entry.result,
        "error": entry.error,
        "created_at": dt.datetime.fromtimestamp(entry.created_at, dt.UTC).isoformat(),
        "updated_at": dt.datetime.fromtimestamp(entry.updated_at, dt.UTC).isoformat(),
    }


@app.command()
def writes(
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    state: Annotated[
        str | None, typer.Option("--state", help="pending, committed, failed or unknown.")
    ] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Every write the agent attempted, with its ledger state: what to check after
    "check your data before asking again"."""
    from surefoot import LEDGER_STATES, SqlLedger

    language = _lang(lang)
    if state is not None and state not in LEDGER_STATES:
        raise UsageProblem(f"--state must be one of {', '.join(LEDGER_STATES)}")
    store = _existing_store(db, language, "default")
    entries = SqlLedger(store.db).entries(conversation_id=conversation, state=state)
    store.db.close()
    rows = [_entry_json(e) for e in entries]
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        args = json.dumps(row["arguments"], ensure_ascii=False)
        out.print(f"{row['updated_at']}  {row['state']:<9} {row['tool']}({args})", markup=False)


@app.command()
def reconcile(
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Settle unconfirmed writes now (by the ledger or the tool's own check)."""
    language = _lang(lang)
    coach = _offline_coach(db, language, user)
    try:
        entries = coach.agent.executor.reconcile(conversation_id=conversation, lang=language)
    finally:
        coach.close()
    rows = [_entry_json(e) for e in entries]
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        out.print(f"{row['key']}  {row['tool']}: {row['state']}", markup=False)


@app.command("export")
def export_data(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
) -> None:
    """Print all of the user's data as one JSON object (for backups and moving)."""
    store = _existing_store(db, _lang(lang), user)
    data = store.export()
    store.db.close()
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


@app.command("delete-data")
def delete_data(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete all of the user's data (asks first)."""
    store = _existing_store(db, _lang(lang), user)
    try:
        if not yes and not typer.confirm(f"Delete all data of user {user!r}?", default=False):
            raise typer.Exit(1)
        removed = store.delete_all()
    finally:
        store.db.close()
    out.print(f"deleted {removed} row(s)")


# -- diet and training data commands -----------------------------------------------------------

meals_app = typer.Typer(help="Read and log meals without the agent.")
routines_app = typer.Typer(help="Read training routines without the agent.")
foods_app = typer.Typer(help="Search the bundled food table.")
exercises_app = typer.Typer(help="Search the bundled exercise table.")
app.add_typer(meals_app, name="meals")
app.add_typer(routines_app, name="routines")
app.add_typer(foods_app, name="foods")
app.add_typer(exercises_app, name="exercises")


def _meal(value: str, lang: Lang) -> str:
    found = meals.resolve(value)
    if found is None:
        raise UsageProblem(t(lang, "unknown_meal", value=value, meals=", ".join(meals.MEAL_IDS)))
    return found


def _choice(value: str | None, option: str, choices: tuple[str, ...], lang: Lang) -> str | None:
    if value is None or value in choices:
        return value
    listed = ", ".join(choices)
    raise UsageProblem(t(lang, "bad_choice", value=value, option=option, choices=listed))


def _amount(value: str | None, low: float, high: float) -> float | None:
    """A number as people type it (decimal comma or point) within ``[low, high]``."""
    if value is None:
        return None
    try:
        parsed = float(value.strip().replace(",", "."))
    except ValueError:
        return None
    return parsed if low <= parsed <= high else None  # also refuses nan


def _bounded(value: str | None, option: str, lang: Lang, low: float, high: float) -> float | None:
    parsed = _amount(value, low, high)
    if value is not None and parsed is None:
        limits = {"low": number(low, lang), "high": number(high, lang)}
        raise UsageProblem(t(lang, "bad_number", value=value, option=option, **limits))
    return parsed


def _write_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def _nutrients(values: dict[str, Any], lang: Lang) -> str:
    return t(lang, "nutrients", **{k: number(v, lang) for k, v in values.items()})


def _print_meal(shown: dict[str, Any], lang: Lang) -> None:
    out.print(f"[bold]{shown['label']}[/bold] ({shown['meal']})")
    if not shown["items"]:
        out.print(f"  {t(lang, 'meal_empty')}")
    for item in shown["items"]:
        name = item["name"] or item["food_id"]
        energy = item["energy_kcal"]
        kcal = "?" if energy is None else number(energy, lang)
        out.print(
            f"  {number(item['grams'], lang)} g {name}: {kcal} kcal", markup=False, soft_wrap=True
        )
    if shown["items"]:
        out.print(f"  = {_nutrients(shown['totals'], lang)}", soft_wrap=True)


@meals_app.command("show")
def meals_show(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    db: DbOpt = None,
    meal: Annotated[
        str | None, typer.Option("--meal", help="Only this meal (id or label).")
    ] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Show what was logged on a date: one meal, or every meal of the day and its totals."""
    language = _lang(lang)
    day = _date(date, language)
    chosen = _meal(meal, language) if meal is not None else None
    store = _existing_store(db, language, user)
    logged = store.meal_items(day, chosen)
    store.db.close()
    shown = [
        meal_json(day, m, [(food, grams) for mm, food, grams in logged if mm == m], language)
        for m in ((chosen,) if chosen else meals.MEAL_IDS)
    ]
    day_totals = totals((food, grams) for _, food, grams in logged)
    if json_output:
        _write_json(
            shown[0] if chosen else {"date": day.isoformat(), "meals": shown, "totals": day_totals}
        )
        return
    out.print(f"[bold]{day.isoformat()}[/bold]")
    for item in shown:
        _print_meal(item, language)
    if not chosen:
        out.print(f"{t(language, 'day_total')}: {_nutrients(day_totals, language)}", soft_wrap=True)


@meals_app.command("add")
def meals_add(
    date: Annotated[str, typer.Argument(help="The date (YYYY-MM-DD).")],
    meal: Annotated[str, typer.Argument(help="The meal: an id or a label (es, pt, en).")],
    food_id: Annotated[str, typer.Argument(help="A food id ('gymnasia foods search').")],
    grams: Annotated[str, typer.Argument(help="How much, in grams (1-5000; 150 or 150,5).")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Log an amount of one food in one meal (adds an item; never replaces)."""
    language = _lang(lang)
    day = _date(date, language)
    chosen = _meal(meal, language)
    food = catalog.foods().get(food_id)
    if food is None:
        raise UsageProblem(t(language, "unknown_food", value=food_id))
    amount = _amount(grams, 1, 5000)
    if amount is None:
        raise UsageProblem(t(language, "bad_grams", value=grams))
    store = _existing_store(db, language, user)
    with store.transaction() as tx:
        store.add_meal_item(tx, day, chosen, food_id, amount)
        logged = store.meal_items(day, chosen, tx=tx)
    store.db.close()
    saved = meal_json(day, chosen, [(f, g) for _, f, g in logged], language)
    if json_output:
        _write_json(saved)
        return
    added = t(
        language,
        "meal_added",
        grams=number(amount, language),
        food=food.name(language),
        meal=saved["label"],
        date=day.isoformat(),
        kcal=number(saved["totals"]["energy_kcal"], language),
    )
    out.print(added, markup=False, soft_wrap=True)


@routines_app.command("list")
def routines_list(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List saved routines with their exercises and series."""
    language = _lang(lang)
    store = _existing_store(db, language, user)
    rows = [routine_json(r, language) for r in store.routines()]
    store.db.close()
    if json_output:
        _write_json(rows)
        return
    if not rows:
        out.print(t(language, "no_routines"))
    for routine in rows:
        title = f"{routine['name']} ({routine['category']})"
        out.print(title, style="bold", markup=False, soft_wrap=True)
        for index, step in enumerate(routine["exercises"], start=1):
            series = ", ".join(
                f"{s['reps']} x {number(s['weight_kg'], language)} kg/{s['rest_seconds']} s"
                for s in step["series"]
            )
            name = step["name"] or step["exercise_id"]
            out.print(f"  {index}. {name}: {series}", markup=False, soft_wrap=True)


@foods_app.command("search")
def foods_search(
    query: Annotated[str | None, typer.Argument(help="Words of the name (any language).")] = None,
    category: Annotated[str | None, typer.Option("--category")] = None,
    max_calories: Annotated[str | None, typer.Option("--max-calories", help="kcal/100 g")] = None,
    min_protein: Annotated[str | None, typer.Option("--min-protein", help="g/100 g")] = None,
    sort_by: Annotated[str | None, typer.Option("--sort-by")] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Search the bundled food table (values per 100 g); every match is listed."""
    language = _lang(lang)
    sort = _choice(sort_by, "--sort-by", get_args(catalog.FoodSort), language)
    found, _ = catalog.search_foods(
        lang=language,
        query=query,
        category=_choice(category, "--category", catalog.food_categories(), language),
        max_calories=_bounded(max_calories, "--max-calories", language, 0, 1000),
        min_protein=_bounded(min_protein, "--min-protein", language, 0, 100),
        sort_by=cast("catalog.FoodSort | None", sort),
        limit=None,
    )
    if json_output:
        _write_json([food.to_json(language) for food in found])
        return
    if not found:
        out.print(t(language, "nothing_found"))
    for food in found:
        values = _nutrients(dict(food.per_100g), language)
        out.print(
            f"{food.id}  {food.name(language)} [{food.category}]  {values}",
            markup=False,
            soft_wrap=True,
        )


@exercises_app.command("search")
def exercises_search(
    query: Annotated[str | None, typer.Argument(help="Words of the name (any language).")] = None,
    muscle_group: Annotated[str | None, typer.Option("--muscle-group")] = None,
    equipment: Annotated[str | None, typer.Option("--equipment")] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Search the bundled exercise table; every match is listed."""
    language = _lang(lang)
    found, _ = catalog.search_exercises(
        lang=language,
        query=query,
        muscle_group=_choice(muscle_group, "--muscle-group", catalog.muscle_groups(), language),
        equipment=_choice(equipment, "--equipment", catalog.equipment_kinds(), language),
        limit=None,
    )
    if json_output:
        _write_json([item.to_json(language) for item in found])
        return
    if not found:
        out.print(t(language, "nothing_found"))
    for item in found:
        out.print(
            f"{item.id}  {item.name(language)} [{item.muscle_group}, {item.equipment}, "
            f"{item.difficulty}]",
            markup=False,
            soft_wrap=True,
        )


# Typer may run on the click package or on its own bundled copy: take the exception classes
# from Typer itself so both are caught.
_CLICK_USAGE_ERROR: type[Exception] = typer.BadParameter.__mro__[1]


def main() -> NoReturn:
    """Entry point: run the app, turning user mistakes into one line and exit code 2."""
    command = typer.main.get_command(app)
    try:
        code = command.main(prog_name="gymnasia", standalone_mode=False)
    except UsageProblem as exc:
        err.print(f"gymnasia: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except _CLICK_USAGE_ERROR as exc:
        message = exc.format_message()  # type: ignore[attr-defined]
        err.print(f"gymnasia: {message}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()


__all__ = ["app", "main"]
