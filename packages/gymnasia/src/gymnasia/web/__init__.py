"""Gymnasia's web app: ``create_app`` builds it; ``gymnasia serve`` runs it with uvicorn."""

from .server import create_app

__all__ = ["create_app"]
