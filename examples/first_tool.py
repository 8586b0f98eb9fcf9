"""A first tool: a typed read whose missing record is an expected condition, not a failure.

The tool returns its data, or a ``ToolError`` with a stable code and a recovery directive; the
model (here a ``ScriptedModel``, so no key is needed) receives the error marked as one and
tries another date. Run it with ``python examples/first_tool.py``.
"""

from __future__ import annotations

from typing import Any

from surefoot import Agent, CalendarDate, Recovery, ToolError, ToolSet
from surefoot.testing import ScriptedModel, call, turn

WEIGHTS = {"2020-01-01": 76.0}
tools = ToolSet()


@tools.tool
def read_weight(date: CalendarDate) -> dict[str, Any] | ToolError:
    """Read the body weight (kg) saved for one date (YYYY-MM-DD)."""
    day = date.isoformat()
    if day not in WEIGHTS:
        return ToolError("not_found", f"No weight is saved for {day}.", Recovery.CHOOSE_ALTERNATIVE)
    return {"date": day, "weight_kg": WEIGHTS[day]}


def main() -> None:
    """One turn: a call that finds nothing, the fallback date, the answer."""
    model = ScriptedModel(
        [
            turn(call("read_weight", {"date": "2020-01-02"})),
            turn(call("read_weight", {"date": "2020-01-01"})),
            turn("Nothing is saved for 2020-01-02; on 2020-01-01 you weighed 76 kg."),
        ]
    )
    agent = Agent(model=model, tools=tools)
    result = agent.run_turn_sync("What did I weigh on 2020-01-02, or the day before?")
    for record in result.calls:
        outcome = record.outcome
        shown = f"error {outcome.code} ({outcome.recovery})" if outcome.is_error else outcome.data
        print(f"{record.call.name}({record.call.arguments}) -> {shown}")
    print(f"reply ({result.reply_author}): {result.reply}")


if __name__ == "__main__":
    main()
