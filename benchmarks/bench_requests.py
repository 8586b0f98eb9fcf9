"""Building a provider request from a long transcript: linear in its length.

Each adapter's pure ``build_request`` maps transcripts of 100, 1,000 and 10,000 messages
(turns of user text, a tool call, its result and the answer) to a request body, once with
unique call ids and once with one id reused for every call (``call_0``, as Ollama and
llama.cpp send). Printed: µs per message at each size and the ratio of the largest to the
smallest per-message cost (linear means close to 1; the target is at most 1.5).

Every sample maps the same number of messages (10,000: one request of 10,000, ten of 1,000 or
a hundred of 100) and keeps the bodies it built until it ends, so each size allocates the same
memory per sample. Timing one small request against one big one instead measures the memory
system too: on this machine even a loop that makes one dict per message costs twice as much
per message at 10,000 as at 100 (fresh arenas and their page faults), which says nothing
about how the mapping grows.

Run:  .venv/bin/python benchmarks/bench_requests.py [--quick]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

from surefoot import ModelRequest, Ok
from surefoot.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCall,
    ToolResult,
    ToolResultsMessage,
    ToolSpec,
    UserMessage,
)
from surefoot.providers import anthropic, google_interactions, openai_chat, openai_responses

SIZES = (100, 1_000, 10_000)
SPEC = ToolSpec("read_item", "Read one item.", {"type": "object", "properties": {}})

Builder = Callable[[ModelRequest], dict[str, Any]]
BUILDERS: dict[str, Builder] = {
    "anthropic": lambda r: anthropic.build_request(r, model="m", max_tokens=64),
    "openai": lambda r: openai_responses.build_request(r, model="m", max_tokens=64),
    "google": lambda r: google_interactions.build_request(r, model="m", max_tokens=64),
    "openai-chat": lambda r: openai_chat.build_request(r, model="m", max_tokens=64),
}


def transcript(size: int, *, reused: bool) -> ModelRequest:
    """``size`` messages in turns of four: user, a call, its result, the answer."""
    messages: list[Message] = []
    for index in range(size // 4):
        call_id = "call_0" if reused else f"call_{index}"
        call = ToolCall(call_id, "read_item", {"n": index}, raw_arguments=f'{{"n": {index}}}')
        messages += [
            UserMessage(f"item {index}?"),
            AssistantMessage((call,), finish="tool_use", provider="openai-chat", model="m"),
            ToolResultsMessage((ToolResult(call_id, "read_item", Ok({"n": index})),)),
            AssistantMessage((TextPart(f"item {index} is here"),), provider="openai-chat"),
        ]
    return ModelRequest(messages=tuple(messages), tools=(SPEC,), system="be brief")


PER_SAMPLE = max(SIZES)


def sample_us(build: Builder, request: ModelRequest) -> float:
    """µs per message of one sample: ``PER_SAMPLE`` messages mapped, the bodies kept."""
    copies = PER_SAMPLE // len(request.messages)
    started = time.perf_counter_ns()
    kept = [build(request) for _ in range(copies)]
    elapsed = time.perf_counter_ns() - started
    del kept
    return elapsed / 1000 / (copies * len(request.messages))


def measure(requests: dict[int, ModelRequest], build: Builder, rounds: int) -> list[float]:
    """Median µs per message at each size; sizes interleaved round by round."""
    samples: dict[int, list[float]] = {size: [] for size in requests}
    sample_us(build, requests[SIZES[0]])  # warm up
    for _ in range(rounds):
        for size, request in requests.items():
            samples[size].append(sample_us(build, request))
    return [statistics.median(samples[size]) for size in SIZES]


def main() -> None:
    """Measure every adapter at every size, both id styles, and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    options = parser.parse_args()
    rounds = 3 if options.quick else 9
    transcripts = {
        reused: {size: transcript(size, reused=reused) for size in SIZES}
        for reused in (False, True)
    }
    gc.collect()
    gc.freeze()  # the transcripts live all run long: collections need not walk them
    header = "".join(f"{f'{size} msgs':>11}" for size in SIZES)
    print(f"µs per message{'':24}{header}  largest/smallest")
    worst = 0.0
    for name, build in BUILDERS.items():
        for reused in (False, True):
            costs = measure(transcripts[reused], build, rounds)
            ratio = max(costs) / min(costs)
            worst = max(worst, ratio)
            label = f"{name} ({'call_0 reused' if reused else 'unique ids'})"
            cells = "".join(f"{cost:11.2f}" for cost in costs)
            print(f"{label:38}{cells}  {ratio:8.2f}")
    verdict = "within" if worst <= 1.5 else "OVER"
    print(f"\nworst largest/smallest per-message ratio: {worst:.2f} ({verdict} the 1.5 target)")


if __name__ == "__main__":
    main()
