"""Typed tool results: a tool may return a pydantic model or a dataclass instead of a dict.

surefoot writes such a result in pydantic's JSON mode (a date becomes its ISO text, an enum its
value), checks it like any other data, and the model receives that JSON object. The return
annotation is checked when the tool is declared, so a type that has no JSON form is refused
then, not at run time. Run it with ``python examples/typed_results.py``.
"""

from __future__ import annotations

import datetime as dt
import enum
from dataclasses import dataclass

from pydantic import BaseModel

from surefoot import Agent, CalendarDate, Ok, Recovery, ToolError, ToolSet
from surefoot.testing import ScriptedModel, call, turn


class Trend(enum.StrEnum):
    """Which way the weight went."""

    DOWN = "down"
    FLAT = "flat"
    UP = "up"


class Measurement(BaseModel):
    """One day's measurement (a pydantic model)."""

    day: dt.date
    weight_kg: float


@dataclass(frozen=True)
class Summary:
    """A span of days, summed up (a dataclass)."""

    first: Measurement
    last: Measurement
    trend: Trend


SAVED = {
    dt.date(2020, 1, 1): Measurement(day=dt.date(2020, 1, 1), weight_kg=76.0),
    dt.date(2020, 1, 8): Measurement(day=dt.date(2020, 1, 8), weight_kg=75.2),
}
tools = ToolSet()


@tools.tool
def read_measurement(date: CalendarDate) -> Measurement | ToolError:
    """Read the measurement saved for one date (YYYY-MM-DD)."""
    if date not in SAVED:
        return ToolError("not_found", f"Nothing is saved for {date}.", Recovery.CHOOSE_ALTERNATIVE)
    return SAVED[date]


@tools.tool
def summarize() -> Summary:
    """Sum up every saved measurement: the first, the last and the trend."""
    first, *_, last = sorted(SAVED.values(), key=lambda m: m.day)
    change = last.weight_kg - first.weight_kg
    trend = Trend.FLAT if abs(change) < 0.1 else Trend.DOWN if change < 0 else Trend.UP
    return Summary(first, last, trend)


def main() -> None:
    """One turn calling both tools; print the JSON each result became."""
    model = ScriptedModel(
        [
            turn(call("read_measurement", {"date": "2020-01-08"}), call("summarize", {})),
            turn("On 2020-01-08 you weighed 75.2 kg, down from 76 kg a week before."),
        ]
    )
    result = Agent(model=model, tools=tools).run_turn_sync("How is my weight going?")
    for record in result.calls:
        assert isinstance(record.outcome, Ok)
        print(f"{record.call.name} -> {record.outcome.data}")
    print(f"reply: {result.reply}")


if __name__ == "__main__":
    main()
