"""The producer tail of a ring (docs/partitions.md, "The producer tail"): after its loops
the load role waits once more on each empty stage that gets commits, for the phase of the
last one, because nothing else waits for those commits and the ISA does not order the
arrivals of two commits (9.7.16.12.1).

Expected stages and parities are derived by hand from the loops (use it of a ring of S
stages is stage it mod S; stage s gets the commits of uses s, s + S, ..); the simulator
and tcgen05-verify-sync are the independent judges of the kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim_checks import judge
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.sync_check import Run
from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options
from tcgen05_lower.synchronization.ring_protocol import tail_parities

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ws_persistent_gemm_bf16.mlir"
PAIR = ROOT / "examples" / "ws_gemm_2cta_bf16.mlir"
PAIR_CHECK = ROOT / "examples" / "ws_gemm_2cta_bf16.check.py"


@pytest.mark.parametrize("uses, stages, expected", [
    # 16 uses of 4 stages: 4 commits each, the last in phase 3.
    (16, 4, [(0, 1), (1, 1), (2, 1), (3, 1)]),
    # 18 uses of 4 stages: stages 0, 1 get 5 (phase 4), stages 2, 3 get 4 (phase 3).
    (18, 4, [(0, 0), (1, 0), (2, 1), (3, 1)]),
    # 3 uses of 2 stages: stage 0 gets uses 0 and 2 (phase 1), stage 1 use 1 (phase 0).
    (3, 2, [(0, 1), (1, 0)]),
    # Fewer uses than stages: only the stages used get a wait.
    (2, 4, [(0, 0), (1, 0)]),
    # One stage: every use commits to it; 5 commits, the last in phase 4.
    (5, 1, [(0, 0)]),
    # A loop of no iteration commits nothing: no tail at all.
    (0, 4, []),
])
def test_tail_parities_by_hand(uses, stages, expected):
    assert tail_parities(uses, stages) == expected


def long_ring(tiles: int) -> str:
    """The persistent example with `tiles` tiles (so a tile loop longer than the 8
    iterations tcgen05-verify-sync runs in full)."""
    text = EXAMPLE.read_text()
    text = text.replace("  %c4 = arith.constant 4 : index\n",
                        f"  %c4 = arith.constant 4 : index\n"
                        f"  %ctiles = arith.constant {tiles} : index\n", 1)
    assert text.count("scf.for %t = %c0 to %c4 step %c1") == 3
    return text.replace("scf.for %t = %c0 to %c4 step %c1", "scf.for %t = %c0 to %ctiles step %c1")


def compile_long_ring(tiles: int, stages: int):
    pipeline = override_options(DEFAULT_PIPELINE,
                                [f"tcgen05-insert-sync{{ring_stages={stages}}}"])
    return compile_source(long_ring(tiles), EXAMPLE.name, pipeline=pipeline)


def test_a_long_loop_keeps_the_tail_parities_in_verify_sync():
    """20 tiles x 4 K blocks = 80 uses of a 3-stage ring: stages 0 and 1 get 27 commits
    (parity 0), stage 2 gets 26 (parity 1). tcgen05-verify-sync runs the 20-iteration
    tile loop shortened, to 4 + 16 mod 12 = 8 iterations (2 x lcm(3, 2) = 12, the ring
    depths 3 and 2): 32 uses, 11, 11, 10 commits, the same parities, so the tail's
    constant parities name the last phases of the shortened run too; the kernel is
    accepted (it compiles with the default partitions=check)."""
    assert tail_parities(80, 3) == [(0, 0), (1, 0), (2, 1)]
    assert tail_parities(32, 3) == tail_parities(80, 3)
    compile_long_ring(20, 3)


def test_shortening_to_4_or_5_would_break_the_tail(monkeypatch):
    """The former rule (4 + trips mod 2: 4 tiles, 16 uses, 6, 5, 5 commits: parities 1,
    0, 0) disagrees with the tail's parities on stage 0 and 2, and the kernel would be
    refused: this is what Run.shortened's period is for."""
    assert tail_parities(16, 3) != tail_parities(80, 3)
    monkeypatch.setattr(Run, "shortened", lambda self, trips: 4 + trips % 2)
    with pytest.raises(CompileFailed) as failed:
        compile_long_ring(20, 3)
    assert "may still be in flight when the CTA holding its mbarrier exits" in \
        str(failed.value)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_the_pair_example_with_its_tail_runs_clean(schedule):
    result = compile_source(PAIR.read_text(), PAIR.name)
    assert judge(result, PAIR_CHECK, schedule) is None


def test_the_pair_example_without_its_tail_is_reported_by_the_simulator():
    """The tail waits deleted from the PTX (the two try_wait loops after the load loop,
    on the empty stages, the last waits of the load role before the join): no wait of
    either CTA observes the phase of the last multicast commits to empty_0 and empty_1
    before the CTA exits, under either schedule (a commit's arrival is asynchronous)."""
    result = compile_source(PAIR.read_text(), PAIR.name)
    lines = result.ptx.splitlines()
    load = next(i for i, line in enumerate(lines) if "cp.async.bulk.tensor" in line)
    tail = [i for i in range(load, len(lines))
            if "mbarrier.try_wait.parity.shared::cta.b64" in lines[i]][:2]
    # Both follow the load loop in the PTX (the load role's code) and wait for parity 1,
    # the register set to 1 just before them (lit_tests/examples/ws_gemm_2cta_bf16.mlir).
    assert len(tail) == 2
    parity = lines[tail[0] - 2].strip()
    assert parity.startswith("mov.b32") and parity.endswith(", 1;"), parity
    register = parity.split()[1].rstrip(",")
    assert all(lines[i].rstrip().endswith(f"], {register}; @!tcgen05_done bra tcgen05_wait; }}")
               for i in tail), [lines[i] for i in tail]
    mutant = "\n".join(line for i, line in enumerate(lines) if i not in tail) + "\n"
    for schedule in ("late", "eager"):
        found = judge(result, PAIR_CHECK, schedule, mutant)
        assert found is not None and "is observed by no wait of that CTA before the CTA exits" in found, found
