"""Generated kernels (issue 33): a fixed seeded sample of the feature lattice of
tests/generator/kernelgen.py, each compiled, assembled by ptxas, simulated under the late
and eager schedules (race-free, nothing left at exit) and compared with its NumPy
reference (computed in float64 from the inputs; the tolerance is derived from the
element types in kernelgen.reference, never from the simulator's output). The long run
is benchmarks/generator/run.py; failures it finds are shrunk and kept here as
regressions.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator import campaign, check
from generator import kernelgen as kg

#: The campaign and the number of its first kernels CI runs (about 0.7 s each on an idle
#: core: the sample stays well under a minute).
SAMPLE_SEED, SAMPLE_SIZE = 33, 40
SAMPLE, _ = campaign.specs(SAMPLE_SEED, SAMPLE_SIZE)


def _expect_ok(outcome: check.Outcome) -> None:
    known = outcome.known()
    if known and not outcome.ok:
        pytest.xfail(known)
    assert outcome.ok, f"{outcome.stage}: {outcome.message}\n{outcome.spec.key()}"


@pytest.mark.parametrize("index", range(SAMPLE_SIZE))
def test_generated_kernel(index):
    _expect_ok(check.run_spec(SAMPLE[index]))


#: Shrunk reproducers of failures the generator found, fixed since (each failed before
#: its fix).
REGRESSIONS = [
    # A CTA pair with run-time shapes: the fills of an edge tile take different paths in
    # the threads of a warp, and the cluster barrier after them was .aligned (simulator:
    # "barrier.cluster.arrive.aligned is warp-collective (.sync.aligned) but only 24 of
    # the 32 live threads of warp 0 (CTA 0) execute it together").
    pytest.param(kg.Spec(ctas=2, shapes="runtime", seed=0), id="pair-runtime-m128"),
    pytest.param(kg.Spec(m=256, ctas=2, shapes="runtime", seed=4), id="pair-runtime-m256-grid"),
]


@pytest.mark.parametrize("spec", REGRESSIONS)
def test_regression(spec):
    _expect_ok(check.run_spec(spec))


#: Shrunk reproducers of issue 33 item 1 (a frag_map result stored with run-time dims:
#: wrong C, or an internal error with ld as an operand), which failed before its fix.
ITEM_1_REPRODUCERS = [
    pytest.param(kg.Spec(shapes="runtime", out="bf16", seed=0), id="item1-bf16-dims-store"),
    pytest.param(kg.Spec(shapes="runtime", bias="col", seed=1), id="item1-bias-dims-store"),
]


@pytest.mark.parametrize("spec", ITEM_1_REPRODUCERS)
def test_item_1_reproducers(spec):
    _expect_ok(check.run_spec(spec))


def test_the_sample_is_valid_and_deterministic():
    assert all(not kg.problems(s) for s in SAMPLE)
    again, _ = campaign.specs(SAMPLE_SEED, SAMPLE_SIZE)
    assert again == SAMPLE
    assert kg.render(SAMPLE[0]) == kg.render(again[0])


def test_the_campaign_covers_every_feasible_pair():
    """Every pair of feature values that some valid spec has is covered by the first 400
    kernels of the campaign (the generator pins uncovered pairs first)."""
    specs, infeasible = campaign.specs(SAMPLE_SEED, 400)
    covered = set()
    for spec in specs:
        covered.update(kg.pairs(spec))
    missing = set(campaign.value_pairs()) - covered - set(infeasible)
    assert not missing, sorted(missing)[:10]
    # and an infeasible pair really has no valid spec: pinned, every draw has a problem
    for pair in infeasible[:20]:
        assert campaign.draw(__import__("random").Random(0), pair, tries=200) is None


@pytest.mark.parametrize("spec", [kg.Spec(), kg.Spec(out="e4m3", act="gelu", bias="row"),
                                  kg.Spec(dtype="i8", out="i32", shapes="runtime", seed=2)])
def test_the_comparison_can_fail(spec):
    """The reference check rejects C moved past its bound in one element, an element
    left unwritten, and (with ldc > N) a write past N."""
    args = kg.make_inputs(spec)
    want, bound = kg.reference(spec, args)
    sz = kg.sizes(spec)
    dtype = args["C"].dtype
    good = np.array(args["C"])
    good[:sz.M, :sz.N] = want.astype(dtype)
    assert kg.compare(spec, args, good) is None
    moved = good.copy()
    moved[0, 0] = (want[0, 0] + 3 * bound[0, 0] + 1).astype(dtype)
    assert kg.compare(spec, args, moved) is not None
    unwritten = good.copy()
    unwritten[-1, sz.N - 1] = args["C"][-1, sz.N - 1]
    assert kg.compare(spec, args, unwritten) is not None
    if sz.ldc > sz.N:
        past = good.copy()
        past[0, sz.N] = 0
        assert kg.compare(spec, args, past) is not None
