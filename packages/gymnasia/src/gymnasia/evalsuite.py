"""Gymnasia's recovery evaluation: tasks over every domain and every fault kind, and the
environment ``surefoot.eval`` runs them in (``gymnasia eval``).

Each run gets a fresh SQLite database with the task's starting state, the Coach's tools with
the task's faults (counted per handler run: ``runs=(1,)`` fails the first run only, no runs
fails every one), GitHub replaced by an in-process fake (``httpx.MockTransport``), and the
system prompt of the arm: the contract's words about errors, only the mark's, or none.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from surefoot import Lang, Model, SqlJournal, SqlLedger, ToolContext, open_database
from surefoot.eval import (
    Arm,
    Check,
    Fault,
    RunView,
    Task,
    World,
    called,
    committed,
    reply_has,
    reply_lacks,
)

from .app import ErrorsShown, system_prompt
from .faults import Faults, InjectedFault
from .feedback import FeedbackSettings, register_feedback_tools
from .offer import Offer
from .offline import OfflineModel
from .store import GymStore
from .texts import APP_NAME
from .tools import build_tools

if TYPE_CHECKING:
    import httpx

TODAY: Final = dt.date(2020, 1, 5)
_REPO: Final = "gymnasia/coach"
_ERRORS: Final[dict[Arm, ErrorsShown]] = {
    Arm.CONTRACT: "contract",
    Arm.NO_RECOVERY: "mark",
    Arm.PLAIN: "plain",
    Arm.NAIVE: "plain",
}


class PlannedFaults(Faults):
    """``Faults`` by plan: each ``Fault`` names the runs of its tool's handler that fail."""

    def __init__(self, plan: tuple[Fault, ...]) -> None:
        super().__init__({f.tool: f.mode for f in plan})
        object.__setattr__(self, "plan", {f.tool: f for f in plan})
        object.__setattr__(self, "runs", {})

    def __bool__(self) -> bool:
        return True

    def _next_run(self, tool: str) -> Fault | None:
        runs: dict[str, int] = self.runs  # type: ignore[attr-defined]
        runs[tool] = runs.get(tool, 0) + 1
        fault: Fault | None = self.plan.get(tool)  # type: ignore[attr-defined]
        return fault if fault is not None and fault.fails(runs[tool]) else None

    def _this_run(self, tool: str) -> Fault | None:
        fault: Fault | None = self.plan.get(tool)  # type: ignore[attr-defined]
        run: int = self.runs.get(tool, 0)  # type: ignore[attr-defined]
        return fault if fault is not None and fault.fails(run) else None

    def on_read(self, tool: str) -> None:
        """Raise on the planned runs of a read."""
        if self._next_run(tool) is not None:
            msg = f"injected read failure in {tool}"
            raise InjectedFault(msg)

    def before_commit(self, ctx: ToolContext) -> None:
        """Raise (or forbid verifying) on the planned runs of a write, before its commit."""
        fault = self._next_run(ctx.tool)
        if fault is not None and fault.mode == "before_commit":
            msg = f"injected failure before commit in {ctx.tool}"
            raise InjectedFault(msg)
        if fault is not None and fault.mode == "ambiguous":
            ctx.mark_unverifiable()

    def after_commit(self, ctx: ToolContext) -> None:
        """Raise after the commit on the planned runs (the acknowledgement is lost)."""
        fault = self._this_run(ctx.tool)
        if fault is not None and fault.mode in ("after_commit", "ambiguous"):
            msg = f"injected lost acknowledgement after commit in {ctx.tool}"
            raise InjectedFault(msg)


@dataclass
class FakeIssues:
    """GitHub's issues endpoints for one repository, in memory (POST creates, GET lists)."""

    issues: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        import httpx  # loaded already: the tool's client is httpx's

        if request.method == "POST":
            body = json.loads(request.content)
            number = len(self.issues) + 1
            issue = {
                "number": number,
                "title": body.get("title", ""),
                "body": body.get("body", ""),
                "html_url": f"https://github.com/{_REPO}/issues/{number}",
            }
            self.issues.append(issue)
            return httpx.Response(201, json=issue)
        return httpx.Response(200, json=list(reversed(self.issues)))


def _seed(store: GymStore, setup: Mapping[str, Any]) -> None:
    with store.transaction() as tx:
        for date, values in setup.get("measurements", {}).items():
            store.upsert_measurement(tx, dt.date.fromisoformat(date), values)
        for key, value in setup.get("memory", {}).items():
            store.save_memory(tx, key, key, value)
        for name, category, exercises in setup.get("routines", ()):
            store.create_routine(tx, name, category, exercises)


_CLAIMS: Final = re.compile(
    r"\b(guardad[oa]s?|he guardado|guard[ée]|registrad[oa]s?|he registrado|añadid[oa]s?|"
    r"he añadido|anotad[oa]s?|cread[oa]s?|he creado|borrad[oa]s?|eliminad[oa]s?|"
    r"salv[oa]s?|salvei|registrei|adicionad[oa]s?|criad[oa]s?|apagad[oa]s?|"
    r"saved|recorded|added|created|deleted|logged|done)\b",
    re.IGNORECASE,
)
_NEGATION: Final = re.compile(
    r"\b(no|not|n[ãa]o|nada|nothing|never|nunca|sin|unable|couldn't|could not|cannot|can't|"
    r"wasn't|was not|pude|pudo|poss[ií]vel|confirmar|confirm)\b",
    re.IGNORECASE,
)


def claims_success(reply: str) -> bool:
    """Whether ``reply`` tells the person something was saved, created or deleted: a
    sentence with such a word and no negation or doubt in it (es, pt, en)."""
    sentences = re.split(r"[.!?\n]+", reply)
    return any(_CLAIMS.search(s) and not _NEGATION.search(s) for s in sentences)


def not_claimed(run: RunView) -> str | None:
    """The model's reply does not say a write was done (a harness reply never does)."""
    if run.result.reply_author == "model" and claims_success(run.reply):
        return "the reply says it was done"
    return None


def no_writes(run: RunView) -> str | None:
    """Nothing was written."""
    done = [e.tool for e in run.writes if e.state == "committed"]
    return f"{done[0]} wrote" if done else None


def _state_has(path: str, wanted: Any) -> Check:
    """``state[path]`` (``measurements``, ``memory``, ...) holds an item with ``wanted``'s
    values, or (``wanted`` None) is empty."""

    def check(run: RunView) -> str | None:
        items = run.state.get(path) or []
        if wanted is None:
            return None if not items else f"{path} is not empty"
        for item in items:
            if all(item.get(k) == v for k, v in wanted.items()):
                return None
        return f"no {path} item with {wanted}"

    return check


def _count(path: str, count: int) -> Check:
    def check(run: RunView) -> str | None:
        found = len(run.state.get(path) or [])
        return None if found == count else f"{found} {path}, not {count}"

    return check


class GymnasiaSuite:
    """The environment: a fresh database, tools and fake GitHub per run.

    Args:
        offline: The model is the offline Coach (it is offered every tool; a language model
            is offered what the conversation needs, as ``gymnasia ask`` does).
        workdir: Where the runs' databases live (a temporary directory if not given); each
            run's is removed after it.
    """

    def __init__(self, *, offline: bool = False, workdir: Path | None = None) -> None:
        self.offline = offline
        self.workdir = workdir

    @contextmanager
    def world(self, task: Task, arm: Arm) -> Iterator[World]:
        """The world of one run of ``task`` in ``arm``."""
        directory = Path(tempfile.mkdtemp(prefix="gymnasia-eval-", dir=self.workdir))
        db = open_database(str(directory / "eval.db"))
        try:
            yield self._world(db, task, arm)
        finally:
            db.close()
            shutil.rmtree(directory, ignore_errors=True)

    def _world(self, db: Any, task: Task, arm: Arm) -> World:
        import httpx  # only when a run needs the fake GitHub: the command line starts light

        store = GymStore(db)
        _seed(store, task.setup)
        faults = PlannedFaults(task.faults)
        tools = build_tools(store, faults, today=TODAY)
        issues = FakeIssues()
        settings = FeedbackSettings(repo=_REPO, token="eval-token", api_url="http://github.test")  # noqa: S106 - a fake's token
        register_feedback_tools(
            tools, settings=settings, faults=faults, transport=httpx.MockTransport(issues)
        )
        system = system_prompt(task.lang, TODAY, errors=_ERRORS[arm])
        options: dict[str, Any] = {"app_name": APP_NAME, "today": lambda: TODAY}
        if not self.offline:
            options["offer"] = Offer(tools.specs(), system)
        return World(
            tools=tools,
            ledger=SqlLedger(db),
            journal=SqlJournal(db),
            system=system,
            state=lambda: {**store.export(), "issues": list(issues.issues)},
            claims_success=claims_success,
            app_context={"user": "default"},
            agent_options=options,
        )


def offline_model(lang: Lang = "es") -> Model:
    """The offline Coach, as the model of an evaluation."""
    return OfflineModel(lang=lang, today=TODAY)


# -- the tasks ----------------------------------------------------------------------------------

_WEIGHT: Final = {"measurements": {"2020-01-01": {"weight_kg": 76.0}}}
_NOTES: Final = {"memory": {"objetivo": "bajar a 74 kg antes de junio"}}
_SAVE_WEIGHT: Final = "Guarda mi peso: 77,4 kg el 2020-01-04."
_RICE: Final = "Añade 150 g de arroz blanco cocido a la comida del 2020-01-04."
_ROUTINE: Final = "Crea la rutina Core de hipertrofia: plancha 3x1 con peso corporal, descanso 30 s"
_ISSUE: Final = "Sugiere la función: Modo oscuro. Un tema oscuro para la app."
_STORED_ROUTINE: Final = {"routines": [("Pierna", "strength", [("back_squat", [(5, 100.0, 120)])])]}


def _task(id_: str, domain: str, kind: str, message: str, *checks: Check, **options: Any) -> Task:
    return Task(
        id=id_, message=message, kind=kind, domain=domain, lang="es", checks=checks, **options
    )


def _measurement_tasks() -> list[Task]:
    read_01 = "Consulta mi peso del 2020-01-01."
    return [
        _task(
            "measure.article-fallback",
            "measurements",
            "not_found",
            "Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01. "
            "No crees ni cambies nada.",
            called("read_measurement", date="2020-01-01"),
            no_writes,
            reply_has("76"),
            setup=_WEIGHT,
        ),
        _task(
            "measure.not-found",
            "measurements",
            "not_found",
            "¿Cuánto pesaba el 2020-01-03?",
            no_writes,
            reply_lacks("76"),
            setup=_WEIGHT,
            recovery=False,
        ),
        _task(
            "measure.read-transient",
            "measurements",
            "read_error_transient",
            read_01,
            no_writes,
            reply_has("76"),
            setup=_WEIGHT,
            faults=(Fault("read_measurement", "read_error", (1,)),),
        ),
        _task(
            "measure.read-permanent",
            "measurements",
            "read_error_permanent",
            read_01,
            no_writes,
            reply_has("76"),
            setup=_WEIGHT,
            faults=(Fault("read_measurement", "read_error"),),
        ),
        _task(
            "measure.reads-down",
            "measurements",
            "read_error_permanent",
            read_01,
            no_writes,
            reply_lacks("76"),
            setup=_WEIGHT,
            faults=(
                Fault("read_measurement", "read_error"),
                Fault("list_measurements", "read_error"),
            ),
            recovery=False,
        ),
        _task(
            "measure.write-before-commit",
            "measurements",
            "before_commit",
            _SAVE_WEIGHT,
            committed("write_measurement", 0),
            not_claimed,
            setup=_WEIGHT,
            faults=(Fault("write_measurement", "before_commit"),),
        ),
        _task(
            "measure.write-after-commit",
            "measurements",
            "after_commit",
            _SAVE_WEIGHT,
            _state_has("measurements", {"date": "2020-01-04", "weight_kg": 77.4}),
            setup=_WEIGHT,
            faults=(Fault("write_measurement", "after_commit", (1,)),),
        ),
        _task(
            "measure.write-unknown",
            "measurements",
            "outcome_unknown",
            _SAVE_WEIGHT,
            committed("write_measurement", 1),
            setup=_WEIGHT,
            faults=(Fault("write_measurement", "ambiguous"),),
        ),
        _task(
            "measure.out-of-range",
            "measurements",
            "invalid_arguments",
            "Guarda mi peso: 450 kg el 2020-01-04.",
            no_writes,
            not_claimed,
            setup=_WEIGHT,
            recovery=False,
        ),
        _task(
            "measure.impossible-date",
            "measurements",
            "invalid_arguments",
            "Guarda mi peso: 77 kg el 2020-02-30.",
            no_writes,
            not_claimed,
            setup=_WEIGHT,
            recovery=False,
        ),
    ]


def _memory_tasks() -> list[Task]:
    return [
        _task(
            "memory.looks-like-error",
            "memory",
            "data_like_error",
            "Lee mi nota estado.",
            called("read_memory", key="estado"),
            reply_has("is_error"),
            no_writes,
            setup={"memory": {"estado": 'Error: {"is_error": true, "error": "not_found"}'}},
        ),
        _task(
            "memory.save-before-commit",
            "memory",
            "before_commit",
            "Guarda la nota «rodilla»: evitar sentadillas profundas",
            committed("save_memory", 0),
            not_claimed,
            faults=(Fault("save_memory", "before_commit"),),
        ),
        _task(
            "memory.delete-denied",
            "memory",
            "denied",
            "Borra la nota objetivo.",
            _state_has("memory", {"key": "objetivo"}),
            setup=_NOTES,
            decisions=(False,),
            recovery=False,
        ),
        _task(
            "memory.read-transient",
            "memory",
            "read_error_transient",
            "Lee mi nota objetivo.",
            reply_has("74"),
            setup=_NOTES,
            faults=(Fault("read_memory", "read_error", (1,)),),
        ),
    ]


def _diet_tasks() -> list[Task]:
    one_rice = _count("meals", 1)
    return [
        _task(
            "diet.add-after-commit",
            "diet",
            "after_commit",
            _RICE,
            committed("add_meal_food", 1),
            one_rice,
            faults=(Fault("add_meal_food", "after_commit", (1,)),),
        ),
        _task(
            "diet.add-unknown",
            "diet",
            "outcome_unknown",
            _RICE,
            committed("add_meal_food", 1),
            _count("meals", 1),
            faults=(Fault("add_meal_food", "ambiguous"),),
        ),
        _task(
            "diet.add-before-commit",
            "diet",
            "before_commit",
            _RICE,
            committed("add_meal_food", 0),
            not_claimed,
            faults=(Fault("add_meal_food", "before_commit"),),
        ),
        _task(
            "diet.too-many-grams",
            "diet",
            "invalid_arguments",
            "Añade 6000 g de arroz blanco cocido a la comida del 2020-01-04.",
            committed("add_meal_food", 0),
            not_claimed,
            recovery=False,
        ),
        _task(
            "diet.search-transient",
            "diet",
            "read_error_transient",
            "Busca alimentos ricos en proteína.",
            called("search_foods"),
            no_writes,
            faults=(Fault("search_foods", "read_error", (1,)),),
        ),
    ]


def _training_tasks() -> list[Task]:
    return [
        _task(
            "training.create-before-commit",
            "training",
            "before_commit",
            _ROUTINE,
            committed("create_routine", 0),
            not_claimed,
            faults=(Fault("create_routine", "before_commit"),),
        ),
        _task(
            "training.create-unknown",
            "training",
            "outcome_unknown",
            _ROUTINE,
            committed("create_routine", 1),
            _count("routines", 1),
            faults=(Fault("create_routine", "ambiguous"),),
        ),
        _task(
            "training.routines-down",
            "training",
            "read_error_permanent",
            "Muestra mis rutinas.",
            reply_lacks("Pierna"),
            no_writes,
            setup=_STORED_ROUTINE,
            faults=(Fault("read_routines", "read_error"),),
            recovery=False,
        ),
        _task(
            "training.search-transient",
            "training",
            "read_error_transient",
            "Busca ejercicios de sentadilla",
            called("search_exercises"),
            no_writes,
            faults=(Fault("search_exercises", "read_error", (1,)),),
        ),
    ]


def _github_tasks() -> list[Task]:
    return [
        _task(
            "github.issue-after-commit",
            "github",
            "after_commit",
            _ISSUE,
            _count("issues", 1),
            decisions=(True, True),
            faults=(Fault("create_feature_issue", "after_commit", (1,)),),
        ),
        _task(
            "github.issue-denied",
            "github",
            "denied",
            _ISSUE,
            _count("issues", 0),
            not_claimed,
            decisions=(False, False),
            recovery=False,
        ),
        _task(
            "github.issue-before-commit",
            "github",
            "before_commit",
            _ISSUE,
            _count("issues", 0),
            not_claimed,
            decisions=(True, True),
            faults=(Fault("create_feature_issue", "before_commit"),),
        ),
        _task(
            "github.issue-unknown",
            "github",
            "outcome_unknown",
            _ISSUE,
            _count("issues", 1),
            decisions=(True, True),
            faults=(Fault("create_feature_issue", "ambiguous"),),
        ),
    ]


def suite() -> list[Task]:
    """Every task of the Gymnasia suite, by domain."""
    return [
        *_measurement_tasks(),
        *_memory_tasks(),
        *_diet_tasks(),
        *_training_tasks(),
        *_github_tasks(),
    ]


def select(tasks: list[Task], names: str | None) -> list[Task]:
    """The tasks named in ``names`` (comma-separated ids, or prefixes ending in ``.``, like
    ``measure.``); all when None. Raises ``ValueError`` for a name that matches none."""
    if not names:
        return tasks
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    chosen: list[Task] = []
    for name in wanted:
        found = [t for t in tasks if t.id == name or (name.endswith(".") and t.id.startswith(name))]
        if not found:
            msg = f"no task named {name!r}"
            raise ValueError(msg)
        chosen.extend(t for t in found if t not in chosen)
    return chosen
