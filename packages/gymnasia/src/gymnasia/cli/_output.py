"""How results are shown: a reply and its one status line (the trace behind ``--trace``),
the ``--json`` form of a turn, meals and ledger rows."""

from __future__ import annotations

import datetime as dt
import json
import shlex
import sys
from typing import TYPE_CHECKING, Any

import typer

from .. import render
from ..render import neutralised
from ..texts import number, t
from ._base import out

if TYPE_CHECKING:
    from surefoot import Lang, PendingConfirmation, TurnEvent, TurnResult

    from ..app import Coach

_PREFIXES = {"model": ("Coach:", "cyan"), "harness": ("Gymnasia:", "yellow")}


class Wrapped:
    """Text after a prefix ("  Coach: "), its lines wrapped at the terminal's width and
    aligned under the text's first column. It may come in pieces, as a stream does; each is
    neutralised before it is measured and shown."""

    def __init__(self, author: str) -> None:
        from rich.cells import cell_len

        label, style = _PREFIXES[author]
        out.print(f"  [{style}]{label}[/{style}] ", end="")
        self._cells = cell_len
        self.indent = len(label) + 3
        self.width = max(out.rich.width, self.indent + 20)
        self.column = self.indent
        self.word = ""
        self.space = False

    def feed(self, text: str) -> None:
        for char in neutralised(text):
            if char == "\n":
                self._flush()
                self._newline()
            elif char in " \t":
                self._flush()
                self.space = self.column > self.indent  # written before the next word only
            else:
                self.word += char

    def end(self) -> None:
        self._flush()
        out.print(soft_wrap=True)

    def _flush(self) -> None:
        if not self.word:
            return
        word, self.word = self.word, ""
        gap = " " if self.space else ""
        if self.column > self.indent and self.column + len(gap) + self._cells(word) > self.width:
            self._newline()
            gap = ""
        self._write(gap + word)
        self.space = False

    def _newline(self) -> None:
        out.print("\n" + " " * self.indent, end="", markup=False, soft_wrap=True)
        self.column = self.indent
        self.space = False

    def _write(self, text: str) -> None:
        out.print(text, end="", markup=False, soft_wrap=True)
        self.column += self._cells(text)


class LivePrinter:
    """Prints a turn as it runs: the model's text as it streams (after ``Coach:``, wrapped
    under it) and, with ``trace``, each call's trace line. It remembers whether the reply
    was shown, so it is printed once."""

    def __init__(self, *, trace: bool = False) -> None:
        self.trace = trace
        self.streamed: list[str] = []
        self._open: Wrapped | None = None

    def __call__(self, event: TurnEvent) -> None:
        from surefoot.executor import CallRecord
        from surefoot.messages import TextDelta

        if isinstance(event, TextDelta):
            if self._open is None:
                self._open = Wrapped("model")
            self.streamed.append(event.text)
            self._open.feed(event.text)
        elif self.trace and isinstance(event, CallRecord):
            self.end_line()
            render.print_call(out.rich, event)

    def end_line(self) -> None:
        """End the streamed reply, if one is open."""
        if self._open is not None:
            self._open.end()
            self._open = None

    def showed_reply(self, result: TurnResult) -> bool:
        """Whether ``result``'s reply is what was streamed (then it is not printed again)."""
        return result.reply_author == "model" and "".join(self.streamed).endswith(result.reply)


def live_printer(*, trace: bool = False) -> LivePrinter:
    return LivePrinter(trace=trace)


def print_reply(text: str, author: str) -> None:
    """A whole reply after its author's prefix, wrapped and aligned under it."""
    shown = Wrapped(author)
    shown.feed(text)
    shown.end()


def print_result(
    result: TurnResult,
    printer: LivePrinter | None,
    *,
    status: str | None = None,
    trace: bool = False,
    lang: Lang = "es",
) -> None:
    """The end of a turn on the terminal: the reply unless it was streamed (an action that
    waits for a person, in words), then the one status line (what was saved, or how to
    decide on what waits) and, with ``trace``, the stop reason and the number of model
    requests."""
    shown = printer is not None and printer.showed_reply(result)
    if printer is not None:
        printer.end_line()
    if not shown:
        print_reply(shown_reply(result, lang), result.reply_author)
    if status:
        out.print(f"  [dim]{_escaped(status)}[/dim]", soft_wrap=True)
    if trace:
        render.print_turn(out.rich, result, calls=False, reply=False)


def shown_reply(result: TurnResult, lang: Lang) -> str:
    """The reply as a person reads it: an action waiting for them whose tool asks no
    question of its own is said in words (the harness's reply names the tool; ``--json``
    and ``--trace`` keep it)."""
    pending = result.pending_confirmation
    if pending is None or pending.question or result.reply_author != "harness":
        return result.reply
    return waiting_action(pending, lang)


def _escaped(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def status_line(result: TurnResult, coach: Coach, lang: Lang, options: tuple[str, ...]) -> str:
    """One plain line about what the turn left: the action waiting for a person with the
    commands that decide it, else what it saved or deleted, in its tools' own words
    (``describe``), when the model wrote the reply (a reply the harness wrote lists the
    turn's writes itself); empty when there is nothing to say."""
    from surefoot import Ok

    pending = result.pending_confirmation
    if pending is not None:
        return approval_commands(pending, lang, options)
    if result.reply_author != "model":
        return ""
    replies = coach.agent_for(lang).replies
    said = []
    for record in result.calls:
        tool = replies.tools.get(record.call.name)
        if tool is None or tool.effect != "write" or not isinstance(record.outcome, Ok):
            continue
        data = record.outcome.data
        key = "status_deleted" if "deleted" in data else "status_saved"
        said.append(t(lang, key, what=replies.described(tool, data)))
    return " · ".join(said)


def waiting_action(pending: PendingConfirmation, lang: Lang) -> str:
    """What the action ``pending`` stands for will do, in words: its tool's question, else
    ``render.approval_words``."""
    return pending.question or render.approval_words(pending.tool, pending.arguments or {}, lang)


def approval_commands(
    pending: PendingConfirmation, lang: Lang, options: tuple[str, ...] = ()
) -> str:
    """The exact commands that approve or deny ``pending``, in one line."""
    tail = "".join(f" {o}" for o in options)
    ident = shlex.quote(pending.id)
    return t(
        lang,
        "status_waiting",
        approve=f"gymnasia approvals approve {ident}{tail}",
        deny=f"gymnasia approvals deny {ident}{tail}",
    )


def report(
    result: TurnResult,
    coach: Coach,
    *,
    json_output: bool,
    printer: LivePrinter | None = None,
    trace: bool = False,
    options: tuple[str, ...] = (),
) -> None:
    if json_output:
        payload = render.turn_json(result, provider=coach.provider, model=coach.model_name)
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    else:
        lang = coach.agent.lang
        status = status_line(result, coach, lang, options)
        print_result(result, printer, status=status, trace=trace, lang=lang)
    if result.stop_reason == "provider_error":
        raise typer.Exit(3)


def write_json(value: object) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def nutrients(values: dict[str, Any], lang: Lang) -> str:
    return t(lang, "nutrients", **{k: number(v, lang) for k, v in values.items()})


def print_meal(shown: dict[str, Any], lang: Lang) -> None:
    out.print(shown["label"], style="bold", markup=False)
    if not shown["items"]:
        out.print(f"  {t(lang, 'meal_empty')}")
    for item in shown["items"]:
        name = item["name"] or item["food_id"]
        energy = item["energy_kcal"]
        kcal = "?" if energy is None else number(energy, lang)
        ref = f"[{item['item_id']}] " if "item_id" in item else ""
        out.print(
            f"  {ref}{number(item['grams'], lang)} g {name}: {kcal} kcal",
            markup=False,
            soft_wrap=True,
        )
    if shown["items"]:
        out.print(f"  = {nutrients(shown['totals'], lang)}", soft_wrap=True)


def entry_json(entry: Any) -> dict[str, Any]:
    return {
        "key": entry.key,
        "conversation_id": entry.conversation_id,
        "tool": entry.tool,
        "arguments": entry.arguments,
        "state": entry.state,
        "attempt": entry.attempt,
        "result": entry.result,
        "error": entry.error,
        "created_at": dt.datetime.fromtimestamp(entry.created_at, dt.UTC).isoformat(),
        "updated_at": dt.datetime.fromtimestamp(entry.updated_at, dt.UTC).isoformat(),
    }
