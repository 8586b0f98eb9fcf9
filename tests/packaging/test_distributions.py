"""The two distributions install apart: ``surefoot`` brings pydantic and nothing else, and
``gymnasia`` (the app) comes only when asked for. Each check builds and installs the real
package into a fresh virtual environment, as a user of the library would."""

from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TIMEOUT = 600

# Run inside the fresh environment: every distribution reachable from ``surefoot``'s own
# requirements (extras not asked for are not followed).
CLOSURE = """
import json, re
from importlib import metadata

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def requirements(dist):
    for line in metadata.distribution(dist).requires or []:
        if "extra ==" in line:
            continue
        yield norm(re.split(r"[ ;<>=!~\\[(]", line, maxsplit=1)[0])

seen, todo = set(), ["surefoot"]
while todo:
    name = todo.pop()
    if name not in seen:
        seen.add(name)
        todo.extend(requirements(name))
direct = sorted(requirements("surefoot"))
installed = sorted(norm(d.metadata["Name"]) for d in metadata.distributions())
print(json.dumps({"closure": sorted(seen), "direct": direct, "installed": installed}))
"""


def _python(env_dir: Path) -> Path:
    return env_dir / "bin" / "python"


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    return subprocess.run(
        [str(a) for a in args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
        cwd=cwd,
        env=env,
    )


def _pip_install(env_dir: Path, *targets: Path) -> None:
    out = _run(_python(env_dir), "-m", "pip", "install", "--quiet", *targets)
    assert out.returncode == 0, out.stderr[-2000:]


@pytest.fixture(scope="module")
def library_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with only the ``surefoot`` distribution installed into it."""
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    _pip_install(env_dir, ROOT / "packages" / "surefoot")
    return env_dir


def test_library_brings_pydantic_and_nothing_else(library_env: Path) -> None:
    """``pip install surefoot``: its only requirement is pydantic; every other distribution
    it added is pydantic's own; ``import surefoot`` works and the app is not there."""
    before = {"pip", "setuptools"}
    out = _run(_python(library_env), "-c", CLOSURE, cwd=library_env)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["direct"] == ["pydantic"]
    added = set(report["installed"]) - before
    assert added == set(report["closure"]), added ^ set(report["closure"])
    assert "gymnasia" not in added
    for absent in ("typer", "rich", "platformdirs", "httpx", "fastapi", "anthropic", "openai"):
        assert absent not in added
    probe = _run(
        _python(library_env),
        "-c",
        "import surefoot, importlib.util; "
        "print(surefoot.__version__, importlib.util.find_spec('gymnasia') is None)",
        cwd=library_env,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.split() == [surefoot_version(), "True"]


def test_app_installs_on_top_and_runs(library_env: Path) -> None:
    """``pip install gymnasia`` next to the library gives the ``gymnasia`` command."""
    _pip_install(library_env, ROOT / "packages" / "gymnasia")
    out = _run(library_env / "bin" / "gymnasia", "--help", cwd=library_env)
    assert out.returncode == 0, out.stderr
    assert "demo" in out.stdout


def surefoot_version() -> str:
    import surefoot

    return surefoot.__version__
