"""The installed package holds every subpackage of the checkout: pyproject.toml lists its
packages one by one, so a new folder under tcgen05_lower/ that is not listed imports from
the checkout (tests pass) but is missing from `pip install .` (the tools fail)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {"tcgen05_lower." + ".".join(path.parent.relative_to(ROOT / "tcgen05_lower").parts)
               for path in (ROOT / "tcgen05_lower").rglob("__init__.py")}
    folders = {name.rstrip(".") for name in folders}
    mapped = set(config.get("package-dir", {}))
    assert folders - listed == set(), "not installed: " + ", ".join(sorted(folders - listed))
    assert mapped <= listed
