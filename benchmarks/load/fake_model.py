"""The model of the load test: an OpenAI-compatible chat server on loopback that answers from
the request itself (any number of people and conversations at once), after a fixed latency,
so that what the load test measures is the harness and the database, not a model.

What a person writes decides the call (the Coach's tools, grounded in those very words):

* ``k.USER.N`` — ``save_memory`` with that key and value (a write);
* ``read k.USER.N`` — ``read_memory`` of that key (a read);
* ``delete k.USER.N`` — ``delete_memory`` of that key (a write that waits for the person's yes);
* a tool result — the final answer, ``Hecho.``.
"""

from __future__ import annotations

from typing import Any

from surefoot.messages import AssistantMessage
from surefoot.testing import FakeOpenAIChatServer, call, turn
from surefoot.testing._http import RecordedRequest, Reply

NAME = "fake"
"""The model's name: the server is started with it, and the checks resume an interrupted
turn with it (a turn is resumed only on the model it started on)."""


class LoadModel(FakeOpenAIChatServer):
    """Answers every chat request from its last message, ``latency`` seconds later."""

    def __init__(self, latency: float) -> None:
        super().__init__([])
        self.latency = latency
        self._asked: Any = None

    def handle(self, request: RecordedRequest) -> Reply:
        self._asked = request.body
        return super().handle(request)

    def next_turn(self) -> AssistantMessage | None:
        self.served += 1
        self.requests.clear()  # a load run makes tens of thousands: keep none
        messages = self._asked["messages"]
        if messages[-1]["role"] == "tool":
            return turn("Hecho.")
        said = str(messages[-1]["content"])
        if said.startswith("read "):
            return turn(call("read_memory", {"key": said.removeprefix("read ")}))
        if said.startswith("delete "):
            return turn(call("delete_memory", {"key": said.removeprefix("delete ")}))
        return turn(call("save_memory", {"key": said, "description": "nota", "value": said}))
