"""A turn the model cannot start in time is a clean 503: ``Retry-After``, a message in the
person's language, no traceback; the stop is in the conversation, and the next message on it
runs normally."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gymnasia.web import create_app
from surefoot.providers import make_model
from surefoot.testing import FakeOpenAIChatServer, turn

BASE = "http://127.0.0.1:8000"


@pytest.mark.parametrize(
    ("lang", "words"), [("en", "did not answer"), ("es", "no respondió"), ("pt", "não respondeu")]
)
def test_a_model_past_its_timeout_is_a_503_in_the_persons_language(
    tmp_path: Path, lang: str, words: str
) -> None:
    """The model answers after 2 s with a 0.5 s timeout: 503, Retry-After, the harness's
    words in the turn's language; once it is quick again, the same conversation goes on."""
    # the slow requests still take a turn each when they end (the client is gone by then)
    with FakeOpenAIChatServer([turn("Hola.")] * 10) as server:
        server.latency = 2.0
        model = make_model(
            "openai-chat", "fake", api_key="k", base_url=server.base_url + "/v1", timeout=0.5
        )
        app = create_app(db=str(tmp_path / "slow.db"), model=model)
        with TestClient(app, base_url=BASE) as client:
            slow = client.post("/api/chat", json={"message": "Hola", "lang": lang})
            assert slow.status_code == 503, slow.text
            assert slow.headers["retry-after"] == "5"
            body = slow.json()
            assert body["error"] == "model_unavailable"
            assert words in body["message"], body["message"]
            assert "Traceback" not in slow.text
            cid = body["conversation_id"]
            assert body["turn"]["stop_reason"] == "provider_error"
            server.latency = 0.0
            again = client.post("/api/chat", json={"message": "Hola", "conversation_id": cid})
            assert again.status_code == 200
            done = [json.loads(line) for line in again.text.splitlines() if line]
            assert done[-1]["turn"]["stop_reason"] == "completed"
