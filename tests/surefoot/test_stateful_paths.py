"""A model-based test of the write and approval contract (hypothesis state machine).

Two users (their conversations share ids on purpose) run user turns whose scripted models
reuse ``call_0`` for every call and repeat identical calls; people approve and deny; a
process crashes at any commit of the journal/ledger path (before or after it); time passes
(leases expire); turns are resumed and reconciled; two processes drive one conversation at
once. After every step the world is checked against what the test itself knows — the
effects the app recorded in the same transaction as each effect, the scripts the models
played, the approvals people gave — never against the harness's own bookkeeping:

* each write key has at most one effect; every effect was asked for by its turn's script;
* no ``Ok`` for a write without its own effect (and no two results share a key);
* no result that says "nothing changed" for a write whose effect exists;
* a committed ledger row has its effect, a failed one has none;
* ``delete_note`` runs (and takes effect) only with a person's approval of exactly that call;
* the model is never asked again in a turn after a stop_turn result (checked as it is asked);
* a write that took effect, asked for again with the same arguments in a later round of its
  turn while no other write took effect since, takes no second effect (the repeat rule);
* the journal always yields a next request that the four strict fake servers accept.

Three mutants — decisions looked up by call id, ordinals restarted on resume, repeated writes
run again — must make it fail (``test_a_mutant_harness_fails_the_checks``). By default the run
is derandomized (the same examples every time, 150 per store); ``SUREFOOT_STATEFUL_EXAMPLES``
and Hypothesis's own ``--hypothesis-seed`` make a longer, seeded one, which prints its seed::

    SUREFOOT_STATEFUL_EXAMPLES=2000 .venv/bin/python -m pytest -s -k every_path \\
        tests/surefoot/test_stateful_paths.py --hypothesis-seed=$RANDOM
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from surefoot import (
    Agent,
    ConversationBusyError,
    ModelRequest,
    Ok,
    Recovery,
    SqlJournal,
    SqlLedger,
    ToolError,
    TurnPendingError,
    open_database,
)
from surefoot._executor import _Prepared
from surefoot.executor import Executor, TurnState
from surefoot.messages import AssistantMessage, Message, ToolCall, ToolResultsMessage, UserMessage
from surefoot.sql import Database
from surefoot.testing import FunctionModel, call, turn

sys.path.insert(0, str(Path(__file__).parent))

from notes_app import NotesApp  # the path tests' small app
from strict_wire import wire_problems

USERS = ("alice", "bob")
CONVERSATIONS = ("c1", "c2")
LEASE = 30.0
EXAMPLES = int(os.environ.get("SUREFOOT_STATEFUL_EXAMPLES", "150"))
SCRATCH = Path("/dev/shm") if Path("/dev/shm").is_dir() else None
"""SQLite files live in memory when the machine has a tmpfs: this test is about logic, and
thousands of fsyncs would only slow it down (the crash soak tests real disks)."""
NOTHING_CHANGED = {"not_applied", "denied", "invalid_arguments", "unknown_tool", "not_executed"}


class Crash(BaseException):
    """The process died: nothing after this point reaches the database."""


class CrashableDatabase(Database):
    """A database connection of one process, which can die at its N-th commit (before the
    COMMIT: the transaction is lost; after it: it landed) and then refuses everything."""

    plan: tuple[int, str] | None = None
    dead: bool = False
    commits: int = 0

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        if self.dead:
            raise Crash
        with super().transaction() as tx:
            yield tx
            self._maybe_die("before")
        self.commits += 1
        self._maybe_die("after")

    def _maybe_die(self, when: str) -> None:
        if self.plan is not None and self.plan == (self.commits + (when == "before"), when):
            self.dead = True
            raise Crash


def _open(url: str) -> CrashableDatabase:
    database = open_database(url)
    database.__class__ = CrashableDatabase  # the same connection, with a way to die
    return database  # type: ignore[return-value]


# -- the scripts -------------------------------------------------------------------------------

KEYS = ("a", "b")
CALL = st.one_of(
    st.sampled_from(KEYS).map(lambda k: ("read_note", {"key": k})),
    st.sampled_from(KEYS).map(lambda k: ("save_note", {"key": k, "value": "1"})),
    st.just(("add_item", {"name": "x"})),
    st.sampled_from(KEYS).map(lambda k: ("delete_note", {"key": k})),
    st.just(("send_remote", {"text": "t"})),
    st.sampled_from(("ok", "lost")).map(lambda text: ("forward", {"text": text})),
    st.just(("save_note", {"key": 5})),  # invalid: never runs
)


@st.composite
def _scripts(draw: st.DrawFn) -> list[list[tuple[str, dict[str, Any]]]]:
    """A model's plan for one user turn: a few rounds of calls drawn from a small palette, so
    identical calls repeat within a response and across rounds (as real models do)."""
    palette = draw(st.lists(CALL, min_size=1, max_size=3))
    batch = st.lists(st.sampled_from(palette), min_size=1, max_size=2)
    return draw(st.lists(batch, min_size=0, max_size=4))


BATCHES = _scripts()


class Harness(RuleBasedStateMachine):
    """Processes, people and time around one database (see the module docstring)."""

    url_factory: ClassVar[Any] = None
    executor_class: ClassVar[type[Executor]] = Executor
    agent_class: ClassVar[type[Agent]] = Agent

    @initialize()
    def start(self) -> None:
        self.url, self.cleanup = type(self).url_factory()
        self.observer = open_database(self.url)
        self.scripts: dict[str, list[list[tuple[str, dict[str, Any]]]]] = {}
        self.asked: dict[tuple[str, str], list[str]] = {}
        self.processes: dict[str, tuple[CrashableDatabase, Agent]] = {}
        self.ran: dict[str, list[tuple[str, str | None]]] = {user: [] for user in USERS}
        self.specs = NotesApp(self.observer).tools().specs()  # migrates the app's tables
        with self.observer.transaction() as tx:  # every user starts with both notes
            for user in USERS:
                for key in KEYS:
                    tx.execute(
                        "INSERT INTO t_notes (user_id, key, value) VALUES (?, ?, 'v')", (user, key)
                    )

    def teardown(self) -> None:
        for database, _ in getattr(self, "processes", {}).values():
            _close(database)
        if hasattr(self, "observer"):
            self.observer.close()
            self.cleanup()

    # -- processes ------------------------------------------------------------------------

    def _plan(self, request: ModelRequest) -> AssistantMessage:
        """The model: the script of the current user turn, step by step (a function of the
        transcript, so a crashed and resumed turn gets the same step again)."""
        current = _current_turn(request.messages)
        for message in current:  # a stop_turn ends the turn: the model is never asked again
            if isinstance(message, ToolResultsMessage):
                for result in message.results:
                    stopped = isinstance(result.outcome, ToolError) and (
                        result.outcome.recovery is Recovery.STOP_TURN
                    )
                    assert not stopped, f"model asked after a stop_turn: {result}"
        user = request.messages[len(request.messages) - len(current) - 1]
        assert isinstance(user, UserMessage)
        step = sum(isinstance(m, AssistantMessage) for m in current)
        script = self.scripts[user.text]
        if step >= len(script):
            return turn(f"done with {user.text}")
        return turn(*(call(name, args, call_id="call_0") for name, args in script[step]))

    def _new_process(self, user: str) -> tuple[CrashableDatabase, Agent]:
        database = _open(self.url)
        app = NotesApp(database, user=user, ran=self.ran[user])
        agent = self.agent_class(
            model=FunctionModel(self._plan),
            tools=app.tools(),
            lang="en",
            ledger=SqlLedger(database, user=user),
            journal=SqlJournal(database, user=user),
            lease_seconds=LEASE,
        )
        agent.executor.__class__ = self.executor_class
        return database, agent

    def _process(self, user: str) -> tuple[CrashableDatabase, Agent]:
        found = self.processes.get(user)
        if found is None or found[0].dead:
            if found is not None:
                _close(found[0])
            found = self.processes[user] = self._new_process(user)
        return found

    def _drive(self, user: str, work: Any) -> None:
        """Run ``work(agent)`` in the user's process; a crash kills that process."""
        database, agent = self._process(user)
        try:
            asyncio.run(work(agent))
        except (ConversationBusyError, TurnPendingError):
            pass
        except Crash:
            database.dead = True
        finally:
            database.plan = None

    # -- what happens ----------------------------------------------------------------------

    @rule(
        user=st.sampled_from(USERS),
        cid=st.sampled_from(CONVERSATIONS),
        script=BATCHES,
        answers=st.lists(st.booleans(), max_size=3),
    )
    def user_turn(
        self,
        user: str,
        cid: str,
        script: list[list[tuple[str, dict[str, Any]]]],
        answers: list[bool],
    ) -> None:
        """A user says something; the model will play ``script``. The person answers the
        first confirmations at once (``answers``, as in a chat); the rest wait."""
        text = f"{user}/{cid}/{len(self.scripts)}"
        self.scripts[text] = script
        self.asked.setdefault((user, cid), []).append(text)

        async def work(agent: Agent) -> None:
            result = await agent.run_turn(text, conversation_id=cid)
            for approved in answers:
                if result.pending_confirmation is None:
                    return
                agent.decide(cid, result.pending_confirmation.id, approved=approved)
                result = await agent.resume(cid)

        self._drive(user, work)

    def _waiting(self) -> list[tuple[str, str]]:
        """(user, conversation) pairs whose last turn has calls without results."""
        return [
            (user, cid)
            for user in USERS
            for cid in CONVERSATIONS
            if _unanswered(SqlJournal(self.observer, user=user).load(cid))
        ]

    @rule(choice=st.integers(0, 3), approved=st.booleans())
    def decide(self, choice: int, approved: bool) -> None:
        """A person decides the call waiting in a conversation (one of those with calls
        waiting, if any), and the turn goes on. What is drawn never depends on the state:
        two processes racing make the state vary from run to run."""
        waiting = self._waiting()
        if not waiting:
            return
        user, cid = waiting[choice % len(waiting)]

        async def work(agent: Agent) -> None:
            pending = agent.pending_confirmation(cid)
            if pending is not None:
                agent.decide(cid, pending.id, approved=approved)
            await agent.resume(cid)

        self._drive(user, work)

    @rule(user=st.sampled_from(USERS), cid=st.sampled_from(CONVERSATIONS))
    def resume(self, user: str, cid: str) -> None:
        """Someone runs resume (on a finished turn it only reports)."""

        async def work(agent: Agent) -> None:
            if agent.exists(cid):
                await agent.resume(cid)

        self._drive(user, work)

    @rule(user=st.sampled_from(USERS))
    def reconcile(self, user: str) -> None:
        """An operator settles unconfirmed writes."""

        async def work(agent: Agent) -> None:
            agent.reconcile()

        self._drive(user, work)

    @rule(
        user=st.sampled_from(USERS),
        commit=st.integers(1, 10),
        when=st.sampled_from(("before", "after")),
    )
    def crash_soon(self, user: str, commit: int, when: str) -> None:
        """The user's process will die at its ``commit``-th commit from now."""
        database, _ = self._process(user)
        database.plan = (database.commits + commit, when)

    @rule(which=st.sampled_from(("conversations", "writes", "both")))
    def time_passes(self, which: str) -> None:
        """Leases run out (a dead process's included): the conversations', the writes', or
        both (a write's claim can outlive its conversation's hold, or the other way round)."""
        if which != "writes":
            self.observer.query("UPDATE sf_conversations SET lease_until = 0")
        if which != "conversations":
            self.observer.query("UPDATE sf_ledger SET lease_until = 0 WHERE state = 'pending'")

    @precondition(lambda self: len(self.scripts) > 0)
    @rule(user=st.sampled_from(USERS), cid=st.sampled_from(CONVERSATIONS), script=BATCHES)
    def two_processes_at_once(
        self, user: str, cid: str, script: list[list[tuple[str, dict[str, Any]]]]
    ) -> None:
        """Two processes drive one conversation at the same moment: a resume and a new turn."""
        text = f"{user}/{cid}/{len(self.scripts)}"
        self.scripts[text] = script
        self.asked.setdefault((user, cid), []).append(text)
        first, second = self._new_process(user), self._new_process(user)
        barrier = threading.Barrier(2)

        def run(agent: Agent, work: Any) -> None:
            barrier.wait(10)
            with suppress(ConversationBusyError, TurnPendingError):
                asyncio.run(work(agent))

        async def resume(agent: Agent) -> None:
            if agent.exists(cid):
                await agent.resume(cid)

        threads = [
            threading.Thread(target=run, args=(first[1], resume)),
            threading.Thread(
                target=run, args=(second[1], lambda a: a.run_turn(text, conversation_id=cid))
            ),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        _close(first[0])
        _close(second[0])

    # -- what must hold after every step ---------------------------------------------------

    @invariant()
    def the_world_agrees_with_every_result(self) -> None:
        """The checks of the module docstring, against the effects the app recorded."""
        if not hasattr(self, "observer"):
            return
        effects = {
            row[0]: (row[1], row[2], row[3])
            for row in self.observer.query(
                "SELECT e.key, e.tool, e.arguments, l.user_id FROM t_effects e "
                "LEFT JOIN sf_ledger l ON l.key = e.key"
            )
        }
        counts = self.observer.query("SELECT key, COUNT(*) FROM t_effects GROUP BY key")
        assert all(n == 1 for _, n in counts), f"a key with two effects: {counts}"
        for user in USERS:
            self._check_user(user, effects)

    def _check_user(self, user: str, effects: dict[str, tuple[str, str, str]]) -> None:
        journal = SqlJournal(self.observer, user=user)
        keys_seen: set[str] = set()
        for cid in CONVERSATIONS:
            messages = journal.load(cid)
            for text in (m.text for m in messages if isinstance(m, UserMessage)):
                assert text.startswith(f"{user}/{cid}/"), f"{user} sees {text!r}"
            for call_, result in _answered(messages):
                if result.key is None:
                    continue
                assert result.key not in keys_seen, f"two results for key {result.key}"
                keys_seen.add(result.key)
                effect = effects.get(result.key)
                if isinstance(result.outcome, Ok):
                    assert effect is not None, f"Ok without an effect: {call_}"
                    assert effect[0] == call_.name
                elif result.outcome.code in NOTHING_CHANGED:
                    assert effect is None, f"{result.outcome.code} but it happened: {call_}"
            _check_repeats(messages, effects)
            assert wire_problems(messages, self.specs) == {}, cid
        self._check_ledger(user, effects)
        self._check_approvals(user, effects)

    def _check_ledger(self, user: str, effects: dict[str, tuple[str, str, str]]) -> None:
        for entry in SqlLedger(self.observer, user=user).entries():
            if entry.state == "committed":
                assert entry.key in effects, f"committed without an effect: {entry}"
            if entry.state == "failed":
                assert entry.key not in effects, f"failed but it happened: {entry}"
            if entry.key in effects:
                script_calls = {
                    (name, repr(sorted(args.items())))
                    for text in self.asked.get((user, entry.conversation_id), [])
                    for batch in self.scripts[text]
                    for name, args in batch
                }
                asked = (entry.tool, repr(sorted(entry.arguments.items())))
                assert asked in script_calls, f"an effect nobody asked for: {entry}"

    def _check_approvals(self, user: str, effects: dict[str, tuple[str, str, str]]) -> None:
        approved = {
            a.key: a
            for a in SqlJournal(self.observer, user=user).approvals(decided=True)
            if a.approved
        }
        for tool, key in self.ran[user]:
            assert tool == "delete_note"
            assert key in approved, f"a delete ran without approval of that call: {key}"
            assert approved[key].tool == "delete_note"
        for key, (tool, _, owner) in effects.items():
            if tool == "delete_note" and owner == user:
                assert key in approved, f"a delete took effect without approval: {key}"


def _close(database: Database) -> None:
    try:
        Database.close(database)
    except Exception:  # noqa: BLE001 - a dead connection may refuse even that
        return


def _current_turn(messages: Any) -> list[Message]:
    for index in range(len(messages) - 1, -1, -1):
        if isinstance(messages[index], UserMessage):
            return list(messages[index + 1 :])
    return list(messages)


def _unanswered(messages: list[Message]) -> bool:
    return (
        bool(messages)
        and isinstance(messages[-1], AssistantMessage)
        and bool(messages[-1].tool_calls)
    )


def _check_repeats(messages: list[Message], effects: dict[str, Any]) -> None:
    """The repeat rule, checked against the effects: in each user turn, a write identical to
    one that took effect in an earlier round, with no other write's effect since, has none."""
    for rounds in _turn_rounds(messages):
        done: dict[str, int] = {}  # identity -> round of its effect
        for index, batch in enumerate(rounds):
            for call_, result in batch:
                if result.key is None or result.key not in effects:
                    continue
                identity = f"{call_.name} {sorted((call_.arguments or {}).items())!r}"
                assert done.get(identity, index) == index, f"a repeated write ran again: {call_}"
                done = {k: r for k, r in done.items() if r == index or k == identity}
                done.setdefault(identity, index)


def _turn_rounds(messages: list[Message]) -> list[list[list[tuple[ToolCall, Any]]]]:
    """Each user turn's rounds, each its calls with their results."""
    turns: list[list[list[tuple[ToolCall, Any]]]] = []
    calls: tuple[ToolCall, ...] = ()
    for message in messages:
        if isinstance(message, UserMessage):
            turns.append([])
        elif isinstance(message, AssistantMessage):
            calls = message.tool_calls
        elif isinstance(message, ToolResultsMessage) and turns:
            turns[-1].append(list(zip(calls, message.results, strict=True)))
            calls = ()
    return turns


def _answered(messages: list[Message]) -> Iterator[tuple[ToolCall, Any]]:
    calls: tuple[ToolCall, ...] = ()
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls = message.tool_calls
        elif isinstance(message, ToolResultsMessage):
            assert len(message.results) == len(calls), "a call without exactly one result"
            yield from zip(calls, message.results, strict=True)
            calls = ()


# -- running it ------------------------------------------------------------------------------


def _settings(examples: int, *, shrink: bool, seeded: bool) -> settings:
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    return settings(
        max_examples=examples,
        stateful_step_count=20,
        deadline=None,
        derandomize=not seeded,
        database=None,
        phases=phases,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


def _run(
    url_factory: Any,
    machine: type[Harness],
    examples: int,
    *,
    shrink: bool = True,
    seed: object = None,
) -> None:
    if seed is not None:
        print(f"\nstateful run: --hypothesis-seed={seed}, {examples} examples")
    machine.url_factory = staticmethod(url_factory)
    settings_ = _settings(examples, shrink=shrink, seeded=seed is not None)
    run_state_machine_as_test(machine, settings=settings_)


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Path]:
    """Where this test's SQLite files go (removed afterwards)."""
    folder = Path(tempfile.mkdtemp(dir=SCRATCH)) if SCRATCH else tmp_path
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _sqlite_factory(folder: Path) -> Any:
    def sqlite() -> tuple[str, Any]:
        path = folder / f"{uuid.uuid4().hex}.db"

        def remove() -> None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)

        return str(path), remove

    return sqlite


@pytest.fixture(params=["sqlite", "postgresql"])
def url_factory(request: pytest.FixtureRequest, scratch: Path) -> Any:
    """Makes a fresh database for each example: a SQLite file, or a PostgreSQL schema."""
    if request.param == "sqlite":
        return _sqlite_factory(scratch)
    import psycopg

    base = request.getfixturevalue("pg_server")

    def postgresql() -> tuple[str, Any]:
        schema = "s_" + uuid.uuid4().hex[:12]
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")

        def drop() -> None:
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")

        sep = "&" if "?" in base else "?"
        return f"{base}{sep}options=-csearch_path%3D{schema}", drop

    return postgresql


class HarnessMachine(Harness):
    """The real harness."""


def test_the_contract_holds_on_every_path(url_factory: Any, request: pytest.FixtureRequest) -> None:
    """Turns, decisions, crashes at every commit, resumes, reconciles, expired leases and two
    writers at once, for two users: every check holds after every step."""
    seed = request.config.getoption("hypothesis_seed", default=None)
    _run(url_factory, HarnessMachine, EXAMPLES, seed=seed)


# -- mutation controls: the checks above can fail ---------------------------------------------


class DecisionsByCallId(Executor):
    """MUTANT: a decision found by the call's id (which servers reuse), not its key."""

    def _decision(self, call: ToolCall, prepared: _Prepared, state: TurnState) -> bool | None:
        return state.decisions.get(call.call_id)


class DecisionsByCallIdAgent(Agent):
    """MUTANT: every decision the conversation ever had, by call id."""

    def _decisions(self, conversation_id: str, user_turn: int) -> dict[str, bool]:
        found = self.journal.approvals(conversation_id=conversation_id, decided=True)
        return {a.call_id: bool(a.approved) for a in found}


class OrdinalsRestartAgent(Agent):
    """MUTANT: a resumed turn starts its ordinals (and guard) afresh."""

    def _rebuild(self, turn: Any, history: Any) -> None:
        from surefoot._runner import rounds_before_last

        turn.rounds = rounds_before_last(turn.messages)


class ForgetfulState(TurnState):
    """MUTANT: no write is ever "already done"."""

    def repeated(self, identity: str, tool: str, describe: Any) -> ToolError | None:
        return None


class RepeatsRunAgent(Agent):
    """MUTANT: a write repeated in a later round runs again (a new key, a new effect)."""

    def _turn(self, *args: Any, **kwargs: Any) -> Any:
        found = super()._turn(*args, **kwargs)
        state = found.state
        found.state = ForgetfulState(
            state.conversation_id, state.user_turn, lang=state.lang, decisions=state.decisions
        )
        return found


class DecisionsByCallIdMachine(Harness):
    executor_class = DecisionsByCallId
    agent_class = DecisionsByCallIdAgent


class OrdinalsRestartMachine(Harness):
    agent_class = OrdinalsRestartAgent


class RepeatsRunMachine(Harness):
    agent_class = RepeatsRunAgent


@pytest.mark.parametrize(
    ("machine", "found"),
    [
        (DecisionsByCallIdMachine, "without approval of that call"),
        (OrdinalsRestartMachine, "two results for key"),
        (RepeatsRunMachine, "a repeated write ran again"),
    ],
)
def test_a_mutant_harness_fails_the_checks(
    machine: type[Harness], found: str, scratch: Path
) -> None:
    """Keying decisions by call id, restarting ordinals on resume, or running a repeated
    write again, is caught."""

    with pytest.raises(AssertionError, match=found):
        # finding it is the point, not its smallest form
        _run(_sqlite_factory(scratch), machine, 600, shrink=False)
