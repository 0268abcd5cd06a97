"""Issue 18: in a CTA pair, each CTA's fills and epilogue move the slice of the pair's
operands and result that the MMA gives that CTA.

The split, written by hand from the ISA and tmem-facts section 1 (docs/cta-pairs.md):
- Layout A (M = 256, 9.7.16.10.5.1): the CTA of rank r (%cluster_ctarank & 1) holds rows
  128 r .. 128 r + 127 of D; its A tile is rows 128 r .. of A, its B tile columns
  N/2 r .. N/2 r + N/2 - 1 of B ("B ... in Shared Memory of the current CTA and
  optionally in peer CTA", 9.7.16.10: each CTA holds N/2 of the N columns).
- Layout B (M = 128, dense, 9.7.16.10.5.2): rank r holds rows 64 r .. 64 r + 63 of D (all
  N columns, folded onto two lane halves); A rows 64 r .., B columns N/2 r .. .

The sets of global elements come from the lowering's own address arithmetic: both pair
examples are compiled to PTX and run in the simulator (which executes every address
computation of every thread of both CTAs), and every global load and store is recorded
with the rank of the thread that made it. Then the pair's C is checked against NumPy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.sim import api, ops_memory, ops_memory_warp

ROOT = Path(__file__).resolve().parent.parent

# example -> (rows of A and C per CTA, columns of B per CTA); N = 128, K = 64 in both.
SPLITS = {"gemm_bf16_pair_m256": (128, 64), "gemm_bf16_pair_m128": (64, 64)}
N, K = 128, 64


def expected(rank: int, rows: int, columns: int) -> dict[str, set]:
    """The ISA's split, by hand: (row, column) elements of A (M x K), B (K x N) and C
    (M x N) that the CTA of `rank` reads (A, B) and writes (C)."""
    own_rows = range(rows * rank, rows * rank + rows)
    own_columns = range(columns * rank, columns * rank + columns)
    return {"A": {(m, k) for m in own_rows for k in range(K)},
            "B": {(k, n) for k in range(K) for n in own_columns},
            "C": {(m, n) for m in own_rows for n in range(N)}}


def _record(monkeypatch, accesses: list):
    """Wraps the simulator's global load and store to note (rank, address, bytes)."""
    real_load, real_store = ops_memory.load, ops_memory.store

    def note(m, space, act, addr, nbytes, vec, kind):
        if space != "global":
            return
        ranks = m.rank[m.threads_of(act)]
        for rank, a in zip(ranks.reshape(-1), np.asarray(addr, np.uint64).reshape(-1)):
            accesses.append((kind, int(rank), int(a), nbytes * vec))

    def load(m, space, act, addr, nbytes, vec, ins):
        note(m, space, act, addr, nbytes, vec, "load")
        return real_load(m, space, act, addr, nbytes, vec, ins)

    def store(m, space, act, addr, nbytes, vec, values, ins):
        note(m, space, act, addr, nbytes, vec, "store")
        return real_store(m, space, act, addr, nbytes, vec, values, ins)

    monkeypatch.setattr(ops_memory, "load", load)
    monkeypatch.setattr(ops_memory, "store", store)
    # Every access through the two functions above: the one-warp form of ld / st
    # (sim/ops_memory_warp.py) moves the same bytes without them, and is left out here
    # (tests/test_sim_memory_warp.py checks that it does what the general code does).
    monkeypatch.setattr(ops_memory_warp, "load_maker", lambda *args: None)
    monkeypatch.setattr(ops_memory_warp, "store_maker", lambda *args: None)


@pytest.mark.parametrize("example", sorted(SPLITS))
def test_each_cta_moves_its_slice(example, monkeypatch):
    path = ROOT / "examples" / f"{example}.mlir"
    ptx, manifest, problem, inputs = prepare(str(path), str(path.with_suffix(".check.py")), 0)
    args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    accesses: list = []
    _record(monkeypatch, accesses)
    result = api.simulate(ptx, manifest, args)
    assert result.ok, (result.races, result.problems)

    arrays = {name: args[name] for name in ("A", "B", "C")}
    found = {(kind, rank, name): set() for kind in ("load", "store") for rank in (0, 1)
             for name in arrays}
    for kind, rank, address, size in accesses:
        name, offset = _locate(address, arrays)
        element = arrays[name].itemsize
        columns = arrays[name].shape[1]
        for byte in range(offset, offset + size, element):
            found[(kind, rank, name)].add(divmod(byte // element, columns))
    rows, columns = SPLITS[example]
    for rank in (0, 1):
        want = expected(rank, rows, columns)
        assert found[("load", rank, "A")] == want["A"], rank
        assert found[("load", rank, "B")] == want["B"], rank
        assert found[("store", rank, "C")] == want["C"], rank
        assert not found[("store", rank, "A")] and not found[("store", rank, "B")]
        assert not found[("load", rank, "C")]

    # And the pair's product is right (the reference file's bound).
    for name, want in problem.reference(inputs).items():
        ok, max_abs, _, bound = problem.tolerance(name, result.outputs[name], want, inputs)
        assert ok, f"{name}: max abs error {max_abs} ({bound})"


def _locate(address: int, arrays: dict) -> tuple[str, int]:
    """(argument name, byte offset) of a global address, from the base address the
    simulator gave each bound array (noted by _remember_bases)."""
    for name, array in arrays.items():
        base = _BASES.get(id(array))
        if base is not None and base <= address < base + array.nbytes:
            return name, address - base
    raise AssertionError(f"address {address:#x} is in no argument")


_BASES: dict = {}


@pytest.fixture(autouse=True)
def _remember_bases(monkeypatch):
    """Notes the base address the simulator gives each bound array."""
    from tcgen05_lower.sim import executor

    real_init = executor.Buffer.__init__

    def init(self, name, base, data, raw):
        real_init(self, name, base, data, raw)
        _BASES[id(data)] = base

    monkeypatch.setattr(executor.Buffer, "__init__", init)
    _BASES.clear()


# ---------------------------------------------------------------- commit masks (issue 21)

PAIR_PLAIN_COMMIT = """
!acc = !tcgen05.tmem<[256, 32], f32>
!a = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!b = !tcgen05.smem<[16, 64], bf16, "K", "128B">
!src = !tcgen05.smem<[128, 32], i8, "K", "none">
!fr = !tcgen05.frag<[256, 32], f32>
func.func @pair_plain_commit(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !a
  %b = "tcgen05.smem_buffer"() : () -> !b
  %src = "tcgen05.smem_buffer"() : () -> !src
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !a, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !b, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  "tcgen05.cp"(%d, %src) {shape = "128x256b"} : (!acc, !src) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!acc, !a, !b, i1) -> ()
  %f = "tcgen05.ld"(%d, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%f, %C, %c0) {ld = 32 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
"""
def _pair_inputs():
    import ml_dtypes

    rng = np.random.default_rng(7)
    return {"A": rng.standard_normal((256, 64)).astype(ml_dtypes.bfloat16),
            "B": rng.standard_normal((32, 64)).astype(ml_dtypes.bfloat16),
            "C": np.zeros((256, 32), np.float32)}


def _planned_and_lowered(text: str):
    from tcgen05_lower.driver import compile_source
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE

    planned = compile_source(text, "pair.mlir", arch="sm_100a", emit="mlir").mlir
    lower = DEFAULT_PIPELINE[DEFAULT_PIPELINE.index("tcgen05-lower-to-llvm"):]
    return planned, lambda mlir: compile_source(mlir, "planned.mlir", arch="sm_100a",
                                                pipeline=lower)


@pytest.mark.parametrize("schedule", ("late", "eager"))
def test_plain_commit_for_a_consumer_in_the_issuing_cta_runs_race_free(schedule):
    """The commit whose only consumer is the tcgen05.cp (issued in the even CTA) is the
    plain one, and the wait on it runs in the even CTA only; the simulator (whose commit
    and mbarrier semantics come from 9.7.16.12.1: a plain commit arrives at the issuing
    CTA's mbarrier, a multicast one at each CTA of its ctaMask) runs it race-free and
    without deadlock, and the odd CTA's load is ordered by the second commit (mask 0b11)."""
    from tcgen05_lower.driver import compile_source

    result = compile_source(PAIR_PLAIN_COMMIT, "pair.mlir", arch="sm_100a")
    commits = [line.strip() for line in result.ptx.splitlines() if "tcgen05.commit" in line]
    assert len(commits) == 2
    assert "multicast" not in commits[0] and ".multicast::cluster" in commits[1]
    sim = api.simulate(result.ptx, result.manifest, _pair_inputs(), schedule=schedule)
    assert not sim.races, sim.races
    assert not sim.problems, sim.problems


def test_plain_commit_before_a_load_of_both_ctas_races_in_the_odd_cta():
    """The same kernel with the second commit made plain by hand: tcgen05-verify-sync
    rejects it, and lowered anyway the simulator finds the odd CTA's load racing the MMA
    (an independent check that the mask matters)."""
    from tcgen05_lower.driver import CompileFailed, compile_source

    planned, lower = _planned_and_lowered(PAIR_PLAIN_COMMIT)
    bad = planned.replace("{multicast_mask = 3 : i64, reason", "{reason")
    assert bad != planned
    with pytest.raises(CompileFailed, match="the odd CTA never waits for it"):
        compile_source(bad, "planned.mlir", arch="sm_100a")
    lowered = lower(bad)
    # Printed, the planned kernel names its parameters %arg0.. (in the order A, B, C).
    inputs = {f"arg{i}": v for i, v in enumerate(_pair_inputs().values())}
    sim = api.simulate(lowered.ptx, lowered.manifest, inputs)
    assert any("TMEM of CTA 1" in str(race) for race in sim.races), sim.races
