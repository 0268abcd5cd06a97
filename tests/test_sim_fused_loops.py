"""Fused stretches that run on through branches (machine_stepping._fused and
_branch_through), the global accesses that reuse the array their instruction found last
(ops_memory_warp._global_again, _global_in_last) and the views of their registers that the integer ALU
(ops_fastint) and setp with an immediate (ops_arith._int_compare) keep for the step's
threads, with the fused stretch's plan that calls their ufuncs directly
(machine_stepping._plan; a wrong slice shows in "staggered", whose warps run the loop one
after the other): what a copy loop computes is hand-derived (each thread
t copies elements t, t + 64, ... of its trip count), and everything the run reports
(outputs, races, counts per opcode in their order, warp instructions, errors with their
lines) is the same as with the fast path switched off, the general code as reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_executor import kernel  # noqa: E402
from tcgen05_lower.sim import machine_stepping, ops_memory_warp  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402

#: Two warps; thread t runs {limit} iterations i = 0, 1, ...: it loads the 16-bit element
#: t + 64 i of in (k_param_0, or of in2, k_param_2, in odd iterations with ALTERNATE),
#: stores it to shared memory and to out (k_param_1) at the same index; after the loop
#: it stores its iteration count as a 64-bit word at byte 2048 + 8 t of out, and at byte
#: 2560 + 8 t how many of its elements' indices j had j - 200 > -5 (signed: setp.gt.s64
#: with an immediate).
COPY = """
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b64 	%rd2, [k_param_1];
	ld.param.b64 	%rd12, [k_param_2];
	mov.u32 	%r1, %tid.x;
	{limit}
	cvt.u64.u32 	%rd10, %r2;
	cvt.u64.u32 	%rd3, %r1;
	mov.b64 	%rd4, 0;
	mov.b64 	%rd9, buf;
	mov.b64 	%rd18, 0;
	{enter}
$LOOP:
	setp.ge.u64 	%p1, %rd4, %rd10;
	@%p1 bra 	$DONE;
	shl.b64 	%rd5, %rd3, 1;
	sub.s64 	%rd19, %rd3, 200;
	setp.gt.s64 	%p3, %rd19, -5;
	selp.b64 	%rd17, 1, 0, %p3;
	add.s64 	%rd18, %rd18, %rd17;
	and.b64 	%rd13, %rd4, {alternate};
	setp.ne.b64 	%p2, %rd13, 0;
	selp.b64 	%rd14, %rd12, %rd1, %p2;
	add.s64 	%rd6, %rd14, %rd5;
	ld.global.b16 	%rs1, [%rd6];
	add.s64 	%rd7, %rd9, %rd5;
	st.shared.b16 	[%rd7], %rs1;
	add.s64 	%rd8, %rd2, %rd5;
	st.global.b16 	[%rd8], %rs1;
	add.s64 	%rd3, %rd3, 64;
	add.s64 	%rd4, %rd4, 1;
	bra.uni 	$LOOP;
$DONE:
	mul.wide.u32 	%rd15, %r1, 8;
	add.s64 	%rd16, %rd2, %rd15;
	st.global.b64 	[%rd16+2048], %rd4;
	st.global.b64 	[%rd16+2560], %rd18;
	ret;
$LATE:
	bra.uni 	$LOOP;
"""
PARAMS = (".u64 .ptr .global .align 1 k_param_0", ".u64 .ptr .global .align 1 k_param_1",
          ".u64 .ptr .global .align 1 k_param_2")
SHARED = ".shared .align 16 .b8 buf[1024];\n"

#: The trip count per thread: %r2 from %r1 = %tid.x; and the same as a NumPy function.
LIMITS = {
    "uniform": ("mov.u32 	%r2, 4;", lambda t: np.full_like(t, 4)),
    # warp 0 runs one more iteration than warp 1: the two warps' step splits at the exit
    "per warp": ("shr.u32 	%r3, %r1, 5;\n\tsub.s32 	%r2, 4, %r3;", lambda t: 4 - t // 32),
    # lanes of one warp leave after 2 to 5 iterations: the warp diverges at the exit
    "per lane": ("and.b32 	%r3, %r1, 3;\n\tadd.s32 	%r2, %r3, 2;", lambda t: 2 + (t & 3)),
    # warp 1 enters the loop through $LATE, at the end of the kernel: under the lowest PC
    # first it runs its iterations after warp 0 ran all of its own
    "staggered": ("mov.u32 	%r2, 4;", lambda t: np.full_like(t, 4)),
}
#: What runs before the loop: in "staggered", warp 1 branches to $LATE.
ENTER = {"staggered": "shr.u32 	%r5, %r1, 5;\n\tsetp.ne.b32 	%p4, %r5, 0;\n"
                      "\t@%p4 bra 	$LATE;"}


def copy_kernel(limit: str, alternate: bool) -> str:
    body = COPY.format(limit=LIMITS[limit][0], alternate=1 if alternate else 0,
                       enter=ENTER.get(limit, ""))
    return kernel(body, params=PARAMS, extra=SHARED)


def arrays(elements: int = 64 * 6):
    rng = np.random.default_rng(11)
    source = rng.integers(0, 1 << 16, elements, dtype=np.uint16)
    other = rng.integers(0, 1 << 16, elements, dtype=np.uint16)
    return source, np.zeros(2048 + 2 * 64 * 8, np.uint8), other


def expected(limit: str, alternate: bool):
    """Hand-derived: thread t writes element t + 64 i for i < its trip count, taken from
    in2 when i is odd and ALTERNATE, else from in; its word at 2048 + 8 t is the count,
    at 2560 + 8 t the number of its j above 195."""
    source, out, other = arrays()
    t = np.arange(64)
    trips = LIMITS[limit][1](t)
    halves = out[:2048].view(np.uint16)
    for thread, n in zip(t, trips):
        for i in range(n):
            j = thread + 64 * i
            halves[j] = (other if alternate and i % 2 else source)[j]
    words = out[2048:].view(np.uint64)
    words[:64] = trips
    words[64:] = [sum(thread + 64 * i > 195 for i in range(n)) for thread, n in zip(t, trips)]
    return out


def simulated(text: str, monkeypatch, elements: int = 64 * 6, general=(), **options):
    """(result or the SimError, out, how often each fast path ran). ``general`` switches
    fast paths off: "branches" (the fused stretch stops at every branch), "fused" (no
    fused stretch), "global" (no reuse of the last global array)."""
    ran = {"branches": 0, "global": 0}
    with monkeypatch.context() as patch:
        through = machine_stepping.MachineStepping._branch_through

        def branch_through(self, *args):
            if "branches" in general:
                return None
            after = through(self, *args)
            ran["branches"] += after is not None
            return after
        patch.setattr(machine_stepping.MachineStepping, "_branch_through", branch_through)
        if "fused" in general:
            patch.setattr(machine_stepping.MachineStepping, "_fused",
                          lambda self, *args: None)
        # (the step's own test, _global_again, and a planned global store's both ask
        # _global_in_last: a plan is made at a stretch's second run)
        again = ops_memory_warp._global_in_last

        def global_again(*args):
            found = None if "global" in general else again(*args)
            ran["global"] += found is not None
            return found
        patch.setattr(ops_memory_warp, "_global_in_last", global_again)
        source, out, other = arrays(elements)
        try:
            result = simulate(text, {}, {"k_param_0": source, "k_param_1": out,
                                         "k_param_2": other}, **options)
        except SimError as err:
            result = err
    return result, out, ran


def same_run(a, b) -> None:
    """Everything two runs report agrees (outputs compared by the caller)."""
    if isinstance(a, SimError) or isinstance(b, SimError):
        assert (type(a), str(a), a.ptx_line) == (type(b), str(b), getattr(b, "ptx_line", 0))
        return
    assert [str(r) for r in a.races] == [str(r) for r in b.races]
    assert a.problems == b.problems
    assert list(a.counts.items()) == list(b.counts.items())   # the order too
    assert a.warp_instructions == b.warp_instructions


@pytest.mark.parametrize("limit", list(LIMITS))
@pytest.mark.parametrize("alternate", [False, True])
def test_a_copy_loop_runs_through_its_branches_as_the_steps_would(monkeypatch, limit,
                                                                  alternate):
    """The loop's values are the hand-derived ones, and its counts, warp instructions
    and outputs are those of the run that takes every branch as a step (and of the run
    without fused stretches at all). The uniform loop runs through its back edge and
    exit test (every iteration after the first); where the warps or lanes leave at
    different iterations the branch is the step loop's."""
    text = copy_kernel(limit, alternate)
    fast, fast_out, ran = simulated(text, monkeypatch)
    assert not isinstance(fast, SimError) and fast.ok
    assert np.array_equal(fast_out, expected(limit, alternate))
    assert ran["branches"] > 0
    for general in (("branches",), ("fused", "global")):
        reference, reference_out, _ = simulated(text, monkeypatch, general=general)
        same_run(fast, reference)
        assert np.array_equal(fast_out, reference_out)


def test_the_last_array_is_reused_only_where_the_access_lies_in_it(monkeypatch):
    """With ALTERNATE the one ld.global reads in and in2 in turn: the array its last
    access found is wrong every other iteration, and the values are still each
    iteration's own (hand-derived); the reuse ran in the iterations it fits."""
    fast, fast_out, ran = simulated(copy_kernel("uniform", True), monkeypatch)
    assert np.array_equal(fast_out, expected("uniform", True))
    assert ran["global"] > 0


@pytest.mark.parametrize("limit", ["uniform", "per lane"])
def test_a_loop_that_runs_past_its_array_reports_the_general_codes_error(monkeypatch,
                                                                         limit):
    """in has 64 * 3 + 8 elements: the fourth iteration's load leaves it for most
    threads (after three in which the last array was reused); the error, its line and
    the outputs before it are those of the general code."""
    text = copy_kernel(limit, False)
    fast, fast_out, ran = simulated(text, monkeypatch, elements=64 * 3 + 8)
    reference, reference_out, _ = simulated(text, monkeypatch, elements=64 * 3 + 8,
                                            general=("branches", "fused", "global"))
    assert isinstance(fast, SimError) and "out-of-bounds global load" in str(fast)
    same_run(fast, reference)
    assert np.array_equal(fast_out, reference_out)
    assert ran["global"] > 0


def test_a_misaligned_access_in_the_loop_is_the_general_codes_error(monkeypatch):
    """The out pointer moved by one byte: every st.global.b16 of the loop is misaligned;
    the first one reports as the general code does."""
    text = copy_kernel("uniform", False).replace("add.s64 	%rd8, %rd2, %rd5;",
                                                 "add.s64 	%rd8, %rd2, %rd5;\n"
                                                 "\tadd.s64 	%rd8, %rd8, 1;")
    fast, _, _ = simulated(text, monkeypatch)
    reference, _, _ = simulated(text, monkeypatch, general=("branches", "fused", "global"))
    assert isinstance(fast, SimError) and "misaligned" in str(fast)
    same_run(fast, reference)


def test_a_shared_store_below_the_shared_memory_is_the_general_codes_error(monkeypatch):
    """The loop's shared base is address 0 instead of buf: below the shared window
    (which starts at 1024, words.SMEM_BASE), where the one-AND bounds test of the lean
    store (ops_memory_warp._in_shared) must not let it through."""
    text = copy_kernel("uniform", False).replace("mov.b64 	%rd9, buf;", "mov.b64 	%rd9, 0;")
    fast, _, _ = simulated(text, monkeypatch)
    reference, _, _ = simulated(text, monkeypatch, general=("branches", "fused", "global"))
    assert isinstance(fast, SimError) and "out-of-bounds shared-memory store" in str(fast)
    same_run(fast, reference)
