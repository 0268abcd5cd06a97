"""The kernel's parameters as ``KernelBuilder`` takes them: a type, or a :class:`Param` with
the attributes it carries (:func:`pointer`, :func:`tensor_map`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from tcgen05_lower.tma import TENSOR_MAP_ATTR

#: The type of a pointer to global memory (address space 1).
GLOBAL_POINTER = "!llvm.ptr<1>"


@dataclass(frozen=True)
class Param:
    """A kernel parameter: its type and the attributes it carries, (name, MLIR text)
    pairs, as ``%C: !llvm.ptr<1> {llvm.align = 16 : i64}`` writes them. :func:`pointer`
    and :func:`tensor_map` make the usual ones; a plain type string is a Param without
    attributes."""

    type: str
    attributes: tuple[tuple[str, str], ...] = ()


def pointer(*, align: int | None = None) -> Param:
    """A global pointer ``!llvm.ptr<1>``; with `align`, the caller's promise
    ``{llvm.align = align}`` (16 lets store_fragment and the transposing fill use
    16-byte accesses)."""
    if align is None:
        return Param(GLOBAL_POINTER)
    return Param(GLOBAL_POINTER, (("llvm.align", f"{int(align)} : i64"),))


def tensor_map(tensor: str, box: Sequence[int], *, swizzle: str = "128B") -> Param:
    """A TMA tensor map parameter (docs/tma.md): a pointer to the CUtensorMap the host
    encodes for the global matrix `tensor` (another parameter's name) with box
    ``[K, rows]`` and `swizzle`, for ``tma_load``."""
    text = (f'{{tensor = "{tensor}", box = array<i64: {", ".join(str(int(b)) for b in box)}>,'
            f' swizzle = "{swizzle}"}}')
    return Param(GLOBAL_POINTER, ((TENSOR_MAP_ATTR, text),))
