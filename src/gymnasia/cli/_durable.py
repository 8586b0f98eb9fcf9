"""The durable side: diagnostics, approvals, resume, writes and reconcile."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import sys
from typing import Annotated, Any

import typer

from surefoot import Lang

from ..app import Coach, open_coach
from ._base import (
    ConversationOpt,
    DbOpt,
    JsonOpt,
    LangOpt,
    UsageProblem,
    UserOpt,
    app,
    approvals_app,
    db_target,
    existing_store,
    out,
    parse_lang,
)
from ._output import entry_json, report


@app.command()
def diagnostics(
    db: DbOpt = None,
    conversation: Annotated[str | None, typer.Option("--conversation")] = None,
    lang: LangOpt = "es",
    json_output: JsonOpt = False,
) -> None:
    """Local diagnostics of failed tool calls (exception, traceback), keys redacted."""
    from surefoot import Redactor, SqlDiagnostics

    from ..app import configured_secrets

    language = parse_lang(lang)
    store = existing_store(db, language, "default")
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
    existing_store(db, lang, user).db.close()
    return open_coach(db=db_target(db), lang=lang, user=user)


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
    coach = _offline_coach(db, parse_lang(lang), user)
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
    report(result, coach, json_output=json_output)


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
    _decide(
        db, call_id, conversation, parse_lang(lang), user, approved=True, json_output=json_output
    )


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
    _decide(
        db, call_id, conversation, parse_lang(lang), user, approved=False, json_output=json_output
    )


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
    language = parse_lang(lang)
    coach = _offline_coach(db, language, user)
    try:
        if not coach.agent.journal.exists(conversation_id):
            raise UsageProblem(f"{conversation_id}: no such conversation")
        coach.agent.executor.reconcile(conversation_id=conversation_id, lang=language)
        result = asyncio.run(coach.agent.resume(conversation_id))
    finally:
        coach.close()
    report(result, coach, json_output=json_output)


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

    language = parse_lang(lang)
    if state is not None and state not in LEDGER_STATES:
        raise UsageProblem(f"--state must be one of {', '.join(LEDGER_STATES)}")
    store = existing_store(db, language, "default")
    entries = SqlLedger(store.db).entries(conversation_id=conversation, state=state)
    store.db.close()
    rows = [entry_json(e) for e in entries]
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
    language = parse_lang(lang)
    coach = _offline_coach(db, language, user)
    try:
        entries = coach.agent.executor.reconcile(conversation_id=conversation, lang=language)
    finally:
        coach.close()
    rows = [entry_json(e) for e in entries]
    if json_output:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False) + "\n")
        return
    for row in rows:
        out.print(f"{row['key']}  {row['tool']}: {row['state']}", markup=False)
