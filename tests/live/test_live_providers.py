"""Scenarios 1 and 4 against the real Anthropic, OpenAI and Google APIs (opt-in, costs money).

Run with ``.venv/bin/python -m pytest -m live tests/live`` and the provider keys in the
environment (docs/live-tests.md). Without ``-m live``, or without a provider's key, its tests
skip and say why (nothing else in the suite may skip for a missing key). The
scenario code is ``tests/gymnasia/provider_scenarios.py``, the same the offline and
fake-provider tests run; the last test here runs it offline on every run, so the scenario code
itself never rots unnoticed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "gymnasia"))

from provider_scenarios import CliRunAsk, scenario_1, scenario_4  # the shared scenario code

KEYS = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}
SCENARIOS: dict[str, Callable[..., dict[str, Any]]] = {
    "scenario_1": scenario_1,
    "scenario_4": scenario_4,
}


def _skip(reason: str) -> None:
    print(f"SKIPPED: {reason}")  # also in the -ra summary, for runs that show output
    pytest.skip(reason)


def _opted_in(config: pytest.Config) -> bool:
    expression = str(config.getoption("markexpr") or "")
    return "live" in expression and "not live" not in expression


def _environment(provider: str) -> dict[str, str]:
    names = KEYS[provider]
    if not any(os.environ.get(name) for name in names):
        _skip(f"{' / '.join(names)} is not set, so the live {provider} tests cannot run")
    return {k: v for k, v in os.environ.items() if not k.startswith("GYMNASIA_")}


@pytest.mark.live
@pytest.mark.parametrize("scenario", list(SCENARIOS))
@pytest.mark.parametrize("provider", list(KEYS))
def test_scenario_against_the_real_api(
    provider: str, scenario: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The shared scenario holds against the provider's real API (its default model, or
    GYMNASIA_LIVE_MODEL_<PROVIDER>), through `gymnasia ask --provider P --json`."""
    if not _opted_in(request.config):
        _skip("live tests call paid APIs; opt in with `pytest -m live tests/live`")
    run_ask = CliRunAsk(
        db=str(tmp_path / "live.db"),
        provider=provider,
        model=os.environ.get(f"GYMNASIA_LIVE_MODEL_{provider.upper()}"),
        env=_environment(provider),
        extra=("--timeout", "120"),
    )
    turn = SCENARIOS[scenario](run_ask)
    print(f"{provider} {scenario}: {turn['model_requests']} request(s), reply {turn['reply']!r}")


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_scenario_code_holds_offline(scenario: str, tmp_path: Path) -> None:
    """The same scenario code passes with the offline model (which sends valid arguments at
    once, so scenario 4 cannot require a bad call there)."""
    run_ask = CliRunAsk(db=str(tmp_path / "offline.db"), timeout=120)
    if scenario == "scenario_4":
        scenario_4(run_ask, require_bad_call=False)
    else:
        scenario_1(run_ask)
