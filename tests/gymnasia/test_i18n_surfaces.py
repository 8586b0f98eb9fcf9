"""What a person actually sees in es and pt — every web page, the data commands' output —
carries no English text from the catalogue, no English function word, no field id, no point
decimal and no ISO date (a date is written in words, as ``i18n.day`` writes it); the English
run shows the English words (so the checks can tell)."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from gymnasia import i18n, meals
from gymnasia.cli import main
from gymnasia.store import MEASUREMENT_FIELDS, GymStore
from gymnasia.web import create_app
from gymnasia.web._i18n import EXAMPLES, ui
from surefoot import Lang, open_database

sys.path.insert(0, str(Path(__file__).parent))

from i18n_checks import english_in  # found through the path set above


class _Visible(HTMLParser):
    """The text a person reads on a page: text outside scripts and styles, the attributes a
    browser shows (placeholder, title, aria-label, alt) and the titles app.js gives the edit
    and delete dialogs (data-edit-title, data-delete-title)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in {"script", "style", "template"}:
            self._hidden += 1
        shown = {"placeholder", "title", "aria-label", "alt", "data-edit-title"}
        shown |= {"data-delete-title"}
        self.parts += [value for name, value in attrs if name in shown and value]

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style", "template"}:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


DAY = dt.date(2020, 12, 3)
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def seeded(db: str) -> str:
    """``db`` with a measurement, a meal, a routine, a goal and a note (3 Dec 2020)."""
    store = GymStore(open_database(db))
    with store.transaction() as tx:
        store.upsert_measurement(tx, DAY, {"weight_kg": 77.4, "body_fat_pct": 18.5})
        store.add_meal_item(tx, DAY, "lunch", "white_rice_cooked", 150.5)
        store.create_routine(tx, "Pierna", "strength", [("back_squat", [(5, 100.5, 180)])])
        store.save_goal(tx, "weight_kg", 74.5, dt.date(2021, 3, 1))
        store.save_memory(tx, "rodilla", "lesión", "molestias al correr")
    store.db.close()
    return db


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The web app over a record of each kind and a weight saved by the Coach (a write on
    the writes page), so every page has something to show."""
    db = seeded(str(tmp_path_factory.mktemp("web") / "web.db"))
    with TestClient(create_app(db=db), base_url="http://127.0.0.1:8000") as client:
        reply = client.post("/api/chat", json={"message": "Guarda mi peso: 77,4 kg el 2020-12-03."})
        assert reply.status_code == 200, reply.text
        yield client


def _pages(client: TestClient) -> list[str]:
    """Every page the app serves (a GET route without parameters that is not the API)."""
    app: Any = client.app
    return [
        route.path
        for route in app.routes
        if isinstance(route, APIRoute)
        and "GET" in route.methods
        and "{" not in route.path
        and not route.path.startswith(("/api", "/static"))
    ]


@pytest.mark.parametrize("lang", ["es", "pt"])
def test_web_pages_show_no_english(web: TestClient, lang: Lang) -> None:
    """Every page rendered in es or pt carries no English catalogue text or English word."""
    pages = _pages(web)
    assert {"/", "/measurements", "/writes"} <= set(pages)
    leaks = {}
    for path in pages:
        page = web.get(path, params={"lang": lang})
        assert page.status_code == 200, path
        if found := english_in(visible_text(page.text), lang):
            leaks[path] = found
    assert leaks == {}


def test_the_english_check_finds_english(web: TestClient) -> None:
    """The same check over the English pages finds English (it is not blind)."""
    page = web.get("/measurements", params={"lang": "en"})
    assert english_in(visible_text(page.text), "es")


def field_ids_in(text: str) -> list[str]:
    """Measurement field ids (``weight_kg``) shown as they are stored."""
    return [name for name in MEASUREMENT_FIELDS if name in text]


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_web_pages_show_no_field_ids(web: TestClient, lang: Lang) -> None:
    """No page shows a field by its id (the writes page is checked apart, below)."""
    shown = {p: visible_text(web.get(p, params={"lang": lang}).text) for p in _pages(web)}
    assert {p: field_ids_in(text) for p, text in shown.items() if p != "/writes"} == {
        p: [] for p in shown if p != "/writes"
    }


def test_the_writes_page_shows_no_field_ids(web: TestClient) -> None:
    """The writes page names a write's fields in words, not by their ids."""
    assert field_ids_in(visible_text(web.get("/writes", params={"lang": "es"}).text)) == []


def _read_as_typed(text: str, lang: Lang) -> str:
    """``text`` without what is shown to be typed as it is: the chat's example messages (the
    dates a model reads) and the edit forms' hint that a decimal point is accepted too."""
    for example in EXAMPLES[lang]:
        text = text.replace(example, " ")
    return text.replace(ui(lang, "edit_hint"), " ")


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_web_pages_write_dates_and_numbers_as_the_language_does(
    web: TestClient, lang: Lang
) -> None:
    """No page shows an ISO date (the cards, the chart, the tables, the dialogs' titles, the
    writes): the pages with a date write it in words; es and pt show no point decimal."""
    shown = {
        p: _read_as_typed(visible_text(web.get(p, params={"lang": lang}).text), lang)
        for p in _pages(web)
    }
    assert {p: ISO_DATE.findall(text) for p, text in shown.items()} == {p: [] for p in shown}
    dated = ("/measurements", "/meals", "/goals")
    assert [p for p in dated if i18n.day(DAY, lang) not in shown[p]] == []
    assert i18n.day(dt.date(2021, 3, 1), lang) in shown["/goals"]
    assert i18n.day(DAY, lang) in shown["/writes"]
    if lang != "en":
        points = {p: POINT_DECIMAL.findall(text) for p, text in shown.items()}
        assert points == {p: [] for p in shown}


def test_the_date_check_finds_an_iso_date(web: TestClient) -> None:
    """The control: the measurements page's rows name their date as the API takes it, and
    the check above sees it once it is in the text."""
    page = web.get("/measurements", params={"lang": "es"}).text
    assert 'data-date="2020-12-03"' in page
    assert ISO_DATE.findall(visible_text(page.replace("3 dic 2020", "2020-12-03")))


# -- the data commands ---------------------------------------------------------------------------

COMMANDS = (
    ("measurements", "list", "--db"),
    ("measurements", "show", "2020-12-03", "--db"),
    ("meals", "show", "2020-12-03", "--db"),
    ("routines", "list", "--db"),
    ("goals", "list", "--db"),
    ("approvals", "list", "--db"),
    ("writes", "--db"),
    ("foods", "search", "arroz"),
    ("exercises", "search", "sentadilla"),
)
"""Every command that shows data (not ``--json``, which is for programs); ``--db`` where it
reads the database."""

Gymnasia = Callable[..., str]


@pytest.fixture(scope="module")
def data_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database with a measurement, a meal, a routine, a goal and a note on 3 Dec 2020, and
    a weight the Coach saved for 4 Dec whose acknowledgement was lost (a write in the ledger,
    a failure in the diagnostics)."""
    db = seeded(str(tmp_path_factory.mktemp("cli") / "gym.db"))
    ask = ["ask", "Guarda mi peso: 77,8 kg el 2020-12-04.", "--db", db, "--today", "2020-12-05"]
    fault = ["--fault", "write_measurement:after_commit"]
    done = subprocess.run(
        [sys.executable, "-m", "gymnasia", *ask, *fault],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "GYMNASIA_LANG": "es"},
    )
    assert done.returncode == 0, done.stderr
    return db


@pytest.fixture
def gymnasia(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Gymnasia:
    """Run the CLI in-process; returns what it printed on stdout (it must succeed)."""
    for name in ("GYMNASIA_DB", "GYMNASIA_LANG", "GYMNASIA_TODAY"):
        monkeypatch.delenv(name, raising=False)

    def invoke(*args: str) -> str:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["gymnasia", *args])
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))
        with pytest.raises(SystemExit) as exited:
            main()
        captured = capsys.readouterr()
        assert exited.value.code in (0, None), captured.err
        return captured.out

    return invoke


POINT_DECIMAL = re.compile(r"(?<![\d.-])\d+\.\d+(?![\d.-])")


@pytest.mark.parametrize("lang", ["es", "pt"])
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_data_commands_speak_the_language(
    gymnasia: Gymnasia, data_db: str, command: tuple[str, ...], lang: Lang
) -> None:
    """In es and pt a data command shows no English, no field id and no point decimal."""
    args = [arg for arg in command if arg != "--db"]
    db = ["--db", data_db] if "--db" in command else []
    shown = gymnasia(*args, *db, "--lang", lang)
    assert shown.strip()
    assert english_in(shown, lang) == []
    assert field_ids_in(shown) == []
    assert POINT_DECIMAL.findall(shown) == []
    if command[:2] != ("measurements", "list"):  # its dates are the ones to type back
        assert ISO_DATE.findall(shown) == []
    assert [m for m in meals.MEAL_IDS if re.search(rf"\b{m}\b", shown)] == []
    assert "{" not in shown


@pytest.mark.parametrize(
    ("lang", "lines"),
    [
        ("es", ["3 dic 2020", "peso: 77,4 kg", "grasa corporal: 18,5%"]),
        ("pt", ["3 de dez. de 2020", "peso: 77,4 kg", "gordura corporal: 18,5%"]),
        ("en", ["3 Dec 2020", "weight: 77.4 kg", "body fat: 18.5%"]),
    ],
)
def test_a_measurement_is_shown_in_words(
    gymnasia: Gymnasia, data_db: str, lang: Lang, lines: list[str]
) -> None:
    """``measurements show``: the date in words, then each field's name, value and unit."""
    shown = gymnasia("measurements", "show", "2020-12-03", "--db", data_db, "--lang", lang)
    assert shown.splitlines() == lines


def test_the_english_run_shows_english(gymnasia: Gymnasia, data_db: str) -> None:
    """The checks above can fail: the English output holds what they look for."""
    shown = gymnasia("meals", "show", "2020-12-03", "--db", data_db, "--lang", "en")
    assert english_in(shown, "es")
    assert POINT_DECIMAL.findall(shown)


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("es", "gymnasia: la orden «chta» no existe; ¿querías decir «chat»? (mira --help)"),
        ("pt", "gymnasia: o comando «chta» não existe; você quis dizer «chat»? (veja --help)"),
        ("en", "gymnasia: there is no command 'chta'; did you mean 'chat'? (see --help)"),
    ],
)
def test_a_mistyped_command_is_refused_with_its_near_names_in_the_language(
    lang: str, line: str
) -> None:
    """Typer adds "Did you mean …?" in English to an unknown command's message; the person
    reads the whole line in their language, the name as typed and the near names quoted."""
    done = subprocess.run(
        [sys.executable, "-m", "gymnasia", "chta", "--lang", lang],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr.strip()) == (2, line)


@pytest.mark.parametrize(
    ("lang", "write", "call"),
    [
        ("es", "hecha · Guardar una medida: peso 77,8 kg (4 dic 2020)", "llamada"),
        ("pt", "feita · Salvar uma medida: peso 77,8 kg (4 de dez. de 2020)", "chamada"),
        ("en", "done · Save a measurement: weight 77.8 kg (4 Dec 2020)", "call"),
    ],
)
def test_writes_and_failures_are_shown_in_words(
    gymnasia: Gymnasia, data_db: str, lang: Lang, write: str, call: str
) -> None:
    """``writes``: when (the date in words, the time in UTC), the state, the action and what
    it touched; ``diagnostics`` heads the failure of that write the same way, with its call
    (never a tool's name, its arguments as JSON or an ISO date). ``--json`` keeps them."""
    moment = r"\d{1,2} \D+ \d{4}, \d\d:\d\d UTC"
    (line,) = gymnasia("writes", "--db", data_db, "--lang", lang).splitlines()
    assert re.fullmatch(rf"{moment} · {re.escape(write)}", line), line
    head = gymnasia("diagnostics", "--db", data_db, "--lang", lang).splitlines()[0]
    done = re.escape(write.split(" · ", 1)[1])
    assert re.fullmatch(rf"{moment} · {done} · {call} \S+", head), head
    (kept,) = json.loads(gymnasia("writes", "--db", data_db, "--json"))
    assert (kept["tool"], kept["state"]) == ("write_measurement", "committed")
    assert kept["arguments"]["date"] == "2020-12-04"


def test_a_meal_is_named_in_words(gymnasia: Gymnasia, data_db: str) -> None:
    """``meals show``: each meal by its name in the language, not by its id."""
    lunch = ("meals", "show", "2020-12-03", "--meal", "lunch")
    shown = gymnasia(*lunch, "--db", data_db, "--lang", "pt")
    assert shown.splitlines()[:2] == ["3 de dez. de 2020", "Almoço"]


@pytest.mark.parametrize(
    ("lang", "message", "line"),
    [
        ("es", "Guarda la nota objetivo: correr 10 km.", "• no guardado: nota «objetivo»"),
        ("pt", "Salve a nota objetivo: correr 10 km.", "• não salvo: nota “objetivo”"),
        ("en", "Save the note goal: run 10 km.", "• not saved: note 'goal'"),
    ],
)
def test_a_write_that_saved_nothing_is_listed_in_words(
    gymnasia: Gymnasia, tmp_path: Path, lang: Lang, message: str, line: str
) -> None:
    """The reply Gymnasia writes when a write failed lists it in the writes page's words
    (``Agent(call_words=...)``), not by its tool's name and argument names."""
    db = str(tmp_path / "gym.db")
    shown = gymnasia(
        "ask", message, "--db", db, "--lang", lang, "--fault", "save_memory:before_commit"
    )
    assert line in shown
    assert "save_memory" not in shown
    assert "key" not in shown
