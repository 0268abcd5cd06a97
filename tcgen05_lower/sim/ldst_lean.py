"""The lean forms of tcgen05.ld and tcgen05.st (9.7.16.8) that tcgen05_ops.py's handlers
take for whole warps, and the TMEM allocation check both forms and the general code make.

An ld or st of a kernel is executed again and again by the same warps at a few
addresses: what depends only on the instruction, the address and the warp (the warp's
CTA, the cells, the footprint: ``tensor_core.built_load`` / ``built_store``) is kept per
(address, first thread) for the run by the instruction's handler (the machine owns it,
nothing lives past the run). Per warp there remain the address register read, the
registers' values, the TMEM access, the allocation check and the issue, each a few
array operations on whole warps instead of per register and per thread.

Whatever a lean form does not describe exactly it leaves to the general code (which then
does and reports it as before): ``load`` / ``store`` answer False with nothing done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tcgen05_lower.sim import ptx as P

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine

_U64 = (1 << 64) - 1


def check_allocated(m: Machine, tensor_op, ins: P.Instr) -> None:
    """The ordering model's check that the TMEM cells `tensor_op` reads and writes are
    in allocated columns (SimError naming them otherwise, 9.7.16.7)."""
    fp = tensor_op.footprint
    for masks in (fp.tmem_reads, fp.tmem_writes):
        for rank, mask in masks.items():
            m.ordering.check_tmem_allocated(rank, mask, ins.line)


def _takes_lean(m: Machine, taddr_op) -> bool:
    """Whether an ld / st of address operand `taddr_op` can take a lean form: the
    address is ``[register+imm]`` and the machine's tensor core is ``tensor_core`` (a
    stand-in takes the general code)."""
    from tcgen05_lower.sim import tensor_core
    return isinstance(taddr_op, P.Addr) and isinstance(taddr_op.base, P.Reg) and \
        m.tc is tensor_core


def lean_load(m: Machine, ins: P.Instr, taddr_op, dst: list[str], imm: int | None):
    """The lean form of a tcgen05.ld without .red (``_LeanLoad``), or None."""
    return _LeanLoad(m, ins, taddr_op, dst, imm) if _takes_lean(m, taddr_op) else None


def lean_store(m: Machine, ins: P.Instr, taddr_op, src: list[str], imm: int | None):
    """The lean form of a tcgen05.st (``_LeanStore``), or None."""
    return _LeanStore(m, ins, taddr_op, src, imm) if _takes_lean(m, taddr_op) else None


class _LeanWarps:
    """What the lean ld and st share: whole warps, the address register and the data
    registers ``names`` (destinations or sources) as arrays, the plans per (address,
    first thread) and the allocation check of a block's columns."""

    __slots__ = ("m", "ins", "base", "offset", "names", "imm", "plans", "arrays", "ids",
                 "columns_checked", "in_order")

    #: Plans kept at most (an instruction's addresses x warps in a run: a few dozen).
    LIMIT = 256

    def __init__(self, m: Machine, ins: P.Instr, taddr_op: P.Addr, names: list[str],
                 imm: int | None):
        self.m, self.ins, self.names, self.imm = m, ins, names, imm
        self.base, self.offset = taddr_op.base.name, taddr_op.offset & _U64
        self.plans: dict = {}
        self.in_order: dict = {}   # first thread -> _in_order's answer
        self.arrays = None
        # the machine's thread ids when its warps are its threads 32 by 32 (every CTA a
        # whole number of warps), else None
        ids = np.arange(m.nthreads)
        self.ids = ids if np.array_equal(m.warp_of, ids // 32) else None
        # whether the ordering model's check_tmem_allocated is TensorOrdering's: that
        # the columns a mask touches are in its ``allocated`` columns of the CTA
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

    def _registers(self):
        """The address register's array and the data registers' (a register's array,
        once made, is the machine's for the run: MachineRegisters.reg), or None while
        one is not made yet or is a predicate."""
        if self.arrays is None:
            regs = self.m.regs
            arrays = [regs.get(name) for name in [self.base, *self.names]]
            if any(a is None or a.dtype != np.uint64 for a in arrays):
                return None
            self.arrays = arrays
        return self.arrays

    def _plan_of(self, warp: np.ndarray):
        """(first thread, the registers' arrays, the plan) of the access by `warp`, or
        None when it is not a whole warp of consecutive threads with all its registers
        made and one address."""
        if len(warp) != 32:
            return None
        lo = int(warp[0])
        if int(warp[-1]) != lo + 31:
            return None
        arrays = self._registers()
        if arrays is None:
            return None
        base = arrays[0][lo:lo + 32]
        if base.tobytes() != base[:1].tobytes() * 32:   # not warp-uniform
            return None
        taddr = (int(base[0]) + self.offset) & _U64   # m.address's sum
        plan = self.plans.get((taddr, lo))
        if plan is None:
            plan = self._plan(taddr, lo)
        return None if plan is False else (lo, arrays, plan)

    def _plan(self, taddr: int, lo: int):
        """(CTA, cells, packed, footprint) of the access at `taddr` by the warp whose
        first thread is `lo`, kept; False (kept) when its lanes are not its threads in
        order or its fragment has not one register per name. SimError as tensor_core's
        load / store for an address the warp may not access."""
        m = self.m
        rank, w = int(m.rank[lo]), int(m.tid[lo] // 32)
        at, packed, fp = self._build(m.tc, taddr, w, rank, m.issue_kwargs.get("cache"))
        plan = (rank, at, packed, fp)
        if not self._in_order(lo) or _shape(m, rank, at, packed) != (32, len(self.names)):
            plan = False
        if len(self.plans) >= self.LIMIT:
            self.plans.clear()
        self.plans[taddr, lo] = plan
        return plan

    def _in_order(self, lo: int) -> bool:
        """Whether the lanes of the warp whose first thread is `lo` are its threads in
        order (the machine's thread ids do not change in a run: answered once per
        warp)."""
        found = self.in_order.get(lo)
        if found is None:
            found = self.in_order[lo] = bool((self.m.tid[lo:lo + 32] % 32 ==
                                              np.arange(32)).all())
        return found

    def _check_allocated(self, rank: int, at, tensor_op) -> None:
        columns = at[1]   # a block's: its mask's columns
        if not self.columns_checked or not isinstance(columns, slice) or \
                not self.m.ordering.allocated[rank][columns].all():
            check_allocated(self.m, tensor_op, self.ins)   # the general check, its error


def _shape(m: Machine, rank: int, at, packed: bool) -> tuple:
    """The shape of the registers ``loaded_cells`` gives for cells `at`: that of an
    unpacked block from its slices (of step 1, inside TMEM: ``tensor_core``'s blocks),
    else of the cells read."""
    if not packed and isinstance(at, tuple) and len(at) == 2 and all(
            isinstance(part, slice) and part.step is None and type(part.start) is int
            and type(part.stop) is int and 0 <= part.start <= part.stop <= size
            for part, size in zip(at, m.ctas[rank].tmem.shape)):
        return at[0].stop - at[0].start, at[1].stop - at[1].start
    return m.tc.loaded_cells(m.ctas[rank].tmem, at, packed).shape


class _LeanLoad(_LeanWarps):
    """tcgen05.ld of one instruction by whole warps, as tcgen05_ops._load_warp does it.
    The destination registers of the warps of one execution are written together after
    their issues, one slice store per register, instead of each warp's before its issue:
    nothing in between reads them (an issue reads no register, each warp its own
    threads' address), and ``run`` writes those loaded before a warp the general code
    loads and before an error leaves it, as the general code would have.

    ``load`` does nothing and answers False for anything else: a warp of fewer than 32
    threads or not consecutive ones, or whose lanes are not its threads in order; an
    address that differs between the threads; a destination or address register not
    made yet or a predicate; a fragment of another width than the registers named."""

    __slots__ = ()

    def _build(self, tc, taddr, w, rank, cache):
        return tc.built_load(self.ins.opcode, taddr, w, rank, self.imm, cache)

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

    def load(self, warp: np.ndarray, loaded: list) -> bool:
        """The ld by `warp` (global thread ids), its registers' values appended to
        `loaded` before its issue; or False with nothing done."""
        found = self._plan_of(warp)
        if found is None:
            return False
        m, (lo, _, (rank, at, packed, fp)) = self.m, found
        cells = m.tc.loaded_cells(m.ctas[rank].tmem, at, packed)
        tensor_op = m.tc.ld_operation(fp)
        self._check_allocated(rank, at, tensor_op)
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


class _LeanStore(_LeanWarps):
    """tcgen05.st of one instruction by a whole warp, as tcgen05_ops._store's general
    code does it: the source registers' low 32 bits, one row per thread; the footprint
    of the key shared (``tensor_core.built_store``), the values its own
    (``store_operation``).

    ``store`` does nothing and answers False for what ``_LeanLoad.load`` leaves to the
    general code (sources instead of destinations)."""

    __slots__ = ()

    def _build(self, tc, taddr, w, rank, cache):
        return tc.built_store(self.ins.opcode, taddr, w, rank, self.imm, cache)

    def store(self, warp: np.ndarray) -> bool:
        """The st by `warp` (global thread ids), or False with nothing done."""
        found = self._plan_of(warp)
        if found is None:
            return False
        m, (lo, arrays, (rank, at, packed, fp)) = self.m, found
        rows = slice(lo, lo + 32)
        values = np.stack([a[rows] for a in arrays[1:]], axis=1).astype(np.uint32)
        tensor_op = m.tc.store_operation(fp, rank, at, packed, values)
        self._check_allocated(rank, at, tensor_op)
        m.ordering.issue(lo, tensor_op, self.ins.line)
        return True
