"""Issue 16: per-row reductions (tcgen05.frag_reduce, tcgen05.frag_broadcast) and the
attention example over one KV block (plain softmax), P through tensor memory.

Expected values: NumPy (the .check.py reference, which states its bound) through the
simulator, which imports nothing of the compiler; spills: ptxas."""

import subprocess

import numpy as np
import pytest

from tcgen05_lower.backend import find_ptxas
from sim_checks import assert_matches, run_example
from test_a_operand_store import STRATEGIES

NAME = "attention_fwd_bf16_one_block"


def run_attention(select: str, schedule: str = "late"):
    return run_example(NAME, select, schedule)


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("select", STRATEGIES)
def test_attention_one_block_matches_numpy_race_free(select, schedule):
    _, problem, inputs, sim = run_attention(select, schedule)
    assert_matches(problem, inputs, sim)


def test_strategies_agree_bit_for_bit():
    outputs = [run_attention(select)[3].outputs["O"] for select in STRATEGIES]
    assert np.array_equal(outputs[0].view(np.uint32), outputs[1].view(np.uint32))


def test_the_bound_sees_the_scale_and_the_row_sums():
    """References with the wrong scale (1/sqrt(d) left out) or another row's sum are
    outside the bound."""
    _, problem, inputs, sim = run_attention(STRATEGIES[0])
    spec = problem.reference.__globals__
    q, k, v = (inputs[n].astype(np.float64) for n in ("Q", "K", "V"))
    s = q @ k.T
    unscaled = np.exp(s - s.max(axis=1, keepdims=True))
    wrong = spec["bf16_round"](unscaled) @ v / unscaled.sum(axis=1, keepdims=True)
    assert not problem.tolerance("O", sim.outputs["O"], wrong, inputs)[0]
    p = np.exp((s - s.max(axis=1, keepdims=True)) / 8.0)
    wrong = spec["bf16_round"](p) @ v / p.sum(axis=1, keepdims=True)[::-1]
    assert not problem.tolerance("O", sim.outputs["O"], wrong, inputs)[0]


def test_rows_are_reduced_in_registers():
    """The reduction runs in each thread on the row it holds: no shuffle, max.f32 and
    add.f32 over the 64 loaded registers."""
    result, *_ = run_attention(STRATEGIES[0])
    assert "shfl" not in result.ptx
    assert result.ptx.count("max.f32") >= 63
    assert result.ptx.count("ex2.approx") >= 64


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
@pytest.mark.parametrize("select", STRATEGIES)
def test_ptxas_no_spills(select, tmp_path):
    result, *_ = run_attention(select)
    ptx = tmp_path / "k.ptx"
    ptx.write_text(result.ptx)
    out = subprocess.run([find_ptxas(), "-arch=sm_100a", "-v", str(ptx), "-o",
                          str(tmp_path / "k.cubin")], capture_output=True, text=True,
                         check=True).stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in out, out
