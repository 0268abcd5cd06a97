"""Minimal stand-ins for the ordering model, for executor tests that exercise no tcgen05
asynchrony: every barrier, fence and shared-memory access is accepted, mbarriers count
arrivals and phases (9.7.13.15: a phase completes when the pending count reaches zero)."""

import numpy as np


class PlainOrdering:
    def __init__(self, ctas, threads_per_cta, schedule="late"):
        self.ctas = ctas
        self.mbarriers = {}  # (rank, address) -> [expected, pending, phase]
        self.barriers = []
        self.smem = []

    def barrier(self, threads, line):
        self.barriers.append((len(threads), line))

    def smem_access(self, threads, rank, addresses, size, write, line):
        self.smem.append((write, size, len(threads)))

    def fence(self, threads, kind, line):
        pass

    def mbarrier_init(self, thread, rank, address, count, line):
        self.mbarriers[(rank, address)] = [count, count, 0]

    def mbarrier_arrive(self, thread, rank, address, count, line, scope="cta"):
        state = self.mbarriers[(rank, address)]
        token = state[2]
        state[1] -= count
        if state[1] == 0:
            state[1] = state[0]
            state[2] += 1
        return token

    def mbarrier_try_wait_parity(self, thread, rank, address, parity, line, scope="cta"):
        # phase with parity `parity` completed: the current phase's parity differs
        return self.mbarriers[(rank, address)][2] % 2 != parity

    def progress(self):
        return False

    def cta_exited(self, rank):
        pass   # (no asynchronous arrival to report: none is modelled here)

    def finish(self, line):
        return []


class EagerOrdering(PlainOrdering):
    """PlainOrdering plus TMEM allocation (first free columns, lane 0) and commits that
    arrive at once: enough to run a whole emitted kernel whose tensor-core side is a
    recording stand-in."""

    def __init__(self, ctas, threads_per_cta, schedule="late"):
        super().__init__(ctas, threads_per_cta, schedule)
        self.next_column = {}
        self.allocs, self.deallocs, self.issued, self.waits = [], [], [], []

    def alloc(self, warp_threads, rank, columns, cta_group, line):
        column = self.next_column.get(rank, 0)
        self.next_column[rank] = column + columns
        self.allocs.append((rank, columns, column))
        return column

    def dealloc(self, warp_threads, rank, taddr, columns, cta_group, line):
        self.deallocs.append((rank, taddr, columns))

    def relinquish(self, warp_threads, rank, cta_group, line):
        pass

    def check_tmem_allocated(self, rank, mask, line):
        pass

    def issue(self, thread, op, line):
        self.issued.append((thread, op.kind, line))
        op.perform(self.ctas)

    def commit(self, thread, rank, mbarrier, cta_mask, line):
        for r in range(len(self.ctas)):
            if cta_mask >> r & 1:
                self.mbarrier_arrive(thread, r, mbarrier, 1, line)

    def wait(self, threads, kind, line):
        self.waits.append((kind, len(threads)))


class RecordedOp:
    def __init__(self, kind, footprint=None):
        from tcgen05_lower.sim.state import Footprint
        self.kind = kind
        self.footprint = footprint or Footprint()
        self.accumulator = None

    def perform(self, ctas):
        pass


class RecordingTensorCore:
    """Records what the executor passes; ld returns values that encode the TMEM cell
    (lane, column) each register would read under shape .32x32b (9.7.16.2.3.1.1: thread i
    of the warp reads lane 32 * (warp % 4) + i, register j column taddr.col + j)."""

    def __init__(self):
        self.calls = []

    def issue_async(self, opcode, operands, rank, cluster_size):
        self.calls.append(("async", opcode, operands, rank))
        return RecordedOp(opcode.split(".")[1])

    def load(self, opcode, taddr, warp, rank, ctas, imm):
        self.calls.append(("ld", opcode, taddr, warp, rank))
        nregs = int([p for p in opcode.split(".") if p.startswith("x")][0][1:])
        lane = (taddr >> 16) + np.arange(32).reshape(32, 1)
        column = (taddr & 0xFFFF) + np.arange(nregs).reshape(1, nregs)
        return (lane * 1000 + column).astype(np.uint32), None, RecordedOp("ld")

    def store(self, opcode, taddr, warp, rank, values, imm):
        self.calls.append(("st", opcode, taddr, warp, rank))
        return RecordedOp("st")
