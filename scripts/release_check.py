"""Refuse a release whose version is not written down everywhere it must be.

Run as ``python scripts/release_check.py [ROOT]`` (``make release-check``): the version of
``packages/surefoot/pyproject.toml``, of ``packages/gymnasia/pyproject.toml`` and
``surefoot.__version__`` must be one and the same, and ``CHANGELOG.md`` must have its dated
section, ``## [X.Y.Z] - YYYY-MM-DD``. A failure is one line on stderr and exit 1; success is
one line on stdout.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
import tomllib
from pathlib import Path

PYPROJECTS = ("packages/surefoot/pyproject.toml", "packages/gymnasia/pyproject.toml")
INIT = "packages/surefoot/src/surefoot/__init__.py"
_VERSION = re.compile(r'^__version__ = "(?P<version>[^"]+)"$', re.MULTILINE)
_SECTION = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\S+)\s*$", re.MULTILINE)


class RefusedError(Exception):
    """The one line that says why the release is refused."""


def versions(root: Path) -> dict[str, str]:
    """Each place that states the version, and what it states."""
    found: dict[str, str] = {}
    for name in PYPROJECTS:
        with (root / name).open("rb") as file:
            version = tomllib.load(file).get("project", {}).get("version")
        if not isinstance(version, str):
            msg = f"{name} states no [project] version"
            raise RefusedError(msg)
        found[name] = version
    stated = _VERSION.search((root / INIT).read_text(encoding="utf-8"))
    if stated is None:
        msg = f"{INIT} states no __version__"
        raise RefusedError(msg)
    found[f"{INIT} (__version__)"] = stated["version"]
    return found


def check(root: Path) -> str:
    """The version, once every place agrees and the changelog has its dated section."""
    found = versions(root)
    (first, version), *rest = found.items()
    for name, other in rest:
        if other != version:
            msg = f"{name} says {other} but {first} says {version}"
            raise RefusedError(msg)
    sections = {m["version"]: m["date"] for m in _SECTION.finditer(_changelog(root))}
    if version not in sections:
        msg = f"CHANGELOG.md has no section for {version} (## [{version}] - YYYY-MM-DD)"
        raise RefusedError(msg)
    try:
        dt.date.fromisoformat(sections[version])
    except ValueError:
        msg = f"CHANGELOG.md dates {version} {sections[version]!r}, not YYYY-MM-DD"
        raise RefusedError(msg) from None
    return version


def _changelog(root: Path) -> str:
    path = root / "CHANGELOG.md"
    if not path.exists():
        msg = "there is no CHANGELOG.md"
        raise RefusedError(msg)
    return path.read_text(encoding="utf-8")


def main(argv: list[str]) -> int:
    """Check the repository at ``argv[0]`` (default: this script's repository)."""
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    try:
        version = check(root)
    except (RefusedError, OSError, tomllib.TOMLDecodeError) as exc:
        sys.stderr.write(f"release-check: refused: {exc}\n")
        return 1
    sys.stdout.write(f"release-check: {version} is ready (versions agree, CHANGELOG.md dates it)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
