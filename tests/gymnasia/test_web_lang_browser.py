"""The web Coach answers in the page's language, per message and within one conversation:
a conversation started in Spanish, the page switched to English, the next reply is English
and lands in the same conversation. Headless Chromium against a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from test_web_browser import CHROMIUM_ARGS, TIMEOUT_MS, running, seed, send

from gymnasia.web import create_app

pytestmark = pytest.mark.browser

SAVE_ES = "Guarda mi peso: 77,0 kg el 2020-01-03."
SAVED_ES = "Guardado: 77 kg el 2020-01-03."
ASK_EN = "What was my weight on 2020-01-03?"
ANSWER_EN = "On 2020-01-03 there is 77 kg."


@pytest.fixture
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="es-ES")
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield opened
    context.close()
    assert errors == [], errors


def _get(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=10) as response:
        value: dict[str, object] = json.load(response)
        return value


def test_switching_to_english_keeps_the_conversation_and_answers_in_english(
    page: Page, tmp_path: Path, artifacts_dir: Path
) -> None:
    db = str(tmp_path / "lang.db")
    seed(db, {"2020-01-01": 76.0})
    app = create_app(db=db, lang="es", today=dt.date(2020, 1, 5))
    with running(app) as base:
        page.goto(base + "/?lang=es")
        expect(page.locator("body[data-ready=true]")).to_have_count(1)
        send(page, SAVE_ES)
        expect(page.locator(".msg.coach .bubble").last).to_have_text(SAVED_ES)
        expect(page).to_have_url(re.compile(r"[?&]c=c_"))
        conversation = page.url.split("c=")[1].split("&")[0]

        page.locator(".lang-switch a[hreflang=en]").click()
        expect(page.locator("html[lang=en]")).to_have_count(1)
        expect(page.locator("body[data-ready=true]")).to_have_count(1)
        # the same conversation is open, in the English page
        expect(page.locator(".msg.user .bubble")).to_have_text([SAVE_ES])
        expect(page.locator(".msg.coach .bubble")).to_have_text([SAVED_ES])
        expect(page.locator("#send")).to_have_text("Send")

        send(page, ASK_EN)
        expect(page.locator(".msg.coach .bubble").last).to_have_text(ANSWER_EN)
        expect(page.locator(".msg.user .bubble")).to_have_text([SAVE_ES, ASK_EN])
        assert f"c={conversation}" in page.url
        page.screenshot(path=str(artifacts_dir / "web-lang-switch.png"), full_page=True)

        listed = _get(base + "/api/conversations")["conversations"]
        assert isinstance(listed, list)
        assert [(c["id"], c["messages"]) for c in listed] == [(conversation, 2)]
        items = _get(f"{base}/api/conversations/{conversation}")["items"]
        assert isinstance(items, list)
        replies = [i["text"] for i in items if i["type"] == "assistant"]
        assert replies == [SAVED_ES, ANSWER_EN]
