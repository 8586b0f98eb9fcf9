"""The neutral transcript: the messages a conversation is made of, what a model is asked and
what it answers, the stream events of a streamed answer, and their JSON form.

Provider adapters translate these to and from each wire format; a custom ``Model`` reads a
``ModelRequest`` and returns a ``ModelResponse`` built from these types.
"""

from ._messages import (
    AssistantMessage,
    FinishReason,
    HarnessMessage,
    HarnessNote,
    Message,
    ModelRequest,
    ModelResponse,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from ._model import ResponseDone, StreamEvent, TextDelta, stream_from_request
from ._serde import message_from_json, message_to_json

__all__ = [
    "AssistantMessage",
    "FinishReason",
    "HarnessMessage",
    "HarnessNote",
    "Message",
    "ModelRequest",
    "ModelResponse",
    "ReasoningPart",
    "ResponseDone",
    "StreamEvent",
    "TextDelta",
    "TextPart",
    "ToolCall",
    "ToolResult",
    "ToolResultsMessage",
    "ToolSpec",
    "UserMessage",
    "message_from_json",
    "message_to_json",
    "stream_from_request",
]
