"""tcgen05-compare --check / --set / --timing-only / --rank (issue 36): kernels ranked by
the whole-grid estimate tcgen05-sim --timing-only makes. Expected values: each kernel's
own tcgen05-sim --timing-only run (a separate run of the simulator's command line, its
printed cycles and utilisation line), not compare's numbers."""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = ROOT / "examples" / "ws_gemm_bf16_grid_2cta.check.py"
KERNELS = [ROOT / "benchmarks" / "strategies" / "grid_2cta" /
           "ws_gemm_bf16_grid_2cta_1cta.mlir",
           ROOT / "examples" / "ws_gemm_bf16_grid_2cta.mlir"]
#: Small sizes (a few seconds each): 2 x 2 tiles of 256, 4 x 2 of 128 x 256, 4 K blocks.
SIZES = ("--set", "M=512", "--set", "N=512", "--set", "K=256")


def sim_alone(tool, kernel) -> tuple:
    """(cycles, tensor pipe %) from tcgen05-sim --timing-only's printed lines."""
    out = tool("tcgen05-sim", kernel, "--check", CHECK, *SIZES, "--timing-only")
    assert out.returncode == 0, out.stderr
    cycles = re.search(r"timing \(model[^)]*\): ([\d,]+) cycles", out.stdout)
    util = re.search(r"utilisation: tensor pipe ([\d.]+)%", out.stdout)
    return int(cycles.group(1).replace(",", "")), float(util.group(1))


@pytest.mark.parametrize("extra", [(), ("--functional-only",)])
def test_compare_ranks_kernels_as_their_timing_only_runs_do(tool, extra):
    # --functional-only: no race detection, the same timing (docs/simulator.md)
    out = tool("tcgen05-compare", *KERNELS, "--grid", "tcgen05-insert-sync.strategy=minimal",
               "--check", CHECK, *SIZES, "--timing-only", "--rank", "--format", "json",
               "-j", "1", *extra)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [r["reason"] for r in rows] == ["", ""]
    alone = {Path(k).name: sim_alone(tool, k) for k in KERNELS}
    # the same estimate as each kernel's own run ...
    for row in rows:
        cycles, util = alone[row["kernel"]]
        assert round(row["cycles"]) == cycles and round(100 * row["tensor_pipe"], 1) == util
        assert row["same"] == "-"  # timing only: no numerics compared
    # ... and the rows in the order of those runs' utilisation, best first (distinct
    # values, so the order says something)
    expected = sorted(alone, key=lambda name: -alone[name][1])
    assert len({u for _, u in alone.values()}) == len(alone)
    assert [r["kernel"] for r in rows] == expected


def test_compare_refuses_a_set_that_is_no_integer(tool):
    out = tool("tcgen05-compare", KERNELS[1], "--check", CHECK, "--set", "M=big")
    assert out.returncode == 1
    assert "--set M=big: expected NAME=INTEGER" in out.stderr
    assert "Traceback" not in out.stderr
