"""``gymnasia delete-data``: erase everything of one user, and say what went."""

from __future__ import annotations

from typing import Annotated

import typer

from ..texts import t
from ._base import (
    DbOpt,
    JsonOpt,
    LangOpt,
    UserOpt,
    app,
    confirmed,
    existing_store,
    out,
    parse_lang,
)
from ._output import write_json

ORDER = (
    "gym_measurements",
    "gym_memory",
    "gym_meal_items",
    "gym_routines",
    "routine_exercises",
    "routine_series",
    "gym_goals",
    "conversations",
    "messages",
    "writes",
    "approvals",
    "diagnostics",
)


@app.command("delete-data")
def delete_data(
    db: DbOpt = None,
    lang: LangOpt = "es",
    user: UserOpt = "default",
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
    json_output: JsonOpt = False,
) -> None:
    """Erase all of the user's data (measurements, notes, meals, routines, goals, conversations,
    the record of writes, confirmations and diagnostics) in one transaction; asks first."""
    language = parse_lang(lang)
    store = existing_store(db, language, user)
    try:
        if not yes and not confirmed(t(language, "erase_confirm", user=user), language):
            raise typer.Exit(1)
        from ..erase import erase_user_data

        removed = erase_user_data(store)
    finally:
        store.db.close()
    ordered = {k: removed[k] for k in ORDER if k in removed}
    ordered.update({k: v for k, v in removed.items() if k not in ordered})
    if json_output:
        write_json({"user": user, "removed": ordered})
        return
    out.print(t(language, "erased", user=user), markup=False)
    for kind, count in ordered.items():
        label = t(language, f"erased_{kind}") if kind in ORDER else kind
        out.print(f"  {label}: {count}", markup=False)
