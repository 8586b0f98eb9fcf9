"""The web app's HTML: one layout, the chat page, the measurements page (with a server-drawn
SVG weight chart) and the access-token page. Every value is escaped where it is placed."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any, Final
from urllib.parse import urlencode

from surefoot import Lang, ToolSet
from surefoot.ledger import LedgerEntry
from surefoot.outcome import LANGS

from ..i18n import day, moment
from ..store import MEASUREMENT_FIELDS
from ..texts import APP_NAME, number, t
from ..words import action, entry_words, state
from ._i18n import EXAMPLES, client_texts, ui


@dataclass(frozen=True)
class PageContext:
    """What every page shows besides its content."""

    lang: Lang
    path: str
    provider: str
    model_name: str
    faults: str
    """``tool:mode, ...`` when fault injection is on, else empty."""
    asset_version: str
    account: str = ""
    """The signed-in account's name and sign-out button (HTML), when there are accounts."""


def _lang_query(lang: Lang, **extra: str) -> str:
    return "?" + urlencode({"lang": lang, **extra})


def layout(ctx: PageContext, *, title: str, body: str, page: str) -> str:
    """A complete page: header, banners, ``body``, and the client script."""
    config = {"lang": ctx.lang, "page": page, "texts": client_texts(ctx.lang)}
    config_json = json.dumps(config, ensure_ascii=False).replace("<", "\\u003c")
    v = escape(ctx.asset_version)
    return f"""<!doctype html>
<html lang="{ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · {APP_NAME} Coach</title>
<link rel="stylesheet" href="/static/app.css?v={v}">
<link rel="icon" href="data:,">
</head>
<body class="page-{page}">
{_fault_banner(ctx)}<header class="topbar">
  <a class="brand" href="/{_lang_query(ctx.lang)}"><span class="logo" aria-hidden="true">G</span>
    {APP_NAME} <span class="brand-sub">Coach</span></a>
  <nav class="nav" aria-label="{escape(ui(ctx.lang, "nav_pages"))}">{_nav(ctx)}</nav>
  <div class="topbar-right">{_model_label(ctx)}{_lang_switch(ctx)}{ctx.account}</div>
</header>
{body}
<script type="application/json" id="gym-config">{config_json}</script>
<script src="/static/app.js?v={v}" defer></script>
</body>
</html>
"""


def _fault_banner(ctx: PageContext) -> str:
    if not ctx.faults:
        return ""
    text = t(ctx.lang, "fault_banner", faults=ctx.faults)
    return (
        f'<div class="fault-banner" role="alert" data-faults="{escape(ctx.faults)}">'
        f"{escape(text)}</div>\n"
    )


def _nav(ctx: PageContext) -> str:
    items = (
        ("/", "nav_chat"),
        ("/measurements", "nav_measurements"),
        ("/meals", "nav_meals"),
        ("/routines", "nav_routines"),
        ("/goals", "nav_goals"),
        ("/notes", "nav_notes"),
        ("/writes", "nav_writes"),
    )
    links = []
    for href, key in items:
        current = ' aria-current="page" class="active"' if ctx.path == href else ""
        links.append(f'<a href="{href}{_lang_query(ctx.lang)}"{current}>{ui(ctx.lang, key)}</a>')
    return "".join(links)


def _model_label(ctx: PageContext) -> str:
    if ctx.provider == "offline":
        return (
            f'<span class="model-label offline-label" title="{escape(ctx.model_name)}">'
            f"{escape(ui(ctx.lang, 'offline_label'))}</span>"
        )
    return (
        f'<span class="model-label">{escape(ui(ctx.lang, "model_label"))}: '
        f"{escape(ctx.provider)} · {escape(ctx.model_name)}</span>"
    )


def _lang_switch(ctx: PageContext) -> str:
    links = []
    for lang in LANGS:
        current = ' aria-current="true" class="active"' if lang == ctx.lang else ""
        links.append(
            f'<a href="{escape(ctx.path)}{_lang_query(lang)}" hreflang="{lang}"'
            f' lang="{lang}"{current}>{lang.upper()}</a>'
        )
    label = escape(ui(ctx.lang, "language"))
    return f'<nav class="lang-switch" aria-label="{label}">{"".join(links)}</nav>'


# -- chat ------------------------------------------------------------------------------------


def chat_page(ctx: PageContext) -> str:
    """The chat: conversations, the transcript with its composer, and the tool trace."""
    lang = ctx.lang
    examples = "".join(
        f'<button type="button" class="example">{escape(e)}</button>' for e in EXAMPLES[lang]
    )
    new = escape(ui(lang, "new_conversation"))
    body = f"""<main class="chat-layout">
  <aside class="sidebar" id="conversations-panel" aria-labelledby="conv-title">
    <div class="sidebar-head">
      <h2 id="conv-title">{ui(lang, "conversations")}</h2>
      <button type="button" id="new-conversation" class="button secondary">+ {new}</button>
    </div>
    <ul id="conversations" class="conversations"></ul>
  </aside>
  <section class="chat" aria-label="{ui(lang, "nav_chat")}">
    <div class="chat-tools">
      <button type="button" class="button secondary small" id="toggle-conversations"
        aria-controls="conversations-panel" aria-expanded="false"
        >{ui(lang, "conversations")}</button>
      <button type="button" class="button secondary small" id="toggle-trace"
        aria-controls="trace-panel" aria-expanded="false">{ui(lang, "trace_toggle")}</button>
    </div>
    <div id="messages" class="messages" aria-live="polite">
      <div class="welcome" id="welcome"><p>{escape(ui(lang, "welcome"))}</p></div>
    </div>
    <div class="composer-wrap">
      <div class="examples"><span>{ui(lang, "examples")}</span>{examples}</div>
      <form id="composer" class="composer" autocomplete="off">
        <textarea id="message" name="message" rows="2" required
          placeholder="{escape(ui(lang, "placeholder"))}"></textarea>
        <button type="submit" id="send" class="button primary">{ui(lang, "send")}</button>
      </form>
    </div>
  </section>
  <aside class="trace" id="trace-panel" aria-labelledby="trace-title">
    <h2 id="trace-title">{ui(lang, "trace")}</h2>
    <p class="trace-empty" id="trace-empty">{escape(ui(lang, "trace_empty"))}</p>
    <ol id="trace" class="trace-list"></ol>
  </aside>
</main>"""
    return layout(ctx, title=ui(lang, "nav_chat"), body=body, page="chat")


# -- measurements ----------------------------------------------------------------------------


def measurements_page(ctx: PageContext, rows: Sequence[dict[str, Any]]) -> str:
    """Summary, the weight chart and the table of every saved measurement."""
    lang = ctx.lang
    if not rows:
        content = f'<p class="empty">{escape(ui(lang, "no_measurements"))}</p>'
    else:
        content = (
            _summary(lang, rows) + _chart_card(lang, rows) + _table(lang, rows) + _dialogs(lang)
        )
    body = f"""<main class="measurements-layout">
  <h1>{ui(lang, "measurements_title")}</h1>
  {content}
</main>"""
    return layout(ctx, title=ui(lang, "measurements_title"), body=body, page="measurements")


def _weights(rows: Sequence[dict[str, Any]]) -> list[tuple[dt.date, float]]:
    return [
        (dt.date.fromisoformat(r["date"]), float(r["weight_kg"]))
        for r in rows
        if r.get("weight_kg") is not None
    ]


def _summary(lang: Lang, rows: Sequence[dict[str, Any]]) -> str:
    weights = _weights(rows)
    cards = [(ui(lang, "records"), str(len(rows)), "")]
    if weights:
        last_date, last = weights[-1]
        cards.append((ui(lang, "latest_weight"), f"{number(last, lang)} kg", day(last_date, lang)))
        if len(weights) > 1:
            delta = last - weights[0][1]
            sign = "+" if delta > 0 else ("\u2212" if delta < 0 else "\u00b1")
            since = ui(lang, "since").format(date=day(weights[0][0], lang))
            cards.append((ui(lang, "change"), f"{sign}{number(abs(delta), lang)} kg", since))
    items = "".join(
        f'<div class="stat"><span class="stat-label">{escape(label)}</span>'
        f'<span class="stat-value">{escape(value)}</span>'
        f'<span class="stat-note">{escape(note)}</span></div>'
        for label, value, note in cards
    )
    return f'<section class="stats">{items}</section>'


def _chart_card(lang: Lang, rows: Sequence[dict[str, Any]]) -> str:
    weights = _weights(rows)
    title = escape(ui(lang, "weight_chart"))
    inner = (
        weight_chart(weights, lang=lang)
        if weights
        else f'<p class="empty">{escape(ui(lang, "no_weights"))}</p>'
    )
    return f'<section class="card chart-card"><h2>{title}</h2>{inner}</section>'


def _table(lang: Lang, rows: Sequence[dict[str, Any]]) -> str:
    columns = [f for f in MEASUREMENT_FIELDS if any(r.get(f) is not None for r in rows)]
    head = "".join(f'<th scope="col" class="num">{escape(ui(lang, c))}</th>' for c in columns)
    body = []
    for row in reversed(rows):
        cells = "".join(
            f'<td class="num" data-label="{escape(ui(lang, c))}">'
            f"{'—' if row.get(c) is None else escape(number(row[c], lang))}</td>"
            for c in columns
        )
        values = json.dumps({f: row.get(f) for f in MEASUREMENT_FIELDS}, separators=(",", ":"))
        date = escape(row["date"])
        shown = day(dt.date.fromisoformat(row["date"]), lang)
        titles = (
            f'data-edit-title="{escape(ui(lang, "edit_title").format(date=shown))}" '
            f'data-delete-title="{escape(ui(lang, "delete_title").format(date=shown))}"'
        )
        actions = (
            f'<td class="row-actions">'
            f'<button type="button" class="button secondary small edit-measurement" '
            f'data-date="{date}">{escape(ui(lang, "edit"))}</button> '
            f'<button type="button" class="button deny small delete-measurement" '
            f'data-date="{date}">{escape(ui(lang, "delete"))}</button></td>'
        )
        body.append(
            f'<tr data-date="{date}" data-values="{escape(values)}" {titles}><th scope="row">'
            f"{escape(shown)}</th>{cells}{actions}</tr>"
        )
    actions_head = f'<th scope="col"><span class="sr-only">{ui(lang, "actions")}</span></th>'
    return (
        '<section class="card table-card"><div class="table-wrap">'
        '<table class="measurements-table records-table">'
        f'<thead><tr><th scope="col">{ui(lang, "date")}</th>{head}{actions_head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div></section>"
    )


def _dialogs(lang: Lang) -> str:
    """The edit form (every stored field, a decimal comma allowed) and the delete question;
    app.js opens them for one row and sends what the person confirms."""
    fields = "".join(
        f'<label class="field"><span>{escape(ui(lang, name))}</span>'
        f'<input type="text" inputmode="decimal" name="{name}" autocomplete="off"></label>'
        for name in MEASUREMENT_FIELDS
    )
    return f"""<dialog id="edit-dialog" class="dialog" aria-labelledby="edit-title">
  <form id="edit-form" method="dialog" novalidate>
    <h2 id="edit-title"></h2>
    <p class="hint">{escape(ui(lang, "edit_hint"))}</p>
    <label class="field"><span>{escape(ui(lang, "date"))}</span>
      <input type="text" name="date" inputmode="numeric" autocomplete="off"
        pattern="[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}" required></label>
    <div class="fields">{fields}</div>
    {edit_actions(lang)}
  </form>
</dialog>
{delete_dialog(lang, ui(lang, "delete_body"))}"""


def edit_actions(lang: Lang) -> str:
    """The end of an edit form: where its refusal is shown, Cancel and Save."""
    return f"""<p class="form-error" id="edit-error" role="alert" hidden></p>
    <div class="dialog-actions">
      <button type="button" class="button secondary" id="edit-cancel">{ui(lang, "cancel")}</button>
      <button type="submit" class="button primary" id="edit-save">{ui(lang, "save")}</button>
    </div>"""


def delete_dialog(lang: Lang, body: str, *, url: str = "") -> str:
    """The question app.js asks before deleting one row (``url``: the route it posts to)."""
    data_url = f' data-url="{escape(url)}"' if url else ""
    return f"""<dialog id="delete-dialog" class="dialog" aria-labelledby="delete-title"{data_url}>
  <h2 id="delete-title"></h2>
  <p>{escape(body)}</p>
  <p class="form-error" id="delete-error" role="alert" hidden></p>
  <div class="dialog-actions">
    <button type="button" class="button secondary" id="delete-cancel">{ui(lang, "cancel")}</button>
    <button type="button" class="button deny" id="delete-confirm">{ui(lang, "delete")}</button>
  </div>
</dialog>"""


# -- the chart -------------------------------------------------------------------------------

_W: Final = 760
_H: Final = 300
_LEFT: Final = 56
_RIGHT: Final = 24
_TOP: Final = 34
_BOTTOM: Final = 44


def _y_range(values: Sequence[float]) -> tuple[float, float, float]:
    """``(low, high, step)``: round bounds around the values and a gridline step."""
    low, high = min(values), max(values)
    span = max(high - low, 2.0)
    step = next(s for s in (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0) if span / s <= 6)
    bottom = (low // step) * step
    top = -((-high) // step) * step
    if top - bottom < 2 * step:
        top += step
        bottom -= step
    return bottom, top, step


def weight_chart(weights: Sequence[tuple[dt.date, float]], *, lang: Lang) -> str:
    """An SVG line chart with one ``.weight-point`` circle per saved weight."""
    first, last = weights[0][0], weights[-1][0]
    days = max((last - first).days, 1)
    low, high, step = _y_range([w for _, w in weights])
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def x_of(day: dt.date) -> float:
        if first == last:
            return _LEFT + plot_w / 2
        return _LEFT + plot_w * (day - first).days / days

    def y_of(value: float) -> float:
        return _TOP + plot_h * (high - value) / (high - low)

    grid = []
    tick = low
    while tick <= high + 1e-9:
        y = y_of(tick)
        grid.append(
            f'<line class="grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="axis-label" x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(number(tick, lang))}</text>"
        )
        tick += step
    points = [(x_of(d), y_of(w), d, w) for d, w in weights]
    line = " ".join(f"{x:.1f},{y:.1f}" for x, y, _, _ in points)
    base = _TOP + plot_h
    area = f"{points[0][0]:.1f},{base} {line} {points[-1][0]:.1f},{base}"
    circles = "".join(
        f'<circle class="weight-point" cx="{x:.1f}" cy="{y:.1f}" r="5" '
        f'data-date="{d.isoformat()}" data-weight="{w:g}">'
        f"<title>{escape(day(d, lang))}: {escape(number(w, lang))} kg</title></circle>"
        for x, y, d, w in points
    )
    labels = _x_labels(weights, x_of, base, lang)
    title = escape(ui(lang, "weight_chart"))
    return (
        f'<svg class="weight-chart" viewBox="0 0 {_W} {_H}" role="img" aria-label="{title}" '
        f'xmlns="http://www.w3.org/2000/svg">'
        '<defs><linearGradient id="weight-fill" x1="0" x2="0" y1="0" y2="1">'
        '<stop offset="0%" stop-color="#2563eb" stop-opacity="0.28"/>'
        '<stop offset="100%" stop-color="#2563eb" stop-opacity="0"/></linearGradient></defs>'
        f"{''.join(grid)}"
        f'<text class="axis-unit" x="{_LEFT - 8}" y="{_TOP - 18}" text-anchor="end">kg</text>'
        f'<polygon class="weight-area" points="{area}" fill="url(#weight-fill)"/>'
        f'<polyline class="weight-line" points="{line}"/>'
        f"{circles}{labels}</svg>"
    )


def _x_labels(weights: Sequence[tuple[dt.date, float]], x_of: Any, base: float, lang: Lang) -> str:
    dates = [d for d, _ in weights]
    chosen = [dates[0]] if len(set(dates)) == 1 else [dates[0], dates[-1]]
    if len(dates) >= 5:
        chosen.insert(1, dates[len(dates) // 2])
    out = []
    for i, when in enumerate(chosen):
        anchor = "middle"
        if len(chosen) > 1 and i == 0:
            anchor = "start"
        elif len(chosen) > 1 and i == len(chosen) - 1:
            anchor = "end"
        out.append(
            f'<text class="axis-label" x="{x_of(when):.1f}" y="{base + 24:.1f}" '
            f'text-anchor="{anchor}">{escape(day(when, lang))}</text>'
        )
    return "".join(out)


# -- writes ----------------------------------------------------------------------------------


def writes_page(
    ctx: PageContext, entries: Sequence[LedgerEntry], tools: ToolSet | None = None
) -> str:
    """Every write the Coach attempted for this user, newest first, with its state, in a
    person's words (what was done to which data): where a write whose outcome was unknown
    is checked."""
    lang = ctx.lang
    if not entries:
        content = f'<p class="empty">{escape(ui(lang, "no_writes"))}</p>'
    else:
        rows = "".join(_write_row(lang, e, tools) for e in reversed(entries))
        head = "".join(
            f'<th scope="col">{escape(ui(lang, key))}</th>'
            for key in ("write_when", "write_tool", "write_what", "write_state")
        )
        content = f"""<section class="card"><table class="writes records-table">
<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></section>"""
    body = f"""<main class="measurements-layout">
  <h1>{escape(ui(lang, "writes_title"))}</h1>
  <p class="lead">{escape(ui(lang, "writes_lead"))}</p>
  {content}
</main>"""
    return layout(ctx, title=ui(lang, "writes_title"), body=body, page="writes")


def _write_row(lang: Lang, entry: LedgerEntry, tools: ToolSet | None) -> str:
    when = moment(entry.updated_at, lang)
    what = entry_words(entry, tools, lang) or "—"
    label = {key: escape(ui(lang, key)) for key in ("write_when", "write_tool", "write_what")}
    return (
        f'<tr data-key="{escape(entry.key)}" data-state="{escape(entry.state)}" '
        f'data-tool="{escape(entry.tool)}">'
        f'<td data-label="{label["write_when"]}">{escape(when)}</td>'
        f'<td data-label="{label["write_tool"]}" class="key">'
        f"{escape(action(entry.tool, lang))}</td>"
        f'<td data-label="{label["write_what"]}" class="long">{escape(what)}</td>'
        f'<td data-label="{escape(ui(lang, "write_state"))}" class="state {escape(entry.state)}">'
        f"{escape(state(entry.state, lang))}</td></tr>"
    )


# -- access token ----------------------------------------------------------------------------


def token_page(lang: Lang, path: str) -> str:
    """Asks for the access token; the form sends it as ``?token=`` to the same page."""
    return f"""<!doctype html>
<html lang="{lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(ui(lang, "token_title"))} · {APP_NAME}</title>
<link rel="icon" href="data:,"></head>
<body>
<main>
<h1>{escape(ui(lang, "token_title"))}</h1>
<p>{escape(ui(lang, "token_body"))}</p>
<form method="get" action="{escape(path)}">
<input type="password" name="token" autocomplete="current-password" required autofocus>
<input type="hidden" name="lang" value="{lang}">
<button type="submit">{escape(ui(lang, "token_submit"))}</button>
</form>
</main>
</body>
</html>
"""
