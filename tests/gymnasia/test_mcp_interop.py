"""``gymnasia mcp`` with the clients people use: every tool listed and called with typical
arguments by the MCP Inspector's CLI (Node) and by the official Python SDK's client sending
what the Inspector would send.

The Inspector's CLI (0.15.0, ``cli/build/client/tools.js``) takes each ``--tool-arg k=v`` as a
string and converts it by the listed input schema's top-level ``type`` of ``k`` only:
``number`` and ``integer`` with JavaScript's ``Number(v)``, ``boolean`` as ``v.lower() ==
"true"``, ``object`` and ``array`` with ``JSON.parse(v)`` (the string kept if that fails);
any other schema (a string, an ``anyOf``, no ``type``) sends the string. ``inspector_coerce``
re-implements exactly that, so the SDK test checks the same arguments wherever Node is not.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp import Client, StdioServerParameters

# (tool, --tool-arg pairs as typed on a command line, the error code expected or None).
# In order, on one database: what a write adds, the calls after it use.
SERIES = '[{"reps": 12, "weight_kg": 0, "rest_seconds": 60}]'
ROUTINE = '[{"exercise_id": "back_squat", "series": ' + SERIES + "}]"
TYPICAL: list[tuple[str, list[str], str | None]] = [
    ("write_measurement", ["date=2020-01-04", "weight_kg=80.5", "body_fat_pct=18"], None),
    ("read_measurement", ["date=2020-01-04"], None),
    ("read_measurement", ["date=2020-01-05"], "not_found"),
    ("list_measurements", ["date_from=2020-01-01", "date_to=2020-01-31"], None),
    ("edit_measurement", ["date=2020-01-04", "waist_cm=82.5"], None),
    # emptying a field asks the person first: over MCP without elicitation, nobody said yes
    ("edit_measurement", ["date=2020-01-04", 'clear=["body_fat_pct"]'], "denied"),
    ("delete_measurement", ["date=2020-01-04"], "denied"),
    ("save_memory", ["key=goal", "description=Training goal", "value=Run 5 km"], None),
    ("list_memory_keys", [], None),
    ("read_memory", ["key=goal"], None),
    ("delete_memory", ["key=goal"], "denied"),
    ("save_goal", ["measure=weight_kg", "target=74", "by_date=2030-06-01"], None),
    ("read_goals", [], None),
    ("search_foods", ["query=oats", "max_calories=400", "sort_by=protein"], None),
    ("read_meal", ["date=2020-01-04", "meal=breakfast"], None),
    (
        "add_meal_food",
        ["date=2020-01-04", "meal=breakfast", "food_id=rolled_oats", "grams=60"],
        None,
    ),
    ("edit_meal_item", ["item_id=1", "grams=80.5"], None),
    ("delete_meal_item", ["item_id=1"], "denied"),
    ("search_exercises", ["query=squat", "muscle_group=quadriceps"], None),
    ("create_routine", ["name=Leg day", "category=strength", f"exercises={ROUTINE}"], None),
    ("read_routines", [], None),
    ("rename_routine", ["routine=Leg day", "new_name=Legs"], None),
    (
        "add_routine_exercise",
        ["routine=Legs", "exercise_id=back_squat", f"series={SERIES}", "position=1"],
        None,
    ),
    ("reorder_routine_exercises", ["routine=Legs", "order=[2, 1]"], None),
    ("remove_routine_exercise", ["routine=Legs", "position=2"], "denied"),
    ("delete_routine", ["routine=Legs"], "denied"),
    ("create_feature_issue", ["title=Dark mode", "description=Easier on the eyes"], "denied"),
]


def inspector_coerce(schema: dict[str, Any], pairs: list[str]) -> dict[str, Any]:
    """The arguments the Inspector's CLI sends for ``pairs`` given the tool's input schema."""
    properties = schema.get("properties", {})
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        assert value, f"the Inspector refuses {pair!r} (key=value with a value)"
        kind = properties.get(key, {}).get("type")
        if kind in ("number", "integer"):
            arguments[key] = _js_number(value)
        elif kind == "boolean":
            arguments[key] = value.lower() == "true"
        elif kind in ("object", "array"):
            try:
                arguments[key] = json.loads(value)
            except ValueError:
                arguments[key] = value
        else:
            arguments[key] = value
    return arguments


def _js_number(value: str) -> float | int | None:
    """JavaScript's ``Number(value)`` for the decimal texts a person types (NaN is sent as
    JSON null, as ``JSON.stringify`` writes it)."""
    try:
        number = float(value.strip()) if value.strip() else 0.0
    except ValueError:
        return None
    if math.isnan(number) or math.isinf(number):
        return None
    return int(number) if number.is_integer() else number


def test_the_coercion_is_the_inspectors() -> None:
    """The re-implementation gives what the Inspector's code gives for each kind of schema."""
    schema = {
        "properties": {
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "b": {"type": "boolean"},
            "a": {"type": "array"},
            "o": {"type": "object"},
            "s": {"type": "string"},
            "u": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        }
    }
    pairs = ["n=80.5", "i=3", "b=TRUE", "a=[1]", "o={bad", "s=12", "u=80.5", "x=1"]
    assert inspector_coerce(schema, pairs) == {
        "n": 80.5,
        "i": 3,
        "b": True,
        "a": [1],
        "o": "{bad",
        "s": "12",
        "u": "80.5",  # what the issue saw: an anyOf number arrives as a string
        "x": "1",
    }
    assert inspector_coerce(schema, ["n=abc"]) == {"n": None}


def _env() -> dict[str, str]:
    """This process's environment (PYTHONPATH included: the server runs the code under
    test)."""
    return dict(os.environ)


def _server_args(db: Path) -> list[str]:
    return ["-m", "gymnasia", "mcp", "--db", str(db), "--lang", "en"]


def _sdk_session(db: Path) -> tuple[list[types.Tool], list[tuple[str, types.CallToolResult]]]:
    """The listing, then every typical call with the Inspector's arguments, over stdio."""
    params = StdioServerParameters(command=sys.executable, args=_server_args(db), env=_env())

    async def main() -> tuple[list[types.Tool], list[tuple[str, types.CallToolResult]]]:
        with anyio.fail_after(120):
            async with Client(params, read_timeout_seconds=30) as client:
                listed = (await client.list_tools()).tools
                schemas = {t.name: t.input_schema for t in listed}
                results = []
                for name, pairs, _ in TYPICAL:
                    arguments = inspector_coerce(schemas[name], pairs)
                    results.append((name, await client.call_tool(name, arguments)))
                return listed, results

    return anyio.run(main)


def _check(listed: list[dict[str, Any]], results: list[tuple[str, dict[str, Any]]]) -> None:
    """Every tool was called; each result is the outcome expected, its structuredContent
    satisfies the tool's output schema and its text is the same JSON."""
    assert {t["name"] for t in listed} == {name for name, _, _ in TYPICAL}
    outputs = {t["name"]: t["outputSchema"] for t in listed}
    for (name, result), (_, pairs, code) in zip(results, TYPICAL, strict=True):
        structured = result["structuredContent"]
        got = structured["error"]["code"] if result.get("isError") else None
        assert got == code, (name, pairs, structured)
        Draft202012Validator(outputs[name]).validate(structured)
        [text] = [c["text"] for c in result["content"] if c["type"] == "text"]
        assert json.loads(text) == structured


def test_the_sdk_client_calls_every_tool_with_the_inspectors_arguments(tmp_path: Path) -> None:
    """Through the official Python client, each tool called with string arguments converted
    as the Inspector converts them gives the outcome expected (80.5 arrives as a number)."""
    listed, results = _sdk_session(tmp_path / "gymnasia.db")
    _check(
        [t.model_dump(by_alias=True, mode="json") for t in listed],
        [(n, r.model_dump(by_alias=True, mode="json")) for n, r in results],
    )
    saved = results[0][1].structured_content
    assert saved is not None
    assert saved["weight_kg"] == 80.5


def test_every_schema_is_strict_draft_2020_12_with_plain_types(tmp_path: Path) -> None:
    """Each input and output schema passes the draft 2020-12 meta-schema; each parameter
    has one plain ``type`` (what the Inspector coerces by), optional ones left out of
    ``required``; every tool has a title and honest annotations."""
    listed, _ = _sdk_session(tmp_path / "gymnasia.db")
    for tool in listed:
        Draft202012Validator.check_schema(tool.input_schema)
        assert tool.output_schema is not None
        Draft202012Validator.check_schema(tool.output_schema)
        for name, prop in tool.input_schema["properties"].items():
            assert isinstance(prop.get("type"), str), (tool.name, name, prop)
        assert tool.title
        assert tool.annotations is not None
    additive = {
        t.name
        for t in listed
        if t.annotations and not t.annotations.read_only_hint and not t.annotations.destructive_hint
    }
    assert additive == {
        "add_meal_food",
        "create_routine",
        "add_routine_exercise",
        "create_feature_issue",
    }


def _inspector(bin_path: Path, db: Path, *args: str) -> dict[str, Any]:
    """One run of the Inspector's CLI against ``gymnasia mcp`` (its JSON output)."""
    proc = subprocess.run(
        [str(bin_path), "--cli", sys.executable, *_server_args(db), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=_env(),
    )
    assert proc.returncode == 0, (args, proc.stderr)
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.skipif(sys.platform == "win32", reason="the Inspector's launcher is a shell script")
def test_the_mcp_inspector_cli_lists_and_calls_every_tool(
    mcp_inspector: Path, tmp_path: Path
) -> None:
    """The MCP Inspector's CLI lists the tools, then calls each with typical ``--tool-arg``
    strings: every call is the outcome expected, and every result passes its own output
    schema check (the Inspector's SDK checks errors against it too)."""
    db = tmp_path / "gymnasia.db"
    listed = _inspector(mcp_inspector, db, "--method", "tools/list")["tools"]
    results = []
    for name, pairs, _ in TYPICAL:
        args = ["--method", "tools/call", "--tool-name", name]
        if pairs:
            args += ["--tool-arg", *pairs]
        results.append((name, _inspector(mcp_inspector, db, *args)))
    _check(listed, results)
    assert results[0][1]["structuredContent"]["weight_kg"] == 80.5
