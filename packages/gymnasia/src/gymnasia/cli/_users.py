"""``gymnasia users``: the web app's accounts (each one a ``--user`` of the same database)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from ..texts import t
from ._base import DbOpt, LangOpt, UsageProblem, app, db_target, out, parse_lang, store_problem

if TYPE_CHECKING:  # each command imports what it uses: ``gymnasia --help`` loads none of it
    from surefoot import Lang

    from ..accounts import AccountStore

users_app = typer.Typer(help="Accounts for the web app: who may sign in, and as whom.")
app.add_typer(users_app, name="users")


def _accounts(db: str | None, lang: Lang) -> AccountStore:
    from surefoot import StoreError

    from ..accounts import AccountStore
    from ..app import open_db

    target = db_target(db)
    try:
        return AccountStore(open_db(target))
    except StoreError as exc:
        raise store_problem(exc, lang, target) from None


def _password(user: str, lang: Lang, from_stdin: bool) -> str:
    """The new password: one line of stdin, or asked twice without echo."""
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = typer.prompt(t(lang, "users_password", user=user), hide_input=True)
        again = typer.prompt(t(lang, "users_password_again"), hide_input=True)
        if again != password:
            raise UsageProblem(t(lang, "users_password_mismatch"))
    from ..accounts import MIN_PASSWORD

    if len(password) < MIN_PASSWORD:
        raise UsageProblem(t(lang, "users_password_short", min=MIN_PASSWORD))
    return password


@users_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="The account's name (its --user).")],
    db: DbOpt = None,
    lang: LangOpt = "es",
    link: Annotated[
        bool,
        typer.Option("--link", help="Print a one-time sign-in link instead of asking."),
    ] = False,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="Read the password from stdin (scripts).")
    ] = False,
    url: Annotated[
        str, typer.Option("--url", help="The web app's address, for the link.")
    ] = "http://127.0.0.1:8000/",
) -> None:
    """Add an account: a password asked twice (never echoed, stored only as an Argon2
    hash), or with --link a one-time link whose opener chooses it."""
    from ..accounts import LINK_SECONDS, NAME_PATTERN

    language = parse_lang(lang)
    if not NAME_PATTERN.fullmatch(name):
        raise UsageProblem(t(language, "users_bad_name", user=name))
    password = None if link else _password(name, language, password_stdin)
    accounts = _accounts(db, language)
    try:
        if not accounts.add(name, password):
            raise UsageProblem(t(language, "users_exists", user=name), exit_code=1)
        out.print(t(language, "users_added", user=name), markup=False)
        if link:
            code = accounts.new_link(name)
            address = url.rstrip("/") + "/signin/link?code=" + code
            hours = int(LINK_SECONDS // 3600)
            out.print(t(language, "users_link", hours=hours, url=address), markup=False)
    finally:
        accounts.db.close()


@users_app.command("list")
def list_users(db: DbOpt = None, lang: LangOpt = "es") -> None:
    """The accounts, one name a line."""
    language = parse_lang(lang)
    accounts = _accounts(db, language)
    try:
        names = accounts.users()
    finally:
        accounts.db.close()
    if not names:
        out.print(t(language, "users_none"), markup=False)
    for user in names:
        out.print(user, markup=False, soft_wrap=True)
