"""tcgen05-lower: plans tensor memory, data-path layouts and synchronization for NVIDIA
Blackwell's tcgen05 instructions (PTX ISA 9.7.16) and lowers them to PTX."""

__version__ = "0.1.0"


def _from_a_checkout() -> None:
    """In the repository, ``dialect/`` and ``passes/`` sit beside this package (setuptools
    installs them as its subpackages). Python run from the repository root finds this
    directory before the installed package, so the checkout's root is added to the
    package's search path: ``tcgen05_lower.passes`` is ``passes/`` there as it is in the
    installed package."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "passes" / "__init__.py").is_file() \
            and (root / "dialect" / "__init__.py").is_file():
        __path__.append(str(root))


_from_a_checkout()
del _from_a_checkout
