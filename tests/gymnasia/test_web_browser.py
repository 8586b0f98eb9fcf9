"""The web app in headless Chromium (Debian's package) against a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect, sync_playwright

from gymnasia.store import GymStore
from gymnasia.web import create_app
from surefoot import open_database

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCENARIO_1 = "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01."
TIMEOUT_MS = 15_000

Serve = Callable[..., str]


def seed(db: str, weights: dict[str, float], notes: tuple[str, ...] = ()) -> None:
    """Saved weights by date, and memory notes."""
    store = GymStore(open_database(db))
    with store.transaction() as tx:
        for day, kg in weights.items():
            store.upsert_measurement(tx, dt.date.fromisoformat(day), {"weight_kg": kg})
        for key in notes:
            store.save_memory(tx, key, f"note {key}", f"value of {key}")
    store.db.close()


@contextmanager
def running(app: Any) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread on a free 127.0.0.1 port; stop it afterwards."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_config=None, log_level="warning", ws="none", lifespan="on", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 15
        while not server.started:
            assert thread.is_alive(), "uvicorn stopped during start-up"
            assert time.monotonic() < deadline, "uvicorn did not start in 15 s"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop in 15 s"


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """Starts a seeded server (2020-01-01 = 76 kg, offline model); returns its base URL."""
    with ExitStack() as stack:

        def start(
            *,
            faults: tuple[str, ...] = (),
            weights: dict[str, float] | None = None,
            notes: tuple[str, ...] = (),
        ) -> str:
            db = str(tmp_path / "browser.db")
            seed(db, weights or {"2020-01-01": 76.0}, notes)
            app = create_app(db=db, lang="es", faults=faults)
            return stack.enter_context(running(app))

        yield start


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    """Headless Debian chromium, driven by Playwright (no browser download)."""
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page in its own context, with bounded timeouts."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="es-ES")
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield opened
    context.close()
    assert errors == [], errors


def send(page: Page, text: str) -> None:
    """Type a message in the composer and send it."""
    page.fill("#message", text)
    page.click("#send")


def note_of(db: Path, key: str) -> dict[str, str] | None:
    """Read a note through a separate connection."""
    store = GymStore(open_database(str(db), create=False))
    try:
        return store.read_memory(key)
    finally:
        store.db.close()


def test_scenario_1_shows_reply_and_two_trace_entries(
    serve: Serve, page: Page, artifacts_dir: Path
) -> None:
    """Scenario 1: the reply, and two trace entries, the first marked not_found."""
    base = serve()
    page.goto(base + "/")
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    expect(page.locator(".offline-label")).to_be_visible()
    expect(page.locator(".fault-banner")).to_have_count(0)
    send(page, SCENARIO_1)
    reply = page.locator(".msg.coach .bubble").last
    expect(reply).to_have_text("No hay registro para el 2020-01-02. El 2020-01-01 hay 76 kg.")
    entries = page.locator("#trace .trace-entry")
    expect(entries).to_have_count(2)
    first, second = entries.nth(0), entries.nth(1)
    expect(first).to_have_attribute("data-status", "error")
    expect(first).to_have_attribute("data-code", "not_found")
    expect(first.locator(".badge.error")).to_have_text("not_found")
    expect(first.locator(".badge.recovery")).to_have_text("choose_alternative")
    expect(second).to_have_attribute("data-status", "ok")
    expect(page.locator(".trace-turn .turn-meta")).to_contain_text("completed")
    first_color = first.evaluate("e => getComputedStyle(e).borderLeftColor")
    second_color = second.evaluate("e => getComputedStyle(e).borderLeftColor")
    assert first_color != second_color
    page.screenshot(path=str(artifacts_dir / "web-chat-scenario1.png"), full_page=True)

    page.click("#new-conversation")
    expect(page.locator("#trace .trace-entry")).to_have_count(0)
    page.locator("#conversations .conv").first.click()
    expect(page.locator("#trace .trace-entry")).to_have_count(2)
    expect(page.locator("#trace .trace-entry").first).to_have_attribute("data-code", "not_found")
    expect(page.locator(".msg.coach .bubble").last).to_contain_text("76 kg")
    assert "c=c_" in page.url


def test_fault_injected_write_shows_stop_message_and_banner(
    serve: Serve, page: Page, artifacts_dir: Path
) -> None:
    """With write_measurement:before_commit a write stops the turn; the banner is on every page."""
    base = serve(faults=("write_measurement:before_commit",))
    page.goto(base + "/")
    banner = page.locator(".fault-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("write_measurement:before_commit")
    send(page, "Guarda mi peso: 77,0 kg el 2020-01-03.")
    stop = page.locator(".msg.stop-banner")
    expect(stop).to_be_visible()
    expect(stop.locator(".stop-title")).to_have_text("Turno detenido por Gymnasia")
    expect(stop.locator(".stop-text")).to_contain_text("no se guardó nada")
    entry = page.locator("#trace .trace-entry")
    expect(entry).to_have_count(1)
    expect(entry).to_have_class("trace-entry error stop")
    expect(entry.locator(".badge.recovery")).to_have_text("stop_turn")
    expect(page.locator(".msg.coach")).to_have_count(0)
    page.screenshot(path=str(artifacts_dir / "web-chat-fault-stop.png"), full_page=True)
    page.goto(base + "/measurements")
    expect(page.locator(".fault-banner")).to_contain_text("write_measurement:before_commit")
    expect(page.locator(".weight-point")).to_have_count(1)
    page.screenshot(path=str(artifacts_dir / "web-measurements-fault-banner.png"), full_page=True)


def test_approving_and_denying_a_delete(
    serve: Serve, page: Page, artifacts_dir: Path, tmp_path: Path
) -> None:
    """Approve runs delete_memory (note gone); deny records `denied` (note kept)."""
    base = serve(notes=("X", "Y"))
    page.goto(base + "/")
    send(page, "Borra la nota X.")
    card = page.locator(".pending-card")
    expect(card).to_be_visible()
    expect(card).to_have_attribute("data-tool", "delete_memory")
    expect(card.locator(".pending-action")).to_have_text("Borrar una nota")
    expect(card.locator(".pending-summary")).to_have_text("nota «X»")
    expect(page.locator("#message")).to_be_disabled()
    page.screenshot(path=str(artifacts_dir / "web-confirm-pending.png"), full_page=True)
    card.locator("button.approve").click()
    expect(page.locator(".msg.coach .bubble").last).to_have_text("Nota «X» borrada.")
    expect(card).to_have_class("msg pending-card approved")
    expect(card.locator(".pending-actions")).to_be_hidden()
    expect(card.locator(".pending-status")).to_have_text("Aprobada")
    expect(page.locator("#trace .trace-entry[data-tool=delete_memory]")).to_have_count(1)
    expect(page.locator("#message")).to_be_enabled()
    page.screenshot(path=str(artifacts_dir / "web-confirm-approved.png"), full_page=True)

    send(page, "Delete the note Y.")
    second = page.locator(".pending-card").nth(1)
    second.locator("button.deny").click()
    expect(page.locator(".msg.coach .bubble").last).to_have_text(
        "La nota «Y» no se ha borrado (lo rechazaste)."
    )
    denied = page.locator("#trace .trace-entry[data-code=denied]")
    expect(denied).to_have_count(1)
    expect(denied.locator(".badge.recovery")).to_have_text("choose_alternative")
    page.screenshot(path=str(artifacts_dir / "web-confirm-denied.png"), full_page=True)
    db = tmp_path / "browser.db"
    assert note_of(db, "X") is None
    assert note_of(db, "Y") == {"key": "Y", "description": "note Y", "value": "value of Y"}


def test_measurements_chart_has_one_point_per_saved_weight(
    serve: Serve, page: Page, artifacts_dir: Path, tmp_path: Path
) -> None:
    """The weight chart renders one .weight-point per saved weight, at its date."""
    weights = {
        "2020-01-01": 76.0,
        "2020-01-04": 77.4,
        "2020-01-09": 76.8,
        "2020-01-15": 76.1,
        "2020-01-22": 75.6,
        "2020-02-01": 75.2,
    }
    base = serve(weights=weights)
    page.goto(base + "/measurements")
    points = page.locator("svg.weight-chart .weight-point")
    store = GymStore(open_database(str(tmp_path / "browser.db"), create=False))
    saved = [r["date"] for r in store.list_measurements() if r["weight_kg"] is not None]
    store.db.close()
    expect(points).to_have_count(len(saved))
    assert [points.nth(i).get_attribute("data-date") for i in range(len(saved))] == saved
    expect(page.locator(".measurements-table tbody tr")).to_have_count(len(saved))
    box = page.locator("svg.weight-chart").bounding_box()
    assert box is not None
    assert box["width"] > 500
    assert box["height"] > 150
    page.screenshot(path=str(artifacts_dir / "web-measurements-chart.png"), full_page=True)
    page.goto(base + "/measurements?lang=en")
    expect(page.locator("h1")).to_have_text("Body measurements")
    page.screenshot(path=str(artifacts_dir / "web-measurements-chart-en.png"), full_page=True)
