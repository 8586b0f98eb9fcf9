"""Durable stores on SQLite (the embedded default) or PostgreSQL: one ``Database`` per URL or
path, and the journal, ledger and diagnostics that live in it. A tool that writes to the same
database can land its effect and the ledger's ``committed`` in one transaction (``Tx``)."""

from ._sql import Database, SqlDiagnostics, SqlJournal, SqlLedger, Tx, open_database

__all__ = ["Database", "SqlDiagnostics", "SqlJournal", "SqlLedger", "Tx", "open_database"]
