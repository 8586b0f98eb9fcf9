"""Where a person checks a write whose outcome is unknown: the command (CLI) or the page (web)
that shows it, named in the harness's stop message and, on the web, linked under it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Literal

from surefoot import Lang
from surefoot.messages import ToolCall

from .texts import t

Surface = Literal["cli", "web"]
WhereFunction = Callable[[ToolCall, Lang], str]

MEASUREMENT_TOOLS: Final = frozenset({"write_measurement"})
"""Writes the measurements page shows; every other write is on the writes page."""


def data_command(call: ToolCall) -> str | None:
    """The data command that shows what ``call`` wrote, when there is one."""
    args = call.arguments or {}
    date = args.get("date")
    if call.name == "write_measurement" and isinstance(date, str):
        return f"gymnasia measurements show {date}"
    if call.name == "add_meal_food" and isinstance(date, str):
        meal = args.get("meal")
        return f"gymnasia meals show {date}" + (f" --meal {meal}" if isinstance(meal, str) else "")
    if call.name == "create_routine":
        return "gymnasia routines list"
    return None


def check_page(tool: str) -> str:
    """The web page that shows what ``tool`` wrote."""
    return "/measurements" if tool in MEASUREMENT_TOOLS else "/writes"


UNCONFIRMED_CODES: Final = frozenset({"outcome_unknown", "in_progress"})


def check_link(calls: Sequence[dict[str, Any]], lang: Lang) -> dict[str, str] | None:
    """The page to check the last call of ``calls`` (as ``render.call_json`` shows them) whose
    outcome is unconfirmed: ``{"href", "label"}``, or None when there is none."""
    for call in reversed(calls):
        outcome = call.get("outcome") or {}
        if outcome.get("is_error") is True and outcome.get("error") in UNCONFIRMED_CODES:
            page = check_page(str(call.get("name")))
            key = "page_measurements" if page == "/measurements" else "page_writes"
            return {"href": f"{page}?lang={lang}", "label": t(lang, key)}
    return None


def where_to_check(surface: Surface, options: Sequence[str] = ()) -> WhereFunction:
    """The ``Agent(where_to_check=...)`` of a surface; ``options`` (``--db ...``,
    ``--user ...``) are added to every command so that it reads the same data."""
    suffix = "".join(f" {option}" for option in options)

    def where(call: ToolCall, lang: Lang) -> str:
        if surface == "web":
            page = (
                "page_measurements" if check_page(call.name) == "/measurements" else "page_writes"
            )
            return t(lang, "check_web", page=t(lang, page))
        options = suffix if lang == "es" else f"{suffix} --lang {lang}"
        writes = f"gymnasia writes{options}"
        command = data_command(call)
        if command is None:
            return t(lang, "check_cli_writes", writes=writes)
        return t(lang, "check_cli", writes=writes, data=command + options)

    return where
