"""Issue 16: per-row reductions (tcgen05.frag_reduce, tcgen05.frag_broadcast), the
attention example over one KV block (plain softmax), P through tensor memory, and the one
over several KV blocks with online softmax (per-row maps of the running max and sum,
carried by the loop or kept in tensor memory).

Expected values: NumPy (the .check.py reference, which states its bound) through the
simulator, which imports nothing of the compiler; spills: ptxas."""

import subprocess
from pathlib import Path

import numpy as np
import runpy

import pytest

from tcgen05_lower.backend import find_ptxas
from sim_checks import EXAMPLES, assert_matches, run, run_example
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
    spec = runpy.run_path(str(EXAMPLES / f"{NAME}.check.py"))
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


# ------------------------------------------------------------------ several KV blocks
# examples/attention_fwd_bf16.mlir: online softmax over 4 blocks of 64 keys (an scf.for
# carrying the running max and sum as per-row iteration arguments), O rescaled in tensor
# memory; tests/kernels/attention_stats_in_tmem.mlir: the same with the running max and
# sum kept in a two-column TMEM buffer between blocks.

ONLINE = "attention_fwd_bf16"
ONLINE_CHECK = EXAMPLES / f"{ONLINE}.check.py"
STATS_IN_TMEM = Path(__file__).resolve().parent / "kernels" / "attention_stats_in_tmem.mlir"
#: register-budget=32 (the default), max-width, and register-budget=16 (the O loads of
#: the rescale and the epilogue in 16-column messages).
ONLINE_STRATEGIES = STRATEGIES + ["strategy=register-budget=16"]


def run_online(select: str, schedule: str = "late"):
    return run_example(ONLINE, select, schedule)


_STATS_RUNS: dict = {}


def run_stats_in_tmem(select: str, schedule: str = "late"):
    key = (select, schedule)
    if key not in _STATS_RUNS:
        _STATS_RUNS[key] = run(STATS_IN_TMEM.read_text(), STATS_IN_TMEM.stem, ONLINE_CHECK,
                               select, schedule)
    return _STATS_RUNS[key]


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("select", ONLINE_STRATEGIES)
def test_online_attention_matches_numpy_race_free(select, schedule):
    _, problem, inputs, sim = run_online(select, schedule)
    assert_matches(problem, inputs, sim)


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_stats_in_tmem_matches_numpy_race_free(schedule):
    """Race-free and right; the one thing reported is what the kernel's comment says it
    does: at the first block, the two one-column loads of ML (m_old, l_old) read TMEM no
    operation wrote yet (values it then never uses): ML is the fourth buffer, at column
    64 (S) + 32 (P, bf16 packed) + 64 (O) = 160; its 2 columns of 128 lanes."""
    from dataclasses import replace

    _, problem, inputs, sim = run_stats_in_tmem(STRATEGIES[0], schedule)
    unwritten = [p for p in sim.problems if "no tcgen05 operation wrote" in p]
    assert len(unwritten) == 2, sim.problems
    assert "lanes 0-127, columns 160-160 (128 cells)" in unwritten[0]
    assert "lanes 0-127, columns 161-161 (128 cells)" in unwritten[1]
    assert_matches(problem, inputs, replace(sim, problems=[
        p for p in sim.problems if p not in unwritten]))


def test_online_strategies_and_the_stats_in_tmem_agree_bit_for_bit():
    """Every strategy, and the running max and sum through TMEM instead of the loop's
    registers: the same f32 operations in the same order."""
    outputs = [run_online(select)[3].outputs["O"] for select in ONLINE_STRATEGIES]
    outputs.append(run_stats_in_tmem(STRATEGIES[0])[3].outputs["O"])
    for other in outputs[1:]:
        assert np.array_equal(outputs[0].view(np.uint32), other.view(np.uint32))


def test_online_output_is_softmax_attention():
    """Independently of the recurrence the check file follows: the output is within the
    same bound of plain float64 softmax(Q K^T / 8) V (nothing rounded; the bf16 rounding
    of P is inside the bound's 2^-8 (p |V|) / l), and the keys of every block count:
    attention over the first block alone, or without the rescale by alpha, is outside."""
    _, problem, inputs, sim = run_online(ONLINE_STRATEGIES[0])
    spec = runpy.run_path(str(ONLINE_CHECK))
    got = sim.outputs["O"]
    assert problem.tolerance("O", got, spec["reference_plain"](inputs), inputs)[0]
    q, k, v = (inputs[n].astype(np.float64) for n in ("Q", "K", "V"))
    s = q @ k.T
    first = np.exp((s[:, :64] - s[:, :64].max(axis=1, keepdims=True)) / 8.0)
    wrong = first @ v[:64] / first.sum(axis=1, keepdims=True)
    assert not problem.tolerance("O", got, wrong, inputs)[0]
    # No rescale: every block's p relative to its own block max, summed as they are.
    o, l = 0.0, 0.0
    for j in range(0, 256, 64):
        p = np.exp((s[:, j:j + 64] - s[:, j:j + 64].max(axis=1, keepdims=True)) / 8.0)
        o, l = o + spec["bf16_round"](p) @ v[j:j + 64], l + p.sum(axis=1, keepdims=True)
    assert not problem.tolerance("O", got, o / l, inputs)[0]


def test_online_statistics_stay_in_registers():
    """The running max and sum are loop-carried registers: no one-column TMEM message, no
    shuffle; per block a max.f32 chain over each thread's 64 loaded registers plus one
    for the running max."""
    result, *_ = run_online(ONLINE_STRATEGIES[0])
    assert "shfl" not in result.ptx
    assert ".32x32b.x1." not in result.ptx
    assert result.ptx.count("max.f32") >= 63 + 1


def test_stats_in_tmem_use_one_column_messages():
    result, *_ = run_stats_in_tmem(STRATEGIES[0])
    assert "tcgen05.st.sync.aligned.32x32b.x1.b32" in result.ptx
    assert "tcgen05.ld.sync.aligned.32x32b.x1.b32" in result.ptx


def _spills(ptx_text: str, tmp_path) -> str:
    ptx = tmp_path / "k.ptx"
    ptx.write_text(ptx_text)
    return subprocess.run([find_ptxas(), "-arch=sm_100a", "-v", str(ptx), "-o",
                           str(tmp_path / "k.cubin")], capture_output=True, text=True,
                          check=True).stderr


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
@pytest.mark.parametrize("select", ONLINE_STRATEGIES)
def test_online_ptxas_no_spills(select, tmp_path):
    out = _spills(run_online(select)[0].ptx, tmp_path)
    assert "0 bytes spill stores, 0 bytes spill loads" in out, out


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_stats_in_tmem_ptxas_no_spills(tmp_path):
    out = _spills(run_stats_in_tmem(STRATEGIES[0])[0].ptx, tmp_path)
    assert "0 bytes spill stores, 0 bytes spill loads" in out, out
