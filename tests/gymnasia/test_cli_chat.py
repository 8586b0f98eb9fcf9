"""``gymnasia chat`` on a real pseudo-terminal: line editing (readline), a history file kept
between sessions (0600), Ctrl-D leaves with 0, Ctrl-C with 130."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from pty_session import PROMPT, Terminal  # found through the path set above


def seed(tmp_path: Path) -> None:
    """A note ``diario`` in the test's database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    db = str(tmp_path / "gym.db")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "gymnasia",
            "ask",
            "Guarda la nota diario: pierna el lunes",
            "--db",
            db,
        ],
        env=env,
        capture_output=True,
        timeout=120,
        check=True,
    )


def test_ctrl_d_at_the_prompt_leaves_with_0(tmp_path: Path) -> None:
    """End of input (Ctrl-D on an empty line) ends the chat normally."""
    term = Terminal(tmp_path, "chat")
    term.expect(PROMPT)
    term.send(b"\x04")
    assert term.exit_code() == 0


def test_ctrl_c_at_the_prompt_leaves_with_130(tmp_path: Path) -> None:
    """Ctrl-C is an interruption, not a normal end: exit code 130, as a shell expects."""
    term = Terminal(tmp_path, "chat")
    term.expect(PROMPT)
    term.send(b"\x03")
    assert term.exit_code() == 130


def test_lines_are_edited_and_kept_in_a_private_history(tmp_path: Path) -> None:
    """Ctrl-A moves to the start of the line being typed (readline's editing); the line as
    edited is what the Coach gets; the history file keeps it for the next session, readable
    by its owner only, and the up arrow brings it back there."""
    seed(tmp_path)
    term = Terminal(tmp_path, "chat", "--no-stream")
    term.expect(PROMPT)
    term.send(b"nota diario.\x01Lee la \r")
    assert b"pierna el lunes" in term.expect(PROMPT)
    term.send(b"\x04")
    assert term.exit_code() == 0
    history = tmp_path / "history"
    assert history.read_text().splitlines()[-1] == "Lee la nota diario."
    assert history.stat().st_mode & 0o777 == 0o600
    again = Terminal(tmp_path, "chat", "--no-stream")
    again.expect(PROMPT)
    again.send(b"\x1b[A\r")  # up arrow: the last line, run again
    assert b"pierna el lunes" in again.expect(PROMPT)
    again.send(b"\x04")
    assert again.exit_code() == 0


def test_piped_input_keeps_no_history(tmp_path: Path) -> None:
    """Lines piped in (a script) are not written to the person's history."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}
    env["GYMNASIA_HISTORY"] = str(tmp_path / "history")
    proc = subprocess.run(
        [sys.executable, "-m", "gymnasia", "chat", "--db", str(tmp_path / "gym.db")],
        input="Lee la nota diario.\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "history").exists()
