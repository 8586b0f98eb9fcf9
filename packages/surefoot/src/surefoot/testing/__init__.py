"""Test doubles for code built on surefoot: scripted models and (with the providers extra)
fake provider servers that speak the real wire formats on 127.0.0.1."""

from .._exceptions import ScriptError
from ._fake_anthropic import FakeAnthropicServer
from ._fake_google import FakeGoogleInteractionsServer
from ._fake_openai_chat import FakeOpenAIChatServer
from ._fake_openai_responses import FakeOpenAIResponsesServer
from ._http import FakeHTTPServer, RecordedRequest, Reply, rechunk, sse_event
from ._journal import write_transcript
from ._models import FunctionModel, ScriptedModel, Step, call, turn

__all__ = [
    "FakeAnthropicServer",
    "FakeGoogleInteractionsServer",
    "FakeHTTPServer",
    "FakeOpenAIChatServer",
    "FakeOpenAIResponsesServer",
    "FunctionModel",
    "RecordedRequest",
    "Reply",
    "ScriptError",
    "ScriptedModel",
    "Step",
    "call",
    "rechunk",
    "sse_event",
    "turn",
    "write_transcript",
]
