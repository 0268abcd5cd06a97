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
    # A row maximum in a kernel of PTX ISA 8.8 (kind::mxf4): LLVM joins the two-input
    # max.f32 of the reduction into three-input ones, which the simulator did not take
    # (an internal "too many values to unpack"; sim/minmax3.py).
    pytest.param(kg.Spec(dtype="mx_e2m1", program="roles", load="tma", rowred="max",
                         seed=0), id="max3-mxf4-rowmax"),
    # M = 64 with run-time shapes and two tiles (N = 115 for seed 1): a .16x32bx2 slice's
    # two lane halves hold different columns, so the 16-byte-store test "the fragment's
    # last column lies inside N" (which each thread took of its own last column) split
    # the warp at the slice across N, and the next .sync.aligned tcgen05.wait::ld ran
    # with 16 of 32 threads (campaign 39, kernel 296, shrunk).
    pytest.param(kg.Spec(m=64, shapes="runtime", tiles=2, seed=1), id="m64-edge-vector-test"),
    # A stored from registers, then B filled with run-time extents (K = 41): the fill
    # copied a 16-byte vector that straddles K's end element by element behind a branch,
    # LLVM placed the fill loop's exit below the element path, and the .sync.aligned
    # tcgen05.wait::st after the fill ran with 10 of the 32 threads of warp 0 (the
    # campaign 39 finding, tests/generator/findings/regs_runtime_fill_wait_st.mlir); the
    # fill now chooses per thread by predicated loads and selp, without a branch.
    pytest.param(kg.Spec(a_src="regs", shapes="runtime", seed=3), id="a-regs-fill-wait-st"),
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


#: The features added to the lattice after the first campaigns, each combined with others
#: the generator already varied (the sample above draws them too, at random).
NEW_FEATURES = [
    # TMA multicast of A along y in 2 x 2 clusters of M = 256 pairs: run-time shapes (the
    # grid's z counts M tiles), two N tiles per CTA, two accumulator stages, a 2-stage ring
    pytest.param(kg.Spec(m=256, ctas=2, program="roles", load="tma", cluster="2x2",
                         shapes="runtime", tiles=2, acc_stages=2, ring=2, kblocks=2, seed=1),
                 id="multicast-2x2-runtime"),
    # B multicast along x in 4 x 1 clusters of M = 128 pairs (Layout B), a bf16 row-bias
    # epilogue
    pytest.param(kg.Spec(ctas=2, program="roles", load="tma", cluster="4x1", bias="row",
                         out="bf16", seed=2), id="multicast-4x1-bias"),
    # block-scaled warp roles: SFA / SFB by TMA into rings, tcgen05.cp.32x128b.warpx4
    # into TMEM rings, run-time shapes on a grid, two tiles and accumulator stages
    pytest.param(kg.Spec(dtype="mx_e5m2", program="roles", load="tma", ring=2, kblocks=2,
                         tiles=2, acc_stages=2, shapes="runtime", seed=3),
                 id="blockscaled-roles-runtime"),
    # kind::mxf4 (e2m1 packed two per byte, 64B swizzle, .block32 factors) in warp roles,
    # run-time shapes, a 2-stage ring, two tiles
    pytest.param(kg.Spec(dtype="mx_e2m1", program="roles", load="tma", ring=2, kblocks=2,
                         tiles=2, n=128, shapes="runtime", out="bf16", seed=6),
                 id="mxf4-roles-runtime"),
    # kind::mxf4nvf4 (UE4M3 factors per 16 elements, two scale buffers per operand) in
    # warp roles with a row maximum
    pytest.param(kg.Spec(dtype="nv_e2m1", program="roles", load="tma", ring=2, kblocks=2,
                         rowred="max", shapes="runtime", seed=8), id="nvf4-roles-rowmax"),
    # M = 64 8-bit A read from global memory and stored with tcgen05.st (Layout F), TMA B
    # ring, run-time shapes, and a row maximum of the .16x32bx2 fragments (a shuffle)
    pytest.param(kg.Spec(dtype="e4m3", m=64, a_src="regs", ring=2, kblocks=2, load="tma",
                         shapes="runtime", rowred="max", out="e4m3", seed=4),
                 id="a-regs-m64-e4m3-rowmax"),
    # a row maximum of Layout D read with .16x32bx2 (two rows per thread, each split over
    # lanes l and l xor 16), GELU, run-time shapes
    pytest.param(kg.Spec(rowred="max", ld_shape="16x32bx2", act="gelu", n=96,
                         shapes="runtime", seed=5), id="rowmax-16x32bx2-gelu"),
    # TMA multicast in a 4 x 1 cluster of single CTAs (cta_group::1: B along x), block
    # scaled (MXFP8 factors by TMA, not multicast), run-time shapes
    pytest.param(kg.Spec(dtype="mx_e4m3", program="roles", load="tma", cluster="4x1",
                         shapes="runtime", ring=2, kblocks=2, seed=4),
                 id="multicast-1cta-4x1-blockscaled"),
    # block scaling in a CTA pair (M = 256: each CTA's SFA slice, SFB whole in each CTA,
    # tcgen05.cp.cta_group::2) in a 2 x 2 cluster multicasting A
    pytest.param(kg.Spec(dtype="mx_e5m2", m=256, ctas=2, program="roles", load="tma",
                         cluster="2x2", seed=5), id="blockscaled-pair-multicast"),
]


@pytest.mark.parametrize("spec", NEW_FEATURES)
def test_new_feature(spec):
    _expect_ok(check.run_spec(spec))


def test_the_new_features_reach_the_ptx():
    """Each new feature is in the PTX it compiles to (the instruction forms of PTX ISA
    9.7.9.25.5.1 cp.async.bulk.tensor .multicast::cluster, 9.7.16.9.2 tcgen05.cp
    .32x128b.warpx4, 9.7.16.8.4 tcgen05.st .16x32bx2, 9.7.8.8 shfl.sync.bfly), so that the
    generator exercises them and does not only name them."""
    from tcgen05_lower.driver import compile_source
    want = {"multicast-2x2-runtime": [".multicast::cluster", ".reqnctapercluster 2, 2, 1"],
            "multicast-4x1-bias": [".multicast::cluster", ".reqnctapercluster 4, 1, 1"],
            "blockscaled-roles-runtime": [".32x128b.warpx4", ".kind::mxf8f6f4"],
            "nvf4-roles-rowmax": [".32x128b.warpx4", ".kind::mxf4nvf4"],
            "a-regs-m64-e4m3-rowmax": ["tcgen05.st.sync.aligned.16x32bx2", "shfl.sync.bfly"],
            "rowmax-16x32bx2-gelu": ["tcgen05.ld.sync.aligned.16x32bx2", "shfl.sync.bfly"],
            "multicast-1cta-4x1-blockscaled": [".multicast::cluster",
                                               ".reqnctapercluster 4, 1, 1",
                                               "tcgen05.cp.cta_group::1.32x128b.warpx4"],
            "blockscaled-pair-multicast": [".multicast::cluster", ".reqnctapercluster 2, 2, 1",
                                           "tcgen05.cp.cta_group::2.32x128b.warpx4",
                                           ".kind::mxf8f6f4"]}
    for param in NEW_FEATURES:
        if param.id not in want:
            continue
        ptx = compile_source(kg.render(param.values[0]), "gen_kernel.mlir").ptx
        for text in want[param.id]:
            assert text in ptx, (param.id, text)


def test_the_blocked_scale_layout_by_hand():
    """The reference of a block-scaled warp-role kernel reads SFA in the blocked layout
    of examples/ws_gemm_mxf8_blockscaled.mlir: with every factor 1 (UE8M0 code 127) but
    the byte at line (tile 0, K block 0) 32 + 37 mod 32 = 5, byte 4 (37 div 32) + 1 = 5
    set to code 128 (factor 2), row 37's elements 32 .. 63 count twice (by hand)."""
    spec = kg.Spec(dtype="mx_e4m3", program="roles", load="tma")
    args = kg.make_inputs(spec)
    args["SFA"][:] = 127
    args["SFB"][:] = 127
    args["SFA"][5, 5] = 128
    got, _ = kg.reference(spec, args)
    a = args["A"].astype(np.float64)
    b = args["B"].astype(np.float64)
    a[37, 32:64] *= 2
    assert np.array_equal(got, a @ b.T)


def test_the_nvf4_layout_and_e2m1_by_hand():
    """nvf4: with every UE4M3 factor 1 (code 0x38: exponent 7 - bias 7, mantissa 0) but
    the byte at line ((tile 0 kblocks + K block 0) 2 + MMA 1) 32 + 37 mod 32 = 37, byte
    4 (37 div 32) + 2 = 6 set to 0x40 (2.0), row 37's elements 64 + 16 * 2 .. + 15 count
    twice; and an e2m1 byte 0x21 holds 0.5 (code 1, low nibble) then 1.0 (code 2), by
    hand from 9.7.16.10.4.6 and the e2m1 encoding (1 sign, 2 exponent, 1 mantissa bits,
    bias 1)."""
    spec = kg.Spec(dtype="nv_e2m1", program="roles", load="tma")
    args = kg.make_inputs(spec)
    args["SFA"][:] = 0x38
    args["SFB"][:] = 0x38
    args["SFA"][37, 6] = 0x40
    got, _ = kg.reference(spec, args)
    a, b = kg._elements(spec, args["A"]), kg._elements(spec, args["B"])
    a[37, 96:112] *= 2
    assert np.array_equal(got, a @ b.T)
    assert list(kg._elements(spec, np.array([[0x21]], np.uint8))[0]) == [0.5, 1.0]


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
    # no pair is both covered and listed as one no valid kernel has
    assert not covered & set(infeasible), sorted(covered & set(infeasible))
    # and an infeasible pair really has no valid spec: pinned, every draw has a problem
    for pair in infeasible[:20]:
        assert campaign.draw(__import__("random").Random(0), pair, tries=200) is None


@pytest.mark.parametrize("pair", [(("cluster", "2x2"), ("m", "64")),
                                  (("cluster", "4x1"), ("n", "16")),
                                  (("cluster", "2x2"), ("dtype", "nv_e2m1"))])
def test_a_pair_only_a_cluster_of_single_ctas_has_is_drawn_when_pinned(pair):
    """M = 64, N = 16 and nvfp4 block scaling exist in a cluster only with single CTAs
    (kernelgen.CLUSTERS_1CTA): pinning the pair must not also pin a CTA pair, which made
    campaigns 40 and 41 list these pairs as infeasible while kernels with them passed."""
    spec = campaign.draw(__import__("random").Random(0), pair)
    assert spec is not None and spec.ctas == 1 and not kg.problems(spec)


@pytest.mark.parametrize("spec", [kg.Spec(), kg.Spec(out="e4m3", act="gelu", bias="row"),
                                  kg.Spec(dtype="i8", out="i32", shapes="runtime", seed=2),
                                  kg.Spec(m=64, rowred="max", shapes="runtime", seed=3),
                                  kg.Spec(rowred="sum", ld_shape="16x32bx2", seed=4)])
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


def test_the_campaign_records_the_commit_it_started_at(tmp_path, monkeypatch):
    """benchmarks/generator/run.py writes the checkout's commit when the run starts into
    its commands file: campaign 41 recorded the HEAD at its end, two commits made during
    the run later, as the code it ran."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "generator" / "run.py"
    spec = importlib.util.spec_from_file_location("generator_run", path)
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    head = {"now": "aaaaaaa"}

    def work(spec):  # a commit lands while the kernels run
        head["now"] = "bbbbbbb"
        return {"stage": "ok", "message": "", "seconds": 0.0, "known": None}
    monkeypatch.setattr(run, "commit_of", lambda root, mark_changes=False: head["now"])
    monkeypatch.setattr(run, "_work", work)
    monkeypatch.setattr(run, "report", lambda *a, **k: "")
    results = tmp_path / "r.jsonl"
    assert run.main(["--count", "2", "--seed", "33", "--results", str(results),
                     "-o", str(tmp_path / "R.md")]) == 0
    assert results.with_suffix(".commands").read_text().rstrip().endswith("# at aaaaaaa")
