"""Shared paths, and a skip for tests that need ptxas when it is absent."""

from pathlib import Path

import pytest

from tcgen05_lower.backend import find_ptxas

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

requires_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
