"""Synchronization: mbarrier arrivals, waits and expected transaction bytes,
``tcgen05.commit``, fences, ``tcgen05.wait`` and the CTA barrier."""

from __future__ import annotations

from tcgen05_lower.builder.core import MBARRIER
from tcgen05_lower.dialect import ops


class SynchronizationMixin:
    """The builder's synchronization ops (a mixin of ``BuilderCore``)."""

    # -- synchronization --------------------------------------------------------------------

    def mbarrier_expect_tx(self, barrier, *, bytes: int | None = None) -> None:
        """``mbarrier_expect_tx``: one arrival plus the bytes the TMA loads that follow on
        `barrier` bring (counted by the compiler unless given)."""
        self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.MbarrierExpectTxOp.build(barrier=barrier, bytes=bytes)

    def mbarrier_wait(self, barrier, phase=None) -> None:
        """``mbarrier_wait`` for the phase parity `phase` (an int or an i32 value; without
        it the compiler tracks the phase)."""
        self._expect(barrier, "barrier", MBARRIER)
        if isinstance(phase, int):
            phase = self.constant(phase, "i32")
        with self._at_end():
            ops.MbarrierWaitOp.build(barrier=barrier, phase=phase)

    def mbarrier_arrive(self, barrier, **attributes) -> None:
        """``mbarrier_arrive``: one arrival of each thread that runs it."""
        self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.MbarrierArriveOp.build(barrier=barrier, **attributes)

    def commit(self, barrier, **attributes) -> None:
        """``tcgen05.commit``: `barrier` tracks the completion of the MMAs issued before."""
        self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.CommitOp.build(barrier=barrier, **attributes)

    def fence(self, kind: str) -> None:
        """``tcgen05.fence`` (`kind` "before_thread_sync" or "after_thread_sync")."""
        with self._at_end():
            ops.FenceOp.build(kind=kind)

    def fence_proxy_async(self) -> None:
        """``fence_proxy_async``: generic-proxy writes to shared memory become visible to
        the async proxy (the MMA, TMA)."""
        with self._at_end():
            ops.FenceProxyAsyncOp.build()

    def wait(self, kind: str) -> None:
        """``tcgen05.wait`` (`kind` "ld" or "st")."""
        with self._at_end():
            ops.WaitOp.build(kind=kind)

    def barrier(self) -> None:
        """``tcgen05.barrier``: a CTA-wide thread barrier."""
        with self._at_end():
            ops.BarrierOp.build()
