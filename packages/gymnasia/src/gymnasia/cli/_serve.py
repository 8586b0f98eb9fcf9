"""``gymnasia serve``: the web app, loopback-only unless ``--allow-remote`` with a token."""

from __future__ import annotations

import ipaddress
from typing import Annotated

import typer

from surefoot import StoreError

from ..faults import FaultSpecError
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
    engine: EngineOpt = "journal",
) -> None:
    """Run the web app: chat with a tool trace, confirmations, and a measurements page."""
    language = parse_lang(lang)
    on_dbos = engine_chosen(engine, db, language)
    if not _is_loopback(host) and not (allow_remote and access_token):
        raise UsageProblem(t(language, "serve_remote_refused", host=host))
    chosen = chat_model(provider, model, base_url, api_key, timeout, language)
    tracer = session_tracer(language)
    import uvicorn

    from ..web import create_app

    try:
        web_app = create_app(
            db=db_target(db),
            lang=language,
            faults=tuple(fault or ()),
            model=chosen,
            access_token=access_token or None,
            today=parse_today(today, language),
            secrets=(api_key or "",),
            user=user,
            tracer=tracer,
            engine="dbos" if on_dbos else "journal",
        )
    except FaultSpecError as exc:
        raise UsageProblem(
            t(language, "bad_fault", value=" ".join(fault or ()), reason=exc)
        ) from None
    except StoreError as exc:
        raise store_problem(exc, language, db_target(db)) from None
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
