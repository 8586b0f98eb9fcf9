"""A small app for the harness's path tests (not a test module): notes, items and a remote
write over one database, written the way an application built on surefoot writes.

* ``read_note(key)`` — a read.
* ``save_note(key, value)`` — an upsert: atomic, idempotent.
* ``add_item(name)`` — an append: atomic, not idempotent (two calls are two items).
* ``delete_note(key)`` — atomic, needs a person's confirmation.
* ``send_remote(text)`` — not atomic: its effect commits on its own (as an external service
  would), and a reconcile hook finds it again by the write's key.
* ``forward(text)`` — not atomic and nothing can check it; ``"lost"`` loses the answer after
  the effect (the outcome is then unknown, for good).

Every effect also inserts its write's key into ``t_effects`` in the effect's own transaction,
so a checker can count effects per key. ``on(point, tool)`` hooks run at ``before_commit``
(inside the effect's transaction) and ``after_commit`` (after it, before the handler returns),
for fail points; ``send_remote`` also has ``before_effect`` (its remote call, outside any
transaction).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from surefoot import Ok, ReconcileResult, Recovery, ToolContext, ToolError, ToolSet
from surefoot.sql import Database, Tx

MIGRATIONS = [
    """
    CREATE TABLE t_notes (
        user_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
        PRIMARY KEY (user_id, key)
    );
    CREATE TABLE t_items (id {serial}, user_id TEXT NOT NULL, name TEXT NOT NULL);
    CREATE TABLE t_effects (
        id {serial}, key TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,
        result TEXT NOT NULL
    )
    """
]

Hook = Callable[[str, str], None]


@dataclass
class NotesApp:
    """The app's data for one user, and its tools."""

    db: Database
    user: str = "default"
    runs: Counter[str] = field(default_factory=Counter)
    on: Hook | None = None
    ran: list[tuple[str, str | None]] = field(default_factory=list)
    """Every handler run of a write: (tool, its idempotency key), shareable between apps."""

    def __post_init__(self) -> None:
        self.db.migrate("notes_app", MIGRATIONS)

    def _point(self, point: str, tool: str) -> None:
        if self.on is not None:
            self.on(point, tool)

    def _effect(
        self, tx: Tx, ctx: ToolContext, arguments: dict[str, Any], data: dict[str, Any]
    ) -> None:
        tx.execute(
            "INSERT INTO t_effects (key, tool, arguments, result) VALUES (?, ?, ?, ?)",
            (ctx.key, ctx.tool, json.dumps(arguments, sort_keys=True), json.dumps(data)),
        )

    def _atomic(
        self, ctx: ToolContext, arguments: dict[str, Any], act: Callable[[Tx], dict[str, Any]]
    ) -> dict[str, Any]:
        self.runs[ctx.tool] += 1
        with self.db.transaction() as tx:
            data = act(tx)
            self._effect(tx, ctx, arguments, data)
            self._point("before_commit", ctx.tool)
            ctx.commit_in(tx, data)
        self._point("after_commit", ctx.tool)
        return data

    # -- what a checker reads ------------------------------------------------------------------

    def notes(self) -> dict[str, str]:
        """The user's notes."""
        rows = self.db.query("SELECT key, value FROM t_notes WHERE user_id = ?", (self.user,))
        return {r[0]: r[1] for r in rows}

    def items(self) -> list[str]:
        """The user's items, in order."""
        rows = self.db.query("SELECT name FROM t_items WHERE user_id = ? ORDER BY id", (self.user,))
        return [r[0] for r in rows]

    def effects(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Every effect made, as (key, tool, arguments), in order."""
        rows = self.db.query("SELECT key, tool, arguments FROM t_effects ORDER BY id")
        return [(r[0], r[1], json.loads(r[2])) for r in rows]

    # -- the tools -----------------------------------------------------------------------------

    def tools(self) -> ToolSet:
        """The app's tools over this database."""
        tools = ToolSet()
        self._note_tools(tools)
        self._remote_tools(tools)
        return tools

    def _note_tools(self, tools: ToolSet) -> None:
        user = self.user

        @tools.tool
        def read_note(key: str) -> dict[str, Any] | ToolError:
            """Read the note saved under ``key``."""
            self.runs["read_note"] += 1
            found = self.notes().get(key)
            if found is None:
                return ToolError("not_found", f"No note {key!r}.", Recovery.CHOOSE_ALTERNATIVE)
            return {"key": key, "value": found}

        @tools.tool(effect="write", idempotent=True, atomic=True)
        def save_note(ctx: ToolContext, key: str, value: str) -> dict[str, Any]:
            """Save (replace) the note ``key``."""

            def act(tx: Tx) -> dict[str, Any]:
                tx.execute(
                    "INSERT INTO t_notes (user_id, key, value) VALUES (?, ?, ?) "
                    "ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value",
                    (user, key, value),
                )
                return {"key": key, "value": value}

            return self._atomic(ctx, {"key": key, "value": value}, act)

        @tools.tool(effect="write", atomic=True)
        def add_item(ctx: ToolContext, name: str) -> dict[str, Any]:
            """Add an item (two calls add two)."""

            def act(tx: Tx) -> dict[str, Any]:
                tx.execute("INSERT INTO t_items (user_id, name) VALUES (?, ?)", (user, name))
                count = tx.execute("SELECT COUNT(*) FROM t_items WHERE user_id = ?", (user,))
                return {"added": name, "items": int(count[0][0])}

            return self._atomic(ctx, {"name": name}, act)

        @tools.tool(effect="write", confirm=True, atomic=True)
        def delete_note(ctx: ToolContext, key: str) -> dict[str, Any] | ToolError:
            """Delete the note ``key`` (a person confirms first)."""
            self.ran.append(("delete_note", ctx.key))
            if key not in self.notes():
                self.runs["delete_note"] += 1
                return ToolError("not_found", f"No note {key!r}.", Recovery.CHOOSE_ALTERNATIVE)

            def act(tx: Tx) -> dict[str, Any]:
                tx.execute("DELETE FROM t_notes WHERE user_id = ? AND key = ?", (user, key))
                return {"deleted": key}

            return self._atomic(ctx, {"key": key}, act)

    def _remote_tools(self, tools: ToolSet) -> None:
        def found_remote(key: str, arguments: dict[str, Any]) -> ReconcileResult:
            rows = self.db.query("SELECT result FROM t_effects WHERE key = ?", (key,))
            return Ok(json.loads(rows[0][0])) if rows else "absent"

        @tools.tool(effect="write", reconcile=found_remote)
        def send_remote(ctx: ToolContext, text: str) -> dict[str, Any]:
            """Send ``text`` to a remote service (its effect commits on its own)."""
            self.runs["send_remote"] += 1
            data = {"sent": text}
            self._point("before_effect", "send_remote")
            with self.db.transaction() as tx:
                self._effect(tx, ctx, {"text": text}, data)
                self._point("before_commit", "send_remote")
            self._point("after_commit", "send_remote")
            return data

        @tools.tool(effect="write")
        def forward(ctx: ToolContext, text: str) -> dict[str, Any]:
            """Forward ``text`` somewhere that cannot be asked afterwards ("lost": the answer
            is lost after the effect)."""
            self.runs["forward"] += 1
            data = {"forwarded": text}
            with self.db.transaction() as tx:
                self._effect(tx, ctx, {"text": text}, data)
            if text == "lost":
                msg = "connection reset after sending"
                raise ConnectionError(msg)
            return data
