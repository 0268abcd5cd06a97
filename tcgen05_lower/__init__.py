"""tcgen05-lower: plans tensor memory, data-path layouts and synchronization for NVIDIA
Blackwell's tcgen05 instructions (PTX ISA 9.7.16) and lowers them to PTX."""

__version__ = "0.1.0"


def _from_a_checkout() -> None:
    """In the repository, ``dialect/`` and ``passes/`` sit beside this package (setuptools
    installs them as its subpackages). Python run from the repository root finds this
    directory before the installed package, and then ``tcgen05_lower.passes`` would not be
    found: a finder at the end of ``sys.meta_path`` maps the two names to the checkout's
    directories (an installed or editable package is found before it gets asked)."""
    import importlib.abc
    import importlib.util
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    if not (root / "pyproject.toml").is_file():
        return
    mapped = {f"{__name__}.{name}": root / name for name in ("passes", "dialect")
              if (root / name / "__init__.py").is_file()}

    class CheckoutFinder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path=None, target=None):
            directory = mapped.get(fullname)
            if directory is None:
                return None
            return importlib.util.spec_from_file_location(
                fullname, directory / "__init__.py",
                submodule_search_locations=[str(directory)])

    if mapped and not any(type(f).__name__ == "CheckoutFinder" for f in sys.meta_path):
        sys.meta_path.append(CheckoutFinder())


_from_a_checkout()
del _from_a_checkout
