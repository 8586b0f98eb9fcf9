"""create_feature_issue (a write to GitHub's issues API): how each answer becomes an outcome,
exactly one POST per approved call, the key marker that lets a lost answer be reconciled, and
a token that never shows up anywhere but in the Authorization header."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from surefoot import (
    Agent,
    Ok,
    Recovery,
    SqlDiagnostics,
    SqlJournal,
    SqlLedger,
    ToolError,
    ToolSet,
    open_database,
)
from surefoot.executor import Executor, TurnState
from surefoot.messages import ToolCall, message_to_json
from surefoot.sql import Database

sys.path.insert(0, str(Path(__file__).parent))

from fake_github import FakeGitHub, Mode  # found through the path set above

from gymnasia.faults import FaultMode, Faults
from gymnasia.feedback import (
    FeedbackSettings,
    GitHubIssues,
    OutcomeUnknownError,
    marker,
    register_feedback_tools,
)
from gymnasia.offline import OfflineModel, understand
from gymnasia.offline._intents import SuggestFeature

TOKEN = "ghp_TESTONLY_9f8e7d6c5b4a39281706f5e4d3c2b1a0"
REPO = "gymnasia/coach"
KEY = "sfk_0123456789abcdef0123456789abcdef01234567"
TITLE = "Dark mode"
DESCRIPTION = "A dark theme for the app."
ASK = f"Suggest the feature: {TITLE}. {DESCRIPTION}"
ISSUE = {"number": 7, "title": TITLE, "html_url": f"https://github.com/{REPO}/issues/7"}
CLI_TIMEOUT = 60
CHAT = (sys.executable, "-m", "gymnasia", "chat")


# -- the mapping, with the network replaced by httpx.MockTransport ------------------------------


Handler = Callable[[httpx.Request], httpx.Response]


@dataclass
class Recorder:
    """A MockTransport handler that records every request and answers with ``answer``."""

    answer: Handler
    requests: list[httpx.Request]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)


def _github(
    answer: Handler, *, settings: FeedbackSettings | None = None
) -> tuple[GitHubIssues, Recorder]:
    recorder = Recorder(answer, [])
    chosen = settings or FeedbackSettings(repo=REPO, token=TOKEN, api_url="https://gh.test")
    return GitHubIssues(chosen, transport=httpx.MockTransport(recorder)), recorder


def _status(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Handler:
    return lambda request: httpx.Response(status, json=body, headers=headers)


def _raising(error: type[httpx.TransportError]) -> Handler:
    def answer(request: httpx.Request) -> httpx.Response:
        raise error("simulated", request=request)

    return answer


def test_201_is_the_issue_and_the_request_carries_key_token_and_timeouts() -> None:
    """A 201 gives {number, url, title}; the one POST has the key marker in its body, the token
    only in its Authorization header, and the configured connect/read timeouts."""
    github, recorder = _github(_status(201, {**ISSUE, "body": "ignored"}))
    outcome = github.create(KEY, TITLE, DESCRIPTION, "en")
    assert outcome == Ok({"number": 7, "url": ISSUE["html_url"], "title": TITLE})
    [request] = recorder.requests
    assert (request.method, request.url.path) == ("POST", f"/repos/{REPO}/issues")
    body = json.loads(request.content)
    assert body == {"title": TITLE, "body": f"{DESCRIPTION}\n\n<!-- surefoot-key: {KEY} -->"}
    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert request.extensions["timeout"] == {
        "connect": 5.0,
        "read": 10.0,
        "write": 10.0,
        "pool": 5.0,
    }


@pytest.mark.parametrize(
    ("status", "headers", "code", "recovery", "words"),
    [
        (422, None, "rejected", Recovery.CHOOSE_ALTERNATIVE, "invalid"),
        (401, None, "not_applied", Recovery.STOP_TURN, "GITHUB_TOKEN"),
        (403, None, "not_applied", Recovery.STOP_TURN, "GYMNASIA_FEEDBACK_REPO"),
        (404, None, "not_applied", Recovery.STOP_TURN, "GYMNASIA_FEEDBACK_REPO"),
        (403, {"x-ratelimit-remaining": "0"}, "not_applied", Recovery.STOP_TURN, "rate-limit"),
        (429, {"retry-after": "30"}, "not_applied", Recovery.STOP_TURN, "rate-limit"),
        (400, None, "not_applied", Recovery.STOP_TURN, "HTTP 400"),
        (410, None, "not_applied", Recovery.STOP_TURN, "HTTP 410"),
        (307, None, "not_applied", Recovery.STOP_TURN, "HTTP 307"),
    ],
)
def test_refusals_map_to_their_tool_errors(
    status: int, headers: dict[str, str] | None, code: str, recovery: Recovery, words: str
) -> None:
    """GitHub's refusals (nothing created) become the mapped code and recovery, with a message
    that says what to do and never carries the token."""
    github, recorder = _github(_status(status, {"message": "no"}, headers))
    outcome = github.create(KEY, TITLE, DESCRIPTION, "en")
    assert isinstance(outcome, ToolError)
    assert (outcome.code, outcome.recovery) == (code, recovery)
    assert words in outcome.message
    assert "nothing was created" in outcome.message
    assert TOKEN not in outcome.message
    assert len(recorder.requests) == 1


@pytest.mark.parametrize("status", [500, 502, 503, 504, 200, 202])
def test_server_errors_and_unexpected_answers_raise(status: int) -> None:
    """5xx (and a 2xx other than 201) prove nothing either way, so the tool raises for the
    harness to settle; the exception text has no token and no response body."""
    github, _ = _github(_status(status, {"message": f"leak {TOKEN}"}))
    with pytest.raises(OutcomeUnknownError) as caught:
        github.create(KEY, TITLE, DESCRIPTION, "en")
    assert f"HTTP {status}" in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_201_without_a_readable_issue_raises() -> None:
    """A 201 whose body is not an issue means it was created but we cannot say which: raise."""
    github, _ = _github(lambda request: httpx.Response(201, content=b"<html>"))
    with pytest.raises(OutcomeUnknownError):
        github.create(KEY, TITLE, DESCRIPTION, "en")


@pytest.mark.parametrize(
    "error",
    [httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.UnsupportedProtocol],
)
def test_failures_before_sending_are_not_applied(error: type[httpx.TransportError]) -> None:
    """No connection (refused, DNS failure, connect timeout): nothing was sent, so not_applied."""
    github, recorder = _github(_raising(error))
    outcome = github.create(KEY, TITLE, DESCRIPTION, "en")
    assert isinstance(outcome, ToolError)
    assert (outcome.code, outcome.recovery) == ("not_applied", Recovery.STOP_TURN)
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    "error",
    [
        httpx.ReadTimeout,
        httpx.ReadError,
        httpx.RemoteProtocolError,
        httpx.WriteError,
        httpx.WriteTimeout,
    ],
)
def test_failures_after_sending_raise(error: type[httpx.TransportError]) -> None:
    """A read timeout or a connection lost after sending may hide a created issue: raise, with
    the transport error chained for the diagnostics and no token in the text."""
    github, recorder = _github(_raising(error))
    with pytest.raises(OutcomeUnknownError) as caught:
        github.create(KEY, TITLE, DESCRIPTION, "en")
    assert isinstance(caught.value.__cause__, error)
    assert error.__name__ in str(caught.value)
    assert TOKEN not in str(caught.value)
    assert len(recorder.requests) == 1


@pytest.mark.parametrize(
    "settings",
    [
        FeedbackSettings(repo=REPO, token=None),
        FeedbackSettings(repo=None, token=TOKEN),
        FeedbackSettings(repo="not a repo", token=TOKEN),
    ],
    ids=["no-token", "no-repo", "bad-repo"],
)
def test_missing_configuration_sends_nothing(settings: FeedbackSettings) -> None:
    """Without a token or an owner/name repository no request is made: not_applied, stop_turn,
    a message naming both variables; the reconcile hook decides nothing either."""
    github, recorder = _github(_status(201, ISSUE), settings=settings)
    outcome = github.create(KEY, TITLE, DESCRIPTION, "en")
    assert isinstance(outcome, ToolError)
    assert (outcome.code, outcome.recovery) == ("not_applied", Recovery.STOP_TURN)
    assert "GITHUB_TOKEN" in outcome.message
    assert "GYMNASIA_FEEDBACK_REPO" in outcome.message
    assert github.find(KEY, {}) is None
    assert recorder.requests == []


@pytest.mark.parametrize(
    ("lang", "word"), [("es", "configurar"), ("pt", "configurar"), ("en", "configuring")]
)
def test_configure_message_is_localized(lang: Any, word: str) -> None:
    """The 'configure the token / repository' message exists in es, pt and en."""
    github, _ = _github(_status(401, {"message": "Bad credentials"}))
    outcome = github.create(KEY, TITLE, DESCRIPTION, lang)
    assert isinstance(outcome, ToolError)
    assert word in outcome.message
    assert "GITHUB_TOKEN" in outcome.message


def test_reconcile_hook_finds_the_issue_by_its_marker() -> None:
    """The hook lists recent issues (all states, newest first, 100) and returns the one whose
    body carries the key's marker."""
    issues = [
        {"number": 9, "title": "other", "body": "<!-- surefoot-key: sfk_other -->"},
        {"number": 7, "title": TITLE, "html_url": ISSUE["html_url"], "body": f"x\n{marker(KEY)}"},
    ]
    github, recorder = _github(_status(200, issues))
    assert github.find(KEY, {"title": TITLE}) == Ok(
        {"number": 7, "url": ISSUE["html_url"], "title": TITLE}
    )
    [request] = recorder.requests
    assert request.method == "GET"
    assert dict(request.url.params) == {
        "state": "all",
        "per_page": "100",
        "sort": "created",
        "direction": "desc",
    }


@pytest.mark.parametrize(
    "answer",
    [
        _status(200, [{"number": 1, "title": "x", "body": None}]),
        _status(200, {"not": "a list"}),
        _status(500, []),
        _status(401, []),
        _raising(httpx.ReadTimeout),
        _raising(httpx.ConnectError),
    ],
    ids=["not-listed", "not-a-list", "5xx", "401", "timeout", "refused"],
)
def test_reconcile_hook_never_presumes_failure(answer: Handler) -> None:
    """Not finding the marker, or failing to list, leaves the write unknown (None), never
    'absent': the listing may lag or hold only the newest issues."""
    github, _ = _github(answer)
    assert github.find(KEY, {}) is None


def test_marker_refuses_keys_that_could_break_out_of_the_comment() -> None:
    """A key is letters, digits and _; anything else (like '-->') is refused."""
    assert marker("sfk_ab12") == "<!-- surefoot-key: sfk_ab12 -->"
    with pytest.raises(ValueError, match="letters"):
        marker("sfk --> <b>")


def test_settings_from_the_environment_and_token_kept_out_of_repr() -> None:
    """Settings come from the documented variables (an explicit API URL wins) and the token
    is not in their repr."""
    settings = FeedbackSettings.from_env(
        api_url="http://127.0.0.1:9",
        environ={
            "GITHUB_TOKEN": TOKEN,
            "GYMNASIA_FEEDBACK_REPO": REPO,
            "GYMNASIA_GITHUB_API_URL": "http://elsewhere",
            "GYMNASIA_FEEDBACK_READ_TIMEOUT": "0.5",
        },
    )
    assert (settings.repo, settings.token, settings.api_url) == (REPO, TOKEN, "http://127.0.0.1:9")
    assert (settings.connect_timeout, settings.read_timeout) == (5.0, 0.5)
    assert TOKEN not in repr(settings)
    assert FeedbackSettings.from_env(environ={}).api_url == "https://api.github.com"
    assert not FeedbackSettings.from_env(environ={}).configured


def test_tool_declaration() -> None:
    """create_feature_issue is a write that needs a person's confirmation, is neither
    idempotent nor atomic, and has a reconcile hook."""
    tools = ToolSet()
    register_feedback_tools(tools, settings=FeedbackSettings())
    tool = tools.get("create_feature_issue")
    assert tool is not None
    assert (tool.effect, tool.confirm, tool.idempotent, tool.atomic) == (
        "write",
        True,
        False,
        False,
    )
    assert tool.reconcile is not None
    assert set(tool.spec().parameters["properties"]) == {"title", "description"}


# -- the offline model's phrasing ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Sugiere la función: Modo oscuro. Un tema oscuro para la app.", "es"),
        ("Sugira a funcionalidade: Modo escuro. Um tema escuro para a app.", "pt"),
        ("Suggest the feature: Dark mode. A dark theme for the app.", "en"),
    ],
)
def test_offline_model_understands_feature_requests(text: str, lang: Any) -> None:
    """'Suggest the feature: TITLE. DESCRIPTION' (es/pt/en) becomes a create_feature_issue
    call with the title and the description."""
    intent = understand(text)
    assert isinstance(intent, SuggestFeature)
    title, description = text.split(": ", 1)[1].split(". ", 1)
    assert (intent.title, intent.description) == (title, description)
    assert understand("Suggest the feature: Export to CSV") is not None


# -- against the fake GitHub, in process (logs) -------------------------------------------------


def _agent(database: Database, fake: FakeGitHub, *, read_timeout: float) -> Agent:
    tools = ToolSet()
    settings = FeedbackSettings(
        repo=REPO, token=TOKEN, api_url=fake.base_url, read_timeout=read_timeout
    )
    register_feedback_tools(tools, settings=settings)
    return Agent(
        model=OfflineModel(lang="en"),
        tools=tools,
        lang="en",
        ledger=SqlLedger(database),
        journal=SqlJournal(database),
        diagnostics=SqlDiagnostics(database),
    )


@pytest.mark.parametrize("mode", ["ok", "slow"])
def test_token_never_logged_even_without_redaction(
    mode: Mode, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """With every logger at DEBUG (surefoot, httpx, httpcore) and no redactor configured, the
    token appears in no log record, no diagnostic and no journaled message."""
    caplog.set_level(logging.DEBUG)
    database = open_database(db_url)
    try:
        with FakeGitHub(mode, token=TOKEN, delay=2.0) as fake:
            agent = _agent(database, fake, read_timeout=0.5)
            paused = asyncio.run(agent.run_turn(ASK))
            pending = paused.pending_confirmation
            assert pending is not None
            assert agent.decide(paused.conversation_id, pending.id, approved=True)
            result = asyncio.run(agent.resume(paused.conversation_id))
            assert len(fake.posts) == 1
            if mode == "slow":
                assert fake.settled.wait(10)
        diagnostics = agent.executor.diagnostics.list()
        messages = agent.journal.load(result.conversation_id)
    finally:
        database.close()
    assert result.stop_reason == ("completed" if mode == "ok" else "stop_turn")
    assert "POST" in caplog.text
    assert TOKEN not in caplog.text
    assert len(diagnostics) == (1 if mode == "slow" else 0)
    assert all(TOKEN not in d.message + d.traceback for d in diagnostics)
    journal = json.dumps([message_to_json(m) for m in messages])
    assert TOKEN not in journal
    assert "surefoot-key" not in journal  # the marker travels to GitHub only


@pytest.mark.parametrize(
    ("fault", "posts", "outcome", "state", "reconciled"),
    [
        ("before_commit", 0, "outcome_unknown", "unknown", ["unknown"]),
        ("after_commit", 1, "ok", "committed", []),
        ("ambiguous", 1, "outcome_unknown", "unknown", ["committed"]),
    ],
)
def test_fault_modes_on_the_external_write(
    fault: FaultMode, posts: int, outcome: str, state: str, reconciled: list[str]
) -> None:
    """--fault works here too: before_commit fails before sending (nothing to find: stays
    unknown), after_commit loses the 201 (the hook finds the issue at once), ambiguous loses
    it and forbids checking until a later reconcile finds it. Never a second POST."""
    with FakeGitHub("ok", token=TOKEN) as fake:
        tools = ToolSet()
        settings = FeedbackSettings(repo=REPO, token=TOKEN, api_url=fake.base_url)
        faults = Faults({"create_feature_issue": fault})
        register_feedback_tools(tools, settings=settings, faults=faults)
        executor = Executor(tools)
        call = ToolCall("c1", "create_feature_issue", {"title": TITLE, "description": ""})
        turn = _approved(executor, call, "c_fault")
        [record] = asyncio.run(executor.run_batch([call], turn)).records
        states = [entry.state for entry in executor.ledger.entries()]
        settled = executor.reconcile(conversation_id="c_fault")
        assert len(fake.posts) == posts
    assert ("ok" if isinstance(record.outcome, Ok) else record.outcome.code) == outcome
    assert states == [state]
    assert [entry.state for entry in settled] == reconciled


def _approved(executor: Executor, call: ToolCall, conversation: str) -> TurnState:
    """A turn state in which a person approved ``call`` (the decision names its exact key)."""
    paused = asyncio.run(executor.run_batch([call], TurnState(conversation, 0, lang="en")))
    assert paused.pending is not None
    return TurnState(conversation, 0, lang="en", decisions={paused.pending.key: True})


# -- end to end through the CLI -----------------------------------------------------------------


_INHERITED_OUT = (
    "GITHUB_TOKEN",
    "GYMNASIA_FEEDBACK_REPO",
    "GYMNASIA_GITHUB_API_URL",
    "GYMNASIA_PROVIDER",
    "GYMNASIA_DB",
    "GYMNASIA_TODAY",
)


@dataclass
class Cli:
    """``gymnasia`` in a subprocess, on one database, with the feedback variables set."""

    db: str
    env: dict[str, str]

    def run(self, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        """Run a command; check its exit code and that the token is in none of its output."""
        proc = subprocess.run(
            [sys.executable, "-m", "gymnasia", *args, "--db", self.db],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            check=False,
        )
        assert proc.returncode == code, proc.stderr
        assert TOKEN not in proc.stdout
        assert TOKEN not in proc.stderr
        return proc

    def json(self, *args: str) -> Any:
        """Run a command with ``--json`` and parse what it printed."""
        return json.loads(self.run(*args, "--json").stdout)

    def ask_and_approve(self, text: str, *ask_args: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Ask (the turn pauses for confirmation), then approve the pending call."""
        paused = self.json("ask", text, *ask_args)
        assert paused["stop_reason"] == "awaiting_confirmation"
        assert paused["tool_calls"] == []
        pending = paused["pending_confirmation"]
        assert pending["tool"] == "create_feature_issue"
        assert pending["arguments"] == {"title": TITLE, "description": DESCRIPTION}
        return paused, self.json("approvals", "approve", pending["id"])

    def journal_json(self, conversation_id: str) -> str:
        """Everything the model could ever be sent in this conversation, as JSON text."""
        database = open_database(self.db, create=False)
        try:
            messages = SqlJournal(database).load(conversation_id)
        finally:
            database.close()
        return json.dumps([message_to_json(m) for m in messages], ensure_ascii=False)


def _env(fake: FakeGitHub, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _INHERITED_OUT}
    env.update(
        {
            "GITHUB_TOKEN": TOKEN,
            "GYMNASIA_FEEDBACK_REPO": REPO,
            "GYMNASIA_GITHUB_API_URL": fake.base_url,
            "GYMNASIA_LANG": "en",
            **extra,
        }
    )
    return env


def _cli_maker(db: str) -> Callable[..., Cli]:
    def make(fake: FakeGitHub, **extra: str) -> Cli:
        return Cli(db, _env(fake, **extra))

    return make


@pytest.fixture
def cli_for(db_url: str) -> Callable[..., Cli]:
    """Makes a ``Cli`` for a running fake, on this test's database (SQLite, then PostgreSQL)."""
    return _cli_maker(db_url)


@pytest.fixture
def sqlite_cli_for(sqlite_url: str) -> Callable[..., Cli]:
    """Makes a ``Cli`` for a running fake, on a SQLite file (for checks not about storage)."""
    return _cli_maker(sqlite_url)


@dataclass(frozen=True)
class Expected:
    """What one fake mode must lead to after approval."""

    posts: int
    state: str
    error: str | None
    stop_reason: str
    requests_after_approval: int


EXPECTED: dict[Mode, Expected] = {
    "ok": Expected(1, "committed", None, "completed", 1),
    "reject": Expected(1, "failed", "rejected", "completed", 1),
    "unauthorized": Expected(1, "failed", "not_applied", "stop_turn", 0),
    "bad_gateway": Expected(1, "committed", None, "completed", 1),
    "refuse": Expected(0, "failed", "not_applied", "stop_turn", 0),
}


@pytest.mark.parametrize("mode", list(EXPECTED))
def test_each_mode_end_to_end(mode: Mode, cli_for: Callable[..., Cli]) -> None:
    """ask → approve: each GitHub answer gives its mapped outcome, `gymnasia writes` agrees,
    and the server received exactly one POST (none when the port is closed) — no transport
    retry, no harness retry."""
    expected = EXPECTED[mode]
    with FakeGitHub(mode, token=TOKEN) as fake:
        cli = cli_for(fake)
        paused, approved = cli.ask_and_approve(ASK, "--github-api-url", fake.base_url)
        assert len(fake.posts) == expected.posts
        [write] = cli.json("writes")
    assert paused["model_requests"] == 1
    assert approved["stop_reason"] == expected.stop_reason
    assert approved["model_requests"] == expected.requests_after_approval
    [call] = approved["tool_calls"]
    assert call["executed"] is True
    outcome = call["outcome"]
    assert (write["tool"], write["state"]) == ("create_feature_issue", expected.state)
    if expected.error is None:
        issue = {"number": 1, "url": f"https://github.com/{REPO}/issues/1", "title": TITLE}
        assert outcome == {"ok": issue}
        assert write["result"] == issue
        assert "#1" in approved["reply"]
        assert marker(write["key"]) in fake.issues[0]["body"]
    else:
        assert outcome["error"] == expected.error
        assert write["error"]["error"] == expected.error
        assert write["result"] is None
        assert not fake.issues
    if expected.stop_reason == "stop_turn":
        assert approved["reply_author"] == "harness"
        assert "nothing was saved" in approved["reply"]
    assert TOKEN not in cli.journal_json(approved["conversation_id"])


def test_unauthorized_says_to_configure_token_and_repository(
    sqlite_cli_for: Callable[..., Cli],
) -> None:
    """A 401 stops the turn with not_applied and a message about the token and repository."""
    with FakeGitHub("unauthorized") as fake:
        cli = sqlite_cli_for(fake, GYMNASIA_LANG="es")
        _, approved = cli.ask_and_approve(
            f"Sugiere la función: {TITLE}. {DESCRIPTION}", "--github-api-url", fake.base_url
        )
    envelope = approved["tool_calls"][0]["outcome"]
    assert (envelope["error"], envelope["recovery"]) == ("not_applied", "stop_turn")
    assert "GITHUB_TOKEN" in envelope["message"]
    assert "GYMNASIA_FEEDBACK_REPO" in envelope["message"]
    assert "no se ha creado nada" in envelope["message"]


def test_slow_answer_is_unknown_then_reconciled_and_never_repeated(
    cli_for: Callable[..., Cli], db_url: str
) -> None:
    """GitHub creates the issue but answers after the read timeout: one POST, outcome_unknown
    with the conservative message and no further model request; `writes` shows it unknown,
    `reconcile` finds it by its key (committed, with the number), and resuming or replaying
    the same call creates nothing new."""
    with FakeGitHub("slow", token=TOKEN, delay=3.0) as fake:
        cli = cli_for(fake, GYMNASIA_FEEDBACK_READ_TIMEOUT="0.5")
        paused, stopped = cli.ask_and_approve(ASK, "--github-api-url", fake.base_url)
        cid = stopped["conversation_id"]
        assert len(fake.posts) == 1
        assert paused["model_requests"] == 1
        assert stopped["model_requests"] == 0  # after approval: the failure ended the turn
        assert stopped["stop_reason"] == "stop_turn"
        assert stopped["reply_author"] == "harness"
        assert stopped["reply"].startswith("Gymnasia can't confirm whether the action finished,")
        assert (
            "Before asking again, check whether it was done: see 'gymnasia writes"
            in (stopped["reply"])
        )
        [call] = stopped["tool_calls"]
        assert (call["outcome"]["error"], call["outcome"]["recovery"]) == (
            "outcome_unknown",
            "stop_turn",
        )
        [write] = cli.json("writes")
        assert write["state"] == "unknown"

        assert fake.settled.wait(10), "the fake never finished the slow issue"
        [settled] = cli.json("reconcile")
        issue = {"number": 1, "url": f"https://github.com/{REPO}/issues/1", "title": TITLE}
        assert (settled["key"], settled["state"], settled["result"]) == (
            write["key"],
            "committed",
            issue,
        )
        [write] = cli.json("writes")
        assert (write["state"], write["result"]) == ("committed", issue)

        resumed = cli.json("resume", cid)
        assert resumed["model_requests"] == 0
        replayed = _replay(db_url, fake, cid, call)
        assert len(fake.posts) == 1
        assert fake.settled.is_set()

        diagnostics = cli.json("diagnostics")
    assert replayed == Ok(issue)
    [diagnostic] = diagnostics
    assert diagnostic["exception_type"] == "OutcomeUnknownError"
    assert "ReadTimeout" in diagnostic["traceback"]
    assert diagnostic["key"] == write["key"]
    assert TOKEN not in json.dumps(diagnostics)
    assert TOKEN not in cli.journal_json(cid)


def _replay(db_url: str, fake: FakeGitHub, cid: str, call: dict[str, Any]) -> Any:
    """Run the same call of the same user turn again, as a provider replaying it would (with
    another call id): the key is the same, so the ledger answers and nothing is sent."""
    from gymnasia.app import open_coach

    coach = open_coach(db=db_url, lang="en", github_api_url=fake.base_url)
    try:
        replay = ToolCall("provider_replay_1", call["name"], call["arguments"])
        state = _approved(coach.agent.executor, replay, cid)
        batch = asyncio.run(coach.agent.executor.run_batch([replay], state))
    finally:
        coach.close()
    [record] = batch.records
    assert record.executed is False
    return record.outcome


def test_missing_token_sends_nothing(sqlite_cli_for: Callable[..., Cli]) -> None:
    """Without GITHUB_TOKEN the approved call is not_applied with the configure message and
    the server receives no request at all."""
    with FakeGitHub("ok") as fake:
        cli = sqlite_cli_for(fake)
        del cli.env["GITHUB_TOKEN"]
        _, approved = cli.ask_and_approve(ASK, "--github-api-url", fake.base_url)
        assert fake.requests == []
        [write] = cli.json("writes")
    envelope = approved["tool_calls"][0]["outcome"]
    assert envelope["error"] == "not_applied"
    assert "GITHUB_TOKEN" in envelope["message"]
    assert write["state"] == "failed"


def test_chat_takes_the_github_api_url_option(sqlite_url: str) -> None:
    """`gymnasia chat --github-api-url URL` sends the approved feature request there (the
    environment names no API URL)."""
    with FakeGitHub("ok", token=TOKEN) as fake:
        env = _env(fake)
        del env["GYMNASIA_GITHUB_API_URL"]
        proc = subprocess.run(
            [*CHAT, "--db", sqlite_url, "--github-api-url", fake.base_url, "--no-stream"],
            input=f"{ASK}\ny\n",
            env=env,
            capture_output=True,
            text=True,
            timeout=CLI_TIMEOUT,
            check=False,
        )
        assert len(fake.posts) == 1
    assert proc.returncode == 0, proc.stderr
    assert f"https://github.com/{REPO}/issues/1" in proc.stdout
    assert TOKEN not in proc.stdout + proc.stderr
