"""``gymnasia mcp``: the Coach's tools for any MCP client, over stdio or Streamable HTTP.

The tools run through the Coach's own executor: the same validation, the same ledger (writes
are filed under the conversation ``mcp``; ``gymnasia writes`` lists them), the same error
contract as ``gymnasia ask``. Nothing but the protocol goes to stdout in stdio mode.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ..texts import APP_NAME, t
from ._base import (
    DbOpt,
    FaultOpt,
    LangOpt,
    TodayOpt,
    UsageProblem,
    UserOpt,
    app,
    db_target,
    err,
    parse_lang,
    parse_today,
)
from ._serve import _is_loopback

OPEN_WORLD = ("create_feature_issue",)
"""The tools whose effect leaves the user's own data (an issue on GitHub)."""


@app.command()
def mcp(
    transport: Annotated[
        str, typer.Option("--transport", help="stdio (default) or http (Streamable HTTP).")
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="HTTP: loopback address to bind.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option("--port", help="HTTP: port to listen on.")] = 8765,
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    fault: FaultOpt = None,
    today: TodayOpt = None,
) -> None:
    """Serve the Coach's tools over the Model Context Protocol (for a desktop assistant or an
    IDE): same data, same ledger, same error contract as ``ask``."""
    language = parse_lang(lang)
    if transport not in ("stdio", "http"):
        raise UsageProblem(t(language, "mcp_bad_transport", value=transport))
    if transport == "http" and not _is_loopback(host):
        raise UsageProblem(t(language, "mcp_remote_refused", host=host))
    from importlib.metadata import version

    try:
        from surefoot.mcp import ToolServer
    except ImportError:
        raise UsageProblem(t(language, "mcp_not_installed")) from None

    from surefoot import StoreError

    from ..app import open_coach
    from ..faults import FaultSpecError
    from ._otel import session_tracer

    tracer = session_tracer(language)
    try:
        coach = open_coach(
            db=db_target(db),
            lang=language,
            user=user,
            faults=tuple(fault or ()),
            today=parse_today(today, language),
            tracer=tracer,
        )
    except FaultSpecError as exc:
        raise UsageProblem(
            t(language, "bad_fault", value=" ".join(fault or ()), reason=exc)
        ) from None
    except StoreError as exc:
        raise UsageProblem(str(exc)) from None
    if coach.faults:
        err.print(f"[bold red]{t(language, 'fault_banner', faults=coach.faults.describe())}[/]")
    server = ToolServer(
        coach.agent.tools,
        executor=coach.agent.executor,
        name=APP_NAME.lower(),
        version=version("gymnasia"),
        instructions=t(language, "mcp_instructions"),
        lang=language,
        conversation_id="mcp",
        open_world=OPEN_WORLD,
    )
    try:
        if transport == "stdio":
            import anyio

            anyio.run(server.run_stdio)
        else:
            import uvicorn

            shown = f"[{host}]" if ":" in host else host
            err.print(t(language, "mcp_listening", url=f"http://{shown}:{port}/mcp"), markup=False)
            uvicorn.run(
                server.http_app(host=host),
                host=host,
                port=port,
                lifespan="on",
                server_header=False,
                log_level="warning",
            )
    finally:
        coach.close()
