"""The ``gymnasia`` command line.

Every failure ends with one localized line on stderr (under ``--json``: one JSON object,
``{"error": code, "message": line}``, on stdout), never a traceback. Exit codes:

* 0 — done; 1 — a data command found nothing to change
* 2 — a usage or configuration mistake: a bad option, date, fault or provider setting, a
  database address that is not supported, a file that is not a database, a database that
  does not exist, no permission to use it
* 3 — the model provider failed
* 4 — busy: the conversation is held by another turn, or the database is locked; try again
* 5 — the database cannot be used right now: unreachable, connection lost, disk full
* 130 — interrupted

Modules, one per seam: ``_base`` (apps, options, parsers), ``_output`` (traces, ``--json``),
``_agent`` (ask, chat, demo), ``_serve`` (the web app), ``_mcp`` (the tools over MCP),
``_durable`` (diagnostics, approvals, resume, writes, reconcile), ``_data`` (commands without
the agent).
"""

from __future__ import annotations

import json
import sys
from typing import NoReturn

import typer

from surefoot import StoreError

from . import _agent, _data, _durable, _erase, _mcp, _serve  # noqa: F401 - importing registers them
from ._base import SESSION, UsageProblem, app, err, store_problem

# Typer may run on the click package or on its own bundled copy: take the exception classes
# from Typer itself so both are caught.
_CLICK_USAGE_ERROR: type[Exception] = typer.BadParameter.__mro__[1]


def main() -> NoReturn:
    """Entry point: run the app, turning every failure into one line and its exit code."""
    command = typer.main.get_command(app)
    SESSION.reset()
    try:
        code = command.main(prog_name="gymnasia", standalone_mode=False)
    except UsageProblem as exc:
        _fail(exc)
    except StoreError as exc:  # a database that fails in the middle of a command
        _fail(store_problem(exc, SESSION.lang))
    except _CLICK_USAGE_ERROR as exc:
        message = exc.format_message()  # type: ignore[attr-defined]
        _fail(UsageProblem(message))
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


def _fail(problem: UsageProblem) -> NoReturn:
    if SESSION.json:
        sys.stdout.write(
            json.dumps({"error": problem.code, "message": str(problem)}, ensure_ascii=False) + "\n"
        )
    else:
        text = " ".join(str(problem).split())  # one line, whatever the message holds
        err.print(f"gymnasia: {text}", markup=False, highlight=False, soft_wrap=True)
    sys.exit(problem.exit_code)


if __name__ == "__main__":
    main()


__all__ = ["app", "main"]
