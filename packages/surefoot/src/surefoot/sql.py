"""Durable stores on SQLite (the embedded default) or PostgreSQL: one ``Database`` per URL or
path, and the journal, ledger and diagnostics that live in it. A tool that writes to the same
database can land its effect and the ledger's ``committed`` in one transaction (``Tx``).

Every driver error (connect, migrate, begin, execute, commit, rollback) leaves as
``StoreError`` with a typed ``kind`` from one place (``driver_errors``); ``safe_url`` is an
address fit to show, without its password. ``erase_user`` deletes all of one user's rows
in a transaction and ``reclaim`` then leaves no copy of them in a SQLite file.
``deferred_flush`` is the scope in which the journal's commits on PostgreSQL need not each
wait for the disk (a turn runs in one), and ``every_commit_waits`` a block inside it whose
commits wait again (a durable engine's step)."""

from ._sql import (
    Database,
    Deferral,
    SqlDiagnostics,
    SqlJournal,
    SqlLedger,
    TransactionCounts,
    Tx,
    deferred_flush,
    driver_errors,
    erase_user,
    every_commit_waits,
    open_database,
    reclaim,
    safe_url,
    store_error,
)

__all__ = [
    "Database",
    "Deferral",
    "SqlDiagnostics",
    "SqlJournal",
    "SqlLedger",
    "TransactionCounts",
    "Tx",
    "deferred_flush",
    "driver_errors",
    "erase_user",
    "every_commit_waits",
    "open_database",
    "reclaim",
    "safe_url",
    "store_error",
]
