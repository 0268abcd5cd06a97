"""The ordering checks of the one-program model: what a later op needs from an earlier
one it conflicts with (the package docstring's list), what is missing, and the problem
reported at the later op."""

from __future__ import annotations

from tcgen05_lower.sync_check.model import (Instance, LOADS, PIPELINED_PAIRS, TMA_LOAD,
                                            arrival_ctas, first_meeting, line_col_text, tiles_meet)


class OrderChecks:
    """Conflicts and what orders them. A part of the one-program model (cta.Run), which
    composes it: reads and updates the run's state (instances, mbarriers, aliases,
    problems)."""

    def check(self, op, later: Instance) -> None:
        """Reports every earlier instance `later` depends on without the ordering it needs."""
        for earlier in self.live:
            self.checked += 1
            if earlier.op == op and later.name in LOADS:
                if not earlier.complete and not earlier.registers_read:
                    self.problem(op, ("registers",),
                                 f"{op.name} writes its destination registers again while "
                                 f"its previous execution may still be writing them, "
                                 f"without ordering: missing tcgen05.wait::ld (9.7.16.6.4.5)")
                continue
            conflict = self.overlap(earlier, later)
            if conflict is None:
                continue
            what, verb = conflict
            need, section = self.need(earlier, later)
            if need is None:
                continue
            missing = self.missing(earlier, need)
            if missing is not None:
                self.problem(op, (earlier.op, missing),
                             f"{op.name} {what} that {earlier.op.name} at "
                             f"{line_col_text(earlier.op)} {verb}, without ordering: missing "
                             f"{missing} ({section})")
            elif not later.single_thread:
                self.check_peer(op, earlier, f"{what} that {earlier.op.name} at "
                                             f"{line_col_text(earlier.op)} {verb}", section, need)

    def check_peer(self, op, earlier: Instance, what: str, section: str,
                   need: str = "acquired") -> None:
        """In a pair kernel, `op` runs in the odd CTA too: the completion of the
        single-thread `earlier` must have been seen (and acquired) there (module
        docstring)."""
        if not earlier.needs_peer or earlier.peer_acquired or \
                (need == "complete" and earlier.peer_complete):
            return
        if earlier.peer_complete:
            self.problem(op, (earlier.op, "peer"),
                         f"{op.name} {what}, and runs in both CTAs of the pair: missing "
                         f"tcgen05.fence::after_thread_sync after the mbarrier wait "
                         f"({section})")
            return
        barrier, index = next(iter(earlier.first_commit.items()), (None, None))
        commit = self.mbarriers[barrier].commit_ops.get(index) if barrier is not None \
            else None
        seen = (f"the tcgen05.commit at {line_col_text(commit)} arrives only at the mbarrier of "
                f"CTA mask {arrival_ctas(commit):#b}" if commit is not None
                else "its completion is seen in the issuing CTA only")
        self.problem(op, (earlier.op, "peer"),
                     f"{op.name} {what}, and runs in both CTAs of the pair, but {seen}: "
                     f"the odd CTA never waits for it; missing a tcgen05.commit with "
                     f"multicast_mask = 0b11 -> mbarrier wait -> "
                     f"tcgen05.fence::after_thread_sync ({section}, 9.7.16.12.1)")

    def check_dealloc(self, op) -> None:
        """Reports every TMEM access not ordered before this dealloc."""
        for earlier in self.live:
            self.checked += 1
            if earlier.name in ("smem_fill", TMA_LOAD):
                continue
            missing = self.missing(earlier, "acquired")
            cells = (earlier.tmem_writes or earlier.tmem_reads)[0].text()
            if missing is not None:
                self.problem(op, (earlier.op, missing),
                             f"tcgen05.dealloc frees {cells} that {earlier.op.name} at "
                             f"{line_col_text(earlier.op)} accesses, without ordering: missing "
                             f"{missing} (9.7.16.6.4.4)")
            else:
                self.check_peer(op, earlier, f"frees {cells} that {earlier.op.name} at "
                                             f"{line_col_text(earlier.op)} accesses", "9.7.16.6.4.4")

    def overlap(self, earlier: Instance, later: Instance):
        """(what `later` does, what `earlier` does) when they conflict, else None."""
        mine = first_meeting(later.tmem_reads, earlier.tmem_writes)
        if mine is not None:
            return f"reads {mine.text()}", "writes"
        mine = first_meeting(later.tmem_writes, earlier.tmem_writes)
        if mine is not None:
            return f"writes {mine.text()}", "also writes"
        mine = first_meeting(later.tmem_writes, earlier.tmem_reads)
        if mine is not None:
            return f"writes {mine.text()}", "reads"
        if earlier.name == TMA_LOAD and tiles_meet(later.tiles_read + later.tiles_written,
                                                    earlier.tiles_written):
            return ("reads a shared-memory tile" if later.tiles_read else
                    "overwrites a shared-memory tile"), "writes through the async proxy (TMA)"
        if tiles_meet(later.tiles_read, earlier.tiles_written):
            return "reads a shared-memory tile", "writes through the generic proxy"
        if tiles_meet(later.tiles_written, earlier.tiles_read):
            return "overwrites a shared-memory tile", "reads through the async proxy"
        return None

    def need(self, earlier: Instance, later: Instance) -> tuple:
        """(what `earlier` must have reached, the ISA section) for a conflicting pair."""
        if earlier.name == TMA_LOAD:
            return "complete", "PTX ISA 9.7.9.25.5.1, complete_tx"
        if earlier.single_thread:
            if later.single_thread:
                if self.pipelined(earlier, later):
                    return None, None
                return "acquired", "9.7.16.6.4.2"
            if later.warpgroup:
                return "acquired", "9.7.16.6.4.4"
            return "complete", "9.7.16.6.5"
        if earlier.warpgroup:
            if later.warpgroup:
                return "complete", "9.7.16.6.4.2"
            if later.single_thread:
                return "acquired", "9.7.16.6.4.4"
            return None, None
        if later.single_thread:
            return "synced", "9.7.16.6.5"
        return None, None

    def pipelined(self, earlier: Instance, later: Instance) -> bool:
        """9.7.16.6.2: whether the pair executes in issue order."""
        pair = (earlier.name, later.name)
        if pair not in PIPELINED_PAIRS:
            return False
        condition = PIPELINED_PAIRS[pair]
        if condition == "same accumulator and shape":
            # An accumulator may be one of several buffers: whichever each one is, the
            # two must be the same known buffer, or share no cell (then they do not
            # depend on each other at all).
            if earlier.shape_key != later.shape_key or not all(
                    (mine == theirs and mine.known) or not mine.meets(theirs)
                    for mine in earlier.tmem_writes for theirs in later.tmem_writes):
                return False
            return same_accumulator(earlier, later) or not meet_outside_accumulators(
                earlier, later)
        if condition == "cp.4x256b":
            return later.shape_key == ("4x256b",)
        return True

    def missing(self, earlier: Instance, need: str) -> str | None:
        """The mechanism still missing for `earlier` to reach `need`, or None."""
        if earlier.name == TMA_LOAD:
            if earlier.complete:
                return None
            barrier, index = next(iter(earlier.first_commit.items()))
            expect = self.mbarriers[barrier].commit_ops[index]
            return (f"an mbarrier wait for the phase that the tcgen05.mbarrier_expect_tx at "
                    f"{line_col_text(expect)} arrives in")
        if earlier.name == "smem_fill":
            if earlier.synced:
                return None
            return "a barrier after fence.proxy.async" if earlier.proxied else \
                "fence.proxy.async -> barrier"
        if need == "complete" and (earlier.complete or earlier.acquired):
            return None
        if need != "complete" and earlier.acquired:
            return None
        if earlier.single_thread:
            if not earlier.complete:
                if not earlier.first_commit:
                    chain = "tcgen05.commit -> mbarrier wait"
                else:
                    barrier, index = next(iter(earlier.first_commit.items()))
                    commit = self.mbarriers[barrier].commit_ops[index]
                    chain = (f"an mbarrier wait for the phase that the tcgen05.commit at "
                             f"{line_col_text(commit)} completes")
                return chain if need == "complete" else \
                    chain + " -> tcgen05.fence::after_thread_sync"
            return "tcgen05.fence::after_thread_sync after the mbarrier wait"
        steps = ["tcgen05.wait::st" if earlier.name == "st" else "tcgen05.wait::ld"]
        done = [earlier.complete]
        if need == "acquired":
            steps += ["tcgen05.fence::before_thread_sync", "barrier",
                      "tcgen05.fence::after_thread_sync"]
            done += [earlier.released, earlier.synced, earlier.acquired]
        first = done.index(False)
        return " -> ".join(steps[first:])

    def problem(self, op, key: tuple, message: str) -> None:
        """Records a problem once per (op, key)."""
        self.problems.setdefault((op, key), (op, message))


def same_accumulator(earlier: Instance, later: Instance) -> bool:
    """Whether two MMAs certainly write one accumulator (the same known cells)."""
    return all(mine == theirs and mine.known
               for mine in earlier.tmem_writes for theirs in later.tmem_writes)


def meet_outside_accumulators(earlier: Instance, later: Instance) -> bool:
    """Whether one of two MMAs whose accumulators may differ writes cells the other reads
    other than as its accumulator (A in tensor memory, scale factors, metadata): those
    MMAs are no pipelined pair (9.7.16.6.2, "same N and accumulator and shape"), so
    nothing orders that read and that write (e.g. S written over the P an earlier P V
    read, tcgen05_lower/planning/aliases.py)."""
    def other_reads(instance):
        return [r for r in instance.tmem_reads if r not in instance.tmem_writes]
    return first_meeting(later.tmem_writes, other_reads(earlier)) is not None or \
        first_meeting(earlier.tmem_writes, other_reads(later)) is not None
