"""The functional-only ordering model (``simulate(functional_only=True)``,
``tcgen05-sim --functional-only``): the same machine, the same schedule and the same
numbers, without race detection.

``OrderingModel`` (ordering.py) does two things: it decides when asynchronous operations
take effect (mma / cp / shift performed at their commit, a ``tcgen05.st`` at its warp's
``wait::st``, TMA loads and commit arrivals completing on their mbarriers, mbarrier
phases), and it tracks who knows what (vector clocks over all threads, the last writer and
async reader of every shared-memory byte, the TMA loads in flight per byte) to report the
accesses the program does not order. ``FunctionalOrdering`` keeps the first and drops the
second: every decision about *when* something happens is the parent's code, so a kernel
runs the same instructions in the same order and computes the same outputs (and the
timing model records the same trace); what is not done is the bookkeeping that only
races are made of. It is for sweeps of a kernel whose synchronization has been checked
already (by a full run): a missing wait then shows only when it changes the numbers.

What is still reported: everything the ISA forbids that is not a race (SimError: a
deadlock, an over-arrival, out-of-bounds accesses, an mbarrier used before its init,
unallocated TMEM, ...) and the problems at exit (arrivals that land after their CTA
exited, reads of never-written TMEM, ops never committed, TMEM still allocated).
What is not: races (``result.races`` stays empty), including a use of an mbarrier not
ordered after its init.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.ordering import OrderingModel


class FunctionalOrdering(OrderingModel):
    """OrderingModel without race detection (module docstring)."""

    functional = True

    # -- races: never looked for -------------------------------------------------------------
    def _race(self, message: str, line: int, other: int) -> None:
        return None

    def _check_conflicts(self, thread, op, kind, cp4, line) -> None:
        return None

    def _check_allocation_ordered(self, thread, op, line) -> None:
        return None

    def _check_async_smem_reads(self, thread, op, line) -> None:
        for rank, addresses in op.footprint.smem_reads.items():
            size = self.writer[rank].size
            if addresses.size and (addresses.min() < 0 or addresses.max() >= size):
                super()._check_async_smem_reads(thread, op, line)   # its bounds error

    def _note_async_smem_reads(self, thread, op, seq, line) -> None:
        return None

    def _check_tma_written(self, who, rank, addresses, what, line) -> None:
        return None

    def smem_access(self, threads, rank, addresses, size, write, line) -> None:
        return None

    def _use_ordered(self, threads, bar) -> bool:
        return True

    # -- clocks: not kept ---------------------------------------------------------------------
    def _release(self, threads) -> None:
        return None

    def _published(self, threads):
        return (np.zeros(self.known.shape[1], np.int64),
                np.zeros(self.known.shape[1], np.int64))

    def _acquire(self, threads, generic, tc) -> None:
        return None

    def fence(self, threads, kind: str, line: int) -> None:
        if kind not in ("before_thread_sync", "after_thread_sync", "proxy_async",
                        "mbarrier_init"):
            super().fence(threads, kind, line)   # the parent's error for an unknown kind

    def _mbar(self, rank: int, address: int, line: int, thread: int | None = None):
        # only whether it exists: its init is ordered before the use, or it is a race
        return super()._mbar(rank, address, line)

    def barrier(self, threads, line: int) -> None:
        self._forget_performed()

    # -- in-flight records: only until performed ------------------------------------------
    def issue(self, thread: int, op, line: int) -> None:
        super().issue(thread, op, line)
        if len(self.inflight) > 256:
            self._forget_performed()

    def _forget_performed(self) -> None:
        """A performed op matters only to race checks (commits and wait::st perform the
        unperformed ones, finish the rest): forgotten."""
        self.inflight = [r for r in self.inflight if not r.performed]
