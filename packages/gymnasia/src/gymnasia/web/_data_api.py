"""Edit and delete one meal item, routine, note or goal (the buttons of their pages)::

    POST /api/meals/edit    {item_id, grams}           → {item}
    POST /api/meals/delete  {item_id}                  → {deleted}
    POST /api/routines/edit {routine_id, name}         → {routine}
    POST /api/routines/delete {routine_id}             → {deleted}
    POST /api/notes/edit    {key, description?, value?} → {note}
    POST /api/notes/delete  {key}                      → {deleted}
    POST /api/goals/edit    {measure, target?, by_date?} → {goal}   (by_date null: no date)
    POST /api/goals/delete  {measure}                  → {deleted}

The record is named in the body (a note's key may hold any character). The types and ranges
are the tools' own (``Grams``, ``RoutineName``, ``Key``, ``Text``) and so are a goal's rules
(``rules.goal_target_refusal``, ``rules.goal_date_refusal``); a refusal is ``{error, message}``
with the message in the page's language, and changes nothing. Deleting is asked on the page
first."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Annotated, Any, Final, TypeVar

from fastapi import Body, FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from surefoot import CalendarDate, Lang

from ..diet import Grams, ItemId
from ..rules import goal_date_refusal, goal_target_refusal
from ..store import GymStore
from ..texts import number
from ..tools import Key, MeasurementField, Text
from ..training import RoutineName
from ._i18n import ui

M = TypeVar("M", bound=BaseModel)

Respond = Callable[..., Response]
"""``respond(value, status=200)``: the app's JSON response (redacted, never cached)."""

_LABELS: Final = {
    "grams": "grams",
    "name": "routine_name",
    "description": "note_description",
    "value": "note_value",
    "target": "goal_target",
    "by_date": "goal_by",
}


def _bounds(alias: Any) -> tuple[float, float]:
    """The range a tools' type sets: a number's ``ge``/``le``, a text's lengths."""
    found: dict[str, float] = {}
    for rule in FieldInfo.from_annotation(alias).metadata:
        for name in ("ge", "le", "min_length", "max_length"):
            if getattr(rule, name, None) is not None:
                found[name] = getattr(rule, name)
    low = found.get("ge", found.get("min_length", 0))
    return low, found["le"] if "le" in found else found["max_length"]


_GRAMS: Final = _bounds(Grams)
_TEXT_LIMITS: Final = {
    "name": _bounds(RoutineName),
    "description": _bounds(Text),
    "value": _bounds(Text),
}


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class MealEdit(_Request):
    item_id: ItemId
    grams: Grams


class MealRef(_Request):
    item_id: ItemId


class RoutineEdit(_Request):
    routine_id: Annotated[int, Field(ge=1)]
    name: RoutineName


class RoutineRef(_Request):
    routine_id: Annotated[int, Field(ge=1)]


class NoteEdit(_Request):
    key: Key
    description: Text | None = None
    value: Text | None = None


class NoteRef(_Request):
    key: Key


class GoalEdit(_Request):
    measure: MeasurementField
    target: float | None = None
    by_date: CalendarDate | None = None


class GoalRef(_Request):
    measure: MeasurementField


class DataApi:
    """The routes, over the store of the request's user; ``today`` is the person's today (the
    goal date rule)."""

    def __init__(
        self,
        store_of: Callable[[], GymStore],
        respond: Respond,
        lang_of: Callable[[Request], Lang],
        today: Callable[[], dt.date],
    ) -> None:
        self._store_of = store_of
        self.respond = respond
        self.lang_of = lang_of
        self.today = today

    @property
    def store(self) -> GymStore:
        """The store of the request's user (an account's, when the app has accounts)."""
        return self._store_of()

    def parse(self, model: type[M], raw: dict[str, Any], lang: Lang) -> M | Response:
        """``raw`` as ``model``, or the 422 that says what to fix in ``lang``."""
        try:
            return model.model_validate(raw)
        except ValidationError as exc:
            return self.respond(_invalid(exc, lang), status=422)

    def refuse(self, status: int, error: str, message: str) -> Response:
        return self.respond({"error": error, "message": message}, status=status)


def _invalid(exc: ValidationError, lang: Lang) -> dict[str, Any]:
    """The first problem of a request, in ``lang``: which field, and what it takes."""
    loc = exc.errors()[0].get("loc", ())
    field = str(loc[0]) if loc else ""
    label = ui(lang, _LABELS[field]) if field in _LABELS else ""
    if field == "grams":
        text = ui(lang, "field_invalid").format(
            field=label, low=number(_GRAMS[0], lang), high=number(_GRAMS[1], lang)
        )
    elif field in _TEXT_LIMITS:
        low, high = _TEXT_LIMITS[field]
        text = ui(lang, "text_invalid").format(field=label, low=max(int(low), 1), high=int(high))
    elif field == "by_date":
        text = ui(lang, "bad_date")
    elif field == "target":
        text = ui(lang, "field_invalid_any").format(field=label)
    else:
        text = ui(lang, "record_request_invalid")
    return {"error": "invalid", "field": field, "message": text}


def register(app: FastAPI, api: DataApi) -> None:
    """Add the routes of the four pages to ``app``."""
    _post(app, api, "/api/meals/edit", MealEdit, _edit_meal)
    _post(app, api, "/api/meals/delete", MealRef, _delete_meal)
    _post(app, api, "/api/routines/edit", RoutineEdit, _rename_routine)
    _post(app, api, "/api/routines/delete", RoutineRef, _delete_routine)
    _post(app, api, "/api/notes/edit", NoteEdit, _edit_note)
    _post(app, api, "/api/notes/delete", NoteRef, _delete_note)
    _post(app, api, "/api/goals/edit", GoalEdit, _edit_goal)
    _post(app, api, "/api/goals/delete", GoalRef, _delete_goal)


Raw = Annotated[dict[str, Any], Body()]

Act = Callable[[DataApi, GymStore, Lang, M], Response]
"""What a route does with its parsed request, over the request's store, in its language."""


def _post(app: FastAPI, api: DataApi, path: str, model: type[M], act: Act[M]) -> None:
    """``POST path``: the request's store and language, the body as ``model`` (else the 422
    that says what to fix), then ``act``."""

    @app.post(path, name=act.__name__.lstrip("_"))
    async def route(request: Request, raw: Raw) -> Response:
        store = api.store
        lang = api.lang_of(request)
        body = api.parse(model, raw, lang)
        if isinstance(body, Response):
            return body
        return act(api, store, lang, body)


# -- meals -----------------------------------------------------------------------------------


def _edit_meal(api: DataApi, store: GymStore, lang: Lang, body: MealEdit) -> Response:
    with store.transaction() as tx:
        item = store.update_meal_item(tx, body.item_id, {"grams": body.grams})
    if item is None:
        return api.refuse(404, "not_found", ui(lang, "item_gone"))
    return api.respond({"item": item})


def _delete_meal(api: DataApi, store: GymStore, lang: Lang, body: MealRef) -> Response:
    with store.transaction() as tx:
        removed = store.delete_meal_item(tx, body.item_id)
    if removed is None:
        return api.refuse(404, "not_found", ui(lang, "item_gone"))
    return api.respond({"deleted": removed})


# -- routines --------------------------------------------------------------------------------


def _rename_routine(api: DataApi, store: GymStore, lang: Lang, body: RoutineEdit) -> Response:
    with store.transaction() as tx:
        if not store.routines(body.routine_id, tx=tx):
            return api.refuse(404, "not_found", ui(lang, "routine_gone"))
        if not store.rename_routine(tx, body.routine_id, body.name):
            message = ui(lang, "routine_taken").format(name=body.name)
            return api.refuse(409, "conflict", message)
        (saved,) = store.routines(body.routine_id, tx=tx)
    return api.respond({"routine": saved})


def _delete_routine(api: DataApi, store: GymStore, lang: Lang, body: RoutineRef) -> Response:
    with store.transaction() as tx:
        found = store.routines(body.routine_id, tx=tx)
        if not found or not store.delete_routine(tx, body.routine_id):
            return api.refuse(404, "not_found", ui(lang, "routine_gone"))
    return api.respond({"deleted": found[0]})


# -- notes -----------------------------------------------------------------------------------


def _edit_note(api: DataApi, store: GymStore, lang: Lang, body: NoteEdit) -> Response:
    if body.description is None and body.value is None:
        return api.refuse(422, "empty", ui(lang, "nothing_changed"))
    with store.transaction() as tx:
        current = store.read_memory(body.key, tx=tx)
        if current is None:
            return api.refuse(404, "not_found", ui(lang, "note_gone"))
        description = current["description"] if body.description is None else body.description
        value = current["value"] if body.value is None else body.value
        saved = store.save_memory(tx, body.key, description, value)
    return api.respond({"note": saved})


def _delete_note(api: DataApi, store: GymStore, lang: Lang, body: NoteRef) -> Response:
    with store.transaction() as tx:
        if not store.delete_memory(tx, body.key):
            return api.refuse(404, "not_found", ui(lang, "note_gone"))
    return api.respond({"deleted": body.key})


# -- goals -----------------------------------------------------------------------------------


def _edit_goal(api: DataApi, store: GymStore, lang: Lang, body: GoalEdit) -> Response:
    current = next((g for g in store.goals() if g["measure"] == body.measure), None)
    if current is None:
        return api.refuse(404, "not_found", ui(lang, "goal_gone"))
    target = current["target"] if body.target is None else body.target
    by_date = body.by_date if "by_date" in body.model_fields_set else current["by_date"]
    day = dt.date.fromisoformat(by_date) if isinstance(by_date, str) else by_date
    refused = goal_target_refusal(lang, body.measure, target) or goal_date_refusal(
        lang, day, api.today()
    )
    if refused is not None:
        return api.refuse(422, "invalid", refused.message)
    with store.transaction() as tx:
        saved = store.save_goal(tx, body.measure, target, day)
    return api.respond({"goal": saved})


def _delete_goal(api: DataApi, store: GymStore, lang: Lang, body: GoalRef) -> Response:
    with store.transaction() as tx:
        if not store.delete_goal(tx, body.measure):
            return api.refuse(404, "not_found", ui(lang, "goal_gone"))
    return api.respond({"deleted": body.measure})
