"""The step loop's and the synchronization handlers' fast paths against their general
code (issue 37, round 9 of the simulator's speed):

* ``machine_stepping.lowest_first`` (the lowest-PC-first choice through argmin and
  nonzero) against the reductions it replaces;
* ``Machine.whole_live_warps`` (``check_warp_converged`` passes whole warps of live
  threads at once) against the per-warp counts, on CTAs whose threads are and are not a
  multiple of 32, with an exited thread, a partial warp and a guard;
* ``ops_control._full_mask`` (elect.sync with every lane in its mask elects lane 0
  through the step's slice) against the general election;
* ``ops_mbarrier._uniform_wait`` (a warp's try_wait on one mbarrier and parity as one
  group, the same warp of both CTAs of a pair as one group per CTA:
  ``MbarrierOrdering.mbarrier_try_wait_parity_runs``) against the general wait, on
  warps whose threads wait on two mbarriers, of two CTAs, with an immediate or a
  register parity;
* the fused stretches' bodies of mov's pack and unpack, selp, not, bfe, cvt and
  cvta.global against the steps one by one (no fused stretch).

The expected values are derived by hand from the PTX ISA (elect.sync: the lowest lane of
the mask is elected, d its lane; mov's pack puts element 0 in the low bits; selp, not,
bfe and cvt as 9.7.7.x, 9.7.8.x, 9.7.2.x and 9.7.9.21 define them); the reference for
everything else a run reports is the general code on the same kernel."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_cluster_mbarriers import PROLOGUE, pair_kernel  # noqa: E402
from test_sim_executor import kernel  # noqa: E402
from test_sim_schedule_fast_paths import WAIT_BOTH, _model_state  # noqa: E402
from tcgen05_lower.sim import ops_control, ops_mbarrier  # noqa: E402
from tcgen05_lower.sim import ptx as P  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.executor import Launch, Machine  # noqa: E402
from tcgen05_lower.sim.machine_stepping import (NOT_RUNNABLE, MachineStepping,  # noqa: E402
                                                lowest_first)
from tcgen05_lower.sim.ordering import OrderingModel  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402
from tcgen05_lower.sim.words import ALL, EXIT, RUN  # noqa: E402


# -- the lowest-PC-first choice ----------------------------------------------------------------

def _reference_lowest_first(pcs):
    """The choice as the scheduler made it before (NumPy's reductions and masks)."""
    m = int(pcs.min())
    sel = pcs == m
    chain_limit = int(np.where(sel, NOT_RUNNABLE, pcs).min())
    return m, ALL if sel.all() else np.flatnonzero(sel), chain_limit


@pytest.mark.parametrize("seed", range(6))
def test_lowest_first_chooses_what_the_reductions_chose(seed):
    """On PCs with runnable and not runnable threads, one or several at the lowest PC,
    every thread at one PC (ALL) and one runnable PC only (no chain limit below
    NOT_RUNNABLE): the same PC, threads and chain limit."""
    rng = np.random.default_rng(seed)
    cases = [np.full(64, 5, np.int64), np.where(np.arange(64) < 32, 3, NOT_RUNNABLE)]
    for _ in range(200):
        pcs = rng.integers(0, 6, 96).astype(np.int64)
        pcs[rng.random(96) < 0.4] = NOT_RUNNABLE
        if pcs.min() == NOT_RUNNABLE:
            pcs[rng.integers(96)] = 0
        cases.append(pcs)
    for pcs in cases:
        m, idx, limit = lowest_first(pcs)
        want_m, want_idx, want_limit = _reference_lowest_first(pcs)
        assert (m, limit) == (want_m, want_limit)
        assert (idx is ALL) == (want_idx is ALL)
        if idx is not ALL:
            assert np.array_equal(idx, want_idx) and idx.dtype == want_idx.dtype


# -- warp convergence --------------------------------------------------------------------------

CONVERGED = """
	mov.u32 	%r1, %tid.x;
	setp.eq.b32 	%p1, %r1, 0;
	elect.sync 	_|%p2, -1;
	@%p1 elect.sync 	_|%p3, -1;
	ret;
"""


def _machine(threads: int, cluster: int) -> Machine:
    text = kernel(CONVERGED, params=(), threads=threads)
    module = P.parse(text)
    return Machine(module, module.entries[0], Launch(threads=threads, cluster=cluster), {},
                   OrderingModel, object())


def _verdict(machine: Machine, ins, idx):
    try:
        machine.check_warp_converged(ins, idx)
    except SimError as err:
        return str(err)
    return None


def _idx_cases(n: int) -> list:
    ids = np.arange(n)
    cases = [ALL, ids[:32], ids[32:64], ids[16:48], ids[16:64], ids[:48], ids[32:n],
             ids[0:n:2], np.delete(ids[:32], 5), ids[:64],
             np.concatenate([ids[:32], ids[64:96]]), np.concatenate([ids[:32], ids[80:112]]),
             np.concatenate([ids[:32], ids[64:80], ids[96:112]])]
    return [c for c in cases if c is ALL or (c.size and c[-1] < n)]


@pytest.mark.parametrize("threads,cluster", [(64, 1), (64, 2), (48, 2), (40, 1)])
def test_converged_warps_are_checked_as_the_counts_check_them(monkeypatch, threads,
                                                              cluster):
    """Per set of threads (all, whole warps, runs that start or end inside a warp, a run
    across a CTA boundary, every other thread, a warp less one lane, ids of two whole
    warps that are not neighbours, ids of a warp and a run inside another, two half
    warps that are 32 apart) and per status
    (all running, one thread of the first warp exited, the last warp's second half
    exited), unguarded and
    guarded (the guard %p1 true in thread 0 of each CTA only): the same verdict, error
    or not, with and without the whole-warp shortcut. With 48 threads per CTA the run of
    threads 32-63 is whole warp 1 of CTA 0 and half of CTA 1's warp 0 (an error the
    shortcut must not pass); with an exited thread the whole first warp is not its live
    threads."""
    machine = _machine(threads, cluster)
    instructions = machine.entry.instructions
    elect = next(i for i in instructions if i.opcode == "elect.sync" and i.guard is None)
    guarded = next(i for i in instructions if i.opcode == "elect.sync" and i.guard)
    n = machine.nthreads
    machine.regs["%p1"] = machine.tid == 0
    statuses = [np.zeros(n, np.int8), np.zeros(n, np.int8), np.zeros(n, np.int8)]
    statuses[1][3] = EXIT
    statuses[2][n - (n % 32 or 32) // 2:] = EXIT
    verdicts = []
    for status in statuses:
        machine.status[:] = status
        for idx in _idx_cases(n):
            for ins in (elect, guarded):
                machine._contiguous_of = None
                fast = _verdict(machine, ins, idx)
                with monkeypatch.context() as patch:
                    patch.setattr(Machine, "whole_live_warps", lambda self, idx: False)
                    general = _verdict(machine, ins, idx)
                assert fast == general, (status, idx, ins.text)
                verdicts.append(fast)
    assert any(v is None for v in verdicts) and any(v is not None for v in verdicts)
    if threads == 48 and cluster == 2:
        machine.status[:] = RUN
        assert "only 16 of the 32 live threads of warp 0 (CTA 1)" in \
            _verdict(machine, elect, np.arange(32, 64))
    machine.status[:] = statuses[1]
    assert "only 32 of the 31 live threads" in _verdict(machine, elect, np.arange(32))


# -- elect.sync --------------------------------------------------------------------------------

#: Every thread elects with mask {mask} ({guard}: a guard predicate), then stores its
#: predicate (1 elected, 0 not, 9 guarded off) and its d at out[2 t], out[2 t + 1].
ELECT = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r2, %r1, 64;
	setp.eq.b32 	%p3, %r2, 0;
	mov.b32 	%r5, 77;
	mov.pred 	%p1, 0;
	{guard}elect.sync 	%r5|%p1, {mask};
	selp.b32 	%r3, 1, 0, %p1;
	{off}
	mul.wide.u32 	%rd2, %r1, 8;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r3;
	st.global.b32 	[%rd3+4], %r5;
	ret;
"""


def _elect_kernel(mask: str, guarded: bool, staggered: bool = False) -> str:
    body = ELECT.format(mask=mask, guard="@%p3 " if guarded else "",
                        off="@!%p3 mov.b32 	%r3, 9;" if guarded else "")
    if staggered:
        # warps 1 and 3 go round through $LATE (at the end): under the lowest PC first
        # warps 0 and 2 (ids, not a slice) elect together, then warps 1 and 3
        body = body.replace("\tmov.b32 	%r5, 77;\n",
                            "\tmov.b32 	%r5, 77;\n\tand.b32 	%r8, %r1, 32;\n"
                            "\tsetp.ne.b32 	%p5, %r8, 0;\n\t@%p5 bra 	$LATE;\n$BACK:\n")
        assert "$BACK" in body
        body += "$LATE:\n\tmov.pred 	%p1, 0;\n\tbra.uni 	$BACK;\n"
    return kernel(body, threads=128)


def _elect_run(text: str, monkeypatch, general: bool, schedule="late", seed=None):
    out = np.zeros(256, np.uint32)
    trace = io.StringIO()
    kw = {"seed": seed} if seed is not None else {}
    with monkeypatch.context() as patch:
        if general:
            patch.setattr(ops_control, "_full_mask", lambda m, ins, mask: False)
        result = simulate(text, {}, {"k_param_0": out}, schedule=schedule, trace=trace,
                          **kw)
    return out, (trace.getvalue(), sorted(result.counts.items()),
                 [str(r) for r in result.races], result.problems)


@pytest.mark.parametrize("mask", ["-1", "0xFFFFFFFF"])
@pytest.mark.parametrize("guarded", [False, True])
@pytest.mark.parametrize("staggered", [False, True])
@pytest.mark.parametrize("schedule,seed", [("late", None), ("random", 3)])
def test_elect_elects_the_lowest_lane_as_the_general_code_does(monkeypatch, mask, guarded,
                                                               staggered, schedule, seed):
    """Hand-derived (elect.sync: the lowest lane of the mask is elected, d is its lane):
    every lane is in the mask, so in each warp lane 0 is elected and every thread's d is
    0; a guarded elect runs in warps 0-1 (tid & 64 == 0) only, the others keep their d
    (77) and store 9; staggered, warps 0 and 2 elect in one step, then 1 and 3. The run
    with the fast path and the general one report the same outputs, trace, counts,
    races and problems."""
    text = _elect_kernel(mask, guarded, staggered)
    fast, fast_report = _elect_run(text, monkeypatch, False, schedule, seed)
    general, general_report = _elect_run(text, monkeypatch, True, schedule, seed)
    assert np.array_equal(fast, general) and fast_report == general_report
    t = np.arange(128)
    elected = (t % 32 == 0).astype(np.uint32)
    d = np.zeros(128, np.uint32)
    if guarded:
        off = (t & 64) != 0
        elected[off], d[off] = 9, 77
    assert np.array_equal(fast[0::2], elected) and np.array_equal(fast[1::2], d)


def test_an_elect_whose_mask_leaves_out_lane_0_is_the_general_codes_error(monkeypatch):
    """Mask 0xFFFFFFFE: lane 0 executes the elect but is not in the mask, an error the
    general code reports (the fast path takes only a mask of every lane)."""
    errors = []
    for general in (False, True):
        with pytest.raises(SimError) as caught:
            _elect_run(_elect_kernel("0xFFFFFFFE", False), monkeypatch, general)
        errors.append((str(caught.value), caught.value.ptx_line))
    assert errors[0] == errors[1] and "not in its own membermask" in errors[0][0]


def test_an_elect_of_a_diverged_warp_is_the_general_codes_error(monkeypatch):
    """Half of each warp branches past the elect: the warp is not converged, which the
    fast path leaves to the general code's report."""
    text = _elect_kernel("-1", False).replace(
        "\tmov.pred 	%p1, 0;",
        "\tmov.pred 	%p1, 0;\n\tand.b32 	%r6, %r1, 16;\n\tsetp.ne.b32 	%p4, %r6, 0;\n"
        "\t@%p4 bra 	$SKIP;").replace("\tselp.b32", "$SKIP:\n\tselp.b32")
    errors = []
    for general in (False, True):
        with pytest.raises(SimError) as caught:
            _elect_run(text, monkeypatch, general)
        errors.append((str(caught.value), caught.value.ptx_line))
    assert errors[0] == errors[1] and "only 16 of the 32 live threads" in errors[0][0]


# -- try_wait.parity ---------------------------------------------------------------------------

#: One CTA of 64 threads, two mbarriers of count 1 (bar, bar + 8). Thread 0 arrives on
#: the first; every thread waits (parity {parity}) on the first (even threads) or the
#: second (odd threads, {spread}: else all on the first); thread 0, once through, arrives on
#: the second; then every thread stores 1 to out[t].
TWO_BARS = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	setp.eq.b32 	%p1, %r1, 0;
	mov.u32 	%r2, bar;
	@%p1 mbarrier.init.shared::cta.b64 	[%r2], 1;
	@%p1 mbarrier.init.shared::cta.b64 	[%r2+8], 1;
	barrier.sync 	0;
	@%p1 mbarrier.arrive.shared::cta.b64 	_, [%r2];
	and.b32 	%r3, %r1, {spread};
	shl.b32 	%r4, %r3, 3;
	add.s32 	%r5, %r2, %r4;
	mov.b32 	%r7, 0;
	{{ .reg .pred done; wait: mbarrier.try_wait.parity.shared::cta.b64 done, [%r5], {parity}; @!done bra wait; }}
	@%p1 mbarrier.arrive.shared::cta.b64 	_, [%r2+8];
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	mov.b32 	%r6, 1;
	st.global.b32 	[%rd3], %r6;
	ret;
"""


def _wait_run(text: str, monkeypatch, general: bool, schedule="late", seed=None,
              out_words=64):
    models = []

    def capture(ctas, threads, schedule_name):
        models.append(OrderingModel(ctas, threads, schedule_name))
        return models[-1]

    out = np.zeros(out_words, np.uint32)
    args = {"k_param_0": out}
    if "k_param_2" in text:   # (the pair kernels' other two arrays)
        args.update(k_param_1=np.zeros(4, np.uint32), k_param_2=np.zeros(4, np.uint32))
    trace = io.StringIO()
    kw = {"seed": seed} if seed is not None else {}
    calls = []
    with monkeypatch.context() as patch:
        if general:
            patch.setattr(ops_mbarrier, "_uniform_wait", lambda *args: None)
        else:
            made = ops_mbarrier._uniform_wait

            def counted(*args):
                uniform = made(*args)
                if uniform is None:
                    return None

                def spy(idx):
                    done = uniform(idx)
                    calls.append(done)
                    return done
                return spy
            patch.setattr(ops_mbarrier, "_uniform_wait", counted)
        try:
            result = simulate(text, {}, args, schedule=schedule, trace=trace,
                              ordering_factory=capture, max_instructions=5000, **kw)
            report = (out.tolist(), trace.getvalue(), sorted(result.counts.items()),
                      [(str(r), r.ptx_line, r.other_line) for r in result.races],
                      result.problems)
        except SimError as err:
            report = (str(err), err.ptx_line, trace.getvalue())
    return report, _model_state(models[0]), calls


def _two_bars(spread: bool, parity: str) -> str:
    return kernel(TWO_BARS.format(spread=1 if spread else 0, parity=parity),
                  extra=".shared .align 8 .b8 bar[16];\n")


SCHEDULES = [("late", None)] + [("random", seed) for seed in range(3)]


@pytest.mark.parametrize("spread", [False, True])
@pytest.mark.parametrize("parity", ["0", "%r7"])
@pytest.mark.parametrize("schedule,seed", SCHEDULES)
def test_a_warps_wait_on_one_mbarrier_is_the_general_wait(monkeypatch, spread, parity,
                                                          schedule, seed):
    """The same trace, counts, outputs (hand-derived: every thread gets through and
    stores 1), races and mbarrier phases and clocks as the general wait, with an
    immediate and a register parity. Where the odd threads wait on the second mbarrier
    (``spread``) a warp's threads give two addresses: the fast path leaves those waits
    to the general code, and takes the odd threads' wait again (every other thread:
    ids, not a slice); where they all wait on the first it takes them."""
    text = _two_bars(spread, parity)
    fast = _wait_run(text, monkeypatch, False, schedule, seed)
    general = _wait_run(text, monkeypatch, True, schedule, seed)
    assert fast[:2] == general[:2]
    assert fast[0][0] == [1] * 64
    if not spread:
        assert True in fast[2]
    elif schedule == "late":
        # the 64 threads' first wait gives two addresses (the general code's); the
        # odd threads (not consecutive) then try again on one mbarrier
        assert fast[2][0] is False and fast[2][1:] == [True]


@pytest.mark.parametrize("schedule,seed", SCHEDULES)
@pytest.mark.parametrize("unordered", [False, True])
def test_a_pairs_wait_is_the_general_wait(monkeypatch, schedule, seed, unordered):
    """Both CTAs of a pair wait at once on their own mbarrier (under the late schedule
    one step of 64 threads of two CTAs: two groups, CTA 0's passing, CTA 1's waiting
    until CTA 0's thread 0 arrives on its mbarrier; under random ones warp by warp);
    without the cluster barrier after the inits the waits are not ordered after them,
    which the general code reports. The same report and model state either way."""
    text = PROLOGUE.format(count=1) + WAIT_BOTH
    if unordered:
        text = text.replace("\tbarrier.cluster.arrive.aligned;\n"
                            "\tbarrier.cluster.wait.aligned;\n", "", 1)
    text = pair_kernel(text)
    fast = _wait_run(text, monkeypatch, False, schedule, seed)
    general = _wait_run(text, monkeypatch, True, schedule, seed)
    assert fast[:2] == general[:2]
    if not unordered:
        assert fast[0][0] == [1] * 64
        if schedule == "late":
            # the first wait, of 64 threads of two CTAs, and CTA 1's warp's second
            assert fast[2] == [True, True]


# -- bodies of the fused stretches -------------------------------------------------------------

#: A straight-line stretch of the forms that got a body, unguarded and guarded (the guard
#: %p1 true in even threads): thread t computes from x = t + 1 ...
BODIES = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	and.b32 	%r20, %r1, 1;
	setp.eq.b32 	%p1, %r20, 0;
	add.s32 	%r2, %r1, 1;
	cvt.u64.u32 	%rd2, %r2;
	shl.b64 	%rd3, %rd2, 32;
	or.b64 	%rd4, %rd3, 7;
	mov.b64 	{{%r3, %r4}}, %rd4;
	mov.b64 	%rd5, {{%r4, %r3}};
	setp.gt.u32 	%p2, %r2, 20;
	selp.b32 	%r5, %r2, 100, %p2;
	not.b32 	%r6, %r2;
	bfe.u32 	%r7, %r2, 1, 3;
	cvt.u16.u32 	%rs1, %r6;
	cvt.rn.f32.u32 	%r8, %r2;
	cvta.global.u64 	%rd6, %rd1;
	mov.b32 	%r9, 55;
	{g}selp.b32 	%r9, 1, 2, %p2;
	{g}not.b32 	%r9, %r9;
	{g}cvt.u32.u16 	%r9, %rs1;
	cvt.u32.u16 	%r10, %rs1;
	mul.wide.u32 	%rd7, %r1, 48;
	add.s64 	%rd8, %rd6, %rd7;
	st.global.b64 	[%rd8], %rd5;
	st.global.b32 	[%rd8+8], %r5;
	st.global.b32 	[%rd8+12], %r6;
	st.global.b32 	[%rd8+16], %r7;
	st.global.b32 	[%rd8+20], %r8;
	st.global.b32 	[%rd8+24], %r9;
	st.global.b32 	[%rd8+28], %r10;
	st.global.b32 	[%rd8+32], %r3;
	st.global.b32 	[%rd8+36], %r4;
	ret;
"""


def _bodies_run(guard: str, monkeypatch, fused: bool):
    text = kernel(BODIES.format(g=guard), threads=64)
    out = np.zeros(64 * 12, np.uint32)
    ran = []
    with monkeypatch.context() as patch:
        if not fused:
            patch.setattr(MachineStepping, "_fused", lambda self, *args: None)
        else:
            made = MachineStepping._fused

            def spy(self, m, *args):
                after = made(self, m, *args)
                ran.append((m, after))
                return after
            patch.setattr(MachineStepping, "_fused", spy)
        result = simulate(text, {}, {"k_param_0": out})
    return out.reshape(64, 12), (sorted(result.counts.items()), result.warp_instructions,
                                 [str(r) for r in result.races]), ran, text


@pytest.mark.parametrize("guard", ["", "@%p1 "])
def test_the_bodies_compute_what_the_steps_compute(monkeypatch, guard):
    """Hand-derived per thread t, x = t + 1: the 64-bit word 7 | x << 32 unpacked into
    (7, x) and packed back swapped (x | 7 << 32); selp x if x > 20 else 100; not x;
    bfe(x, 1, 3) = (x >> 1) & 7; cvt.rn.f32.u32 x (float bits); r10 = the low 16 bits of
    not x; r9: 55 -> selp (1 if x > 20 else 2) -> not -> the low 16 bits of not x, each
    step (when guarded) only in even threads. The fused run and the step-by-step run give
    the same words, counts, warp instructions and races, and with no guard the fused
    stretch runs through the forms (the steps before the stores are one stretch)."""
    fast, fast_report, ran, text = _bodies_run(guard, monkeypatch, True)
    steps, steps_report, _, _ = _bodies_run(guard, monkeypatch, False)
    assert np.array_equal(fast, steps) and fast_report == steps_report
    x = np.arange(1, 65, dtype=np.uint64)
    nx = ~x.astype(np.uint32)
    want = np.zeros((64, 12), np.uint32)
    want[:, 0], want[:, 1] = x, 7
    want[:, 2] = np.where(x > 20, x, 100)
    want[:, 3] = nx
    want[:, 4] = (x >> 1) & 7
    want[:, 5] = x.astype(np.float32).view(np.uint32)   # (x < 2^24: exact)
    r9 = nx & 0xFFFF
    if guard:
        r9 = np.where(np.arange(64) % 2 == 0, r9, 55)
    want[:, 6] = r9
    want[:, 7] = nx & 0xFFFF
    want[:, 8], want[:, 9] = 7, x
    assert np.array_equal(fast[:, :10], want[:, :10])
    if not guard:
        # from the first instruction after the ld.param (PC 1) to the stores: one stretch
        stores = next(pc for pc, ins in enumerate(P.parse(text).entries[0].instructions)
                      if ins.opcode.startswith("st."))
        assert any(m <= 1 and after is not None and after >= stores for m, after in ran)


@pytest.mark.parametrize("schedule,seed", SCHEDULES)
def test_the_second_warps_of_a_pair_wait_as_the_general_wait(monkeypatch, schedule, seed):
    """CTAs of 64 threads: warp 0 of each branches past the wait, so under the late
    schedule warp 1 of both CTAs (threads 32-63 and 96-127: ids, not a slice, of two
    CTAs) waits in one step, CTA 0's passing (its thread 0 arrived) and CTA 1's waiting
    until CTA 0's thread 0 arrives on its mbarrier. Hand-derived: every thread stores 1
    to out[rank * 32 + tid], words 0-95. The same report and model state as the general
    wait."""
    wait = "{ .reg .pred done; wait: mbarrier.try_wait"
    body = WAIT_BOTH.replace("\tmov.b32 	%r7, 0;\n",
                             "\tmov.b32 	%r7, 0;\n\tshr.u32 	%r11, %r1, 5;\n"
                             "\tsetp.eq.b32 	%p6, %r11, 0;\n\t@%p6 bra 	$SKIP;\n")
    head, tail = body.split(wait)
    line, rest = tail.split("\n", 1)
    text = pair_kernel(PROLOGUE.format(count=1) + head + wait + line + "\n$SKIP:\n" + rest,
                       threads=64)
    fast = _wait_run(text, monkeypatch, False, schedule, seed, out_words=128)
    general = _wait_run(text, monkeypatch, True, schedule, seed, out_words=128)
    assert fast[:2] == general[:2]
    assert fast[0][0] == [1] * 96 + [0] * 32
    if schedule == "late":
        assert fast[2] == [True, True]
