"""tcgen05-verify's rules for clusters and TMA multicast (tcgen05_lower.multicast holds
the rules; this module finds what they apply to in a kernel and reports each problem with
`error(op, message)` at the kernel or the op)."""

from __future__ import annotations

from tcgen05_lower import multicast
from tcgen05_lower.dialect.ops import TmaLoadOp
from tcgen05_lower.launch import GridError, constant_dimension, parse_dimension


def check_clusters(kernel, info, ops, error) -> bool:
    """The kernel's ``cluster`` entry, its grid against the cluster, and every
    ``multicast`` of a tma_load against the cluster; False when a problem was reported."""
    ok = True
    if info.cluster:
        problem = multicast.cluster_problem(tuple(info.cluster), info.cta_group)
        if problem:
            error(kernel, f"tcgen05.kernel.{problem}")
            return False
    problem = multicast.grid_problem(_grid_constants(info.grid), info.cluster_dims)
    if problem:
        error(kernel, f"tcgen05.kernel.grid: {problem}")
        ok = False
    for op in ops:
        if not TmaLoadOp.matches(op):
            continue
        dim = TmaLoadOp(op).multicast
        if dim is None:
            continue
        problem = multicast.multicast_problem(dim, info.cluster_dims, info.cta_group)
        if problem:
            error(op, problem)
            ok = False
    return ok


def _grid_constants(grid) -> list:
    """Each grid dimension's value where no argument is named, else None."""
    out = []
    for text in grid:
        try:
            out.append(constant_dimension(parse_dimension(text)))
        except GridError:
            out.append(None)   # reported by check_grid
    return out
