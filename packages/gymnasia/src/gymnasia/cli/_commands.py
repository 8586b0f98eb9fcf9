"""The top-level commands, listed without loading them: which module of this package defines
each one, and the help text the top-level ``--help`` lists for it.

``gymnasia --help`` (and ``gymnasia`` alone) lists the commands from ``LISTED``; a command's
module is imported the first time the command is looked up, to run it or to show its own
``--help``. So the listing loads no command module, nor anything those import, and building
the command line builds only the commands of the modules loaded. ``LISTED`` is checked
against the commands themselves by ``tests/gymnasia/test_cli_start.py``: a command missing
from it, listed under the wrong module or with a help text that is not its own fails there.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, Final, NamedTuple

import typer
from typer.core import TyperCommand, TyperGroup


class Listed(NamedTuple):
    """A top-level command as the listing knows it: the module of this package whose import
    registers it, and its help text (the command's own, as one line)."""

    module: str
    help: str


LISTED: Final[dict[str, Listed]] = {
    "ask": Listed(
        "_agent",
        "Ask the Coach one thing (one user turn): its reply and, when something was saved or "
        "waits for your approval, one line saying so.",
    ),
    "chat": Listed(
        "_agent",
        "Talk with the Coach interactively, with line editing and a history (Ctrl-D leaves; "
        "Ctrl-C interrupts, exit code 130).",
    ),
    "demo": Listed(
        "_agent",
        "Run the acceptance scenarios offline on a temporary database, with a readable trace.",
    ),
    "export": Listed(
        "_data", "Print all of the user's data as one JSON object (for backups and moving)."
    ),
    "import": Listed(
        "_data",
        "Load what 'gymnasia export' wrote into --user's data, all of it or nothing: a "
        "malformed file (or one naming an unknown food or exercise, or dated after today) "
        "changes nothing, and a user who already has data is refused unless --replace. Reads "
        "at most 64 MiB, and only a regular file or '-'.",
    ),
    "diagnostics": Listed(
        "_durable",
        "Local diagnostics of failed tool calls (exception, traceback), keys redacted.",
    ),
    "resume": Listed(
        "_durable",
        "Finish a turn that was interrupted (settling unconfirmed writes first) on the model it "
        "was started with; nothing that committed is done again.",
    ),
    "writes": Listed(
        "_durable",
        "Every write the agent attempted, with its ledger state: where to check a write whose "
        "outcome was unknown.",
    ),
    "reconcile": Listed(
        "_durable", "Settle unconfirmed writes now (by the ledger or the tool's own check)."
    ),
    "delete-data": Listed(
        "_erase",
        "Erase all of the user's data (measurements, notes, meals, routines, goals, "
        "conversations, the record of writes, confirmations and diagnostics) in one "
        "transaction; asks first.",
    ),
    "eval": Listed(
        "_eval",
        "Measure how the model recovers from tool failures, with and without the contract.",
    ),
    "serve": Listed(
        "_serve",
        "Run the web app: chat with a tool trace and confirmations, and pages for your data and "
        "for the Coach's writes.",
    ),
    "mcp": Listed(
        "_mcp",
        "Serve the Coach's tools over the Model Context Protocol (for a desktop assistant or an "
        "IDE): same data, same ledger, same error contract as ``ask``.",
    ),
    "measurements": Listed(
        "_data", "Read, add, correct and delete body measurements without the agent."
    ),
    "approvals": Listed("_durable", "Confirm or refuse actions waiting for a person."),
    "meals": Listed("_data", "Read, log, correct and delete meals without the agent."),
    "routines": Listed("_data", "Read and edit training routines without the agent."),
    "foods": Listed("_data", "Search the bundled food table."),
    "exercises": Listed("_data", "Search the bundled exercise table."),
    "goals": Listed("_data", "Read the goals the Coach saved (per measure)."),
    "users": Listed("_users", "Accounts for the web app: who may sign in, and as whom."),
}
"""Every top-level command, in the order ``--help`` lists them."""


def _loaded() -> frozenset[str]:
    """The modules of ``LISTED`` imported so far (so their commands are registered)."""
    return frozenset(
        listed.module
        for listed in LISTED.values()
        if f"{__package__}.{listed.module}" in sys.modules
    )


class Commands(MutableMapping[str, Any]):
    """The top-level commands by name, in ``LISTED``'s order. Its names, and whether one is a
    command, never load anything; looking a command up imports its module the first time and
    builds the command line again with it (so the command is exactly what Typer makes of it).
    Reading every value (``items()``) loads every command. A command is added by registering
    it in a module ``LISTED`` names, never here: one added here would not be listed."""

    def __init__(self, built: Mapping[str, Any]) -> None:
        self._built = dict(built)
        self._with = _loaded()

    def __getitem__(self, name: str) -> Any:
        module = LISTED[name].module
        if module not in self._with:
            importlib.import_module(f"{__package__}.{module}")
            from ._base import app

            group = typer.main.get_command(app)
            assert isinstance(group, LazyGroup)
            assert isinstance(group.commands, Commands)
            self._built, self._with = group.commands._built, group.commands._with
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        raise TypeError(f"register {name!r} in a module of gymnasia.cli and list it in LISTED")

    def __delitem__(self, name: str) -> None:
        raise TypeError(f"{name!r}: the commands of gymnasia are those LISTED names")

    def __contains__(self, name: object) -> bool:
        return name in LISTED

    def __iter__(self) -> Iterator[str]:
        return iter(LISTED)

    def __len__(self) -> int:
        return len(LISTED)

    def built(self) -> dict[str, Any]:
        """The commands built so far, by name: those of the modules loaded when the command
        line was last built (every command Typer knows, whether ``LISTED`` names it or not)."""
        return dict(self._built)


class LazyGroup(TyperGroup):
    """The ``gymnasia`` group: its commands are ``Commands`` (loaded when looked up) and its
    ``--help`` lists them from ``LISTED``, laid out by Typer's own code."""

    def __init__(self, *, commands: Any = None, **attrs: Any) -> None:
        super().__init__(commands=commands, **attrs)
        self.commands = Commands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        stand_ins = [TyperCommand(name, help=listed.help) for name, listed in LISTED.items()]
        TyperGroup(name=self.name, commands=stand_ins).format_commands(ctx, formatter)
