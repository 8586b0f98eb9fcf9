"""Every code block in the docs is checked, so the docs cannot rot.

* Each ```python block of ``docs/**/*.md`` and ``README.md`` runs. The blocks of one page run in
  order, in one namespace, in a fresh working directory (a page may create ``coach.db``).
  Tracebacks point at the page and its line.
* A block may be skipped only when it needs a real provider's API key: the line before it is
  ``<!-- docs-test: skip, needs NAME_API_KEY -->``, and the next ```python block of the page is
  its twin against a fake server (``surefoot.testing.Fake...Server``). A skipped block is
  compiled, never run, even with the key set: a plain pytest never calls a paid API.
* The API reference (``docs/reference``) documents every name of every public module.
* A page whose blocks need PostgreSQL says ``<!-- docs-test: postgresql -->``; it runs against
  a fresh schema of the test server, whose URL its code reads from ``DATABASE_URL``.
* Every ```sh block that runs ``gymnasia``, and every inline ```gymnasia ...``` in the text,
  names a real subcommand, with options that command has (checked against the Typer app, and
  ``gymnasia <command> --help`` through ``CliRunner``).
"""

from __future__ import annotations

import importlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from gymnasia.cli import app

ROOT = Path(__file__).parent.parent
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]

_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w+-]*)\s*$")
_SKIP = re.compile(r"<!-- docs-test: skip, needs (?P<var>[A-Z][A-Z0-9_]*_API_KEY) -->")
_POSTGRES = "<!-- docs-test: postgresql -->"
_MARKER = re.compile(r"<!-- docs-test:")
_PYTHON_ALIASES = frozenset({"py", "python3", "pycon", "py3"})
_SHELL = frozenset({"sh", "bash", "shell", "console"})


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced code block of a page."""

    page: Path
    line: int  # the line of the first line of code (1-based)
    lang: str
    code: str
    marker: str | None  # the docs-test comment on the line before the fence, if any

    @property
    def where(self) -> str:
        """``page:line``, for messages."""
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def skip_var(self) -> str | None:
        """The API key variable a skipped block needs (None: the block runs)."""
        found = _SKIP.fullmatch(self.marker or "")
        return found["var"] if found else None


def blocks_of(page: Path) -> list[Block]:
    """The fenced code blocks of ``page``, in order."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, lang = len(opening["indent"]), opening["lang"]
        previous = next((s.strip() for s in reversed(lines[:index]) if s.strip()), "")
        marker = previous if _MARKER.match(previous) else None
        end = index + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        assert end < len(lines), f"{page}:{index + 1}: a code fence is never closed"
        code = "\n".join(line[indent:] for line in lines[index + 1 : end])
        found.append(Block(page, index + 2, lang, code + "\n", marker))
        index = end + 1
    return found


def _python_pages() -> list[Path]:
    return [p for p in PAGES if any(b.lang == "python" for b in blocks_of(p))]


def _ids(pages: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in pages]


# -- the conventions ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_every_block_is_labelled_and_python_is_spelled_python(page: Path) -> None:
    """A block without a language, or Python under another label, would escape the runner."""
    for block in blocks_of(page):
        assert block.lang, f"{block.where}: a code block needs a language (python, sh, text...)"
        assert block.lang not in _PYTHON_ALIASES, f"{block.where}: write ```python to run it"


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_markers_are_known_and_skips_have_a_fake_server_twin(page: Path) -> None:
    """Only a block that needs a real API key may be skipped, and its twin must run."""
    blocks = blocks_of(page)
    python = [b for b in blocks if b.lang == "python"]
    for block in blocks:
        if block.marker is None or block.marker == _POSTGRES:
            continue
        assert block.skip_var is not None, f"{block.where}: unknown marker {block.marker!r}"
        assert block.lang == "python", f"{block.where}: only python blocks are skipped"
        later = python[python.index(block) + 1 :]
        twin = later[0] if later else None
        assert twin is not None, f"{block.where}: a skipped block needs a twin after it"
        assert twin.skip_var is None, f"{twin.where}: the twin of a skipped block must run"
        assert re.search(r"\bFake\w+Server\b", twin.code), (
            f"{twin.where}: the twin of {block.where} must run against a fake server"
        )
    skipped = [b for b in python if b.skip_var is not None]
    assert len(skipped) <= 1, f"{page.name}: keep skipped blocks few (one per page at most)"


def test_the_docs_have_code_to_run() -> None:
    """The runner finds the pages it is meant to run (a broken parser would find none)."""
    names = {p.relative_to(ROOT).as_posix() for p in _python_pages()}
    assert {"docs/getting-started.md", "docs/concepts/decision-table.md", "README.md"} <= names


# -- python blocks run ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", _python_pages(), ids=_ids(_python_pages()))
def test_python_blocks_run(
    page: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """The page's ```python blocks run in order in one namespace; their asserts hold."""
    blocks = [b for b in blocks_of(page) if b.lang == "python"]
    if any(b.marker == _POSTGRES for b in blocks_of(page)):
        monkeypatch.setenv("DATABASE_URL", request.getfixturevalue("pg_url"))
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "docs_example"}
    for block in blocks:
        # padded so that line numbers in a traceback are the page's own
        code = compile("\n" * (block.line - 1) + block.code, str(block.page), "exec")
        if block.skip_var is None:
            exec(code, namespace)


def test_getting_started_runs_twice_in_one_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader who follows getting-started again finds its steps still work on the
    ``coach.db`` the first run left (they once failed on the first run's write)."""
    page = ROOT / "docs" / "getting-started.md"
    blocks = [b for b in blocks_of(page) if b.lang == "python" and b.skip_var is None]
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        namespace: dict[str, object] = {"__name__": "docs_example"}
        for block in blocks:
            exec(compile("\n" * (block.line - 1) + block.code, str(page), "exec"), namespace)
    assert (tmp_path / "coach.db").exists()


# -- shell blocks name real gymnasia commands ----------------------------------------------------

_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", ">", ">>", "<", "2>"})


def gymnasia_commands(code: str) -> list[list[str]]:
    """Each ``gymnasia ...`` command line of a shell block, as its words (after the program)."""
    commands: list[list[str]] = []
    for raw in code.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        current: list[str] = []
        for word in [*lexer, ";"]:
            if word in _SEPARATORS:
                if current and (current[0] == "gymnasia" or current[0].endswith("/gymnasia")):
                    commands.append(current[1:])
                current = []
            else:
                current.append(word)
    return commands


def _resolve(words: list[str]) -> tuple[list[str], Any, list[str]]:
    """The subcommand path in ``words``, its (click) command, and the rest of the words."""
    command: Any = typer.main.get_command(app)  # Typer may bundle its own click: duck-typed
    path: list[str] = []
    rest = list(words)
    while rest and rest[0].startswith("--") and rest[0] in _options(command) - {"--help"}:
        rest.pop(0)  # a global option before the subcommand (`gymnasia --otel ask ...`)
    while hasattr(command, "commands") and rest and not rest[0].startswith("-"):
        sub = command.commands.get(rest[0])
        assert sub is not None, f"`gymnasia {' '.join(path + rest[:1])}` is no command"
        path.append(rest.pop(0))
        command = sub
    return path, command, rest


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("-"))
    return names


_INLINE = re.compile(r"`((?:\.venv/bin/)?gymnasia [^`]+)`")


def inline_commands(page: Path) -> list[tuple[str, list[str]]]:
    """The inline ```gymnasia ...``` spans of ``page``'s text (outside code blocks)."""
    found: list[tuple[str, list[str]]] = []
    in_block = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        if _FENCE.match(line):
            in_block = not in_block
            continue
        if not in_block:
            for span in _INLINE.findall(line):
                where = f"{page.relative_to(ROOT)}:{number}"
                found.extend((where, words) for words in gymnasia_commands(span))
    return found


_SHELL_COMMANDS = [
    (block.where, words)
    for page in PAGES
    for block in blocks_of(page)
    if block.lang in _SHELL
    for words in gymnasia_commands(block.code)
] + [found for page in PAGES for found in inline_commands(page)]


def test_shell_blocks_mention_gymnasia() -> None:
    """The parser finds the commands the docs show (it is not silently finding none)."""
    assert len(_SHELL_COMMANDS) >= 30
    shown = {tuple(_resolve(words)[0]) for _, words in _SHELL_COMMANDS}
    assert {("ask",), ("approvals", "approve"), ("writes",), ("reconcile",)} <= shown


@pytest.mark.parametrize(
    ("where", "words"),
    _SHELL_COMMANDS,
    ids=[f"{where}:{' '.join(words[:2])}" for where, words in _SHELL_COMMANDS],
)
def test_shell_commands_exist(where: str, words: list[str]) -> None:
    """The subcommand exists, answers ``--help``, and has every option the line uses."""
    path, command, rest = _resolve(words)
    assert path or rest == ["--help"], f"{where}: `gymnasia {' '.join(words)}` is no command"
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, f"{where}: gymnasia {' '.join(path)} --help: {result.output}"
    known = _options(command)
    for word in rest:
        option = word.partition("=")[0]
        if option.startswith("--"):
            assert option in known, f"{where}: `gymnasia {' '.join(path)}` has no {option}"


# -- the API reference covers the public API -----------------------------------------------------

PUBLIC_MODULES = [
    "surefoot",
    "surefoot.messages",
    "surefoot.outcome",
    "surefoot.ledger",
    "surefoot.journal",
    "surefoot.sql",
    "surefoot.exceptions",
    "surefoot.diagnostics",
    "surefoot.executor",
    "surefoot.tracing",
    "surefoot.otel",
    "surefoot.mcp",
    "surefoot.providers",
    "surefoot.testing",
]
_DIRECTIVE = re.compile(r"^::: (?P<target>[\w.]+)\s*$")
_MEMBER = re.compile(r"^ +- (?P<name>\w+)\s*$")


def documented_members() -> dict[str, set[str] | None]:
    """For each ``::: target`` of the reference pages, the members it renders (None: all)."""
    found: dict[str, set[str] | None] = {}
    for page in sorted((ROOT / "docs" / "reference").glob("*.md")):
        target: str | None = None
        for line in page.read_text(encoding="utf-8").splitlines():
            directive = _DIRECTIVE.match(line)
            if directive is not None:
                target = directive["target"]
                found[target] = None
            elif target is not None and line.strip() == "members:":
                found[target] = set()
            elif target is not None and (member := _MEMBER.match(line)) is not None:
                listed = found[target]
                assert listed is not None, f"{page.name}: a member outside a members: list"
                listed.add(member["name"])
            elif line and not line.startswith(" "):
                target = None
    return found


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_the_reference_documents_every_public_name(module: str) -> None:
    """Each name of a public module's ``__all__`` is rendered on its page, or (the same object
    re-exported) on the top-level page; each name a page lists exists."""
    documented = documented_members()
    assert module in documented, f"no reference page renders {module}"
    imported = importlib.import_module(module)
    top = importlib.import_module("surefoot")
    top_names = documented["surefoot"] or set()
    listed = documented[module]
    for name in listed or ():
        assert hasattr(imported, name), f"the reference lists {module}.{name}, which is gone"
    for name in imported.__all__:
        if listed is None or name in listed:
            continue
        same = name in top_names and getattr(top, name, None) is getattr(imported, name)
        assert same, f"{module}.{name} is public but the reference does not document it"


# -- the docs point only inside the repository ---------------------------------------------------

_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=_ids(PAGES))
def test_pages_point_only_inside_the_repository(page: Path) -> None:
    """No page names a document that is not in the repository, and relative links resolve."""
    text = page.read_text(encoding="utf-8")
    for outside in ("DESIGN", "STYLE.md", "§"):
        assert outside not in text, f"{page.name} refers to {outside!r}, outside the repository"
    for link in _LINK.finditer(text):
        target = link["target"].partition("#")[0]
        if not target or "://" in target or target.startswith("mailto:"):
            continue
        assert (page.parent / target).exists(), f"{page.name}: the link {target} leads nowhere"
