"""A chart per arm: its success and recovery rates with their 95% intervals, as a PNG.

Needs matplotlib (``pip install 'surefoot[eval]'``); imported only when a chart is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ._stats import ArmSummary, Rate


def _bar(rate: Rate) -> tuple[float, float, float]:
    """The bar's height and its error bar's extent below and above."""
    value, interval = rate.value, rate.interval
    if value is None or interval is None:
        return 0.0, 0.0, 0.0
    return value, max(0.0, value - interval[0]), max(0.0, interval[1] - value)


def write_charts(
    summaries: Sequence[ArmSummary], directory: Path, *, title: str = ""
) -> list[Path]:
    """``chart-<arm>.png`` in ``directory`` for each arm; the paths written."""
    import matplotlib as mpl

    mpl.use("Agg")  # files only: no display, no GUI toolkit
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for summary in summaries:
        figure, axes = plt.subplots(figsize=(4.2, 3.4), dpi=120)
        bars = [_bar(summary.success), _bar(summary.recovery)]
        labels = [
            f"success\n{summary.success.count}/{summary.success.total}",
            f"recovery\n{summary.recovery.count}/{summary.recovery.total}",
        ]
        axes.bar(
            labels,
            [b[0] for b in bars],
            yerr=[[b[1] for b in bars], [b[2] for b in bars]],
            capsize=6,
            color=["#3b7dd8", "#e08a2c"],
        )
        axes.set_ylim(0, 1.05)
        axes.set_ylabel("rate (95% Wilson interval)")
        axes.set_title(f"{title} — {summary.arm}" if title else summary.arm, fontsize=10)
        figure.tight_layout()
        path = directory / f"chart-{summary.arm}.png"
        figure.savefig(path)
        plt.close(figure)
        written.append(path)
    return written
