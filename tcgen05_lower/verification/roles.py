"""Warp roles (docs/partitions.md): threads of a kernel with or without
tcgen05.partitions, a partitions body of roles only, each role's warps, what a role may
hold (no allocation, no CTA-wide barrier, warpgroup ops in whole warpgroups), and the
arrivals of an mbarrier_arrive (its count, the even CTA of a pair)."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import (AllocMbarrierOp, MbarrierArriveOp, MbarrierStageOp,
                                       MbarrierWaitOp, RoleOp)
from tcgen05_lower.kernel_ir import (PARTITIONS_OP, ROLE_OP, WARPGROUP_OPS, WARP_THREADS,
                                     defining_op, partition_roles, role_info, terminator)
from tcgen05_lower.text import did_you_mean
from tcgen05_lower.verification.common import line_of


#: Threads per warpgroup: ld/st are issued by all four warps of a warpgroup (Table 46).
WARPGROUP_THREADS = 128

#: Threads of a CTA at most (a kernel with partitions may use more than one warpgroup).
MAX_THREADS = 1024

#: Roles of one tcgen05.partitions at most: named barriers 1..15 (barrier 0 is the CTA's).
MAX_ROLES = 15

#: Upstream ops that wait for every thread of the CTA.
CTA_WIDE_BARRIERS = frozenset({"gpu.barrier", "nvvm.barrier0", "nvvm.barrier"})


class RoleRules:
    """Threads, partitions and roles. Mixed into tcgen05-verify's run (verifier.Verifier):
    reports with self.error and reads the per-kernel state verify_kernel sets up."""

    def check_threads(self, kernel, info, partitioned: bool) -> bool:
        """One warpgroup per CTA, or, in a kernel with warp roles, whole warps up to the
        CTA's 1024 threads (the roles say which warps do what; docs/partitions.md)."""
        if not partitioned:
            if info.threads != WARPGROUP_THREADS:
                self.error(kernel, f"threads = {info.threads}: this version lowers kernels "
                                   f"without tcgen05.partitions of exactly one warpgroup "
                                   f"({WARPGROUP_THREADS} threads)")
                return False
            return True
        if info.threads % WARP_THREADS or not WARPGROUP_THREADS <= info.threads <= MAX_THREADS:
            self.error(kernel, f"threads = {info.threads}: a kernel with tcgen05.partitions "
                               f"has whole warps, {WARPGROUP_THREADS} to {MAX_THREADS} "
                               f"threads")
            return False
        return True

    def check_partitions(self, ops, info) -> bool:
        """The warp-role rules of docs/partitions.md, at the op that breaks each: a
        partitions body of roles only, each role's warps inside the CTA and disjoint from
        the others', no nesting; inside a role, warpgroup ops only in whole aligned
        warpgroups, no allocation or CTA-wide barrier, buffers and mbarriers declared
        before the partitions, mbarrier waits with an explicit parity. One walk."""
        ok = True
        for op in ops:
            if op.name == PARTITIONS_OP:
                if op in self.role_of:
                    ok = False
                    self.error(op, f"tcgen05.partitions inside "
                                   f"{self.role_name(self.role_of[op])}: partitions do not "
                                   f"nest (a role is a sequential program of its warps)")
                ok &= self.check_partition_body(op, info)
            elif op.name == ROLE_OP:
                parent = op.parent
                if parent is None or parent.name != PARTITIONS_OP:
                    ok = False
                    self.error(op, "tcgen05.role outside the body of a tcgen05.partitions")
        if not ok:
            return False
        warpgroup_kernel = info.threads == WARPGROUP_THREADS
        # mbarriers that a role signals: a wait outside the roles counts its phase at run
        # time from the commits of its own program, which a role's are not part of.
        signalled_in_roles = {op.operands[0] for op in ops if op in self.role_of
                              and d.op_name(op) in ("commit", "mbarrier_arrive")}
        for op in ops:
            name = d.op_name(op)
            owner = self.role_of.get(op)
            role = self.role.get(owner) if owner is not None else None
            if name in WARPGROUP_OPS:
                if role is None and not warpgroup_kernel:
                    ok = False
                    self.error(op, f"tcgen05.{name} outside the roles of a kernel of "
                                   f"{info.threads} threads: a warpgroup op runs on every "
                                   f"warp of a warpgroup (Table 46), so outside a role the "
                                   f"kernel must be exactly one warpgroup; move it into a "
                                   f"role of whole warpgroups")
                elif role is not None and not role.whole_warpgroups:
                    ok = False
                    self.error(op, f"tcgen05.{name} in {role.describe()}: it is executed by "
                                   f"every warp of a warpgroup, warp w accessing TMEM lanes "
                                   f"32 * (w % 4) to 32 * (w % 4) + 31 (Table 46, 9.7.16.8.1), "
                                   f"so its role must be whole aligned warpgroups (first_warp "
                                   f"and warps multiples of 4)")
            if role is None:
                if name == MbarrierWaitOp.NAME and len(op.operands) < 2 \
                        and op.operands[0] in signalled_in_roles:
                    ok = False
                    self.error(op, "tcgen05.mbarrier_wait without a phase on an mbarrier "
                                   "that a tcgen05.role signals: the run-time phase count "
                                   "follows the commits of the waiting thread's own "
                                   "program, which the role's are not part of; give the "
                                   "parity as an operand")
                continue
            if name in ("alloc", "dealloc", "relinquish_alloc_permit"):
                ok = False
                self.error(op, f"tcgen05.{name} in {role.describe()}: TMEM allocation is "
                               f"planned for the whole CTA (warp 0, outside the partitions)")
            elif name in ("tmem_buffer", "smem_buffer", "alloc_mbarrier"):
                ok = False
                self.error(op, f"tcgen05.{name} in {role.describe()}: buffers and mbarriers "
                               f"are declared before the tcgen05.partitions, where every "
                               f"role sees them")
            elif name == MbarrierWaitOp.NAME and len(op.operands) < 2:
                ok = False
                self.error(op, f"tcgen05.mbarrier_wait without a phase in {role.describe()}: "
                               f"the run-time phase count follows the commits of the "
                               f"waiting thread's own program, which another role's "
                               f"commits are not part of; give the parity as an operand")
            elif op.name in CTA_WIDE_BARRIERS:
                ok = False
                self.error(op, f"{op.name} in {role.describe()}: a CTA-wide barrier waits "
                               f"for every thread of the CTA, and the warps of the other "
                               f"roles never reach it (deadlock); use tcgen05.barrier, the "
                               f"role's own named barrier")
        return ok

    def role_name(self, owner) -> str:
        role = self.role.get(owner)
        return role.describe() if role is not None else "a tcgen05.role"

    def check_partition_body(self, op, info) -> bool:
        """A partitions body holds one tcgen05.role per role and ends in gpu.yield; each
        role has a name, first_warp and warps, within the CTA and disjoint from the other
        roles', and ends in gpu.yield. Records each role (self.role)."""
        if not len(op.regions[0].blocks):
            self.error(op, "tcgen05.partitions has no tcgen05.role (its body is empty)")
            return False
        body = op.regions[0].blocks[0]
        roles = partition_roles(op)
        ok = True
        for inner in body.operations:
            inner = inner.operation
            if inner.name not in (ROLE_OP, "gpu.yield"):
                ok = False
                self.error(inner, f"{inner.name} in the body of tcgen05.partitions: the "
                                  f"body holds one tcgen05.role per role (then gpu.yield), "
                                  f"each role's ops inside its role")
        if terminator(body).name != "gpu.yield":
            ok = False
            self.error(op, "the body of tcgen05.partitions ends in gpu.yield")
        if not roles:
            self.error(op, "tcgen05.partitions has no tcgen05.role")
            return False
        if len(roles) > MAX_ROLES:
            self.error(op, f"tcgen05.partitions has {len(roles)} roles: each role's "
                           f"tcgen05.barrier is a named barrier 1..{MAX_ROLES} (barrier 0 "
                           f"is the CTA's), so at most {MAX_ROLES}")
            return False
        warps_in_cta = info.threads // WARP_THREADS
        placed, names = [], {}
        for index, role_op in enumerate(roles):
            role = RoleOp(role_op)
            missing = [a.name for a in (RoleOp.name, RoleOp.first_warp, RoleOp.warps)
                       if not role.has(a)]
            if missing:
                ok = False
                self.error(role_op, f"tcgen05.role needs name (a string), first_warp and "
                                    f"warps (integers); missing: {', '.join(missing)}")
                continue
            if not len(role_op.regions[0].blocks) or \
                    terminator(role_op.regions[0].blocks[0]).name != "gpu.yield":
                ok = False
                self.error(role_op, f"the region of role '{role.name}' ends in gpu.yield")
            if role.first_warp < 0 or role.warps < 1:
                ok = False
                self.error(role_op, f"role '{role.name}': first_warp = {role.first_warp} "
                                    f"and warps = {role.warps}: first_warp >= 0 and warps "
                                    f">= 1")
                continue
            info_ = role_info(role_op, index)
            if role.first_warp + role.warps > warps_in_cta:
                ok = False
                self.error(role_op, f"{info_.describe()} is outside the CTA: threads = "
                                    f"{info.threads} has warps 0-{warps_in_cta - 1}")
                continue
            if role.name in names:
                ok = False
                self.error(role_op, f"two roles are named '{role.name}' (the other at line "
                                    f"{line_of(names[role.name])})")
            names[role.name] = role_op
            for other in placed:
                if other.first_warp < info_.first_warp + info_.warps and \
                        info_.first_warp < other.first_warp + other.warps:
                    ok = False
                    self.error(role_op, f"{info_.describe()} overlaps {other.describe()} "
                                        f"(line {line_of(other.op)}): a warp runs one role")
            placed.append(info_)
            self.role[role_op] = info_
        return ok

    def check_mbarrier_arrive(self, op, info) -> None:
        """Each thread that executes tcgen05.mbarrier_arrive arrives once: the threads of
        its role, or of the CTA outside roles. The mbarrier's count must be a whole
        number of such arrivals, else a phase completes part-way through one (and the rest
        arrive on the next phase): count = threads x arrive executions per phase
        (docs/partitions.md)."""
        owner = self.role_of.get(op)
        role = self.role.get(owner) if owner is not None else None
        threads = role.threads if role is not None else info.threads
        cta = MbarrierArriveOp(op).cta
        if cta is not None:
            if cta != "even":
                self.error(op, f"cta = \"{cta}\" is not \"even\" (the only CTA of a pair "
                               f"an mbarrier_arrive may arrive at besides its own, "
                               f"docs/cta-pairs.md)" + did_you_mean(cta, ("even",)))
                return
            if info.cta_group != 2:
                self.error(op, f"cta = \"even\" arrives at the even CTA of a CTA pair, but "
                               f"the kernel has cta_group = {info.cta_group}: only a "
                               f"cta_group::2 kernel runs as a pair (9.7.16.5.1)")
                return
            # Both CTAs' threads arrive at the even CTA's mbarrier.
            threads *= 2
        barrier = defining_op(op.operands[0])
        if barrier is not None and MbarrierStageOp.matches(barrier):
            barrier = defining_op(barrier.operands[0])   # every stage has the ring's count
        if barrier is None or not AllocMbarrierOp.matches(barrier):
            return
        count = AllocMbarrierOp(barrier).count
        if count % threads:
            who = role.describe() if role is not None else "the CTA"
            if cta is not None:
                who += " in both CTAs of the pair"
            self.error(op, f"tcgen05.mbarrier_arrive by the {threads} threads of {who} "
                           f"makes {threads} arrivals, but the mbarrier (line "
                           f"{line_of(barrier)}) has count = {count}, not a multiple of "
                           f"{threads}: a phase would complete part-way through the "
                           f"arrivals (9.7.13.15.13)")
        if cta is not None:
            self.check_even_arrivals(op, barrier)

    def check_even_arrivals(self, op, barrier) -> None:
        """An mbarrier that ``cta = "even"`` arrivals complete is the even CTA's: every
        arrival on it (by tcgen05.mbarrier_arrive) must go there, and no commit may
        signal it, or the CTAs would count different phases on it and the waits on it
        (which run in the even CTA only) would not see them (docs/cta-pairs.md). Once
        per mbarrier, so that the check stays linear in the kernel's ops."""
        checked = self.even_mbarriers_checked
        if op.operands[0] in checked:
            return
        checked.add(op.operands[0])
        for use in op.operands[0].uses:
            owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            mixed = (MbarrierArriveOp.matches(owner) and MbarrierArriveOp(owner).cta
                     != "even") or d.op_name(owner) in ("commit", "mbarrier_expect_tx",
                                                        "tma_load")
            if mixed:
                self.error(op, f"the mbarrier (line {line_of(barrier)}) is the even CTA's "
                               f"for this cta = \"even\" arrival, but tcgen05."
                               f"{d.op_name(owner)} at line {line_of(owner)} signals it "
                               f"otherwise: one mbarrier's signals must all reach the "
                               f"same CTAs (docs/cta-pairs.md)")
                return
