"""Test doubles for code built on surefoot: scripted models and (with the providers extra)
fake provider servers that speak the real wire formats on 127.0.0.1."""

from ._models import FunctionModel, ScriptedModel, Step, call, turn

__all__ = ["FunctionModel", "ScriptedModel", "Step", "call", "turn"]
