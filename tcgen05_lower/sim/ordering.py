"""Ordering, completion and race detection for the simulated SM (PTX ISA 9.7.16.6).

The PTX executor (``executor.py``) calls this model for everything that orders memory
accesses; the model decides when asynchronous tcgen05 operations take effect and reports
every access that conflicts with an operation whose completion the accessing thread has
not observed.

Threads are numbered across the cluster: ``g = rank * threads_per_cta + tid``. Every method
that takes ``line`` gets the 1-based PTX line of the instruction, for reports. Methods that
take ``threads`` get a ``np.ndarray`` of global thread ids that execute the instruction
together (the active threads of one step).

Schedules
---------
- ``"late"`` (default): an asynchronous op (mma, cp, shift, st) takes effect at the latest
  moment the ISA allows: when its completion is observed or must have happened (the commit
  group it belongs to is completed only when the executor has no runnable thread left,
  see ``progress``; a ``tcgen05.st`` at the issuing thread's ``wait::st``). ``tcgen05.ld``
  reads its cells when issued; its read stays in flight until ``wait::ld``.
- ``"eager"``: every asynchronous op takes effect when it is issued.
A race-free program computes the same numbers under both.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.state import CtaMemory, SimError, TensorOp


class Race(SimError):
    """Two accesses to the same cells that the program does not order."""


class OrderingModel:
    """Happens-before state, in-flight asynchronous ops, mbarriers and TMEM allocation."""

    def __init__(self, ctas: list[CtaMemory], threads_per_cta: int, schedule: str = "late"):
        raise NotImplementedError

    # -- asynchronous tcgen05 operations ------------------------------------------------
    def issue(self, thread: int, op: TensorOp, line: int) -> None:
        """``thread`` issues ``op`` (mma/cp/shift/ld/st). Checks its footprint against
        every in-flight op the thread has not observed complete (a conflict is a Race naming
        both lines), except pairs the ISA pipelines (9.7.16.6.2). Eager: performs it now.

        tcgen05.ld / tcgen05.st are warp-collective: the executor calls ``issue`` once per
        warp, with the warp's lowest active thread as ``thread``, and the warp's
        ``wait::ld`` / ``wait::st`` passes all its threads to ``wait``."""
        raise NotImplementedError

    def commit(self, thread: int, rank: int, mbarrier: int, cta_mask: int, line: int) -> None:
        """tcgen05.commit: when every mma/cp/shift ``thread`` issued before it has
        completed, arrive once on the mbarrier at ``mbarrier`` in each CTA of ``cta_mask``
        (bit i = rank i; a commit without multicast passes 1 << rank)."""
        raise NotImplementedError

    def wait(self, threads: np.ndarray, kind: str, line: int) -> None:
        """tcgen05.wait::ld / wait::st (kind "ld" or "st") for each thread."""
        raise NotImplementedError

    def fence(self, threads: np.ndarray, kind: str, line: int) -> None:
        """kind: "before_thread_sync", "after_thread_sync" (tcgen05.fence::*) or
        "proxy_async" (fence.proxy.async.shared::cta)."""
        raise NotImplementedError

    # -- ordinary accesses ----------------------------------------------------------------
    def smem_access(self, threads: np.ndarray, rank: np.ndarray, addresses: np.ndarray,
                    size: int, write: bool, line: int) -> None:
        """Generic-proxy ld/st.shared of ``size`` bytes at ``addresses`` (one per thread)."""
        raise NotImplementedError

    # -- thread synchronization -----------------------------------------------------------
    def barrier(self, threads: np.ndarray, line: int) -> None:
        """All ``threads`` have arrived at one barrier.sync (bar.sync); they leave together."""
        raise NotImplementedError

    def mbarrier_init(self, thread: int, rank: int, address: int, count: int, line: int) -> None:
        raise NotImplementedError

    def mbarrier_arrive(self, thread: int, rank: int, address: int, count: int,
                        line: int) -> int:
        """mbarrier.arrive (release); returns the state token (the phase before arrival)."""
        raise NotImplementedError

    def mbarrier_expect_tx(self, thread: int, rank: int, address: int, nbytes: int,
                           line: int) -> None:
        raise NotImplementedError

    def mbarrier_try_wait_parity(self, thread: int, rank: int, address: int, parity: int,
                                 line: int) -> bool:
        """True (with acquire) when the phase of parity ``parity`` has completed."""
        raise NotImplementedError

    # -- tensor-memory allocation (9.7.16.7) ------------------------------------------------
    def alloc(self, warp_threads: np.ndarray, rank: int, columns: int, cta_group: int,
              line: int) -> int:
        """Allocate ``columns`` columns (a power of two >= 32); returns the TMEM address
        (lane 0, first column) the executor writes to shared memory."""
        raise NotImplementedError

    def dealloc(self, warp_threads: np.ndarray, rank: int, taddr: int, columns: int,
                cta_group: int, line: int) -> None:
        """Free; an in-flight op on the freed cells, or a double free, is an error."""
        raise NotImplementedError

    def relinquish(self, warp_threads: np.ndarray, rank: int, cta_group: int, line: int) -> None:
        raise NotImplementedError

    def check_tmem_allocated(self, rank: int, mask: np.ndarray, line: int) -> None:
        """Every cell in ``mask`` (bool[128, 512]) lies in allocated columns."""
        raise NotImplementedError

    # -- progress and the end of the kernel ------------------------------------------------
    def progress(self) -> bool:
        """Called when no thread can run: complete the oldest pending commit group (late
        schedule). False when nothing is pending (the executor then reports a deadlock)."""
        raise NotImplementedError

    def finish(self, line: int) -> list[str]:
        """At kernel exit: complete what is pending and return the problems found
        (columns still allocated, ops never waited for)."""
        raise NotImplementedError
