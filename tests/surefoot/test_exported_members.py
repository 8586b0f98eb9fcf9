"""The public namespace is curated: ``__all__`` is sorted, complete and importable."""

from __future__ import annotations

import subprocess
import sys

import surefoot
import surefoot.testing


def test_all_is_sorted_and_importable() -> None:
    """Every name in ``surefoot.__all__`` exists, and the list is sorted (constants first)."""
    names = surefoot.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert hasattr(surefoot, name), name


def test_no_private_module_names_leak() -> None:
    """Public attributes of ``surefoot`` that are not modules are all listed in ``__all__``."""
    public = {
        name
        for name, value in vars(surefoot).items()
        if not name.startswith("_") and type(value).__name__ != "module"
    }
    assert public <= set(surefoot.__all__)


def test_testing_namespace_is_listed() -> None:
    """``surefoot.testing.__all__`` names only real, public objects."""
    for name in surefoot.testing.__all__:
        assert hasattr(surefoot.testing, name), name


def test_import_is_fast_and_lazy() -> None:
    """``import surefoot`` loads no provider SDK (they cost seconds to import)."""
    code = (
        "import sys, surefoot, surefoot.providers; "
        "print(sorted(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
