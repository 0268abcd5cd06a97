"""The instructions the simulator executes, with their semantics from the PTX ISA
(chapter 9: integer 9.7.1, bit manipulation 9.7.2, logic and shift 9.7.8, comparison
9.7.7, conversion 9.7.9, data movement 9.7.10 (mov, ld, st, shfl), control flow 9.7.13,
parallel synchronization 9.7.14 (barrier, mbarrier, fence), tcgen05 9.7.16), and what
other front ends emit around tcgen05 (Triton, Gluon): ldmatrix / stmatrix
(sim/warp_matrix.py), brx.idx, bar.warp.sync, mbarrier.inval, cvt to f16x2 / bf16x2,
cvta.param of by-value tensor maps (sim/param_space.py), TMA stores and cp.async with
their groups (sim/bulk.py), prmt's byte permute (sim/prmt.py), f32x2 pairs and div.full.f32
(sim/f32_forms.py).

``decode(machine, ins)`` returns the handler of one instruction, or raises SimError for an
opcode or modifier outside this set: an unknown instruction is never a silent no-op.
``known(opcode)`` answers the same question for an opcode string (the census test uses it).

This module is the dispatch; the handlers live by instruction family: ``ops_arith``
(integer, float, logic, comparison, mov, bit fields), ``ops_convert`` (cvt, ex2,
copysign, fma, sqrt), ``ops_memory`` (ld, st, mapa, cvta, cp, ldmatrix / stmatrix),
``ops_control`` (branches, exit, barriers, shfl, elect, setmaxnreg), ``ops_mbarrier``
(mbarrier, fence) and ``tcgen05_ops``; ``ops_support`` holds what they share.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from tcgen05_lower.sim import f32_forms
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_arith import (_abs, _bfe, _bfi, _check_alu, _mad, _mov, _neg, _not,
                                         _selp, _setp)
from tcgen05_lower.sim.ops_control import (_barrier, _bra, _brx, _elect, _ret, _setmaxnreg,
                                           _shfl)
from tcgen05_lower.sim.ops_convert import _copysign, _cvt, _ex2, _fma, _sqrt
from tcgen05_lower.sim.ops_mbarrier import _fence, _mbarrier
from tcgen05_lower.sim.ops_memory import _cp, _cvta, _ld, _mapa, _st, _warp_matrix
from tcgen05_lower.sim.ops_support import Unknown, _unknown
from tcgen05_lower.sim.prmt import handler as prmt_handler
from tcgen05_lower.sim.vote import vote_handler

if TYPE_CHECKING:
    from tcgen05_lower.sim.executor import Machine


def known(opcode: str) -> bool:
    """Whether ``decode`` accepts an instruction with this opcode (operands aside)."""
    ins = P.Instr(opcode, [], 0, opcode)
    try:
        _handler_for(ins)
    except Unknown:
        return False
    return True


def decode(m: Machine, ins: P.Instr):
    """The handler ``run(ins, idx)`` of one instruction; ``run.straight`` tells the
    executor that it only advances the threads that run it, ``run.local`` that it
    changes the PCs and statuses of those threads only (the scheduler then looks up
    only theirs again, unless the step woke a waiter: sim/machine_stepping.py)."""
    return _flagged(_handler_for(ins)(m, ins), ins)


def _flags(base: str) -> tuple[bool, bool]:
    """The executor's flags of an instruction whose first opcode word is `base`:
    (straight, local)."""
    return base in STRAIGHT, base not in NOT_LOCAL


def _flagged(run, ins: P.Instr):
    """``run`` with the executor's flags of its instruction (``decode``)."""
    run.straight, run.local = _flags(ins.parts[0])
    return run


def decoder():
    """``decode`` for the instructions of one run: the decoder (``_handler_for``) of an
    opcode of ``BY_OPCODE`` looked up once per opcode text, every other through
    ``decode``. What it returns is ``decode``'s: a decoder of ``BY_OPCODE`` reads only
    the opcode's words, and its ``make`` the instruction it is handed."""
    # opcode text -> its make and its flags (``_flags``), for this run only
    makes: dict = {}

    def decode_one(m: Machine, ins: P.Instr):
        known = makes.get(ins.opcode)
        if known is None:
            base = ins.parts[0]
            if base not in BY_OPCODE:
                return decode(m, ins)
            # (an unknown form raises here, each time, as decode does)
            known = makes[ins.opcode] = (_handler_for(ins), *_flags(base))
        make, straight, local = known
        run = make(m, ins)
        run.straight, run.local = straight, local
        return run
    return decode_one


def _handler_for(ins: P.Instr):
    parts = ins.parts
    base = parts[0]
    if f32_forms.is_f32x2(ins):                     # sim/f32_forms.py
        return f32_forms.f32x2_handler(ins, _unknown)
    if f32_forms.is_div_full(ins):
        return f32_forms.div_full_handler(ins, _unknown)
    if base in _ALU2:
        return _check_alu(ins)
    if base not in _TABLE:
        raise _unknown(ins)
    return _TABLE[base](ins)


_ALU2 = frozenset({"add", "sub", "and", "or", "xor", "min", "max", "shl", "shr", "mul", "div",
                   "rem"})
STRAIGHT = _ALU2 | {"mov", "setp", "selp", "not", "cvt", "bfe", "bfi", "neg", "abs", "mad",
                    "ld", "st", "mapa", "ex2", "copysign", "fma", "sqrt", "prmt"}

#: The opcode bases whose decoders depend on the opcode's text alone: their checks read
#: ``ins.parts`` only, and the ``make`` they return keeps nothing of that instruction
#: (it reads the one it is handed). ``decoder`` looks each opcode text up once per run;
#: tests/test_sim_setup_shortcuts.py checks the claim on the examples' instructions.
#: Left out: the decoders not read for this (tcgen05, cp, vote, prmt, ...).
BY_OPCODE = _ALU2 | {"mov", "setp", "selp", "not", "cvt", "bfe", "bfi", "neg", "abs", "mad",
                     "ld", "st", "mapa", "cvta", "bra", "ret", "exit", "mbarrier", "elect",
                     "barrier", "bar"}

#: What changes other threads' PCs or statuses: barriers release their waiters, an exit
#: completes barriers (executor.Machine.release_barriers, exit_threads).
NOT_LOCAL = frozenset({"barrier", "bar", "ret", "exit"})


def _prefetch(ins: P.Instr):
    from tcgen05_lower.sim import tma
    return tma.prefetch_tensormap(ins)


# -- tcgen05 (9.7.16) ----------------------------------------------------------------------
def _tcgen05(ins: P.Instr):
    from tcgen05_lower.sim import tcgen05_ops
    return tcgen05_ops.handler_for(ins)


#: The decoders by opcode (``_handler_for``), made once.
_TABLE = MappingProxyType({
    "mov": _mov, "setp": _setp, "selp": _selp, "not": _not, "cvt": _cvt, "bfe": _bfe,
    "bfi": _bfi, "neg": _neg, "abs": _abs, "mad": _mad, "ld": _ld, "st": _st,
    "bra": _bra, "ret": _ret, "exit": _ret, "barrier": _barrier, "bar": _barrier,
    "mbarrier": _mbarrier, "fence": _fence, "shfl": _shfl, "tcgen05": _tcgen05,
    "mapa": _mapa, "cvta": _cvta, "ex2": _ex2, "copysign": _copysign, "fma": _fma,
    "sqrt": _sqrt, "cp": _cp, "elect": _elect, "setmaxnreg": _setmaxnreg,
    "ldmatrix": _warp_matrix, "stmatrix": _warp_matrix, "brx": _brx,
    "vote": lambda ins: vote_handler(ins, _unknown),   # sim/vote.py
    "prefetch": _prefetch,
    "prmt": lambda ins: prmt_handler(ins, _unknown),   # sim/prmt.py
})
