"""The launch around a replayed CTA as its memory requests see it: the keys of its loads
(what the L2 can reuse), the fraction of each that misses, multicast copies."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from tcgen05_lower.sim.timing.trace import ClusterTrace
from tcgen05_lower.sim.timing_parameters import param


def memory_keys(trace: ClusterTrace) -> dict:
    """{key: [loads, bytes per load]} of the trace's global loads: a TMA load's key is its
    tensor and box coordinates, an ld.global's each 128-byte line it touches (its bytes
    shared equally among them). Loads of unknown identity (hand-built traces) have none."""
    keys: dict = {}
    for steps in trace.warps:
        for step in steps:
            for _, _, nbytes, _, *key in step.tmas:
                if key and key[0] is not None:
                    entry = keys.setdefault(key[0], [0, float(nbytes)])
                    entry[0] += 1
            if step.kind == "ld_global" and step.lines:
                share = step.nbytes / len(step.lines)
                for line in step.lines:
                    entry = keys.setdefault(line, [0, share])
                    entry[0] += 1
    return keys


@dataclass(frozen=True)
class MemoryContext:
    """The launch around one replayed CTA (or pair), as its memory requests see it:
    ``active_sms`` SMs share the DRAM and L2 bandwidth, and ``miss`` maps a load's key
    (memory_keys) to the fraction of its bytes that comes from DRAM; the rest hit in L2.
    A key not in ``miss`` misses wholly."""
    active_sms: int = 1
    miss: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    how: str = "alone"

    def miss_of(self, key) -> float:
        return 1.0 if key is None else self.miss.get(key, 1.0)

    def miss_of_lines(self, lines) -> float:
        if not lines:
            return 1.0
        return sum(self.miss.get(line, 1.0) for line in lines) / len(lines)

    @staticmethod
    def shared(loads: dict, active_sms: int, overrides: dict | None = None,
               how: str = "") -> "MemoryContext":
        """``loads``: {key: [loads in the wave, bytes per load]}. A key loaded n times in
        the wave costs DRAM its bytes once: each load misses 1/n of them. When the
        wave's distinct bytes U exceed the L2's capacity C, a reload hits only C/U of the
        time (the rest misses)."""
        footprint = sum(nbytes for _, nbytes in loads.values())
        keep = min(1.0, param("l2_bytes", overrides) / footprint) if footprint else 1.0
        miss = {key: 1.0 / n + (1.0 - 1.0 / n) * (1.0 - keep)
                for key, (n, _) in loads.items()}
        return MemoryContext(active_sms, MappingProxyType(miss), how)

    @staticmethod
    def alone(trace: ClusterTrace, overrides: dict | None = None) -> "MemoryContext":
        """The trace's CTAs alone on the GPU: only they are active, and a tile they load
        several times comes from DRAM once."""
        return MemoryContext.shared(memory_keys(trace), trace.ctas, overrides,
                                    "the CTAs recorded, alone on the GPU")


def multicast_copies(tmas: list) -> dict:
    """{(thread, key): copies} of a step's TMA loads with a key: a thread's
    ``.multicast::cluster`` load is recorded as one copy per receiving CTA, all with the
    load's key (sim/tma.py), and an ordinary load as one."""
    copies: dict = {}
    if len(tmas) > 1:
        for thread, _, _, _, *key in tmas:
            if key and key[0] is not None:
                copies[(thread, key[0])] = copies.get((thread, key[0]), 0) + 1
    return copies




def _buffer_of(key):
    """The buffer a load key belongs to: a TMA key's tensor, an ld.global line's array
    (the simulator places each array argument in its own 2^36-byte window)."""
    return key[0] if isinstance(key, tuple) else (key * 128) >> 36
