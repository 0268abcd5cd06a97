"""The driver of the ISA rules: one walk over each kernel that sets up what the rules
share (the ops, the roles, the memo tables) and calls the rule of each op's family, in the
order the rules depend on one another (kernel, types and attributes, warp roles, each op,
then the TMA byte counts and the collector buffers)."""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, AllocOp, CommitOp, CpOp, DeallocOp,
                                       FenceOp, FragBroadcastOp, FragMapOp, FragReduceOp,
                                       FragVoteOp, LdOp, LdRedOp, LoadFragmentOp, MbarrierArriveOp,
                                       MbarrierExpectTxOp, MbarrierStageOp, MbarrierWaitOp, MmaOp,
                                       RelinquishAllocPermitOp, ShiftOp, SmemBufferOp, SmemFillOp,
                                       SmemStageOp, StOp, StoreFragmentOp, TmaLoadOp, TmemBufferOp,
                                       TmemStageOp, WaitOp)
from tcgen05_lower.isa import targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import PARTITIONS_OP, ROLE_OP, enclosing_roles, misaligned_arguments
from tcgen05_lower.planning.aliases import alias_problems
from tcgen05_lower.verification import clusters
from tcgen05_lower.verification.barriers import BarrierRules
from tcgen05_lower.verification.buffers import BufferRules
from tcgen05_lower.verification.collectors import CollectorRules
from tcgen05_lower.verification.copies import CopyRules
from tcgen05_lower.verification.fragments import FragmentRules
from tcgen05_lower.verification.mma import MmaRules
from tcgen05_lower.verification.mma_qualifiers import MmaQualifierRules
from tcgen05_lower.verification.roles import RoleRules
from tcgen05_lower.verification.runtime_shapes import RuntimeShapeRules
from tcgen05_lower.verification.target_features import TargetRules
from tcgen05_lower.verification.tma_loads import TmaRules


class Verifier(TargetRules, BufferRules, RoleRules, RuntimeShapeRules, FragmentRules,
               MmaRules, MmaQualifierRules, CollectorRules, CopyRules, BarrierRules,
               TmaRules):
    """Every rule of the package, mixed into the pass's run (which supplies error() and
    failed). verify_module checks every kernel of a module and the argument alignments of
    its other functions."""

    def verify_module(self, module) -> None:
        """Checks every kernel of `module`, then the other functions' argument alignments."""
        for kernel in d.kernels(module):
            self.verify_kernel(kernel)
        self.check_other_functions(module)

    def rule(self, op, exc: IsaRuleError) -> None:
        """Reports a broken ISA rule raised by the isa package at `op`."""
        self.error(op, str(exc))

    def verify_kernel(self, kernel) -> None:
        try:
            info = d.kernel_info(kernel)
        except d.InvalidAttribute as exc:
            self.error(kernel, exc.message)
            return
        try:
            targets.check_target(info.target)
        except IsaRuleError as exc:
            self.rule(kernel, exc)
            return
        if info.cta_group not in (1, 2):
            self.error(kernel, f"cta_group = {info.cta_group} is not 1 or 2 (9.7.16.5)")
            return
        ops = list(d.walk_ops(kernel))
        partitioned = any(op.name in (PARTITIONS_OP, ROLE_OP) for op in ops)
        if not self.check_threads(kernel, info, partitioned):
            return
        if info.grid:
            self.check_grid(kernel, info)
        if not clusters.check_clusters(kernel, info, ops, self.error):
            return
        if not self.check_argument_alignment(kernel):
            return
        if not self.check_type_parameters(ops):
            return  # every later rule reads these types
        #: value -> how it is held (computed.row_vector_root), shared by the checks.
        self.row_memo: dict = {}
        #: Per kernel: rings an MMA reads (check_pair_tile), mbarriers whose cta = "even"
        #: arrivals were checked (check_even_arrivals).
        self.ring_read_by_mma: dict = {}
        self.even_mbarriers_checked: set = set()
        #: tile value -> kernel_ir.stored_k, once per tile (it looks at every use of the
        #: tile, and a kernel fills one tile as often as it has tiles).
        self.stored_k_memo: dict = {}
        self.check_fragments_stay(ops)
        attributes_ok = True
        for op in ops:
            if d.op_name(op) in d.ATTRIBUTES:
                attributes_ok &= self.check_attribute_types(op)
        if not attributes_ok:
            return  # ... and these attributes
        for op, message in alias_problems([op for op in ops if TmemBufferOp.matches(op)]):
            self.error(op, message)   # TMEM aliases (planning.aliases)
        self.role_of = enclosing_roles(kernel) if partitioned else {}
        self.role = {}
        if partitioned and not self.check_partitions(ops, info):
            return  # the rules below read the roles
        # What each TMEM buffer is to the MMAs that use it, so that a buffer's element type
        # is checked against its role (one pass over the kernel, then one over the ops).
        self.roles = {}
        for op in ops:
            if MmaOp.matches(op):
                self.collect_roles(op)
        staged_ok = True
        for op in ops:
            name = d.op_name(op)
            if name is not None and name not in _RING_OPS and not self.check_single_stage(op):
                staged_ok = False
                continue
            check = _CHECKS.get(name)
            if check is None:
                continue
            if name in _INSTRUCTIONS and not self.check_two_dimensional(op):
                continue
            check(self, op, info)
        if not staged_ok:
            return  # the TMA rules read single tiles
        if any(TmaLoadOp.matches(op) or MbarrierExpectTxOp.matches(op) for op in ops):
            self.check_tma(kernel, ops, info)
        if not self.failed:
            self.check_collectors(kernel.regions[0].blocks[0], entry=True)

    def check_other_functions(self, module) -> None:
        """The argument alignments of the module's functions that are not kernels (or
        whose ``tcgen05.kernel`` is misspelled): LLVM aborts on them just the same."""
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name in ("func.func", "llvm.func") and not d.is_kernel(op):
                for _number, message in misaligned_arguments(op):
                    self.error(op, message)


#: The ops that take or make a multi-stage shared-memory tile.
_RING_OPS = ("smem_buffer", "smem_stage")

#: Ops whose TMEM operands must be single [rows, columns] buffers.
_INSTRUCTIONS = tuple(cls.NAME for cls in (MmaOp, CpOp, ShiftOp, LdOp, StOp, LdRedOp))

_CHECKS = MappingProxyType({cls.NAME: check for cls, check in (
    (TmemBufferOp, Verifier.check_tmem_buffer),
    (SmemBufferOp, Verifier.check_smem_buffer),
    (TmemStageOp, Verifier.check_tmem_stage),
    (SmemStageOp, Verifier.check_smem_stage),
    (SmemFillOp, Verifier.check_smem_fill),
    (MmaOp, Verifier.check_mma),
    (CpOp, Verifier.check_cp),
    (ShiftOp, Verifier.check_shift),
    (LdOp, Verifier.check_ld),
    (StOp, Verifier.check_st),
    (LdRedOp, Verifier.check_ld_red),
    (StoreFragmentOp, Verifier.check_store_fragment),
    (LoadFragmentOp, Verifier.check_load_fragment),
    (FragMapOp, Verifier.check_frag_map),
    (FragReduceOp, Verifier.check_frag_reduce),
    (FragBroadcastOp, Verifier.check_frag_broadcast),
    (FragVoteOp, Verifier.check_frag_vote),
    (WaitOp, Verifier.check_wait),
    (AllocMbarrierOp, Verifier.check_alloc_mbarrier),
    (MbarrierStageOp, Verifier.check_mbarrier_stage),
    (MbarrierWaitOp, Verifier.check_mbarrier_wait),
    (FenceOp, Verifier.check_fence),
    (CommitOp, Verifier.check_commit),
    (MbarrierArriveOp, Verifier.check_mbarrier_arrive),
    (AllocOp, Verifier.check_alloc),
    (DeallocOp, Verifier.check_alloc),
    (RelinquishAllocPermitOp, Verifier.check_cta_group),
)})
