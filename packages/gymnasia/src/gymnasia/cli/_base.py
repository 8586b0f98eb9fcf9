"""What every command shares: the Typer apps, the consoles, the options, and the parsers
that turn what a person typed into values (or one ``UsageProblem`` line)."""

from __future__ import annotations

import datetime as dt
import functools
import os
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from ..render import neutralised
from ..texts import number, t
from ._commands import LazyGroup

if TYPE_CHECKING:
    from pydantic import TypeAdapter
    from rich.console import Console

    from surefoot import Lang, StoreError
    from surefoot.exceptions import StoreErrorKind

    from ..store import GymStore

# Only what a command needs is imported, when it runs: ``gymnasia --help`` loads Typer and
# this package's own modules, not the agent, the providers, pydantic or rich.

app = typer.Typer(
    name="gymnasia",
    help="Gymnasia Coach: a fitness coach over your own data, built on the surefoot harness.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=LazyGroup,
)


def _print_version(value: bool) -> None:
    if not value:
        return
    from importlib.metadata import version

    out.print(f"gymnasia {version('gymnasia')} (surefoot {version('surefoot')})", markup=False)
    raise typer.Exit(0)


@app.callback()
def _main(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the versions of gymnasia and surefoot, then exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
    otel: Annotated[
        bool,
        typer.Option(
            "--otel",
            help="Export OpenTelemetry spans of turns, model requests and tool calls "
            "(OTLP, configured by the OTEL_EXPORTER_OTLP_* variables; the otel extra).",
        ),
    ] = False,
) -> None:
    """Gymnasia Coach: a fitness coach over your own data, built on the surefoot harness."""
    SESSION.otel = otel


measurements_app = typer.Typer(
    help="Read, add, correct and delete body measurements without the agent."
)
approvals_app = typer.Typer(help="Confirm or refuse actions waiting for a person.")
app.add_typer(measurements_app, name="measurements")
app.add_typer(approvals_app, name="approvals")

meals_app = typer.Typer(help="Read, log, correct and delete meals without the agent.")
routines_app = typer.Typer(help="Read and edit training routines without the agent.")
foods_app = typer.Typer(help="Search the bundled food table.")
exercises_app = typer.Typer(help="Search the bundled exercise table.")
app.add_typer(meals_app, name="meals")
app.add_typer(routines_app, name="routines")
app.add_typer(foods_app, name="foods")
app.add_typer(exercises_app, name="exercises")
goals_app = typer.Typer(help="Read the goals the Coach saved (per measure).")
app.add_typer(goals_app, name="goals")


class Terminal:
    """A rich console, made the first time something is printed, through which every text
    passes ``render.neutralised``: whatever a model, a file or the database holds is shown
    with its control and bidirectional characters as visible escapes."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    @property
    def rich(self) -> Console:
        """The console itself (for a renderable that is not text)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False)
        return self._console

    def print(self, *objects: Any, **options: Any) -> None:
        """``Console.print``, each text neutralised first."""
        shown = (neutralised(o) if isinstance(o, str) else o for o in objects)
        self.rich.print(*shown, **options)


err = Terminal(stderr=True)
out = Terminal()

_YES: Final[dict[Lang, tuple[str, ...]]] = {
    "es": ("s", "si", "sí", "y", "yes"),
    "pt": ("s", "sim", "y", "yes"),
    "en": ("y", "yes"),
}


def confirmed(question: str, lang: Lang, console: Terminal = err) -> bool:
    """A person's yes to ``question``, answered in their language ("s"/"sí" in Spanish,
    "s"/"sim" in Portuguese, "y"/"yes" in every language); anything else, or no input at all,
    is no. Asked on stderr unless ``console`` says otherwise, so ``--json`` output stays one
    object. A piped answer is echoed after the question, as a terminal would show it."""
    hint = "[y/N]" if lang == "en" else "[s/N]"
    console.print(f"{question} {hint} ", end="", markup=False, soft_wrap=True)
    answer = sys.stdin.readline()
    if not sys.stdin.isatty():  # a terminal echoed the answer and its newline; a pipe did not
        console.print(answer.strip(), markup=False, soft_wrap=True)
    return answer.strip().lower() in _YES[lang]


class UsageProblem(Exception):  # noqa: N818 - a user mistake, reported as one line
    """A user mistake (or a state that stops the command): one line on stderr (a JSON object
    on stdout under ``--json``), exit 2 unless ``exit_code`` says otherwise (see ``cli``).
    ``code`` names the problem for programs."""

    def __init__(self, message: str, *, exit_code: int = 2, code: str = "usage") -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.code = code


@dataclass
class Session:
    """What the command line asked for, as far as it was read: the language and ``--json``,
    so that a failure anywhere is reported in that language and form; ``--otel``."""

    lang: Lang = "es"
    json: bool = False
    db: str | None = None
    otel: bool = False

    def reset(self) -> None:
        """Forget the last command line (``main`` may run several in one process)."""
        self.lang, self.json, self.db, self.otel = "es", False, None, False


SESSION: Final = Session()


LANGS: Final[tuple[Lang, ...]] = ("es", "pt", "en")
"""The languages, as surefoot's ``outcome.LANGS`` (a test keeps them equal) without loading
the harness for a command line that only asks for help."""


def remember_lang(value: str | None) -> str | None:
    """Note ``value`` as the session's language when it is one."""
    for lang in LANGS:
        if value == lang:
            SESSION.lang = lang
    return value


def _remember_db(value: str | None) -> str | None:
    SESSION.db = value
    return value


def _remember_json(value: bool) -> bool:
    SESSION.json = SESSION.json or value
    return value


DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="SQLite file, sqlite:///path, or postgresql://... URL (GYMNASIA_DB). A SQLite "
        "database locked by another process is waited for GYMNASIA_DB_TIMEOUT seconds (30), "
        "a PostgreSQL server that does not answer as many (10).",
        callback=_remember_db,
    ),
]
EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine",
        envvar="GYMNASIA_ENGINE",
        help="Where turns run: 'journal' (built in) or 'dbos' (each turn a DBOS workflow, "
        "its state in the same PostgreSQL database as --db).",
    ),
]
LangOpt = Annotated[
    str,
    typer.Option(
        "--lang", envvar="GYMNASIA_LANG", help="Language: es, pt or en.", callback=remember_lang
    ),
]
UserOpt = Annotated[str, typer.Option("--user", help="Whose data (one database, many users).")]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Machine-readable output.", callback=_remember_json)
]


def parse_lang(value: str) -> Lang:
    for lang in LANGS:
        if value == lang:
            SESSION.lang = lang
            return lang
    raise UsageProblem(t(SESSION.lang, "bad_lang", choices=", ".join(LANGS)))


_STORE_EXITS: Final[dict[StoreErrorKind, int]] = {
    "locked": 4,
    "unavailable": 5,
    "disk_full": 5,
    "misuse": 5,
    "not_found": 2,
    "not_a_database": 2,
    "permission": 2,
    "unsupported_url": 2,
}


def store_problem(exc: StoreError, lang: Lang, target: str | None = None) -> UsageProblem:
    """A database that cannot be used, as one line in ``lang`` naming the cause (disk full,
    no permission, locked, a file that is no database, a PostgreSQL database that does not
    exist and how to create it): the address without its password, the exit code by kind
    (2: fix the address or the file; 4: locked, try again later; 5: it cannot be used right
    now)."""
    from surefoot.sql import safe_url

    address = target or db_target(SESSION.db)
    url = safe_url(address)
    kind = exc.kind
    if kind == "not_found":
        message = t(lang, "no_database", path=url)
    elif kind == "unavailable" and not _is_postgres(address):
        message = t(lang, "store_io_error", url=url)  # a file: no address nor port to check
    elif kind == "unavailable" and (missing := _missing_pg_database(address)) is not None:
        kind, (server, name) = "not_found", missing
        message = t(lang, "store_no_pg_database", server=server, name=name)
    else:
        message = t(lang, f"store_{kind}", url=url)
    return UsageProblem(message, exit_code=_STORE_EXITS[kind], code=f"store_{kind}")


def _is_postgres(address: str) -> bool:
    return address.startswith(("postgresql://", "postgres://"))


def _missing_pg_database(address: str) -> tuple[str, str] | None:
    """``(server, name)`` when the PostgreSQL server ``address`` names answers and has no
    database ``name`` (asked in its ``postgres`` database); None when it has one, or cannot
    be asked (unreachable, no permission, no driver)."""
    if not _is_postgres(address):
        return None
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict, make_conninfo
    except ImportError:
        return None
    try:
        params = conninfo_to_dict(address)
        name = str(params.get("dbname") or "")
        if not name or name == "postgres":
            return None
        maintenance = make_conninfo(address, dbname="postgres", connect_timeout=5)
        with psycopg.connect(maintenance, autocommit=True) as conn:
            query = "SELECT 1 FROM pg_database WHERE datname = %s"
            found = conn.execute(query, (name,)).fetchone()
    except (psycopg.Error, ValueError):
        return None
    server = f"{params.get('host') or 'localhost'}:{params.get('port') or 5432}"
    return None if found else (server, name)


def db_target(db: str | None) -> str:
    from ..app import default_db_path

    return db or os.environ.get("GYMNASIA_DB") or str(default_db_path())


def existing_store(db: str | None, lang: Lang, user: str, *, create: bool = False) -> GymStore:
    """The user's store in ``db`` (made when ``create``, for commands that add data),
    waiting ``GYMNASIA_DB_TIMEOUT`` for a lock held by another process."""
    from surefoot import StoreError

    from ..app import open_db
    from ..store import GymStore

    target = db_target(db)
    try:
        return GymStore(open_db(target, create=create), user=user)
    except StoreError as exc:
        raise store_problem(exc, lang, target) from None


@functools.cache
def _calendar_dates() -> TypeAdapter[dt.date]:
    from pydantic import TypeAdapter

    from surefoot import CalendarDate

    return TypeAdapter(CalendarDate)


def parse_date(value: str, lang: Lang) -> dt.date:
    """A date as the tools take it (``CalendarDate``: exactly YYYY-MM-DD, a real day), so the
    command line and the model accept and refuse the same dates."""
    from pydantic import ValidationError

    try:
        return _calendar_dates().validate_python(value)
    except ValidationError:
        raise UsageProblem(t(lang, "bad_date", value=value)) from None


def parse_today(value: str | None, lang: Lang) -> dt.date | None:
    value = value or os.environ.get("GYMNASIA_TODAY")
    return parse_date(value, lang) if value else None


ProviderOpt = Annotated[
    str,
    typer.Option(
        "--provider",
        envvar="GYMNASIA_PROVIDER",
        help="offline (default, rule-based), anthropic, openai, google or openai-chat.",
    ),
]
ModelOpt = Annotated[str | None, typer.Option("--model", help="The provider's model name.")]
BaseUrlOpt = Annotated[
    str | None, typer.Option("--base-url", help="Talk to another endpoint (a local server).")
]
KeyOpt = Annotated[
    str | None, typer.Option("--api-key", help="API key (default: the usual variables).")
]
FaultOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--fault",
        help="QA only: make TOOL fail as MODE, TOOL:MODE; read_error for a read, "
        "before_commit, after_commit or ambiguous for a write; repeatable.",
    ),
]
TodayOpt = Annotated[
    str | None, typer.Option("--today", help="Fix 'today' (YYYY-MM-DD; GYMNASIA_TODAY).")
]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Model request timeout (s).")]
StreamOpt = Annotated[
    bool | None,
    typer.Option(
        "--stream/--no-stream",
        help="Show the reply as it arrives (default: yes, except under --json).",
    ),
]
GitHubApiOpt = Annotated[
    str | None,
    typer.Option(
        "--github-api-url",
        help="GitHub API for feature requests (default: GYMNASIA_GITHUB_API_URL or "
        "https://api.github.com).",
    ),
]

ConversationOpt = Annotated[
    str | None, typer.Option("--conversation", help="Only this conversation (its ID).")
]


def parse_meal(value: str, lang: Lang) -> str:
    from .. import meals

    found = meals.resolve(value)
    if found is None:
        raise UsageProblem(t(lang, "unknown_meal", value=value, meals=", ".join(meals.MEAL_IDS)))
    return found


def parse_choice(
    value: str | None, option: str, choices: tuple[str, ...], lang: Lang
) -> str | None:
    if value is None or value in choices:
        return value
    listed = ", ".join(choices)
    raise UsageProblem(t(lang, "bad_choice", value=value, option=option, choices=listed))


_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(?:[.,][0-9]+)?")


def parse_amount(value: str | None, low: float, high: float) -> float | None:
    """A number as people type it (decimal comma or point) within ``[low, high]``."""
    if value is None or not _PLAIN_NUMBER.fullmatch(value.strip()):
        return None  # float() would also take "1_000", "1e3", "inf" and "nan"
    parsed = float(value.strip().replace(",", "."))
    return parsed if low <= parsed <= high else None


def parse_bounded(
    value: str | None, option: str, lang: Lang, low: float, high: float
) -> float | None:
    parsed = parse_amount(value, low, high)
    if value is not None and parsed is None:
        limits = {"low": number(low, lang), "high": number(high, lang)}
        raise UsageProblem(t(lang, "bad_number", value=value, option=option, **limits))
    return parsed
