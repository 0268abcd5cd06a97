"""The grid of a launch, as the ``grid`` entry of ``tcgen05.kernel`` gives it.

One string per dimension (x, y, z; at most three, a missing one is 1), each

- an integer (``"2"``),
- the name of an integer kernel argument (``"tiles"``), or
- ``ceildiv(a, b)`` with ``a`` an integer or argument name and ``b`` a positive integer
  (``"ceildiv(N, 256)"``: one CTA per 256 columns, the last one partial).

The launch manifest carries the strings as written, and ``evaluate`` computes the grid
from the argument values (the simulator has its own evaluator: it imports nothing of the
compiler). Pure Python, no MLIR.
"""

from __future__ import annotations

import re

_NAME = r"[A-Za-z_][\w$.-]*"
_CEILDIV = re.compile(rf"^ceildiv\(\s*(\d+|{_NAME})\s*,\s*(\d+)\s*\)$")


#: The most CTAs a grid has along x, y and z: CUDA's maximum grid dimensions for every
#: compute capability from 3.0 (CUDA C++ Programming Guide, "Technical Specifications per
#: Compute Capability": 2^31 - 1 along x, 65535 along y and z), which the range of the
#: special register %nctaid of PTX ISA 10 follows. A launch past them fails.
GRID_LIMITS = (2**31 - 1, 65535, 65535)
AXES = ("x", "y", "z")


class GridError(ValueError):
    """A grid entry that is not one of the forms above, or names no integer argument."""


def parse_dimension(text: str) -> tuple:
    """``("int", n)``, ``("arg", name)`` or ``("ceildiv", int or name, divisor)``."""
    text = text.strip()
    if re.fullmatch(r"\d+", text):
        return ("int", int(text))
    if re.fullmatch(_NAME, text) and text != "ceildiv":
        return ("arg", text)
    m = _CEILDIV.match(text)
    if m:
        a, b = m.group(1), int(m.group(2))
        if b <= 0:
            raise GridError(f"\"{text}\": the divisor must be positive")
        return ("ceildiv", int(a) if a.isdigit() else a, b)
    raise GridError(f"\"{text}\" is not an integer, an argument name or "
                    f"ceildiv(<argument or integer>, <integer>)")


def constant_dimension(parsed: tuple) -> int | None:
    """The value of a parsed dimension that names no argument, else None."""
    if parsed[0] == "int":
        return parsed[1]
    if parsed[0] == "ceildiv" and isinstance(parsed[1], int):
        return -(-parsed[1] // parsed[2])
    return None


def check_limit(axis: int, value: int, text: str | None = None) -> None:
    """GridError if `value` CTAs along `axis` (0, 1, 2: x, y, z) is past GRID_LIMITS."""
    if value > GRID_LIMITS[axis]:
        shown = f"\"{text}\" is {value} CTAs" if text is not None and text.strip() != \
            str(value) else f"{value} CTAs"
        raise GridError(f"{shown} along {AXES[axis]}, past CUDA's limit of "
                        f"{GRID_LIMITS[axis]} for grid dimension {AXES[axis]}")


def grid_arguments(grid, integer_arguments=None) -> set[str]:
    """The argument names the grid uses; GridError for a malformed entry, more than three,
    or (given the names of the kernel's integer arguments) a name that is not one."""
    if len(grid) > 3:
        raise GridError(f"{len(grid)} dimensions; a grid has at most three (x, y, z)")
    names = set()
    for axis, text in enumerate(grid):
        parsed = parse_dimension(text)
        if parsed[0] == "int" and parsed[1] <= 0:
            raise GridError(f"\"{text}\": a grid dimension must be positive")
        constant = constant_dimension(parsed)
        if constant is not None:
            check_limit(axis, constant, text)
        for part in parsed[1:]:
            if isinstance(part, str):
                names.add(part)
    if integer_arguments is not None:
        unknown = sorted(names - set(integer_arguments))
        if unknown:
            have = ", ".join(sorted(integer_arguments)) or "none"
            raise GridError(f"{', '.join(unknown)} is not an integer argument of the kernel "
                            f"(its integer arguments: {have})")
    return names


def evaluate(grid, arguments: dict) -> tuple[int, int, int]:
    """(x, y, z) for the argument values `arguments` (name -> int); GridError for a
    dimension past GRID_LIMITS."""

    def value(part):
        return part if isinstance(part, int) else int(arguments[part])

    dims = []
    for axis, text in enumerate(grid):
        parsed = parse_dimension(text)
        if parsed[0] == "ceildiv":
            dims.append(-(-value(parsed[1]) // parsed[2]))
        else:
            dims.append(value(parsed[1]))
        check_limit(axis, dims[-1], text)
    return tuple(dims + [1] * (3 - len(dims)))
