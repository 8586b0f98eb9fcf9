"""Versions and releases: one version stated in three places, and ``make release-check``
refusing, in one line, a version the changelog does not date."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import surefoot

ROOT = Path(__file__).parents[2]
COPIED = (
    "Makefile",
    "CHANGELOG.md",
    "scripts/release_check.py",
    "packages/surefoot/pyproject.toml",
    "packages/gymnasia/pyproject.toml",
    "packages/surefoot/src/surefoot/__init__.py",
)


def stated(package: str) -> str:
    """The version ``packages/<package>/pyproject.toml`` states."""
    with (ROOT / "packages" / package / "pyproject.toml").open("rb") as file:
        version = tomllib.load(file)["project"]["version"]
    assert isinstance(version, str)
    return version


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The files ``make release-check`` reads, copied into a temporary repository."""
    for name in COPIED:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def release_check(root: Path) -> subprocess.CompletedProcess[str]:
    """``make release-check`` run in ``root``."""
    return subprocess.run(
        ["make", "--no-print-directory", "release-check", f"PYTHON={sys.executable}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=root,
    )


def test_the_version_is_the_same_everywhere() -> None:
    """``surefoot.__version__`` is the version both pyproject files state."""
    assert surefoot.__version__ == stated("surefoot") == stated("gymnasia")


def test_every_version_has_a_dated_changelog_section() -> None:
    """The changelog opens with Unreleased, then one dated section per version, newest first."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[0] == "Unreleased"
    dated = [re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", h) for h in headings[1:]]
    assert all(dated), headings
    versions = [tuple(map(int, m[1].split("."))) for m in dated if m]
    assert versions == sorted(versions, reverse=True)
    assert f"[{surefoot.__version__}]" in headings[1]


def test_release_check_passes_on_the_repository(copy: Path) -> None:
    """As the repository stands, the check says the version is ready, in one line."""
    out = release_check(copy)
    assert out.returncode == 0, out.stderr
    ready = f"release-check: {surefoot.__version__} is ready"
    assert out.stdout == f"{ready} (versions agree, CHANGELOG.md dates it)\n"


def test_release_check_refuses_a_version_without_its_section(copy: Path) -> None:
    """With the version's section gone from the changelog: exit non-zero, one clear line."""
    changelog = copy / "CHANGELOG.md"
    heading = re.compile(rf"^## \[{re.escape(surefoot.__version__)}\] - .*$", re.MULTILINE)
    text, removed = heading.subn("## Older", changelog.read_text(encoding="utf-8"))
    assert removed == 1
    changelog.write_text(text, encoding="utf-8")
    out = release_check(copy)
    assert out.returncode != 0
    [line] = [x for x in out.stderr.splitlines() if not x.startswith("make")]
    version = surefoot.__version__
    assert line == (
        f"release-check: refused: CHANGELOG.md has no section for {version} "
        f"(## [{version}] - YYYY-MM-DD)"
    )


def test_release_check_refuses_versions_that_disagree(copy: Path) -> None:
    """A bumped gymnasia beside an unbumped surefoot is refused, naming both files."""
    pyproject = copy / "packages" / "gymnasia" / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('version = "', 'version = "9', 1), encoding="utf-8")
    out = release_check(copy)
    assert out.returncode != 0
    assert "packages/gymnasia/pyproject.toml says 9" in out.stderr
    assert f"packages/surefoot/pyproject.toml says {surefoot.__version__}" in out.stderr


def test_release_check_refuses_an_undated_section(copy: Path) -> None:
    """A section whose date is not YYYY-MM-DD does not count as dated."""
    changelog = copy / "CHANGELOG.md"
    version = re.escape(surefoot.__version__)
    heading = re.compile(rf"^(## \[{version}\] - ).*$", re.MULTILINE)
    text = heading.sub(r"\1soon", changelog.read_text(encoding="utf-8"))
    changelog.write_text(text, encoding="utf-8")
    out = release_check(copy)
    assert out.returncode != 0
    assert "not YYYY-MM-DD" in out.stderr
