"""The ``gymnasia`` command line.

Usage errors (bad date, missing database, invalid fault, unknown provider) end with one
localized line on stderr and exit code 2, never a traceback.

Modules, one per seam: ``_base`` (apps, options, parsers), ``_output`` (traces, ``--json``),
``_agent`` (ask, chat, demo), ``_serve`` (the web app), ``_mcp`` (the tools over MCP),
``_durable`` (diagnostics, approvals, resume, writes, reconcile), ``_data`` (commands without
the agent).
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

from . import _agent, _data, _durable, _mcp, _serve  # noqa: F401 - importing registers the commands
from ._base import UsageProblem, app, err

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
        sys.exit(exc.exit_code)
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
