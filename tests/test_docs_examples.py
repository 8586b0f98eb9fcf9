"""The Python examples in the docs run, so they cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).parent.parent / "docs"
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _examples() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for index, code in enumerate(_BLOCK.findall(page.read_text(encoding="utf-8"))):
            found.append((f"{page.name}#{index + 1}", code))
    return found


@pytest.mark.parametrize(("where", "code"), _examples(), ids=[w for w, _ in _examples()])
def test_example_runs(where: str, code: str) -> None:
    """Each ```python block of docs/*.md executes without error (its asserts hold)."""
    exec(compile(code, where, "exec"), {"__name__": "docs_example"})
