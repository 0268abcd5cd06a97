"""``--check gemm`` of tcgen05-sim: C = A x B with M, N, K and the element types read
from the kernel's shared-memory fills and fragment stores, checked within the error bound
of f32 accumulation (and of tf32 inputs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tcgen05_lower.cli.sim_problem import Problem, UsageError, _cluster_ctas
from tcgen05_lower.cli.sim_report import compare


# -- the gemm reference ------------------------------------------------------------------------
def gemm_problem(mlir_text: str | None, manifest: dict, entry=None) -> Problem:
    """C = A x B, all row-major: M and K from the shared-memory fill of A (an "mn_k" fill:
    the tile's rows are M, its source row stride src_ld is K), N from the fill of B (a
    "k_mn" fill, N = src_ld), element types from the tiles and the stored fragments. In a
    CTA pair each CTA fills its own rows of A (docs/cta-pairs.md): M is the tile's rows
    times the CTAs of the cluster."""
    if mlir_text is None:
        raise UsageError("--check gemm reads the shapes from the MLIR kernel; give the .mlir "
                         "or a --check FILE.py")
    fills, stores = kernel_memory_ops(mlir_text)
    a = [f for f in fills if f.param == "A" and f.layout == "mn_k"]
    b = [f for f in fills if f.param == "B" and f.layout == "k_mn"]
    c = [s for s in stores if s.param == "C"]
    if not (a and b and c):
        raise UsageError("--check gemm needs parameters A, B and C with an mn_k fill of A, "
                         "a k_mn fill of B and fragment stores to C (a kernel that loads "
                         "through TMA, or takes B transposed, has none); use --check FILE.py")
    if any(f.ld is None for f in a + b) or any(s.ld is None for s in c) or \
            any(f.bounded for f in a + b + c):
        raise UsageError("--check gemm reads M, N and K from constant leading dimensions; "
                         "this kernel takes them at run time: use --check FILE.py")
    ctas = _cluster_ctas(manifest, entry)
    m, k = a[0].rows * ctas, a[0].ld
    n = b[0].ld
    if any(s.ld != n for s in c):
        raise UsageError(f"the stores to C use a row stride other than N = {n}")
    scalars = {p["name"]: {"M": m, "N": n, "K": k}[p["name"]]
               for p in manifest["params"] if not p["pointer"] and p["name"] in "MNK"}
    unknown = [p["name"] for p in manifest["params"]
               if not p["pointer"] and p["name"] not in scalars]
    if unknown:
        raise UsageError(f"no value for scalar parameter(s) {', '.join(unknown)}")
    buffers = {"A": (a[0].dtype, (m, k)), "B": (b[0].dtype, (k, n)),
               "C": (c[0].dtype, (m, n))}
    tf32 = "tf32" in (a[0].dtype, b[0].dtype)

    def reference(inputs):
        return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}

    def tolerance(name, got, expected, inputs):
        scale = np.abs(inputs["A"].astype(np.float64)) @ np.abs(inputs["B"].astype(np.float64))
        if tf32:
            bound = (TF32_INPUT_ERROR_UNIT + k * F32_SUM_ERROR) * scale + 1e-30
            return compare(got, expected, bound, f"(2^-9+2^-20+K*2^-24*(1+2^-10)^2)*(|A||B|), tf32 "
                                    f"inputs, K = {k}")
        # The error bound of summing K products in f32 in any order (gamma_K = K * 2^-24
        # times the sum of |a_ik * b_kj|); bf16 x bf16 products are exact in f32.
        bound = k * 2.0 ** -24 * scale + 1e-30
        return compare(got, expected, bound, f"K*2^-24*(|A||B|), K = {k}")

    return Problem(buffers, scalars, reference, tolerance, f"gemm M={m} N={n} K={k}")


#: The bounds of a GEMM with tf32 inputs (.kind::tf32) against the exact product of its
#: f32 inputs, per unit of sum_k |a_ik b_kj|. An f32 input becomes tf32 (an 11-bit
#: significand, PTX ISA 5.2.5.1: 10 explicit mantissa bits) by dropping its low 13
#: mantissa bits, or by rounding them to nearest: a relative error |d| < 2^-10 either way
#: (one unit in the last place of an 11-bit significand is 2^-10 of its value, at most).
#: A product of two converted inputs is ab(1 + da)(1 + db), off by at most
#: (2 * 2^-10 + 2^-20)|ab| = (2^-9 + 2^-20)|ab|, and is itself exact in f32 (11 x 11 =
#: 22 significand bits <= 24). Summing K such products in f32 in any order adds at most
#: K * 2^-24 times the sum of their magnitudes, each <= (1 + 2^-10)^2 |ab|. So
#: |C - A@B| <= (2^-9 + 2^-20 + K * 2^-24 * (1 + 2^-10)^2) * (|A| @ |B|); the first term
#: is TF32_INPUT_ERROR_UNIT, the factor of K F32_SUM_ERROR. (Subnormal inputs, whose tf32 value
#: may lose more, do not occur: --check gemm draws them from [-1, 1) and rounds to f32.)
TF32_INPUT_ERROR_UNIT = 2.0 ** -9 + 2.0 ** -20
F32_SUM_ERROR = 2.0 ** -24 * (1 + 2.0 ** -10) ** 2


@dataclass(frozen=True)
class MemoryOp:
    """A kernel's smem_fill (`layout` and `rows` set) or store_fragment: the parameter it
    reads or writes (through llvm.getelementptr), its row stride and element type."""

    param: str | None
    ld: int | None          # None: an operand (known at run time)
    dtype: str
    layout: str | None = None
    rows: int | None = None
    bounded: bool = False   # the op names operands in dims (offsets, extents)


def kernel_memory_ops(mlir_text: str) -> tuple[list[MemoryOp], list[MemoryOp]]:
    """The kernel's smem_fill and store_fragment ops: which parameter (through
    llvm.getelementptr), layout, tile rows, row stride and element type."""
    from tcgen05_lower import dialect as d
    from tcgen05_lower.parsing import parse_module
    from tcgen05_lower.dialect.ops import SmemFillOp, StoreFragmentOp

    with d.make_context():
        module = parse_module(mlir_text, "<kernel>")
        kernel = d.kernels(module)[0]
        names = _source_names(mlir_text, kernel)
        fills, stores = [], []
        for op in d.walk_ops(kernel):
            if SmemFillOp.matches(op):
                fill = SmemFillOp(op)
                m = re.search(r"\[(\d+), (\d+)\], (\w+)", str(fill.tile.type))
                fills.append(MemoryOp(param=_param_of(fill.source, kernel, names),
                                      layout=fill.src_layout, ld=fill.src_ld,
                                      rows=int(m.group(1)), dtype=m.group(3),
                                      bounded=bool(fill.dims)))
            elif StoreFragmentOp.matches(op):
                store = StoreFragmentOp(op)
                m = re.search(r"\[(\d+), (\d+)\], (\w+)", str(store.fragment.type))
                stores.append(MemoryOp(param=_param_of(store.dest, kernel, names),
                                       ld=store.ld, dtype=m.group(3),
                                       bounded=bool(store.dims)))
    return fills, stores


def _source_names(text: str, kernel) -> list[str]:
    from tcgen05_lower.kernel_ir import recorded_parameter_names, source_parameter_names

    return recorded_parameter_names(kernel) or source_parameter_names(kernel, text)


def _param_of(value, kernel, names) -> str | None:
    """The kernel parameter a pointer value derives from (through getelementptr)."""
    from tcgen05_lower.bindings import ir

    for _ in range(16):
        if isinstance(value.owner, ir.Block):
            return names[ir.BlockArgument(value).arg_number] \
                if value.owner == kernel.regions[0].blocks[0] else None
        op = value.owner
        if op.name != "llvm.getelementptr":
            return None
        value = op.operands[0]
    return None
