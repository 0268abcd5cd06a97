"""The pinned MLIR bindings are the ones installed, and only one module imports them."""

import re

from tcgen05_lower import bindings

from conftest import ROOT


def test_pinned_version_is_installed():
    assert bindings.installed_bindings_version() == bindings.MLIR_BINDINGS_VERSION


def test_only_the_bindings_module_imports_mlir():
    importers = []
    for path in ROOT.glob("**/*.py"):
        if any(part in (".venv", "build", "lit_tests") for part in path.parts):
            continue
        text = path.read_text()
        if re.search(r"^\s*(from mlir\b|import mlir\b)", text, re.M):
            importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["tcgen05_lower/bindings.py"]


def test_pyproject_pins_the_same_version():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'"{bindings.MLIR_BINDINGS_DISTRIBUTION}=={bindings.MLIR_BINDINGS_VERSION}"' in pyproject


def test_every_package_is_listed_in_pyproject():
    """A subpackage missing from pyproject's explicit list would be absent from a normal
    (non-editable) install, which is what CI and new users get."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).glob("**/__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *relative)))
    assert found <= listed, sorted(found - listed)
