"""``Arguments``: the base of nested argument models.

It lives apart from ``_tools`` because defining a pydantic model loads pydantic's model
machinery; ``surefoot`` imports this module only when an app first asks for ``Arguments``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Arguments(BaseModel):
    """Base for nested argument models: strict types, no extra fields. Its validator is
    built when first needed (a tool's own argument model is built at once, with every nested
    model in it)."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, defer_build=True)
