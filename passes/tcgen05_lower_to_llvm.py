"""tcgen05-lower-to-llvm: planned tcgen05 ops -> NVVM inline PTX, arith, scf and llvm.

The work is done per instruction family by ``tcgen05_lower.lowering`` (see its modules).
The kernel stays a ``func.func``; tcgen05-finalize-kernels marks it for NVPTX after the
upstream conversions. ``convert-nvvm-to-llvm`` must run before arith is lowered: operands
defined by LLVM constants would become PTX immediates, which tcgen05.mma rejects for its
address and descriptor operands.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.lowering import KernelLowering
from tcgen05_lower.pass_infra import ModulePass


class Tcgen05LowerToLlvm(ModulePass):
    name = "tcgen05-lower-to-llvm"
    description = "Lower planned tcgen05 ops to NVVM inline PTX and the arith/scf/llvm dialects"

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            KernelLowering(self, kernel, module).run()


class Tcgen05FinalizeKernels(ModulePass):
    name = "tcgen05-finalize-kernels"
    description = "Mark converted kernels (llvm.func) as NVPTX kernels with their thread count"

    def apply(self, module) -> None:
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name != "llvm.func" or d.KERNEL_ATTR not in op.attributes:
                continue
            info = d.kernel_info(op)
            op.attributes["nvvm.kernel"] = ir.UnitAttr.get()
            op.attributes["nvvm.maxntid"] = ir.Attribute.parse(
                f"array<i32: {info.threads}, 1, 1>")
