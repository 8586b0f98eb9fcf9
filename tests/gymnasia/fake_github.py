"""A fake of GitHub's issues API on 127.0.0.1, for the feature-request tool's tests.

It serves ``POST /repos/{owner}/{repo}/issues`` and ``GET`` of the same path (the listing the
reconcile hook reads), counts every POST it receives and keeps the issues it created. ``mode``
says how it answers a POST:

* ``ok``            creates the issue, answers 201 with it;
* ``slow``          takes the issue in (it is counted and numbered) but only finishes creating
                    it ``delay`` seconds later, then answers 201 — after the client's read
                    timeout; until then the listing does not show it, as a slow backend would;
* ``reject``        answers 422 Validation Failed, creates nothing;
* ``unauthorized``  answers 401 Bad credentials, creates nothing;
* ``bad_gateway``   creates the issue, then answers 502 (a gateway that gave up too early);
* ``refuse``        nothing listens: ``base_url`` points at a port that was allocated and
                    closed, so connecting is refused.

Import it from a test module after ``sys.path.insert(0, str(Path(__file__).parent))``.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, Literal

from surefoot.testing._http import FakeHTTPServer, RecordedRequest, Reply

Mode = Literal["ok", "slow", "reject", "unauthorized", "bad_gateway", "refuse"]
MODES: tuple[Mode, ...] = ("ok", "slow", "reject", "unauthorized", "bad_gateway", "refuse")


def closed_port() -> int:
    """A loopback port that was free a moment ago and has nothing listening now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class FakeGitHub(FakeHTTPServer):
    """GitHub's issues endpoints for one repository, answering POSTs as ``mode`` says."""

    def __init__(
        self,
        mode: Mode = "ok",
        *,
        repo: str = "gymnasia/coach",
        token: str | None = None,
        delay: float = 2.0,
    ) -> None:
        super().__init__()
        self.mode: Mode = mode
        self.repo = repo
        self.token = token
        self.delay = delay
        self.issues: list[dict[str, Any]] = []
        """Issues the listing shows, oldest first."""
        self.settled = threading.Event()
        """Set once a slow POST has finished creating its issue."""
        self._numbers = iter(range(1, 1_000_000))
        self._refused_port: int | None = None

    # -- what the tests read ----------------------------------------------------------------

    @property
    def posts(self) -> list[RecordedRequest]:
        """Every POST received, in order."""
        return [r for r in self.requests if r.method == "POST"]

    @property
    def base_url(self) -> str:
        """Where the client should go (a closed port in ``refuse`` mode)."""
        if self._refused_port is not None:
            return f"http://127.0.0.1:{self._refused_port}"
        return super().base_url

    def start(self) -> FakeGitHub:
        """Start serving (in ``refuse`` mode: pick a port and leave it closed)."""
        if self.mode == "refuse":
            self._refused_port = closed_port()
            return self
        super().start()
        return self

    def __enter__(self) -> FakeGitHub:
        return self.start()

    # -- answering -------------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Reply:
        """Answer one request like GitHub would, in this server's mode."""
        path = request.path.partition("?")[0]
        if path != f"/repos/{self.repo}/issues":
            return Reply.json(404, {"message": "Not Found"})
        if self.token is not None and request.headers.get("authorization") != (
            f"Bearer {self.token}"
        ):
            return Reply.json(401, {"message": "Bad credentials"})
        if request.method == "GET":
            return Reply.json(200, list(reversed(self.issues)))
        if request.method != "POST":
            return Reply.json(405, {"message": "Method Not Allowed"})
        return self._post(request.body)

    def _post(self, body: Any) -> Reply:
        if self.mode == "unauthorized":
            return Reply.json(401, {"message": "Bad credentials"})
        if self.mode == "reject" or not isinstance(body, dict) or not body.get("title"):
            errors = [{"resource": "Issue", "code": "missing_field", "field": "title"}]
            return Reply.json(422, {"message": "Validation Failed", "errors": errors})
        issue = self._issue(body)
        if self.mode == "slow":
            return Reply(201, self._late(issue), {"content-type": "application/json"})
        self.issues.append(issue)
        if self.mode == "bad_gateway":
            return Reply.json(502, {"message": "Server Error"})
        return Reply.json(201, issue)

    def _issue(self, body: dict[str, Any]) -> dict[str, Any]:
        number = next(self._numbers)
        return {
            "number": number,
            "title": body["title"],
            "body": body.get("body"),
            "state": "open",
            "html_url": f"https://github.com/{self.repo}/issues/{number}",
            "url": f"https://api.github.com/repos/{self.repo}/issues/{number}",
        }

    def _late(self, issue: dict[str, Any]) -> Iterator[bytes]:
        """The slow answer's body, which runs after the status line went out and outside the
        server's lock (a GET meanwhile is answered at once): finish creating the issue after
        ``delay``, then end the body. By then the client has given up and closed; one last
        short write to its socket still succeeds, a second one would fail with a broken pipe,
        so the body stays empty — nobody is left to read it."""
        time.sleep(self.delay)
        self.issues.append(issue)
        self.settled.set()
        yield from ()
