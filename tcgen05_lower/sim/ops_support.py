"""What the instruction handlers of ``ops`` (its ``ops_*`` families), ``tcgen05_ops``,
``tma``, ``bulk`` and ``warp_matrix`` share: the error for an instruction outside the
simulated set (never a silent no-op), the checks of shared-memory and mbarrier addresses,
with the CTA rank a shared::cluster address carries, and the shape of the memory accesses
``ops_memory`` hands to the handlers it dispatches to. It imports none of those modules, so each imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import SMEM_BASE

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine


class Unknown(SimError):
    pass


def _unknown(ins: P.Instr, why: str = "") -> SimError:
    extra = f" ({why})" if why else ""
    return Unknown(f"the simulator does not implement '{ins.opcode}'{extra}", ins.line,
                   ins.text)


#: shared::cluster addresses (what mapa returns) carry the target CTA's rank here; a
#: shared::cta address (below this bit) names the accessing thread's own CTA, which the
#: ISA allows wherever a shared::cluster address is expected.
CLUSTER_RANK_SHIFT = 24


def _shared_target(m: Machine, space, act, addr, size, what, ins):
    addr = np.asarray(addr, np.uint64).reshape(-1) * np.ones(1, np.uint64)
    own = m.rank[m.threads_of(act)]
    if space == "shared::cluster":
        peer = (addr >> np.uint64(CLUSTER_RANK_SHIFT)).astype(np.int64)
        rank = np.where(peer > 0, peer - 1, own)
        local = (addr & np.uint64((1 << CLUSTER_RANK_SHIFT) - 1)).astype(np.int64)
        if np.any(rank >= m.launch.cluster):
            raise SimError(f"shared::cluster {what} names a CTA outside the cluster")
    else:
        rank, local = own, addr.astype(np.int64)
    bad = (local < SMEM_BASE) | (local + size > m.smem_end)
    if np.any(bad):
        a = int(local[np.flatnonzero(bad)[0]])
        raise SimError(f"out-of-bounds shared-memory {what} of {size} bytes at address "
                       f"{a:#x} (the CTA's shared memory is [{SMEM_BASE:#x}, "
                       f"{m.smem_end:#x}))")
    return rank, local


class MemoryAccess(NamedTuple):
    """The memory accesses of ``ops_memory`` that the handlers of ``bulk`` and ``warp_matrix``
    use: ``ops_memory`` dispatches to those modules, so it hands its functions to them rather
    than have them import it back. ``load(m, space, act, addr, nbytes, vec, ins)`` and
    ``store(m, space, act, addr, nbytes, vec, values, ins)`` are ops_memory.load / .store;
    ``global_buffers(m, addr, size, what)`` is the index into ``m.buffers`` of each
    global address (ops_memory._globals), SimError when one is out of bounds."""
    load: Callable
    store: Callable
    global_buffers: Callable


def _check_mbarrier_address(m: Machine, address: int) -> None:
    if address % 8 or address < SMEM_BASE or address + 8 > m.smem_end:
        raise SimError(f"mbarrier address {address:#x} is not an 8-byte aligned "
                       f"shared-memory address of the CTA")
