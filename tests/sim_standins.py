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

    def mbarrier_arrive(self, thread, rank, address, count, line):
        state = self.mbarriers[(rank, address)]
        token = state[2]
        state[1] -= count
        if state[1] == 0:
            state[1] = state[0]
            state[2] += 1
        return token

    def mbarrier_try_wait_parity(self, thread, rank, address, parity, line):
        # phase with parity `parity` completed: the current phase's parity differs
        return self.mbarriers[(rank, address)][2] % 2 != parity

    def progress(self):
        return False

    def finish(self, line):
        return []
