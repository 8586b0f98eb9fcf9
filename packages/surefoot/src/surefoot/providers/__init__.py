"""Provider adapters: one module per wire API, each over the official SDK.

``make_model`` builds one by name without importing any SDK until it is asked for (importing
an SDK costs seconds; ``import surefoot`` must stay fast).

* ``anthropic``   — Anthropic Messages (``anthropic``)
* ``openai``      — OpenAI Responses (``openai``)
* ``google``      — Google Interactions (``google-genai``, ``client.interactions``)
* ``openai-chat`` — OpenAI-compatible Chat Completions: Ollama, vLLM, llama.cpp (``openai``)
"""

from __future__ import annotations

import importlib
import os
from typing import Final, Literal
from urllib.parse import urlsplit

from .._exceptions import ConfigurationError
from .._model import Model

ProviderName = Literal["anthropic", "openai", "google", "openai-chat"]
PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "openai", "google", "openai-chat")


_ADAPTERS: dict[str, tuple[str, str]] = {
    "anthropic": ("anthropic", "AnthropicModel"),
    "openai": ("openai_responses", "OpenAIResponsesModel"),
    "google": ("google_interactions", "GoogleInteractionsModel"),
    "openai-chat": ("openai_chat", "OpenAIChatModel"),
}


KEY_VARIABLES: Final[dict[str, tuple[str, ...]]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    "openai-chat": (),
}
"""The environment variables each adapter takes its key from when none is passed (a local
OpenAI-compatible server needs none)."""


def make_model(
    provider: ProviderName,
    model: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 120.0,
    max_tokens: int = 1024,
) -> Model:
    """The adapter for ``provider``, talking to ``model`` (its SDK is imported only now).

    Raises ``ConfigurationError`` before importing anything for an unknown provider, a
    provider that needs a key when none is passed or set, an empty model name, or a
    ``base_url`` that is not an ``http(s)://host`` address. The message never carries the key.
    """
    if provider not in _ADAPTERS:
        msg = f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}"
        raise ConfigurationError(msg, setting="provider")
    if not model.strip():
        msg = f"{provider}: the model name is empty"
        raise ConfigurationError(msg, setting="model")
    names = KEY_VARIABLES[provider]
    if not api_key and names and not any(os.environ.get(name) for name in names):
        msg = f"{provider}: no API key; pass api_key or set {' or '.join(names)}"
        raise ConfigurationError(msg, setting="api_key")
    if base_url is not None and not _is_http_url(base_url):
        msg = f"{provider}: the base URL must be an http:// or https:// address with a host"
        raise ConfigurationError(msg, setting="base_url")
    module_name, class_name = _ADAPTERS[provider]
    module = importlib.import_module(f"{__name__}.{module_name}")
    adapter: Model = getattr(module, class_name)(
        model, api_key=api_key, base_url=base_url, timeout=timeout, max_tokens=max_tokens
    )
    return adapter


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


__all__ = ["KEY_VARIABLES", "PROVIDERS", "ProviderName", "make_model"]
