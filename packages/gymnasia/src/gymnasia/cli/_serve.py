"""``gymnasia serve``: the web app, loopback-only unless ``--allow-remote`` with a token or
accounts; ``--workers N`` runs N processes on one PostgreSQL database."""

from __future__ import annotations

import ipaddress
import json
import os
from typing import Annotated, Any, Final

import typer

from ..texts import t
from ._agent import chat_model, engine_chosen
from ._base import (
    BaseUrlOpt,
    DbOpt,
    EngineOpt,
    FaultOpt,
    KeyOpt,
    LangOpt,
    ModelOpt,
    ProviderOpt,
    TimeoutOpt,
    TodayOpt,
    UsageProblem,
    UserOpt,
    app,
    db_target,
    err,
    parse_lang,
    parse_today,
    store_problem,
)
from ._otel import session_tracer

WORKER_OPTIONS: Final = "GYMNASIA_SERVE_OPTIONS"
"""The environment variable that hands ``serve``'s options to its worker processes."""

KEEP_ALIVE: Final = 75
"""Seconds an idle connection is kept open (uvicorn's own default is 5)."""

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
    workers: Annotated[
        int,
        typer.Option("--workers", min=1, help="Worker processes (more than 1: PostgreSQL only)."),
    ] = 1,
    engine: EngineOpt = "journal",
) -> None:
    """Run the web app: chat with a tool trace and confirmations, and pages for your data and
    for the Coach's writes."""
    language = parse_lang(lang)
    on_dbos = engine_chosen(engine, db, language)
    target = db_target(db)
    if workers > 1 and not target.startswith(("postgresql://", "postgres://")):
        shown = target.removeprefix("sqlite:///")
        raise UsageProblem(t(language, "serve_workers_sqlite", workers=workers, url=shown))
    options: dict[str, Any] = {
        "provider": provider,
        "model": model,
        "base_url": base_url,
        "api_key": api_key,
        "timeout": timeout,
        "db": target,
        "lang": language,
        "faults": list(fault or ()),
        "access_token": access_token or None,
        "today": today,
        "user": user,
        "engine": "dbos" if on_dbos else "journal",
    }
    web_app = build_app(options)
    accounts = web_app.state.accounts
    if on_dbos and (workers > 1 or accounts.enabled):
        web_app.state.coach.close()
        raise UsageProblem(t(language, "serve_dbos_alone"))
    if not _is_loopback(host) and not (allow_remote and (access_token or accounts.enabled)):
        web_app.state.coach.close()
        raise UsageProblem(t(language, "serve_remote_refused", host=host))
    _banners(web_app, options, host, port)
    import uvicorn

    settings: dict[str, Any] = {
        "host": host,
        "port": port,
        "ws": "none",
        "lifespan": "on",
        "server_header": False,
        # an idle connection is kept longer than a proxy's (60 s is the usual default) or a
        # browser tab's pause: the one that closes first races the other's next request on it
        "timeout_keep_alive": KEEP_ALIVE,
        # an access log would record ?token=... or a sign-in link's code once
        "access_log": not access_token and not accounts.enabled,
    }
    if workers == 1:
        _settled()
        uvicorn.run(web_app, **settings)
        return
    web_app.state.coach.close()  # each worker opens its own connection
    os.environ[WORKER_OPTIONS] = json.dumps(options)
    uvicorn.run("gymnasia.cli._serve:worker_app", factory=True, workers=workers, **settings)


def build_app(options: dict[str, Any]) -> Any:
    """The web app for ``serve``'s ``options`` (in ``serve`` itself and in each worker); a
    bad setting is one line in the person's language."""
    language = parse_lang(options["lang"])
    chosen = chat_model(
        options["provider"],
        options["model"],
        options["base_url"],
        options["api_key"],
        options["timeout"],
        language,
    )
    tracer = session_tracer(language)
    from surefoot import StoreError

    from ..faults import FaultSpecError
    from ..web import create_app

    fault = options["faults"]
    try:
        return create_app(
            db=options["db"],
            lang=language,
            faults=tuple(fault),
            model=chosen,
            access_token=options["access_token"],
            today=parse_today(options["today"], language),
            secrets=(options["api_key"] or "",),
            user=options["user"],
            tracer=tracer,
            engine=options["engine"],
        )
    except FaultSpecError as exc:
        raise UsageProblem(t(language, "bad_fault", value=" ".join(fault), reason=exc)) from None
    except StoreError as exc:
        raise store_problem(exc, language, options["db"]) from None


def worker_app() -> Any:
    """One ``serve --workers`` process's app, from the options ``serve`` left in
    ``GYMNASIA_SERVE_OPTIONS``."""
    web_app = build_app(json.loads(os.environ[WORKER_OPTIONS]))
    _settled()
    return web_app


def _settled() -> None:
    """Once the process is ready to serve: what it holds then (its modules, the app and what
    the app opened) lasts its whole life, so it is moved out of the garbage collector's reach
    (``gc.freeze``) and a full collection walks only what the requests made since. Under the
    load test each worker's full collections walked some 150,000 objects otherwise: 70 to
    110 ms with all of that worker's requests stopped, every 20 s or so; frozen, 3 to 30 ms."""
    import gc

    gc.collect()  # what start-up left as garbage goes first, not into the frozen set
    gc.freeze()


def _banners(web_app: Any, options: dict[str, Any], host: str, port: int) -> None:
    language = parse_lang(options["lang"])
    coach = web_app.state.coach
    provider, access_token = options["provider"], options["access_token"]
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
    accounts = web_app.state.accounts
    if accounts.enabled:
        count = len(accounts.store.users())
        err.print(t(language, "serve_accounts_hint", count=count), markup=False)
