"""Provider adapters: one module per wire API, each over the official SDK.

``make_model`` builds one by name without importing any SDK until it is asked for (importing
an SDK costs seconds; ``import surefoot`` must stay fast).

* ``anthropic``   — Anthropic Messages (``anthropic``)
* ``openai``      — OpenAI Responses (``openai``)
* ``google``      — Google Interactions (``google-genai``, ``client.interactions``)
* ``openai-chat`` — OpenAI-compatible Chat Completions: Ollama, vLLM, llama.cpp (``openai``)
"""

from __future__ import annotations

from typing import Literal

from .._model import Model

ProviderName = Literal["anthropic", "openai", "google", "openai-chat"]
PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "openai", "google", "openai-chat")


def make_model(
    provider: ProviderName,
    model: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float = 120.0,
    max_tokens: int = 1024,
) -> Model:
    """The adapter for ``provider``, talking to ``model``."""
    if provider == "anthropic":
        from .anthropic import AnthropicModel

        return AnthropicModel(
            model, api_key=api_key, base_url=base_url, timeout=timeout, max_tokens=max_tokens
        )
    if provider == "openai":
        from .openai_responses import OpenAIResponsesModel

        return OpenAIResponsesModel(
            model, api_key=api_key, base_url=base_url, timeout=timeout, max_tokens=max_tokens
        )
    if provider == "google":
        from .google_interactions import GoogleInteractionsModel

        return GoogleInteractionsModel(
            model, api_key=api_key, base_url=base_url, timeout=timeout, max_tokens=max_tokens
        )
    if provider == "openai-chat":
        from .openai_chat import OpenAIChatModel

        return OpenAIChatModel(
            model, api_key=api_key, base_url=base_url, timeout=timeout, max_tokens=max_tokens
        )
    msg = f"unknown provider {provider!r}; use one of {', '.join(PROVIDERS)}"
    raise ValueError(msg)


__all__ = ["PROVIDERS", "ProviderName", "make_model"]
