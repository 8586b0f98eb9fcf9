"""Rates with 95% intervals, and paired differences between arms.

A rate is a count of runs out of runs, with its Wilson score interval (it stays inside
[0, 1] and behaves at 0 and at n, where the normal approximation does not). A paired
difference compares two arms on the same task and seed: the mean of the per-pair differences,
with a percentile bootstrap interval over the pairs (resampled with a fixed seed, so a
summary is reproducible from its log).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ._run import RunRecord

Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Rate:
    """``count`` of ``total`` runs, with its 95% Wilson interval (``low``, ``high``)."""

    count: int
    total: int

    @property
    def value(self) -> float | None:
        """The rate (None when there were no runs)."""
        return self.count / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The 95% Wilson score interval (None when there were no runs)."""
        return wilson(self.count, self.total)


def wilson(count: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``count`` successes in ``total`` trials."""
    if total == 0:
        return None
    p = count / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    # at 0 and at n the bound is the rate itself; rounding would leave it a hair inside
    low = 0.0 if count == 0 else max(0.0, centre - half)
    high = 1.0 if count == total else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True, slots=True)
class Difference:
    """``arm`` minus ``baseline`` on one measure over ``pairs`` paired runs: the mean
    difference and its 95% bootstrap interval (None without pairs)."""

    measure: str
    arm: str
    baseline: str
    pairs: int
    mean: float | None
    low: float | None
    high: float | None


def paired_difference(
    differences: Sequence[float], *, resamples: int = 4000, seed: int = 0
) -> tuple[float, float, float] | None:
    """Mean of ``differences`` and its 95% percentile bootstrap interval."""
    n = len(differences)
    if n == 0:
        return None
    mean = sum(differences) / n
    rng = random.Random(seed)  # noqa: S311 - resampling, not a secret
    means = sorted(sum(rng.choices(differences, k=n)) / n for _ in range(resamples))
    low = means[int(0.025 * resamples)]
    high = means[min(resamples - 1, int(0.975 * resamples))]
    return mean, low, high


@dataclass(frozen=True, slots=True)
class ArmSummary:
    """One arm's results.

    Attributes:
        arm: The arm.
        runs: How many runs.
        success: Runs whose checks all held.
        recovery: Runs that followed every recovery event, of the runs that had one.
        double_effects, false_success, requests_after_stop: Runs that broke each invariant.
        requests, input_tokens, output_tokens, seconds: Means per run.
        broken: For each invariant some run broke, the tasks of those runs.
    """

    arm: str
    runs: int
    success: Rate
    recovery: Rate
    double_effects: int
    false_success: int
    requests_after_stop: int
    requests: float
    input_tokens: float
    output_tokens: float
    seconds: float
    broken: dict[str, tuple[str, ...]] = field(default_factory=dict)


_INVARIANTS = ("double_effects", "false_success", "requests_after_stop")


def _broken(records: Sequence[RunRecord]) -> dict[str, tuple[str, ...]]:
    found = {
        name: tuple(dict.fromkeys(r.task for r in records if getattr(r, name) > 0))
        for name in _INVARIANTS
    }
    return {name: tasks for name, tasks in found.items() if tasks}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize_arm(arm: str, records: Sequence[RunRecord]) -> ArmSummary:
    """The summary of ``arm`` over its records in ``records``."""
    mine = [r for r in records if r.arm == arm]
    with_events = [r for r in mine if r.recovery_events]
    return ArmSummary(
        arm=arm,
        runs=len(mine),
        success=Rate(sum(r.success for r in mine), len(mine)),
        recovery=Rate(sum(bool(r.recovered) for r in with_events), len(with_events)),
        double_effects=sum(r.double_effects > 0 for r in mine),
        false_success=sum(r.false_success > 0 for r in mine),
        requests_after_stop=sum(r.requests_after_stop > 0 for r in mine),
        requests=_mean([r.requests for r in mine]),
        input_tokens=_mean([r.input_tokens for r in mine]),
        output_tokens=_mean([r.output_tokens for r in mine]),
        seconds=_mean([r.seconds for r in mine]),
        broken=_broken(mine),
    )


_MEASURES: dict[str, Callable[[RunRecord], float | None]] = {
    "success": lambda r: float(r.success),
    "recovery": lambda r: None if r.recovered is None else float(r.recovered),
}


def difference(records: Sequence[RunRecord], measure: str, arm: str, baseline: str) -> Difference:
    """``arm`` minus ``baseline`` on ``measure`` (``success`` or ``recovery``), over the runs
    of the same task and seed that both have a value for it."""
    value = _MEASURES[measure]
    by_pair = {(r.task, r.seed): value(r) for r in records if r.arm == baseline}
    diffs = [
        v - b
        for r in records
        if r.arm == arm
        and (v := value(r)) is not None
        and (b := by_pair.get((r.task, r.seed))) is not None
    ]
    found = paired_difference(diffs)
    if found is None:
        return Difference(measure, arm, baseline, 0, None, None, None)
    return Difference(measure, arm, baseline, len(diffs), *found)


def summarize(
    records: Sequence[RunRecord], *, baseline: str = "contract"
) -> tuple[list[ArmSummary], list[Difference]]:
    """Each arm's summary (in the order the arms first ran), and each other arm's paired
    differences from ``baseline`` on success and recovery."""
    arms = list(dict.fromkeys(r.arm for r in records))
    summaries = [summarize_arm(arm, records) for arm in arms]
    others = [a for a in arms if a != baseline] if baseline in arms else []
    differences = [difference(records, m, a, baseline) for a in others for m in _MEASURES]
    return summaries, differences
