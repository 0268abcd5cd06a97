"""The CTA's place in the grid: ``gpu.block_id`` and ``gpu.grid_dim``, and in a cluster
launch ``gpu.cluster_id``, ``gpu.cluster_dim`` and ``gpu.cluster_block_id``.

Upstream lowers these in ``convert-gpu-to-nvvm``, which works on ``gpu.module`` ops; a
tcgen05 kernel is a plain ``func.func``, so they are lowered here to the special
registers they read: ``%ctaid`` (the CTA's index in the grid) and ``%nctaid`` (the CTAs
in each grid dimension). The NVVM special-register ops (``nvvm.read.ptx.sreg.ctaid.x``
...) need nothing: LLVM translates them as they are.
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower.bindings import ir, nvvm
from tcgen05_lower.emit import i32


def _registers(name: str) -> MappingProxyType:
    """Dimension ("x", "y", "z") -> the NVVM op builder that reads the special register
    ``%name.x`` / ``.y`` / ``.z`` (``nvvm.read_ptx_sreg_<name>_<dimension>``)."""
    return MappingProxyType({d: getattr(nvvm, f"read_ptx_sreg_{name}_{d}") for d in "xyz"})


#: op name -> dimension -> the NVVM op builder.
_READERS = MappingProxyType({
    "gpu.block_id": _registers("ctaid"),
    "gpu.grid_dim": _registers("nctaid"),
    # the cluster's place in the grid, the grid's clusters, the CTA's place in its
    # cluster: %clusterid, %nclusterid, %cluster_ctaid (PTX ISA 10, Special Registers)
    "gpu.cluster_id": _registers("clusterid"),
    "gpu.cluster_dim": _registers("nclusterid"),
    "gpu.cluster_dim_blocks": _registers("cluster_nctaid"),
    "gpu.cluster_block_id": _registers("cluster_ctaid"),
})


def lower_grid_queries(ops) -> None:
    """Replaces each ``gpu.block_id`` / ``gpu.grid_dim`` of `ops` (an index) by its
    special register, zero-extended (both are unsigned, PTX ISA 10 Special Registers)."""
    for op in ops:
        readers = _READERS.get(op.name)
        if readers is None:
            continue
        dimension = str(op.attributes["dimension"]).rstrip(">").split()[-1]  # #gpu<dim x>
        with ir.InsertionPoint(op), op.location:
            register = readers[dimension](i32())
            index = ir.Operation.create("arith.index_castui", results=[ir.IndexType.get()],
                                        operands=[register]).results[0]
        op.results[0].replace_all_uses_with(index)
        op.erase()
