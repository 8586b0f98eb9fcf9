"""Fault injection for QA and tests: off by default, loudly reported when on.

``--fault TOOL:MODE`` makes a named tool's storage fail, for every call of that tool for the
process's life:

* ``read_error``     a read tool's storage read raises;
* ``before_commit``  a write raises inside its transaction, before commit: nothing persists;
* ``after_commit``   the transaction (effect + ledger record) commits, then the handler raises:
                     the acknowledgement is lost, the ledger knows the truth;
* ``ambiguous``      like ``after_commit``, and the harness is not allowed to verify.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from surefoot import ToolContext

FaultMode = Literal["read_error", "before_commit", "after_commit", "ambiguous"]
READ_MODES: Final = frozenset({"read_error"})
WRITE_MODES: Final = frozenset({"before_commit", "after_commit", "ambiguous"})


class InjectedFault(RuntimeError):  # noqa: N818 - it is a fault, by name and on purpose
    """The failure a fault injects (its text stays in local diagnostics)."""


class FaultSpecError(ValueError):
    """A ``TOOL:MODE`` pair that does not fit the tools."""


@dataclass(frozen=True)
class Faults:
    """Which tool fails how."""

    modes: Mapping[str, FaultMode] = field(default_factory=dict)

    @classmethod
    def parse(cls, specs: Iterable[str], effects: Mapping[str, str]) -> Faults:
        """Parse ``TOOL:MODE`` pairs against ``effects`` (tool name → read/write)."""
        modes: dict[str, FaultMode] = {}
        for spec in specs:
            tool, sep, mode = spec.partition(":")
            if not sep or tool not in effects:
                msg = f"unknown tool {tool!r}" if sep else "use TOOL:MODE"
                raise FaultSpecError(msg)
            allowed = READ_MODES if effects[tool] == "read" else WRITE_MODES
            if mode not in allowed:
                msg = (
                    f"{tool} is a {effects[tool]} tool; its modes are {', '.join(sorted(allowed))}"
                )
                raise FaultSpecError(msg)
            modes[tool] = mode  # type: ignore[assignment]
        return cls(modes)

    def __bool__(self) -> bool:
        return bool(self.modes)

    def describe(self) -> str:
        """``tool:mode, ...`` for banners."""
        return ", ".join(f"{tool}:{mode}" for tool, mode in sorted(self.modes.items()))

    def on_read(self, tool: str) -> None:
        """Raise if ``tool``'s storage reads are set to fail."""
        if self.modes.get(tool) == "read_error":
            msg = f"injected read failure in {tool}"
            raise InjectedFault(msg)

    def before_commit(self, ctx: ToolContext) -> None:
        """Raise inside the write's transaction if set to fail before commit."""
        if self.modes.get(ctx.tool) == "before_commit":
            msg = f"injected failure before commit in {ctx.tool}"
            raise InjectedFault(msg)
        if self.modes.get(ctx.tool) == "ambiguous":
            ctx.mark_unverifiable()

    def after_commit(self, ctx: ToolContext) -> None:
        """Raise after the write's transaction committed (the acknowledgement is lost)."""
        if self.modes.get(ctx.tool) in ("after_commit", "ambiguous"):
            msg = f"injected lost acknowledgement after commit in {ctx.tool}"
            raise InjectedFault(msg)
