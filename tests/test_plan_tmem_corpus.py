"""The TMEM planning corpus (benchmarks/tmem/corpus) under every strategy.

For each kernel and strategy: the independent checker (tests/tmem_checker.py, which reads
only the planned IR and the JSON report) finds nothing wrong; ``optimal`` reaches the
peak derived by hand in the kernel's ``// EXPECT:`` line (and its lower bound is the
hand-derived one), and is never worse than ``first-fit``; where ``optimal`` is above the
lower bound, the plan carries the exact point bound that proves why; kernels that do not
fit fail with the over-subscription diagnostic.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tmem_checker
from conftest import requires_ptxas
from test_plan_tmem import run_planner
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE

CORPUS = Path(__file__).resolve().parent.parent / "benchmarks" / "tmem" / "corpus"
KERNELS = sorted(CORPUS.glob("*.mlir"))
STRATEGIES = ("first-fit", "optimal", "no-reuse")


def expectation(text: str) -> tuple[int, int]:
    match = re.search(r"^// EXPECT: lower bound (\d+), optimal (\d+)", text, re.M)
    return int(match.group(1)), int(match.group(2))


def pipeline_of(text: str) -> str | None:
    match = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    return match.group(1).strip() if match else None


def test_the_corpus_covers_every_category():
    assert len(KERNELS) >= 30
    names = " ".join(p.name for p in KERNELS)
    for word in ("kloop", "double_buffer", "m64_pair", "m64_multibuffer", "cta2_m256",
                 "block_scaled", "sparse", "a_tmem_m128", "a_tmem_m64", "small_",
                 "exact_512", "over_", "if_else", "cf_branches", "select", "while",
                 "loop_carried"):
        assert word in names, word


@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_corpus_kernel(path, tmp_path):
    text = path.read_text()
    bound, expected = expectation(text)
    peaks = {}
    for strategy in STRATEGIES:
        json_path = tmp_path / f"{strategy}.json"
        plans, planned, errors = run_planner(text, strategy, pipeline=pipeline_of(text),
                                             json_path=str(json_path))
        (plan,) = plans
        peaks[strategy] = plan.peak_columns
        assert plan.lower_bound_columns == bound, strategy
        if plan.peak_columns <= 512:
            assert not errors, errors
            report = json.loads(json_path.read_text())
            assert tmem_checker.check_text(planned, report) == [], strategy
        else:
            assert planned is None and len(errors) == 1
            assert "tensor memory over-subscribed: needs" in errors[0]
            assert plan.allocation_columns is None
        if strategy == "optimal":
            assert plan.proven
            assert plan.peak_columns == expected
            if expected > bound:
                assert plan.point_bound_columns == expected
                assert any("ignores geometry" in note for note in plan.notes)
    assert peaks["optimal"] <= peaks["first-fit"]


FITTING_WHOLE_PIPELINE = [p for p in KERNELS
                          if pipeline_of(p.read_text()) is None
                          and expectation(p.read_text())[1] <= 512]


def test_the_buffers_chosen_at_run_time_need_no_hand_written_footprints():
    # Issue 12: the kernels whose buffers flow through iteration arguments, block
    # arguments, arith.select and scf.if results are planned by the default passes.
    names = {p.stem for p in FITTING_WHOLE_PIPELINE}
    assert {"04_loop_carried_pingpong", "34_cf_branches_block_args", "35_select_alias",
            "38_if_yields_buffer"} <= names
    for name in names:
        assert "columns = " not in (CORPUS / f"{name}.mlir").read_text(), name


@requires_ptxas
@pytest.mark.parametrize("path", FITTING_WHOLE_PIPELINE,
                         ids=[p.stem for p in FITTING_WHOLE_PIPELINE])
def test_corpus_kernel_compiles_to_ptx_that_ptxas_accepts(path):
    """The whole default pipeline (footprints chosen by tcgen05-select-layouts, not
    written in the kernel; placement by `optimal`, which fits every such kernel, see
    EXPECT), then ptxas, an independent tool."""
    pipeline = DEFAULT_PIPELINE.replace("tcgen05-plan-tmem",
                                        "tcgen05-plan-tmem{strategy=optimal}")
    result = compile_source(path.read_text(), path.name, emit="ptx", pipeline=pipeline)
    assembled = run_ptxas(result.ptx, arch="sm_100a")
    assert assembled.ok, assembled.stderr
