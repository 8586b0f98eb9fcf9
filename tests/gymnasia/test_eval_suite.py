"""The Gymnasia suite and ``gymnasia eval``: every fault kind covered, and the offline
provider as a fast deterministic smoke run that writes the log, the summary and the charts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gymnasia.evalsuite import claims_success, select, suite
from surefoot.testing import FakeOpenAIChatServer, call, turn

KINDS = {
    "not_found", "invalid_arguments", "read_error_transient", "read_error_permanent",
    "before_commit", "after_commit", "outcome_unknown", "denied", "data_like_error",
}  # fmt: skip


def test_the_suite_covers_every_domain_and_fault_kind() -> None:
    """At least 24 tasks with unique ids, over the five domains and every fault kind."""
    tasks = suite()
    assert len(tasks) >= 24
    assert len({t.id for t in tasks}) == len(tasks)
    assert {t.domain for t in tasks} == {"measurements", "memory", "diet", "training", "github"}
    assert {t.kind for t in tasks} == KINDS
    assert all(t.checks for t in tasks)


def test_select_by_id_and_prefix() -> None:
    """Tasks are chosen by id or by a prefix ending in a dot; an unknown name is refused."""
    tasks = suite()
    chosen = select(tasks, "measure.article-fallback")
    assert [t.id for t in chosen] == ["measure.article-fallback"]
    assert {t.domain for t in select(tasks, "github.")} == {"github"}
    with pytest.raises(ValueError, match="nope"):
        select(tasks, "nope")


def test_claims_success_reads_affirmations_not_negations() -> None:
    """ "Guardado" claims a save; "no se ha guardado" and "could not confirm" do not."""
    assert claims_success("Listo, he guardado 77,4 kg el 2020-01-04.")
    assert claims_success("Saved: 77.4 kg on 2020-01-04.")
    assert not claims_success("No se ha guardado nada.")
    assert not claims_success("I could not confirm whether it was saved.")
    assert not claims_success("Tu peso del 2020-01-01 es 76 kg.")


def _eval(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "gymnasia", "eval", "--provider", "offline", "--repeat", "1"]
    return subprocess.run(
        [*command, "--out", str(out), *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _stable(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def test_offline_smoke_run_writes_log_summary_and_charts(tmp_path: Path) -> None:
    """``gymnasia eval --provider offline`` runs the chosen tasks in all four arms: one log
    line per run, a summary per arm, a PNG per arm; the same records on a second run."""
    tasks = "measure.article-fallback,measure.write-unknown,memory.delete-denied"
    first = _eval(tmp_path / "a", "--tasks", tasks, "--lang", "en")
    assert first.returncode == 0, first.stderr
    assert "Recovery by arm" in first.stdout
    assert "naive broke requests_after_stop in: measure.write-unknown" in first.stdout
    lines = [json.loads(x) for x in (tmp_path / "a" / "runs.jsonl").read_text().splitlines()]
    assert len(lines) == 3 * 4
    by = {(r["task"], r["arm"]): r for r in lines}
    assert by["measure.article-fallback", "contract"]["success"] is True
    assert by["measure.article-fallback", "plain"]["success"] is False
    assert by["measure.write-unknown", "contract"]["stop_reason"] == "stop_turn"
    assert by["measure.write-unknown", "naive"]["requests_after_stop"] == 1
    assert by["memory.delete-denied", "naive"]["success"] is False
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert [a["arm"] for a in summary["arms"]] == ["contract", "plain", "no-recovery", "naive"]
    for arm in ("contract", "plain", "no-recovery", "naive"):
        assert (tmp_path / "a" / f"chart-{arm}.png").read_bytes().startswith(b"\x89PNG")
    second = _eval(tmp_path / "b", "--tasks", tasks)
    assert second.returncode == 0, second.stderr
    again = [json.loads(x) for x in (tmp_path / "b" / "runs.jsonl").read_text().splitlines()]
    assert _stable(again) == _stable(lines)


def test_a_bad_arm_is_a_usage_error(tmp_path: Path) -> None:
    """An arm that does not exist is one line on stderr and exit 2."""
    done = _eval(tmp_path, "--arms", "contract,magic", "--lang", "en")
    assert done.returncode == 2
    assert "There is no arm 'magic'" in done.stderr


def test_on_the_wire_only_what_the_model_reads_changes(tmp_path: Path) -> None:
    """Through the OpenAI-compatible adapter, the four arms send the same not_found as the
    envelope with its recovery, as the mark and code without it, and as plain text; the
    system prompt says as much about errors as the arm shows."""
    turns = [turn(call("read_measurement", {"date": "2020-01-02"})), turn("No hay dato.")] * 4
    with FakeOpenAIChatServer(turns) as fake:
        done = _eval(
            tmp_path,
            "--provider", "openai-chat", "--model", "fake-chat",
            "--base-url", fake.base_url + "/v1", "--order", "by-arm",
            "--tasks", "measure.article-fallback",
        )  # fmt: skip
        bodies = [r.body for r in fake.requests]
    assert done.returncode == 0, done.stderr
    answers = [b for b in bodies if b["messages"][-1]["role"] == "tool"]
    shown = [json.loads(b["messages"][-1]["content"]) for b in answers]
    systems = [b["messages"][0]["content"] for b in answers]
    contract, plain, marked, naive = shown  # the default order of --arms
    assert (contract["error"], contract["recovery"]) == ("not_found", "choose_alternative")
    assert marked == {k: contract[k] for k in ("is_error", "error", "message")}
    assert plain == naive == {"result": f"Error: {contract['message']}"}
    assert '"recovery"' in systems[0]
    assert '"is_error"' in systems[2]
    assert '"recovery"' not in systems[2]
    assert "is_error" not in systems[1]
    assert systems[1] == systems[3]
