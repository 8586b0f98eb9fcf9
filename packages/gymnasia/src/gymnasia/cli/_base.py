"""What every command shares: the Typer apps, the consoles, the options, and the parsers
that turn what a person typed into values (or one ``UsageProblem`` line)."""

from __future__ import annotations

import datetime as dt
import os
from typing import Annotated

import typer
from pydantic import TypeAdapter, ValidationError
from rich.console import Console

from surefoot import CalendarDate, Lang, StoreError, open_database
from surefoot.outcome import LANGS

from .. import meals
from ..app import default_db_path
from ..store import GymStore
from ..texts import number, t

app = typer.Typer(
    name="gymnasia",
    help="Gymnasia Coach: a fitness coach over your own data, built on the surefoot harness.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
measurements_app = typer.Typer(help="Read and seed body measurements without the agent.")
approvals_app = typer.Typer(help="Confirm or refuse actions waiting for a person.")
app.add_typer(measurements_app, name="measurements")
app.add_typer(approvals_app, name="approvals")

meals_app = typer.Typer(help="Read and log meals without the agent.")
routines_app = typer.Typer(help="Read training routines without the agent.")
foods_app = typer.Typer(help="Search the bundled food table.")
exercises_app = typer.Typer(help="Search the bundled exercise table.")
app.add_typer(meals_app, name="meals")
app.add_typer(routines_app, name="routines")
app.add_typer(foods_app, name="foods")
app.add_typer(exercises_app, name="exercises")

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


class UsageProblem(Exception):  # noqa: N818 - a user mistake, reported as one line
    """A user mistake (or a state that stops the command): one line on stderr, exit 2 unless
    ``exit_code`` says otherwise (4: busy, try again later)."""

    def __init__(self, message: str, *, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


DbOpt = Annotated[
    str | None,
    typer.Option("--db", help="SQLite file, sqlite:///path, or postgresql://... URL."),
]
LangOpt = Annotated[
    str, typer.Option("--lang", envvar="GYMNASIA_LANG", help="Language: es, pt or en.")
]
UserOpt = Annotated[str, typer.Option("--user", help="Whose data (one database, many users).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def parse_lang(value: str) -> Lang:
    for lang in LANGS:
        if value == lang:
            return lang
    msg = f"--lang must be one of {', '.join(LANGS)}"
    raise UsageProblem(msg)


def db_target(db: str | None) -> str:
    return db or os.environ.get("GYMNASIA_DB") or str(default_db_path())


def existing_store(db: str | None, lang: Lang, user: str) -> GymStore:
    target = db_target(db)
    try:
        return GymStore(open_database(target, create=False), user=user)
    except StoreError:
        raise UsageProblem(t(lang, "no_database", path=target)) from None


_CALENDAR_DATE: TypeAdapter[dt.date] = TypeAdapter(CalendarDate)


def parse_date(value: str, lang: Lang) -> dt.date:
    """A date as the tools take it (``CalendarDate``: exactly YYYY-MM-DD, a real day), so the
    command line and the model accept and refuse the same dates."""
    try:
        return _CALENDAR_DATE.validate_python(value)
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
    typer.Option("--fault", help="QA only: TOOL:MODE (read_error, before_commit, ...)."),
]
TodayOpt = Annotated[str | None, typer.Option("--today", help="Fix 'today' (YYYY-MM-DD).")]
TimeoutOpt = Annotated[float, typer.Option("--timeout", help="Model request timeout (s).")]
StreamOpt = Annotated[
    bool | None, typer.Option("--stream/--no-stream", help="Stream the reply as it arrives.")
]
GitHubApiOpt = Annotated[
    str | None,
    typer.Option(
        "--github-api-url",
        help="GitHub API for feature requests (default: GYMNASIA_GITHUB_API_URL or "
        "https://api.github.com).",
    ),
]

ConversationOpt = Annotated[str | None, typer.Option("--conversation")]


def parse_meal(value: str, lang: Lang) -> str:
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


def parse_amount(value: str | None, low: float, high: float) -> float | None:
    """A number as people type it (decimal comma or point) within ``[low, high]``."""
    if value is None:
        return None
    try:
        parsed = float(value.strip().replace(",", "."))
    except ValueError:
        return None
    return parsed if low <= parsed <= high else None  # also refuses nan


def parse_bounded(
    value: str | None, option: str, lang: Lang, low: float, high: float
) -> float | None:
    parsed = parse_amount(value, low, high)
    if value is not None and parsed is None:
        limits = {"low": number(low, lang), "high": number(high, lang)}
        raise UsageProblem(t(lang, "bad_number", value=value, option=option, **limits))
    return parsed
