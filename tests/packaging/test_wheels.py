"""Installing without an index: ``make dist`` builds both distributions, and the surefoot
wheel alone (with pydantic) in a fresh virtual environment runs the README's quickstart, far
from the repository's sources. One build and one environment serve the whole session."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TIMEOUT = 600
QUICKSTART_OUTPUT = "not_found choose_alternative | Nothing then.\n"


def version() -> str:
    """The version ``packages/surefoot/pyproject.toml`` states."""
    with (ROOT / "packages" / "surefoot" / "pyproject.toml").open("rb") as file:
        stated = tomllib.load(file)["project"]["version"]
    assert isinstance(stated, str)
    return stated


def pinned(name: str) -> str:
    """``name==version`` as ``constraints.txt`` pins it."""
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.split("==")[0] == name:
            return line.split(";")[0].strip()
    raise AssertionError(f"constraints.txt pins no {name}")


def quickstart(page: Path) -> str:
    """The first ```python block of ``page``."""
    found = re.search(
        r"^```python\n(.*?)^```$", page.read_text(encoding="utf-8"), re.DOTALL | re.MULTILINE
    )
    assert found is not None, f"{page.name} has no python block"
    return found[1]


def _clean_env() -> dict[str, str]:
    """The environment without anything that points at the repository's sources."""
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}


def _run(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=cwd,
        env=_clean_env() if env is None else env,
    )


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make dist`` into a temporary folder, with this interpreter as the builder (the
    set-up step is taken as done: this interpreter is the development environment)."""
    out = tmp_path_factory.mktemp("dist")
    built = _run(
        "make",
        "--no-print-directory",
        "-o",
        ".venv/.installed",
        "dist",
        f"PY={sys.executable}",
        f"DIST={out}",
        cwd=ROOT,
        env=dict(os.environ),
    )
    assert built.returncode == 0, (built.stdout[-2000:], built.stderr[-3000:])
    return out


@pytest.fixture(scope="session")
def wheel_env(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment holding the surefoot wheel from ``dist`` and pydantic, nothing
    else: no workspace, no editable path."""
    env_dir = tmp_path_factory.mktemp("wheel-venv") / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    quiet = ("-m", "pip", "install", "--quiet", "--disable-pip-version-check")
    deps = _run(python, *quiet, pinned("pydantic"), pinned("pydantic-core"), cwd=env_dir)
    assert deps.returncode == 0, deps.stderr[-2000:]
    wheel = _run(python, *quiet, "--no-index", "--find-links", dist, "surefoot", cwd=env_dir)
    assert wheel.returncode == 0, wheel.stderr[-2000:]
    return env_dir


def test_make_dist_builds_both_wheels_and_sdists(dist: Path) -> None:
    """Two wheels and two sdists, named by the pyproject's version, and nothing else."""
    v = version()
    assert sorted(p.name for p in dist.iterdir()) == [
        f"gymnasia-{v}-py3-none-any.whl",
        f"gymnasia-{v}.tar.gz",
        f"surefoot-{v}-py3-none-any.whl",
        f"surefoot-{v}.tar.gz",
    ]


def test_the_app_wheel_carries_its_data_and_pages(dist: Path) -> None:
    """The gymnasia wheel holds the food and exercise tables, the web app's files and the
    command."""
    with zipfile.ZipFile(dist / f"gymnasia-{version()}-py3-none-any.whl") as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"gymnasia-{version()}.dist-info/entry_points.txt").decode()
    assert {"gymnasia/data/foods.json", "gymnasia/data/exercises.json"} <= names
    assert {"gymnasia/web/static/app.css", "gymnasia/web/static/app.js"} <= names
    assert "gymnasia = gymnasia.cli:main" in entry_points


def test_the_wheel_installs_alone_and_runs_the_quickstart(wheel_env: Path, tmp_path: Path) -> None:
    """From a folder far from the checkout, the fresh environment imports surefoot from its own
    site-packages (not the sources, not an editable link) and the quickstart prints its line."""
    python = wheel_env / "bin" / "python"
    where = _run(
        python,
        "-c",
        "import surefoot, importlib.metadata as m; print(surefoot.__file__); "
        "print(surefoot.__version__); "
        "print(m.distribution('surefoot').read_text('direct_url.json'))",
        cwd=tmp_path,
    )
    assert where.returncode == 0, where.stderr
    path, stated, direct_url = where.stdout.splitlines()
    assert Path(path).resolve().is_relative_to(wheel_env.resolve())
    assert not Path(path).resolve().is_relative_to(ROOT.resolve())
    assert stated == version()
    assert '"editable": true' not in direct_url
    ran = _run(python, "-c", quickstart(ROOT / "README.md"), cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == QUICKSTART_OUTPUT


def test_the_quickstart_is_ten_lines_and_the_same_in_the_docs() -> None:
    """The README opens with a quickstart of at most ten lines; the docs' home page shows it too."""
    readme = quickstart(ROOT / "README.md")
    assert len(readme.splitlines()) <= 10
    assert quickstart(ROOT / "docs" / "index.md") == readme
    assert QUICKSTART_OUTPUT.strip() in (ROOT / "README.md").read_text(encoding="utf-8")
