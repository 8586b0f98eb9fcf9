"""``gymnasia --help`` loads only Typer and the command line's own modules: not the agent,
the providers, pydantic, rich, a database driver or the web app (what it costs in time is
measured by ``benchmarks/bench_cli_start.py``, never asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gymnasia.cli._base import LANGS
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
    stack, providers, pydantic, rich, drivers or the web app."""
    code, modules = loaded_by(*args)
    assert code in (0, 2)
    assert "gymnasia.cli._data" in modules  # every command was registered, so listed
    assert heavy_in(modules) == []


def test_a_command_still_loads_what_it_needs() -> None:
    """The control: a command that runs (``measurements list`` on a missing database) does
    load the harness, so the check above would see it."""
    code, modules = loaded_by("measurements", "list", "--db", "/nonexistent/dir/gym.db")
    assert code == 2
    assert "surefoot" in heavy_in(modules)


def test_the_command_lines_languages_are_the_harness_languages() -> None:
    """``--lang`` is read before the harness loads, from the command line's own list: the
    same languages as surefoot's."""
    assert LANGS == SUREFOOT_LANGS
