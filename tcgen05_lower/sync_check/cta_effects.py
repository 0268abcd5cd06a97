"""What each tcgen05 op does to the one-program model: a new instance of an asynchronous
op, a commit or expect_tx arriving on an mbarrier, a wait completing a phase (tracked
parities), TMA phases, fences and barriers advancing the instances they apply to."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import AllocMbarrierOp, FenceOp, MbarrierStageOp, StOp, WaitOp
from tcgen05_lower.kernel_ir import MBARRIER_MAX_COUNT, defining_op, mbarrier_count_error
from tcgen05_lower.pass_infra import CompileError
from tcgen05_lower.sync_check.model import (EXPECT_TX, ISSUING_CTA, Instance, LOADS, MbarrierState,
                                            PEER_CTA, SINGLE_THREAD_OPS, TMA_LOAD, Unsupported,
                                            WARPGROUP_OPS, arrival_ctas, line_col_text, ways_text)
from tcgen05_lower.tma import BARRIERLESS, load_barrier


class Effects:
    """The effects of tcgen05 and mbarrier ops. A part of the one-program model (cta.Run),
    which composes it: reads and updates the run's state (instances, mbarriers, aliases,
    problems)."""

    def tcgen05(self, op) -> None:
        """What a tcgen05 op checks and changes."""
        name = d.op_name(op)
        if name is None:
            return
        if name in SINGLE_THREAD_OPS or name in WARPGROUP_OPS or name in ("smem_fill",
                                                                          TMA_LOAD):
            if name == TMA_LOAD and self.pair:
                # Each CTA of a pair loads its own slice and both complete on the even
                # CTA's mbarrier, so the odd CTA never observes its own load's completion:
                # this one-program model, where every CTA sees each wait, would not be
                # sound for it (docs/cta-pairs.md).
                raise Unsupported(op, "tcgen05-verify-sync does not check TMA loads in a "
                                      "cta_group::2 kernel (each CTA's load completes on "
                                      "the even CTA's mbarrier, which the odd CTA does "
                                      "not wait on; docs/cta-pairs.md)")
            instance = self.instance(op, name)
            instance.needs_peer = self.pair and name in SINGLE_THREAD_OPS
            self.executions += 1
            instance.serial = self.executions
            self.check(op, instance)
            if name == TMA_LOAD:
                self.tma_phase(op, instance)
            self.live.append(instance)
        elif name == EXPECT_TX:
            self.expect_tx(op)
        elif name == "dealloc":
            self.check_dealloc(op)
        elif name == "alloc_mbarrier":
            count = AllocMbarrierOp(op).count
            if not 1 <= count < MBARRIER_MAX_COUNT:
                raise CompileError(op.location, mbarrier_count_error(count))
            for key in self.mbarrier_keys(op):
                self.mbarriers[key] = MbarrierState(count)
        elif name == "commit":
            self.commit(op)
        elif name == "mbarrier_wait":
            self.wait_phase(op)
        elif name == "wait":
            kind = WaitOp(op).kind
            names = (StOp.NAME,) if kind == "st" else LOADS
            for inst in self.live:
                if inst.name in names:
                    inst.complete = True
        elif name == "fence":
            if FenceOp(op).kind == "before_thread_sync":
                for inst in self.live:
                    if inst.warpgroup and inst.complete:
                        inst.released = True
            else:
                for inst in self.live:
                    if (inst.single_thread and inst.complete) or \
                            (inst.warpgroup and inst.synced):
                        inst.acquired = True
                    inst.peer_acquired = inst.peer_acquired or inst.peer_complete
        elif name == "fence_proxy_async":
            for inst in self.live:
                if inst.name == "smem_fill":
                    inst.proxied = True
        elif name == "barrier":
            for inst in self.live:
                if inst.released or inst.proxied:
                    inst.synced = True
            for state in self.waited.values():
                state.last_wait = None
            self.waited = {}
        self.live = [inst for inst in self.live if not inst.finished()]

    def expect_tx(self, op) -> None:
        """mbarrier_expect_tx: one arrival on the mbarrier, whose phase the tma_loads after
        it join (module docstring)."""
        barrier, state = self.mbarrier(op)
        self.separated(op, state, "tcgen05.mbarrier_expect_tx")
        index = state.commits
        state.commits += 1
        state.commit_ops[index] = op
        state.open_expect = index

    def tma_phase(self, op, instance: Instance) -> None:
        """A tma_load completes with the phase of the open expect_tx of its mbarrier."""
        if load_barrier(op) is None:
            raise Unsupported(op, BARRIERLESS)
        barrier, state = self.mbarrier(op, 2)
        if state.open_expect is None:
            self.problem(op, ("expect_tx",),
                         "tcgen05.tma_load signals complete_tx on an mbarrier with no "
                         "tcgen05.mbarrier_expect_tx in its current phase (none since the "
                         "last wait or commit on it): the phase completes without its "
                         "bytes, or its bytes land in a later phase (PTX ISA 9.7.13.15)")
            instance.complete = True  # reported: nothing further to say about it
            return
        instance.first_commit[barrier] = state.open_expect

    def separated(self, op, state: MbarrierState, what: str, arrival: str = "arrival") -> None:
        """An arrival (`what`, an `arrival` of the mbarrier) must not follow a wait on its
        mbarrier without a barrier between."""
        if state.last_wait is not None:
            self.problem(op, ("phase", state.last_wait),
                         f"{what} to the mbarrier that the wait at "
                         f"{line_col_text(state.last_wait)} waits on, with no barrier between "
                         f"them: a thread still in that wait could see this {arrival} "
                         f"complete the next phase too and then wait for a phase that "
                         f"never completes")

    def per_cta_arrivals(self, op, barrier, state) -> None:
        """A commit multicast to n CTAs of a cluster, each of which runs this program and
        commits too: each copy gets n arrivals a round, so one CTA's program sees the
        count over n (multicast.per_cta_count), once per mbarrier."""
        from tcgen05_lower.dialect.ops import CommitOp
        from tcgen05_lower.multicast import per_cta_count

        scaled = self.__dict__.setdefault("per_cta_scaled", set())
        if barrier in scaled:
            return
        scaled.add(barrier)
        state.arrivals, problem = per_cta_count(state.arrivals, CommitOp(op).multicast_mask)
        if problem:
            raise Unsupported(op, problem)

    def commit(self, op) -> None:
        """tcgen05.commit: the mbarrier's next arrival comes when every earlier single-thread op completes."""
        barrier, state = self.mbarrier(op)
        if not self.pair:
            self.per_cta_arrivals(op, barrier, state)
        state.open_expect = None
        self.separated(op, state, "tcgen05.commit", "commit")
        index = state.commits
        state.commits += 1
        state.commit_ops[index] = op
        for inst in self.live:
            if inst.single_thread and not (inst.complete and
                                           (inst.peer_complete or not inst.needs_peer)):
                inst.first_commit.setdefault(barrier, index)

    def wait_phase(self, op) -> None:
        """mbarrier_wait, as try_wait.parity behaves (see the module docstring)."""
        barrier, state = self.mbarrier(op)
        if len(op.operands) > 1:
            if state.path_dependent is not None:
                region, verb = state.path_dependent
                raise Unsupported(op, f"the phase of this op's mbarrier is unknown here: "
                                      f"{ways_text(region)} {verb} a different number of "
                                      f"times (a wait without a phase operand follows "
                                      f"the way taken)")
            parity = self.eval.value(op.operands[1])
            if parity is None:
                raise Unsupported(op, "tcgen05-verify-sync cannot evaluate the phase parity "
                                      "of this wait")
            named = f"parity {parity & 1}"
        else:
            # Tracked: the phase the most recent commit completes, (commits - 1) mod 2;
            # with no commit yet, 1: the phase before the first, complete at once.
            parity = (state.commits - 1) & 1
            named = f"parity {parity} (that of the most recent tcgen05.commit to it)"
        if (state.seen & 1) == (parity & 1):
            # try_wait.parity blocks until the phase the thread considers current ends.
            possible = state.commits // state.arrivals
            if state.seen + 1 > possible:
                self.problem(op, ("deadlock",),
                             f"this wait for {named} of the mbarrier needs "
                             f"phase {state.seen} to complete, but only {state.commits} "
                             f"tcgen05.commit ops were issued to it before: it never "
                             f"returns")
            else:
                state.seen += 1
        state.last_wait = op
        self.waited[barrier] = state
        state.open_expect = None
        for inst in self.live:
            index = inst.first_commit.get(barrier)
            if index is not None and index // state.arrivals < state.seen:
                # The CTAs that wait are those the commit arrives at (module docstring).
                ctas = arrival_ctas(state.commit_ops[index]) if self.pair else ISSUING_CTA
                inst.complete = inst.complete or bool(ctas & ISSUING_CTA)
                inst.peer_complete = inst.peer_complete or bool(ctas & PEER_CTA)

    @staticmethod
    def mbarrier_keys(op) -> list:
        """What identifies each mbarrier an alloc_mbarrier creates: its result, or for a
        ring of S stages (result, i) for each stage i (the lowering places stage i at
        8 i bytes, its own 8-byte object: lowering/core.py)."""
        stages = AllocMbarrierOp(op).stages
        if stages is None:
            return [op.results[0]]
        return [(op.results[0], i) for i in range(max(stages, 0))]

    def mbarrier_name(self, op, value):
        """The mbarrier `value` (an operand of `op`) is: an alloc_mbarrier's result, or
        (ring, i) for a stage of a ring whose index i evaluates here (``mbarrier_keys``).
        A stage whose index does not evaluate, or one outside the ring, is refused."""
        names = self.roots(value)
        if len(names) > 1:
            raise Unsupported(op, "tcgen05-verify-sync cannot check this op: its mbarrier "
                                  "may be one of several (the ways into it yield "
                                  "different ones)")
        stage = defining_op(names[0])
        if stage is None or not MbarrierStageOp.matches(stage):
            return names[0]
        view = MbarrierStageOp(stage)
        rings = self.roots(view.ring)
        index = self.eval.value(view.stage)
        if len(rings) > 1 or index is None:
            raise Unsupported(op, "tcgen05-verify-sync cannot tell which stage of an mbarrier "
                                  "ring this op's mbarrier is: its tcgen05.mbarrier_stage "
                                  "index does not evaluate here")
        return (rings[0], index)

    def mbarrier(self, op, position: int = 0) -> tuple:
        """(the mbarrier `op` names (operand `position`), its state)."""
        barrier = self.mbarrier_name(op, op.operands[position])
        state = self.mbarriers.get(barrier)
        if state is None:
            raise Unsupported(op, "the mbarrier of this op is not a tcgen05.alloc_mbarrier "
                                  "of the kernel")
        if state.unknown_after is not None:
            raise Unsupported(op, f"the phase of this op's mbarrier is unknown here: "
                                  f"{ways_text(state.unknown_after)} commit to it a different "
                                  f"number of times")
        return barrier, state
