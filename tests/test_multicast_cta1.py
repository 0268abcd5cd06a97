"""TMA multicast in cta_group::1 kernels: clusters of single CTAs (tcgen05_lower/
multicast.py, docs/tma.md "Multicast across a cluster"). The kernel is the one-CTA MXFP8
GEMM examples/ws_gemm_mxf8_blockscaled.mlir (CTA (x, y) computes the tile of C at N tile
x and M tile y), given a cluster shape and multicast loads: CTAs along x share the M tile,
so A and its scale factors SFA are multicast along x; CTAs along y share the N tile, so B
and SFB are multicast along y (4 loads per K block, all through the ring the compiler
synchronizes).

Expected values: the check file's NumPy reference (ml_dtypes decodes elements and
factors), the PTX syntax of cp.async.bulk.tensor .multicast::cluster (PTX ISA
9.7.9.25.5.1) accepted by ptxas, and the counts and masks by hand: in a cluster of n
CTAs each CTA's empty_s counts the commits of all n (each CTA's load thread refills the
stage of the CTAs it multicasts to) and every commit signals the whole cluster
(multicast.consumers_mask)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import requires_ptxas
from sim_checks import judge
from test_sync_common import plan, verify
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import compile_source

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "examples" / "ws_gemm_mxf8_blockscaled.mlir"
CHECK = ROOT / "examples" / "ws_gemm_mxf8_blockscaled.check.py"
#: The loads shared along each cluster dimension (module docstring).
SHARED = {"x": ("%tmA, %as, %k, %m0", "%tmSFA, %sas, %c0, %ra"),
          "y": ("%tmB, %bs, %k, %n0", "%tmSFB, %sbs, %c0, %rb")}
#: cluster (x, y) -> sizes whose grid (ceildiv(N, 128) x ceildiv(M, 128)) is whole
#: clusters, none a multiple of the tile; K = 272: three K blocks, the last partial.
SHAPES = {(2, 1): {"M": 100, "N": 200, "K": 272},
          (1, 2): {"M": 200, "N": 100, "K": 272},
          (2, 2): {"M": 200, "N": 250, "K": 272},
          (4, 1): {"M": 60, "N": 500, "K": 144}}


def clustered(x: int, y: int) -> str:
    """The example with cluster = [x, y] and its loads multicast along each dimension of
    more than one CTA."""
    text = KERNEL.read_text()
    text = text.replace("cta_group = 1 : i64,\n",
                        f"cta_group = 1 : i64, cluster = array<i32: {x}, {y}>,\n", 1)
    for dim, extent in (("x", x), ("y", y)):
        if extent > 1:
            for operands in SHARED[dim]:
                old = f'"tcgen05.tma_load"({operands})'
                assert old in text
                text = text.replace(old, f'{old} {{multicast = "{dim}"}}')
    return text


def check_file(tmp_path, sizes: dict) -> Path:
    path = tmp_path / CHECK.name
    path.write_text(re.sub(r"\nSCALARS = \{[^}]*\}", f"\nSCALARS = {sizes!r}",
                           CHECK.read_text()))
    return path


@pytest.mark.parametrize("shape", [(2, 1), (1, 2), (2, 2)])
def test_clusters_of_single_ctas_match_numpy_race_free(shape, tmp_path):
    x, y = shape
    result = compile_source(clustered(x, y), KERNEL.name)
    # Per K block, the loads shared along a dimension of 2 CTAs: 2 each (A and SFA, or B
    # and SFB), issued by the first CTA along it with .multicast::cluster.
    assert result.ptx.count("bytes.multicast::cluster [") == 2 * ((x > 1) + (y > 1))
    assert f".reqnctapercluster {x}, {y}, 1" in result.ptx
    assert result.manifest["cluster"] == [x, y, 1]
    check = check_file(tmp_path, SHAPES[shape])
    assert judge(result, check, "late") is None
    if shape == (2, 2):
        assert judge(result, check, "eager") is None


@pytest.mark.slow   # 8 CTAs: about 20 s
def test_a_4x1_cluster_matches_numpy(tmp_path):
    result = compile_source(clustered(4, 1), KERNEL.name)
    assert judge(result, check_file(tmp_path, SHAPES[(4, 1)]), "late") is None


def test_the_release_of_a_stage_counts_every_cta_of_the_cluster(tmp_path):
    """2 x 2: empty_s counts 4 commits (one per CTA) and each commit signals all four
    CTAs (mask 0b1111); full_s still counts the CTA's own expect_tx. verify-sync checks
    one CTA's program, for which the count is its own commit's (4 / 4)."""
    source = tmp_path / KERNEL.name
    source.write_text(clustered(2, 2))
    planned = plan(source, "minimal").text
    rings = re.findall(r'"tcgen05.alloc_mbarrier"\(\) \{count = (\d+) : i64, stages = (\d+)',
                       planned)
    assert rings[:2] == [("1", "2"), ("4", "2")]
    assert planned.count("multicast_mask = 15 : i64") == 1
    assert verify(planned, KERNEL.name) == []


@requires_ptxas
def test_ptxas_accepts_the_2x2_cluster():
    result = compile_source(clustered(2, 2), KERNEL.name, arch="sm_100a")
    assert "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster" \
           ".multicast::cluster.b64" in result.ptx
    assembled = run_ptxas(result.ptx, arch="sm_100a")
    assert assembled.ok, assembled.stderr


def test_without_the_cluster_barrier_after_the_inits_the_simulator_reports_a_race(
        tmp_path):
    """The other CTAs' multicast loads and commits signal this CTA's mbarriers, so their
    inits must be ordered before them across the cluster (lowering/core.py): with the
    CTA barrier in its place, the simulator names the use of an mbarrier of another CTA
    before its init is ordered before it."""
    result = compile_source(clustered(2, 1), KERNEL.name)
    barrier = "barrier.cluster.arrive; barrier.cluster.wait;"
    assert result.ptx.count(barrier) >= 1
    first = result.ptx.index(barrier)
    result.ptx = result.ptx[:first] + "barrier.sync 0;" + result.ptx[first + len(barrier):]
    verdict = judge(result, check_file(tmp_path, SHAPES[(2, 1)]), "late")
    assert verdict is not None and "mbarrier.init" in verdict
