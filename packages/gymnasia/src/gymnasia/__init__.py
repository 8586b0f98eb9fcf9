"""Gymnasia Coach: a fitness coach over the user's own data, the proving ground of surefoot."""

__all__: list[str] = []
