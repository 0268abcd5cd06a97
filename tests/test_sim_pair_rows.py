"""Threads that step as ids in equal runs (a CTA pair's same warps: one run per CTA) kept
as rows of 2-D register views (``MachineRegisters.rows_of`` / ``register_view``), so
that the fused stretches' plans (machine_stepping._plan, sim/fused_plans.py) serve them,
and a run of planned global stores of one base register done as one step
(``fused_plans.grouped``, ``ops_memory_warp._store_group``).

The kernel: warps 1 and 3 of four leave at once, so warps 0 and 2 step together as the
ids [0, 32) and [64, 96) (two runs of 32, 64 apart); their loop is one fused stretch of
32-bit ALU, cvt, 64-bit add, a setp on a 64-bit register and five scalar st.global.b32
at one base register, two of them at the same word (the later store's value stays, PTX
ISA 9.7.9.9: the stores of a thread are performed in program order). What it computes is
hand-derived (a Python model of the loop); everything the run reports is what the
step-by-step run (no fused stretches: the bodies, the general code) reports, an access
out of bounds included (the group then declines and each store does its own: the general
code's error at the failing store)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_executor import kernel  # noqa: E402
from tcgen05_lower.sim import machine_stepping, ops_memory_warp  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.machine_registers import MachineRegisters  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402

TRIPS, STRIDE = 5, 128 * 32
LOOP = """
	ld.param.b64 	%rd2, [k_param_0];
	mov.u32 	%r1, %tid.x;
	shr.u32 	%r5, %r1, 5;
	and.b32 	%r6, %r5, 1;
	setp.ne.b32 	%p4, %r6, 0;
	@%p4 bra 	$OUT;
	mov.b32 	%r10, %r1;
	mov.b64 	%rd4, 0;
	mul.wide.u32 	%rd6, %r1, 32;
	add.s64 	%rd8, %rd2, %rd6;
$LOOP:
	setp.ge.s64 	%p1, %rd4, {trips};
	@%p1 bra 	$OUT;
	add.s32 	%r10, %r10, 7;
	shl.b32 	%r11, %r10, 3;
	xor.b32 	%r12, %r11, %r1;
	cvt.u64.u32 	%rd10, %r12;
	add.s64 	%rd11, %rd10, %rd4;
	cvt.u32.u64 	%r13, %rd11;
	st.global.b32 	[%rd8], %r10;
	st.global.b32 	[%rd8+4], %r11;
	st.global.b32 	[%rd8+8], %r12;
	st.global.b32 	[%rd8+8], %r13;
	st.global.b32 	[%rd8+12], %r13;
	add.s64 	%rd8, %rd8, {stride};
	add.s64 	%rd4, %rd4, 1;
	bra.uni 	$LOOP;
$OUT:
	ret;
"""
M32 = (1 << 32) - 1
WORKING = [t for t in range(128) if (t >> 5) & 1 == 0]   # warps 0 and 2


def model(size: int) -> np.ndarray:
    """Hand-derived: the loop thread by thread in Python integers (.b32 results masked
    to 32 bits; cvt.u64.u32 zero-extends, cvt.u32.u64 keeps the low 32 bits); word
    8 t + 1024 i gets r10, then r11, then r13 twice (the second store at +8 overwrites
    r12)."""
    words = np.zeros(size // 4, np.uint32)
    for t in WORKING:
        r10 = t
        for i in range(TRIPS):
            r10 = (r10 + 7) & M32
            r11 = (r10 << 3) & M32
            r12 = r11 ^ t
            r13 = (r12 + i) & M32
            base = (32 * t + STRIDE * i) // 4
            words[base:base + 4] = [r10, r11, r13, r13]
    return words.view(np.uint8)


def simulated(monkeypatch, fused: bool, size: int = TRIPS * STRIDE):
    """(result or the SimError raised, out, plan steps made on ids, the store group's
    first steps that stored the whole group)."""
    on_ids, leads, declined = [], [], []
    with monkeypatch.context() as patch:
        plan, group = machine_stepping.MachineStepping._plan, ops_memory_warp._store_group

        def counted(bodies, at):
            steps = plan(bodies, at)
            if type(at) is not slice:
                on_ids.append(sum(step[0] is not body for step, body in zip(steps, bodies)))
            return steps

        def watched(calls):
            first = calls[0]

            def own():   # the first store's own step: the group declined
                declined.append(1)
                first()
            own.member = first.member
            steps = group([own] + calls[1:])
            lead = steps[0][0]

            def step():
                leads.append(1)
                lead()
            return [(step, ())] + steps[1:]
        patch.setattr(machine_stepping.MachineStepping, "_plan", staticmethod(counted))
        patch.setattr(ops_memory_warp, "_store_group", watched)
        if not fused:
            patch.setattr(machine_stepping.MachineStepping, "_fused",
                          lambda self, *args: None)
        out = np.zeros(size, np.uint8)
        try:
            result = simulate(kernel(LOOP.format(trips=TRIPS, stride=STRIDE), threads=128),
                              {}, {"k_param_0": out})
        except SimError as err:
            result = err
    return result, out, sum(on_ids), len(leads) - len(declined)


def test_the_rows_plans_compute_what_the_model_and_the_steps_compute(monkeypatch):
    fast, fast_out, on_ids, grouped = simulated(monkeypatch, True)
    assert fast.ok
    # the plan of the loop's stretch was made on the ids: each of its 14 steps planned
    # (three ALU, two cvt, three add.s64, the five stores, the setp; the uniform
    # branches are no steps), and its group of stores ran as one from the second trip
    # on (the plan is made at the start of the second): trips 2 to 5
    assert on_ids == 14
    assert grouped == TRIPS - 1
    reference, reference_out, _, _ = simulated(monkeypatch, False)
    assert np.array_equal(fast_out, reference_out)
    assert np.array_equal(fast_out, model(TRIPS * STRIDE))
    assert list(fast.counts.items()) == list(reference.counts.items())
    assert fast.warp_instructions == reference.warp_instructions


@pytest.mark.parametrize("short", [2048 + 8, 2048 + 12, 64 * 32 + 4, 95 * 32 + 12])
def test_a_store_out_of_bounds_is_the_general_codes_error(monkeypatch, short):
    """The last trip's stores reach past the array (cut ``short`` bytes after the last
    trip's start: at the third store of thread 64, at its fourth, at its second, at the
    last store of thread 95): the group declines, the stores before the failing one
    store, and the error is the step-by-step run's, with the same bytes stored."""
    size = (TRIPS - 1) * STRIDE + short
    fast, fast_out, _, _ = simulated(monkeypatch, True, size)
    reference, reference_out, _, _ = simulated(monkeypatch, False, size)
    assert isinstance(reference, SimError)
    assert isinstance(fast, SimError)
    assert str(fast) == str(reference)
    assert fast.ptx_line == reference.ptx_line
    assert np.array_equal(fast_out, reference_out)


class _Threads(MachineRegisters):
    """The part of a Machine that ``rows_of`` and ``register_view`` use."""
    nthreads = 512


def test_ids_in_equal_runs_are_kept_as_rows_of_views():
    m = _Threads()
    pair = np.concatenate([np.arange(0, 128), np.arange(256, 384)])
    kept = m.rows_of(pair)
    assert np.array_equal(kept, pair) and not kept.flags.writeable
    # the same threads again (another array): the kept one, so a plan made for it serves
    again = m.rows_of(pair.copy())
    assert again is kept and m.rows_of(kept) is kept
    reg = np.arange(512, dtype=np.uint64)
    view = m.register_view(reg, kept)
    assert view.shape == (2, 128) and np.array_equal(view.reshape(-1), reg[pair])
    view += 1000   # a view: written in place
    assert np.array_equal(reg[pair], pair + 1000)
    assert np.array_equal(np.delete(reg, pair), np.delete(np.arange(512), pair))
    # a bool register too (a predicate)
    pred = np.zeros(512, bool)
    m.register_view(pred, kept)[1, 0] = True
    assert np.flatnonzero(pred).tolist() == [256]
    # three runs at a constant stride; the last run ending at the last thread
    three = np.concatenate([np.arange(s, s + 32) for s in (96, 256, 416)])
    assert np.array_equal(m.register_view(reg, m.rows_of(three)).reshape(-1), reg[three])
    # not rows: runs of different lengths, strides that differ, one run: the ids
    # themselves, and no view (indexing them would copy)
    for ids in (np.concatenate([np.arange(0, 32), np.arange(64, 128)]),
                np.concatenate([np.arange(0, 32), np.arange(64, 96), np.arange(160, 192)]),
                np.array([1, 3, 4, 8])):
        assert m.rows_of(ids) is ids and m.register_view(reg, ids) is None
    assert m.register_view(reg, pair) is None   # equal to the kept ids, not them
    assert m.register_view(reg, slice(3, 9)).base is reg
