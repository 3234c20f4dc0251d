"""What the hook tests share besides the fixtures of tests/conftest.py (``cli``, ``team``, ``home``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

# The ``cli`` fixture's runner (tests/conftest.py ``Cli``): called in-process, or ``.subprocess``.
Cli = Any
