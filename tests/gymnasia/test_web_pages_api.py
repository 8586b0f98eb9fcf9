"""The meals, routines, notes and goals pages and their API, the 404 page, the remembered
language, and writes and approvals in words, through FastAPI's TestClient (no browser)."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient

from gymnasia.store import GymStore
from gymnasia.web import create_app
from gymnasia.words import action, call_words
from surefoot import open_database

BASE = "http://127.0.0.1:8000"
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
TODAY = dt.date(2020, 2, 5)


def seed(db: str) -> None:
    """A weight, two notes, two goals, a routine and three logged foods."""
    store = GymStore(open_database(db))
    with store.transaction() as tx:
        store.upsert_measurement(tx, dt.date(2020, 2, 1), {"weight_kg": 79.0})
        store.save_memory(tx, "knee", "Knee", "No deep squats")
        store.save_memory(tx, "a/b?c", "Odd key", "Kept as written")
        store.save_goal(tx, "weight_kg", 75.0, dt.date(2020, 6, 1))
        store.save_goal(tx, "waist_cm", 84.0, None)
        store.create_routine(tx, "Push A", "strength", [("push_up", [(15, 0.0, 60)])])
        store.create_routine(tx, "Pull B", "strength", [("push_up", [(10, 0.0, 60)])])
        store.add_meal_item(tx, dt.date(2020, 2, 3), "lunch", "white_rice_cooked", 150)
        store.add_meal_item(tx, dt.date(2020, 2, 4), "dinner", "pasta_cooked", 200)
    store.db.close()


@pytest.fixture
def db(db_url: str) -> str:
    seed(db_url)
    return db_url


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with ExitStack() as stack:
        app = create_app(db=db, lang="es", today=TODAY)
        yield stack.enter_context(TestClient(app, base_url=BASE))


def opened(db: str) -> GymStore:
    return GymStore(open_database(db, create=False))


def meal_ids(db: str) -> list[int]:
    store = opened(db)
    try:
        return [e[0] for d in (3, 4) for e in store.meal_entries(dt.date(2020, 2, d))]
    finally:
        store.db.close()


def test_each_page_lists_what_is_saved(client: TestClient) -> None:
    """Meals, routines, notes and goals: every record is on its page, in the page's words,
    with Edit and Delete."""
    meals = client.get("/meals").text
    assert "Arroz blanco cocido" in meals
    assert meals.index("2020-02-04") < meals.index("2020-02-03")  # newest first
    routines = client.get("/routines?lang=en").text
    assert "Push A" in routines
    assert "Push-up" in routines or "Push up" in routines
    notes = client.get("/notes").text
    assert "No deep squats" in notes
    assert "Odd key" in notes
    goals = client.get("/goals?lang=pt").text
    assert "Suas metas" in goals
    assert "75 kg" in goals
    assert "sem data" in goals
    for page in (meals, routines, notes, goals):
        assert page.count('class="button secondary small edit-record"') >= 2
        assert '<dialog id="delete-dialog"' in page


def test_empty_pages_say_how_to_fill_them(tmp_path: object) -> None:
    """A new person: each page says it is empty and how to add something."""
    with TestClient(create_app(db=f"{tmp_path}/empty.db", lang="en"), base_url=BASE) as client:
        assert "No meals logged yet" in client.get("/meals").text
        assert "No routines saved yet" in client.get("/routines").text
        assert "No notes yet" in client.get("/notes").text
        assert "I want to get to 74 kg" in client.get("/goals").text


def test_edit_and_delete_a_note(client: TestClient, db: str) -> None:
    """A note's content changes (its description kept), even with a key holding / and ?;
    deleting it removes it; a second delete says it is gone."""
    reply = client.post("/api/notes/edit", json={"key": "a/b?c", "value": "New content"})
    assert reply.status_code == 200, reply.text
    store = opened(db)
    assert store.read_memory("a/b?c") == {
        "key": "a/b?c",
        "description": "Odd key",
        "value": "New content",
    }
    store.db.close()
    assert client.post("/api/notes/delete", json={"key": "knee"}).status_code == 200
    again = client.post("/api/notes/delete?lang=en", json={"key": "knee"})
    assert again.status_code == 404
    assert again.json()["message"] == "That note no longer exists. Reload the page."


def test_edit_a_goal_within_the_tools_rules(client: TestClient, db: str) -> None:
    """A goal takes a new target and loses its date; a target out of range or a date
    already past is refused with the rule's own words, and nothing changes."""
    reply = client.post(
        "/api/goals/edit", json={"measure": "weight_kg", "target": 74.5, "by_date": None}
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["goal"] == {"measure": "weight_kg", "target": 74.5, "by_date": None}
    low = client.post("/api/goals/edit?lang=en", json={"measure": "weight_kg", "target": 5})
    assert low.status_code == 422
    assert low.json()["message"].startswith("The goal was not saved: 5 is outside")
    past = client.post(
        "/api/goals/edit?lang=en", json={"measure": "waist_cm", "by_date": "2020-01-01"}
    )
    assert past.status_code == 422
    assert "2020-01-01" in past.json()["message"]
    bad = client.post("/api/goals/edit", json={"measure": "waist_cm", "by_date": "1/2/2020"})
    assert bad.json()["message"] == "Fecha no válida: usa AAAA-MM-DD."
    store = opened(db)
    assert store.goals() == [
        {"measure": "weight_kg", "target": 74.5, "by_date": None},
        {"measure": "waist_cm", "target": 84.0, "by_date": None},
    ]
    store.db.close()


def test_delete_a_goal(client: TestClient, db: str) -> None:
    """Deleting a goal removes only it; the measurements stay."""
    assert client.post("/api/goals/delete", json={"measure": "waist_cm"}).status_code == 200
    gone = client.post("/api/goals/delete", json={"measure": "waist_cm"})
    assert (gone.status_code, gone.json()["message"]) == (
        404,
        "Ese objetivo ya no existe. Recarga la página.",
    )
    store = opened(db)
    assert [g["measure"] for g in store.goals()] == ["weight_kg"]
    assert store.read_measurement(dt.date(2020, 2, 1)) is not None
    store.db.close()


def test_edit_and_delete_a_logged_food(client: TestClient, db: str) -> None:
    """A logged food's grams change within the tools' range (1 to 5000 g); deleting it
    leaves the other items."""
    first, second = meal_ids(db)
    assert client.post("/api/meals/edit", json={"item_id": first, "grams": 180}).status_code == 200
    too_much = client.post("/api/meals/edit?lang=en", json={"item_id": first, "grams": 9000})
    assert too_much.status_code == 422
    assert too_much.json()["message"] == "Amount (g): use a number from 1 to 5000."
    assert client.post("/api/meals/delete", json={"item_id": second}).status_code == 200
    store = opened(db)
    assert store.meal_items(dt.date(2020, 2, 3)) == [("lunch", "white_rice_cooked", 180.0)]
    assert store.meal_items(dt.date(2020, 2, 4)) == []
    store.db.close()
    gone = client.post("/api/meals/delete", json={"item_id": second})
    assert gone.status_code == 404
    assert "ya no está en el diario" in gone.json()["message"]


def test_rename_and_delete_a_routine(client: TestClient, db: str) -> None:
    """A routine is renamed; a name another routine has is refused; deleting removes it."""
    store = opened(db)
    push, pull = (r["id"] for r in store.routines())
    store.db.close()
    renamed = client.post("/api/routines/edit", json={"routine_id": push, "name": " Empuje "})
    assert renamed.json()["routine"]["name"] == "Empuje"
    taken = client.post("/api/routines/edit?lang=en", json={"routine_id": pull, "name": "empuje"})
    assert taken.status_code == 409
    assert taken.json()["message"] == (
        "You already have another routine called 'empuje'; nothing was changed."
    )
    assert client.post("/api/routines/delete", json={"routine_id": pull}).status_code == 200
    store = opened(db)
    assert [r["name"] for r in store.routines()] == ["Empuje"]
    store.db.close()


def test_another_persons_records_cannot_be_seen_edited_or_deleted(
    client: TestClient, db: str
) -> None:
    """Another person's note, goal, routine and logged food in the same database: absent
    from the pages, and every edit or delete of them is a 404 that changes nothing."""
    other = GymStore(open_database(db, create=False), user="ana")
    with other.transaction() as tx:
        other.save_memory(tx, "ana-note", "Ana", "Ana's own note")
        other.save_goal(tx, "hips_cm", 90.0, None)
        other.create_routine(tx, "Ana legs", "strength", [("push_up", [(5, 0.0, 60)])])
        other.add_meal_item(tx, dt.date(2020, 2, 4), "breakfast", "pasta_cooked", 321)
    (routine,) = other.routines()
    (item,) = other.meal_entries(dt.date(2020, 2, 4))
    before = (other.memory_keys(), other.goals(), other.routines(), other.meal_log())
    other.db.close()
    pages = "".join(client.get(page).text for page in ("/notes", "/goals", "/routines"))
    assert "ana-note" not in pages
    assert "Ana legs" not in pages
    assert client.get("/meals").text.count('<tr class="record"') == 2  # the two seeded
    attempts = [
        ("/api/notes/edit", {"key": "ana-note", "value": "changed"}),
        ("/api/notes/delete", {"key": "ana-note"}),
        ("/api/goals/edit", {"measure": "hips_cm", "target": 80}),
        ("/api/goals/delete", {"measure": "hips_cm"}),
        ("/api/routines/edit", {"routine_id": routine["id"], "name": "Mine now"}),
        ("/api/routines/delete", {"routine_id": routine["id"]}),
        ("/api/meals/edit", {"item_id": item[0], "grams": 10}),
        ("/api/meals/delete", {"item_id": item[0]}),
    ]
    for url, body in attempts:
        assert client.post(url, json=body).status_code == 404, url
    other = GymStore(open_database(db, create=False), user="ana")
    assert (other.memory_keys(), other.goals(), other.routines(), other.meal_log()) == before
    other.db.close()


def test_what_a_person_or_model_wrote_is_escaped_on_every_page(db: str) -> None:
    """A note and a routine name holding markup are shown as text: escaped in the cells,
    the titles and the data attributes, never as live HTML."""
    attack = '<img src=x onerror="alert(1)">'
    store = opened(db)
    with store.transaction() as tx:
        store.save_memory(tx, attack, attack, attack)
        store.create_routine(tx, attack, "strength", [("push_up", [(5, 0.0, 60)])])
    store.db.close()
    with TestClient(create_app(db=db, lang="en", today=TODAY), base_url=BASE) as client:
        for page in ("/notes", "/routines"):
            html = client.get(page).text
            assert "<img" not in html, page
            assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html, page


def test_a_malformed_edit_is_refused_in_words(client: TestClient) -> None:
    """An unknown field, a missing key or a wrong type: a 422 naming the problem in the
    page's language, never pydantic's English."""
    extra = client.post("/api/notes/edit?lang=pt", json={"key": "knee", "colour": "red"})
    assert extra.status_code == 422
    assert extra.json()["message"] == (
        "Nada foi alterado: esta página está desatualizada. Recarregue-a."
    )
    wrong = client.post("/api/meals/delete?lang=en", json={"item_id": "first"})
    assert (wrong.status_code, wrong.json()["field"]) == (422, "item_id")
    assert wrong.json()["message"] == "Nothing was changed: this page is out of date. Reload it."
    empty = client.post("/api/notes/edit?lang=en", json={"key": "knee"})
    assert empty.json()["message"] == "You did not change anything."
    name = client.post("/api/routines/edit?lang=en", json={"routine_id": 1, "name": "  "})
    assert name.json()["message"] == "Name: write from 1 to 100 characters."


def test_an_unknown_address_is_a_page_in_the_persons_language(client: TestClient) -> None:
    """A 404 is the app's own page (header, menu, a way back) in the chosen language; under
    /api it is JSON with a message; neither shows a raw code."""
    page = client.get("/no/such/page?lang=en")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text
    assert 'class="topbar"' in page.text
    assert "Go to the chat" in page.text
    assert "Not Found" not in page.text
    remembered = client.get("/nothing-here")
    assert "Page not found" in remembered.text  # the language chosen before
    api = client.get("/api/nothing")
    assert api.status_code == 404
    assert api.json() == {"error": "not_found", "message": "There is no such API address."}


def test_the_chosen_language_is_remembered_for_the_first_paint(client: TestClient) -> None:
    """Choosing a language (?lang=) sets a cookie; the next page, with no ?lang=, is drawn
    in it from the server, and the API answers in it."""
    assert '<html lang="es">' in client.get("/").text
    chosen = client.get("/goals?lang=pt")
    assert "gymnasia_lang=pt" in chosen.headers["set-cookie"]
    assert '<html lang="pt">' in client.get("/").text
    assert '<html lang="pt">' in client.get("/meals").text
    gone = client.post("/api/notes/delete", json={"key": "missing"})
    assert gone.json()["message"] == "Essa nota não existe mais. Recarregue a página."


def test_writes_page_is_in_words(client: TestClient) -> None:
    """The writes page says what each write did, to which data, and when, with no tool name,
    no argument name, no JSON and no ISO date."""
    turn = client.post("/api/chat", json={"message": "Guarda mi peso: 78,5 kg el 2020-02-05."})
    assert turn.status_code == 200
    page = client.get("/writes").text
    row = re.search(r"<tbody>(.*)</tbody>", page, re.DOTALL)
    assert row is not None
    text = re.sub(r"<[^>]+>", " ", row.group(1))
    assert "Guardar una medida" in text
    assert "peso 78,5 kg (5 feb 2020)" in text
    assert re.search(r"\b\d{1,2} [a-z]{3,4} 20\d\d, \d\d:\d\d UTC\b", text), text
    assert ISO_DATE.findall(text) == []
    assert "write_measurement" not in text
    assert "weight_kg" not in text
    assert "{" not in text


def test_a_waiting_call_is_described_in_words(client: TestClient) -> None:
    """The approval waits with what will happen to which data, in the turn's language, as
    streamed and as read back after a reload; the harness's notice is not repeated."""
    turn = client.post("/api/chat", json={"message": "Delete the note knee.", "lang": "en"})
    items = [json.loads(line) for line in turn.text.splitlines()]
    pending = items[-1]["turn"]["pending_confirmation"]
    assert (pending["action"], pending["summary"]) == ("Delete a note", "note 'knee'")
    conversation = items[0]["conversation_id"]
    again = client.get(f"/api/conversations/{conversation}?lang=pt").json()
    assert again["pending_confirmation"]["action"] == "Excluir uma nota"
    assert again["pending_confirmation"]["summary"] == "nota “knee”"
    assert again["pending_confirmation"]["id"] == pending["id"]


def test_an_unlikely_value_waits_with_the_facts(client: TestClient) -> None:
    """A weight far from the last one waits on the tool's own question, with the last
    record's value and date (not a generic notice naming the tool)."""
    turn = client.post("/api/chat", json={"message": "Guarda mi peso: 95 kg el 2020-02-05."})
    done = json.loads(turn.text.splitlines()[-1])["turn"]
    pending = done["pending_confirmation"]
    assert pending["question"] == (
        "¿Guardar peso 95 kg para hoy? Último registro de peso: 79 kg (el 2020-02-01)."
    )
    assert "write_measurement" not in done["reply"]


def test_refusals_of_approvals_and_conversations_carry_words(client: TestClient) -> None:
    """An approval that does not exist and a conversation that does not exist are refused
    with a message in the request's language, not a bare code."""
    turn = client.post("/api/chat", json={"message": "Borra la nota knee."})
    conversation = json.loads(turn.text.splitlines()[0])["conversation_id"]
    missing = client.post(
        f"/api/approvals/{conversation}/ap_nothing", json={"approved": True, "lang": "en"}
    )
    assert missing.status_code == 404
    assert missing.json()["message"] == (
        "There is no such confirmation in this conversation; nothing was done."
    )
    gone = client.get("/api/conversations/c_nothing?lang=pt")
    assert gone.json() == {"error": "not_found", "message": "Essa conversa não existe."}


def test_every_write_tool_has_words(client: TestClient) -> None:
    """Each write the Coach can make has an action name of its own in es, pt and en (a new
    write tool without one fails here), never the tool's name."""
    app = client.app
    tools = app.state.coach.agent.tools
    writes = [tool.name for tool in tools if tool.effect == "write"]
    assert "add_meal_food" in writes
    for lang in ("es", "pt", "en"):
        names = [action(name, lang) for name in writes]
        assert action("no_such_tool", lang) not in names
        assert len(set(names)) == len(names)
        assert not any("_" in name for name in names)


@pytest.mark.parametrize(
    ("tool", "arguments", "lang", "words"),
    [
        (
            "add_meal_food",
            {"date": "2020-02-03", "meal": "lunch", "food_id": "white_rice_cooked", "grams": 150},
            "pt",
            "150 g de Arroz branco cozido, em 3 de fev. de 2020, Almoço",
        ),
        ("edit_meal_item", {"item_id": 12, "grams": 200.5}, "es", "200,5 g, alimento n.º 12"),
        (
            "create_routine",
            {
                "name": "Leg day",
                "category": "strength",
                "exercises": [{"exercise_id": "push_up", "series": []}],
            },
            "en",
            "routine 'Leg day', 1 exercise",
        ),
        (
            "remove_routine_exercise",
            {"routine": "Pierna", "position": 2},
            "es",
            "rutina «Pierna», puesto 2",
        ),
        (
            "save_goal",
            {"measure": "waist_cm", "target": 84, "by_date": "2020-06-01"},
            "en",
            "waist goal: 84 cm (by 1 Jun 2020)",
        ),
        (
            "edit_measurement",
            {"date": "2020-02-01", "new_date": "2020-02-02"},
            "es",
            "el 1 feb 2020, pasa al 2 feb 2020",
        ),
        (
            "add_meal_food",
            {"food_id": "../etc/passwd", "grams": 1},
            "en",
            "1 g of a food the table",
        ),
    ],
)
def test_a_call_in_words(tool: str, arguments: dict[str, object], lang: str, words: str) -> None:
    """A call's arguments as a person reads them: foods and meals by name, numbers and dates
    as the language writes them, no argument names."""
    said = call_words(None, tool, arguments, lang)
    assert said.startswith(words), said
    assert not any(name in said for name in arguments if "_" in name)
    assert ISO_DATE.findall(said) == []


def test_a_method_an_address_does_not_take_is_refused_in_words(client: TestClient) -> None:
    """GET on an address that only takes POST: 405 with the allowed method and a message in
    the page's language."""
    reply = client.get("/api/notes/edit?lang=en")
    assert reply.status_code == 405
    assert reply.headers["allow"] == "POST"
    assert reply.json() == {
        "error": "method_not_allowed",
        "message": "That address does not take this kind of request; nothing was done.",
    }


def test_the_question_is_asked_in_the_language_of_the_page_that_reads_it(
    client: TestClient,
) -> None:
    """A conversation read back in another language shows the tool's question in that
    language (a person switched the page after the turn)."""
    turn = client.post("/api/chat", json={"message": "Guarda mi peso: 95 kg el 2020-02-05."})
    conversation = json.loads(turn.text.splitlines()[0])["conversation_id"]
    read = client.get(f"/api/conversations/{conversation}?lang=en").json()
    assert read["pending_confirmation"]["question"].startswith("Save weight 95 kg for today?")
