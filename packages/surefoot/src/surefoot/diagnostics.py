"""Diagnostics: what an unexpected failure looked like (exception, traceback, the call), kept
for the operator and never shown to the model; secrets removed by a ``Redactor``."""

from ._diagnostics import Diagnostic, DiagnosticsSink, MemoryDiagnostics, Redactor

__all__ = ["Diagnostic", "DiagnosticsSink", "MemoryDiagnostics", "Redactor"]
