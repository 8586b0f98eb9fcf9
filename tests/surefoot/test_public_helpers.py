"""The library's smaller public entry points, and the mistakes they must refuse clearly:
``make_model``, languages, transcripts read back from JSON, database URLs, error envelopes
and result data, validation details, and ``ToolContext.commit_in`` outside a write."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field

from surefoot import (
    ConfigurationError,
    Detail,
    MemoryLedger,
    Recovery,
    StoreError,
    Tool,
    ToolContext,
    ToolError,
    ToolSet,
    open_database,
)
from surefoot._outcome import checked_data
from surefoot._texts import coerce_lang
from surefoot.diagnostics import MemoryDiagnostics
from surefoot.executor import Executor, TurnState
from surefoot.messages import message_from_json
from surefoot.outcome import envelope_to_error
from surefoot.providers import PROVIDERS, make_model
from surefoot.testing import call

# -- make_model -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "label"),
    [
        ("anthropic", "anthropic"),
        ("openai", "openai"),
        ("google", "google"),
        ("openai-chat", "openai-chat"),
    ],
)
def test_make_model_builds_each_adapter_with_its_options(provider: Any, label: str) -> None:
    """Each provider name gives its adapter, with the model name and endpoint it was given."""
    model = make_model(provider, "m-1", api_key="k", base_url="http://127.0.0.1:9/v1")
    assert (model.provider, model.model_name) == (label, "m-1")
    assert getattr(model, "base_url", None) == "http://127.0.0.1:9/v1"
    assert provider in PROVIDERS


def test_make_model_refuses_an_unknown_provider_naming_the_known_ones() -> None:
    with pytest.raises(ConfigurationError, match="unknown provider 'mistral'") as caught:
        make_model("mistral", "m")  # type: ignore[arg-type]
    assert all(name in str(caught.value) for name in PROVIDERS)


# -- languages --------------------------------------------------------------------------------


def test_a_language_is_one_of_the_supported_ones() -> None:
    assert [coerce_lang(v) for v in ("es", "pt", "en")] == ["es", "pt", "en"]
    with pytest.raises(ValueError, match="unsupported language 'fr'; use one of es, pt, en"):
        coerce_lang("fr")


# -- transcripts from JSON --------------------------------------------------------------------


def test_a_message_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown message kind 'system'"):
        message_from_json({"kind": "system", "text": "x"})


def test_a_part_of_an_unknown_kind_is_refused() -> None:
    data = {"kind": "assistant", "parts": [{"kind": "image", "url": "x"}], "finish": "end_turn"}
    with pytest.raises(ValueError, match="unknown part kind 'image'"):
        message_from_json(data)


# -- database URLs ----------------------------------------------------------------------------


def test_an_unsupported_database_url_is_refused() -> None:
    with pytest.raises(StoreError, match="unsupported database URL"):
        open_database("mysql://localhost/db")


def test_a_missing_file_is_not_created_when_told_not_to(tmp_path: Path) -> None:
    target = tmp_path / "nope.db"
    with pytest.raises(StoreError, match="does not exist"):
        open_database(target, create=False)
    assert not target.exists()
    database = open_database(f"sqlite:///{target}")
    try:
        assert database.url == f"sqlite:///{target}"
        assert target.exists()
    finally:
        database.close()


def test_an_unreachable_postgresql_server_is_a_store_error() -> None:
    """Nothing listens on port 1: a ``StoreError`` that does not repeat the password."""
    with pytest.raises(StoreError, match="cannot be reached") as caught:
        open_database("postgresql://user:secret@127.0.0.1:1/db")
    assert "secret" not in str(caught.value)


# -- error envelopes and result data ----------------------------------------------------------

ENVELOPE: dict[str, Any] = {
    "kind": "tool_error",
    "version": 1,
    "is_error": True,
    "error": "not_found",
    "message": "No existe.",
    "recovery": "choose_alternative",
    "recoverable": True,
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"error": 5}, "needs error, message and recovery"),
        ({"message": None}, "needs error, message and recovery"),
        ({"details": [{"field": "d", "problem": "p", "expected": 3}]}, "well-formed details"),
        ({"details": ["d"]}, "well-formed details"),
        ({"recoverable": False}, "recoverable must be false exactly when"),
        ({"version": 2}, "unsupported envelope version 2"),
        ({"is_error": "true"}, "not a tool_error envelope"),
    ],
)
def test_a_malformed_envelope_is_refused(change: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        envelope_to_error({**ENVELOPE, **change})


def test_a_well_formed_envelope_with_details_reads_back() -> None:
    details = [{"field": "d", "problem": "p", "expected": None}, {"field": "e", "problem": "q"}]
    error = envelope_to_error({**ENVELOPE, "details": details})
    assert error == ToolError(
        "not_found", "No existe.", Recovery.CHOOSE_ALTERNATIVE, (Detail("d", "p"), Detail("e", "q"))
    )


def test_error_details_must_be_detail_values() -> None:
    with pytest.raises(ValueError, match="details must be Detail values"):
        ToolError("not_found", "No existe.", Recovery.CHOOSE_ALTERNATIVE, ("d",))  # type: ignore[arg-type]


def test_result_data_in_lists_is_checked_all_the_way_down() -> None:
    """Lists (and tuples) are walked like objects: what is fine passes unchanged, a NaN or a
    set deep inside is refused."""
    fine = {"sets": [1, 2.5, None, True, ["x", {"y": (1, 2)}]]}
    assert checked_data(fine) is fine
    with pytest.raises(ValueError, match="not finite"):
        checked_data({"sets": [1, [float("nan")]]})
    with pytest.raises(ValueError, match="holds a set"):
        checked_data({"sets": [{"x": {1, 2}}]})


# -- validation details -----------------------------------------------------------------------


def test_length_limits_are_explained() -> None:
    """Too short and too long strings and lists say the limit they missed."""

    def rename(
        name: Annotated[str, Field(min_length=2, max_length=5)],
        tags: Annotated[list[str], Field(max_length=1)],
    ) -> dict[str, Any]:
        """Rename something."""
        return {}

    tool = Tool.from_function(rename, effect="read")
    short = tool.validate({"name": "a", "tags": []})
    long = tool.validate({"name": "abcdefg", "tags": ["x", "y"]})
    assert isinstance(short, tuple)
    assert isinstance(long, tuple)
    assert [(d.field, d.expected) for d in short] == [
        ("name", "at least 2 character(s) or item(s)")
    ]
    assert [(d.field, d.expected) for d in long] == [
        ("name", "at most 5 character(s) or item(s)"),
        ("tags", "at most 1 character(s) or item(s)"),
    ]


def test_an_extra_field_inside_a_plain_object_allows_nothing_named() -> None:
    """Inside a field typed as a plain mapping there is no model to list fields from."""

    def tag(labels: dict[str, int]) -> dict[str, Any]:
        """Tag something."""
        return {}

    details = Tool.from_function(tag, effect="read").validate({"labels": {"a": "x"}})
    assert isinstance(details, tuple)
    assert [(d.field, d.expected) for d in details] == [("labels.a", "an integer")]


# -- ToolContext.commit_in --------------------------------------------------------------------


def test_commit_in_outside_a_write_is_a_configuration_mistake() -> None:
    """A read that calls ``commit_in`` fails inside the error boundary: the model gets
    ``unavailable``, the diagnostics keep the ConfigurationError."""
    tools = ToolSet()

    @tools.tool(effect="read")
    def peek(ctx: ToolContext) -> dict[str, Any]:
        """Look without writing."""
        ctx.commit_in(object(), {"seen": True})
        return {"seen": True}

    diagnostics = MemoryDiagnostics()
    executor = Executor(tools, ledger=MemoryLedger(), diagnostics=diagnostics)
    batch = asyncio.run(executor.run_batch([call("peek")], TurnState("c1", 0, lang="en")))
    (record,) = batch.records
    assert isinstance(record.outcome, ToolError)
    assert record.outcome.code == "unavailable"
    assert "commit_in" not in record.outcome.message
    (diagnostic,) = diagnostics.list()
    assert (diagnostic.tool, diagnostic.exception_type) == ("peek", "ConfigurationError")
    assert diagnostic.message == "commit_in is only for write tools run with a ledger"
