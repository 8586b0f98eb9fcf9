"""Training: search the exercise table, list routines, create a routine.

A routine is written as a header and its exercises after a colon, separated by ";":
"Crea la rutina Pierna de fuerza: sentadilla trasera con barra 3x10 con 60 kg, descanso
90 s; prensa de piernas 3x12 con 100 kg, descanso 60 s." Every series needs its repetitions,
load and rest read whole; exercise ids are found by searching the table, never guessed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from ..rules import AMOUNT_LIMITS
from ._intents import (
    CreateRoutine,
    Intent,
    ReadRoutines,
    RoutineStep,
    SearchExercises,
    Unclear,
)
from ._lex import Number, Word
from ._measure import number_problem
from ._sentence import Quantity, Sentence
from ._words import FUNCTION_WORDS

_LOAD: Final = {"kg": Decimal(1), "lb": Decimal("0.45359237")}
_REST: Final = {"s": 1, "min": 60}
_NAME_END: Final = frozenset({"de", "para", "for", "of", "(", ",", "-", "\u2013"})
_QUOTES: Final = "«»\"“”'()"
_PAIRS: Final = frozenset({"mancuernas", "halteres", "dumbbells", "kettlebells", "pesas"})
"""Weights that come in pairs: a load written on them ("mancuernas de 12 kg", "12 kg
dumbbells") is each one's, not the series' total."""


def _a_note(s: Sentence) -> bool:
    """Whether the message names a note before its first colon ("Guarda la nota horario:
    treino segunda..."): what follows is the note's text, not a routine or an exercise."""
    colon = next((i for i in range(len(s.items)) if s.mark_at(i, ":")), None)
    return colon is not None and any(i < colon for i in s.where("noun", "note"))


def parse_exercises(s: Sentence) -> Intent | Unclear | None:
    """Search the exercise table by words, muscle group and equipment."""
    if not s.has("noun", "exercise") or s.has("noun", "routine") or _a_note(s):
        return None
    arguments: dict[str, str] = {}
    muscle = s.values("muscle")
    if muscle:
        arguments["muscle_group"] = muscle[0]
    equipment = s.values("equipment")
    if equipment:
        arguments["equipment"] = equipment[0]
    words = [
        item.token.text
        for item in s.items
        if isinstance(item.token, Word)
        and not item.meaningful
        and item.norm not in FUNCTION_WORDS
        and item.norm not in _SEARCH_WORDS
    ]
    if words:
        arguments["query"] = " ".join(words)
    return SearchExercises(tuple(sorted(arguments.items())))


_SEARCH_WORDS: Final = frozenset(
    {
        "tabla",
        "table",
        "tabela",
        "hacer",
        "fazer",
        "do",
        "train",
        "trains",
        "entrenar",
        "treinar",
        "puedo",
        "posso",
        "can",
        "work",
        "works",
        "target",
        "targets",
        "trabajan",
        "trabaja",
        "trabalham",
        "trabalha",
    }
)


def parse_routines(s: Sentence) -> Intent | Unclear | None:
    """List the user's routines, or create one."""
    if not s.has("noun", "routine") or _a_note(s):
        return None
    plain = s.actions()
    if "delete" in plain:
        return None  # routines cannot be deleted by this model: the help says what can
    if "save" in s.actions(negated=True) and "save" not in plain:
        return Unclear("create_routine", "negated")
    if "save" not in plain:
        return ReadRoutines()
    return _create(s)


def _create(s: Sentence) -> CreateRoutine | Unclear:
    colon = next((i for i in range(len(s.items)) if s.mark_at(i, ":")), len(s.items))
    categories = [i for i in s.where("category") if i < colon]
    name = _name(s, colon, categories)
    if not name:
        return Unclear("create_routine", "routine_name_missing")
    if not categories:
        return Unclear("create_routine", "category_missing")
    category = s.items[categories[0]].value("category") or ""
    chunks = _chunks(s, colon + 1)
    if not chunks:
        return Unclear("create_routine", "exercises_missing")
    steps: list[RoutineStep] = []
    for start, end in chunks:
        step = _step(s, start, end)
        if isinstance(step, Unclear):
            return step
        steps.append(step)
    return CreateRoutine(name, category, tuple(steps))


def _name(s: Sentence, colon: int, categories: list[int]) -> str:
    """The name: "la rutina Pierna de fuerza", "a strength routine called Legs", "«Día A»"."""
    called = [i for i in s.where("called") if i < colon]
    nouns = [i for i in s.where("noun", "routine") if i < colon]
    if not called and not nouns:
        return ""
    start = (called or nouns)[0] + 1
    ends = [i for i in categories if i > start] + [colon]
    end = min(ends)
    while end > start and s.items[end - 1].norm in _NAME_END:
        end -= 1
    words = s.raw(start, end).strip(_QUOTES + " ,")
    meaningful = [w for w in words.split() if w.casefold() not in FUNCTION_WORDS]
    return words if meaningful else ""


def _chunks(s: Sentence, start: int) -> list[tuple[int, int]]:
    """Item ranges of the exercises after the colon, split at ";" (and a final ".")."""
    chunks: list[tuple[int, int]] = []
    first = start
    for i in range(start, len(s.items) + 1):
        if i == len(s.items) or s.mark_at(i, ";."):
            if any(isinstance(s.items[j].token, Word | Number) for j in range(first, i)):
                chunks.append((first, i))
            first = i + 1
    return chunks


def _step(s: Sentence, start: int, end: int) -> RoutineStep | Unclear:
    subject = s.raw(start, end)
    numbers = [i for i in range(start, end) if isinstance(s.items[i].token, Number)]
    first_number = numbers[0] if numbers else end
    words = [
        s.items[i].token.text
        for i in range(start, first_number)
        if isinstance(s.items[i].token, Word)
    ]
    while words and words[-1].casefold() in FUNCTION_WORDS:
        words.pop()
    while words and words[0].casefold() in FUNCTION_WORDS:
        words.pop(0)
    if not words:
        return Unclear("create_routine", "exercises_missing", subject)
    quantities = [q for q in s.quantities if start <= q.index < end]
    for quantity in quantities:
        problem = number_problem(quantity)
        if problem is not None:
            return Unclear("create_routine", problem, quantity.text)
    series = _series(s, start, end)
    if series is None:
        return Unclear("create_routine", "series_missing", subject)
    load = _load(s, start, end, quantities)
    if load is None:
        return Unclear("create_routine", "load_missing", subject)
    rest = _rest(s, start, end, quantities)
    if rest is None:
        return Unclear("create_routine", "rest_missing", subject)
    unmodelled = _unmodelled(s, start, end, quantities)
    if unmodelled is not None:
        return unmodelled
    values = {"sets": series[0], "reps": series[1], "load": load, "rest": rest}
    for name, value in values.items():
        low, high = AMOUNT_LIMITS[name]
        if not low <= value <= high:
            return Unclear("create_routine", "out_of_range", subject, name)
    return RoutineStep(" ".join(words), int(series[0]), int(series[1]), float(load), int(rest))


def _series_at(s: Sentence, start: int, end: int) -> tuple[int, int] | None:
    """Where the sets and the reps of ``_series`` are (their item indexes)."""
    for i in range(start, end):
        if _integer(s, i) is None or i + 1 >= end:
            continue
        joint = s.items[i + 1]
        reps_at = i + 2
        if (
            joint.means("unit", "series")
            and reps_at < end
            and s.items[reps_at].norm in {"de", "of"}
        ):
            reps_at += 1
        elif not joint.means("unit", "x"):
            continue
        if _integer(s, reps_at) is not None:
            return i, reps_at
    return None


def _unmodelled(s: Sentence, start: int, end: int, quantities: list[Quantity]) -> Unclear | None:
    """What the step does not model is asked, never stored as a plain total: a load per side,
    arm or dumbbell, plus or without the bar, any number it does not read ("2x15 kg"), and a
    load written on a pair of weights ("mancuernas de 12 kg")."""
    if any(
        s.items[i].means("qualifier", "side") or s.items[i].means("qualifier", "bar")
        for i in range(start, end)
    ):
        return Unclear("create_routine", "load_qualified", s.raw(start, end))
    used = _used(s, start, end, quantities)
    extra = next((q.text for q in quantities if q.index not in used), None)
    if extra is not None:
        return Unclear("create_routine", "number_extra", extra)
    if any(_on_a_pair(s, start, end, q) for q in quantities if q.unit in _LOAD):
        return Unclear("create_routine", "load_qualified", s.raw(start, end))
    return None


def _on_a_pair(s: Sentence, start: int, end: int, load: Quantity) -> bool:
    """Whether ``load`` is written on a pair of weights: right after it ("12 kg dumbbells")
    or right before it, joined by "de"/"of" ("mancuernas de 12 kg", "dumbbells of 12 kg")."""
    after = load.end if load.end < end else None
    if after is not None and s.items[after].norm in _PAIRS:
        return True
    joint, pair = load.index - 1, load.index - 2
    return pair >= start and s.items[joint].norm in {"de", "of"} and s.items[pair].norm in _PAIRS


def _used(s: Sentence, start: int, end: int, quantities: list[Quantity]) -> set[int]:
    at = _series_at(s, start, end)
    used = set(at or ())
    loads = [q.index for q in quantities if q.unit in _LOAD]
    rests = [q.index for q in quantities if q.unit in _REST]
    return used | set(loads[:1]) | set(rests[:1])


def _integer(s: Sentence, index: int) -> Decimal | None:
    if not 0 <= index < len(s.items):
        return None
    token = s.items[index].token
    if not isinstance(token, Number) or token.value is None:
        return None
    return token.value if token.value == token.value.to_integral_value() else None


def _series(s: Sentence, start: int, end: int) -> tuple[Decimal, Decimal] | None:
    """Sets and reps: "3x10", "3 x 10", "3 por 10", "3 series de 10", "3 sets of 10 reps"."""
    at = _series_at(s, start, end)
    if at is None:
        return None
    sets, reps = _integer(s, at[0]), _integer(s, at[1])
    assert sets is not None
    assert reps is not None
    return sets, reps


def _load(s: Sentence, start: int, end: int, quantities: list[Quantity]) -> Decimal | None:
    """The load: "con 60 kg", "135 lb", "peso corporal"/"bodyweight" (0 kg)."""
    loads = [q for q in quantities if q.unit in _LOAD]
    if len(loads) == 1 and loads[0].number.value is not None:
        return round(loads[0].number.value * _LOAD[loads[0].unit or "kg"], 2)
    if not loads and any(s.items[i].means("zero_load") for i in range(start, end)):
        return Decimal(0)
    return None


def _rest(s: Sentence, start: int, end: int, quantities: list[Quantity]) -> Decimal | None:
    """The rest: "descanso 90 s", "rest 2 min", "90 s de descanso"."""
    rests = [q for q in quantities if q.unit in _REST]
    said = any(s.items[i].means("rest") for i in range(start, end))
    if len(rests) != 1 or not said or rests[0].number.value is None:
        return None
    seconds = rests[0].number.value * _REST[rests[0].unit or "s"]
    return seconds if seconds == seconds.to_integral_value() else None
