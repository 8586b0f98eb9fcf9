"""The public namespace is curated: ``__all__`` is sorted, complete and importable."""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys

import pytest

import surefoot
import surefoot.testing

# The top level is what an app author touches; changing it is an API change, so it is pinned.
TOP_LEVEL = [
    "Agent", "Approval", "Arguments", "CalendarDate", "ConfigurationError",
    "ConversationBusyError", "Detail", "Diagnostic", "ErrorCode", "Journal", "Lang", "Ledger",
    "MemoryJournal", "MemoryLedger", "Model", "ModelRequest", "ModelResponse", "Ok", "Outcome",
    "PendingConfirmation", "ProviderConnectionError", "ProviderError", "ReconcileResult",
    "Recovery", "Redactor", "SqlDiagnostics", "SqlJournal", "SqlLedger", "StopReason",
    "StoreError", "SurefootError", "Tool", "ToolContext", "ToolError", "ToolSet", "TurnEvent",
    "TurnPendingError", "TurnResult", "Usage", "open_database",
]  # fmt: skip

TESTING = [
    "FakeAnthropicServer", "FakeGoogleInteractionsServer", "FakeHTTPServer",
    "FakeOpenAIChatServer", "FakeOpenAIResponsesServer", "FunctionModel", "RecordedRequest",
    "Reply", "ScriptError", "ScriptedModel", "Step", "call", "rechunk", "sse_event", "turn",
    "write_transcript",
]  # fmt: skip

SUBMODULES = ["messages", "outcome", "ledger", "journal", "sql", "diagnostics", "executor"]


def test_top_level_is_pinned_and_small() -> None:
    """The top-level namespace is exactly the curated list, and stays at most 40 names."""
    assert surefoot.__all__ == TOP_LEVEL
    assert len(surefoot.__all__) <= 40


def test_testing_exports_are_pinned() -> None:
    """``surefoot.testing`` exports what tests of an app need, and only that."""
    assert sorted(surefoot.testing.__all__) == sorted(TESTING)


@pytest.mark.parametrize("name", SUBMODULES)
def test_public_submodules_export_real_objects(name: str) -> None:
    """Each documented submodule lists sorted, importable names."""
    module = importlib.import_module(f"surefoot.{name}")
    assert module.__all__ == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
    for attr in module.__all__:
        assert getattr(module, attr) is not None, attr


def test_every_internal_name_has_a_public_home() -> None:
    """Nothing the old flat namespace offered is lost: each name is in one public module."""
    homes = set(surefoot.__all__) | set(surefoot.testing.__all__)
    for name in SUBMODULES:
        homes |= set(importlib.import_module(f"surefoot.{name}").__all__)
    for needed in ("Executor", "LedgerEntry", "Lease", "ToolCall", "to_wire", "Database", "Tx"):
        assert needed in homes


def test_version_matches_the_distribution() -> None:
    """``surefoot.__version__`` is the installed distribution's version."""
    assert surefoot.__version__ == importlib.metadata.version("surefoot")


def test_all_is_sorted_and_importable() -> None:
    """Every name in ``surefoot.__all__`` exists, and the list is sorted (constants first)."""
    names = surefoot.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert hasattr(surefoot, name), name


def test_no_private_module_names_leak() -> None:
    """Public attributes of ``surefoot`` that are not modules are all listed in ``__all__``."""
    public = {
        name
        for name, value in vars(surefoot).items()
        if not name.startswith("_") and type(value).__name__ != "module"
    }
    assert public <= set(surefoot.__all__)


def test_testing_namespace_is_listed() -> None:
    """``surefoot.testing.__all__`` names only real, public objects."""
    for name in surefoot.testing.__all__:
        assert hasattr(surefoot.testing, name), name


def test_import_is_fast_and_lazy() -> None:
    """``import surefoot`` loads no provider SDK (they cost seconds to import)."""
    code = (
        "import sys, surefoot, surefoot.providers; "
        "print(sorted(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_loads_no_pydantic_until_a_model_is_needed() -> None:
    """``import surefoot`` loads none of pydantic (its model machinery is most of the import
    cost); declaring a tool or asking for ``Arguments`` loads it, and both work."""
    code = (
        "import sys, surefoot\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(loaded & {'pydantic', 'pydantic_core'}))\n"
        "tools = surefoot.ToolSet()\n"
        "@tools.tool\n"
        "def read_day(date: surefoot.CalendarDate) -> dict:\n"
        "    'Read one day.'\n"
        "    return {}\n"
        "print(read_day.spec().parameters['properties']['date'])\n"
        "print(issubclass(surefoot.Arguments, sys.modules['pydantic'].BaseModel))\n"
        "config = surefoot.Arguments.model_config\n"
        "print(config['strict'], config['extra'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "[]",
        "{'format': 'date', 'type': 'string'}",
        "True",
        "True forbid",
    ]
    with pytest.raises(AttributeError, match="no attribute 'Argumnets'"):
        _ = surefoot.Argumnets  # type: ignore[attr-defined]
