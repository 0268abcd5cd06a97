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

The qualifier grammar accepted here is the one of the syntax blocks of 9.7.16.7-9.7.16.10;
anything else is an unknown instruction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import ptx as P
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
_U64 = (1 << 64) - 1


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
        def run(ins, idx):
            act = m.guarded(ins, idx)
            for g in m.threads_of(act):
                g = int(g)
                rank = int(m.rank[g])
                operands = [_scalar_operand(m, o, g, ins) for o in ins.operands]
                tensor_op = m.tc.issue_async(ins.opcode, operands, rank, m.launch.cluster,
                                              **m.issue_kwargs)
                _check_allocated(m, tensor_op, ins)
                m.ordering.issue(g, tensor_op, ins.line)
            m.advance(idx)
        return run
    return make


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


def _check_allocated(m: Machine, tensor_op, ins: P.Instr) -> None:
    fp = tensor_op.footprint
    for masks in (fp.tmem_reads, fp.tmem_writes):
        for rank, mask in masks.items():
            m.ordering.check_tmem_allocated(rank, mask, ins.line)


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
        lean = None if red else lean_load(m, ins, taddr_op, dst, imm)

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


def lean_load(m: Machine, ins: P.Instr, taddr_op, dst: list[str], imm: int | None):
    """The lean form of a tcgen05.ld without .red whose address is ``[register+imm]``
    (``_LeanLoad``), or None when the machine's tensor core is not ``tensor_core`` (a
    stand-in takes the general code)."""
    from tcgen05_lower.sim import tensor_core
    if not isinstance(taddr_op, P.Addr) or not isinstance(taddr_op.base, P.Reg) \
            or m.tc is not tensor_core:
        return None
    return _LeanLoad(m, ins, taddr_op, dst, imm)


class _LeanLoad:
    """tcgen05.ld of one instruction by full warps, as ``_load_warp`` does it, with what
    depends only on the address and the warp kept per (address, first thread) for the
    run (the machine's handler owns it): the warp's CTA, the cells
    (``tensor_core.built_load``, the footprint shared by those lds). Per warp there
    remain the address register read, the TMEM read, the allocation check and the issue.
    The destination registers of the warps of one execution are written together after
    their issues, one slice store per register, instead of each warp's before its issue:
    nothing in between reads them (an issue reads no register, each warp its own
    threads' address), and ``run`` writes those loaded before a warp the general code
    loads and before an error leaves it, as the general code would have.

    ``load`` does nothing and answers False for anything else, which the general code
    then does (and reports) as before: a warp of fewer than 32 threads or not
    consecutive ones, or whose lanes are not its threads in order; an address that
    differs between the threads; a destination or address register not made yet or a
    predicate; a fragment of another width than the registers named."""

    __slots__ = ("m", "ins", "base", "offset", "dst", "imm", "plans", "arrays", "ids",
                 "columns_checked")

    #: Plans kept at most (an ld's addresses x warps in a run: a few dozen).
    LIMIT = 256

    def __init__(self, m: Machine, ins: P.Instr, taddr_op: P.Addr, dst: list[str],
                 imm: int | None):
        self.m, self.ins, self.dst, self.imm = m, ins, dst, imm
        self.base, self.offset = taddr_op.base.name, taddr_op.offset & _U64
        self.plans: dict = {}
        self.arrays = None
        # the machine's thread ids when its warps are its threads 32 by 32 (every CTA a
        # whole number of warps), else None
        ids = np.arange(m.nthreads)
        self.ids = ids if np.array_equal(m.warp_of, ids // 32) else None
        # whether the ordering model's check_tmem_allocated is TensorOrdering's: that
        # the columns an ld's mask touches are in its ``allocated`` columns of the CTA
        from tcgen05_lower.sim.ordering_tensor import TensorOrdering
        check = getattr(type(m.ordering), "check_tmem_allocated", None)
        self.columns_checked = check is TensorOrdering.check_tmem_allocated

    def warps(self, act) -> list[np.ndarray]:
        """``m.warps(act)``: for consecutive threads from a warp's first, whole warps
        (when warps are the threads 32 by 32), slices of them instead of np.split's
        search for the warps' ends."""
        m, ids = self.m, self.ids
        threads = m.threads_of(act)
        n = len(threads)
        if ids is None or n == 0 or n % 32 or threads.dtype != ids.dtype:
            return m.warps(act)
        lo = int(threads[0])
        if lo % 32 or threads.tobytes() != ids[lo:lo + n].tobytes():
            return m.warps(act)
        return [threads[k:k + 32] for k in range(0, n, 32)]

    def run(self, warps: list[np.ndarray], general) -> None:
        """The ld by each of `warps` in order: lean, or by `general(warp)`."""
        loaded: list = []   # (first thread, registers' values) not written yet
        try:
            for warp in warps:
                if not self.load(warp, loaded):
                    self._write(loaded)
                    general(warp)
        finally:
            self._write(loaded)

    def _registers(self):
        """The address register's array and the destinations' (a register's array,
        once made, is the machine's for the run: MachineRegisters.reg), or None while
        one is not made yet or is a predicate."""
        if self.arrays is None:
            regs = self.m.regs
            arrays = [regs.get(name) for name in [self.base, *self.dst]]
            if any(a is None or a.dtype != np.uint64 for a in arrays):
                return None
            self.arrays = arrays
        return self.arrays

    def load(self, warp: np.ndarray, loaded: list) -> bool:
        """The ld by `warp` (global thread ids), its registers' values appended to
        `loaded` before its issue; or False with nothing done."""
        if len(warp) != 32:
            return False
        lo = int(warp[0])
        if int(warp[-1]) != lo + 31:
            return False
        arrays = self._registers()
        if arrays is None:
            return False
        base = arrays[0][lo:lo + 32]
        if base.tobytes() != base[:1].tobytes() * 32:   # not warp-uniform
            return False
        taddr = (int(base[0]) + self.offset) & _U64   # m.address's sum
        plan = self.plans.get((taddr, lo))
        if plan is None:
            plan = self._plan(taddr, lo)
        if plan is False:
            return False
        m, rank, at, packed, fp = self.m, *plan
        cells = m.tc.loaded_cells(m.ctas[rank].tmem, at, packed)
        tensor_op = m.tc.ld_operation(fp)
        columns = at[1]   # a block's: its mask's columns
        if not self.columns_checked or not isinstance(columns, slice) or \
                not m.ordering.allocated[rank][columns].all():
            _check_allocated(m, tensor_op, self.ins)   # the general check (and its error)
        loaded.append((lo, cells.T.astype(np.uint64)))   # [registers, 32], a copy
        m.ordering.issue(lo, tensor_op, self.ins.line)
        return True

    def _write(self, loaded: list) -> None:
        """Writes the registers of the warps in `loaded` and empties it: one slice of
        each register for consecutive warps."""
        if not loaded:
            return
        first = loaded[0][0]
        if all(lo == first + 32 * at for at, (lo, _) in enumerate(loaded)):
            values = loaded[0][1] if len(loaded) == 1 else \
                np.concatenate([v for _, v in loaded], axis=1)
            parts = [(slice(first, first + values.shape[1]), values)]
        else:
            parts = [(slice(lo, lo + 32), v) for lo, v in loaded]
        loaded.clear()
        for rows, values in parts:
            for array, row in zip(self.arrays[1:], values):
                array[rows] = row

    def _plan(self, taddr: int, lo: int):
        """(CTA, cells, packed, footprint) of the ld at `taddr` by the warp whose first
        thread is `lo`, kept; False (kept) when its lanes are not its threads in order or
        its fragment has not one register per destination. SimError as tensor_core.load
        for an address the warp may not access."""
        m = self.m
        rank, w = int(m.rank[lo]), int(m.tid[lo] // 32)
        at, packed, fp = m.tc.built_load(self.ins.opcode, taddr, w, rank, self.imm,
                                         m.issue_kwargs.get("cache"))
        cells = m.tc.loaded_cells(m.ctas[rank].tmem, at, packed)
        plan = (rank, at, packed, fp)
        if not (m.tid[lo:lo + 32] % 32 == np.arange(32)).all() \
                or cells.shape != (32, len(self.dst)):
            plan = False
        if len(self.plans) >= self.LIMIT:
            self.plans.clear()
        self.plans[taddr, lo] = plan
        return plan


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

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            for warp in m.warps(act):
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
            m.advance(idx)
        return run
    return make
