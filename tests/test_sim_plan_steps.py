"""The fused stretches' plan steps (machine_stepping._plan, sim/fused_plans.py) of an
integer setp narrower than 64 bits with an immediate, selp of two immediates, an
unsigned mul.wide by an immediate and an unsigned bfe with immediate position and length,
on one warp's threads (a slice) and on a CTA pair's like ids kept as rows
(``MachineRegisters.rows_of``).

The kernel's loop scrambles a 32-bit register (mad.lo) and derives from it, each trip,
the values of these forms (signed and unsigned comparisons at both widths, a selp with
b zero and one with b not zero, a field that ends past the width and one that starts
past it; mov's unpack and pack of .b32 into two .b16, the unpack's source a .b64
register, and of .b64 into four) and of two forms the plans leave to the bodies (a
signed bfe, a signed mul.wide), and stores them. What it computes is hand-derived (a
Python model of the loop, the PTX ISA's definitions of each instruction); everything
the run reports is what the step-by-step run (no fused stretches: the general code)
reports."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_executor import kernel  # noqa: E402
from tcgen05_lower.sim import fused_plans, machine_stepping  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402

TRIPS, BLOCK = 6, 64
LOOP = """
	ld.param.b64 	%rd2, [k_param_0];
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r5, %r1, 5;
	and.b32 	%r6, %r5, 1;
	setp.ne.b32 	%p4, %r6, 0;
	@%p4 bra 	$OUT;
	mov.b32 	%r10, %r1;
	mov.b64 	%rd4, 0;
	mul.wide.u32 	%rd6, %r1, {block};
	add.s64 	%rd8, %rd2, %rd6;
$LOOP:
	setp.ge.s64 	%p1, %rd4, {trips};
	@%p1 bra 	$OUT;
	mad.lo.s32 	%r10, %r10, -1640531535, 12345;
	setp.gt.s32 	%p2, %r10, 3;
	setp.lo.u32 	%p3, %r10, 2147483648;
	selp.b32 	%r11, 1, 0, %p2;
	selp.b32 	%r12, 7, -3, %p3;
	bfe.u32 	%r13, %r10, 3, 5;
	bfe.u32 	%r14, %r10, 30, 8;
	bfe.u32 	%r17, %r10, 40, 3;
	bfe.s32 	%r15, %r10, 4, 6;
	mul.wide.u32 	%rd10, %r10, 40000;
	mul.wide.s32 	%rd11, %r10, 3;
	cvt.u16.u32 	%rs1, %r10;
	setp.lt.s16 	%p5, %rs1, -2;
	selp.b16 	%rs2, 5, 9, %p5;
	mul.wide.u16 	%r16, %rs1, 300;
	mov.b32 	{{%rs3, %rs4}}, %rd10;
	mov.b32 	%r18, {{%rs4, %rs3}};
	mov.b64 	{{%rs5, %rs8, %rs6, %rs7}}, %rd10;
	mov.b64 	%rd12, {{%rs7, %rs6, %rs5, %rs8}};
	st.global.b32 	[%rd8], %r11;
	st.global.b32 	[%rd8+4], %r12;
	st.global.b32 	[%rd8+8], %r13;
	st.global.b32 	[%rd8+12], %r14;
	st.global.b32 	[%rd8+16], %r15;
	st.global.b32 	[%rd8+20], %r16;
	st.global.b64 	[%rd8+24], %rd10;
	st.global.b64 	[%rd8+32], %rd11;
	st.global.b32 	[%rd8+40], %r17;
	st.global.b16 	[%rd8+44], %rs2;
	st.global.b32 	[%rd8+48], %r18;
	st.global.b64 	[%rd8+56], %rd12;
	add.s64 	%rd8, %rd8, {stride};
	add.s64 	%rd4, %rd4, 1;
	bra.uni 	$LOOP;
$OUT:
	ret;
"""
M16, M32, M64 = (1 << 16) - 1, (1 << 32) - 1, (1 << 64) - 1


def signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def model(threads: int) -> np.ndarray:
    """Hand-derived from the PTX ISA's definitions: the loop thread by thread in Python
    integers (threads of odd warps leave at once). mad.lo keeps the low 32 bits of
    r10 * 2654435761 + 12345 (-1640531535 as 32 bits); setp.gt.s32 / setp.lt.s16
    compare two's-complement values, setp.lo.u32 unsigned ones; selp.b32 of 7 and -3
    gives -3's 32 bits; bfe.u32 takes min(len, 32 - pos) bits from pos (none for pos
    >= 32), bfe.s32 sign-extends its 6-bit field; mul.wide multiplies the 32-bit (or
    16-bit: cvt.u16.u32 keeps the low 16) values into 64 (32) bits."""
    stride = BLOCK * threads
    out = np.zeros(TRIPS * stride, np.uint8)
    for t in range(threads):
        if (t >> 5) & 1:
            continue
        r10 = t
        for i in range(TRIPS):
            r10 = (r10 * 2654435761 + 12345) & M32
            field = (r10 >> 4) & 63
            rs1 = r10 & M16
            words = [int(signed(r10, 32) > 3), 7 if r10 < 1 << 31 else -3 & M32,
                     (r10 >> 3) & 31, (r10 >> 30) & 3,
                     (field - 64 if field & 32 else field) & M32, rs1 * 300]
            at = BLOCK * t + stride * i
            out[at:at + 24] = np.array(words, np.uint32).view(np.uint8)
            out[at + 24:at + 40] = np.array([r10 * 40000, signed(r10, 32) * 3 & M64],
                                            np.uint64).view(np.uint8)
            out[at + 40:at + 44] = np.array([0], np.uint32).view(np.uint8)
            out[at + 44:at + 46] = np.array([5 if signed(rs1, 16) < -2 else 9],
                                            np.uint16).view(np.uint8)
            # mov's unpack (part 0 the least significant) and pack of .b32 and .b64
            rd10 = r10 * 40000
            rs3, rs4 = rd10 & M16, (rd10 >> 16) & M16   # a .b64 register's low 32 bits
            rs5, rs8, rs6, rs7 = (rd10 >> s & M16 for s in (0, 16, 32, 48))
            out[at + 48:at + 52] = np.array([rs4 | rs3 << 16], np.uint32).view(np.uint8)
            out[at + 56:at + 64] = np.array([rs7 | rs6 << 16 | rs5 << 32 | rs8 << 48],
                                            np.uint64).view(np.uint8)
    return out


def simulated(monkeypatch, threads: int, fused: bool):
    """(result, out, the plans' steps made on the loop's threads that are not bodies,
    those that are)."""
    made = []
    with monkeypatch.context() as patch:
        plan = machine_stepping.MachineStepping._plan

        def counted(bodies, at):
            steps = plan(bodies, at)
            left = sum(1 for _, args in steps if len(args) == 1 and args[0] is at)
            made.append((len(steps) - left, left))
            return steps
        patch.setattr(machine_stepping.MachineStepping, "_plan", staticmethod(counted))
        if not fused:
            patch.setattr(machine_stepping.MachineStepping, "_fused",
                          lambda self, *args: None)
        out = np.zeros(TRIPS * BLOCK * threads, np.uint8)
        text = kernel(LOOP.format(trips=TRIPS, block=BLOCK, stride=BLOCK * threads),
                      threads=threads)
        result = simulate(text, {}, {"k_param_0": out})
    return result, out, made


@pytest.mark.parametrize("threads", [32, 128])
def test_the_plan_steps_compute_what_the_model_and_the_steps_compute(monkeypatch, threads):
    """One warp (its threads a slice) and warps 0 and 2 of four (ids [0, 32) and [64,
    96): kept as rows)."""
    fast, fast_out, made = simulated(monkeypatch, threads, True)
    assert fast.ok
    # the loop's stretch (mad to the last add, 33 instructions) has a plan: every step
    # planned but the signed bfe and mul.wide (the bodies); without fused_plans' steps
    # of setp, selp, mul.wide and bfe, 11 more would be bodies
    assert (33 - 2, 2) in made
    reference, reference_out, _ = simulated(monkeypatch, threads, False)
    assert np.array_equal(fast_out, model(threads))
    assert np.array_equal(fast_out, reference_out)
    assert list(fast.counts.items()) == list(reference.counts.items())
    assert fast.warp_instructions == reference.warp_instructions


class _Regs:
    """The part of a Machine the plans read: registers, immediates' bits, views."""
    def __init__(self, regs: dict):
        self.regs = regs

    @staticmethod
    def imm_bits(op, bits: int) -> int:
        return op.value & ((1 << bits) - 1)


def test_the_plans_decline_what_they_do_not_compute():
    """Each plan's fall-back: None (the body then) for a form or register it does not
    take, never a step that would compute something else."""
    from tcgen05_lower.sim import ptx as P
    at = slice(0, 4)
    regs = {"%r1": np.arange(4, dtype=np.uint64), "%r2": np.zeros(4, np.uint64),
            "%rd1": np.zeros(4, np.uint64), "%p1": np.zeros(4, bool),
            "%q": np.zeros(4, np.uint64)}   # %q: a predicate name on a uint64 array
    m = _Regs(regs)
    r1, r2, rd1, p1, q = (P.Reg(n) for n in ("%r1", "%r2", "%rd1", "%p1", "%q"))
    imm = P.Imm(3)
    read3 = lambda at: np.uint64(3)   # noqa: E731
    # setp: b a register; the destination not a bool array
    assert fused_plans.compare_plan(m, np.greater, True, 32, r1, r2, read3, "%p1",
                                           at) is None
    assert fused_plans.compare_plan(m, np.greater, True, 32, r1, imm, read3, "%q",
                                           at) is None
    assert fused_plans.compare_plan(m, np.greater, True, 32, r1, imm, read3, "%p1",
                                           at) is not None
    # selp: a register operand; c not a bool array; d a predicate
    assert fused_plans.selp_plan(m, 32, (r2, r1, imm, p1), at) is None
    assert fused_plans.selp_plan(m, 32, (r2, imm, imm, q), at) is None
    assert fused_plans.selp_plan(m, 32, (p1, imm, imm, p1), at) is None
    assert fused_plans.selp_plan(m, 32, (r2, imm, imm, p1), at) is not None
    # mul.wide: b a register; d the same register as a
    assert fused_plans.mul_wide_plan(m, 32, r1, r2, rd1, read3, at) is None
    assert fused_plans.mul_wide_plan(m, 32, r1, imm, r1, read3, at) is None
    assert fused_plans.mul_wide_plan(m, 32, r1, imm, rd1, read3, at) is not None
    # bfe: signed; a register position; a predicate destination
    assert fused_plans.bfe_plan(m, "s", 32, (r2, r1, imm, imm), at) is None
    assert fused_plans.bfe_plan(m, "u", 32, (r2, r1, r1, imm), at) is None
    assert fused_plans.bfe_plan(m, "u", 32, (p1, r1, imm, imm), at) is None
    assert fused_plans.bfe_plan(m, "u", 32, (r2, r1, imm, imm), at) is not None
