"""The registers and operands of a ``Machine`` (sim/executor.py) as instruction handlers
read and write them: register arrays over the cluster's threads (raw bits in uint64,
predicates in bool), immediates and symbols with the bits of the instruction's type, and
``[base+offset]`` addresses.
"""

from __future__ import annotations

import struct

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import MASK, parse_type

#: At most this many groups of threads are kept as strided rows per run (``rows_of``).
_KEPT_ROWS = 64


class MachineRegisters:
    """Register and operand access of ``executor.Machine`` (a mixin of it)."""

    def reg(self, name: str, ins: P.Instr | None = None) -> np.ndarray:
        """The array of register ``name`` (created on first use, zeros)."""
        arr = self.regs.get(name)
        if arr is not None:
            return arr
        ty = self.entry.reg_type(name)
        if ty is None:
            raise SimError(f"register {name} is not declared", ins.line if ins else None,
                           ins.text if ins else "")
        arr = np.zeros(self.nthreads, dtype=bool if ty == ".pred" else np.uint64)
        self.regs[name] = arr
        return arr

    # -- threads as rows of a strided view ----------------------------------------------------
    def rows_of(self, at):
        """``at`` (a fused stretch's threads: a slice, or sorted ids) as the run's kept id
        array of the same threads when they are two or more runs of equally many
        consecutive threads at a constant stride (a CTA pair's same warps: one run per
        CTA), so that a register's elements of them are a 2-D view (``register_view``)
        and a stretch's plan (machine_stepping._fused, kept by the identity of its
        threads) serves them from run to run; else ``at`` itself. The kept array is
        read-only (nothing may change it in place) and equal to ``at``."""
        if type(at) is not np.ndarray or at.ndim != 1 or at.size < 2:
            return at
        key = (int(at[0]), int(at[-1]), at.size)
        kept = self.__dict__.setdefault("_kept_rows", {})
        found = kept.get(key)
        if found is not None:
            ids = found[0]
            return ids if ids is at or ids.tobytes() == at.tobytes() else at
        shape = _strided_rows(at)
        if shape is None or len(kept) >= _KEPT_ROWS:
            return at
        ids = at.astype(np.int64)
        ids.flags.writeable = False
        kept[key] = (ids, shape)
        self.__dict__.setdefault("_rows_shape", {})[id(ids)] = (ids, shape)
        return ids

    def register_view(self, arr: np.ndarray, at):
        """The elements of the threads ``at`` of register array ``arr`` as a view (written
        in place): ``arr[at]`` for a slice, a (runs, threads per run) view for ids kept
        by ``rows_of``; None for other ids (indexing would copy)."""
        if type(at) is slice:
            return arr[at]
        found = self.__dict__.get("_rows_shape", {}).get(id(at))
        if found is None or found[0] is not at or arr.ndim != 1 or \
                arr.size != self.nthreads or not arr.flags.c_contiguous:
            return None
        start, stride, runs, length = found[1]
        item = arr.itemsize   # (a register array: made whole, one-dimensional)
        return np.ndarray((runs, length), arr.dtype, arr, start * item,
                          (stride * item, item))

    def reg_bits(self, name: str) -> int:
        ty = self.entry.reg_type(name)
        parsed = parse_type(ty[1:]) if ty else None
        return 64 if parsed is None else max(parsed[1], 1)

    # -- operand access --------------------------------------------------------------------
    def read(self, op, idx, bits: int, ins: P.Instr) -> np.ndarray:
        """An operand's raw bits for the threads ``idx`` (array, or a broadcast scalar)."""
        if isinstance(op, P.Reg):
            arr = self.regs.get(op.name)
            if arr is None:
                arr = self.reg(op.name, ins)
            v = arr[idx]
            return v.astype(np.uint64) if arr.dtype == bool else v & MASK[bits]
        if isinstance(op, P.Imm):
            return np.uint64(self.imm_bits(op, bits))
        if isinstance(op, P.Sym):
            return np.uint64(self.symbol_address(op.name, ins))
        raise SimError(f"operand {op} cannot be read as a value", ins.line, ins.text)

    def imm_bits(self, op: P.Imm, bits: int) -> int:
        if op.bits is not None:
            if op.width == 64 and bits == 32:  # 0d literal for a .f32 operand
                return struct.unpack("<I", struct.pack("<f", struct.unpack(
                    "<d", op.bits.to_bytes(8, "little"))[0]))[0]
            if op.width == 32 and bits == 64:
                f = struct.unpack("<f", op.bits.to_bytes(4, "little"))[0]
                return struct.unpack("<Q", struct.pack("<d", f))[0]
            return op.bits
        if isinstance(op.value, float):
            fmt = {32: ("<f", "<I"), 64: ("<d", "<Q")}[bits]
            return struct.unpack(fmt[1], struct.pack(fmt[0], op.value))[0]
        return op.value & ((1 << bits) - 1)

    def symbol_address(self, name: str, ins: P.Instr) -> int:
        if name in self.shared_addr:
            return self.shared_addr[name]
        if name in self.__dict__.get("param_window", ()):  # sim/param_space.py
            return self.param_window[name]
        raise SimError(f"unknown symbol {name}", ins.line, ins.text)

    def write(self, name: str, idx, value, bits: int, ins: P.Instr) -> None:
        arr = self.regs.get(name)
        if arr is None:
            arr = self.reg(name, ins)
        kind = type(value)
        if arr.dtype == bool:
            # a bool, or an array of them, is its own ``!= 0`` (no conversion, no copy)
            if kind is bool or kind is np.ndarray and value.dtype == bool:
                arr[idx] = value
            else:
                arr[idx] = np.asarray(value) != 0
        elif bits == 64:   # (the mask of 64 bits changes nothing)
            arr[idx] = np.asarray(value, dtype=np.uint64)
        elif kind is np.ndarray and type(idx) is slice and value.dtype == np.uint64 and \
                value.shape == arr[idx].shape:
            # the masked value straight into the register's slice (a view): no temporary
            np.bitwise_and(value, MASK[bits], arr[idx])
        else:
            arr[idx] = np.asarray(value, dtype=np.uint64) & MASK[bits]

    def address(self, op, idx, ins: P.Instr) -> np.ndarray:
        """The per-thread value of a ``[base+offset]`` operand."""
        if not isinstance(op, P.Addr):
            raise SimError("expected an address operand [..]", ins.line, ins.text)
        if op.base is None or isinstance(op.base, P.Sym):
            # [imm] or [symbol+imm]: the same address in every thread of `idx`.
            value = 0 if op.base is None else self.symbol_address(op.base.name, ins)
            base = np.full(self.pc[idx].shape, value, dtype=np.uint64)
        else:
            base = self.read(op.base, idx, 64, ins)
        return (np.asarray(base, dtype=np.uint64) + np.uint64(op.offset & 0xFFFFFFFFFFFFFFFF))


def _strided_rows(ids: np.ndarray):
    """(first thread, stride, runs, threads per run) when the sorted ids are two or more
    runs of equally many consecutive threads whose first threads are a constant stride
    apart, else None."""
    breaks = np.flatnonzero(np.diff(ids) != 1) + 1
    runs = breaks.size + 1
    if runs < 2 or ids.size % runs:
        return None
    length = ids.size // runs
    rows = ids.reshape(runs, length)
    firsts = rows[:, 0]
    stride = int(firsts[1] - firsts[0])
    if stride < length or not (np.diff(firsts) == stride).all() or \
            not (rows - firsts[:, None] == np.arange(length)).all():
        return None
    return int(firsts[0]), stride, runs, length
