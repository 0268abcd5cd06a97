"""The executor's side of the tcgen05 instructions (PTX ISA 9.7.16): which threads issue
them, what operands they pass, and which model takes them.

- alloc / dealloc / relinquish_alloc_permit (9.7.16.7.1): warp-collective, the ordering
  model keeps the allocation state; alloc writes the returned TMEM address (4 bytes) to
  shared memory at ``[dst]`` of the issuing CTA.
- fence::before_thread_sync / after_thread_sync, commit, wait::ld / wait::st: the
  ordering model.
- mma, cp, shift (single-thread, asynchronous): ``tensor_core.issue_async`` builds the
  operation, ``ordering.issue`` decides when it takes effect.
- ld, ld.red, st (warp-collective, 9.7.16.8): ``tensor_core.load`` / ``store`` once per
  warp; the destination registers are written when ld is issued. The warp's operation is
  issued to the ordering model once, by the warp's lowest active thread (see ordering.py).
  Whole warps take the lean forms of ldst_lean.py (ld without .red, st), which keep per
  address and warp what the general code builds each time.

The qualifier grammar accepted here is the one of the syntax blocks of 9.7.16.7-9.7.16.10;
anything else is an unknown instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import ldst_lean
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ldst_lean import check_allocated as _check_allocated
from tcgen05_lower.sim.words import MASK, SMEM_BASE

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine
from tcgen05_lower.sim.state import Address, SimError

_CTA_GROUP = frozenset({"cta_group::1", "cta_group::2"})
_MMA_QUALIFIERS = frozenset(
    {"ws", "sp", "block_scale", "ashift", "block16", "block32"} | _CTA_GROUP
    | {f"kind::{k}" for k in ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")}
    | {f"scale_vec::{v}" for v in ("1X", "2X", "4X")}
    | {f"collector::{buf}::{use}" for buf in ("a", "b0", "b1", "b2", "b3")
       for use in ("fill", "use", "lastuse", "discard")}
)
_CP_QUALIFIERS = _CTA_GROUP | {"128x256b", "4x256b", "128x128b", "64x128b", "32x128b",
                               "warpx2::02_13", "warpx2::01_23", "warpx4", "b8x16",
                               "b6x16_p32", "b4x16_p64"}
_LDST_SHAPES = frozenset({"16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2"})
_NUMS = frozenset({f"x{n}" for n in (1, 2, 4, 8, 16, 32, 64, 128)})


def _unknown(ins: P.Instr, why: str = "") -> SimError:
    from tcgen05_lower.sim.ops_support import _unknown as unknown
    return unknown(ins, why)


def _cta_group(parts: list[str], ins: P.Instr) -> int:
    groups = [p for p in parts if p in _CTA_GROUP]
    if len(groups) != 1:
        raise _unknown(ins, "exactly one .cta_group::N qualifier")
    return int(groups[0][-1])


def handler_for(ins: P.Instr):
    parts = ins.parts
    op = parts[1]
    rest = parts[2:]
    if op in ("alloc", "dealloc", "relinquish_alloc_permit"):
        expected = {"alloc": ["sync", "aligned", "shared::cta", "b32"],
                    "dealloc": ["sync", "aligned", "b32"],
                    "relinquish_alloc_permit": ["sync", "aligned"]}[op]
        tail = [p for p in rest if p not in _CTA_GROUP]
        if tail != expected and not (op == "alloc" and tail == ["sync", "aligned", "b32"]):
            raise _unknown(ins)
        group = _cta_group(rest, ins)
        return {"alloc": _alloc, "dealloc": _dealloc,
                "relinquish_alloc_permit": _relinquish}[op](group)
    if op in ("fence::before_thread_sync", "fence::after_thread_sync") and not rest:
        return _fence(op.split("::")[1])
    if op in ("wait::ld", "wait::st") and rest == ["sync", "aligned"]:
        return _wait(op.split("::")[1])
    if op == "commit":
        group = _cta_group(rest, ins)
        tail = [p for p in rest if p not in _CTA_GROUP]
        multicast = "multicast::cluster" in tail
        allowed = [["mbarrier::arrive::one", "b64"],
                   ["mbarrier::arrive::one", "shared::cluster", "b64"],
                   ["mbarrier::arrive::one", "shared::cluster", "multicast::cluster", "b64"]]
        if tail not in allowed:
            raise _unknown(ins)
        return _commit(group, multicast)
    if op in ("mma", "cp", "shift"):
        return _async(ins, op)
    if op in ("ld", "st"):
        return _ldst(ins, op)
    raise _unknown(ins)


def _async(ins: P.Instr, op: str):
    parts = ins.parts[2:]
    _cta_group(parts, ins)
    if op == "mma":
        kinds = [p for p in parts if p.startswith("kind::")]
        if len(kinds) != 1 or set(parts) - _MMA_QUALIFIERS:
            raise _unknown(ins)
    elif op == "cp":
        if set(parts) - _CP_QUALIFIERS or not set(parts) & {"128x256b", "4x256b", "128x128b",
                                                               "64x128b", "32x128b"}:
            raise _unknown(ins)
    elif [p for p in parts if p not in _CTA_GROUP] != ["down"]:
        raise _unknown(ins)

    def make(m: Machine, ins: P.Instr):
        plans = [_operand_plan(m, o) for o in ins.operands]

        def run(ins, idx):
            act = m.guarded(ins, idx)
            for g in m.threads_of(act):
                g = int(g)
                rank = int(m.rank[g])
                operands = [_planned_operand(m, plan, g, ins) for plan in plans]
                tensor_op = m.tc.issue_async(ins.opcode, operands, rank, m.launch.cluster,
                                              **m.issue_kwargs)
                _check_allocated(m, tensor_op, ins)
                m.ordering.issue(g, tensor_op, ins.line)
            m.advance(idx)
        return run
    return make


#: How _planned_operand reads an operand: a register's value (masked to its width) or
#: predicate, a [register+offset] address, or _scalar_operand for anything else.
_REG, _ADDR, _OTHER = 0, 1, 2


def _operand_plan(m: Machine, op) -> tuple:
    """(how, what) for ``_planned_operand``: for a register its name and the mask of its
    width (its declaration's, fixed for the machine), for an address of a register plus
    an offset the name and the offset as 64 bits; any other operand itself."""
    if isinstance(op, P.Reg):
        try:
            return _REG, (op.name, int(MASK[m.reg_bits(op.name)]))
        except Exception:   # whatever it is, it is reported when read, as before
            return _OTHER, op
    if isinstance(op, P.Addr) and isinstance(op.base, P.Reg):
        return _ADDR, (op.base.name, op.offset & 0xFFFFFFFFFFFFFFFF)
    return _OTHER, op


def _planned_operand(m: Machine, plan: tuple, g: int, ins: P.Instr):
    """``_scalar_operand`` of the planned operand for thread `g`, registers read as
    Python ints (m.address adds in uint64, wrapping; a predicate base reads as 0 or 1
    there too); every other operand through ``_scalar_operand``."""
    how, what = plan
    if how == _REG:
        arr = m.reg(what[0], ins)
        return bool(arr[g]) if arr.dtype == bool else int(arr[g]) & what[1]
    if how == _ADDR:
        return Address((int(m.reg(what[0], ins)[g]) + what[1]) & 0xFFFFFFFFFFFFFFFF)
    return _scalar_operand(m, what, g, ins)


def _scalar_operand(m: Machine, op, g: int, ins: P.Instr):
    """An operand of one thread as the tensor-core model takes it: int for a scalar
    (masked to its register's width), Address for [..], tuple for {..}, bool for a
    predicate register."""
    if isinstance(op, P.Vec):
        return tuple(_scalar_operand(m, o, g, ins) for o in op.items)
    if isinstance(op, P.Addr):
        return Address(int(m.address(op, np.array([g]), ins)[0]))
    if isinstance(op, P.Imm):
        return m.imm_bits(op, 64 if abs(op.value) >= 1 << 32 else 32) \
            if not isinstance(op.value, float) else m.imm_bits(op, 32)
    if isinstance(op, P.Reg):
        arr = m.reg(op.name, ins)
        if arr.dtype == bool:
            return bool(arr[g])
        return int(arr[g] & MASK[m.reg_bits(op.name)])
    raise SimError(f"operand {op} cannot be passed to the tensor core", ins.line, ins.text)


def _uniform(values: np.ndarray, what: str) -> int:
    values = np.asarray(values).reshape(-1)
    if values.size and np.any(values != values[0]):
        raise SimError(f"{what} differs between the threads of a warp (it must be "
                       f"warp-uniform)")
    return int(values[0])


def _warp_value(values, warp: np.ndarray, what: str) -> int:
    """The value of an operand every thread of `warp` must give alike (a register read
    or an address, possibly a scalar when the operand is uniform)."""
    return _uniform(values * np.ones(len(warp), np.uint64), what)


def _alloc(group: int):
    def make(m: Machine, ins: P.Instr):
        dst, ncols = ins.operands

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            for warp in m.warps(act):
                rank = int(m.rank[warp[0]])
                addr = _warp_value(m.address(dst, warp, ins), warp, "the alloc's [dst] address")
                cols = _warp_value(m.read(ncols, warp, 32, ins), warp, "nCols")
                taddr = m.ordering.alloc(warp, rank, cols, group, ins.line)
                _write_smem_u32(m, rank, addr, taddr)
                # the address is written to shared memory like an ordinary store, so
                # other warps must be ordered after it to read it (9.7.16.6.1)
                m.ordering.smem_access(warp[:1], np.array([rank]), np.array([addr]), 4, True,
                                       ins.line)
            m.advance(idx)
        return run
    return make


def _write_smem_u32(m: Machine, rank: int, addr: int, value: int) -> None:
    if addr % 4 or addr < SMEM_BASE or addr + 4 > m.smem_end:
        raise SimError(f"tcgen05.alloc's destination {addr:#x} is not a 4-byte aligned "
                       f"shared-memory address of the CTA")
    m.smem[rank, addr:addr + 4] = np.frombuffer(int(value).to_bytes(4, "little"), np.uint8)


def _dealloc(group: int):
    def make(m: Machine, ins: P.Instr):
        taddr_op, ncols = ins.operands

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            for warp in m.warps(act):
                rank = int(m.rank[warp[0]])
                taddr = _warp_value(m.read(taddr_op, warp, 32, ins), warp, "taddr")
                cols = _warp_value(m.read(ncols, warp, 32, ins), warp, "nCols")
                m.ordering.dealloc(warp, rank, taddr, cols, group, ins.line)
            m.advance(idx)
        return run
    return make


def _relinquish(group: int):
    def make(m: Machine, ins: P.Instr):
        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            for warp in m.warps(act):
                m.ordering.relinquish(warp, int(m.rank[warp[0]]), group, ins.line)
            m.advance(idx)
        return run
    return make


def _fence(kind: str):
    def make(m: Machine, ins: P.Instr):
        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                m.ordering.fence(threads, kind, ins.line)
            m.advance(idx)
        return run
    return make


def _wait(kind: str):
    def make(m: Machine, ins: P.Instr):
        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                m.ordering.wait(threads, kind, ins.line)
            m.advance(idx)
        return run
    return make


def _commit(group: int, multicast: bool):
    def make(m: Machine, ins: P.Instr):
        if len(ins.operands) != (2 if multicast else 1):
            raise SimError("tcgen05.commit: wrong operand count", ins.line, ins.text)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            for g in m.threads_of(act):
                g = int(g)
                rank = int(m.rank[g])
                mbar = int(m.address(ins.operands[0], np.array([g]), ins)[0])
                if multicast:
                    mask = int(m.read(ins.operands[1], np.array([g]), 16, ins).reshape(-1)[0])
                    if mask >> m.launch.cluster:
                        raise SimError(f"tcgen05.commit's ctaMask {mask:#x} names CTAs "
                                       f"outside the cluster of {m.launch.cluster}")
                else:
                    mask = 1 << rank
                m.ordering.commit(g, rank, mbar, mask, ins.line)
                m.epoch += 1
            m.advance(idx)
        return run
    return make


def _ldst(ins: P.Instr, op: str):
    parts = ins.parts[2:]
    red = op == "ld" and parts[:1] == ["red"]
    body = parts[1:] if red else parts
    if body[:2] != ["sync", "aligned"] or len(body) < 5:
        raise _unknown(ins)
    shape, num = body[2], body[3]
    tail = body[4:]
    if shape not in _LDST_SHAPES or num not in _NUMS:
        raise _unknown(ins)
    if red:
        if shape not in ("32x32b", "16x32bx2") or not tail or tail[0] not in ("min", "max"):
            raise _unknown(ins)
        if tail[-1] == "f32":
            if set(tail[1:-1]) - {"abs", "NaN"}:
                raise _unknown(ins)
        elif tail[1:] not in (["u32"], ["s32"]):
            raise _unknown(ins)
    else:
        packing = "pack::16b" if op == "ld" else "unpack::16b"
        if tail not in (["b32"], [packing, "b32"]):
            raise _unknown(ins)
    split = shape == "16x32bx2"
    return _load(split, red) if op == "ld" else _store(split)


def _flatten_regs(op) -> list[str]:
    items = op.items if isinstance(op, P.Vec) else (op,)
    names = []
    for item in items:
        if not isinstance(item, P.Reg):
            raise SimError(f"expected registers, found {item}")
        names.append(item.name)
    return names


def _load(split: bool, red: bool):
    def make(m: Machine, ins: P.Instr):
        ops_ = list(ins.operands)
        imm = None
        if split:
            if not isinstance(ops_[-1], P.Imm):
                raise SimError("the .16x32bx2 shape needs immHalfSplitoff", ins.line, ins.text)
            imm = int(ops_.pop().value)
        dst = _flatten_regs(ops_[0])
        red_dst = _flatten_regs(ops_[1]) if red else []
        taddr_op = ops_[-1]
        lean = None if red else ldst_lean.lean_load(m, ins, taddr_op, dst, imm)

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            if lean is None:
                for warp in m.warps(act):
                    _load_warp(m, ins, warp, taddr_op, dst, red_dst, imm)
            else:
                lean.run(lean.warps(act),
                         lambda warp: _load_warp(m, ins, warp, taddr_op, dst, red_dst, imm))
            m.advance(idx)
        return run
    return make


def _load_warp(m: Machine, ins: P.Instr, warp: np.ndarray, taddr_op, dst: list[str],
               red_dst: list[str], imm: int | None) -> None:
    """tcgen05.ld by the threads `warp` of one warp (the general code)."""
    rank = int(m.rank[warp[0]])
    taddr = _warp_value(m.address(taddr_op, warp, ins), warp, "taddr")
    w = int(m.tid[warp[0]] // 32)
    values, red_values, tensor_op = m.tc.load(ins.opcode, taddr, w, rank, m.ctas,
                                              imm, **m.issue_kwargs)
    _check_allocated(m, tensor_op, ins)
    lanes = m.tid[warp] % 32
    values = np.asarray(values, np.uint32)
    if values.shape[1] != len(dst):
        raise SimError(f"the tensor-core model returned {values.shape[1]} "
                       f"registers; the instruction names {len(dst)}")
    _write_columns(m, dst, warp, values[lanes].astype(np.uint64), ins)
    if red_dst:
        red_values = np.asarray(red_values, np.uint32)
        for j, name in enumerate(red_dst):
            m.write(name, warp, red_values[lanes, j].astype(np.uint64), 32, ins)
    m.ordering.issue(int(warp[0]), tensor_op, ins.line)


def _write_columns(m: Machine, names: list[str], warp: np.ndarray, values: np.ndarray,
                   ins: P.Instr) -> None:
    """m.write(names[j], warp, values[:, j], 32) for every j (values: uint64 below 2**32),
    into consecutive threads through a slice of each register's array."""
    rows = slice(int(warp[0]), int(warp[0]) + len(warp)) \
        if len(warp) and int(warp[-1]) - int(warp[0]) + 1 == len(warp) else warp
    for j, name in enumerate(names):
        arr = m.reg(name, ins)
        if arr.dtype == bool:
            m.write(name, warp, values[:, j], 32, ins)
        else:
            arr[rows] = values[:, j]


def _store(split: bool):
    def make(m: Machine, ins: P.Instr):
        ops_ = list(ins.operands)
        taddr_op = ops_[0]
        imm = None
        if split:
            if not isinstance(ops_[1], P.Imm):
                raise SimError("the .16x32bx2 shape needs immHalfSplitoff", ins.line, ins.text)
            imm = int(ops_[1].value)
        src = _flatten_regs(ops_[-1])
        lean = ldst_lean.lean_store(m, ins, taddr_op, src, imm)

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            for warp in (m.warps(act) if lean is None else lean.warps(act)):
                if lean is None or not lean.store(warp):
                    _store_warp(m, ins, warp, taddr_op, src, imm)
            m.advance(idx)
        return run
    return make


def _store_warp(m: Machine, ins: P.Instr, warp: np.ndarray, taddr_op, src: list[str],
                imm: int | None) -> None:
    """tcgen05.st by the threads `warp` of one warp (the general code)."""
    rank = int(m.rank[warp[0]])
    taddr = _warp_value(m.address(taddr_op, warp, ins), warp, "taddr")
    w = int(m.tid[warp[0]] // 32)
    values = np.zeros((32, len(src)), np.uint32)
    lanes = m.tid[warp] % 32
    for j, name in enumerate(src):
        values[lanes, j] = m.reg(name, ins)[warp].astype(np.uint32)
    tensor_op = m.tc.store(ins.opcode, taddr, w, rank, values, imm)
    _check_allocated(m, tensor_op, ins)
    m.ordering.issue(int(warp[0]), tensor_op, ins.line)
