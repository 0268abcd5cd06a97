"""The simulator's memory model beyond the tcgen05 ordering rules (docs/memory-model.md):

* mbarrier scope: a release (``mbarrier.arrive``) and an acquire (``mbarrier.try_wait``)
  synchronize only when each one's scope includes the other's thread (PTX ISA 8.7,
  morally strong operations; the default scope of both is ``.cta``, 9.7.13.15.13 and
  9.7.13.15.16): an arrival of CTA 1 on CTA 0's mbarrier orders CTA 1's prior accesses
  before CTA 0's waiter only when both are ``.cluster``;
* ``fence.mbarrier_init.release.cluster`` (9.7.13.4) must follow ``mbarrier.init`` before
  a thread of another CTA, or an async op it issues, uses the mbarrier;
* TMEM cells no tcgen05 operation wrote since their columns were allocated hold undefined
  values (9.7.16.7.1 allocates, it does not clear): a read of them is reported.

Expected verdicts are derived by hand from those rules, not from the compiler."""

from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.ordering import OrderingModel
from tcgen05_lower.sim.state import CtaMemory, Footprint
from test_sim_cluster_mbarriers import PROLOGUE, pair_kernel, run
from test_sim_ordering import FakeOp, cells

ROOT = Path(__file__).resolve().parent.parent

# CTA 1's thread 0 stores 5 into CTA 0's `tile` (st.shared::cluster through mapa), then
# arrives on CTA 0's mbarrier (count 1) with release scope {arrive}; CTA 0's threads wait
# for phase 0 with acquire scope {wait} and read the tile (ld.shared), thread 0 copies it
# to out[0].
HANDOFF = """
	mov.b64 	%rd3, tile;
	cvt.u32.u64 	%r10, %rd3;
	mapa.shared::cluster.u32 	%r11, %r10, %r6;
	mov.b32 	%r12, 5;
	@%p3 st.shared::cluster.b32 	[%r11], %r12;
	@%p3 mbarrier.arrive.release.{arrive}.shared::cluster.b64 _, [%r4];
	mov.b32 	%r7, 0;
	@!%p4 bra 	$DONE;
	{{ .reg .pred done; wait: mbarrier.try_wait.parity.acquire.{wait}.shared::cta.b64 done, [%r3], %r7; @!done bra wait; }}
	ld.shared.b32 	%r13, [%r10];
	ld.param.b64 	%rd2, [k_param_0];
	@%p1 st.global.b32 	[%rd2], %r13;
$DONE:
	barrier.cluster.arrive.aligned;
	barrier.cluster.wait.aligned;
	ret;
"""


def handoff(arrive: str, wait: str, prologue: str = PROLOGUE):
    body = prologue.format(count=1) + HANDOFF.format(arrive=arrive, wait=wait)
    return run(pair_kernel(body))


def test_a_cluster_release_and_a_cluster_acquire_synchronize_across_the_pair():
    result, out = handoff("cluster", "cluster")
    assert out[0] == 5
    assert not result.races, result.races


@pytest.mark.parametrize("arrive, wait", [("cta", "cluster"), ("cluster", "cta"),
                                          ("cta", "cta")])
def test_a_cta_scoped_arrive_or_wait_does_not_synchronize_with_the_other_cta(arrive, wait):
    """The phase still completes (the wait returns, the value is there in this model),
    but CTA 1's store is not ordered before CTA 0's load: a race at the ld.shared."""
    result, out = handoff(arrive, wait)
    assert out[0] == 5
    assert any("ld.shared by thread 0 reads shared memory of CTA 0" in str(r)
               for r in result.races), result.races


def test_a_cta_scoped_wait_still_synchronizes_with_its_own_ctas_arrival():
    """Both threads in CTA 0: .cta scope includes the other thread (8.7)."""
    own = HANDOFF.replace("@%p3 st.shared::cluster", "@%p2 st.shared::cluster") \
        .replace("@%p3 mbarrier.arrive", "@%p2 mbarrier.arrive")
    # thread 0 of CTA 0 stores and arrives; its own later load is program-ordered, and
    # the other 31 threads of CTA 0 read through the .cta acquire
    body = PROLOGUE.format(count=1) + own.format(arrive="cta", wait="cta")
    result, out = run(pair_kernel(body))
    assert out[0] == 5 and not result.races, result.races


def test_a_remote_arrive_needs_the_init_fence():
    """Without fence.mbarrier_init.release.cluster the cluster barrier orders the init for
    CTA 0's own threads only; CTA 1's arrival is reported, naming the init's line."""
    prologue = PROLOGUE.replace("\t@%p1 fence.mbarrier_init.release.cluster;\n", "")
    assert prologue != PROLOGUE
    result, out = handoff("cluster", "cluster", prologue)
    messages = [str(r) for r in result.races]
    assert any("no fence.mbarrier_init.release.cluster" in m and "thread 32 of CTA 1" in m
               for m in messages), messages


def test_a_local_use_needs_no_init_fence():
    prologue = PROLOGUE.replace("\t@%p1 fence.mbarrier_init.release.cluster;\n", "")
    own = HANDOFF.replace("@%p3 st.shared::cluster", "@%p2 st.shared::cluster") \
        .replace("@%p3 mbarrier.arrive", "@%p2 mbarrier.arrive")
    result, out = run(pair_kernel(prologue.format(count=1) + own.format(arrive="cta",
                                                                       wait="cta")))
    assert out[0] == 5 and not result.races, result.races


# -- never-written TMEM ----------------------------------------------------------------------
def one_cta_model():
    m = OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 32, "late")
    m.alloc(np.arange(32), 0, 64, 1, line=1)
    return m


def test_a_tcgen05_ld_of_unwritten_columns_is_reported():
    m = one_cta_model()
    m.issue(0, FakeOp("st", Footprint(tmem_writes={0: cells(slice(0, 32), slice(0, 16))})), 2)
    m.wait(np.arange(32), "st", 3)
    m.issue(0, FakeOp("ld", Footprint(tmem_reads={0: cells(slice(0, 32), slice(0, 32))})), 4)
    m.wait(np.arange(32), "ld", 5)
    problems = m.finish(6)
    # columns 16-31 of lanes 0-31 were never written: 32 x 16 = 512 cells
    assert any("line 4" in p and "columns 16-31" in p and "512 cells" in p for p in problems), \
        problems


def test_a_tcgen05_ld_of_written_columns_is_not_reported():
    m = one_cta_model()
    m.issue(0, FakeOp("st", Footprint(tmem_writes={0: cells(slice(0, 32), slice(0, 32))})), 2)
    m.wait(np.arange(32), "st", 3)
    m.issue(0, FakeOp("ld", Footprint(tmem_reads={0: cells(slice(0, 32), slice(0, 32))})), 4)
    m.wait(np.arange(32), "ld", 5)
    m.dealloc(np.arange(32), 0, 0, 64, 1, 7)
    assert m.finish(8) == []


def test_a_realloc_makes_columns_unwritten_again():
    m = one_cta_model()
    m.issue(0, FakeOp("st", Footprint(tmem_writes={0: cells(slice(0, 32), slice(0, 32))})), 2)
    m.wait(np.arange(32), "st", 3)
    m.dealloc(np.arange(32), 0, 0, 64, 1, 4)
    m.alloc(np.arange(32), 0, 64, 1, line=5)
    m.issue(0, FakeOp("ld", Footprint(tmem_reads={0: cells(slice(0, 32), slice(0, 32))})), 6)
    assert any("line 6" in p for p in m.finish(7))


def test_the_grid_example_with_k_0_reads_unwritten_tmem():
    """K = 0: no MMA runs, the epilogue's tcgen05.ld reads the accumulator columns no MMA
    wrote. C = 0 = A @ B happens to be right, but only because this model once filled TMEM
    with zeros; the hardware's TMEM holds whatever it held."""
    ptx, manifest, problem, inputs = prepare(
        str(ROOT / "examples" / "gemm_bf16_grid.mlir"),
        str(ROOT / "examples" / "gemm_bf16_grid.check.py"), 0, scalars={"K": 0})
    result = simulate(ptx, manifest, inputs)
    assert not result.ok
    assert any("tcgen05.ld" in p and "no tcgen05 operation wrote" in p
               for p in result.problems), result.problems


# -- the CTA pair example, edited as PTX text ---------------------------------------------
@pytest.fixture(scope="module")
def pair_example():
    from conftest import example_pass_options
    return prepare(str(ROOT / "examples" / "ws_gemm_2cta_bf16.mlir"),
                   str(ROOT / "examples" / "ws_gemm_2cta_bf16.check.py"), 0,
                   pass_options=example_pass_options("ws_gemm_2cta_bf16.mlir"))


def run_pair(pair_example, ptx):
    _, manifest, _, inputs = pair_example
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    return simulate(ptx, manifest, args)


REMOTE = "mbarrier.arrive.release.cluster.shared::cluster.b64"
WAIT = "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"
FENCE = "fence.mbarrier_init.release.cluster;"


def test_the_pair_example_uses_cluster_scope_where_ctas_meet(pair_example):
    """The edits below change what they claim: the epilogue's remote arrival on the even
    CTA's accumulator-empty mbarrier, the MMA warp's two .cluster waits (full and
    accumulator-empty), one init fence per CTA."""
    ptx = pair_example[0]
    assert ptx.count(REMOTE) == 1 and ptx.count(WAIT) == 2 and ptx.count(FENCE) == 1
    assert run_pair(pair_example, ptx).ok


@pytest.mark.parametrize("edit", [
    (REMOTE, REMOTE.replace(".cluster.shared", ".cta.shared")),
    (WAIT, WAIT.replace(".cluster.shared", ".cta.shared")),
])
def test_weakened_scopes_in_the_pair_example_are_races(pair_example, edit):
    """CTA 1's epilogue arrives after its tcgen05.ld of the accumulator; with a .cta
    release or acquire, that arrival does not order the ld before the next tile's MMA
    (issued by CTA 0 into both CTAs' TMEM): the MMA and the ld race."""
    result = run_pair(pair_example, pair_example[0].replace(*edit))
    assert any("tcgen05.mma and tcgen05.ld" in str(r) and "TMEM of CTA 1" in str(r)
               for r in result.races), result.races


def test_the_pair_example_without_its_init_fence_is_reported(pair_example):
    """CTA 1's TMA loads complete_tx on CTA 0's full mbarriers, CTA 0's commits arrive on
    CTA 1's mbarriers: both uses come from the other CTA."""
    # the fence's whole line (a guarded scope) becomes empty: line numbers stay
    lines = ["" if FENCE in line else line for line in pair_example[0].split("\n")]
    result = run_pair(pair_example, "\n".join(lines))
    messages = [str(r) for r in result.races]
    assert any("of CTA 1 uses the mbarrier" in m and "of CTA 0" in m for m in messages)
    assert any("of CTA 0 uses the mbarrier" in m and "of CTA 1" in m for m in messages)


# -- reports a user can act on (issue 37, part 5) -------------------------------------------
def test_races_are_grouped_by_pair_of_ops_with_a_count():
    """One MMA writes lanes 0-127, columns 0-63; each of the 4 warps then issues a
    tcgen05.ld of its 32 lanes without waiting for the MMA: 4 races, all of the pair
    (ld line 20, mma line 10), reported once with a count of 4."""
    m = OrderingModel([CtaMemory(0, np.zeros(2048, np.uint8))], 128, "late")
    m.alloc(np.arange(32), 0, 64, 1, line=1)
    everyone = np.arange(128)   # the alloc ordered before every warp (9.7.16.6.3)
    m.fence(everyone, "before_thread_sync", 2)
    m.barrier(everyone, 3)
    m.fence(everyone, "after_thread_sync", 4)
    m.issue(0, FakeOp("mma", Footprint(tmem_writes={0: cells(slice(0, 128), slice(0, 64))}),
                      (0, 0, 128, 64, 1)), 10)
    for warp in range(4):
        m.issue(32 * warp, FakeOp("ld", Footprint(
            tmem_reads={0: cells(slice(32 * warp, 32 * warp + 32), slice(0, 32))})), 20)
    assert len(m.races) == 1
    race = m.races[0]
    assert (race.ptx_line, race.other_line, race.count) == (20, 10, 4)
    assert "race with PTX line 10, 4 times" in str(race)


def test_races_of_several_ctas_merge_per_pair():
    from tcgen05_lower.sim.ordering_records import Race, group_races
    races = [Race("race with PTX line 3: x", 9, other_line=3) for _ in range(3)]
    races[1].count = 5
    other = Race("race with PTX line 4: y", 9, other_line=4)
    grouped = group_races(races + [other])
    assert [(r.other_line, r.count) for r in grouped] == [(3, 7), (4, 1)]


def test_a_race_names_the_source_lines_of_the_ptx_loc():
    """The .loc above each access names its source line (file 1 = k.mlir)."""
    body = PROLOGUE.format(count=1) + HANDOFF.format(arrive="cta", wait="cluster") \
        .replace("\t@%p3 st.shared::cluster", "\t.loc 1 30 5\n\t@%p3 st.shared::cluster") \
        .replace("\tld.shared.b32", "\t.loc 1 40 7\n\tld.shared.b32")
    text = pair_kernel(body).replace(".address_size 64\n",
                                     '.address_size 64\n.file 1 "k.mlir"\n')
    result, _ = run(text)
    race = next(r for r in result.races if "ld.shared" in str(r))
    assert (race.source, race.other_source) == ("k.mlir:40:7", "k.mlir:30:5")
    assert "(k.mlir:40:7): race with PTX line" in str(race)


def test_source_locations_name_files_declared_after_their_loc():
    """A .file may come after the .loc that uses it (at the end of the module)."""
    from tcgen05_lower.sim.api import source_locations
    ptx = ".loc 2 7 1\nadd.s32 %r1, %r1, 1;\n.loc 2 0 0\nret;\n.file 2 \"a.py\"\n"
    # line 2 is under a.py:7:1; line 4 under a line-0 .loc (no source line): unnamed
    assert source_locations(ptx) == {2: "a.py:7:1"}


def test_mismatch_summary_counts_wrong_and_never_written_elements():
    """By hand: (1, 0) is 3 instead of 4, (1, 1) still NaN: 2 wrong, 1 never written."""
    from tcgen05_lower.cli.sim_report import compare, mismatch_summary
    got = np.array([[1, 2], [3, np.nan]], np.float32)
    want = np.array([[1, 2], [4, 5]], np.float64)
    verdict = compare(got, want, 1e-6, "1e-6")
    assert not verdict[0]
    assert mismatch_summary(got, want, verdict.wrong) == \
        "2 of 4 elements wrong, the first at (row 1, column 0): 3 (expected 4); " \
        "1 never written"


def test_an_out_of_bounds_store_names_the_array_by_its_parameter_name():
    """C given with 128 of its 256 rows: CTAs of the second row of the grid store past
    its end (128 x 512 f32 = 262144 bytes)."""
    from tcgen05_lower.sim.state import SimError
    ptx, manifest, problem, inputs = prepare(
        str(ROOT / "examples" / "gemm_bf16_grid.mlir"),
        str(ROOT / "examples" / "gemm_bf16_grid.check.py"), 0)
    inputs["C"] = inputs["C"][:128].copy()
    with pytest.raises(SimError) as error:
        simulate(ptx, manifest, inputs)
    message = str(error.value)
    assert "past the end of C (262144 bytes)" in message and "_param_" not in message
