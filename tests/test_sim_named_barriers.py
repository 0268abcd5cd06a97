"""Named barriers (``barrier.sync a, b`` / ``bar.sync a, b``) and warps running different
code at once in the simulator, on hand-written kernels. Expected values are derived by
hand from the PTX ISA's bar / barrier instruction (9.7.13.1): barrier a (0-15) of the CTA
completes when b threads (a multiple of the warp size) have arrived at it, and threads
of other warps are not involved; without b every thread of the CTA takes part.

The ordering model is the stand-in of tests/sim_standins.py (no tcgen05 operation)."""

import numpy as np
import pytest

from sim_standins import PlainOrdering
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError
from test_sim_executor import kernel

SHARED = ".shared .align 8 .b8 bar[8];\n.shared .align 4 .b8 cells[512];\n"

# Warps 0-1 and warps 2-3 are two groups running different code: each writes its tid to
# shared memory, synchronizes with its own named barrier (1 for warps 0-1, 2 for warps
# 2-3, 64 threads each) and reads its neighbour's cell (tid ^ 1). Warps 0-1 then arrive
# on an mbarrier of count 64; warps 2-3 spin on try_wait until that phase completes and
# read the cell of thread tid - 64, which warps 0-1 wrote (out[128 + tid - 64]).
GROUPS = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mov.b64 	%rd2, bar;
	cvt.u32.u64 	%r2, %rd2;
	mov.b64 	%rd3, cells;
	cvt.u32.u64 	%r3, %rd3;
	setp.eq.b32 	%p1, %r1, 0;
	mov.b32 	%r4, 64;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], %r4;
	barrier.sync 0;
	shl.b32 	%r5, %r1, 2;
	add.s32 	%r6, %r3, %r5;
	st.shared.b32 	[%r6], %r1;
	xor.b32 	%r7, %r1, 1;
	shl.b32 	%r8, %r7, 2;
	add.s32 	%r9, %r3, %r8;
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd1, %rd4;
	setp.lt.u32 	%p2, %r1, 64;
	@%p2 bra 	$FIRST;
	bar.sync 	2, 64;
	ld.shared.b32 	%r10, [%r9];
	st.global.b32 	[%rd5], %r10;
	mov.b32 	%r11, 0;
	{ .reg .pred done; wait: mbarrier.try_wait.parity.shared::cta.b64 done, [%r2], %r11; @!done bra wait; }
	sub.s32 	%r12, %r6, 256;
	ld.shared.b32 	%r13, [%r12];
	st.global.b32 	[%rd5+512], %r13;
	bra.uni 	$END;
$FIRST:
	mov.b32 	%r14, 0;
$SPIN:
	add.s32 	%r14, %r14, 1;
	setp.lt.u32 	%p3, %r14, 20;
	@%p3 bra 	$SPIN;
	barrier.sync 	1, 64;
	ld.shared.b32 	%r10, [%r9];
	st.global.b32 	[%rd5], %r10;
	mbarrier.arrive.shared::cta.b64 	%rd6, [%r2];
$END:
	ret;
"""


def run(body: str, threads: int = 128):
    out = np.zeros(256, np.uint32)
    text = kernel(body, threads=threads, extra=SHARED)
    result = simulate(text, {}, {"k_param_0": out}, ordering_factory=PlainOrdering,
                      tensor_core=object())
    return out, result, text


def test_two_groups_with_their_own_named_barriers_and_an_mbarrier_between_them():
    out, result, _ = run(GROUPS)
    tid = np.arange(128)
    assert np.array_equal(out[:128], tid ^ 1)  # each read its neighbour after its barrier
    assert np.array_equal(out[128 + 64:], tid[:64])  # warps 2-3 read what warps 0-1 wrote
    assert result.counts["barrier.sync"] == 4 + 2  # barrier 0 (4 warps), barrier 1 (2)
    assert result.counts["bar.sync"] == 2


def test_a_named_barrier_short_of_threads_is_a_deadlock_that_names_it():
    body = GROUPS.replace("barrier.sync \t1, 64;", "barrier.sync \t1, 96;")
    with pytest.raises(SimError) as err:
        run(body)
    message = str(err.value)
    assert "deadlock" in message
    assert "barrier.sync 1, 96: 64 of 96 threads arrived" in message
    # warps 2-3 wait for the mbarrier phase warps 0-1 never complete
    assert "CTA 0 warp 2 waits at line" in message and "mbarrier wait" in message


def test_a_barrier_without_a_count_needs_every_live_thread_of_the_cta():
    # warps 0-1 wait at barrier 1 for all 128 threads; warps 2-3, past their own barrier,
    # wait for the mbarrier that warps 0-1 arrive on only after barrier 1
    body = GROUPS.replace("barrier.sync \t1, 64;", "barrier.sync \t1;")
    with pytest.raises(SimError) as err:
        run(body)
    assert "barrier.sync 1: 64 of the CTA's 128 live threads arrived" in str(err.value)


def test_a_thread_count_that_is_not_whole_warps_is_an_error():
    body = GROUPS.replace("barrier.sync \t1, 64;", "barrier.sync \t1, 48;")
    with pytest.raises(SimError, match="multiple of the warp size"):
        run(body)


def test_a_completed_barrier_is_reused():
    # both groups use barrier 1 of 64 threads: warps 2-3 (earlier in the code) complete
    # it first, then warps 0-1 complete it again
    out, _, _ = run(GROUPS.replace("bar.sync \t2, 64;", "bar.sync \t1, 64;"))
    tid = np.arange(128)
    assert np.array_equal(out[:128], tid ^ 1)


def test_more_threads_than_the_count_at_once_is_an_error():
    with pytest.raises(SimError, match="128 threads arrived, more than the 64 it expects"):
        run("\tbarrier.sync \t1, 64;\n\tret;\n")


def test_the_timing_model_matches_each_named_barrier_with_its_own_warps():
    # Warps 2-3 reach their barrier 2 only after the mbarrier phase that warps 0-1
    # complete after their barrier 1. An instance of a barrier is the k-th arrival of
    # each warp at that barrier number; counting barrier.sync steps per warp regardless
    # of the number would make both first named barriers one instance, which warps 0-1
    # could then leave only after warps 2-3 arrive: a cycle in the replay.
    body = GROUPS.replace("\tbar.sync \t2, 64;\n", "").replace(
        "@!done bra wait; }\n", "@!done bra wait; }\n\tbar.sync \t2, 64;\n")
    out = np.zeros(256, np.uint32)
    text = kernel(body, threads=128, extra=SHARED)
    result = simulate(text, {}, {"k_param_0": out}, timing=True)
    assert result.timing.cycles > 0
    assert np.array_equal(out[:128], np.arange(128) ^ 1)
