"""Grounding: declare which arguments of a write must come from the person's own words.

``Grounded.number("kg")`` and ``Grounded.date()`` go in ``ToolSet.tool(grounded={...})``;
see ``docs/concepts/grounding.md`` for what is checked and what it cannot see."""

from ._grounding import UNITS, Grounded

__all__ = ["UNITS", "Grounded"]
