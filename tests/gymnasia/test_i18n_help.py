"""``--help`` speaks the person's language: every help text of every command, argument and
option has its es and pt entry in the catalogue, and each help screen, rendered in es and pt,
shows no English (Click's own words included)."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import typer

from gymnasia.cli import _help, app, main
from surefoot import Lang

sys.path.insert(0, str(Path(__file__).parent))

from i18n_checks import english_in  # found through the path set above


def _commands() -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and group of the command line, with its path of names."""

    def walk(path: tuple[str, ...], command: Any) -> Iterator[tuple[tuple[str, ...], Any]]:
        yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            yield from walk((*path, name), sub)

    yield from walk((), typer.main.get_command(app))


PATHS = [path for path, _ in _commands()]


def test_every_command_and_option_has_a_help_text() -> None:
    """No command, argument or option is left without a description."""
    bare = [
        " ".join((*path, getattr(param, "name", "") or ""))
        for path, command in _commands()
        for param in [None, *command.params]
        if not (command.help if param is None else getattr(param, "help", None))
    ]
    assert bare == []


def test_every_help_text_is_translated() -> None:
    """Each help text, as the commands declare it in English, has an entry in the catalogue."""
    texts = {
        text
        for _, command in _commands()
        for text in [command.help, *(getattr(p, "help", None) for p in command.params)]
        if text
    }
    missing = sorted(text for text in texts if _help.translate(text, "es") is None)
    assert missing == []


Help = Callable[[tuple[str, ...], Lang], str]


@pytest.fixture
def help_screen(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Help:
    """``gymnasia PATH --help`` in-process with GYMNASIA_LANG set; returns stdout."""

    def show(path: tuple[str, ...], lang: Lang) -> str:
        monkeypatch.setenv("GYMNASIA_LANG", lang)
        monkeypatch.setattr(sys, "argv", ["gymnasia", *path, "--help"])
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        capsys.readouterr()
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        assert exited.value.code in (0, None), captured.err
        return captured.out

    return show


CLICK_WORDS = ("Usage:", "Options:", "Arguments:", "Commands:", "[required]", "default:")
NAMES = {name for path in PATHS for name in path}


def _prose(screen: str) -> str:
    """A help screen without what stays as typed: option and command names, default values."""
    screen = re.sub(r"--[\w-]+", " ", screen)
    screen = re.sub(r"((?:por defecto|padrão): )[^\];]*", r"\1", screen)
    return re.sub(rf"\b({'|'.join(map(re.escape, NAMES))})\b", " ", screen)


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_every_help_screen_speaks_the_language(help_screen: Help, lang: Lang) -> None:
    """Each command's help screen in es and pt: no English text, not even Click's headings."""
    leaks = {}
    for path in PATHS:
        shown = help_screen(path, lang)
        found = english_in(_prose(shown), lang) + [w for w in CLICK_WORDS if w in shown]
        if found:
            leaks[" ".join(path) or "gymnasia"] = found
    assert leaks == {}


def test_the_english_help_stays_english(help_screen: Help) -> None:
    """In English the help screen is the one the commands declare (the check can tell)."""
    shown = help_screen(("measurements", "show"), "en")
    assert "Usage:" in shown
    assert "Show the measurement of one date" in shown
    assert english_in(shown, "es")
