"""``gymnasia eval``: the recovery evaluation of the Gymnasia suite on a model, in each arm.

Writes into ``--out``: ``runs.jsonl`` (one line per run, as it ends), ``summary.json`` (each
arm's rates with 95% intervals, and the paired differences from the contract arm) and
``chart-<arm>.png`` (with the ``eval`` extra); prints the summary table on stdout and a
progress bar on stderr while it runs.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..texts import t
from ._agent import chat_model
from ._base import (
    BaseUrlOpt,
    KeyOpt,
    LangOpt,
    ModelOpt,
    ProviderOpt,
    TimeoutOpt,
    UsageProblem,
    app,
    err,
    out,
    parse_lang,
)

if TYPE_CHECKING:
    from surefoot import Lang, Model
    from surefoot.eval import Arm, ArmSummary, Difference, Order, Rate, RunRecord, Task

    from ..evalsuite import GymnasiaSuite

ArmsOpt = Annotated[
    str, typer.Option("--arms", help="Comma-separated: contract, plain, no-recovery, naive.")
]
RepeatOpt = Annotated[int, typer.Option("--repeat", help="Runs of each task in each arm.")]
OutOpt = Annotated[Path, typer.Option("--out", help="Directory for the log, summary and charts.")]
TasksOpt = Annotated[
    str | None, typer.Option("--tasks", help="Task ids or prefixes (measure.), comma-separated.")
]
OrderOpt = Annotated[
    str,
    typer.Option(
        "--order",
        help="interleaved (arms task by task) or by-arm (one arm's tasks, then the next: a "
        "local server's prompt cache stays warm).",
    ),
]
ListOpt = Annotated[bool, typer.Option("--list", help="List the suite's tasks, then exit.")]


def parse_arms(value: str, lang: Lang) -> list[Arm]:
    """The arms ``--arms`` names, in its order."""
    from surefoot.eval import ARMS, Arm

    arms: list[Arm] = []
    for name in (n.strip() for n in value.split(",") if n.strip()):
        try:
            arms.append(Arm(name))
        except ValueError:
            choices = ", ".join(a.value for a in ARMS)
            raise UsageProblem(t(lang, "eval_unknown_arm", value=name, choices=choices)) from None
    return list(dict.fromkeys(arms))


@app.command("eval")
def eval_command(
    provider: ProviderOpt = "offline",
    model: ModelOpt = None,
    base_url: BaseUrlOpt = None,
    api_key: KeyOpt = None,
    timeout: TimeoutOpt = 120.0,
    arms: ArmsOpt = "contract,plain,no-recovery,naive",
    repeat: RepeatOpt = 1,
    out_dir: OutOpt = Path("build/eval"),
    tasks: TasksOpt = None,
    list_tasks: ListOpt = False,
    order: OrderOpt = "interleaved",
    lang: LangOpt = "es",
) -> None:
    """Measure how the model recovers from tool failures, with and without the contract."""
    from surefoot.eval import summarize

    from ..evalsuite import GymnasiaSuite, offline_model, select, suite

    language = parse_lang(lang)
    if list_tasks:
        for task in suite():
            out.print(f"{task.id}\t{task.kind}\t{task.message}", markup=False)
        return
    chosen_arms = parse_arms(arms, language)
    if order not in ("interleaved", "by-arm"):
        raise UsageProblem(t(language, "eval_bad_order", value=order))
    if repeat < 1:
        raise UsageProblem(t(language, "eval_bad_repeat"))
    try:
        chosen = select(suite(), tasks)
    except ValueError:
        raise UsageProblem(t(language, "eval_unknown_task", value=tasks)) from None
    chat = chat_model(provider, model, base_url, api_key, timeout, language)
    runner: Model = chat if chat is not None else offline_model()
    out_dir.mkdir(parents=True, exist_ok=True)
    environment = GymnasiaSuite(offline=chat is None)
    plan = Plan(chosen, chosen_arms, repeat, "by-arm" if order == "by-arm" else "interleaved")
    records = _run(environment, plan, runner, out_dir, language)
    summaries, differences = summarize(records)
    _write_summary(out_dir, runner, summaries, differences)
    _print_table(runner, summaries, differences, len(records), language)
    charts = _charts(summaries, out_dir, f"{runner.provider}: {runner.model_name}", language)
    out.print(t(language, "eval_wrote", path=out_dir, charts=charts), markup=False)


@dataclass(frozen=True)
class Plan:
    """What to run: the tasks, the arms, how often, in which order."""

    tasks: list[Task]
    arms: list[Arm]
    repeat: int
    order: Order


def _run(
    environment: GymnasiaSuite, plan: Plan, model: Model, out_dir: Path, lang: Lang
) -> list[RunRecord]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from surefoot.eval import evaluate

    total = len(plan.tasks) * len(plan.arms) * plan.repeat
    log = out_dir / "runs.jsonl"
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with (
        log.open("w", encoding="utf-8") as lines,
        Progress(*columns, TimeElapsedColumn(), console=err.rich) as progress,
    ):
        bar = progress.add_task(t(lang, "eval_progress", runs=total), total=total)

        def on_run(record: RunRecord) -> None:
            lines.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
            lines.flush()
            progress.advance(bar)

        run = evaluate(
            environment,
            plan.tasks,
            lambda _seed: model,
            arms=plan.arms,
            repeat=plan.repeat,
            on_run=on_run,
            order=plan.order,
        )
        import asyncio

        return asyncio.run(run)


def _rate(rate: Rate) -> str:
    interval = rate.interval
    if rate.value is None or interval is None:
        return "—"
    low, high = interval
    return f"{rate.count}/{rate.total} {rate.value:.0%} [{low:.0%}, {high:.0%}]"


def _print_table(
    model: Model,
    summaries: list[ArmSummary],
    differences: list[Difference],
    runs: int,
    lang: Lang,
) -> None:
    from rich.table import Table

    title = t(lang, "eval_title", model=f"{model.provider}: {model.model_name}", runs=runs)
    table = Table(title=title)
    for column in t(lang, "eval_columns").split("|"):
        table.add_column(column)
    for s in summaries:
        table.add_row(
            s.arm,
            _rate(s.success),
            _rate(s.recovery),
            str(s.double_effects),
            str(s.false_success),
            str(s.requests_after_stop),
            f"{s.requests:.1f}",
            f"{s.input_tokens + s.output_tokens:.0f}",
            f"{s.seconds:.1f}",
        )
    out.print(table)
    for s in summaries:
        for invariant, tasks in s.broken.items():
            line = t(lang, "eval_broken", arm=s.arm, invariant=invariant, tasks=", ".join(tasks))
            out.print(line, markup=False)
    if differences:
        out.print(t(lang, "eval_differences"), markup=False)
    for d in differences:
        if d.mean is None or d.low is None or d.high is None:
            out.print(t(lang, "eval_no_pairs", arm=d.arm, measure=d.measure), markup=False)
            continue
        line = t(
            lang,
            "eval_difference",
            arm=d.arm,
            measure=d.measure,
            mean=f"{d.mean:+.0%}",
            low=f"{d.low:+.0%}",
            high=f"{d.high:+.0%}",
            pairs=d.pairs,
        )
        out.print(line, markup=False)


def _write_summary(
    out_dir: Path, model: Model, summaries: list[ArmSummary], differences: list[Difference]
) -> None:
    def arm_json(s: ArmSummary) -> dict[str, object]:
        data = asdict(s)
        for name in ("success", "recovery"):
            rate: Rate = getattr(s, name)
            data[name] = {**asdict(rate), "rate": rate.value, "interval": rate.interval}
        return data

    summary = {
        "provider": model.provider,
        "model": model.model_name,
        "arms": [arm_json(s) for s in summaries],
        "differences": [asdict(d) for d in differences],
    }
    text = json.dumps(summary, ensure_ascii=False, indent=2) + "\n"
    (out_dir / "summary.json").write_text(text, encoding="utf-8")


def _charts(summaries: list[ArmSummary], out_dir: Path, title: str, lang: Lang) -> str:
    """The charts' names for the closing line ('' and a note on stderr without matplotlib)."""
    try:
        from surefoot.eval import write_charts

        paths = write_charts(summaries, out_dir, title=title)
    except ModuleNotFoundError:
        err.print(t(lang, "eval_no_charts"), markup=False)
        return ""
    return "".join(f", {p.name}" for p in paths)
