"""Editing and deleting a measurement on the measurements page, in headless Chromium
(Debian's package) against a real uvicorn on 127.0.0.1: the page asks before deleting, shows
refusals in its own language, and what it saves is what the database holds."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from test_web_browser import CHROMIUM_ARGS, TIMEOUT_MS, running

from gymnasia.store import GymStore
from gymnasia.web import create_app
from surefoot import open_database

pytestmark = pytest.mark.browser


@pytest.fixture
def db(tmp_path: Path) -> str:
    """Three days: weights, and a waist on one of them."""
    path = str(tmp_path / "edit.db")
    store = GymStore(open_database(path))
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 1, 1), {"weight_kg": 81.0})
        store.upsert_measurement(tx, dt.date(2020, 1, 2), {"weight_kg": 80.5, "waist_cm": 90.0})
        store.upsert_measurement(tx, dt.date(2020, 1, 3), {"weight_kg": 80.0})
    store.db.close()
    return path


@pytest.fixture
def base(db: str) -> Iterator[str]:
    with ExitStack() as stack:
        yield stack.enter_context(running(create_app(db=db, lang="es")))


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page; any script error or console error fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error" and "status of 4" not in msg.text
            else None
        ),
    )
    yield opened
    context.close()
    assert errors == [], errors


def stored(db: str, day: str) -> dict[str, Any] | None:
    """The record through a separate connection."""
    store = GymStore(open_database(db, create=False))
    try:
        return store.read_measurement(dt.date.fromisoformat(day))
    finally:
        store.db.close()


def open_page(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("body[data-ready=true]")).to_have_count(1)


def test_edit_a_measurement_in_the_page(
    page: Page, base: str, db: str, artifacts_dir: Path
) -> None:
    """Edit: the form holds the record (decimal comma in Spanish); a new weight, an emptied
    waist and a new neck are saved, the table and the chart show them."""
    open_page(page, base + "/measurements")
    row = page.locator('tr[data-date="2020-01-02"]')
    row.locator(".edit-measurement").click()
    dialog = page.locator("#edit-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#edit-title")).to_have_text("Editar la medida del 2 ene 2020")
    expect(dialog.locator('input[name="weight_kg"]')).to_have_value("80,5")
    expect(dialog.locator('input[name="waist_cm"]')).to_have_value("90")
    dialog.locator('input[name="weight_kg"]').fill("79,4")
    dialog.locator('input[name="waist_cm"]').fill("")
    dialog.locator('input[name="neck_cm"]').fill("38,5")
    page.screenshot(path=str(artifacts_dir / "web-measurement-edit.png"), full_page=True)
    with page.expect_navigation():
        dialog.locator("#edit-save").click()
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    saved = stored(db, "2020-01-02")
    assert saved is not None
    assert (saved["weight_kg"], saved["waist_cm"], saved["neck_cm"]) == (79.4, None, 38.5)
    expect(page.locator('tr[data-date="2020-01-02"]')).to_contain_text("79,4")
    expect(page.locator('circle.weight-point[data-date="2020-01-02"]')).to_have_attribute(
        "data-weight", "79.4"
    )
    other = stored(db, "2020-01-01")
    assert other is not None
    assert other["weight_kg"] == 81.0


def test_an_invalid_edit_is_explained_and_saves_nothing(page: Page, base: str, db: str) -> None:
    """Out of range (checked by the server), not a number, or a taken date: the dialog
    says why in the page's language, and the record is unchanged."""
    before = stored(db, "2020-01-02")
    open_page(page, base + "/measurements?lang=en")
    page.locator('tr[data-date="2020-01-02"] .edit-measurement').click()
    dialog = page.locator("#edit-dialog")
    error = page.locator("#edit-error")
    dialog.locator('input[name="weight_kg"]').fill("5")
    dialog.locator("#edit-save").click()
    expect(error).to_have_text("Weight (kg): use a number from 20 to 400.")
    dialog.locator('input[name="weight_kg"]').fill("80 kg")
    dialog.locator("#edit-save").click()
    expect(error).to_have_text("Weight (kg): write a number, such as 80.5.")
    dialog.locator('input[name="weight_kg"]').fill("80.5")
    dialog.locator('input[name="date"]').fill("2020-01-03")
    dialog.locator("#edit-save").click()
    expect(error).to_have_text(
        "3 Jan 2020 already has a measurement of its own; nothing was moved."
    )
    dialog.locator("#edit-cancel").click()
    expect(dialog).to_be_hidden()
    assert stored(db, "2020-01-02") == before


def test_delete_asks_in_the_page_first(page: Page, base: str, db: str, artifacts_dir: Path) -> None:
    """Delete opens a question in the page; Cancel keeps the record, Delete removes it and
    the table and chart lose it."""
    open_page(page, base + "/measurements?lang=pt")
    page.locator('tr[data-date="2020-01-02"] .delete-measurement').click()
    dialog = page.locator("#delete-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#delete-title")).to_have_text("Excluir a medida de 2 de jan. de 2020?")
    page.screenshot(path=str(artifacts_dir / "web-measurement-delete.png"), full_page=True)
    page.locator("#delete-cancel").click()
    expect(dialog).to_be_hidden()
    assert stored(db, "2020-01-02") is not None
    page.locator('tr[data-date="2020-01-02"] .delete-measurement').click()
    with page.expect_navigation():
        page.locator("#delete-confirm").click()
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    assert stored(db, "2020-01-02") is None
    expect(page.locator(".measurements-table tbody tr")).to_have_count(2)
    expect(page.locator('tr[data-date="2020-01-02"]')).to_have_count(0)
    expect(page.locator("circle.weight-point")).to_have_count(2)


def test_deleting_a_record_already_gone_says_so(page: Page, base: str, db: str) -> None:
    """Deleted elsewhere meanwhile: the dialog says it no longer exists; nothing breaks."""
    open_page(page, base + "/measurements")
    store = GymStore(open_database(db, create=False))
    with store.transaction() as tx:
        store.delete_measurement(tx, dt.date(2020, 1, 3))
    store.db.close()
    page.locator('tr[data-date="2020-01-03"] .delete-measurement').click()
    page.locator("#delete-confirm").click()
    expect(page.locator("#delete-error")).to_contain_text("Esa medida ya no existe")
    assert stored(db, "2020-01-02") is not None
