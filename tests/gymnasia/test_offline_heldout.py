"""The offline model against a held-out set: utterances written without looking at the parser
or at the tuning corpus, labelled with what a careful person expects.

``offline_heldout.jsonl`` has the corpus's format (``test_offline_corpus``): each line a message,
its language, its label (the exact calls, or ``"ask"`` / ``"help"``) and a ``tag`` naming its
kind. Every case runs as one real turn through the corpus's own runner (``run_case``), on the
same seeded database and the same today. ``pytest -s`` prints the figures, per kind.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_offline_corpus import (
    LANGS,
    WRITES,
    Case,
    Score,
    run_case,
)  # found through the path set above

HELDOUT = Path(__file__).with_name("offline_heldout.jsonl")
EXACT_SHARE = 0.75


def load_heldout() -> list[Case]:
    """Every labelled case of the held-out file."""
    lines = HELDOUT.read_text("utf-8").splitlines()
    return [Case(**json.loads(line)) for line in lines if line.strip()]


def report(score: Score) -> str:
    """The corpus runner's report, then the write requests' outcomes and each tag's figures."""
    lines = [score.report().replace("offline corpus:", "offline held-out set:", 1)]
    requests = [v for v in score.verdicts if v.asks_a_write]
    asked = sum(not v.calls and v.understood == "ask" for v in requests)
    lines.append(f"  write requests asked back: {asked}/{len(requests)}")
    for tag in sorted({v.case.tag for v in score.verdicts}):
        chosen = [v for v in score.verdicts if v.case.tag == tag]
        wrong = sum(bool(v.wrong_writes) for v in chosen)
        right = sum(v.correct for v in chosen)
        lines.append(f"  tag {tag}: {right}/{len(chosen)} as labelled, {wrong} wrong writes")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def score() -> Score:
    """The held-out set, run once for this module; its report is printed (``pytest -s``)."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("GYMNASIA_FEEDBACK_REPO", "GITHUB_TOKEN"):
            patch.delenv(name, raising=False)
        result = Score([run_case(case) for case in load_heldout()])
    print("\n" + report(result))
    return result


def test_heldout_set_is_large_balanced_and_labelled() -> None:
    """At least 240 utterances, 75 per language, 150 asking for a write; every label known."""
    cases = load_heldout()
    counts = Counter(case.lang for case in cases)
    assert len(cases) >= 240
    assert all(counts[lang] >= 75 for lang in LANGS), counts
    assert all(isinstance(c.expect, list) or c.expect in {"ask", "help"} for c in cases)
    assert all(c.tag for c in cases)
    assert len({(c.lang, c.text) for c in cases}) == len(cases), "a case is repeated"
    writes = [
        c for c in cases if isinstance(c.expect, list) and any(x[0] in WRITES for x in c.expect)
    ]
    assert len(writes) >= 150


def test_no_wrong_writes(score: Score) -> None:
    """No turn of the held-out set writes anything its label does not list, exactly."""
    assert score.wrong_writes == [], report(score)


def test_write_requests_are_mostly_written_exactly(score: Score) -> None:
    """Of the held-out messages that ask for a write, at least 75% are written exactly."""
    requests = [v for v in score.verdicts if v.asks_a_write]
    assert sum(v.correct for v in requests) / len(requests) >= EXACT_SHARE, report(score)
