"""Every page at phone size (375x667) and desktop size (1280x800) in headless Chromium
(Debian's package) against a real uvicorn on 127.0.0.1: the message box always in view,
nothing wider than the screen, tables that reflow or scroll inside their card, an approval
that survives a reload, edit and delete on the meals, routines, notes and goals pages, and the
chosen language remembered. Screenshots of each page at both sizes go to the test artifacts
(``web-<size>-<page>.png``; the docs' pictures are copies of them)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from test_web_browser import CHROMIUM_ARGS, TIMEOUT_MS, running, send

from gymnasia.store import GymStore
from gymnasia.web import create_app
from surefoot import open_database

pytestmark = pytest.mark.browser

SIZES = {"phone": (375, 667), "desktop": (1280, 800)}
PAGES = ("", "measurements", "meals", "routines", "goals", "notes", "writes", "no-such-page")
NAV = PAGES[:-1]
TODAY = dt.date(2020, 2, 5)
WRITES = (
    "Guarda mi peso: 79,0 kg el 2020-02-05.",
    "Guarda la nota cena: sin postre entre semana.",
)

OVERFLOWING = """() => {
  // every visible element that reaches past the screen's edges, unless an ancestor that
  // scrolls or clips sideways holds it (a strip that scrolls inside its card is fine)
  const width = document.documentElement.clientWidth;
  const clipped = (node) => {
    for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (["auto", "scroll", "hidden", "clip"].includes(style.overflowX)) return true;
    }
    return false;
  };
  const out = [];
  for (const node of document.body.querySelectorAll("*")) {
    const box = node.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    if ((box.right > width + 1 || box.left < -1) && !clipped(node)) {
      out.push(`${node.tagName.toLowerCase()}.${node.className} ${box.left}..${box.right}`);
    }
  }
  return out;
}"""

IN_VIEW = """(selector) => {
  // the element is on screen without scrolling the page, and nothing covers its centre
  const node = document.querySelector(selector);
  const box = node.getBoundingClientRect();
  const inside =
    box.top >= 0 && box.left >= 0 && box.bottom <= innerHeight && box.right <= innerWidth;
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return inside && (hit === node || node.contains(hit));
}"""


def seed(db: str) -> None:
    """Six weekly measurements, notes, goals, a routine and two days of meals."""
    store = GymStore(open_database(db))
    with store.transaction() as tx:
        for week, kg in enumerate((81.0, 80.4, 80.1, 79.6, 79.9, 79.2)):
            day = dt.date(2020, 1, 1) + dt.timedelta(days=7 * week)
            values = {"weight_kg": kg, "body_fat_pct": 22 - week * 0.2, "waist_cm": 90 - week}
            store.upsert_measurement(tx, day, {**values, "hips_cm": 101.5, "chest_cm": 99.0})
        store.save_memory(tx, "objetivo", "Meta de carrera", "Correr 10 km en menos de 55 min")
        store.save_memory(tx, "rodilla", "Lesión", "Evitar sentadilla profunda " * 6)
        store.save_goal(tx, "weight_kg", 75.0, dt.date(2020, 6, 1))
        store.save_goal(tx, "waist_cm", 84.0, None)
        store.create_routine(
            tx,
            "Empuje A",
            "strength",
            [("barbell_bench_press", [(5, 80.0, 180)] * 3), ("push_up", [(15, 0.0, 60)])],
        )
        store.add_meal_item(tx, dt.date(2020, 2, 3), "breakfast", "white_bread", 60)
        store.add_meal_item(tx, dt.date(2020, 2, 3), "lunch", "white_rice_cooked", 150)
        store.add_meal_item(tx, dt.date(2020, 2, 4), "dinner", "pasta_cooked", 200)
    store.db.close()


def stored(db: str) -> GymStore:
    """The store through a separate connection (close its ``db`` after use)."""
    return GymStore(open_database(db, create=False))


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the layout checks, with two writes the Coach made (the writes page)."""
    db = str(tmp_path_factory.mktemp("phone") / "layout.db")
    seed(db)
    with running(create_app(db=db, lang="es", today=TODAY)) as base:
        for message in WRITES:
            reply = httpx.post(f"{base}/api/chat", json={"message": message}, timeout=30)
            assert reply.status_code == 200, reply.text
        yield base


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "phone.db")
    seed(path)
    return path


@pytest.fixture
def base(db: str) -> Iterator[str]:
    with ExitStack() as stack:
        yield stack.enter_context(running(create_app(db=db, lang="es", today=TODAY)))


def open_context(browser: Browser, size: str) -> Any:
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="es-ES", device_scale_factor=1
    )
    context.set_default_timeout(TIMEOUT_MS)
    return context


@pytest.fixture(params=list(SIZES))
def sized(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[str, Page]]:
    """A fresh page at one of the two sizes; a script error fails the test."""
    context = open_context(browser, request.param)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield request.param, page
    context.close()
    assert errors == [], errors


def ready(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("body[data-ready=true]")).to_have_count(1)


def assert_fits(page: Page) -> None:
    """Nothing is wider than the screen, as a whole or element by element."""
    width, client = page.evaluate(
        "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width <= client, (width, client)
    assert page.evaluate(OVERFLOWING) == []


def assert_message_box_in_view(page: Page) -> None:
    assert page.evaluate(IN_VIEW, "#message"), "the message box is not in view"
    assert page.evaluate(IN_VIEW, "#send"), "the send button is not in view"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_the_screen(
    sized: tuple[str, Page], shared: str, path: str, artifacts_dir: Path
) -> None:
    """Each page at each size: no horizontal overflow (the document and every element), the
    message box in view on the chat, the current page in view in the menu, and an open edit
    dialog inside the screen."""
    size, page = sized
    ready(page, f"{shared}/{path}")
    assert_fits(page)
    if path == "":
        assert_message_box_in_view(page)
    if path in NAV:  # the menu shows where the person is, also when it scrolls sideways
        assert page.evaluate(IN_VIEW, ".nav a.active")
    name = path or "chat"
    page.screenshot(path=str(artifacts_dir / f"web-{size}-{name}.png"))
    if page.locator(".edit-record, .edit-measurement").count():
        page.locator(".edit-record, .edit-measurement").first.click()
        dialog = page.locator("#edit-dialog")
        expect(dialog).to_be_visible()
        box = dialog.bounding_box()
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= SIZES[size][0]
        page.locator("#edit-cancel").click()


@pytest.mark.parametrize("lang", ["pt", "en"])
def test_every_page_fits_a_phone_in_each_language(browser: Browser, shared: str, lang: str) -> None:
    """The longer words of Portuguese and English fit the phone screen too, on every page."""
    context = open_context(browser, "phone")
    page = context.new_page()
    for path in PAGES:
        ready(page, f"{shared}/{path}?lang={lang}")
        assert page.evaluate("document.documentElement.lang") == lang
        assert_fits(page)
        if path == "":
            assert_message_box_in_view(page)
    context.close()


def test_tables_reflow_on_a_phone_and_stay_tables_on_a_desktop(
    browser: Browser, shared: str
) -> None:
    """At 375 px a record is a card of labelled values; at 1280 px it is a table row."""
    for size, shown in (("phone", "block"), ("desktop", "table-row")):
        context = open_context(browser, size)
        page = context.new_page()
        ready(page, f"{shared}/measurements")
        row = page.locator(".measurements-table tbody tr").first
        assert row.evaluate("e => getComputedStyle(e).display") == shown
        ready(page, f"{shared}/goals")
        label = page.locator(".records-table td[data-label]").first
        before = label.evaluate("e => getComputedStyle(e, '::before').content")
        assert (before != "none") is (size == "phone"), before
        context.close()


def test_the_message_box_stays_in_view_through_a_conversation(
    sized: tuple[str, Page], shared: str, artifacts_dir: Path
) -> None:
    """After several turns the transcript scrolls inside its panel; the box never leaves the
    screen, and on a phone the conversations and the trace open over the chat and close."""
    size, page = sized
    ready(page, shared + "/")
    for text in (
        "Lista mis medidas del 2020-01-01 al 2020-02-05.",
        "Consulta mi peso del 2020-01-08.",
    ):
        send(page, text)
        expect(page.locator("#message")).to_be_enabled()
        assert_message_box_in_view(page)
        assert_fits(page)
    assert page.evaluate("document.scrollingElement.scrollTop") == 0
    toggle = page.locator("#toggle-trace")
    if size == "phone":
        expect(page.locator("#trace-panel")).to_be_hidden()
        toggle.click()
        expect(page.locator("#trace-panel")).to_be_visible()
        expect(toggle).to_have_attribute("aria-expanded", "true")
        page.screenshot(path=str(artifacts_dir / "web-phone-trace.png"))
        toggle.click()
        expect(page.locator("#trace-panel")).to_be_hidden()
        page.locator("#toggle-conversations").click()
        expect(page.locator("#conversations .conv").first).to_be_visible()
        page.locator("#conversations .conv").first.click()
        expect(page.locator("#conversations-panel")).to_be_hidden()
        assert_message_box_in_view(page)
    else:
        expect(toggle).to_be_hidden()
        expect(page.locator("#trace-panel")).to_be_visible()


def test_an_approval_survives_a_reload(
    sized: tuple[str, Page], base: str, db: str, artifacts_dir: Path
) -> None:
    """A delete waits on a card in words, shown once; after a reload the same card is there
    (from the journal) and still decides; after the decision a reload shows no card."""
    size, page = sized
    ready(page, base + "/")
    send(page, "Guarda mi peso: 79,0 kg el 2020-02-05.")
    expect(page.locator(".msg.coach")).to_have_count(1)
    send(page, "Borra la nota rodilla.")
    card = page.locator(".pending-card")
    expect(card).to_have_count(1)
    expect(card.locator(".pending-action")).to_have_text("Borrar una nota")
    expect(card.locator(".pending-summary")).to_have_text("nota «rodilla»")
    expect(page.locator("#messages")).not_to_contain_text("delete_memory")
    expect(page.locator("#messages")).not_to_contain_text("necesita tu confirmación")
    assert_message_box_in_view(page)
    page.screenshot(path=str(artifacts_dir / f"web-{size}-approval.png"))
    page.reload()
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    card = page.locator(".pending-card")
    expect(card).to_have_count(1)
    expect(card.locator(".pending-summary")).to_have_text("nota «rodilla»")
    expect(page.locator("#message")).to_be_disabled()
    assert_fits(page)
    card.locator("button.approve").click()
    expect(page.locator(".msg.coach .bubble").last).to_contain_text("rodilla")
    expect(page.locator("#message")).to_be_enabled()
    store = stored(db)
    assert store.read_memory("rodilla") is None
    store.db.close()
    page.reload()
    expect(page.locator("body[data-ready=true]")).to_have_count(1)
    expect(page.locator(".msg.user")).to_have_count(2)
    expect(page.locator(".pending-card")).to_have_count(0)
    assert size in SIZES


def edit_record(page: Page, row: Any, values: dict[str, str]) -> None:
    row.locator(".edit-record").click()
    dialog = page.locator("#edit-dialog")
    expect(dialog).to_be_visible()
    for name, value in values.items():
        dialog.locator(f'[name="{name}"]').fill(value)
    with page.expect_navigation():
        dialog.locator("#edit-save").click()
    expect(page.locator("body[data-ready=true]")).to_have_count(1)


def delete_record(page: Page, row: Any, title: str) -> None:
    row.locator(".delete-record").click()
    dialog = page.locator("#delete-dialog")
    expect(page.locator("#delete-title")).to_have_text(title)
    page.locator("#delete-cancel").click()
    expect(dialog).to_be_hidden()
    row.locator(".delete-record").click()
    with page.expect_navigation():
        page.locator("#delete-confirm").click()
    expect(page.locator("body[data-ready=true]")).to_have_count(1)


def test_notes_and_goals_are_edited_and_deleted_on_a_phone(
    browser: Browser, base: str, db: str
) -> None:
    """On a phone: a note's content and a goal's target and date change through the dialog
    (a decimal comma accepted); a refused value is explained; each delete asks first."""
    context = open_context(browser, "phone")
    page = context.new_page()
    ready(page, base + "/notes")
    note = page.locator("tr.record", has_text="objetivo")
    edit_record(page, note, {"value": "Correr 10 km en 50 min"})
    expect(page.locator("tr.record", has_text="objetivo")).to_contain_text("50 min")
    delete_record(page, page.locator("tr.record", has_text="rodilla"), "¿Borrar la nota «rodilla»?")
    expect(page.locator("tr.record")).to_have_count(1)
    ready(page, base + "/goals")
    goal = page.locator("tr.record").first
    goal.locator(".edit-record").click()
    dialog = page.locator("#edit-dialog")
    expect(dialog.locator('[name="target"]')).to_have_value("75")
    dialog.locator('[name="target"]').fill("5")
    dialog.locator("#edit-save").click()
    expect(page.locator("#edit-error")).to_contain_text("No se ha guardado el objetivo")
    dialog.locator("#edit-cancel").click()
    edit_record(page, goal, {"target": "74,5", "by_date": ""})
    delete_record(
        page, page.locator("tr.record", has_text="Cintura"), "¿Borrar el objetivo de cintura?"
    )
    context.close()
    store = stored(db)
    assert store.read_memory("objetivo") == {
        "key": "objetivo",
        "description": "Meta de carrera",
        "value": "Correr 10 km en 50 min",
    }
    assert store.read_memory("rodilla") is None
    assert store.goals() == [{"measure": "weight_kg", "target": 74.5, "by_date": None}]
    store.db.close()


def test_meals_and_routines_are_edited_and_deleted_on_a_phone(
    browser: Browser, base: str, db: str
) -> None:
    """On a phone: a logged food's grams and a routine's name change; a food and a routine
    are deleted after the page asks."""
    context = open_context(browser, "phone")
    page = context.new_page()
    ready(page, base + "/meals")
    rice = page.locator("tr.record", has_text="Arroz blanco cocido")
    edit_record(page, rice, {"grams": "175,5"})
    expect(page.locator("tr.record", has_text="Arroz blanco cocido")).to_contain_text("175,5")
    delete_record(
        page,
        page.locator("tr.record", has_text="Pan blanco"),
        "¿Borrar 60 g de Pan blanco de Desayuno del 3 feb 2020?",
    )
    ready(page, base + "/routines")
    edit_record(page, page.locator("tr.record").first, {"name": "Empuje B"})
    expect(page.locator("tr.record").first).to_contain_text("Empuje B")
    delete_record(
        page,
        page.locator("tr.record").first,
        "¿Borrar la rutina «Empuje B» con sus 2 ejercicio(s)?",
    )
    expect(page.locator(".empty")).to_contain_text("Aún no hay rutinas")
    context.close()
    store = stored(db)
    assert store.meal_items(dt.date(2020, 2, 3)) == [("lunch", "white_rice_cooked", 175.5)]
    assert store.routines() == []
    store.db.close()


def test_the_chosen_language_is_remembered(browser: Browser, base: str) -> None:
    """Choosing English in the switch: a page opened later without ?lang= is English from the
    first paint, and so is the 404 page."""
    context = open_context(browser, "phone")
    page = context.new_page()
    ready(page, base + "/meals")
    with page.expect_navigation():
        page.locator('.lang-switch a[hreflang="en"]').click()
    expect(page.locator("h1")).to_have_text("Meal diary")
    response = page.goto(base + "/goals")
    assert response is not None
    assert '<html lang="en">' in response.text()
    expect(page.locator("h1")).to_have_text("Your goals")
    page.goto(base + "/nothing/here")
    expect(page.locator("h1")).to_have_text("Page not found")
    expect(page.locator("body")).not_to_contain_text("404")
    assert_fits(page)
    context.close()


def test_an_unlikely_value_is_asked_with_the_facts_on_a_phone(
    browser: Browser, base: str, db: str
) -> None:
    """A weight far from the last one: the card asks the tool's question with the last
    record, once, on screen; denying it saves nothing."""
    context = open_context(browser, "phone")
    page = context.new_page()
    ready(page, base + "/")
    send(page, "Guarda mi peso: 95 kg el 2020-02-05.")
    question = page.locator(".pending-card .pending-question")
    expect(question).to_have_text(
        "¿Guardar peso 95 kg para hoy? Último registro de peso: 79,9 kg (el 2020-01-29)."
    )
    expect(page.locator("#messages")).not_to_contain_text("write_measurement")
    assert page.locator("#messages").inner_text().count("¿Guardar peso 95 kg") == 1
    assert_message_box_in_view(page)
    page.locator(".pending-card button.deny").click()
    expect(page.locator("#message")).to_be_enabled()
    context.close()
    store = stored(db)
    saved = store.read_measurement(TODAY)
    store.db.close()
    assert saved is not None
    assert saved["weight_kg"] == 79.2
