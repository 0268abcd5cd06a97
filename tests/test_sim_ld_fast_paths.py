"""The lean forms of tcgen05.ld and tcgen05.st (sim/ldst_lean.py): the values they
store and load (hand-derived from the ld / st fragments of PTX ISA 9.7.16.2.3.1,
tmem-facts section 2), that the kernels here do take them, and that whatever they cannot
do (a warp of fewer threads, an address that differs between threads, unallocated
columns, a register count that does not match the fragment, warps that are not
consecutive or not 32 threads by 32) gives what the general code gives: each kernel is
also run with the lean forms switched off (``lean_load`` / ``lean_store`` giving None,
so every warp goes through tcgen05_ops' ``_load_warp`` / ``_store_warp``), and that run
is the reference."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_executor import kernel  # noqa: E402
from tcgen05_lower.sim import ldst_lean  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402

#: Every thread t of CTA r stores its registers {%s0, ..} = (64 * (r * threads + t) + j)
#: with tcgen05.st of FORM at ST_ADDR (taddr: the allocated columns, lane 32 * its warp's
#: rank in its warpgroup), waits, loads them back with tcgen05.ld of the same form at
#: LD_ADDR (taddr) into {%d0, ..} (made by a mov first unless FRESH) and writes them to
#: out[R * g + j] (g: the thread's index in the cluster). Warp 0 allocates ALLOC columns
#: and frees them at the end; GUARD (a predicate on %p2: warp 1 and 3) may guard the ld;
#: with HALVES the upper 16 threads of warps 1 and 2 exit first.
BODY = """
	.reg .b32 	%s<40>;
	.reg .b32 	%d<40>;
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r30, %cluster_ctarank;
	mad.lo.u32 	%r31, %r30, {threads}, %r1;
	shr.u32 	%r2, %r1, 5;
	and.b32 	%r3, %r2, 3;
	setp.eq.u32 	%p1, %r2, 0;
	and.b32 	%r7, %r2, 1;
	setp.eq.u32 	%p2, %r7, 1;
{exits}	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], {alloc};
	@%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 	0;
	tcgen05.fence::after_thread_sync;
	ld.shared.u32 	%r4, [slot];
	shl.b32 	%r5, %r3, 21;
	add.u32 	%r6, %r4, %r5;
	mul.lo.u32 	%r8, %r1, 4;
	add.u32 	%r9, %r6, %r8;
{sources}
	tcgen05.st.sync.aligned.{form}{unpack}.b32 	{st_addr}{imm}, {{{src}}};
	tcgen05.wait::st.sync.aligned;
{moves}
	{guard}tcgen05.ld.sync.aligned.{form}{pack}.b32 	{{{dst}}}, {ld_addr}{imm};
	tcgen05.wait::ld.sync.aligned;
	mul.wide.u32 	%rd2, %r31, {row_bytes};
	add.s64 	%rd3, %rd1, %rd2;
{stores}
	tcgen05.fence::before_thread_sync;
	bar.sync 	0;
	tcgen05.fence::after_thread_sync;
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, {alloc};
	ret;
"""

HALVES = """	and.b32 	%r32, %r1, 16;
	setp.ne.u32 	%p3, %r32, 0;
	sub.u32 	%r33, %r2, 1;
	setp.lt.u32 	%p4, %r33, 2;
	and.pred 	%p5, %p3, %p4;
	@%p5 ret;
"""

#: Registers per thread of each form (9.7.16.2.3.1: .32x32b and .16x32bx2 one per .num,
#: .16x64b one, .16x128b two, .16x256b four).
FORMS = {"32x32b.x4": 4, "32x32b.x16": 16, "16x64b.x2": 2, "16x128b.x2": 4,
         "16x256b.x1": 4, "16x32bx2.x2": 2}


def ld_kernel(form="32x32b.x4", *, threads=128, alloc=64, packed=False, fresh=False,
              guard="", ld_addr="[%r6]", names=None, cluster=1, halves=False,
              st_addr="[%r6]", sources=None) -> tuple[str, int]:
    """The kernel of BODY and its registers per thread (NAMES of the ld, SOURCES of the
    st: the form's by default)."""
    regs = FORMS[form]
    names = regs if names is None else names
    sources = regs if sources is None else sources
    text = BODY.format(
        threads=threads, alloc=alloc, form=form, guard=guard, ld_addr=ld_addr,
        st_addr=st_addr,
        exits=HALVES if halves else "",
        unpack=".unpack::16b" if packed else "", pack=".pack::16b" if packed else "",
        imm=", 16" if form.startswith("16x32bx2") else "",
        sources="\n".join(f"\tmad.lo.u32 \t%s{j}, %r31, 64, {j};" for j in range(sources)),
        src=", ".join(f"%s{j}" for j in range(sources)),
        moves="" if fresh else "\n".join(f"\tmov.b32 \t%d{j}, 0;" for j in range(names)),
        dst=", ".join(f"%d{j}" for j in range(names)),
        row_bytes=4 * names,
        stores="\n".join(f"\tst.global.b32 \t[%rd3+{4 * j}], %d{j};" for j in range(names)))
    text = kernel(text, threads=threads, extra=".shared .align 4 .b32 slot;\n")
    if cluster > 1:
        text = text.replace(f".reqntid {threads}, 1, 1",
                            f".reqntid {threads}, 1, 1\n.reqnctapercluster {cluster}, 1, 1")
    return text, names


def run(text: str, names: int, threads: int, general: bool, monkeypatch, cluster=1,
        **options):
    """The kernel with the lean forms (or, `general`, without them): (result or the
    SimError's text, out as [threads, names], how many warps the lean forms loaded and
    stored)."""
    taken = {"load": 0, "store": 0}
    out = np.zeros(cluster * threads * names, np.uint32)
    with monkeypatch.context() as patch:
        for cls, name in ((ldst_lean._LeanLoad, "load"), (ldst_lean._LeanStore, "store")):
            def counted(self, *args, original=getattr(cls, name), name=name):
                done = original(self, *args)
                taken[name] += done
                return done
            patch.setattr(cls, name, counted)
        if general:
            patch.setattr(ldst_lean, "lean_load", lambda *args: None)
            patch.setattr(ldst_lean, "lean_store", lambda *args: None)
        try:
            result = simulate(text, {}, {"k_param_0": out}, **options)
        except SimError as err:
            result = str(err)
    return result, out.reshape(cluster * threads, names), (taken["load"], taken["store"])


def same_as_general(text, names, threads, monkeypatch, cluster=1, **options):
    """Runs both ways; asserts the same outcome; the lean run's (result, out, taken)."""
    lean = run(text, names, threads, False, monkeypatch, cluster, **options)
    general = run(text, names, threads, True, monkeypatch, cluster, **options)
    assert general[2] == (0, 0)
    if isinstance(general[0], str):
        assert lean[0] == general[0]
    else:
        assert not isinstance(lean[0], str), lean[0]
        assert [str(r) for r in lean[0].races] == [str(r) for r in general[0].races]
        assert lean[0].problems == general[0].problems
        assert lean[0].counts == general[0].counts
    assert np.array_equal(lean[1], general[1])
    return lean


def own_values(threads, names, cluster=1):
    """What thread g stored: 64 * g + j in register j (BODY)."""
    g = np.arange(cluster * threads).reshape(-1, 1)
    return (64 * g + np.arange(names).reshape(1, -1)).astype(np.uint32)


def test_the_lean_st_and_ld_read_back_what_each_thread_stored(monkeypatch):
    """.32x32b (9.7.16.2.3.1, tmem-facts section 2): thread l of a warp reads lane
    32 * rank + l, register j column taddr + j, as tcgen05.st of the same form wrote
    them: every thread gets its own values back. All four warps load lean, in one step
    (they run together), and all four store lean before."""
    text, names = ld_kernel("32x32b.x16")
    result, out, taken = same_as_general(text, names, 128, monkeypatch)
    assert np.array_equal(out, own_values(128, names))
    assert not result.races and taken == (4, 4)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("packed", [False, True])
def test_every_form_loads_as_the_general_code(monkeypatch, form, packed):
    """Each fragment (and .pack::16b after .unpack::16b, 9.7.16.8.2) read back by the
    form that wrote it: each thread's own values, lean and general alike."""
    text, names = ld_kernel(form, packed=packed)
    result, out, taken = same_as_general(text, names, 128, monkeypatch)
    assert np.array_equal(out, own_values(128, names))
    assert taken == (4, 4)


def test_registers_not_made_yet_take_the_general_code(monkeypatch):
    # the ld's destinations are first written by the ld itself: the general code makes
    # them (MachineRegisters.reg: arrays over every thread) for warp 0, the lean form
    # loads the three other warps
    text, names = ld_kernel(fresh=True)
    result, out, taken = same_as_general(text, names, 128, monkeypatch)
    assert np.array_equal(out, own_values(128, names)) and taken == (3, 4)


def test_a_warp_of_fewer_threads_takes_the_general_code(monkeypatch):
    # 48 threads: warp 1 has 16 (lanes 32-47 of its quarter); warp 0 stores and loads
    # lean
    text, names = ld_kernel(threads=48)
    result, out, taken = same_as_general(text, names, 48, monkeypatch)
    assert np.array_equal(out, own_values(48, names)) and taken == (1, 1)


def test_warps_not_consecutive_load_warp_by_warp(monkeypatch):
    # the ld guarded to warps 1 and 3: threads 32-63 and 96-127, one write per warp
    # (the others keep the mov's zeros)
    text, names = ld_kernel(guard="@%p2 ")
    result, out, taken = same_as_general(text, names, 128, monkeypatch)
    want = own_values(128, names)
    want[(np.arange(128) // 32) % 2 == 0] = 0
    assert np.array_equal(out, want) and taken == (2, 4)


def test_warps_with_exited_threads_take_the_general_code(monkeypatch):
    # warps 1 and 2 keep threads 32-47 and 64-79: 96 threads from warp 0's first, not
    # whole warps (m.warps splits them; warps 1 and 2 store and load by the general code)
    text, names = ld_kernel(halves=True)
    result, out, taken = same_as_general(text, names, 128, monkeypatch)
    want = own_values(128, names)
    want[(np.arange(128) % 32 >= 16) & np.isin(np.arange(128) // 32, (1, 2))] = 0
    assert np.array_equal(out, want) and taken == (2, 2)


def test_warps_of_a_cluster_whose_ctas_are_not_whole_warps(monkeypatch):
    # two CTAs of 48 threads: the cluster's thread 48 is CTA 1's thread 0, in a warp of
    # its own, so warps are not the threads 32 by 32 (m.warps splits them)
    text, names = ld_kernel(threads=48, cluster=2)
    result, out, taken = same_as_general(text, names, 48, monkeypatch, cluster=2)
    assert np.array_equal(out, own_values(48, names, cluster=2)) and taken == (2, 2)


@pytest.mark.parametrize("where", ["ld", "st"])
def test_an_address_that_differs_between_threads_is_the_general_codes_error(monkeypatch,
                                                                           where):
    # %r9 = the warp's address + 4 * tid: not warp-uniform
    text, names = ld_kernel(**{f"{where}_addr": "[%r9]"})
    result, _, _ = same_as_general(text, names, 128, monkeypatch)
    assert "taddr differs between the threads of a warp" in result


@pytest.mark.parametrize("where", ["ld", "st"])
def test_unallocated_columns_are_the_general_codes_error(monkeypatch, where):
    # 32 columns allocated, .32x32b.x16 at column 24 accesses columns 32-39 too
    text, names = ld_kernel("32x32b.x16", alloc=32, **{f"{where}_addr": "[%r6+24]"})
    result, _, _ = same_as_general(text, names, 128, monkeypatch)
    assert "access to TMEM columns 32-39 of CTA 0, which are not allocated" in result


def test_fewer_registers_than_the_fragment_is_the_general_codes_error(monkeypatch):
    # .x4 loads four registers per thread; the instruction names two
    text, names = ld_kernel(names=2)
    result, _, _ = same_as_general(text, names, 128, monkeypatch)
    assert "returned 4 registers; the instruction names 2" in result


def test_fewer_sources_than_the_fragment_is_the_general_codes_error(monkeypatch):
    # .x4 stores four registers per thread; the instruction names two
    text, names = ld_kernel(sources=2)
    result, _, _ = same_as_general(text, names, 128, monkeypatch)
    assert "tcgen05.st: 2 registers per thread for a fragment of 4" in result


@pytest.mark.parametrize("where", ["ld", "st"])
def test_lanes_outside_the_warps_quarter_are_the_general_codes_error(monkeypatch, where):
    # lane 32 * rank + 1: each warp's 32 lanes run past its quarter (9.7.16.8.1)
    text, names = ld_kernel(**{f"{where}_addr": "[%r6+65536]"})
    result, _, _ = same_as_general(text, names, 128, monkeypatch)
    assert "may access only lanes 0-31 (9.7.16.8.1)" in result
