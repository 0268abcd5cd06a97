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
from tcgen05_lower.lowering import HANDLERS, KernelLowering
from tcgen05_lower.pass_infra import ModulePass, Option


class Tcgen05LowerToLlvm(ModulePass):
    name = "tcgen05-lower-to-llvm"
    description = "Lower planned tcgen05 ops to NVVM inline PTX and the arith/scf/llvm dialects"
    options = (
        Option("issue", str, "elect", "who issues the single-thread instructions (mma, cp, "
               "shift, commit, TMA loads, expect_tx) of a one-warp role whose control flow "
               "is warp-uniform: elect (the lane elect.sync elects, as CUTLASS does) or "
               "thread (the role's first thread, by thread index); elsewhere always the "
               "first thread", ("elect", "thread")),
        Option("epilogue-stores", str, "vector", "how tcgen05.store_fragment writes a "
               "fragment whose threads each hold consecutive columns of one row: vector "
               "(16-byte st.global.v4.b32 where the destination's alignment, ld and column "
               "offsets allow, behind a warp-uniform run-time test when they are not known, "
               "one element at a time at the matrix's column edge) or scalar (one store per "
               "element)", ("vector", "scalar")),
        Option("maxnreg", str, "", "register budgets of a kernel with warp roles, one per "
               "warpgroup in order, e.g. 40,232: each warpgroup's warps run setmaxnreg to "
               "their budget (.dec below the largest budget, .inc at it), at the top of "
               "the role that is the warpgroup's, else before the roles; empty: none"),
    )

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            KernelLowering(self, kernel, module).run(HANDLERS)


#: CTAs per cluster of a cta_group::2 kernel: the CTA pair (9.7.16.5.1) is two CTAs of one
#: cluster whose %cluster_ctarank differs in the last bit.
PAIR_CLUSTER = (2, 1, 1)


class Tcgen05FinalizeKernels(ModulePass):
    """Marks each converted kernel for NVPTX: ``nvvm.kernel``, ``nvvm.reqntid`` (its thread
    count, exactly: the program gives every warp of the CTA its rows, so a launch with fewer
    threads must fail rather than leave rows of C unwritten, as ``.maxntid`` would allow) and, for cta_group::2 kernels, ``nvvm.cluster_dim`` = 2x1x1, which the NVPTX
    backend prints as ``.reqnctapercluster 2, 1, 1``: the CTA pair of 9.7.16.5.1 must be
    launched as a cluster."""

    name = "tcgen05-finalize-kernels"
    description = ("Mark converted kernels (llvm.func) as NVPTX kernels with their thread "
                   "count and, for cta_group::2, a cluster of two CTAs")

    def apply(self, module) -> None:
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name != "llvm.func" or d.KERNEL_ATTR not in op.attributes:
                continue
            info = d.kernel_info(op)
            op.attributes["nvvm.kernel"] = ir.UnitAttr.get()
            op.attributes["nvvm.reqntid"] = ir.Attribute.parse(
                f"array<i32: {info.threads}, 1, 1>")
            # .minnctapersm 1: one CTA per SM must fit (its TMEM allocation caps co-resident
            # CTAs anyway); without it ptxas trades spills for occupancy in ld epilogues.
            op.attributes["nvvm.minctasm"] = ir.Attribute.parse("1 : i32")
            if info.cluster_ctas > 1:   # a pair's (PAIR_CLUSTER) or the kernel's cluster
                op.attributes["nvvm.cluster_dim"] = ir.Attribute.parse(
                    "array<i32: " + ", ".join(map(str, info.cluster_dims)) + ">")
