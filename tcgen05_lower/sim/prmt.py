"""``prmt.b32 d, a, b, c`` in its default (generic) mode, PTX ISA 9.7.8 "Logic and
Shift Instructions: prmt": a byte permute, which Triton emits to pack fp8 bytes into a
32-bit word before a TMA store of an fp8 tile.

The eight bytes {b, a} are numbered 0-3 (a's, least significant first) and 4-7 (b's).
Result byte i is chosen by the nibble c[4i+3 : 4i]: its low three bits select a source
byte, and its top bit (the sign mode), when set, replaces the byte by its own most
significant bit replicated over all eight bits (0x00 or 0xFF). Only c's low 16 bits are
read. The other modes (.f4e, .b4e, .rc8, .ecl, .ecr, .rc16) are not modelled and are
refused by name.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import ptx as P


def permute(a, b, c) -> np.ndarray:
    """The generic-mode prmt of 32-bit words a, b with selector c (arrays of uint64)."""
    a = np.asarray(a, np.uint64) & np.uint64(0xFFFFFFFF)
    b = np.asarray(b, np.uint64) & np.uint64(0xFFFFFFFF)
    c = np.asarray(c, np.uint64)
    source = (b << np.uint64(32)) | a
    out = np.zeros(np.broadcast(a, b, c).shape, np.uint64)
    for i in range(4):
        nibble = (c >> np.uint64(4 * i)) & np.uint64(0xF)
        byte = (source >> ((nibble & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
        sign = (byte >> np.uint64(7)) * np.uint64(0xFF)
        byte = np.where(nibble & np.uint64(8), sign, byte)
        out |= byte << np.uint64(8 * i)
    return out


def handler(ins: P.Instr, unknown):
    """The executor's factory for ``prmt.b32`` (generic mode); `unknown` makes the error
    an unmodelled form raises."""
    if ins.parts != ["prmt", "b32"]:
        raise unknown(ins, "only the generic mode of prmt.b32 is modelled")

    def make(m, ins):
        if len(ins.operands) != 4:
            raise unknown(ins, "prmt takes d, a, b, c")
        d, a, b, c = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            r = permute(m.read(a, act, 32, ins), m.read(b, act, 32, ins),
                        m.read(c, act, 32, ins))
            m.write(d.name, act, r, 32, ins)
            m.advance(idx)
        return run
    return make
