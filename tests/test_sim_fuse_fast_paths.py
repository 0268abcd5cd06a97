"""The steps of the fused stretches' plans (machine_stepping._plan, sim/fused_plans.py,
ops_memory_warp's prepared store): a loop whose body is one fused stretch of 32-bit
integer ALU, scalar mov, the pack and unpack forms of mov, mad.lo, integer cvt, cvta and
vector and scalar st.global and ld.global (sign-extended, masked) runs its plans from the third iteration on (each warp its
own, kept by its slice of threads; here the two warps step together). What it computes is hand-derived (a per-thread
Python model of the loop below), and everything the run reports (outputs, counts per
opcode in their order, warp instructions) is the same as without fused stretches (the
step-by-step handlers, the general code). The type-punned unpack whose destination is
also its source (``mov.b64 {%rd21, %rd22}, %rd21``: the handler reads the source before
it writes) is one the plans must leave to the body: without that guard its second part
would be read from the first part's new value and the model's values would differ."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_executor import kernel  # noqa: E402
from tcgen05_lower.sim import machine_stepping  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402

TRIPS = 5
LOOP = """
	ld.param.b64 	%rd2, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mov.b32 	%r10, %r1;
	mov.b32 	%r11, %r1;
	mov.b32 	%r12, 0x80000001;
	mov.b32 	%r15, 0;
	mov.b32 	%r25, 0;
	cvt.u64.u32 	%rd20, %r1;
	shl.b64 	%rd20, %rd20, 32;
	or.b64 	%rd20, %rd20, 4294967280;
	mov.b64 	%rd21, %rd20;
	mov.b64 	%rd4, 0;
	mul.wide.u32 	%rd6, %r1, 16;
	add.s64 	%rd8, %rd2, %rd6;
	mul.wide.u32 	%rd7, %r1, 8;
	add.s64 	%rd9, %rd2, %rd7;
	add.s64 	%rd9, %rd9, 10240;
	{enter}
$LOOP:
	setp.ge.u64 	%p1, %rd4, {trips};
	@%p1 bra 	$DONE;
	add.s32 	%r10, %r10, 7;
	sub.u32 	%r11, %r11, %r12;
	shl.b32 	%r13, %r10, 28;
	shr.u32 	%r14, %r11, 3;
	xor.b32 	%r15, %r15, %r11;
	mov.b32 	%r16, %r13;
	mov.b32 	%r17, 12345;
	mov.b64 	{{%r18, %r19}}, %rd20;
	mad.lo.u32 	%r18, %r10, 1024, %r18;
	mov.b64 	%rd20, {{%r18, %r19}};
	mov.b64 	{{%rd21, %rd22}}, %rd21;
	add.s64 	%rd21, %rd21, %rd20;
	cvt.u32.u64 	%r20, %rd20;
	cvt.u64.u32 	%rd23, %r10;
	cvta.global.u64 	%rd24, %rd2;
	st.global.v4.b32 	[%rd8], {{%r10, %r11, %r13, %r14}};
	st.global.v4.b32 	[%rd8+1024], {{%r15, %r16, %r17, %r18}};
	st.global.b64 	[%rd9], %rd22;
	ld.global.v2.b32 	{{%r21, %r22}}, [%rd8];
	ld.global.s16 	%r23, [%rd8+4];
	ld.global.b64 	%r24, [%rd8];
	xor.b32 	%r25, %r25, %r23;
	add.s64 	%rd8, %rd8, 2048;
	add.s64 	%rd9, %rd9, 512;
	add.s64 	%rd4, %rd4, 1;
	bra.uni 	$LOOP;
$DONE:
	mul.wide.u32 	%rd10, %r1, 32;
	add.s64 	%rd10, %rd2, %rd10;
	st.global.v2.b64 	[%rd10+12800], {{%rd20, %rd21}};
	st.global.v2.b64 	[%rd10+12816], {{%rd23, %rd24}};
	st.global.v2.b32 	[%rd9+2048], {{%r19, %r20}};
	st.global.v4.b32 	[%rd10+15360], {{%r21, %r22, %r23, %r24}};
	st.global.b32 	[%rd10+15376], %r25;
	st.global.b64 	[%rd10+15384], %r24;
	ret;
$LATE:
	bra.uni 	$LOOP;
"""
#: What runs before the loop: "together", nothing (the two warps step as one, one
#: plan); "staggered", warp 1 branches to $LATE at the end of the kernel, so under the
#: lowest PC first it runs its loop after warp 0 ran all of its own (a plan per warp: a
#: wrong slice's views would show in warp 1's values).
ENTER = {"together": "", "staggered": "shr.u32 	%r5, %r1, 5;\n\tsetp.ne.b32 	%p4, %r5, 0;\n"
                                   "\t@%p4 bra 	$LATE;"}
SIZE = 5 * 2048 + 5 * 512 + 64 * 32 + 5 * 512 + 512
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def model(out_address: int) -> np.ndarray:
    """Hand-derived: the loop above thread by thread in Python integers (each .b32
    result masked to 32 bits, each .b64 one to 64; PTX ISA add/sub/shl/shr/xor, mov's
    unpack (part 0 the low half) and pack, mad.lo's low half, cvt's truncation and zero
    extension, cvta.global the identity)."""
    out = np.zeros(SIZE, np.uint8)
    words32, words64 = out.view(np.uint32), out.view(np.uint64)
    for t in range(64):
        r10 = r11 = t
        r15 = 0
        rd20 = (t << 32) | 4294967280
        rd21 = rd20
        r18 = r19 = r20 = rd22 = rd23 = r25 = 0
        for i in range(TRIPS):
            r10 = (r10 + 7) & M32
            r11 = (r11 - 0x80000001) & M32
            r13 = (r10 << 28) & M32
            r14 = r11 >> 3
            r15 ^= r11
            r18, r19 = rd20 & M32, rd20 >> 32
            r18 = (r10 * 1024 + r18) & M32
            rd20 = r18 | (r19 << 32)
            rd21, rd22 = rd21 & M32, rd21 >> 32   # both from the old value
            rd21 = (rd21 + rd20) & M64
            r20, rd23 = rd20 & M32, r10
            base = (2048 * i + 16 * t) // 4
            words32[base:base + 4] = [r10, r11, r13, r14]
            words32[base + 256:base + 260] = [r15, r13, 12345, r18]
            words64[(10240 + 512 * i + 8 * t) // 8] = rd22
            # loaded back: r10 and r11, r11's low half sign-extended (ld.s16 into a
            # .b32), the low 32 bits of the 64 at r10's place (a .b64 into a .b32 register)
            r21, r22 = r10, r11
            r23 = (r11 & 0xFFFF) - ((r11 & 0x8000) << 1) & M32
            r24 = r10   # the low half of r10 | r11 << 32
            r25 ^= r23
        words64[(12800 + 32 * t) // 8:(12800 + 32 * t) // 8 + 4] = \
            [rd20, rd21, rd23, out_address]
        words32[(10240 + 512 * TRIPS + 8 * t + 2048) // 4:][:2] = [r19, r20]
        words32[(15360 + 32 * t) // 4:][:5] = [r21, r22, r23, r24, r25]
        # the .b32 register read as 64 bits: the load kept only its low 32 bits
        words64[(15384 + 32 * t) // 8] = r24
    return out


def simulated(monkeypatch, fused: bool, enter: str = "together"):
    """(result, out, how many plan steps the plans' ``plan_for`` made)."""
    made = []
    with monkeypatch.context() as patch:
        plan = machine_stepping.MachineStepping._plan

        def counted(bodies, at):
            steps = plan(bodies, at)
            made.append(sum(step[0] is not body for step, body in zip(steps, bodies)))
            return steps
        patch.setattr(machine_stepping.MachineStepping, "_plan", staticmethod(counted))
        if not fused:
            patch.setattr(machine_stepping.MachineStepping, "_fused",
                          lambda self, *args: None)
        out = np.zeros(SIZE, np.uint8)
        result = simulate(kernel(LOOP.format(trips=TRIPS, enter=ENTER[enter])), {}, {"k_param_0": out})
    return result, out, sum(made)


@pytest.mark.parametrize("enter", list(ENTER))
def test_the_plans_compute_what_the_model_and_the_steps_compute(monkeypatch, enter):
    fast, fast_out, planned = simulated(monkeypatch, True, enter)
    assert fast.ok
    # every instruction of the loop's stretch but the aliased unpack (the body) has a
    # planned step: 24 of 25, and the exit test's setp; per plan (one, or one per warp)
    assert planned == 25 * (2 if enter == "staggered" else 1)
    reference, reference_out, _ = simulated(monkeypatch, False, enter)
    assert np.array_equal(fast_out, reference_out)
    assert list(fast.counts.items()) == list(reference.counts.items())
    assert fast.warp_instructions == reference.warp_instructions
    # the address the simulator gave the array (cvta.global's identity): from the run
    address = int(reference_out.view(np.uint64)[12800 // 8 + 3])
    assert np.array_equal(fast_out, model(address))


@pytest.mark.parametrize("trips", [1, 2, 3])
def test_short_loops_run_the_bodies_then_the_plans(monkeypatch, trips):
    """A stretch's first two runs are its bodies' (the plan is made after the second):
    one to three trips give what the step-by-step run gives."""
    monkeypatch.setattr(sys.modules[__name__], "TRIPS", trips)
    fast, fast_out, _ = simulated(monkeypatch, fused=True)
    reference, reference_out, _ = simulated(monkeypatch, fused=False)
    assert np.array_equal(fast_out, reference_out)
    assert list(fast.counts.items()) == list(reference.counts.items())


class _Registers:
    """The part of a Machine that ``MachineRegisters.write`` uses: its register arrays."""

    def __init__(self):
        self.regs = {"%p": np.zeros(8, bool), "%r": np.zeros(8, np.uint64)}


def _reference_write(arr: np.ndarray, idx, value, bits: int) -> None:
    """Machine.write's general code (a predicate: value != 0; else the value's uint64
    bits masked to ``bits``; PTX ISA: a register holds its type's width)."""
    if arr.dtype == bool:
        arr[idx] = np.asarray(value) != 0
    else:
        arr[idx] = np.asarray(value, dtype=np.uint64) & np.uint64((1 << bits) - 1)


WRITES = [
    ("%p", slice(2, 6), True), ("%p", slice(0, 8), np.array([0, 1, 2, 0, 0, 3, 0, 1])),
    ("%p", np.array([1, 3]), np.array([True, False])), ("%p", slice(1, 3), np.bool_(True)),
    ("%p", slice(0, 4), np.array([True, False, True, True])), ("%p", slice(0, 2), 0),
    ("%r", slice(1, 5), np.array([1 << 40, 7, (1 << 64) - 1, 1 << 32], np.uint64)),
    ("%r", slice(0, 8), np.arange(8, dtype=np.int64) - 4),
    ("%r", slice(2, 6), np.array(1 << 33, np.uint64)), ("%r", slice(0, 3), 5),
    ("%r", np.array([0, 7]), np.array([1 << 35, 3], np.uint64)),
    ("%r", slice(0, 4), np.array([9], np.uint64)),
]


@pytest.mark.parametrize("name, idx, value", WRITES)
@pytest.mark.parametrize("bits", [16, 32, 64])
def test_a_register_write_is_the_general_codes(name, idx, value, bits):
    """Machine.write's bool values and masked slices stored as the general code stores
    them (a signed array, a broadcast scalar, ids, a Python int: the general code)."""
    from tcgen05_lower.sim.machine_registers import MachineRegisters
    machine, reference = _Registers(), _Registers()
    for regs in (machine.regs, reference.regs):
        regs["%r"][:] = np.arange(8, dtype=np.uint64) * 0x1111
    MachineRegisters.write(machine, name, idx, value, 1 if name == "%p" else bits, None)
    _reference_write(reference.regs[name], idx, value, bits)
    assert machine.regs[name].dtype == reference.regs[name].dtype
    assert np.array_equal(machine.regs[name], reference.regs[name])
