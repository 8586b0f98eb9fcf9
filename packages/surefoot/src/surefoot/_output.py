"""Typed final output: ``Agent(output_type=SomeModel)``.

The final answer (a response with text and no calls) must be a JSON object that validates as
the output type. Adapters ask the API for that schema natively where it can (structured
outputs: OpenAI's ``response_format`` / ``text.format``, Anthropic's ``output_config``, Google's
``response_format``); the system prompt states it for every model; and the harness validates
it whatever the provider promised. A bad answer is sent back for correction with what is wrong
(a ``HarnessNote``, the same idea as ``correct_arguments``), at most ``output_retries`` times;
then the turn ends with ``invalid_output`` and the harness's reply. The validated value is
``TurnResult.output``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from ._exceptions import ConfigurationError
from ._texts import Lang, text
from ._tools import _detail

if TYPE_CHECKING:
    from pydantic import BaseModel, TypeAdapter

_FENCE = re.compile(r"\A\s*```(?:json)?\s*\n(?P<body>.*?)\n?\s*```\s*\Z", re.DOTALL)


class OutputSpec:
    """What a final answer must be: ``output_type`` and its JSON Schema."""

    def __init__(self, output_type: Any) -> None:
        from pydantic import BaseModel, TypeAdapter

        try:
            self.adapter: TypeAdapter[Any] = TypeAdapter(output_type)
            schema = self.adapter.json_schema()
        except Exception as exc:  # noqa: BLE001 - pydantic's many ways of refusing a type
            msg = f"output_type {output_type!r} cannot become a JSON Schema: {exc}"
            raise ConfigurationError(msg) from None
        if schema.get("type") != "object":
            msg = (
                f"output_type {output_type!r} must describe a JSON object (a pydantic model, a "
                "dataclass or a TypedDict): every API's structured output is an object"
            )
            raise ConfigurationError(msg)
        self.schema: dict[str, Any] = schema
        is_model = isinstance(output_type, type) and issubclass(output_type, BaseModel)
        self.model: type[BaseModel] | None = output_type if is_model else None

    def instruction(self, lang: Lang) -> str:
        """What the system prompt tells every model about its final answer."""
        schema = json.dumps(self.schema, ensure_ascii=False, separators=(",", ":"))
        return text(lang, "output_instruction", schema=schema)

    def parse(self, answer: str, lang: Lang) -> tuple[bool, Any, str]:
        """``(True, value, "")`` for a valid answer, ``(False, None, problems)`` otherwise."""
        from pydantic import ValidationError

        found = _FENCE.match(answer)
        body = found["body"] if found else answer.strip()
        try:
            data = json.loads(body)
        except ValueError:
            return False, None, text(lang, "output_not_json")
        if not isinstance(data, dict):
            return False, None, text(lang, "output_not_json")
        try:
            return True, self.adapter.validate_python(data), ""
        except ValidationError as exc:
            return False, None, self._problems(exc, lang)

    def _problems(self, exc: Any, lang: Lang) -> str:
        model = self.model
        if model is None:
            return "; ".join(f"{_loc(e)}: {e.get('msg', '')}" for e in exc.errors())
        details = [_detail(e, model, lang) for e in exc.errors()]
        return "; ".join(
            f"{d.field}: {d.problem}" + (f" ({d.expected})" if d.expected else "") for d in details
        )


def _loc(error: dict[str, Any]) -> str:
    return ".".join(str(part) for part in error.get("loc", ())) or "$"
