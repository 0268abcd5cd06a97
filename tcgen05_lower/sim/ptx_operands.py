"""The operands of a PTX instruction (sim/ptx.py) and their reader: registers,
immediates, symbols, addresses ``[base+offset]``, vectors ``{a, b}``, the ``d|p``
destination pair of elect.sync and the ``[tensorMap, {c0, ...}]`` operand of the TMA.
Operands are immutable values: the parser shares one object among equal texts."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tcgen05_lower.sim.ptx_text import parse_int, split_top

# -- operands -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reg:
    """A register (``%r5``, ``%p1``, a block-local ``done#3``) or special register
    (``%tid.x``)."""
    name: str


@dataclass(frozen=True)
class Imm:
    """An immediate: ``int`` (decimal, hex, octal, binary; negative allowed) or ``float``
    (``0f3F800000`` / ``0d...`` bit patterns are kept as their bits in ``bits``)."""
    value: int | float
    bits: int | None = None  # raw bits of a 0f/0d literal
    width: int | None = None  # 32 for 0f, 64 for 0d


@dataclass(frozen=True)
class Sym:
    """A symbol: a variable, parameter or label name."""
    name: str


@dataclass(frozen=True)
class Addr:
    """A bracketed address ``[base+offset]``: base is a Reg or Sym (or None for ``[imm]``)."""
    base: Reg | Sym | None
    offset: int


@dataclass(frozen=True)
class Vec:
    """A ``{a, b, ...}`` vector operand."""
    items: tuple


@dataclass(frozen=True)
class DestPair:
    """The ``d|p`` destination of elect.sync: a register (None for the sink ``_``) and a
    predicate register."""
    first: Reg | None
    second: Reg


@dataclass(frozen=True)
class TensorAddr:
    """The tensor operand ``[tensorMap, {c0, c1, ...}]`` of cp.async.bulk.tensor: the
    tensor map's address and the coordinates (PTX ISA 9.7.9.25.5.1)."""
    base: Addr
    coordinates: Vec


_FLOAT_BITS = re.compile(r"0([fFdD])([0-9a-fA-F]+)$")
_IDENT = re.compile(r"[A-Za-z_$%][\w$.#]*$")
_NAME = re.compile(r"[A-Za-z_$][\w$.#]*$")   # an identifier without '%' (``_operand``)
_FLOAT = re.compile(r"[-+]?\d+\.\d*(?:[eE][-+]?\d+)?")
_ADDRESS = re.compile(r"([%\w$.#]+)?\s*(?:\+\s*([-+]?\w+))?")


def _operand(text: str, resolve):
    t = text.strip()
    if t[:1] == "%" and "|" not in t:
        # a register: nothing else reads a text that starts with '%' (``_operand_any``)
        if _IDENT.match(t):
            return Reg(resolve(t))
        raise ValueError(f"cannot read operand '{t}'")
    if _NAME.match(t):
        # a name (a block's register, a label, a variable): no other reading of
        # ``_operand_any`` accepts a text that starts with a letter, '_' or '$' and has
        # no character outside \w, '$', '.', '#'
        name = resolve(t)
        return Reg(name) if name != t else Sym(t)
    return _operand_any(t, resolve)


def _operand_any(t: str, resolve):
    """An operand of any kind (`t` stripped)."""
    if t.startswith("{"):
        if not t.endswith("}"):
            raise ValueError(f"unbalanced vector operand '{t}'")
        return Vec(tuple(_operand(x, resolve) for x in split_top(t[1:-1])))
    if t.startswith("["):
        if not t.endswith("]"):
            raise ValueError(f"unbalanced address operand '{t}'")
        inner = t[1:-1].strip()
        if "{" in inner:
            items = split_top(inner)
            if len(items) != 2 or not items[1].strip().startswith("{"):
                raise ValueError(f"cannot read tensor operand '{t}'")
            coordinates = _operand(items[1], resolve)
            return TensorAddr(_address(items[0].strip(), resolve), coordinates)
        return _address(inner, resolve)
    if "|" in t:
        first, second = (x.strip() for x in t.split("|", 1))
        pair = (None if first == "_" else _operand(first, resolve), _operand(second, resolve))
        if not all(isinstance(x, Reg) for x in pair if x is not None):
            raise ValueError(f"cannot read destination pair '{t}'")
        return DestPair(*pair)
    value = parse_int(t)
    if value is not None:
        return Imm(value)
    fm = _FLOAT_BITS.match(t)
    if fm:
        width = 32 if fm.group(1) in "fF" else 64
        return Imm(0.0, int(fm.group(2), 16), width)
    if _FLOAT.fullmatch(t):
        return Imm(float(t))
    if t.startswith("!"):
        raise ValueError(f"negated operand '{t}' is not supported")
    if not _IDENT.match(t):
        raise ValueError(f"cannot read operand '{t}'")
    if t.startswith("%"):
        return Reg(resolve(t))
    name = resolve(t)
    return Reg(name) if name != t else Sym(t)


def _address(inner: str, resolve) -> Addr:
    m = _ADDRESS.fullmatch(inner)
    if not m:
        raise ValueError(f"cannot read address '[{inner}]'")
    base_text, off_text = m.group(1), m.group(2)
    base_value = parse_int(base_text) if base_text else None
    if base_value is not None:
        return Addr(None, base_value + (parse_int(off_text) or 0))
    offset = parse_int(off_text) if off_text else 0
    if off_text and offset is None:
        raise ValueError(f"cannot read address offset '{off_text}'")
    base = _operand(base_text, resolve)
    return Addr(base, offset)
