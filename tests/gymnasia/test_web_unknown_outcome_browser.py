"""A write whose outcome is unknown (fault ``write_measurement:ambiguous``, or
``add_meal_food:ambiguous``): the stop banner says where to check and links the page that
shows the write; clicking the link opens that page, and it shows the write. Headless
Chromium against a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from test_web_browser import CHROMIUM_ARGS, TIMEOUT_MS, running, seed, send

from gymnasia.web import create_app

pytestmark = pytest.mark.browser


@pytest.fixture
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield opened
    context.close()
    assert errors == [], errors


def _serve(tmp_path: Path, fault: str) -> object:
    db = str(tmp_path / "unknown.db")
    seed(db, {"2020-01-01": 76.0})
    return create_app(db=db, lang="es", faults=(fault,), today=dt.date(2020, 1, 5))


def test_an_unknown_measurement_write_links_the_measurements_page(
    page: Page, tmp_path: Path, artifacts_dir: Path
) -> None:
    with running(_serve(tmp_path, "write_measurement:ambiguous")) as base:
        page.goto(base + "/?lang=es")
        send(page, "Guarda mi peso: 77,0 kg el 2020-01-03.")
        stop = page.locator(".msg.stop-banner")
        expect(stop).to_be_visible()
        text = stop.locator(".stop-text")
        expect(text).to_contain_text("no puede confirmar si la acción terminó")
        expect(text).to_contain_text("Volver a pedirlo es seguro")
        expect(text).to_contain_text("página «Medidas»")
        expect(text).not_to_contain_text("comprueba en tus datos")
        link = stop.locator("a.check-link")
        expect(link).to_have_text("Medidas")
        expect(link).to_have_attribute("href", "/measurements?lang=es")
        page.screenshot(path=str(artifacts_dir / "web-unknown-outcome.png"), full_page=True)
        link.click()
        expect(page).to_have_url(base + "/measurements?lang=es")
        expect(page.locator("h1")).to_have_text("Medidas corporales")
        expect(page.locator(".weight-point")).to_have_count(2)  # the seed and this write
        expect(page.locator("body")).to_contain_text("3 ene 2020")
        # the same link when the conversation is opened again
        page.goto(base + "/?lang=es")
        page.locator("#conversations .conv").first.click()
        expect(page.locator(".msg.stop-banner a.check-link")).to_have_attribute(
            "href", "/measurements?lang=es"
        )


def test_an_unknown_meal_write_links_the_writes_page(page: Page, tmp_path: Path) -> None:
    with running(_serve(tmp_path, "add_meal_food:ambiguous")) as base:
        page.goto(base + "/?lang=en")
        send(page, "Add 150 g of white rice, cooked to lunch today.")
        stop = page.locator(".msg.stop-banner")
        expect(stop.locator(".stop-text")).to_contain_text("Before asking again, check")
        expect(stop.locator(".stop-text")).not_to_contain_text("safe")
        link = stop.locator("a.check-link")
        expect(link).to_have_text("Writes")
        link.click()
        expect(page).to_have_url(base + "/writes?lang=en")
        row = page.locator("table.writes tbody tr")
        expect(row).to_have_count(1)
        expect(row).to_have_attribute("data-tool", "add_meal_food")
        expect(row).to_contain_text("Log a food")
        expect(row).to_contain_text("150 g of White rice, cooked")
        expect(row).not_to_contain_text("white_rice_cooked")
        expect(row.locator("td.state")).to_have_text("done")
