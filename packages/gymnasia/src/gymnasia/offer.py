"""Which of the Coach's tools each model request declares (surefoot's ``Agent(offer=...)``).

A small local model reads every declaration before its first word: all 25 tools are about
14,000 characters, two to four minutes of prefill on two cores. So a request declares the
tools of the domains the conversation is about, found by the words of the user messages the
request carries (the window of ``app.HISTORY_TURNS``; the offline parser's lexicon, in es, pt
and en) and by the tools it has already called:

* each domain (measurements, memory, diet, training, feature requests) has its essentials
  (its reads and its main write), its fixes (corrections, moves, renames) and its deletes;
* groups are taken in order of need: those of tools called in this turn; then, for each
  domain of the latest user message in the order it names them, the essentials and the
  fixes or deletes a word of it asks for ("corrige", "rename", "borra", "quita" ...: the
  domain named nearest after that word, else before it); then the groups of tools called
  before and of earlier messages, newest first; a conversation that names no domain and has
  called nothing gets the reads of every domain; last, the other groups of the domains named
  (a domain's fixes or deletes are taken only with its essentials);
* a group is taken only while the system prompt and the declarations fit in ``BUDGET``
  characters, as the OpenAI-compatible adapter writes them: no request is larger, whatever
  the message. A group left out comes back when a later message asks for it.

A call to a declared tool that was not offered still runs: offering only chooses what the
model reads.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from surefoot.messages import AssistantMessage, Message, ToolSpec, UserMessage

from .catalog import fold
from .offline._lex import tokenize
from .offline._words import Concept, Item, tag

BUDGET: Final = 8000
"""Characters of system prompt and tool declarations a request may take (about 2,400 prompt
tokens for Qwen2.5's tokenizer, 3.4 characters a token on these declarations)."""

Change = Literal["fixes", "deletes"]


@dataclass(frozen=True, slots=True)
class Domain:
    """A part of the Coach: its tools, and the concepts of the lexicon that point at it."""

    name: str
    essentials: tuple[str, ...]
    fixes: tuple[str, ...]
    deletes: tuple[str, ...]
    reads: tuple[str, ...]
    concepts: frozenset[Concept]
    kinds: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()

    def groups(self) -> tuple[tuple[str, ...], ...]:
        """Its groups of tools, essentials first."""
        return (self.essentials, self.fixes, self.deletes)

    def changes(self, change: Change) -> tuple[str, ...]:
        """Its fixes or its deletes, with its essentials (a change is never offered without
        the reads and the write it goes with; those already offered cost nothing more)."""
        return self.essentials + (self.fixes if change == "fixes" else self.deletes)

    def complete(self) -> tuple[tuple[str, ...], ...]:
        """Its essentials, then each of its changes with them."""
        return (self.essentials, self.changes("fixes"), self.changes("deletes"))

    def named_by(self, item: Item) -> bool:
        """Whether ``item`` points at this domain."""
        return bool(
            item.concepts & self.concepts
            or any(kind in self.kinds for kind, _ in item.concepts)
            or set(item.norm.split()) & self.words
        )


def _words(text: str) -> frozenset[str]:
    return frozenset(fold(word) for word in text.split())


DOMAINS: Final = (
    Domain(
        "measurements",
        ("read_measurement", "list_measurements", "write_measurement"),
        ("edit_measurement",),
        ("delete_measurement",),
        ("read_measurement", "list_measurements"),
        frozenset(
            {
                ("noun", "measurement"),
                ("unit", "kg"),
                ("unit", "lb"),
                ("unit", "cm"),
                ("unit", "in"),
                ("unit", "pct"),
            }
        ),
        kinds=frozenset({"field", "delta"}),
    ),
    Domain(
        "memory",
        ("list_memory_keys", "read_memory", "save_memory"),
        (),
        ("delete_memory",),
        ("list_memory_keys", "read_memory"),
        frozenset({("noun", "note")}),
        words=_words(
            "recuerda recordar acuerdate remember lembra lembrar lembre preferencia prefiero"
        ),
    ),
    Domain(
        "goals",
        ("read_goals", "save_goal"),
        (),
        (),
        ("read_goals",),
        frozenset(),
        kinds=frozenset({"goal", "wish"}),
    ),
    Domain(
        "diet",
        ("search_foods", "read_meal", "add_meal_food"),
        ("edit_meal_item",),
        ("delete_meal_item",),
        ("read_meal",),
        frozenset(
            {("noun", "food"), ("noun", "meals"), ("verb", "eat"), ("unit", "g"), ("unit", "kcal")}
        ),
        kinds=frozenset({"meal", "food_category", "nutrient"}),
    ),
    Domain(
        "training",
        ("search_exercises", "read_routines", "create_routine"),
        ("rename_routine", "add_routine_exercise", "reorder_routine_exercises"),
        ("remove_routine_exercise", "delete_routine"),
        ("read_routines",),
        frozenset(
            {
                ("noun", "exercise"),
                ("noun", "routine"),
                ("unit", "series"),
                ("unit", "reps"),
                ("other", "lift"),
            }
        ),
        kinds=frozenset({"category", "muscle", "equipment", "rest", "zero_load"}),
    ),
    Domain(
        "feedback",
        ("create_feature_issue",),
        (),
        (),
        (),
        frozenset({("noun", "feature")}),
        words=_words(
            "app aplicacion aplicación aplicacao aplicação aplicativo gymnasia github issue "
            "desarrolladores developers desenvolvedores"
        ),
    ),
)

_CHANGE_WORDS: Final = _words(
    "corrige corregir corrija corrijas corrigir correct fix edita editar edite edit cambia "
    "cambiar cambie change actualiza actualizar atualiza atualizar atualize update mueve mover "
    "mueva move muda mudar mude renombra renombrar renomeia renomear rename reordena reordenar "
    "reorder ordena mal errado errada equivocado equivocada wrong mistake error erro"
)
"""Words that ask to correct what is saved (the lexicon's "delete" verbs ask to delete)."""


def _tool_chars(spec: ToolSpec) -> int:
    """The characters ``spec`` takes in a request, as the OpenAI-compatible adapter writes it
    (with the ", " that separates it from the previous one)."""
    function = {
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
        "strict": False,
    }
    return len(json.dumps({"type": "function", "function": function}, ensure_ascii=False)) + 2


@dataclass(frozen=True, slots=True)
class Mentions:
    """What one user message is about."""

    domains: tuple[Domain, ...] = ()
    """The domains it names, in the order it first names them."""
    asked: Mapping[str, frozenset[Change]] = field(default_factory=dict)
    """The fixes or deletes it asks for, by domain name."""

    def groups(self) -> Iterator[tuple[str, ...]]:
        """Each domain's essentials, then what the message asks to change in it."""
        for domain in self.domains:
            yield domain.essentials
            for change in sorted(self.asked.get(domain.name, ())):
                yield domain.changes(change)


@functools.lru_cache(maxsize=4096)
def mentions(text: str) -> Mentions:
    """The domains ``text`` names, and the changes it asks for in them.

    Every request of a turn reads every user message it carries again, so each
    text's answer is kept (a process's most recent 4,096): a message is tagged once, not
    once per request for the rest of its conversation."""
    items = tag(text, tokenize(text))
    places = {
        domain.name: [i for i, item in enumerate(items) if domain.named_by(item)]
        for domain in DOMAINS
    }
    named = sorted((at[0], domain) for domain in DOMAINS if (at := places[domain.name]))
    asked: dict[str, set[Change]] = {}
    for index, item in enumerate(items):
        change: Change | None = None
        if item.means("verb", "delete"):
            change = "deletes"
        elif set(item.norm.split()) & _CHANGE_WORDS:
            change = "fixes"
        target = _nearest(index, places) if change is not None else None
        if change is not None and target is not None:
            asked.setdefault(target, set()).add(change)
    frozen = {name: frozenset(changes) for name, changes in asked.items()}
    return Mentions(tuple(domain for _, domain in named), frozen)


def _nearest(index: int, places: dict[str, list[int]]) -> str | None:
    """The domain named first at or after ``index``, else the one named last before it."""
    after = [(at, name) for name, ats in places.items() for at in ats if at >= index]
    if after:
        return min(after)[1]
    before = [(at, name) for name, ats in places.items() for at in ats if at < index]
    return max(before)[1] if before else None


def _called(messages: Sequence[Message]) -> list[str]:
    """The tools ``messages`` called, newest first."""
    names = [
        call.name
        for message in messages
        if isinstance(message, AssistantMessage)
        for call in message.tool_calls
    ]
    return list(dict.fromkeys(reversed(names)))


class Offer:
    """The offer policy over a set of declarations (callable: ``offer(messages)``)."""

    def __init__(self, specs: Iterable[ToolSpec], system: str | None, budget: int = BUDGET):
        self._sizes = {spec.name: _tool_chars(spec) for spec in specs}
        self.room = budget - len(system or "")
        """Characters the declarations of one request may take."""

    def __call__(self, messages: Sequence[Message]) -> tuple[str, ...]:
        """The names of the tools the next request declares, after ``messages``."""
        chosen: dict[str, None] = {}
        used = 0
        for group in self._groups(messages):
            names = [name for name in group if name in self._sizes and name not in chosen]
            size = sum(self._sizes[name] for name in names)
            if names and used + size <= self.room:
                chosen.update(dict.fromkeys(names))
                used += size
        return tuple(chosen)

    def _groups(self, messages: Sequence[Message]) -> Iterator[tuple[str, ...]]:
        """The groups of tools, most needed first."""
        users = [i for i, message in enumerate(messages) if isinstance(message, UserMessage)]
        last = users[-1] if users else len(messages)
        for name in _called(messages[last:]):
            yield from _groups_of(name)
        said = [mentions(m.text) for m in reversed(messages) if isinstance(m, UserMessage)]
        if said:
            yield from said[0].groups()
        for name in _called(messages[:last]):
            yield from _groups_of(name)
        for earlier in said[1:]:
            yield from earlier.groups()
        if not any(m.domains for m in said) and not _called(messages):
            yield tuple(name for domain in DOMAINS for name in domain.reads)
        for message in said:
            for domain in message.domains:
                yield from domain.complete()

    def cost(self, names: Iterable[str]) -> int:
        """The characters the declarations of ``names`` take."""
        return sum(self._sizes.get(name, 0) for name in names)


def _groups_of(name: str) -> Iterator[tuple[str, ...]]:
    """The group ``name`` belongs to (none for a tool of no domain)."""
    for domain in DOMAINS:
        yield from (group for group in domain.groups() if name in group)


__all__ = ["BUDGET", "DOMAINS", "Domain", "Mentions", "Offer", "mentions"]
