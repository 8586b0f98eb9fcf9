"""What the Coach's first request costs a small local model: characters, tokens, seconds.

A model on llama-server reads every tool declaration before its first word, so the first
request of ``gymnasia ask`` is mostly declarations. For each representative first message
this prints, side by side, the characters of system prompt + tools as the OpenAI-compatible
adapter sends them:

* before: the tree at ``--before`` (default: the commit before compact schemas, tight
  descriptions and the offer policy), exported with ``git archive`` and run in its own
  process: all 23 tools, pydantic's anyOf-null optionals, the long descriptions;
* after: this tree, the tools ``gymnasia.offer`` offers for that message.

When a llama-server answers at ``--server`` (``/health``), it also prints the prompt tokens
its template and tokenizer make of each request (``/apply-template`` + ``/tokenize``, which
compute nothing), and, for one message, the ``usage.prompt_tokens`` and wall time of a real
request (``max_tokens`` 1) cold (a prompt the server has not cached) and warm (the same again).
It does not start or stop the server. Figures are printed, never asserted.

Run:  .venv/bin/python benchmarks/bench_prompt.py [--before REV] [--no-completions]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "8205d91"
TODAY = dt.date(2026, 1, 5)
MESSAGES = (
    "hola",
    "Peso 80 kg hoy",
    "Corrige el peso de ayer, era 79",
    "¿Qué comí ayer en la cena?",
    "No almoço comi 150 g de frango",
    "Crea una rutina de fuerza con sentadillas y press de banca",
    "Remember that I prefer running to cycling",
    "Sugiere la función: modo oscuro. Para entrenar de noche",
    (
        "Registra mi peso 80 kg, borra la rutina Push, anota que prefiero correr, comí 200 g de "
        "arroz y sugiere una función para la app"
    ),
)
TIMED = "Peso 80 kg hoy"

# Runs in the process of either tree: the first request's body for each message (argv[3:]),
# with every tool (``all``) or the ones the agent offers (``offered``, this tree only).
FIRST_REQUESTS = """
import datetime as dt, json, sys, tempfile, os
from gymnasia.app import open_coach
from surefoot import ModelRequest
from surefoot.messages import UserMessage
from surefoot.providers.openai_chat import build_request
from surefoot.testing import FunctionModel, turn
mode, today, texts = sys.argv[1], dt.date.fromisoformat(sys.argv[2]), sys.argv[3:]
db = os.path.join(tempfile.mkdtemp(), "bench.db")
coach = open_coach(db=db, model=FunctionModel(lambda _: turn("ok")), today=today)
out = {}
for text in texts:
    messages = (UserMessage(text),)
    specs = coach.agent.tools.specs() if mode == "all" else coach.agent.offered(messages)
    request = ModelRequest(messages=messages, tools=specs, system=coach.agent.system)
    body = build_request(request, model="local", max_tokens=1)
    tools = json.dumps(body.get("tools", []), ensure_ascii=False)
    out[text] = {"chars": len(coach.agent.system) + len(tools), "tools": len(specs), "body": body}
coach.close()
print(json.dumps(out, ensure_ascii=False))
"""


def first_requests(tree: Path, mode: str) -> dict[str, dict[str, Any]]:
    """The first request of each message, built by the code of ``tree``."""
    src = [tree / "packages" / "surefoot" / "src", tree / "packages" / "gymnasia" / "src"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, src))}
    env = {k: v for k, v in env.items() if not k.startswith("GYMNASIA_")}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_REQUESTS, mode, TODAY.isoformat(), *MESSAGES],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return result


def exported(rev: str, into: Path) -> Path | None:
    """The tree at ``rev`` written under ``into`` (None: git could not give it)."""
    archive = into / "before.tar"
    try:
        with archive.open("wb") as out:
            subprocess.run(
                ["git", "-C", str(ROOT), "archive", rev, "packages"],
                stdout=out,
                check=True,
                timeout=120,
            )
    except (OSError, subprocess.SubprocessError):
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def server_up(base: str) -> bool:
    """Whether a llama-server answers ``/health`` with ok."""
    try:
        answer = httpx.get(f"{base}/health", timeout=3)
    except httpx.HTTPError:
        return False
    return answer.status_code == 200 and answer.json().get("status") == "ok"


def prompt_tokens(base: str, body: dict[str, Any]) -> int:
    """The tokens the server's template and tokenizer make of ``body`` (nothing computed)."""
    shown = {"messages": body["messages"], "tools": body.get("tools", [])}
    prompt = httpx.post(f"{base}/apply-template", json=shown, timeout=60).json()["prompt"]
    tokens = httpx.post(f"{base}/tokenize", json={"content": prompt}, timeout=60).json()
    return len(tokens["tokens"])


def completion(base: str, body: dict[str, Any]) -> tuple[int, float]:
    """``usage.prompt_tokens`` and wall seconds of one real request of ``body``."""
    started = time.perf_counter()
    answer = httpx.post(
        f"{base}/v1/chat/completions", json={**body, "max_tokens": 1}, timeout=900
    ).json()
    return int(answer["usage"]["prompt_tokens"]), time.perf_counter() - started


def main() -> None:
    """Print the before/after figures of each first message."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="the revision measured as before")
    parser.add_argument("--server", default="http://127.0.0.1:8088")
    parser.add_argument("--no-completions", action="store_true", help="only count tokens")
    args = parser.parse_args()
    after = first_requests(ROOT, "offered")
    with tempfile.TemporaryDirectory() as scratch:
        tree = exported(args.before, Path(scratch))
        before = first_requests(tree, "all") if tree is not None else None
    if before is None:
        print(f"before: the tree at {args.before} could not be exported; only after is shown")
    up = server_up(args.server)
    print("first request: system prompt + tools, in characters as sent (tokens: llama-server)")
    print(
        f"{'message':<44} {'before':>7} {'after':>7} {'tools':>5} {'tok before':>10} {'after':>6}"
    )
    for text in MESSAGES:
        was = before[text] if before else None
        now = after[text]
        tokens = ("-", "-")
        if up:
            tokens = (
                str(prompt_tokens(args.server, was["body"])) if was else "-",
                str(prompt_tokens(args.server, now["body"])),
            )
        shown = text if len(text) <= 42 else text[:39] + "..."
        old = str(was["chars"]) if was else "-"
        print(
            f"{shown:<44} {old:>7} {now['chars']:>7} {now['tools']:>5}"
            f" {tokens[0]:>10} {tokens[1]:>6}"
        )
    if not up:
        print(f"tokens not measured: no llama-server answers at {args.server}/health")
        return
    if args.no_completions:
        return
    print(f"\none real request of {TIMED!r} (max_tokens 1): prompt tokens, cold and warm seconds")
    for label, runs in (("before", before), ("after", after)):
        if runs is None:
            continue
        body = runs[TIMED]["body"]
        # a nonce in the system prompt: the server has not cached this prompt (cold)
        cold_body = json.loads(json.dumps(body))
        cold_body["messages"][0]["content"] = (
            f"[{time.time_ns()}] " + body["messages"][0]["content"]
        )
        used, cold = completion(args.server, cold_body)
        _, warm = completion(args.server, cold_body)
        print(f"{label:<7} {used:>6} tokens  cold {cold:7.1f} s  warm {warm:6.1f} s")


if __name__ == "__main__":
    main()
