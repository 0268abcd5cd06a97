"""tcgen05-verify-sync on a kernel whose warp roles run concurrently
(tcgen05_lower/sync_check/roles.py): the hand-synchronized warp-specialized GEMM
(examples/ws_gemm_bf16.mlir) is ordered, and deleting any one of its 18 synchronization
ops (the mutants of tests/test_ws_gemm.py, which the simulator catches) makes the pass
reject it with a located diagnostic.

The expected diagnostic of each mutant is derived by hand from the protocol of the
example (docs/partitions.md, the table of its mbarriers) and the ISA's rules, not from the
pass's output: deleting a step of a chain leaves the accesses that chain ordered
unordered (9.7.16.6.4.4: commit -> wait -> fence::after_thread_sync before tcgen05.ld;
9.7.16.6.5: fence.proxy.async -> arrive -> wait before the MMA reads what smem_fill
wrote; completion before the refill), and deleting an arrival leaves a wait whose phase
never completes; deleting a tail wait (the load role's last wait on an empty mbarrier,
for the phase of the loop's last commit to it) leaves that commit's arrival in flight
at exit (9.7.16.12.1)."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest

from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import STRUCTURING, PLANNING

from sim_checks import sync_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_gemm_bf16.mlir"
CHECKED = ",".join(STRUCTURING + PLANNING).replace(
    "tcgen05-insert-sync", "tcgen05-insert-sync{strategy=none}")

#: The 18 sync ops in file order -> what deleting it must leave (hand derivation).
TILE_RACE = r"shared-memory tile .* without ordering between role '(load|mma)' and role"
EXPECTED = [
    # load role, stage 0: the refill of iteration 1 is then unordered with the MMA's
    # reads of iteration 0 (either order of report: both are the same race)
    ("load: wait empty0", TILE_RACE),
    ("load: fence.proxy.async 0", r"missing fence\.proxy\.async -> mbarrier_arrive "
                                  r"\(role 'load'\) -> mbarrier wait \(9\.7\.16\.6\.5\)"),
    ("load: arrive full0", r"role 'mma' for parity 0 of the mbarrier needs phase 0 to "
                           r"complete, but only 0 arrivals .* it never returns"),
    # stage 1: the same
    ("load: wait empty1", TILE_RACE),
    ("load: fence.proxy.async 1", r"missing fence\.proxy\.async -> mbarrier_arrive"),
    ("load: arrive full1", r"role 'mma' for parity 0 .* it never returns"),
    # the producer tail after the loop: 2 iterations, the last commit to each empty
    # mbarrier in phase 1
    ("load: tail wait empty0", r"the arrival of tcgen05\.commit in role 'mma' may still be "
                               r"in flight when the CTA holding its mbarrier exits: no wait "
                               r"observes phase 1 \(parity 1\) of the mbarrier \(allocated "
                               r"at line \d+:\d+\)"),
    ("load: tail wait empty1", r"the arrival of tcgen05\.commit in role 'mma' may still be "
                               r"in flight .* phase 1 \(parity 1\)"),
    # mma role
    ("mma: wait full0", r"tcgen05\.mma in role 'mma' reads a shared-memory tile that "
                        r"tcgen05\.smem_fill .* in role 'load'"),
    ("mma: commit empty0", r"role 'load' for parity 0 of the mbarrier needs phase 0 to "
                           r"complete, but only 0 arrivals .* it never returns"),
    ("mma: wait full1", r"tcgen05\.mma in role 'mma' reads a shared-memory tile"),
    ("mma: commit empty1", r"role 'load' for parity 0 .* never returns"),
    ("mma: commit acc_ready", r"role 'epilogue' for parity 0 .* only 0 arrivals .* "
                              r"never returns"),
    # epilogue role
    ("epilogue: wait acc_ready", r"tcgen05\.ld in role 'epilogue' reads TMEM columns "
                                 r"\[0, 32\) that tcgen05\.mma .* in role 'mma' writes, "
                                 r".*missing tcgen05\.commit .*fence::after_thread_sync "
                                 r"\(9\.7\.16\.6\.4\.4\)"),
    ("epilogue: fence::after_thread_sync", r"tcgen05\.ld in role 'epilogue' .* missing "
                                           r"tcgen05\.fence::after_thread_sync after the "
                                           r"mbarrier wait \(9\.7\.16\.6\.4\.4\)"),
    ("epilogue: wait::ld", r"tcgen05\.dealloc frees TMEM columns .* tcgen05\.ld .* in role "
                           r"'epilogue' .* missing tcgen05\.wait::ld"),
    ("epilogue: fence::before_thread_sync", r"tcgen05\.dealloc frees .* tcgen05\.ld .*"
                                            r"fence::before_thread_sync"),
    # the kernel, after the joining barrier
    ("kernel: fence::after_thread_sync", r"tcgen05\.dealloc frees .* tcgen05\.mma .* "
                                         r"missing tcgen05\.fence::after_thread_sync "
                                         r"after the joining barrier"),
]
LINES = sync_lines(EXAMPLE.read_text())


def diagnostics(text: str) -> list[str]:
    """The errors tcgen05-verify-sync reports on `text` ([] if it compiles)."""
    try:
        compile_source(text, "mutant.mlir", pipeline=CHECKED, emit="mlir")
    except CompileFailed as error:
        return str(error).splitlines()
    return []


def test_the_example_is_ordered():
    assert diagnostics(EXAMPLE.read_text()) == []


def test_one_expectation_per_sync_op():
    assert len(LINES) == len(EXPECTED) == 18


@pytest.mark.parametrize("position", range(18), ids=[name for name, _ in EXPECTED])
def test_deleting_a_sync_op_is_rejected_with_a_located_diagnostic(position):
    lines = EXAMPLE.read_text().splitlines()
    del lines[LINES[position]]
    found = diagnostics("\n".join(lines) + "\n")
    assert found, f"deleting {EXPECTED[position][0]} went unnoticed"
    pattern = re.compile(EXPECTED[position][1])
    matching = [line for line in found if pattern.search(line)]
    assert matching, "\n".join(found)
    # Located: file:line:col of an op of the kernel (not 0:0).
    assert re.match(r"mutant\.mlir:[1-9]\d*:[1-9]\d*: error: ", matching[0]), matching[0]


def test_partitions_options_stay_meaningful():
    lines = EXAMPLE.read_text().splitlines()
    del lines[LINES[14]]  # the epilogue's fence::after_thread_sync
    mutant = "\n".join(lines) + "\n"
    skip = CHECKED.replace("tcgen05-verify-sync", "tcgen05-verify-sync{partitions=skip}")
    compile_source(mutant, "mutant.mlir", pipeline=skip, emit="mlir")  # unchecked
    refuse = CHECKED.replace("tcgen05-verify-sync",
                             "tcgen05-verify-sync{partitions=refuse}")
    with pytest.raises(CompileFailed, match="partitions=refuse"):
        compile_source(EXAMPLE.read_text(), "ws.mlir", pipeline=refuse, emit="mlir")


def scaled_kernel(n: int) -> str:
    """The one-stage protocol of lit_tests/tcgen05-verify-sync/roles-ordered.mlir
    (@protocol) with n MMAs into one accumulator and n loads of it."""
    mma = '"tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()'
    loads = "\n".join(
        f'      %f{i} = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag\n'
        f'      "tcgen05.store_fragment"(%f{i}, %C, %c0) {{ld = 64 : i64}} : '
        f'(!frag, !llvm.ptr<1>, index) -> ()' for i in range(n))
    mmas = "\n".join("      " + mma for _ in range(n))
    return f"""
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tb = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!frag = !tcgen05.frag<[128, 32], f32>
!mb = !tcgen05.mbarrier
func.func @scaled(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}}}} {{
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %t = arith.constant true
  %base = "tcgen05.alloc"() {{columns = 64 : i64, cta_group = 1 : i64}} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {{column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"}} : (i32) -> !acc
  %full = "tcgen05.alloc_mbarrier"() {{count = 32 : i64}} : () -> !mb
  %done = "tcgen05.alloc_mbarrier"() {{count = 1 : i64}} : () -> !mb
  "tcgen05.partitions"() ({{
    "tcgen05.role"() ({{
      "tcgen05.smem_fill"(%A, %a, %c0) {{src_layout = "mn_k", src_ld = 64 : i64}} : (!llvm.ptr<1>, !ta, index) -> ()
      "tcgen05.smem_fill"(%A, %b, %c0) {{src_layout = "mn_k", src_ld = 64 : i64}} : (!llvm.ptr<1>, !tb, index) -> ()
      "tcgen05.fence_proxy_async"() : () -> ()
      "tcgen05.mbarrier_arrive"(%full) : (!mb) -> ()
      "gpu.yield"() : () -> ()
    }}) {{name = "load", first_warp = 0 : i64, warps = 1 : i64}} : () -> ()
    "tcgen05.role"() ({{
      "tcgen05.mbarrier_wait"(%full, %p0) : (!mb, i32) -> ()
{mmas}
      "tcgen05.commit"(%done) : (!mb) -> ()
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
  "tcgen05.dealloc"(%base) {{columns = 64 : i64, cta_group = 1 : i64}} : (i32) -> ()
  return
}}
"""


def pairs_checked(text: str) -> int:
    report = io.StringIO()
    compile_source(text, "scaled.mlir", pipeline="tcgen05-verify-sync{report=true}",
                   emit="mlir", report_stream=report)
    found = re.search(r"(\d+) pairs checked: ordered", report.getvalue())
    assert found, report.getvalue()
    return int(found.group(1))


def test_pairs_checked_grow_linearly_with_the_kernel():
    """n MMAs into one accumulator and n loads of it: the history keeps one entry per
    role, kind and cells, so each access is checked against a bounded number of others
    (the bound: 4x the ops, at most 4.5x the pairs; quadratic growth would be 16x)."""
    small, large = pairs_checked(scaled_kernel(100)), pairs_checked(scaled_kernel(400))
    assert large <= 4.5 * small, (small, large)


def test_stays_linear_in_the_k_loop():
    """The same kernel with a K loop 4x and 16x as long (more iterations of the same
    ring): loops of more than 8 iterations run 4 or 5 of them, so the time stays flat
    (a bound, not a measurement of the code under test's output)."""
    text = EXAMPLE.read_text()
    times = []
    for k in (512, 2048):
        scaled = text.replace("%c256 = arith.constant 256", f"%c256 = arith.constant {k}")
        scaled = scaled.replace("src_ld = 256", f"src_ld = {k}")
        start = time.perf_counter()
        assert diagnostics(scaled) == []
        times.append(time.perf_counter() - start)
    assert times[1] < 3 * times[0] + 0.5
