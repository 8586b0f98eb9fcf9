"""The durable side: diagnostics, approvals, resume, writes and reconcile.

Commands that finish a turn (``approvals approve|deny``, ``resume``) run it on the model the
turn was started with, as the journal recorded it (provider, model, base URL; never the key),
and take the same provider options as ``ask`` for what is not recorded (the key, the timeout)
or may move (the base URL). Every command sees only ``--user``'s conversations and writes.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..render import neutralised
from ..texts import t
from ._agent import check_options, cli_coach, engine_chosen, run_turn
from ._base import (
    BaseUrlOpt,
    ConversationOpt,
    DbOpt,
    EngineOpt,
    GitHubApiOpt,
    JsonOpt,
    KeyOpt,
    LangOpt,
    ModelOpt,
    TimeoutOpt,
    TodayOpt,
    UsageProblem,
    UserOpt,
    app,
    approvals_app,
    db_target,
    existing_store,
    out,
    parse_choice,
    parse_lang,
)
from ._otel import session_tracer
from ._output import approval_commands, entry_json, report, waiting_action, write_json

if TYPE_CHECKING:
    from surefoot import Lang, PendingConfirmation, ToolSet, TurnResult
    from surefoot.diagnostics import Diagnostic
    from surefoot.ledger import LedgerEntry, LedgerState

    from ..app import Coach

TurnProviderOpt = Annotated[
    str | None,
    typer.Option(
        "--provider",
        help="The provider the turn runs on (default: the one it was started with).",
    ),
]


def _open(db: str | None, lang: Lang, user: str) -> Coach:
    """The Coach over an existing database, for commands that do not ask a model."""
    from ..app import open_coach

    existing_store(db, lang, user).db.close()
    return open_coach(db=db_target(db), lang=lang, user=user, tracer=session_tracer(lang))


@app.command()
def diagnostics(
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Local diagnostics of failed tool calls (exception, traceback), keys redacted."""
    from surefoot import Redactor

    from ..app import configured_secrets

    language = parse_lang(lang)
    coach = _open(db, language, user)
    redact = Redactor(configured_secrets())
    items = coach.agent.diagnostics(conversation_id=conversation)
    tools = coach.agent.tools
    writes = {e.key: e for e in coach.agent.writes(conversation_id=conversation)}
    coach.close()
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
        write_json(rows)
        return
    if not rows:
        out.print(t(language, "no_diagnostics_yet"), markup=False)
    for item, row in zip(items, rows, strict=True):
        head = redact(_failure_line(item, writes.get(item.key or ""), tools, language))
        out.print(head, style="bold", markup=False, soft_wrap=True)
        out.print(neutralised(f"  {row['exception_type']}: {row['message']}"), markup=False)
        out.print(neutralised(row["traceback"] or ""), markup=False)


def _failure_line(item: Diagnostic, entry: LedgerEntry | None, tools: ToolSet, lang: Lang) -> str:
    """A failed call on one line: when, its action, what it touched (its write's arguments,
    when it was a write), and the call's id (the ``--json`` form's ``call_id``)."""
    from ..i18n import moment
    from ..words import action, call_label, entry_words

    what = entry_words(entry, tools, lang) if entry is not None else ""
    done = f"{action(item.tool, lang)}: {what}" if what else action(item.tool, lang)
    line = f"{moment(item.created_at, lang)} · {done} · {call_label(item.call_id, lang)}"
    return neutralised(line)


# -- turns that wait or were interrupted -------------------------------------------------------


def _pending_json(pending: PendingConfirmation) -> dict[str, Any]:
    return {
        "id": pending.id,
        "conversation_id": pending.conversation_id,
        "tool": pending.tool,
        "arguments": pending.arguments,
        "question": pending.question,
    }


@approvals_app.command("list")
def approvals_list(
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """List actions waiting for a person's decision."""
    language = parse_lang(lang)
    coach = _open(db, language, user)
    found = coach.agent.pending_confirmations()
    coach.close()
    chosen = [p for p in found if conversation in (None, p.conversation_id)]
    if json_output:
        write_json([_pending_json(p) for p in chosen])
        return
    if not chosen:
        out.print(t(language, "no_approvals_yet"), markup=False)
    options = check_options(db, user)
    for pending in chosen:
        out.print(f"{pending.id}  {waiting_action(pending, language)}", markup=False)
        out.print(f"  {approval_commands(pending, language, options)}", markup=False)


def _turn_coach(
    db: str | None,
    conversation_id: str,
    lang: Lang,
    user: str,
    *,
    provider: str | None,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    timeout: float,
    today: str | None,
    github_api_url: str | None,
) -> Coach:
    """The Coach on the model ``conversation_id``'s turn runs on."""
    probe = _open(db, lang, user)
    if not probe.agent.exists(conversation_id):
        probe.close()
        raise UsageProblem(t(lang, "no_conversation", conversation=conversation_id))
    recorded = probe.agent.turn_model(conversation_id)
    probe.close()
    name = recorded.provider if recorded is not None else "offline"
    named = recorded.model if recorded is not None else None
    if (provider is not None and provider != name) or (
        model is not None and named is not None and model != named
    ):
        given = f"{provider or name} ({model or named})"
        raise UsageProblem(t(lang, "turn_model", recorded=f"{name} ({named})", given=given))
    return cli_coach(
        db=db,
        provider=name,
        model=named,
        base_url=base_url or (recorded.base_url if recorded is not None else None),
        api_key=api_key,
        lang=lang,
        user=user,
        faults=None,
        today=today,
        timeout=timeout,
        stream=False,
        github_api_url=github_api_url,
    )


def _decide(
    db: str | None,
    approval: str,
    conversation: str | None,
    lang: Lang,
    user: str,
    options: dict[str, Any],
    *,
    approved: bool,
    json_output: bool,
    on_dbos: bool = False,
) -> None:
    lister = _open(db, lang, user)
    found = [
        p
        for p in lister.agent.pending_confirmations()
        if p.id == approval and conversation in (None, p.conversation_id)
    ]
    lister.close()
    if not found:
        raise UsageProblem(t(lang, "no_pending_action", id=approval))
    cid = found[0].conversation_id
    coach = _turn_coach(db, cid, lang, user, **options)
    try:
        decided = _decided(coach, db_target(db) if on_dbos else None, cid, approval, approved)
        result = run_turn(coach, lang, decided)
    finally:
        coach.close()
    report(result, coach, json_output=json_output)


async def _decided(
    coach: Coach, engine_url: str | None, cid: str, approval: str, approved: bool
) -> TurnResult:
    """The decision recorded and the turn finished: by the DBOS workflow that waits for it
    (``engine_url``: ``--engine dbos``), else, or when the turn is no waiting workflow, on the
    journal."""
    if engine_url is not None:
        from ..app import decide_on_dbos

        result = await decide_on_dbos(coach, engine_url, cid, approval, approved=approved)
        if result is not None:
            return result
    if not coach.agent.decide(cid, approval, approved=approved):
        raise UsageProblem(t(coach.agent.lang, "no_pending_action", id=approval))
    return await coach.agent.resume(cid)


@approvals_app.command("approve")
def approvals_approve(
    approval: Annotated[str, typer.Argument(metavar="ID", help="The action ('approvals list').")],
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    provider: TurnProviderOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    timeout: TimeoutOpt = 120.0,
    today: TodayOpt = None,
    github_api_url: GitHubApiOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
    engine: EngineOpt = "journal",
) -> None:
    """Approve a pending action: it runs now, once, and the turn continues on its model."""
    options = {
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "api_key": api_key,
        "timeout": timeout,
        "today": today,
        "github_api_url": github_api_url,
    }
    language = parse_lang(lang)
    on_dbos = engine_chosen(engine, db, language)
    _decide(
        db,
        approval,
        conversation,
        language,
        user,
        options,
        approved=True,
        json_output=json_output,
        on_dbos=on_dbos,
    )


@approvals_app.command("deny")
def approvals_deny(
    approval: Annotated[str, typer.Argument(metavar="ID", help="The action ('approvals list').")],
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    provider: TurnProviderOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    timeout: TimeoutOpt = 120.0,
    today: TodayOpt = None,
    github_api_url: GitHubApiOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
    engine: EngineOpt = "journal",
) -> None:
    """Refuse a pending action: it does not run, and the Coach (its model) is told so."""
    options = {
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "api_key": api_key,
        "timeout": timeout,
        "today": today,
        "github_api_url": github_api_url,
    }
    language = parse_lang(lang)
    on_dbos = engine_chosen(engine, db, language)
    _decide(
        db,
        approval,
        conversation,
        language,
        user,
        options,
        approved=False,
        json_output=json_output,
        on_dbos=on_dbos,
    )


@app.command()
def resume(
    conversation_id: Annotated[str, typer.Argument(help="The conversation to finish.")],
    db: DbOpt = None,
    provider: TurnProviderOpt = None,
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    timeout: TimeoutOpt = 120.0,
    today: TodayOpt = None,
    github_api_url: GitHubApiOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Finish a turn that was interrupted (settling unconfirmed writes first) on the model it
    was started with; nothing that committed is done again."""
    language = parse_lang(lang)
    coach = _turn_coach(
        db,
        conversation_id,
        language,
        user,
        provider=provider,
        model=model,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        today=today,
        github_api_url=github_api_url,
    )
    try:
        coach.agent.reconcile(conversation_id=conversation_id)
        result = run_turn(coach, language, coach.agent.resume(conversation_id))
    finally:
        coach.close()
    report(result, coach, json_output=json_output)


# -- the ledger ------------------------------------------------------------------------------


@app.command()
def writes(
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    state: Annotated[
        str | None, typer.Option("--state", help="pending, committed, failed or unknown.")
    ] = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Every write the agent attempted, with its ledger state: where to check a write whose
    outcome was unknown."""
    language = parse_lang(lang)
    from surefoot.ledger import LEDGER_STATES

    chosen = _ledger_state(parse_choice(state, "--state", LEDGER_STATES, language))
    coach = _open(db, language, user)
    entries = coach.agent.writes(conversation_id=conversation, state=chosen)
    coach.close()
    if json_output:
        write_json([entry_json(e) for e in entries])
        return
    if not entries:
        out.print(t(language, "no_writes_yet"), markup=False)
    _print_writes(entries, coach, language)


def _print_writes(entries: list[LedgerEntry], coach: Coach, lang: Lang) -> None:
    """Each write on its line, in words (``words.write_line``)."""
    from ..words import write_line

    for entry in entries:
        line = neutralised(write_line(entry, coach.agent.tools, lang))
        out.print(line, markup=False, soft_wrap=True)


def _ledger_state(value: str | None) -> LedgerState | None:
    from surefoot.ledger import LEDGER_STATES

    for state in LEDGER_STATES:
        if value == state:
            return state
    return None  # parse_choice let only the states and None through


@app.command()
def reconcile(
    db: DbOpt = None,
    conversation: ConversationOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    json_output: JsonOpt = False,
) -> None:
    """Settle unconfirmed writes now (by the ledger or the tool's own check)."""
    language = parse_lang(lang)
    coach = _open(db, language, user)
    try:
        entries = coach.agent.reconcile(conversation_id=conversation)
    finally:
        coach.close()
    if json_output:
        write_json([entry_json(e) for e in entries])
        return
    _print_writes(entries, coach, language)
