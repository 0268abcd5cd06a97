"""The lean form of ld / st (sim/ops_memory_warp.py) and its shared-memory bookkeeping
(ordering_smem.smem_access_warp): the values it moves (hand-derived from the PTX ISA's
ld / st, 9.7.9.8 and 9.7.9.9), that the hot accesses of the tests do take it, and that
what it reports (races, errors) is what the general code reports: the same kernels run
with the lean form switched off (``load_maker`` / ``store_maker`` giving None, so every
access goes through ops_memory.load / store) are the reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_executor import kernel  # noqa: E402
from tcgen05_lower.sim import ops_memory_warp  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402

#: Two warps: each thread t copies its 16 bytes in[16t, 16t + 16) to shared memory with
#: st.shared.v2.b64, then (after the barrier, or without it in RACY) reads back the 16
#: bytes of thread t ^ 32 (the other warp) with ld.shared.v4.b32 and stores them to
#: out[16t, 16t + 16); thread t also loads in[2t] as a signed 16-bit element into a
#: 32-bit register (ld.global.s16) and stores it at word 4 * 64 + t of out.
EXCHANGE = """
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd3, %r1, 16;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.v2.b64 	{{%rd5, %rd6}}, [%rd4];
	mov.b64 	%rd7, buf;
	add.s64 	%rd8, %rd7, %rd3;
	st.shared.v2.b64 	[%rd8], {{%rd5, %rd6}};
	{sync}
	xor.b32 	%r2, %r1, 32;
	mul.wide.u32 	%rd9, %r2, 16;
	add.s64 	%rd10, %rd7, %rd9;
	ld.shared.v4.b32 	{{%r3, %r4, %r5, %r6}}, [%rd10];
	add.s64 	%rd11, %rd2, %rd3;
	st.global.v4.b32 	[%rd11], {{%r3, %r4, %r5, %r6}};
	mul.wide.u32 	%rd12, %r1, 2;
	add.s64 	%rd13, %rd1, %rd12;
	ld.global.s16 	%r7, [%rd13];
	mul.wide.u32 	%rd14, %r1, 4;
	add.s64 	%rd15, %rd2, %rd14;
	st.global.b32 	[%rd15+1024], %r7;
	ret;
"""
PARAMS = (".u64 .ptr .global .align 1 k_param_0", ".u64 .ptr .global .align 1 k_param_1")
SHARED = ".shared .align 16 .b8 buf[1024];\n"


def exchange(sync: str) -> str:
    return kernel(EXCHANGE.format(sync=sync), params=PARAMS, extra=SHARED)


def inputs():
    rng = np.random.default_rng(7)
    source = rng.integers(0, 256, 64 * 16, dtype=np.uint8)
    source[:2] = [0xFE, 0xFF]   # thread 0's element: -2 as a signed 16-bit value
    return source, np.zeros(64 * 16 + 64 * 4, np.uint8)


def run(text, general: bool, monkeypatch, **options):
    """The kernel on fresh inputs, with the lean form (or, `general`, without it):
    (result, out, how many accesses the lean form did)."""
    taken = [0]
    makers = {}
    for name in ("load_maker", "store_maker"):
        original = getattr(ops_memory_warp, name)

        def maker(*args, original=original):
            lean = None if general else original(*args)
            if lean is None:
                return None

            def counted(act):
                done = lean(act)
                taken[0] += done
                return done
            return counted
        makers[name] = maker
    with monkeypatch.context() as patch:
        for name, maker in makers.items():
            patch.setattr(ops_memory_warp, name, maker)
        source, out = inputs()
        result = simulate(text, {}, {"k_param_0": source, "k_param_1": out}, **options)
    return result, out, taken[0]


def test_the_lean_form_moves_the_isa_values(monkeypatch):
    """Hand-derived from ld / st (9.7.9.8, 9.7.9.9): vector elements at consecutive
    addresses, the first at the address, little-endian; ld.s16 into a 32-bit register
    sign-extends. Thread t's 16 output bytes are thread (t ^ 32)'s 16 input bytes."""
    result, out, taken = run(exchange("barrier.sync 0;"), False, monkeypatch)
    source, _ = inputs()
    t = np.arange(64)
    want = source.reshape(64, 16)[t ^ 32].reshape(-1)
    assert np.array_equal(out[:64 * 16], want)
    words = out[64 * 16:].view(np.uint32)
    halves = source[:128].view(np.int16)   # in[2t], read as int16
    assert np.array_equal(words, halves.astype(np.int64).astype(np.uint32))
    assert words[0] == 0xFFFFFFFE   # -2, sign-extended to 32 bits
    assert not result.races
    # every ld / st but ld.param took the lean form: 6 accesses, each one step of the
    # two warps together (lowest PC first runs all threads at the lowest PC)
    assert taken == 6


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_a_race_is_reported_as_the_general_code_reports_it(monkeypatch, schedule):
    """Without the barrier, warp 1's ld.shared reads bytes warp 0 wrote (and, under the
    lowest-PC-first schedule, the reverse) with no ordering: the general code's race
    (its message, count and lines) is reported, and the values are the same."""
    text = exchange("")
    lean, lean_out, taken = run(text, False, monkeypatch, schedule=schedule)
    general, general_out, none = run(text, True, monkeypatch, schedule=schedule)
    assert none == 0 and taken > 0
    assert lean.races, "the unsynchronized exchange must be a race"
    assert [str(r) for r in lean.races] == [str(r) for r in general.races]
    assert [getattr(r, "count", 1) for r in lean.races] == \
        [getattr(r, "count", 1) for r in general.races]
    assert np.array_equal(lean_out, general_out)
    assert lean.counts == general.counts


def test_the_functional_only_run_takes_the_lean_form_too(monkeypatch):
    result, out, taken = run(exchange("barrier.sync 0;"), False, monkeypatch,
                             functional_only=True)
    _, general_out, _ = run(exchange("barrier.sync 0;"), True, monkeypatch,
                            functional_only=True)
    assert taken == 6 and np.array_equal(out, general_out) and not result.races


@pytest.mark.parametrize("edit,message", [
    # thread t's v2.b64 at 16t + 8: aligned to 8, not to its 16 bytes (9.7.9.9)
    ("st.shared.v2.b64 \t[%rd8+8]", "misaligned store of 16 bytes"),
    # thread 63's 16 bytes at 1024 + 1008 .. past buf, past the CTA's shared memory
    ("st.shared.v2.b64 \t[%rd8+1024]", "out-of-bounds shared-memory store"),
    # the last thread's 16 bytes end 16 bytes past in[]
    ("ld.global.v2.b64 \t{%rd5, %rd6}, [%rd4+16]", "out-of-bounds global load"),
])
def test_an_access_the_lean_form_cannot_do_is_the_general_codes_error(monkeypatch, edit,
                                                                      message):
    original = edit.split(" \t")[0] + " \t" + \
        ("[%rd8]" if "st.shared" in edit else "{%rd5, %rd6}, [%rd4]")
    text = exchange("barrier.sync 0;").replace(original, edit)
    assert edit in text
    errors = []
    for general in (False, True):
        with pytest.raises(SimError, match=message) as err:
            run(text, general, monkeypatch)
        errors.append(str(err.value))
    assert errors[0] == errors[1]
