"""The ``offline`` model: deterministic, rule-based, no AI, clearly labelled as such.

It speaks surefoot's neutral model interface like any provider adapter. It understands a few
phrasings (es, pt, en; decimal comma or point; dates ``YYYY-MM-DD``) and plans tool calls for
them. It reacts to outcomes only by their program-set mark, code and recovery label — never
by reading message text.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from surefoot import (
    AssistantMessage,
    Lang,
    Message,
    ModelRequest,
    ModelResponse,
    Ok,
    Outcome,
    Recovery,
    StreamEvent,
    TextPart,
    ToolCall,
    ToolError,
    ToolResultsMessage,
    UserMessage,
    stream_from_request,
)

from .texts import number, t

_DATE: Final = r"(\d{4}-\d{2}-\d{2})"
_NUMBER: Final = r"(\d{1,3}(?:[.,]\d{1,2})?)"
_SAVE: Final = re.compile(
    r"\b(guarda|guardar|salve|salva|salvar|save|store|record)\b", re.IGNORECASE
)
_READ: Final = re.compile(
    r"\b(consulta|consultar|consulte|busca|mira|lee|leer|leia|lê|ler|look|read|check|show|"
    r"get|what)\b",
    re.IGNORECASE,
)
_LIST: Final = re.compile(r"\b(lista|listar|liste|list|todas|todos|all)\b", re.IGNORECASE)
_DELETE: Final = re.compile(
    r"\b(borra|borrar|elimina|apaga|apague|apagar|exclua|delete|remove)\b", re.IGNORECASE
)
_NOTE: Final = re.compile(r"\b(nota|notas|note|notes|memoria|memória|memory)\b", re.IGNORECASE)
_WEIGHT_WORD: Final = re.compile(r"\b(peso|weight|medidas|measurements?)\b", re.IGNORECASE)
_FALLBACK: Final = re.compile(
    r"(si no (existe|hay)|se não (existir|houver)|if (there is|there's) (none|no)|"
    r"if none|otherwise|si no|se não)",
    re.IGNORECASE,
)
_KG: Final = re.compile(_NUMBER + r"\s*kg\b", re.IGNORECASE)
_FEATURE: Final = re.compile(
    r"^\s*(?:sugiere (?:la|una) funci[oó]n|sugira (?:a|uma) funcionalidade|"
    r"suggest (?:the|a) feature)\s*:\s*(.+)$",
    re.IGNORECASE | re.DOTALL,
)
_NOTE_SAVE: Final = re.compile(
    r"(?:nota|note)\s+[«\"']?([\w\-áéíóúâêôãõçñü]+)[»\"']?\s*[:=]\s*(.+)$",
    re.IGNORECASE | re.DOTALL,
)
_NOTE_KEY: Final = re.compile(
    r"(?:nota|note)\s+[«\"']?([\w\-áéíóúâêôãõçñü]+)[»\"']?", re.IGNORECASE
)


@dataclass(frozen=True)
class _Intent:
    kind: str
    dates: tuple[str, ...] = ()
    weight: float | None = None
    key: str | None = None
    value: str | None = None


def understand(text: str) -> _Intent | None:
    """What the user asked, if it is one of the phrasings this model knows."""
    feature = _FEATURE.match(text)
    if feature:  # "Suggest the feature: TITLE. DESCRIPTION" (key = title, value = description)
        title, _, description = feature.group(1).strip().partition(". ")
        return _Intent("suggest_feature", key=title.strip().rstrip("."), value=description.strip())
    dates = tuple(re.findall(_DATE, text))
    if _NOTE.search(text):
        return _note_intent(text)
    weight = _KG.search(text)
    if _SAVE.search(text) and weight and dates:
        return _Intent("save_weight", dates[:1], float(weight.group(1).replace(",", ".")))
    if _LIST.search(text) and len(dates) >= 2:
        return _Intent("list_range", dates[:2])
    if len(dates) >= 2 and _FALLBACK.search(text):
        return _Intent("read_fallback", dates[:2])
    if dates and (_READ.search(text) or _WEIGHT_WORD.search(text)):
        return _Intent("read_one", dates[:1])
    return None


def _note_intent(text: str) -> _Intent | None:
    body = text.strip().rstrip(".")
    if _SAVE.search(body):
        found = _NOTE_SAVE.search(body)
        if found:
            return _Intent("save_note", key=found.group(1), value=found.group(2).strip())
        return None
    if _DELETE.search(body):
        key = _NOTE_KEY.search(body)
        return _Intent("delete_note", key=key.group(1)) if key else None
    if _LIST.search(body) and not _NOTE_KEY.search(body.replace("notas", "").replace("notes", "")):
        return _Intent("list_notes")
    key = _NOTE_KEY.search(body)
    if key and _READ.search(body):
        return _Intent("read_note", key=key.group(1))
    if _LIST.search(body):
        return _Intent("list_notes")
    return None


class OfflineModel:
    """A rule-based stand-in for a language model, for demos, tests and working offline."""

    provider = "offline"
    model_name = "gymnasia-offline-rules-1"

    def __init__(self, *, lang: Lang = "es") -> None:
        self.lang: Lang = lang

    async def request(self, request: ModelRequest) -> ModelResponse:
        """Plan the next step of the current turn."""
        user, results = _current_turn(request.messages)
        intent = understand(user)
        if intent is None:
            return self._say(t(self.lang, "offline_help"))
        step = self._plan(intent, results)
        if isinstance(step, str):
            return self._say(step)
        return self._call(*step, position=len(request.messages))

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The same answer as one text delta, then the response."""
        return stream_from_request(self, request)

    # -- planning ---------------------------------------------------------------------------

    def _plan(
        self, intent: _Intent, results: Sequence[tuple[ToolCall, Outcome]]
    ) -> str | tuple[str, dict[str, Any]]:
        kind = intent.kind
        if kind == "read_fallback":
            return self._plan_fallback(intent.dates, results)
        if kind == "read_one":
            if not results:
                return ("read_measurement", {"date": intent.dates[0]})
            return self._describe_read(intent.dates[0], results[-1][1])
        if kind == "save_weight":
            if not results:
                return ("write_measurement", {"date": intent.dates[0], "weight_kg": intent.weight})
            return self._describe_save(results[-1][1])
        if kind == "list_range":
            if not results:
                start, end = sorted(intent.dates)
                return ("list_measurements", {"date_from": start, "date_to": end})
            return self._describe_range(sorted(intent.dates), results[-1][1])
        if kind == "suggest_feature":
            return self._plan_feature(intent, results)
        return self._plan_note(intent, results)

    def _plan_feature(
        self, intent: _Intent, results: Sequence[tuple[ToolCall, Outcome]]
    ) -> str | tuple[str, dict[str, Any]]:
        if not results:
            arguments = {"title": intent.key or "", "description": intent.value or ""}
            return ("create_feature_issue", arguments)
        outcome = results[-1][1]
        if isinstance(outcome, Ok):
            data = outcome.data
            return t(
                self.lang,
                "feature_created",
                number=data.get("number", "?"),
                title=data.get("title", ""),
                url=data.get("url", ""),
            )
        return t(self.lang, "feature_not_created", code=outcome.code)

    def _plan_fallback(
        self, dates: tuple[str, ...], results: Sequence[tuple[ToolCall, Outcome]]
    ) -> str | tuple[str, dict[str, Any]]:
        first, second = dates
        if not results:
            return ("read_measurement", {"date": first})
        first_outcome = results[0][1]
        wants_alternative = (
            isinstance(first_outcome, ToolError)
            and first_outcome.recovery is Recovery.CHOOSE_ALTERNATIVE
        )
        if len(results) == 1 and wants_alternative:
            return ("read_measurement", {"date": second})
        parts = [self._describe_read(first, first_outcome)]
        if len(results) > 1:
            parts.append(self._describe_read(second, results[1][1]))
        return " ".join(parts)

    def _plan_note(
        self, intent: _Intent, results: Sequence[tuple[ToolCall, Outcome]]
    ) -> str | tuple[str, dict[str, Any]]:
        key = intent.key or ""
        plans: dict[str, tuple[str, dict[str, Any]]] = {
            "save_note": ("save_memory", {"key": key, "description": key, "value": intent.value}),
            "read_note": ("read_memory", {"key": key}),
            "delete_note": ("delete_memory", {"key": key}),
            "list_notes": ("list_memory_keys", {}),
        }
        planned = plans[intent.kind]
        if not results:
            return planned
        outcome = results[-1][1]
        if intent.kind == "save_note":
            return self._on_ok(outcome, t(self.lang, "note_saved", key=key))
        if intent.kind == "read_note":
            return self._describe_note(key, outcome)
        if intent.kind == "delete_note":
            if isinstance(outcome, Ok):
                return t(self.lang, "note_deleted", key=key)
            return t(self.lang, "note_not_deleted", key=key, code=outcome.code)
        return self._describe_keys(outcome)

    def _describe_note(self, key: str, outcome: Outcome) -> str:
        if isinstance(outcome, Ok):
            return t(self.lang, "note_value", key=key, value=outcome.data.get("value", ""))
        if outcome.code == "not_found":
            return t(self.lang, "note_missing", key=key)
        return t(self.lang, "tool_trouble", code=outcome.code)

    def _describe_keys(self, outcome: Outcome) -> str:
        if not isinstance(outcome, Ok):
            return t(self.lang, "tool_trouble", code=outcome.code)
        keys = outcome.data.get("keys") or []
        if not keys:
            return t(self.lang, "keys_empty")
        return t(self.lang, "keys_list", keys=", ".join(map(str, keys)))

    # -- describing outcomes ----------------------------------------------------------------

    def _describe_read(self, date: str, outcome: Outcome) -> str:
        if isinstance(outcome, Ok):
            weight = outcome.data.get("weight_kg")
            if weight is None:
                return t(self.lang, "no_weight_on", date=date)
            return t(self.lang, "weight_on", date=date, weight=number(float(weight), self.lang))
        if outcome.code == "not_found":
            return t(self.lang, "no_record", date=date)
        return t(self.lang, "read_failed", date=date, code=outcome.code)

    def _describe_save(self, outcome: Outcome) -> str:
        if isinstance(outcome, Ok):
            weight = float(outcome.data.get("weight_kg") or 0)
            return t(
                self.lang,
                "saved_weight",
                weight=number(weight, self.lang),
                date=outcome.data.get("date", ""),
            )
        return t(self.lang, "save_failed", code=outcome.code)

    def _describe_range(self, dates: list[str], outcome: Outcome) -> str:
        start, end = dates
        if not isinstance(outcome, Ok):
            return t(self.lang, "tool_trouble", code=outcome.code)
        items = outcome.data.get("measurements") or []
        if not items:
            return t(self.lang, "range_empty", start=start, end=end)
        shown = ", ".join(
            f"{m['date']}: {number(float(m['weight_kg']), self.lang)} kg"
            if m.get("weight_kg") is not None
            else str(m["date"])
            for m in items
        )
        return t(self.lang, "range_list", start=start, end=end, count=len(items), items=shown)

    def _on_ok(self, outcome: Outcome, ok_text: str) -> str:
        if isinstance(outcome, Ok):
            return ok_text
        return t(self.lang, "save_failed", code=outcome.code)

    # -- responses --------------------------------------------------------------------------

    def _say(self, text: str) -> ModelResponse:
        return ModelResponse(
            AssistantMessage(
                (TextPart(text),), "end_turn", provider=self.provider, model=self.model_name
            )
        )

    def _call(self, name: str, arguments: dict[str, Any], *, position: int) -> ModelResponse:
        call = ToolCall(f"offline_{position}", name, arguments)
        return ModelResponse(
            AssistantMessage((call,), "tool_use", provider=self.provider, model=self.model_name)
        )


def _current_turn(messages: Sequence[Message]) -> tuple[str, list[tuple[ToolCall, Outcome]]]:
    """The last user text and the (call, outcome) pairs since, in order."""
    start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=-1)
    if start < 0:
        return "", []
    user = messages[start]
    assert isinstance(user, UserMessage)
    calls: dict[str, ToolCall] = {}
    pairs: list[tuple[ToolCall, Outcome]] = []
    for message in messages[start + 1 :]:
        if isinstance(message, AssistantMessage):
            calls.update({c.call_id: c for c in message.tool_calls})
        elif isinstance(message, ToolResultsMessage):
            pairs.extend(
                (calls[r.call_id], r.outcome) for r in message.results if r.call_id in calls
            )
    return user.text, pairs
