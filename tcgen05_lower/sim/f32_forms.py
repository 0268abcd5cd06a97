"""Two f32 forms Triton emits in its attention kernels' softmax (PTX ISA 9.7.3,
"Floating-Point Instructions"):

- packed pairs, ``add / sub / mul{.rn}.f32x2 d, a, b`` and ``fma.rn.f32x2 d, a, b, c``
  (sm_100 and later): each operand a .b64 register holding two f32 values, bits 0-31 and
  32-63, and the operation done on each half independently, rounded to nearest even as
  the .f32 form;
- ``div.full.f32 d, a, b``: a full-range approximate division, which the ISA bounds to
  2 ulp of error; the model gives the correctly rounded quotient, one value the bound
  admits (a kernel whose result depends on which one is not portable).

``.ftz`` and ``.sat`` are not modelled and are refused by name.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.words import from_float, to_float

_LOW = np.uint64(0xFFFFFFFF)
_OPS = MappingProxyType({"add": lambda x, y: x + y, "sub": lambda x, y: x - y,
                         "mul": lambda x, y: x * y})


def is_f32x2(ins: P.Instr) -> bool:
    """Is `ins` a packed f32x2 instruction?"""
    return ins.parts[-1] == "f32x2"


def is_div_full(ins: P.Instr) -> bool:
    """Is `ins` ``div.full...``?"""
    return ins.parts[0] == "div" and "full" in ins.parts


def halves(words) -> tuple[np.ndarray, np.ndarray]:
    """The two f32 values (bits 0-31, bits 32-63) of 64-bit words, as float32."""
    words = np.asarray(words, np.uint64)
    return to_float(words & _LOW, 32), to_float(words >> np.uint64(32), 32)


def pack(low, high) -> np.ndarray:
    """Two float32 arrays as 64-bit words (low in bits 0-31)."""
    return from_float(low, 32) | (from_float(high, 32) << np.uint64(32))


def packed(base: str, operands: list) -> np.ndarray:
    """add / sub / mul / fma of f32x2 words, each half rounded once to f32."""
    pairs = [halves(v) for v in operands]
    out = []
    for i in (0, 1):
        if base == "fma":
            a, b, c = (p[i].astype(np.float64) for p in pairs)
            # the f32 product is exact in float64; one rounding of the sum to f32, as fma.rn.f32
            out.append((a * b + c).astype(np.float32))
        else:
            out.append(_OPS[base](pairs[0][i], pairs[1][i]).astype(np.float32))
    return pack(*out)


def f32x2_handler(ins: P.Instr, unknown):
    """The executor's factory for add / sub / mul / fma .f32x2."""
    base, mods = ins.parts[0], set(ins.parts[1:-1])
    if base not in (*_OPS, "fma") or mods - {"rn"} or (base == "fma" and "rn" not in mods):
        raise unknown(ins, "only add / sub / mul {.rn} and fma.rn of .f32x2 are modelled")

    def make(m, ins):
        d, *sources = ins.operands
        if len(sources) != (3 if base == "fma" else 2):
            raise unknown(ins, "wrong number of operands")

        def run(ins, idx):
            act = m.guarded(ins, idx)
            r = packed(base, [m.read(s, act, 64, ins) for s in sources])
            m.write(d.name, act, r, 64, ins)
            m.advance(idx)
        return run
    return make


def div_full_handler(ins: P.Instr, unknown):
    """The executor's factory for ``div.full.f32``."""
    if ins.parts != ["div", "full", "f32"]:
        raise unknown(ins, "only div.full.f32 is modelled")

    def make(m, ins):
        d, a, b = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            x, y = to_float(m.read(a, act, 32, ins), 32), to_float(m.read(b, act, 32, ins), 32)
            with np.errstate(divide="ignore", invalid="ignore"):
                q = (x / y).astype(np.float32)
            m.write(d.name, act, from_float(q, 32), 32, ins)
            m.advance(idx)
        return run
    return make
