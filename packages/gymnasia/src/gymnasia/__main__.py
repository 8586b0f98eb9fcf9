"""``python -m gymnasia``."""

from .cli import main

main()
