"""The ``gymnasia`` command line.

Every failure ends with one localized line on stderr, never a traceback. Under ``--json`` a
failure a program may act on (storage, configuration) is one JSON object on stdout instead,
``{"error": code, "message": line}``; a mistake in the command line stays one line on stderr
with nothing on stdout. Exit codes:

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
the agent), ``_eval`` (the recovery evaluation), ``_help`` (``--help`` in the session's
language), ``_users`` (the web app's accounts), ``_commands`` (which module defines each
command, and the listing of the top-level ``--help``). A command's module is imported when
the command is looked up, not before: ``gymnasia --help`` lists them all without loading one.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, NoReturn, TypeGuard

import typer

from ..render import neutralised
from ..texts import t
from . import _help
from ._base import SESSION, UsageProblem, app, remember_lang, store_problem

if TYPE_CHECKING:
    from surefoot import StoreError

# Typer may run on the click package or on its own bundled copy: take the exception classes
# from Typer itself so both are caught.
_CLICK_USAGE_ERROR: type[Exception] = typer.BadParameter.__mro__[1]
_CLICK_ERRORS = sys.modules[typer.BadParameter.__module__]
_NO_ARGS: type[Exception] | tuple[()] = getattr(_CLICK_ERRORS, "NoArgsIsHelpError", ())
_EXTRA = re.compile(r"Got unexpected extra argument\(s\) \((?P<args>.*)\)")
_NO_COMMAND = re.compile(r"No such command '(?P<name>[^']*)'\.?(?: Did you mean (?P<near>.*)\?)?")
_QUOTED = re.compile(r"'([^']*)'")


def main() -> NoReturn:
    """Entry point: run the app, turning every failure into one line and its exit code."""
    command = typer.main.get_command(app)
    _help.install(command.context_class)
    SESSION.reset()
    _read_ahead(sys.argv[1:])
    try:
        code = command.main(prog_name="gymnasia", standalone_mode=False)
    except UsageProblem as exc:
        _fail(exc)
    except _CLICK_USAGE_ERROR as exc:
        if isinstance(exc, _NO_ARGS):  # no command: the help as it is, and exit 2
            sys.stderr.write(exc.format_message() + "\n")  # type: ignore[attr-defined]
            sys.exit(2)
        _fail(UsageProblem(_usage_message(exc)))
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(130)
    except Exception as exc:
        if not _store_failure(exc):
            raise
        _fail(store_problem(exc, SESSION.lang))  # a database that failed during a command
    sys.exit(code if isinstance(code, int) else 0)


def _store_failure(exc: Exception) -> TypeGuard[StoreError]:
    """Whether ``exc`` is the harness's ``StoreError`` (the harness is loaded only by the
    commands that use it, so an exception from any other is not one)."""
    if "surefoot" not in sys.modules:
        return False
    from surefoot import StoreError

    return isinstance(exc, StoreError)


def _read_ahead(args: list[str]) -> None:
    """``--json`` and ``--lang`` as written, before the command line is parsed, so that a
    mistake in it is reported in that form and language too."""
    head = args[: args.index("--")] if "--" in args else args
    SESSION.json = "--json" in head
    remember_lang(os.environ.get("GYMNASIA_LANG"))
    for index, arg in enumerate(head):
        if arg == "--lang" and index + 1 < len(head):
            remember_lang(head[index + 1])
        elif arg.startswith("--lang="):
            remember_lang(arg.removeprefix("--lang="))


def _usage_message(exc: Exception) -> str:
    """A command-line mistake in the user's language (Click's English text as the last
    resort, for mistakes it has no structure for)."""
    lang = SESSION.lang
    name = _param_name(getattr(exc, "param", None))
    if isinstance(exc, _CLICK_ERRORS.NoSuchOption):
        return t(lang, "cli_no_such_option", option=exc.option_name)
    if isinstance(exc, _CLICK_ERRORS.MissingParameter) and name:
        return t(lang, "cli_missing", name=name)
    if isinstance(exc, _CLICK_ERRORS.BadParameter) and name:
        return t(lang, "cli_bad_value", name=name)
    message: str = exc.format_message()  # type: ignore[attr-defined]
    if found := _EXTRA.fullmatch(message):
        return t(lang, "cli_extra_args", args=found["args"])
    if found := _NO_COMMAND.fullmatch(message):
        near = _QUOTED.findall(found["near"] or "")
        if not near:
            return t(lang, "cli_no_such_command", name=found["name"])
        quote = "'{}'" if lang == "en" else "«{}»"
        listed = ", ".join(quote.format(name) for name in near)
        return t(lang, "cli_no_such_command_near", name=found["name"], near=listed)
    return message


def _param_name(param: object) -> str | None:
    """How the command line names ``param``: its long option, or its argument in capitals."""
    if param is None:
        return None
    opts = [o for o in getattr(param, "opts", None) or [] if isinstance(o, str)]
    options = [o for o in opts if o.startswith("-")]
    if options:
        return max(options, key=len)
    name = getattr(param, "name", None)
    return name.upper() if isinstance(name, str) and name else None


def _fail(problem: UsageProblem) -> NoReturn:
    """One line on stderr; under ``--json``, a failure with a code for programs (storage,
    configuration) is one JSON object on stdout instead. A mistake in the command line
    (``usage``) is never JSON: nothing ran, so there is nothing on stdout to read."""
    if SESSION.json and problem.code != "usage":
        sys.stdout.write(
            json.dumps({"error": problem.code, "message": str(problem)}, ensure_ascii=False) + "\n"
        )
    else:
        text = " ".join(str(problem).split())  # one line, whatever the message holds
        sys.stderr.write(neutralised(f"gymnasia: {text}") + "\n")
    sys.exit(problem.exit_code)


if __name__ == "__main__":
    main()


__all__ = ["app", "main"]
