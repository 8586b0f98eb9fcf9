"""``gymnasia --help`` loads only Typer and the command line's base modules: no command's
module, nor the agent, the providers, pydantic, rich, a database driver or the web app (what
it costs in time is measured by ``benchmarks/bench_cli_start.py``, never asserted here). It
lists the commands from ``cli._commands.LISTED``, so that table is checked here against the
commands themselves: the listing cannot differ from what the commands say."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from typing import Any

import pytest
import typer
from typer.core import TyperCommand

from gymnasia import cli
from gymnasia.cli._base import LANGS, app
from gymnasia.cli._commands import LISTED
from surefoot.outcome import LANGS as SUREFOOT_LANGS

PROBE = """
import json, sys
sys.argv = ["gymnasia", *json.loads(sys.argv[1])]
from gymnasia.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""
HEAVY = (
    "surefoot",
    "pydantic",
    "pydantic_core",
    "rich",
    "sqlite3",
    "psycopg",
    "asyncio",
    "anthropic",
    "openai",
    "google",
    "httpx",
    "fastapi",
    "starlette",
    "uvicorn",
    "mcp",
    "opentelemetry",
    "gymnasia.app",
    "gymnasia.offline",
    "gymnasia.web",
    "gymnasia.tools",
    "gymnasia.catalog",
)
COMMAND_MODULES = {f"gymnasia.cli.{listed.module}" for listed in LISTED.values()}


def loaded_by(*args: str) -> tuple[int, set[str]]:
    """The exit code and the modules a fresh interpreter loaded for ``gymnasia ARGS``."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = json.loads(proc.stdout.rstrip().rsplit("\n", 1)[-1])
    return report["code"], set(report["modules"])


def heavy_in(modules: set[str]) -> list[str]:
    """The modules of ``HEAVY`` (or inside one) among ``modules``."""
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest.mark.parametrize("args", [("--help",), ()], ids=["--help", "no arguments"])
def test_help_loads_no_heavy_module(args: tuple[str, ...]) -> None:
    """The top-level help (asked for, or shown for no command) imports none of the agent
    stack, providers, pydantic, rich, drivers or the web app, and no command's module: it
    lists the commands from the table."""
    code, modules = loaded_by(*args)
    assert code in (0, 2)
    assert "gymnasia.cli._help" in modules
    assert sorted(modules & COMMAND_MODULES) == []
    assert heavy_in(modules) == []


def test_a_command_that_does_not_exist_loads_no_command() -> None:
    """``gymnasia chta`` is refused (exit 2) without loading any command's module."""
    code, modules = loaded_by("chta")
    assert code == 2
    assert sorted(modules & COMMAND_MODULES) == []


def test_a_commands_help_loads_its_module_alone() -> None:
    """``gymnasia measurements --help`` loads the module of ``measurements`` and none of the
    other commands' (the agent's, the web app's). (Typer itself loads pydantic here, to read
    the top-level options before the subcommand: only the top-level help is free of it.)"""
    code, modules = loaded_by("measurements", "--help")
    assert code == 0
    assert sorted(modules & COMMAND_MODULES) == ["gymnasia.cli._data"]


def test_a_command_still_loads_what_it_needs() -> None:
    """The control: a command that runs (``measurements list`` on a missing database) does
    load the harness, so the check above would see it."""
    code, modules = loaded_by("measurements", "list", "--db", "/nonexistent/dir/gym.db")
    assert code == 2
    assert "surefoot" in heavy_in(modules)


def registered() -> dict[str, set[str]]:
    """Every top-level command Typer knows once every module of ``gymnasia.cli`` is imported,
    with the modules that define it (a group: the modules of its commands)."""
    for found in pkgutil.iter_modules(cli.__path__):
        importlib.import_module(f"gymnasia.cli.{found.name}")
    commands: dict[str, set[str]] = {}
    for info in app.registered_commands:
        assert info.callback is not None
        name = info.name or typer.main.get_command_name(info.callback.__name__)
        commands[name] = {info.callback.__module__}
    for group in app.registered_groups:
        sub = group.typer_instance
        assert sub is not None
        assert isinstance(group.name, str)
        assert sub.registered_groups == []  # a group of groups would need a module per level
        defined = {c.callback.__module__ for c in sub.registered_commands if c.callback}
        commands[group.name] = defined
    return commands


def test_every_command_is_listed_under_the_module_that_defines_it() -> None:
    """``LISTED`` names every command there is, none that is not, and for each the module
    whose import registers it (a group's commands all in that module): a command looked up
    is then complete once its module is loaded."""
    expected = {name: {f"gymnasia.cli.{listed.module}"} for name, listed in LISTED.items()}
    assert registered() == expected


def test_the_listing_shows_each_commands_own_help() -> None:
    """Each command's help in ``LISTED`` is the command's own, so the top-level ``--help``
    shows, at every width, the line the command itself would give."""
    group: Any = typer.main.get_command(app)
    real = dict(group.commands.items())  # looking every command up loads every module
    for name, listed in LISTED.items():
        command, stand_in = real[name], TyperCommand(name, help=listed.help)
        assert " ".join(command.help.split()) == listed.help, name
        assert (command.short_help, command.hidden, command.deprecated) == (None, False, False)
        shown = [command.get_short_help_str(limit) for limit in range(1, 200)]
        assert shown == [stand_in.get_short_help_str(limit) for limit in range(1, 200)], name


def test_the_command_lines_languages_are_the_harness_languages() -> None:
    """``--lang`` is read before the harness loads, from the command line's own list: the
    same languages as surefoot's."""
    assert LANGS == SUREFOOT_LANGS
