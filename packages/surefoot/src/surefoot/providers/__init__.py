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
from typing import Literal

from .._model import Model

ProviderName = Literal["anthropic", "openai", "google", "openai-chat"]
PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "openai", "google", "openai-chat")


_ADAPTERS: dict[str, tuple[str, str]] = {
    "anthropic": ("anthropic", "AnthropicModel"),
    "openai": ("openai_responses", "OpenAIResponsesModel"),
    "google": ("google_interactions", "GoogleInteractionsModel"),
    "openai-chat": ("openai_chat", "OpenAIChatModel"),
}


def make_model(
    provider: ProviderName,
    model: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 120.0,
    max_tokens: int = 1024,
) -> Model:
    """The adapter for ``provider``, talking to ``model`` (its SDK is imported only now)."""
    if provider not in _ADAPTERS:
        msg = f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}"
        raise ValueError(msg)
    module_name, class_name = _ADAPTERS[provider]
    module = importlib.import_module(f"{__name__}.{module_name}")
    adapter: Model = getattr(module, class_name)(
        model, api_key=api_key, base_url=base_url, timeout=timeout, max_tokens=max_tokens
    )
    return adapter


__all__ = ["PROVIDERS", "ProviderName", "make_model"]
