"""Feature requests as GitHub issues: Gymnasia's one write with an effect outside its database.

``create_feature_issue(title, description)`` opens an issue in the project's GitHub repository
(``POST /repos/{owner}/{repo}/issues``). The effect lives on GitHub, not in the ledger's
database, so the tool is neither atomic nor idempotent (two posts are two issues). It is made
safe the other way round: the harness's idempotency key travels inside the issue body as an
invisible HTML comment (``<!-- surefoot-key: KEY -->``), and the ``reconcile`` hook looks for it
among the repository's recent issues whenever the harness cannot tell whether a post landed.

How each answer becomes an outcome (docs/feedback.md explains every row)::

    201 Created                      success {number, url, title}       → ledger: committed
    422 Unprocessable Entity         ToolError rejected, choose_alternative (nothing created)
    401 / 403 / 404                  ToolError not_applied, stop_turn: configure token / repo
    other 3xx / 4xx, rate limits     ToolError not_applied, stop_turn (GitHub refused it)
    connection refused, DNS failure  ToolError not_applied, stop_turn (nothing was sent)
    missing repository or token      ToolError not_applied, stop_turn (no request is made)
    read timeout, reset after send,
    5xx, any other transport error   raises → the harness asks the hook, else outcome_unknown

The request goes through ``httpx`` with transport retries off and explicit timeouts: a write
is sent at most once per approved call. The token is sent only in the
``Authorization`` header; it is kept out of every message, result, exception and ``repr``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Final

from pydantic import Field

from surefoot import (
    ErrorCode,
    Lang,
    Ok,
    ReconcileResult,
    Recovery,
    ToolContext,
    ToolError,
    ToolSet,
)

from .faults import Faults
from .texts import t

if TYPE_CHECKING:
    import httpx

DEFAULT_API_URL: Final = "https://api.github.com"
REPO_VARIABLE: Final = "GYMNASIA_FEEDBACK_REPO"
TOKEN_VARIABLE: Final = "GITHUB_TOKEN"  # noqa: S105 - the variable's name, not a token
API_URL_VARIABLE: Final = "GYMNASIA_GITHUB_API_URL"
CONNECT_TIMEOUT_VARIABLE: Final = "GYMNASIA_FEEDBACK_CONNECT_TIMEOUT"
READ_TIMEOUT_VARIABLE: Final = "GYMNASIA_FEEDBACK_READ_TIMEOUT"

_REPO: Final = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_KEY: Final = re.compile(r"[A-Za-z0-9_]+")

Title = Annotated[str, Field(min_length=1, max_length=200)]
Description = Annotated[str, Field(max_length=5000, description="What it should do, and why")]


def marker(key: str) -> str:
    """The invisible line that carries the harness's idempotency key in an issue body."""
    if not _KEY.fullmatch(key):
        msg = "an idempotency key is letters, digits and _ only"
        raise ValueError(msg)
    return f"<!-- surefoot-key: {key} -->"


@dataclass(frozen=True, slots=True)
class FeedbackSettings:
    """Where feature requests go, and how long to wait for GitHub."""

    repo: str | None = None
    """``owner/name`` of the repository that receives the issues."""
    token: str | None = field(default=None, repr=False)
    """A GitHub token allowed to create issues there (never shown anywhere)."""
    api_url: str = DEFAULT_API_URL
    connect_timeout: float = 5.0
    read_timeout: float = 10.0

    @classmethod
    def from_env(
        cls, *, api_url: str | None = None, environ: Mapping[str, str] | None = None
    ) -> FeedbackSettings:
        """Settings from ``GYMNASIA_FEEDBACK_REPO``, ``GITHUB_TOKEN``,
        ``GYMNASIA_GITHUB_API_URL`` and the two timeout variables; ``api_url`` wins if given."""
        env = os.environ if environ is None else environ
        return cls(
            repo=env.get(REPO_VARIABLE) or None,
            token=env.get(TOKEN_VARIABLE) or None,
            api_url=api_url or env.get(API_URL_VARIABLE) or DEFAULT_API_URL,
            connect_timeout=_seconds(env.get(CONNECT_TIMEOUT_VARIABLE), 5.0),
            read_timeout=_seconds(env.get(READ_TIMEOUT_VARIABLE), 10.0),
        )

    @property
    def configured(self) -> bool:
        """Whether a repository (``owner/name``) and a token are set."""
        return bool(self.token) and self.repo is not None and bool(_REPO.fullmatch(self.repo))


def _seconds(value: str | None, default: float) -> float:
    try:
        seconds = float(value) if value else default
    except ValueError:
        return default
    return seconds if seconds > 0 else default


class OutcomeUnknownError(RuntimeError):
    """The request may have reached GitHub, but its answer was lost or not a clear result.

    Raised on purpose, so the harness's boundary keeps it in the local diagnostics and settles
    the write as ``outcome_unknown`` unless the reconcile hook finds the issue. Its text names
    the method, path and failure kind only: never the token, never a response body."""


class GitHubIssues:
    """The two calls the tool needs: create an issue (once), find one by its key."""

    def __init__(
        self, settings: FeedbackSettings, *, transport: httpx.BaseTransport | None = None
    ) -> None:
        self.settings = settings
        self._transport = transport

    @property
    def path(self) -> str:
        """``/repos/{owner}/{repo}/issues``."""
        return f"/repos/{self.settings.repo}/issues"

    def create(self, key: str, title: str, description: str, lang: Lang) -> Ok | ToolError:
        """POST the issue once and map GitHub's answer (see the module's table)."""
        if not self.settings.configured:
            return _not_applied(lang, "feedback_not_configured")
        try:
            import httpx
        except ImportError:  # installed without the 'providers' extra: nothing can be sent
            return _not_applied(lang, "feedback_unreachable")

        body = {"title": title, "body": f"{description}\n\n{marker(key)}".lstrip()}
        try:
            with self._client() as client:
                response = client.post(self.path, json=body)
        except (
            httpx.InvalidURL,
            httpx.UnsupportedProtocol,
            httpx.ConnectError,
            httpx.ConnectTimeout,
            httpx.PoolTimeout,
        ):
            # No connection was made (bad URL, refused, DNS failure, no route, no free
            # connection in time), so not one byte of the request left: nothing was created.
            return _not_applied(lang, "feedback_unreachable")
        except httpx.TransportError as exc:
            # Read timeout, connection reset or closed after sending, write failure: the
            # request may have been processed. Only GitHub knows; raising lets the harness
            # ask the reconcile hook and, if that can't tell, report outcome_unknown.
            msg = f"POST {self.path}: {type(exc).__name__}: the answer was lost"
            raise OutcomeUnknownError(msg) from exc
        return self._created(response, lang)

    def _created(self, response: httpx.Response, lang: Lang) -> Ok | ToolError:
        status = response.status_code
        if status == 201:
            # Created: the answer carries the issue, so the harness records it as committed.
            data = _issue_data(_json(response))
            if data is None:
                msg = f"POST {self.path}: HTTP 201 without a readable issue in the body"
                raise OutcomeUnknownError(msg)
            return Ok(data)
        if status == 422:
            # Validation failed: GitHub created nothing; other wording may be accepted.
            return ToolError("rejected", t(lang, "feedback_rejected"), Recovery.CHOOSE_ALTERNATIVE)
        if status in (403, 429) and _rate_limited(response):
            # Rate limits are decided before the request is processed: nothing was created.
            return _not_applied(lang, "feedback_rate_limited")
        if status in (401, 403, 404):
            # Bad or insufficient token, or no such (visible) repository: refused before
            # anything was created, and asking again will not help until it is configured.
            return _not_applied(lang, "feedback_access", repo=self.settings.repo, status=status)
        if 300 <= status < 500:
            # Another refusal (400, 410 issues disabled, a redirect we do not follow):
            # a 3xx/4xx answer to a POST means it was not carried out.
            return _not_applied(lang, "feedback_refused", status=status)
        # 5xx (or a 1xx/2xx we did not ask for): a gateway may answer 502/504 after GitHub
        # created the issue, so this proves nothing either way.
        msg = f"POST {self.path}: HTTP {status}"
        raise OutcomeUnknownError(msg)

    def find(self, key: str, arguments: dict[str, Any]) -> ReconcileResult:
        """The reconcile hook: the issue whose body carries ``key``'s marker, among the
        repository's 100 most recent issues. Not finding it proves nothing (the listing may
        lag, or more issues came after), so the answer is then None, never "absent"."""
        del arguments
        if not self.settings.configured:
            return None
        import httpx

        params = {"state": "all", "per_page": "100", "sort": "created", "direction": "desc"}
        try:
            with self._client() as client:
                response = client.get(self.path, params=params)
        except httpx.HTTPError:
            return None
        issues = _json(response) if response.status_code == 200 else None
        if not isinstance(issues, list):
            return None
        wanted = marker(key)
        for issue in issues:
            if isinstance(issue, dict) and wanted in str(issue.get("body") or ""):
                data = _issue_data(issue)
                return Ok(data) if data is not None else None
        return None

    def _client(self) -> httpx.Client:
        import httpx

        settings = self.settings
        timeout = httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.connect_timeout,
        )
        return httpx.Client(
            base_url=settings.api_url.rstrip("/"),
            # retries=0: httpx retries only failed connects, but a write path runs with every
            # retry off, explicitly. A given transport (tests) replaces it.
            transport=self._transport or httpx.HTTPTransport(retries=0),
            timeout=timeout,
            follow_redirects=False,
            headers={
                "accept": "application/vnd.github+json",
                "authorization": f"Bearer {settings.token}",
                "user-agent": "gymnasia-coach",
                "x-github-api-version": "2022-11-28",
            },
        )


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _issue_data(issue: object) -> dict[str, Any] | None:
    if not isinstance(issue, dict) or not isinstance(issue.get("number"), int):
        return None
    return {
        "number": issue["number"],
        "url": str(issue.get("html_url") or ""),
        "title": str(issue.get("title") or ""),
    }


def _rate_limited(response: httpx.Response) -> bool:
    headers = response.headers
    return "retry-after" in headers or headers.get("x-ratelimit-remaining") == "0"


def _not_applied(lang: Lang, name: str, **values: object) -> ToolError:
    return ToolError(ErrorCode.NOT_APPLIED, t(lang, name, **values), Recovery.STOP_TURN)


def register_feedback_tools(
    tools: ToolSet,
    *,
    settings: FeedbackSettings | None = None,
    faults: Faults | None = None,
    transport: httpx.BaseTransport | None = None,
) -> None:
    """Add ``create_feature_issue`` to ``tools`` (settings from the environment if not given;
    ``transport`` replaces the network, for tests)."""
    github = GitHubIssues(settings or FeedbackSettings.from_env(), transport=transport)
    faults = faults or Faults()

    @tools.tool(
        effect="write",
        confirm=True,
        destructive=False,
        reconcile=github.find,
    )
    def create_feature_issue(
        ctx: ToolContext, title: Title, description: Description
    ) -> Ok | ToolError:
        """Propose a new Gymnasia feature to its developers as an issue in its public GitHub
        repository (a person confirms; each call opens another). Never put the user's personal
        or health data in it."""
        assert ctx.key is not None  # a write always runs with its harness-minted key
        faults.before_commit(ctx)
        outcome = github.create(ctx.key, title, description, ctx.lang)
        if isinstance(outcome, Ok):
            faults.after_commit(ctx)
        return outcome


__all__ = [
    "DEFAULT_API_URL",
    "FeedbackSettings",
    "GitHubIssues",
    "OutcomeUnknownError",
    "marker",
    "register_feedback_tools",
]
