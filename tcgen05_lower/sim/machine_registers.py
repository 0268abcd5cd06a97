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
