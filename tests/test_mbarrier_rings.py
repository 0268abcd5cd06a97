"""mbarrier rings: ``tcgen05.alloc_mbarrier {stages = S}`` and ``tcgen05.mbarrier_stage``
(dialect/tcgen05.irdl.mlir), on the hand-synchronized persistent GEMM written in loops
over its rings (tests/kernels/ws_persistent_gemm_bf16_hand.mlir).

Expected values by hand from the definition: a ring of S stages takes S 8-byte slots
(PTX ISA 9.7.13.15.1: an mbarrier is a 64-bit shared-memory object) and every stage is
initialized once at entry; the kernel's rings (4 + 4 + 2 + 2 stages) and the TMEM address
slot make 13 slots, 104 bytes. The stage of a computed index is a run-time address, which
the simulator follows (its arrivals, commits and waits name registers). The results are
checked against NumPy (the example's .check.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim_checks import judge
from tcgen05_lower.driver import CompileFailed, compile_source

ROOT = Path(__file__).resolve().parent.parent
HAND = ROOT / "tests" / "kernels" / "ws_persistent_gemm_bf16_hand.mlir"
CHECK = ROOT / "examples" / "ws_persistent_gemm_bf16.check.py"
NONE = "tcgen05-insert-sync{strategy=none}"


def compile_hand(text: str | None = None, options=(NONE,), name: str = HAND.name):
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options

    return compile_source(text or HAND.read_text(), name,
                          pipeline=override_options(DEFAULT_PIPELINE, list(options)))


def test_every_stage_has_its_slot_and_is_initialized_once():
    ptx = compile_hand().ptx
    assert re.search(r"\.shared \.align 8 \.b8 __tcgen05_slots_\w+\[104\];", ptx)
    assert ptx.count("mbarrier.init.shared::cta.b64") == 4 + 4 + 2 + 2


def test_ring_stages_are_computed_addresses():
    """The waits, commits, arrivals and TMA loads of the loops name their mbarrier by a
    register (base + 8 x stage), not a symbol: the simulator runs them on those
    addresses (test below)."""
    ptx = compile_hand().ptx
    waits = re.findall(r"mbarrier\.try_wait\.parity\.shared::cta\.b64 \w+, \[(%r\d+)\]", ptx)
    # empty (load), acc_empty and full (mma), acc_full (epilogue), and the producer
    # tail's wait on empty_s after the load loops (in a loop over the stages)
    assert len(waits) == 5
    assert re.search(r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\."
                     r"shared::cluster\.b64 \[%r\d+\]", ptx)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_hand_ring_kernel_matches_numpy_race_free(schedule):
    assert judge(compile_hand(), CHECK, schedule) is None


def test_a_wrong_stage_is_caught_by_verify_sync():
    """The MMA warp waits on the full mbarrier of the next stage ((s + 1) mod 4) instead
    of its own: the loads of stage s are then unordered before its MMAs. tcgen05-verify-
    sync, which takes each evaluated stage as its own mbarrier, refuses the kernel."""
    text = HAND.read_text()
    old = ('%full_s = "tcgen05.mbarrier_stage"(%full, %s) : (!tcgen05.mbarrier, index) '
           '-> !tcgen05.mbarrier\n          %empty_s = "tcgen05.mbarrier_stage"(%empty, %s)'
           ' : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier\n          '
           '"tcgen05.mbarrier_wait"(%full_s')
    assert text.count(old) == 1
    new = old.replace('(%full, %s)', '(%full, %s_next)').replace(
        '%full_s = ', '%s1 = arith.addi %s, %c1 : index\n          '
                     '%s_next = arith.remui %s1, %c4 : index\n          %full_s = ')
    with pytest.raises(CompileFailed) as failed:
        compile_hand(text.replace(old, new))
    assert re.search(r"ws_persistent_gemm_bf16_hand\.mlir:\d+:\d+: error: ", str(failed.value))


ONE_PROGRAM = ROOT / "tests" / "kernels" / "ring_tma_mbarrier_ring.mlir"
ONE_PROGRAM_CHECK = ROOT / "tests" / "kernels" / "ring_tma_mbarrier_ring.check.py"


@pytest.mark.parametrize("strategy", ["minimal", "conservative"])
@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_one_program_kernel_on_an_mbarrier_ring_matches_numpy(strategy, schedule):
    """No roles: the TMA loads of stage s complete on stage s of a 2-stage mbarrier ring;
    tcgen05-insert-sync orders the rest, and the one-program verify-sync (in the default
    pipeline) accepts it."""
    result = compile_hand(ONE_PROGRAM.read_text(),
                          (f"tcgen05-insert-sync{{strategy={strategy}}}",), ONE_PROGRAM.name)
    assert judge(result, ONE_PROGRAM_CHECK, schedule) is None


def test_one_program_wait_on_the_other_stage_is_caught():
    """The wait names stage (s + 1) mod 2, on which no expect_tx of this K block arrives:
    the one-program verify-sync, which evaluates the stage, refuses it (a wait on a phase
    nothing completes), where the load's stage is meant."""
    text = ONE_PROGRAM.read_text()
    old = '"tcgen05.mbarrier_wait"(%full_s, %p)'
    assert text.count(old) == 1
    text = text.replace(old, '%s1 = arith.addi %s, %c1 : index\n    %s_other = arith.remui '
                             '%s1, %c2 : index\n    %other = "tcgen05.mbarrier_stage"(%full, '
                             '%s_other) : (!tcgen05.mbarrier, index) -> !tcgen05.mbarrier\n'
                             '    "tcgen05.mbarrier_wait"(%other, %p)')
    with pytest.raises(CompileFailed) as failed:
        compile_hand(text, (), ONE_PROGRAM.name)
    assert re.search(r"ring_tma_mbarrier_ring\.mlir:\d+:\d+: error: .*never returns",
                     str(failed.value))
