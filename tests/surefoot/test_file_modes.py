"""The database file (journal, ledger, diagnostics) is private to its owner."""

from __future__ import annotations

import stat
from pathlib import Path

from surefoot import SqlDiagnostics, open_database
from surefoot._diagnostics import Diagnostic


def test_new_database_file_is_owner_only(tmp_path: Path) -> None:
    """A database created by surefoot is mode 0600, and stays so after writing diagnostics."""
    path = tmp_path / "private.db"
    db = open_database(path)
    SqlDiagnostics(db).record(Diagnostic("c", "call", "tool", "OSError", "boom", "tb", 0.0))
    db.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_data_dir_is_created_only_on_open(tmp_path: Path) -> None:
    """Opening a database in a missing folder creates the folder then, not at import."""
    path = tmp_path / "nested" / "dir" / "g.db"
    assert not path.parent.exists()
    open_database(path).close()
    assert path.exists()
