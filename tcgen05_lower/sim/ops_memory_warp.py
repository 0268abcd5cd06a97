"""The lean form of ``ld`` / ``st`` (global and shared::cta, ``ops_memory``) for the
common case of a warp-specialized kernel: the threads of the step are consecutive (one
warp, or a run of warps of one CTA), every address is aligned and inside one array (or
inside the CTA's shared memory), so the per-thread checks reduce to a minimum, a maximum
and one mask test, and the bytes move as whole elements through a typed view of the
array instead of byte by byte.

Same semantics as ``ops_memory.load`` / ``store``, bit for bit: each ``try_*`` function
decides, before it changes anything (registers, memory, the ordering model), whether the
access is one it can do; when it is not (a misaligned or out-of-bounds address, threads
that are not consecutive or span CTAs, a predicate register, an ordering model that
redefines the shared-memory checks, ...) it returns False and the handler runs the
general code, which reports what there is to report. The shared-memory bookkeeping of the
ordering model is ``ordering_smem.SharedMemoryOrdering.smem_access_warp``, which in turn
leaves any access with something to report to ``smem_access``.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ordering_smem import SharedMemoryOrdering
from tcgen05_lower.sim.words import ALL, MASK, SMEM_BASE, UINT, from_signed, to_signed


#: Reductions over a warp's addresses, called as ufunc methods (no Python wrapper).
_OR, _MIN, _MAX = np.bitwise_or.reduce, np.minimum.reduce, np.maximum.reduce


def _lean_ordering(m) -> bool:
    """Whether the machine's ordering model checks shared memory with the code of
    ``SharedMemoryOrdering`` (so ``smem_access_warp`` is its ``smem_access``); a model
    that redefines it (the functional-only one) gets the general call."""
    kind = type(m.ordering)
    return getattr(kind, "smem_access", None) is SharedMemoryOrdering.smem_access and \
        getattr(kind, "_check_tma_written", None) is SharedMemoryOrdering._check_tma_written


class _Views:
    """Typed views (uint16, uint32, ...) of the machine's byte arrays, made once per array:
    element ``i`` of the view is bytes ``[i * n, (i + 1) * n)`` read little-endian, as
    ``ops_memory._assemble`` reads them."""

    def __init__(self, nbytes: int):
        self.nbytes = nbytes
        self.made: dict = {}

    def of(self, key, raw: np.ndarray):
        found = self.made.get(key)
        if found is not None and found[0] is raw:
            return found[1]
        view = None
        if raw.ndim == 1 and raw.dtype == np.uint8 and raw.flags.c_contiguous:
            view = raw[:raw.size - raw.size % self.nbytes].view(UINT[self.nbytes])
        self.made[key] = (raw, view)
        return view


def _threads(m, act):
    """The step's active threads (ALL, sorted thread ids, or the slice
    ``Machine.contiguous`` made of them) as a slice of consecutive threads, or None."""
    at = act if type(act) is slice else m.contiguous(act)
    if at is ALL:
        return slice(0, m.nthreads)
    if type(at) is not slice:
        return None
    return at


def thread_ids(at):
    """The thread ids of ``at`` (ALL, ids, or a slice of consecutive threads) as the
    general handlers take them: ALL or an array."""
    if type(at) is slice and at is not ALL:
        return np.arange(at.start, at.stop)
    return at


def _address(m, a: P.Addr, at: slice, ins):
    """``m.address(a, at, ins)``: a register base read as its array's slice (what
    ``m.read`` gives for a 64-bit read of a uint64 register) plus the offset."""
    base = m.regs.get(a.base.name) if isinstance(a.base, P.Reg) else None
    if base is None or base.dtype != np.uint64:
        return m.address(a, at, ins)
    return base[at] + np.uint64(a.offset & 0xFFFFFFFFFFFFFFFF)


def _where(m, space: str, addr: np.ndarray, at: slice, size: int, views: _Views):
    """(typed view, element index per thread, None or (CTA rank, address per thread
    as int64)) of an aligned access
    of ``size`` bytes at ``addr`` that lies inside one global array or inside the CTA's
    shared memory; None when it does not (the general code then reports it)."""
    if size > 1 and int(_OR(addr)) & (size - 1):
        return None   # misaligned (ops_memory._check_aligned): a low bit set somewhere
    low, high = int(_MIN(addr)), int(_MAX(addr))
    shift = np.uint64(views.nbytes.bit_length() - 1)
    if space == "global":
        for i, buf in enumerate(m.buffers):   # ops_memory._globals's first test
            if buf.base <= low and high + size <= buf.base + buf.raw.size:
                if buf.base % views.nbytes:
                    return None
                view = views.of(("global", i), buf.raw)
                if view is None:
                    return None
                return view, ((addr - np.uint64(buf.base)) >> shift).view(np.int64), None
        return None
    # shared::cta: the thread's own CTA (ops_support._shared_target)
    if low < SMEM_BASE or high + size > m.smem_end:
        return None
    rank = int(m.rank[at.start])
    if int(m.rank[at.stop - 1]) != rank:
        return None
    view = views.of(("shared", rank), m.ctas[rank].smem)   # a view of m.smem[rank]
    if view is None:
        return None
    local = addr.astype(np.int64)
    return view, local >> np.int64(shift), (rank, local)


def load_maker(m, ins, space: str, vec: int, kind: str, bits: int, nbytes: int, a, dsts):
    """``try_load(act) -> bool`` for ``ld`` (ops_memory._ld's run), or None for a form
    it leaves to the general code."""
    if space not in ("global", "shared::cta") or not isinstance(a, P.Addr) or \
            nbytes not in UINT:
        return None
    size, views, lean = nbytes * vec, _Views(nbytes), _lean_ordering(m)
    lanes = np.arange(vec, dtype=np.int64) if vec > 1 else None
    targets = []   # per destination: (array, its bits, sign-extend, mask needed)

    def destinations() -> bool:
        """The destination registers (found once): uint64 arrays of 8 to 64 bits."""
        if not targets:
            for r in dsts:
                if m.entry.reg_type(r.name) is None:
                    return False   # undeclared: the general code's error
                arr, rbits = m.reg(r.name, ins), m.reg_bits(r.name)
                if arr.dtype != np.uint64 or rbits not in MASK:
                    return False
                # a zero-extended element already fits a register at least as wide
                extend = kind == "s" and rbits > bits
                targets.append((arr, rbits, extend, extend or rbits < 8 * nbytes))
        return True

    def try_load(act) -> bool:
        at = _threads(m, act)
        if at is None or not destinations():
            return False
        addr = _address(m, a, at, ins)
        place = _where(m, space, addr, at, size, views)
        if place is None:
            return False
        view, element, shared = place
        if shared is not None:
            rank, local = shared
            if lean:
                m.ordering.smem_access_warp(at, rank, local, size, False, ins.line)
            else:
                m.ordering.smem_access(np.arange(at.start, at.stop), m.rank[at], local, size, False,
                                       ins.line)
        values = view[element if lanes is None else element.reshape(-1, 1) + lanes]
        for j, (out, rbits, extend, masked) in enumerate(targets):
            v = (values if lanes is None else values[:, j]).astype(np.uint64)
            if extend:   # sign-extend (9.7.10.8)
                v = from_signed(to_signed(v, bits), rbits)
            out[at] = v & MASK[rbits] if masked else v
        return True
    return try_load


def store_maker(m, ins, space: str, vec: int, bits: int, nbytes: int, a, srcs):
    """``try_store(act) -> bool`` for ``st`` (ops_memory._st's run), or None for a form
    it leaves to the general code."""
    if space not in ("global", "shared::cta") or not isinstance(a, P.Addr) or \
            nbytes not in UINT:
        return None
    size, views, lean = nbytes * vec, _Views(nbytes), _lean_ordering(m)
    lanes = np.arange(vec, dtype=np.int64) if vec > 1 else None
    typed = UINT[nbytes]

    def try_store(act) -> bool:
        at = _threads(m, act)
        if at is None:
            return False
        n = at.stop - at.start
        # the sources first, then the address, as the general handler reads them
        if lanes is None:
            src = srcs[0]
            arr = m.regs.get(src.name) if isinstance(src, P.Reg) else None
            if arr is not None and arr.dtype == np.uint64 and 8 * nbytes <= bits:
                values = arr[at].astype(typed)   # the low bytes: m.read's value, stored
            else:
                values = np.asarray(m.read(src, at, bits, ins), np.uint64).astype(typed)
        else:
            wide = np.empty((n, vec), np.uint64)
            for j, r in enumerate(srcs):
                wide[:, j] = m.read(r, at, bits, ins)
            values = wide.astype(typed)
        addr = _address(m, a, at, ins)
        place = _where(m, space, addr, at, size, views)
        if place is None:
            return False
        view, element, shared = place
        if shared is not None:
            rank, local = shared
            if lean:
                m.ordering.smem_access_warp(at, rank, local, size, True, ins.line)
            else:
                m.ordering.smem_access(np.arange(at.start, at.stop), m.rank[at], local, size, True,
                                       ins.line)
        view[element if lanes is None else element.reshape(-1, 1) + lanes] = values
        return True
    return try_store
