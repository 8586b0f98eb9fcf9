"""The commands that talk to the Coach: ``ask``, ``chat`` and ``demo``."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..texts import t
from ._base import (
    BaseUrlOpt,
    DbOpt,
    EngineOpt,
    FaultOpt,
    GitHubApiOpt,
    JsonOpt,
    KeyOpt,
    LangOpt,
    ModelOpt,
    ProviderOpt,
    StreamOpt,
    TimeoutOpt,
    TodayOpt,
    UsageProblem,
    UserOpt,
    app,
    confirmed,
    db_target,
    err,
    out,
    parse_lang,
    parse_today,
    store_problem,
)
from ._otel import session_tracer
from ._output import (
    LivePrinter,
    live_printer,
    print_result,
    report,
    status_line,
    waiting_action,
)

if TYPE_CHECKING:
    from surefoot import ConversationBusyError, Lang, Model, TurnResult

    from ..app import Coach

TraceOpt = Annotated[
    bool,
    typer.Option(
        "--trace",
        help="Also show the trace: each tool call with its arguments and outcome, the stop "
        "reason and the number of model requests.",
    ),
]

# -- the agent ---------------------------------------------------------------------------------


def chat_model(
    provider: str,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    timeout: float,
    lang: Lang = "es",
) -> Model | None:
    """The model ``--provider`` names (None: offline); a bad setting is one line in ``lang``."""
    from surefoot import ConfigurationError
    from surefoot.sql import safe_url

    from ..app import DEFAULT_MODELS, KEY_VARIABLES, PROVIDER_CHOICES, api_key_for

    if provider == "offline":
        return None
    if provider not in PROVIDER_CHOICES:
        choices = ", ".join(PROVIDER_CHOICES)
        raise UsageProblem(t(lang, "unknown_provider", value=provider, choices=choices))
    key = api_key_for(provider, api_key)
    if key is None and provider != "openai-chat":
        names = " / ".join(KEY_VARIABLES[provider])
        raise UsageProblem(t(lang, "no_api_key", provider=provider, names=names))
    from surefoot.providers import make_model

    try:
        return make_model(
            provider,  # type: ignore[arg-type]
            model or DEFAULT_MODELS[provider],
            api_key=key or "not-needed",
            base_url=base_url,
            timeout=timeout,
        )
    except ConfigurationError as exc:
        if exc.setting == "base_url" and base_url is not None:
            problem = t(lang, "bad_base_url", value=safe_url(base_url))
        else:
            problem = t(lang, "bad_model_config", provider=provider)
        raise UsageProblem(problem, code="configuration") from None


def cli_coach(
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
    from surefoot import StoreError

    from ..app import open_coach
    from ..faults import FaultSpecError

    chosen = chat_model(provider, model, base_url, api_key, timeout, lang)
    tracer = session_tracer(lang)
    try:
        coach = open_coach(
            db=db_target(db),
            model=chosen,
            lang=lang,
            user=user,
            faults=tuple(faults or ()),
            today=parse_today(today, lang),
            stream=stream,
            extra_secrets=(api_key or "",),
            github_api_url=github_api_url,
            check_options=check_options(db, user),
            tracer=tracer,
        )
    except FaultSpecError as exc:
        raise UsageProblem(t(lang, "bad_fault", value=" ".join(faults or ()), reason=exc)) from None
    except StoreError as exc:
        raise store_problem(exc, lang, db_target(db)) from None
    if provider == "offline":
        err.print(f"[dim]{t(lang, 'offline_banner')}[/dim]")
    if coach.faults:
        err.print(f"[bold red]{t(lang, 'fault_banner', faults=coach.faults.describe())}[/bold red]")
    return coach


def check_options(db: str | None, user: str) -> tuple[str, ...]:
    """The options a data command needs to read what this command wrote."""
    from surefoot.sql import safe_url

    options = []
    if db is not None:
        options.append(f"--db {shlex.quote(safe_url(db))}")
    if user != "default":
        options.append(f"--user {shlex.quote(user)}")
    return tuple(options)


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
    trace: TraceOpt = False,
    engine: EngineOpt = "journal",
) -> None:
    """Ask the Coach one thing (one user turn): its reply and, when something was saved or
    waits for your approval, one line saying so."""
    language = parse_lang(lang)
    on_dbos = engine_chosen(engine, db, language)
    streaming = (not json_output) if stream is None else stream
    coach = cli_coach(
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
    printer = None if json_output else live_printer(trace=trace)
    if on_dbos:
        from ..app import turn_on_dbos

        turn = turn_on_dbos(coach, db_target(db), message, conversation)
    else:
        turn = coach.agent.run_turn(message, conversation_id=conversation, on_event=printer)
    try:
        result = run_turn(coach, language, turn)
    finally:
        coach.close()
    options = check_options(db, user)
    report(result, coach, json_output=json_output, printer=printer, trace=trace, options=options)


def engine_chosen(engine: str, db: str | None, lang: Lang) -> bool:
    """Whether the turn runs on DBOS (``--engine dbos``): only on a PostgreSQL database, and
    with the dbos package installed."""
    if engine == "journal":
        return False
    if engine != "dbos":
        raise typer.BadParameter("journal | dbos", param_hint="--engine")
    if not db_target(db).startswith(("postgresql://", "postgres://")):
        raise UsageProblem(t(lang, "engine_needs_postgresql"))
    try:
        import dbos  # noqa: F401 - only whether it is installed
    except ImportError:
        raise UsageProblem(t(lang, "engine_not_installed")) from None
    return True


def busy_message(coach: Coach, lang: Lang, exc: ConversationBusyError) -> str:
    """What a person is told when a conversation is busy: "nothing was done" only when its
    turn did nothing; a turn interrupted after its writes lists them."""
    conversation = exc.conversation_id
    done = coach.agent_for(lang).replies.what_was_done(exc.calls)
    if not exc.writes or not done:
        seconds = round(coach.agent.lease_seconds)
        return t(lang, "busy", conversation=conversation, seconds=seconds)
    return "\n".join(
        [
            t(lang, "busy_interrupted", conversation=conversation),
            *done,
            t(lang, "busy_interrupted_end", conversation=conversation),
        ]
    )


def run_turn(coach: Coach, lang: Lang, turn: Coroutine[Any, Any, TurnResult]) -> TurnResult:
    """Run ``turn``; a conversation that is busy or waits for a decision is one line."""
    import asyncio

    from surefoot import ConversationBusyError, TurnPendingError

    try:
        return asyncio.run(turn)
    except ConversationBusyError as exc:
        raise UsageProblem(busy_message(coach, lang, exc), exit_code=4) from None
    except TurnPendingError as exc:
        raise UsageProblem(t(lang, "turn_pending", conversation=exc.conversation_id)) from None


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
    trace: TraceOpt = False,
) -> None:
    """Talk with the Coach interactively, with line editing and a history (Ctrl-D leaves;
    Ctrl-C interrupts, exit code 130)."""
    language = parse_lang(lang)
    coach = cli_coach(
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
    save_history = _line_editing()
    try:
        _converse(coach, language, trace=trace)
    finally:
        save_history()
        coach.close()


def _converse(coach: Coach, lang: Lang, *, trace: bool) -> None:
    """Read a line, run a turn, show it; until end of input (Ctrl-D). Ctrl-C at the prompt
    leaves with 130, as an interrupted command does."""
    conversation: str | None = None
    while True:
        try:
            line = input("> ").strip()
        except EOFError:
            out.print()
            return
        except KeyboardInterrupt:
            out.print()
            raise typer.Exit(130) from None
        if not sys.stdin.isatty():  # a terminal echoed the line; show a piped one too
            out.print(line, markup=False, soft_wrap=True)
        if not line:
            continue
        printer = live_printer(trace=trace)
        result = run_turn(
            coach,
            lang,
            coach.agent_for(coach.agent.lang).run_turn(
                line, conversation_id=conversation, on_event=printer
            ),
        )
        conversation = result.conversation_id
        result, printer = _confirm_loop(coach, lang, result, printer, trace=trace)
        status = status_line(result, coach, lang, ())
        print_result(result, printer, status=status, trace=trace, lang=lang)


def history_path() -> Path:
    """Where ``chat`` keeps the lines typed at its prompt: ``GYMNASIA_HISTORY``, else
    ``chat_history`` in the user's data directory (beside the default database)."""
    chosen = os.environ.get("GYMNASIA_HISTORY")
    if chosen:
        return Path(chosen)
    from ..app import default_db_path

    return default_db_path().with_name("chat_history")


def _line_editing() -> Callable[[], None]:
    """Line editing (arrows, Ctrl-R) and the history at ``chat``'s prompt, on a terminal
    with readline: the history is read now; the function returned writes it back (0600: it
    holds what the person said about their health). Piped input keeps no history."""
    if not sys.stdin.isatty():
        return lambda: None
    try:
        import readline
    except ImportError:  # a Python built without it: input() still works, unedited
        return lambda: None
    path = history_path()
    readline.set_history_length(1000)
    with contextlib.suppress(OSError):  # none yet, or unreadable: start a new one
        readline.read_history_file(path)

    def save() -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            readline.write_history_file(path)
            path.chmod(0o600)
        except OSError:  # a history that cannot be written is not worth a failure
            pass

    return save


def _confirm_loop(
    coach: Coach, lang: Lang, result: TurnResult, printer: LivePrinter, *, trace: bool
) -> tuple[TurnResult, LivePrinter]:
    """Ask about each action waiting for a decision, in words, and resume; the last turn
    and the printer that showed it."""
    while result.pending_confirmation is not None:
        printer.end_line()
        pending = result.pending_confirmation
        out.print()
        answer = confirmed(f"  {waiting_action(pending, lang)}", lang, out)
        coach.agent.decide(pending.conversation_id, pending.id, approved=answer)
        printer = live_printer(trace=trace)
        resumed = coach.agent.resume(pending.conversation_id, on_event=printer)
        result = run_turn(coach, lang, resumed)
    return result, printer


# -- demo --------------------------------------------------------------------------------------


@app.command()
def demo(lang: LangOpt = "es") -> None:
    """Run the acceptance scenarios offline on a temporary database, with a readable trace."""
    from ..demo import run_demo

    run_demo(out.rich, parse_lang(lang))
