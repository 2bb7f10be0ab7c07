"""Fixtures for the fuzzy tests (helpers live in helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
