"""Allocation, completion and mbarriers: alloc / dealloc (nCols a power of two in
[32, 512], 9.7.16.7.1), wait, fence, commit (16-bit CTA mask within the cluster), and the
mbarrier declarations, stages and waits."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, AllocOp, CommitOp, DeallocOp, FenceOp,
                                       MbarrierStageOp, WaitOp, wrap)
from tcgen05_lower.kernel_ir import (MBARRIER_MAX_COUNT, MBARRIER_RING_MAX_STAGES, constant_int,
                                     defining_op, mbarrier_count_error)
from tcgen05_lower.text import did_you_mean
from tcgen05_lower.verification.common import line_of


#: TMEM allocation: a power of two of columns in [32, 512] (9.7.16.7.1).
ALLOC_MIN, ALLOC_MAX = 32, 512


class BarrierRules:
    """Allocation, wait, fence, commit and mbarriers. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_alloc_mbarrier(self, op, info) -> None:
        count = AllocMbarrierOp(op).count
        if not 1 <= count < MBARRIER_MAX_COUNT:
            self.error(op, mbarrier_count_error(count))
        stages = AllocMbarrierOp(op).stages
        if stages is not None and not 1 <= stages <= MBARRIER_RING_MAX_STAGES:
            self.error(op, f"alloc_mbarrier stages = {stages} is outside [1, "
                           f"{MBARRIER_RING_MAX_STAGES}]: a ring has at least one stage, and "
                           f"every stage is an 8-byte object initialized at kernel entry "
                           f"(PTX ISA 9.7.13.15.1), which this compiler bounds at "
                           f"{MBARRIER_RING_MAX_STAGES} per ring")
        if stages is None:
            return
        for use in op.results[0].uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if not MbarrierStageOp.matches(user) or use.operand_number != 0:
                self.error(user, f"the mbarrier ring of line {line_of(op)} ({stages} stages) "
                                 f"is used as a single mbarrier by {user.name}: pick a stage "
                                 f"with tcgen05.mbarrier_stage")

    def check_mbarrier_stage(self, op, info) -> None:
        """A stage of an mbarrier ring: operand 0 is a ring (an alloc_mbarrier with
        stages), a constant index lies in 0 .. stages - 1."""
        ring = defining_op(op.operands[0])
        stages = AllocMbarrierOp(ring).stages \
            if ring is not None and AllocMbarrierOp.matches(ring) else None
        if stages is None:
            self.error(op, "tcgen05.mbarrier_stage takes an mbarrier ring (a "
                           "tcgen05.alloc_mbarrier with stages = S, defined in the kernel), "
                           "and its operand 0 is not one")
            return
        stage = constant_int(op.operands[1])
        if stage is not None and not 0 <= stage < stages:
            self.error(op, f"stage {stage} of an mbarrier ring of {stages} stages (line "
                           f"{line_of(ring)}), which has stages 0 to {stages - 1}")

    def check_mbarrier_wait(self, op, info) -> None:
        """A wait on a stage of a ring names its phase: the run-time phase counter of a
        phase-less wait counts the commits to one mbarrier value (lowering.sync), and a
        computed stage is a different mbarrier at each execution."""
        barrier = defining_op(op.operands[0])
        if len(op.operands) < 2 and barrier is not None and \
                MbarrierStageOp.matches(barrier):
            self.error(op, "an mbarrier_wait on a stage of an mbarrier ring needs its phase "
                           "operand (the parity of the stage's round): the phase of a "
                           "phase-less wait is counted per mbarrier value, not per stage")

    def check_wait(self, op, info) -> None:
        kind = WaitOp(op).kind
        if kind not in ("ld", "st"):
            self.error(op, f"wait kind \"{kind}\" is not \"ld\" or \"st\" (9.7.16.8.5)"
                           + did_you_mean(kind, ("ld", "st")))

    def check_fence(self, op, info) -> None:
        kind = FenceOp(op).kind
        if kind not in ("before_thread_sync", "after_thread_sync"):
            self.error(op, f"fence kind \"{kind}\" is not \"before_thread_sync\" or "
                           f"\"after_thread_sync\" (9.7.16.11.1)"
                           + did_you_mean(kind, ("before_thread_sync", "after_thread_sync")))

    def check_commit(self, op, info) -> None:
        commit = CommitOp(op)
        self.check_commit_agreement(op, info)
        if not commit.has(CommitOp.multicast_mask):
            return
        mask = commit.multicast_mask
        # The kernel's cluster (a pair by default in a cta_group::2 kernel, else a CTA).
        cluster = info.cluster_ctas
        if not 0 < mask < (1 << 16):
            self.error(op, f"multicast_mask = {mask:#x} is not a non-zero 16-bit ctaMask "
                           f"(9.7.16.12.1)")
        elif mask >> cluster:
            self.error(op, f"multicast_mask = {mask:#x} names CTAs beyond this kernel's "
                           f"cluster of {cluster} (bit i is %cluster_ctarank i, 9.7.16.12.1)")

    @staticmethod
    def _signalled(commit) -> str:
        mask = CommitOp(commit).multicast_mask
        return "the issuing CTA's only (no multicast_mask)" if mask is None else \
            f"multicast_mask = {mask:#b}"

    def check_commit_agreement(self, op, info) -> None:
        """A wait runs in the CTAs whose mbarrier the commits to it signal (lowering.sync),
        so in a pair kernel every commit to one mbarrier must signal the same CTAs."""
        if info.cta_group != 2:
            return
        for use in op.operands[0].uses:
            other = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if (CommitOp(op).multicast_mask or 1) != 1 and (
                    d.op_name(other) in ("tma_load", "mbarrier_expect_tx")):
                # A pair's TMA loads and expect_tx signal the even CTA's mbarrier only,
                # so waits on it run there (docs/cta-pairs.md).
                self.error(op, f"this tcgen05.commit signals {self._signalled(op)}, but "
                               f"the tcgen05.{d.op_name(other)} at line {line_of(other)} "
                               f"signals the same mbarrier in the even CTA only (a CTA "
                               f"pair's TMA loads complete there, docs/cta-pairs.md): the "
                               f"CTAs waiting on one mbarrier must be those every signal "
                               f"reaches (9.7.16.12.1)")
                return
            if not CommitOp.matches(other) or other == op:
                continue
            if (CommitOp(other).multicast_mask or 1) != (CommitOp(op).multicast_mask or 1):
                self.error(op, f"this tcgen05.commit signals {self._signalled(op)}, but the "
                               f"commit at line {line_of(other)} to the same mbarrier signals "
                               f"{self._signalled(other)}: the CTAs waiting on one mbarrier "
                               f"must be those every commit to it signals (9.7.16.12.1)")
                return

    def check_alloc(self, op, info) -> None:
        self.check_cta_group(op, info)
        if DeallocOp.matches(op):
            owner = defining_op(op.operands[0])
            if owner is None or not AllocOp.matches(owner):
                self.error(op, "tcgen05.dealloc frees the address a tcgen05.alloc returned "
                               "(9.7.16.7.1); its operand is not a tcgen05.alloc result")
        columns = wrap(op).columns
        if not (ALLOC_MIN <= columns <= ALLOC_MAX and columns & (columns - 1) == 0):
            self.error(op, f"nCols = {columns} is not a power of two in [{ALLOC_MIN}, "
                           f"{ALLOC_MAX}] (9.7.16.7.1)")
