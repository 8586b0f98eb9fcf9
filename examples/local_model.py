"""An agent on a local OpenAI-compatible server (llama.cpp's ``llama-server``, Ollama, vLLM).

It talks to the server at ``SUREFOOT_LOCAL_BASE_URL`` (default ``http://127.0.0.1:8088/v1``)
with the model ``SUREFOOT_LOCAL_MODEL`` (default: the first one the server lists). When no
server answers there it says so and exits cleanly (status 0), so it is safe to run anywhere.
Needs the ``openai`` extra (``pip install 'surefoot[openai]'``). Start a server first, e.g.
``llama-server -m model.gguf --jinja --port 8088``, then run
``python examples/local_model.py``.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

from surefoot import Agent, CalendarDate, Recovery, ToolError, ToolSet
from surefoot.providers import make_model

BASE_URL = os.environ.get("SUREFOOT_LOCAL_BASE_URL", "http://127.0.0.1:8088/v1").rstrip("/")
WEIGHTS = {"2020-01-01": 76.0}
tools = ToolSet()


@tools.tool
def read_weight(date: CalendarDate) -> dict[str, Any] | ToolError:
    """Read the body weight (kg) saved for one date (YYYY-MM-DD)."""
    day = date.isoformat()
    if day not in WEIGHTS:
        return ToolError("not_found", f"No weight is saved for {day}.", Recovery.CHOOSE_ALTERNATIVE)
    return {"date": day, "weight_kg": WEIGHTS[day]}


def served_models() -> list[str] | None:
    """The model names the server lists, or None when no server answers at ``BASE_URL``."""
    try:
        with urllib.request.urlopen(f"{BASE_URL}/models", timeout=3) as response:
            listing = json.load(response)
    except (OSError, ValueError):  # refused, unreachable, timed out, not JSON
        return None
    return [str(entry["id"]) for entry in listing.get("data", []) if "id" in entry]


def main() -> None:
    """One turn on the local model, or a clean skip."""
    models = served_models()
    if models is None:
        print(f"skipped: no OpenAI-compatible server answers at {BASE_URL}")
        print("start one (llama-server, ollama serve) or set SUREFOOT_LOCAL_BASE_URL")
        return
    name = os.environ.get("SUREFOOT_LOCAL_MODEL") or (models[0] if models else "local")
    model = make_model("openai-chat", name, base_url=BASE_URL, timeout=300, max_tokens=1024)
    agent = Agent(model=model, tools=tools, system="Use the tools; never guess a weight.")
    result = agent.run_turn_sync("What did I weigh on 2020-01-02? If nothing, try 2020-01-01.")
    for record in result.calls:
        outcome = record.outcome
        shown = f"error {outcome.code}" if isinstance(outcome, ToolError) else outcome.data
        print(f"{record.call.name}({record.call.arguments}) -> {shown}")
    print(f"reply ({result.reply_author}, {name}): {result.reply}")


if __name__ == "__main__":
    main()
