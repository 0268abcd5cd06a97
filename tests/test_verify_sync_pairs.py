"""tcgen05-verify-sync on warp roles in a CTA pair (tcgen05_lower/sync_check/pairs.py): the
hand-synchronized warp-specialized TMA GEMM on a pair (tests/kernels/ws_gemm_2cta_bf16_hand.mlir) is
ordered under the default partitions=check, and deleting any one of its 51
synchronization ops (the mutants tests/test_ws_gemm_2cta.py shows the simulator
catching) makes the pass reject it with a located diagnostic that names the op it is at
and the op it conflicts with (or, for a wait that never returns, the ops that would
complete its phase, or the mbarrier's alloc when nothing does).

The expected diagnostic of each mutant is derived by hand from the example's protocol (its
header comment, the table of docs/cta-pairs.md) and the ISA's rules, not from the pass's
output. The counters: the outer loop runs p = 0, 2; body t0 is tile t = p, body t1 tile
t = p + 1; K block kb of tile t is round r = 2t + kb // 2 of ring stage kb mod 2, and
tile t uses accumulator stage t mod 2 in round u = t // 2. So:

- a load warp's wait on empty_s (parity (r + 1) & 1) is what orders its round-r TMA
  load after the MMAs of round r - 1 of the stage; without it (in the rounds where the
  wait is not the fresh mbarrier's phase -1, which returns at once) the load overwrites a
  tile those MMAs read (the async-proxy reads must complete first: commit -> wait,
  9.7.16.6.5); the run executes the roles in some schedule and reports the race at
  whichever of the two it executes later, so either report counts;
- expect_tx is full_s's only arrival (count 1) and announces the bytes of the loads up
  to the next wait or commit on full_s (tcgen05_lower.tma.cover). Without it the loads
  of that K block join the previous expect_tx of the block, which then waits for bytes
  that come after the load warp's wait for the MMA's commit of this very round, so the
  MMA's wait on full_s never returns; in the first two K blocks there is no previous
  expect_tx: the loads have no expect_tx at all (reported) and phase 0's arrival is the
  next K block's expect_tx, after the same wait: again the MMA's wait never returns;
- the MMA's wait on full_s (parity r & 1) is what orders its reads after the TMA loads
  (complete_tx, 9.7.9.25.5.1); without it the MMA reads a tile a TMA load writes
  (or, the run being a schedule, a later load is seen overwriting what the unordered MMA
  reads: the same race);
- a commit to empty_s is the phase's only arrival: without it the phases shift by one,
  and a load warp waits for a phase whose commit comes only after MMAs that wait for
  that load: it never returns;
- the commit to acc_full_j is its only arrival: the epilogue's wait gets no arrival;
- the MMA's wait on acc_empty_j (tiles 2 and 3, u = 1, parity 0) and its
  fence::after_thread_sync order the first MMA of the tile after both CTAs' epilogue
  loads of tile t - 2 (wait::ld, fence::before_thread_sync, arrive, wait,
  fence::after_thread_sync, 9.7.16.6.4.4); without the wait, that MMA overwrites cells
  the loads read; without the fence, the same with only the fence missing;
- the epilogue's wait on acc_full_j orders its loads after the tile's MMAs: without it a
  load and the MMAs of the stage are unordered (whichever the run executes later is
  reported); without its fence::after_thread_sync, the load misses that fence;
- the epilogue's wait::ld and fence::before_thread_sync are the start of the chain that
  orders its loads before the MMAs of tile t + 2 (9.7.16.6.4.4);
- the arrive on acc_empty_j (cta = "even") is the phase's only arrivals (2 x 128): the
  MMA's wait for tile t + 2 gets none;
- the kernel's fence::after_thread_sync after the partitions' (cluster) barrier orders
  the dealloc after the MMAs (9.7.16.6.4.4);
- the load warp's tail waits on empty0 and empty1 (parity 1: 16 uses of 2 stages, 8
  commits to each, the last in phase 7) are the only waits for the last multicast
  commits to each CTA's copy; without one, that commit's arrivals may be in flight when
  the CTAs exit (9.7.16.12.1), reported at the last commit to that mbarrier, naming
  both CTAs' copies."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from sim_checks import sync_lines
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import PLANNING, STRUCTURING

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "tests" / "kernels" / "ws_gemm_2cta_bf16_hand.mlir"
#: The planning pipeline up to tcgen05-verify-sync, without tcgen05-verify: the first two
#: K blocks' expect_tx deletions are refused by tcgen05-verify already (a TMA load with no
#: expect_tx before it in its block); without it, each verdict here is verify-sync's own.
CHECKED = ",".join(STRUCTURING + tuple(p for p in PLANNING if p != "tcgen05-verify")).replace(
    "tcgen05-insert-sync", "tcgen05-insert-sync{strategy=none}")
FULL = ",".join(STRUCTURING + PLANNING).replace("tcgen05-insert-sync",
                                                "tcgen05-insert-sync{strategy=none}")

AT = r"at line \d+:\d+"
LOAD_OVERWRITES = (rf"tcgen05\.tma_load in role 'load \(rank [01]\)' overwrites a "
                   rf"shared-memory tile that tcgen05\.mma {AT} in role 'mma \(rank 0\)' "
                   rf"reads through the async proxy, .*missing tcgen05\.commit after it -> an "
                   rf"mbarrier wait for that commit's phase \(9\.7\.16\.6\.5\)")
MMA_NEVER_RETURNS_FULL = (rf"this wait in role 'mma \(rank 0\)' for parity [01] of the mbarrier "
                          rf"\(allocated {AT}, its copy in the CTA of rank 0\) needs phase \d "
                          rf"to complete, but .*tcgen05\.mbarrier_expect_tx {AT}.* it never "
                          rf"returns")
TILE_RACE = MMA_READS_UNLOADED = (rf"(tcgen05\.mma in role 'mma \(rank 0\)' reads a shared-memory tile that "
                      rf"tcgen05\.tma_load {AT} in role 'load \(rank [01]\)' writes through the "
                      rf"async proxy|{LOAD_OVERWRITES})")
LOAD_NEVER_RETURNS = (rf"this wait in role 'load \(rank [01]\)' for parity [01] of the mbarrier "
                      rf"\(allocated {AT}, its copy in the CTA of rank [01]\) needs phase \d to "
                      rf"complete, but the arrivals that complete it \(tcgen05\.commit {AT} in "
                      rf"role 'mma \(rank 0\)'.* it never returns")
MMA_OVER_LOADS = (rf"tcgen05\.mma in role 'mma \(rank 0\)' writes TMEM columns \[\d+, \d+\) that "
                  rf"tcgen05\.ld {AT} in role 'epilogue \(rank [01]\)' reads, .*missing ")
MMA_LOAD_RACE = (rf"({MMA_OVER_LOADS}|tcgen05\.ld in role 'epilogue \(rank [01]\)' reads TMEM "
                 rf"columns \[\d+, \d+\) that tcgen05\.mma {AT} in role 'mma \(rank 0\)' "
                 rf"writes)")
TAIL_IN_FLIGHT = (rf"the arrival of tcgen05\.commit in role 'mma \(rank 0\)' may still be in "
                  rf"flight when the CTA holding its mbarrier exits: no wait observes phase 7 "
                  rf"\(parity 1\) of the mbarrier \(allocated {AT}, its copy in the CTA of "
                  rf"rank 0\); phase 7 \(parity 1\) of the mbarrier \(allocated {AT}, its "
                  rf"copy in the CTA of rank 1\)")
NO_ARRIVALS = (r"this wait in role '{role} \(rank [01]\)' for parity [01] of the mbarrier "
               rf"\(allocated {AT}, its copy in the CTA of rank [01]\) needs phase 0 to "
               r"complete, but only 0 arrivals reach it in the whole kernel \(it needs "
               r"{count}; from: none\): it never returns")

#: The 51 sync ops in file order -> what deleting it must leave (hand derivation, module
#: docstring).
EXPECTED = (
    # load role, tile t0: per K block the wait on empty_s and the expect_tx on full_s
    [(f"load t0 kb{kb}: wait empty{kb % 2}", TILE_RACE) if half == 0 else
     (f"load t0 kb{kb}: expect_tx full{kb % 2}", MMA_NEVER_RETURNS_FULL)
     for kb in range(4) for half in range(2)] +
    # tile t1: the same
    [(f"load t1 kb{kb}: wait empty{kb % 2}", TILE_RACE) if half == 0 else
     (f"load t1 kb{kb}: expect_tx full{kb % 2}", MMA_NEVER_RETURNS_FULL)
     for kb in range(4) for half in range(2)] +
    # the producer tail after the load loop: the last commit to each empty_s
    [("load tail: wait empty0", TAIL_IN_FLIGHT), ("load tail: wait empty1", TAIL_IN_FLIGHT)] +
    # mma role, per tile: the wait on acc_empty_j and its fence, per K block the wait on
    # full_s and the commit to empty_s, and the commit to acc_full_j
    [item for tile in range(2) for item in (
        [(f"mma t{tile}: wait acc_empty{tile}", MMA_OVER_LOADS + r"tcgen05\.wait::ld -> "
          r"tcgen05\.fence::before_thread_sync -> mbarrier_arrive \(role 'epilogue \(rank "
          r"[01]\)'\) -> mbarrier wait -> tcgen05\.fence::after_thread_sync "
          r"\(9\.7\.16\.6\.4\.4\)"),
         (f"mma t{tile}: fence::after_thread_sync", MMA_OVER_LOADS + r"tcgen05\.fence::"
          r"after_thread_sync after the synchronization \(9\.7\.16\.6\.4\.4\)")] +
        [item for kb in range(4) for item in (
            (f"mma t{tile} kb{kb}: wait full{kb % 2}", MMA_READS_UNLOADED),
            (f"mma t{tile} kb{kb}: commit empty{kb % 2}", LOAD_NEVER_RETURNS))] +
        [(f"mma t{tile}: commit acc_full{tile}", NO_ARRIVALS.format(role="epilogue",
                                                                   count=1))])] +
    # epilogue role, per tile
    [item for tile in range(2) for item in (
        (f"epilogue t{tile}: wait acc_full{tile}", MMA_LOAD_RACE),
        (f"epilogue t{tile}: fence::after_thread_sync",
         rf"tcgen05\.ld in role 'epilogue \(rank [01]\)' reads TMEM columns \[\d+, \d+\) that "
         rf"tcgen05\.mma {AT} in role 'mma \(rank 0\)' writes, .*missing tcgen05\.fence::"
         rf"after_thread_sync after the mbarrier wait \(9\.7\.16\.6\.4\.4\)"),
        (f"epilogue t{tile}: wait::ld", MMA_OVER_LOADS + r"tcgen05\.wait::ld -> "),
        (f"epilogue t{tile}: fence::before_thread_sync", MMA_OVER_LOADS +
         r"tcgen05\.wait::ld -> tcgen05\.fence::before_thread_sync -> "),
        (f"epilogue t{tile}: arrive acc_empty{tile}", NO_ARRIVALS.format(role="mma",
                                                                        count=256)))] +
    # the kernel, after the joining (cluster) barrier
    [("kernel: fence::after_thread_sync",
      rf"tcgen05\.dealloc frees TMEM columns \[\d+, \d+\) that tcgen05\.mma {AT} in role "
      r"'mma \(rank 0\)' accesses, without ordering: missing tcgen05\.fence::after_thread_sync "
      r"after the joining barrier \(9\.7\.16\.6\.4\.4\)")])
LINES = sync_lines(EXAMPLE.read_text())
#: What each line must hold (a check of the table's order against the file).
OPS = {"wait empty": "mbarrier_wait\"(%empty", "expect_tx": "mbarrier_expect_tx",
       "wait acc_empty": "mbarrier_wait\"(%acc_empty", "wait full": "mbarrier_wait\"(%full",
       "commit empty": "commit\"(%empty", "commit acc_full": "commit\"(%acc_full",
       "wait acc_full": "mbarrier_wait\"(%acc_full", "fence::after": "after_thread_sync",
       "wait::ld": "kind = \"ld\"", "fence::before": "before_thread_sync",
       "arrive acc_empty": "mbarrier_arrive\"(%acc_empty"}


def diagnostics(text: str, pipeline: str = CHECKED) -> list[str]:
    """The errors of `text` through `pipeline` ([] if it compiles)."""
    try:
        compile_source(text, "mutant.mlir", pipeline=pipeline, emit="mlir")
    except CompileFailed as error:
        return str(error).splitlines()
    return []


def test_the_example_is_ordered():
    assert diagnostics(EXAMPLE.read_text(), FULL) == []
    assert diagnostics(EXAMPLE.read_text()) == []


def test_one_expectation_per_sync_op_in_file_order():
    assert len(LINES) == len(EXPECTED) == 51
    lines = EXAMPLE.read_text().splitlines()
    for line, (name, _) in zip(LINES, EXPECTED):
        kind = next(k for k in sorted(OPS, key=len, reverse=True) if k in name)
        assert OPS[kind] in lines[line], (name, lines[line])


@pytest.mark.parametrize("position", range(51), ids=[name for name, _ in EXPECTED])
def test_deleting_a_sync_op_is_rejected_naming_both_ops(position):
    lines = EXAMPLE.read_text().splitlines()
    del lines[LINES[position]]
    found = diagnostics("\n".join(lines) + "\n")
    assert found, f"deleting {EXPECTED[position][0]} went unnoticed"
    pattern = re.compile(EXPECTED[position][1])
    matching = [line for line in found if pattern.search(line)]
    assert matching, "\n".join(line[:300] for line in found if "error" in line)
    # Located at an op of the kernel, and naming a second op by its line.
    assert re.match(r"mutant\.mlir:[1-9]\d*:[1-9]\d*: error: .* at line [1-9]\d*:[1-9]\d*",
                    matching[0]), matching[0]


def mutant(old: str, new: str, count: int = 1) -> str:
    text = EXAMPLE.read_text()
    assert text.count(old) == count, old
    return text.replace(old, new)


def test_an_off_by_one_empty_phase_is_a_wait_that_never_returns():
    """The load warp waits for round r's own phase of empty0 (parity r & 1) in tile 0's
    first K block: that phase's commit comes after the MMAs of the loads that follow the
    wait (deadlock, as the simulator shows in tests/test_ws_gemm_2cta.py)."""
    found = diagnostics(mutant("%er0_0 = arith.addi %r0_0, %c1 : index",
                               "%er0_0 = arith.addi %r0_0, %c0 : index"))
    wait = EXAMPLE.read_text().splitlines().index(
        '        "tcgen05.mbarrier_wait"(%empty0, %empty_parity0_0) : '
        '(!tcgen05.mbarrier, i32) -> ()') + 1
    assert any(re.match(rf"mutant\.mlir:{wait}:9: error: this wait in role 'load \(rank [01]\)' "
                        rf"for parity 0 of the mbarrier .* needs phase 0 to complete, but the "
                        rf"arrivals that complete it \(tcgen05\.commit {AT} in role 'mma "
                        rf"\(rank 0\)'.* it never returns", line) for line in found), found


def test_an_accumulator_empty_count_of_one_cta_is_rejected():
    """acc_empty0 with count 128 (one CTA's epilogue threads): both CTAs' 128 arrivals of
    a round go to the even CTA's mbarrier and neither is ordered after the other, so both
    fall into one phase: 256 arrivals for a count of 128 (9.7.13.15.16). tcgen05-verify
    refuses it too (its count rule); without it, verify-sync names both arrivals."""
    text = mutant('%acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 256 : i64}',
                  '%acc_empty0 = "tcgen05.alloc_mbarrier"() {count = 128 : i64}')
    found = diagnostics(text)
    assert any(re.search(rf"error: tcgen05\.mbarrier_arrive in role 'epilogue \(rank 1\)' may "
                         rf"fall into phase 0 of the mbarrier \(allocated {AT}, its copy in "
                         rf"the CTA of rank 0, count 128\) together with "
                         rf"tcgen05\.mbarrier_arrive {AT} in role 'epilogue \(rank 0\)': 256 "
                         rf"arrivals", line) for line in found), found
    assert any("count = 128, not a multiple of 256" in line for line in diagnostics(text, FULL))


def test_arrivals_at_each_ctas_own_mbarrier_are_rejected():
    """Without cta = "even" each CTA's epilogue arrives at its own acc_empty (and the
    waits on it then run in both CTAs): 128 of the 256 arrivals of a phase in each copy,
    the second 128 only after the next tile's MMAs, which wait for the phase: the MMA's
    wait for tile 2 never returns."""
    found = diagnostics(mutant(' {cta = "even"}', "", count=2))
    assert any(re.search(rf"error: this wait in role 'mma \(rank 0\)' for parity 0 of the "
                         rf"mbarrier \(allocated {AT}, its copy in the CTA of rank 0\) needs "
                         rf"phase 0 to complete, but the arrivals that complete it "
                         rf"\(tcgen05\.mbarrier_arrive {AT} in role 'epilogue \(rank 0\)'.* it "
                         rf"never returns", line) for line in found), found


def test_a_plain_commit_to_the_even_ctas_empty_mbarrier_is_rejected():
    """multicast_mask = 1 on the commits to empty0: they arrive at the even CTA's empty0
    only, so the wait on it runs in the even CTA only (as the lowering emits it) and the
    odd CTA's TMA load refills its half of stage 0 while the pair MMA still reads it."""
    found = diagnostics(mutant('"tcgen05.commit"(%empty0) {multicast_mask = 3 : i64}',
                               '"tcgen05.commit"(%empty0) {multicast_mask = 1 : i64}', count=4))
    # The race of the odd CTA's load of round r with the MMA of round r - 1, reported at
    # whichever the run executes later; the even CTA's loads stay ordered.
    assert any(re.search(rf"error: (tcgen05\.tma_load in role 'load \(rank 1\)' overwrites a "
                         rf"shared-memory tile that tcgen05\.mma {AT} in role 'mma \(rank 0\)' "
                         rf"reads|tcgen05\.mma in role 'mma \(rank 0\)' reads a shared-memory "
                         rf"tile that tcgen05\.tma_load {AT} in role 'load \(rank 1\)' writes)",
                         line) for line in found), found
    assert not any(re.search(rf"tcgen05\.tma_load in role 'load \(rank 0\)' overwrites|"
                             rf"tcgen05\.tma_load {AT} in role 'load \(rank 0\)' writes", line)
                   for line in found), found


def scaled_pair_kernel(n: int) -> str:
    """The ordered pair protocol of lit_tests/tcgen05-verify-sync/pair-roles.mlir
    (@pair_roles_ordered) with n MMAs into one accumulator and n loads of it."""
    mma = '"tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()'
    loads = "\n".join(
        f'      %f{i} = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag\n'
        f'      "tcgen05.store_fragment"(%f{i}, %C, %c0) {{ld = 64 : i64}} : '
        f'(!frag, !llvm.ptr<1>, index) -> ()' for i in range(n))
    mmas = "\n".join("      " + mma for _ in range(n))
    return f"""
!acc = !tcgen05.tmem<[256, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[32, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[256, 32], f32>
!mb = !tcgen05.mbarrier
func.func @scaled(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = 256 : i64, cta_group = 2 : i64}}}} {{
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {{columns = 64 : i64, cta_group = 2 : i64}} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {{column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "A"}} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {{count = 64 : i64}} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {{count = 1 : i64}} : () -> !mb
  "tcgen05.partitions"() ({{
    "tcgen05.role"() ({{
      "tcgen05.smem_fill"(%A, %a, %c0) {{src_layout = "mn_k", src_ld = 64 : i64}} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {{src_layout = "mn_k", src_ld = 64 : i64}} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) {{cta = "even"}} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }}) {{name = "load", first_warp = 0 : i64, warps = 1 : i64}} : () -> ()
    "tcgen05.role"() ({{
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
{mmas}
      "tcgen05.commit"(%done) {{multicast_mask = 3 : i64}} : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }}) {{name = "mma", first_warp = 1 : i64, warps = 1 : i64}} : () -> ()
    "tcgen05.role"() ({{
      "tcgen05.mbarrier_wait"(%done, %p0) : (!mb, i32) -> ()
      "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
{loads}
      "tcgen05.wait"() {{kind = "ld"}} : () -> ()
      "tcgen05.fence"() {{kind = "before_thread_sync"}} : () -> ()
      "gpu.yield"() : () -> ()
    }}) {{name = "epilogue", first_warp = 4 : i64, warps = 4 : i64}} : () -> ()
    "gpu.yield"() : () -> ()
  }}) : () -> ()
  "tcgen05.fence"() {{kind = "after_thread_sync"}} : () -> ()
  "tcgen05.dealloc"(%base) {{columns = 64 : i64, cta_group = 2 : i64}} : (i32) -> ()
  return
}}
"""


def pairs_checked(text: str) -> int:
    report = io.StringIO()
    compile_source(text, "scaled.mlir", pipeline="tcgen05-verify-sync{report=true}",
                   emit="mlir", report_stream=report)
    found = re.search(r"roles run concurrently, \d+ events run, (\d+) pairs checked: ordered",
                      report.getvalue())
    assert found, report.getvalue()
    return int(found.group(1))


def test_pairs_checked_grow_linearly_with_a_pair_kernel():
    """n MMAs and n loads in a pair kernel (each program run once per CTA): the history
    keeps one entry per program, CTA, kind and cells, so each access is checked against a
    bounded number of others (the bound: 4x the ops, at most 4.5x the pairs; quadratic
    growth would be 16x)."""
    small, large = pairs_checked(scaled_pair_kernel(100)), pairs_checked(scaled_pair_kernel(400))
    assert small > 0 and large <= 4.5 * small, (small, large)
