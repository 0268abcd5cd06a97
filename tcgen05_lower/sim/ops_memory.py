"""The memory instructions of the simulator's instruction set (``ops``): ld and st
(PTX ISA 9.7.10.8, 9.7.10.9) of global, shared::cta, shared::cluster and param memory,
with their bounds and alignment checks and the shared-memory accesses they report to the
ordering model; mapa, cvta (9.7.9), and the handlers of cp (sim/bulk.py, sim/tma.py) and
ldmatrix / stmatrix (sim/warp_matrix.py), which get this module's loads and stores as a
``MemoryAccess`` rather than import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import fused_plans, ops_memory_warp
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_support import (CLUSTER_RANK_SHIFT, MemoryAccess, _shared_target,
                                           _unknown)
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import ALL, UINT, from_signed, parse_type, to_signed

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine


# Modifiers that change nothing in a single-launch functional model: caching and eviction
# hints (9.7.10.9), the default .weak memory semantics.
_CACHE_HINTS = frozenset({"ca", "cg", "cs", "lu", "cv", "nc", "wb", "wt", "weak"})


# -- memory ------------------------------------------------------------------------------
def _memory_form(ins: P.Instr):
    """(state space, vector count, element bytes) of an ld/st, or Unknown."""
    parts = ins.parts
    kind_bits = parse_type(parts[-1])
    if kind_bits is None or kind_bits[0] == "pred":
        raise _unknown(ins)
    space, vec = None, 1
    for p in parts[1:-1]:
        if p in ("global", "shared", "shared::cta", "param", "shared::cluster"):
            if space is not None:
                raise _unknown(ins)
            space = p
        elif p in ("v2", "v4", "v8"):
            vec = int(p[1:])
        elif p in _CACHE_HINTS or p.startswith("L2::") or p.startswith("L1::"):
            continue
        else:
            raise _unknown(ins, f"modifier .{p}")
    if space is None:
        raise _unknown(ins, "generic addressing")
    if space == "shared":
        space = "shared::cta"
    return space, vec, kind_bits


def _ld(ins: P.Instr):
    space, vec, (kind, bits) = _memory_form(ins)

    def make(m, ins):
        d, a = ins.operands
        dsts = list(d.items) if isinstance(d, P.Vec) else [d]
        if len(dsts) != vec:
            raise SimError("vector width and destination count differ", ins.line, ins.text)
        nbytes = max(bits // 8, 1)
        # a warp of consecutive threads at aligned in-bounds addresses: the same access,
        # fewer array operations (sim/ops_memory_warp.py); else the general code below
        lean = ops_memory_warp.load_maker(m, ins, space, vec, kind, bits, nbytes, a, dsts)

        def general(act):
            addr = None if space == "param" else m.address(a, act, ins)
            values = load(m, space, act, addr, nbytes, vec, ins)
            for j, r in enumerate(dsts):
                v = values[:, j]
                if kind == "s" and m.reg_bits(r.name) > bits:  # sign-extend (9.7.10.8)
                    v = from_signed(to_signed(v, bits), m.reg_bits(r.name))
                m.write(r.name, act, v, m.reg_bits(r.name), ins)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            if (act is ALL or len(act)) and not (lean is not None and lean(act)):
                general(act)
            m.advance(idx)
        return _with_body(run, ins, lean, general)
    return make


def _st(ins: P.Instr):
    space, vec, (kind, bits) = _memory_form(ins)
    if space == "param":
        raise _unknown(ins)

    def make(m, ins):
        a, s = ins.operands
        srcs = list(s.items) if isinstance(s, P.Vec) else [s]
        if len(srcs) != vec:
            raise SimError("vector width and source count differ", ins.line, ins.text)
        nbytes = max(bits // 8, 1)
        lean = ops_memory_warp.store_maker(m, ins, space, vec, bits, nbytes, a, srcs)

        def general(act):
            n = m.nthreads if act is ALL else len(act)
            values = np.empty((n, vec), np.uint64)
            for j, r in enumerate(srcs):
                values[:, j] = m.read(r, act, bits, ins)
            store(m, space, act, m.address(a, act, ins), nbytes, vec, values, ins)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            if (act is ALL or len(act)) and not (lean is not None and lean(act)):
                general(act)
            m.advance(idx)
        return _with_body(run, ins, lean, general)
    return make


def _with_body(run, ins: P.Instr, lean, general):
    """``run`` with a ``body(at)`` for the fused stretches (machine_stepping._fused) when
    the instruction is unguarded and has a lean form: the access on the threads ``at``
    (``Machine.contiguous``), without advancing their PC."""
    if ins.guard is not None or lean is None:
        return run

    def body(at):
        if not lean(at):
            general(ops_memory_warp.thread_ids(at))
    run.body = body
    prepare = getattr(lean, "prepare", None)
    if prepare is not None:
        body.plan_for = lambda at: _planned_body(prepare(at), general, at)
    return run


def _planned_body(lean, general, at):
    """A fused stretch's step (machine_stepping._plan) for a body whose lean form
    ``lean()`` was made for the threads ``at`` (None: the plan calls the body), with
    the general code where the lean form declines."""
    if lean is None:
        return None

    def step():
        if not lean():
            general(ops_memory_warp.thread_ids(at))
    batch = getattr(lean, "batch", None)
    if batch is not None:   # (a global store: fused_plans.grouped may group it)
        step.batch, step.member = batch, lean.member
    return step, ()


def _byte_offsets(addr, nbytes: int, vec: int):
    return np.asarray(addr, np.int64).reshape(-1, 1) + np.arange(nbytes * vec)


def _assemble(raw: np.ndarray, nbytes: int, vec: int) -> np.ndarray:
    """(n, nbytes*vec) uint8 -> (n, vec) uint64, little-endian."""
    return np.ascontiguousarray(raw).view(UINT[nbytes]).reshape(-1, vec).astype(np.uint64)


def _split(values: np.ndarray, nbytes: int) -> np.ndarray:
    return np.ascontiguousarray(values.astype(UINT[nbytes])).view(np.uint8).reshape(
        values.shape[0], -1)


def _check_aligned(addr, size: int, what: str) -> None:
    if size & (size - 1) == 0:   # a power of two: the low bits (the same test, cheaper)
        bad = np.asarray(addr, np.uint64) & np.uint64(size - 1)
    else:
        bad = np.asarray(addr, np.uint64) % np.uint64(size)
    if bad.any():
        a = int(np.asarray(addr, np.uint64).reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]])
        raise SimError(f"misaligned {what} of {size} bytes at address {a:#x}")


def _globals(m: Machine, addr, size: int, what: str):
    """(buffer index per thread, byte offset per thread); SimError when out of bounds."""
    addr = np.asarray(addr, np.uint64).reshape(-1)
    if addr.size:   # usually every thread accesses one array: two reductions, no masks
        low, high = int(addr.min()), int(addr.max())
        for i, buf in enumerate(m.buffers):   # (arrays' address windows are disjoint)
            if buf.base <= low and high + size <= buf.base + buf.raw.size:
                return np.full(addr.shape, i, np.int64)
    which = np.full(addr.shape, -1, np.int64)
    for i, buf in enumerate(m.buffers):
        inside = (addr >= np.uint64(buf.base)) & \
            (addr + np.uint64(size) <= np.uint64(buf.base + buf.raw.size))
        which[inside] = i
    if np.any(which < 0):
        a = int(addr[np.flatnonzero(which < 0)[0]])
        bound = ", ".join(f"{b.name} [{b.base:#x}, {b.base + b.raw.size:#x})"
                          for b in m.buffers) or "none"
        raise SimError(f"out-of-bounds global {what} of {size} bytes at address {a:#x}"
                       f"{_nearest_array(m, a)} (bound arrays: {bound})")
    return which


def _distinct(which: np.ndarray):
    """np.unique(which), without its sort when every thread accesses the same array."""
    first = which[0]
    return (first,) if (which == first).all() else np.unique(which)


def _nearest_array(m: Machine, address: int) -> str:
    """Where an out-of-bounds address lies relative to the array below it: each array
    has its own window of fake addresses (executor.GLOBAL_STRIDE), so that is the array
    the kernel indexed past."""
    below = [b for b in m.buffers if b.base <= address]
    if not below:
        return ""
    buf = max(below, key=lambda b: b.base)
    past = address - (buf.base + buf.raw.size)
    if past < 0:
        return f", straddling the end of {buf.name} ({buf.raw.size} bytes)"
    return f", {past} bytes past the end of {buf.name} ({buf.raw.size} bytes)"


def load(m: Machine, space: str, act, addr, nbytes: int, vec: int, ins) -> np.ndarray:
    size = nbytes * vec
    if space == "param":
        return _load_param(m, ins.operands[1], nbytes, vec, ins)
    _check_aligned(addr, size, "load")
    if space == "global":
        which = _globals(m, addr, size, "load")
        addr = np.asarray(addr, np.uint64).reshape(-1)
        out = np.empty((addr.size, size), np.uint8)
        for i in _distinct(which):
            buf = m.buffers[i]
            sel = which == i
            out[sel] = buf.raw[_byte_offsets(addr[sel] - np.uint64(buf.base), nbytes, vec)]
        return _assemble(out, nbytes, vec)
    rank, local = _shared_target(m, space, act, addr, size, "load", ins)
    m.ordering.smem_access(m.threads_of(act), rank, local, size, False, ins.line)
    raw = m.smem[rank.reshape(-1, 1), _byte_offsets(local, nbytes, vec)]
    return _assemble(raw, nbytes, vec)


def store(m: Machine, space: str, act, addr, nbytes, vec, values, ins) -> None:
    size = nbytes * vec
    _check_aligned(addr, size, "store")
    raw = _split(values, nbytes)
    if space == "global":
        which = _globals(m, addr, size, "store")
        addr = np.asarray(addr, np.uint64).reshape(-1)
        for i in _distinct(which):
            buf = m.buffers[i]
            sel = which == i
            buf.raw[_byte_offsets(addr[sel] - np.uint64(buf.base), nbytes, vec)] = raw[sel]
        return
    rank, local = _shared_target(m, space, act, addr, size, "store", ins)
    m.ordering.smem_access(m.threads_of(act), rank, local, size, True, ins.line)
    m.smem[rank.reshape(-1, 1), _byte_offsets(local, nbytes, vec)] = raw


def _load_param(m: Machine, a, nbytes: int, vec: int, ins) -> np.ndarray:
    if not isinstance(a, P.Addr) or not isinstance(a.base, P.Sym):
        raise SimError("ld.param needs [parameter+offset]", ins.line, ins.text)
    data = m.param_bytes.get(a.base.name)
    if data is None:
        raise SimError(f"unknown parameter {a.base.name}", ins.line, ins.text)
    chunk = data[a.offset:a.offset + nbytes * vec]
    if len(chunk) != nbytes * vec:
        raise SimError(f"ld.param reads past the end of {a.base.name}", ins.line, ins.text)
    row = np.frombuffer(chunk, dtype=UINT[nbytes]).astype(np.uint64)
    n = 1
    return np.broadcast_to(row, (n, vec))


def _mapa(ins: P.Instr):
    if ins.parts[1:] not in (["shared::cluster", "u32"], ["shared::cluster", "u64"]):
        raise _unknown(ins)

    def make(m, ins):
        d, a, b = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x = m.read(a, act, 32, ins)
            r = m.read(b, act, 32, ins)
            m.write(d.name, act, ((r + np.uint64(1)) << np.uint64(CLUSTER_RANK_SHIFT)) | x,
                    64, ins)
            m.advance(idx)
        return run
    return make


def _cvta(ins: P.Instr):
    """cvta.global.u64 and cvta.to.global.u64 (the tensor-map operand of
    cp.async.bulk.tensor is a generic address; CuTe DSL converts a generic pointer to a
    global one before st.global): the simulator's generic window onto global memory is
    the identity, so the generic address of a global address is itself and the global
    address of a generic one (that points into global memory) too. Ordinary generic loads and stores stay
    unmodelled (``_memory_form``)."""
    if ins.parts[1:] == ["param", "u64"]:
        return _cvta_param
    # cvta.to.global.u64 (generic -> global): the same identity, the other way
    if ins.parts[1:] not in (["global", "u64"], ["to", "global", "u64"]):
        raise _unknown(ins, "generic addresses are not modelled (only cvta.global.u64, "
                            "cvta.to.global.u64 and cvta.param.u64)")

    def make(m, ins):
        d, a = ins.operands

        def apply(act):
            m.write(d.name, act, m.read(a, act, 64, ins), 64, ins)

        def run(ins, idx):
            apply(m.guarded(ins, idx))
            m.advance(idx)
        if ins.guard is None:   # a body for the fused stretches (machine_stepping._fused)
            run.body = apply
            apply.plan_for = lambda at: fused_plans.mov_plan(
                m, 64, a, d, lambda at: m.read(a, at, 64, ins), at)
        return run
    return make


def _cvta_param(m: Machine, ins: P.Instr):
    """``cvta.param.u64 d, a`` (the data-movement instruction cvta, 9.7.9): the generic
    address of the kernel parameter whose param-space address is a: a by-value tensor
    map's (sim/param_space.py)."""
    from tcgen05_lower.sim import param_space

    d, a = ins.operands

    def run(ins, idx):
        act = m.guarded(ins, idx)
        values = np.asarray(m.read(a, act, 64, ins), np.uint64).reshape(-1)
        try:
            generic = [param_space.generic_address(m, int(v)) for v in np.unique(values)]
        except SimError as err:
            raise SimError(err.message, ins.line, ins.text) from None
        lookup = dict(zip((int(v) for v in np.unique(values)), generic))
        out = np.array([lookup[int(v)] for v in values], np.uint64)
        m.write(d.name, act, out if out.size > 1 else out[0], 64, ins)
        m.advance(idx)
    return run


def _cp(ins: P.Instr):
    from tcgen05_lower.sim import bulk, tma
    return bulk.handler(ins, _memory_access()) or tma.handler(ins)


def _warp_matrix(ins: P.Instr):
    from tcgen05_lower.sim import warp_matrix
    return getattr(warp_matrix, ins.parts[0])(ins, _memory_access())


def _memory_access() -> MemoryAccess:
    """This module's loads and stores, for the handlers of bulk and warp_matrix (which
    this module imports, so they do not import it)."""
    return MemoryAccess(load=load, store=store, global_buffers=_globals)
