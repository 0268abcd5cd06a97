"""TMA multicast across a cluster of CTA pairs (tcgen05_lower/multicast.py, docs/tma.md
"Multicast across a cluster"): tests/kernels/ws_gemm_2cta_multicast.mlir, written with no
synchronization, with A multicast along y in a 2 x 2 cluster and, substituted, B
multicast along x in a 4 x 1 cluster. Expected values: NumPy's float64 product (the check
files), the PTX syntax of PTX ISA 9.7.9.25.5.1 (cp.async.bulk.tensor) accepted by ptxas,
and masks and counts derived by hand in the comments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import requires_ptxas
from sim_checks import judge
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import LOWERING

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "kernels" / "ws_gemm_2cta_multicast.mlir"
CHECK = ROOT / "tests" / "kernels" / "ws_gemm_2cta_multicast.check.py"

CHECK_TEMPLATE = '''
import numpy as np
BUFFERS = {{"A": ("bfloat16", ({m}, 256)), "B": ("bfloat16", ({n}, 256)),
            "C": ("float32", ({m}, {n}))}}
def reference(inputs):
    return {{"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64).T}}
def bound(name, inputs):
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "AB")
    return 256 * 2.0 ** -24 * (a @ b.T) + 1e-30, "K*2^-24*(|A||B^T|), K = 256"
'''


def four_by_one() -> str:
    """The kernel with two pairs along x (cluster 4 x 1): both pairs of a cluster have
    the same ctaid.y, so the same B rows, and B is multicast along x; a grid of 4 x 2
    CTAs (two clusters; M = 512, N = 256, so ldc = 256 as written)."""
    text = KERNEL.read_text()
    text = text.replace("cluster = array<i32: 2, 2>, grid = [\"2\", \"2\"]",
                        "cluster = array<i32: 4, 1>, grid = [\"4\", \"2\"]")
    text = text.replace('(%tmA, %as, %k, %m0) {multicast = "y"}', "(%tmA, %as, %k, %m0)")
    text = text.replace("(%tmB, %bs, %k, %n0)", '(%tmB, %bs, %k, %n0) {multicast = "x"}')
    assert text.count("multicast") >= 2 and "array<i32: 4, 1>" in text
    return text


def compiled(text: str):
    """The kernel through the default pipeline (the one tcgen05-lower runs)."""
    return compile_source(text, KERNEL.name)


def test_2x2_cluster_matches_numpy_race_free():
    result = compiled(KERNEL.read_text())
    # One multicast load (A) and one plain pair load (B) per K block in the PTX.
    assert result.ptx.count(".multicast::cluster.cta_group::2 [") == 1
    assert ".reqnctapercluster 2, 2, 1" in result.ptx
    assert result.manifest["cluster"] == [2, 2, 1]
    assert judge(result, CHECK, "late") is None
    assert judge(result, CHECK, "eager") is None


def test_4x1_cluster_matches_numpy_race_free(tmp_path):
    check = tmp_path / "c.check.py"
    check.write_text(CHECK_TEMPLATE.format(m=512, n=256))
    result = compiled(four_by_one())
    assert ".reqnctapercluster 4, 1, 1" in result.ptx
    assert judge(result, check, "late") is None


def test_the_release_of_a_stage_counts_every_pair():
    """The empty ring of the 2 x 2 cluster counts two arrivals (the MMA-issuing even CTA
    of each of its two pairs) and its commits signal all four CTAs (mask 0b1111), by hand
    from the protocol: each pair's load thread refills stages the other pair reads."""
    from test_sync_common import plan

    planned = plan(KERNEL, "minimal").text
    # the rings in the order the pass creates them: full, empty, acc_full
    counts = re.findall(r'"tcgen05\.alloc_mbarrier"\(\) \{count = (\d+) : i64, stages = '
                        r'(\d+) : i64\}', planned)
    assert counts == [("1", "2"), ("2", "2"), ("1", "1")], counts
    assert "multicast_mask = 15" in planned


def test_a_release_that_waits_for_one_pair_only_is_a_race():
    """The mutant whose empty ring counts one arrival (as without multicast): a pair's
    load thread may refill a stage the other pair's MMAs still read, which the
    simulator reports (a race, an over-arrival or a wrong result)."""
    from test_sync_common import plan

    planned = plan(KERNEL, "minimal").text
    mutant, n = re.subn(r"count = 2 : i64, stages = 2 : i64",
                        "count = 1 : i64, stages = 2 : i64", planned, count=1)
    assert n == 1
    names = ("A", "B", "C", "tmA", "tmB")
    mutant = re.sub(r"%arg([0-4])\b", lambda m: "%" + names[int(m.group(1))], mutant)
    pipeline = ",".join(("tcgen05-verify-sync{partitions=skip}",) + LOWERING)
    try:
        result = compile_source(mutant, KERNEL.name, pipeline=pipeline)
    except CompileFailed as failed:
        pytest.fail(f"the mutant does not compile: {failed}")
    verdict = judge(result, CHECK, "late")
    assert verdict is not None and verdict.startswith("race") and \
        "overwrites shared memory of CTA" in verdict, verdict
    # tcgen05-verify-sync rejects it too: its count is not one arrival per pair
    from test_sync_common import verify
    assert not verify(planned, KERNEL.name)
    errors = verify(mutant, KERNEL.name)
    assert any("signal 2 CTA pairs" in e for e in errors), errors


@requires_ptxas
def test_ptxas_accepts_the_multicast_kernels():
    for text in (KERNEL.read_text(), four_by_one()):
        checked = run_ptxas(compiled(text).ptx, arch="sm_100a")
        assert checked.ok, checked.stderr
