"""``make_model`` refuses bad configuration with ``ConfigurationError`` before importing an
SDK: an unknown provider, a missing key, an empty model name, a base URL that is not one."""

from __future__ import annotations

import pytest

from surefoot import ConfigurationError
from surefoot.exceptions import PROVIDER_ERROR_KINDS
from surefoot.providers import KEY_VARIABLES, make_model

KEY = "sk-test-not-shown-1234"


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for names in KEY_VARIABLES.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("provider", "model", "options", "says"),
    [
        ("mistral", "m", {"api_key": KEY}, "unknown provider"),
        ("anthropic", "claude", {}, "no API key"),
        ("openai", "gpt", {}, "OPENAI_API_KEY"),
        ("google", "gemini", {}, "GOOGLE_API_KEY or GEMINI_API_KEY"),
        ("openai", " ", {"api_key": KEY}, "model name is empty"),
        ("openai-chat", "llama", {"base_url": "localhost:11434/v1"}, "base URL"),
        ("openai-chat", "llama", {"base_url": "ftp://h/v1"}, "base URL"),
        ("anthropic", "claude", {"api_key": KEY, "base_url": "http://h:port/"}, "base URL"),
        ("openai", "gpt", {"api_key": KEY, "base_url": "https:///v1"}, "base URL"),
    ],
)
def test_bad_configuration_is_a_configuration_error(
    provider: str, model: str, options: dict[str, str], says: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        make_model(provider, model, **options)  # type: ignore[arg-type]
    assert says in str(caught.value)
    assert KEY not in str(caught.value)


def test_good_configuration_builds_the_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    local = make_model("openai-chat", "llama", base_url="http://127.0.0.1:11434/v1")
    assert (local.provider, local.model_name) == ("openai-chat", "llama")
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    assert make_model("google", "gemini").model_name == "gemini"


def test_provider_error_kinds_keep_their_wire_strings() -> None:
    assert PROVIDER_ERROR_KINDS == (
        "auth",
        "rate_limit",
        "overloaded",
        "bad_request",
        "server",
        "bad_response",
        "connection",
    )
