"""Issue 39: examples/ws_attention_fwd_bf16.mlir, warp-specialized forward attention
(load warp with a TMA ring, MMA warp, softmax warpgroups that also correct O in tensor
memory, P stored from registers as the A operand of P V), which writes no
synchronization: tcgen05-insert-sync{strategy=handoffs} writes it all (the TMA loads',
tcgen05_lower/synchronization/pipelined_loads.py, and the handoffs of S, P and O between
the roles, role_handoffs.py). The generator's other forms write the handoffs by hand
(one query tile, whose S and P are 2-stage TMEM rings, compiled with strategy=loads) or
everything by hand (strategy=none).

Expected values: examples/ws_attention_fwd_bf16.check.py, the online-softmax recurrence
in float64 with P rounded to bf16 (and the plain float64 softmax attention for a second,
looser bound), NumPy only; the simulator imports nothing of the compiler. The variants
(head dimension 128, one query tile, a constant number of blocks) come from
tests/kernels/ws_attention_gen.py, whose generate(64, 2, planned_loads=True,
rescale="conditional", planned_handoffs=True, p_over_s=True) is the example itself (P_t
written over S_t's columns, a TMEM alias).

What checks the synchronization: tcgen05-verify-sync, which runs the roles as concurrent
programs for every block count up to the phase period of the mbarriers
(sync_check/runtime_bounds.py; it rejects the deletion of every synchronization op,
written or inserted), and the simulator, race-free under both schedules."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import EXAMPLES, example_pipeline
from sim_checks import assert_matches, judge, run, sync_lines
from test_sync_common import deletion_mutants, plan, verify
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE, LOWERING, override_options

sys.path.insert(0, str(Path(__file__).parent / "kernels"))
from ws_attention_gen import THRESHOLD, generate  # noqa: E402

NAME = "ws_attention_fwd_bf16"
CHECK = EXAMPLES / f"{NAME}.check.py"
SELECT = "strategy=register-budget=32"


#: The name whose pass options (conftest.EXAMPLE_PASS_OPTIONS) compile the generator's
#: one-tile form: its handoffs written by hand, its TMA loads' synchronization
#: insert-sync's (strategy=loads).
LOADS_NAME = f"{NAME}_loads"


def example(d: int = 64, tiles: int = 2, blocks: int | None = None,
            rescale: str = "conditional", threshold: float = THRESHOLD,
            p_over_s: bool = True) -> str:
    """The example's form of the variant (conditional rescaling, P_t written over S_t's
    columns, its TMA loads and, with two tiles, its handoffs planned by insert-sync)."""
    return generate(d, tiles, blocks, planned_loads=True, rescale=rescale,
                    threshold=threshold, planned_handoffs=tiles == 2, p_over_s=p_over_s)


def name_of(tiles: int) -> str:
    """The name whose pass options compile `example(d, tiles)`: strategy=handoffs for two
    tiles, strategy=loads for one (module docstring)."""
    return NAME if tiles == 2 else LOADS_NAME


def hand_p_over_s(d: int = 64, tiles: int = 2, blocks: int | None = None,
                  rescale: str = "conditional", threshold: float = THRESHOLD,
                  p_over_s: bool = True) -> str:
    """The form with P_t written over S_t's columns (p_over_s) and its handoffs written
    by hand (its TMA loads planned by insert-sync, conditional rescaling), compiled with
    LOADS_NAME's options."""
    return generate(d, tiles, blocks, planned_loads=True, rescale=rescale,
                    threshold=threshold, p_over_s=p_over_s)


def check_file(tmp_path, *, d: int = 64, tiles: int = 2, length: int = 1000,
               causal: int = 0) -> Path:
    """The example's check file for another head dimension, tile count or L."""
    text = CHECK.read_text()
    text = re.sub(r"^HEAD_DIM = \d+$", f"HEAD_DIM = {d}", text, flags=re.M)
    text = re.sub(r"^TILES = \d+$", f"TILES = {tiles}", text, flags=re.M)
    text = re.sub(r"^SCALARS = .*$", f'SCALARS = {{"L": {length}, "causal": {causal}}}',
                  text, flags=re.M)
    path = tmp_path / f"{NAME}.check.py"
    path.write_text(text)
    return path


def test_the_example_is_the_generators():
    assert (EXAMPLES / f"{NAME}.mlir").read_text() == example(64, 2)


#: A threshold low enough that the warps' votes go both ways on the check's inputs: at
#: L = 200 (4 blocks, 8 warps), 16 of the 24 (warp, block >= 1) rescale, by NumPy on the
#: float64 scores (at the default threshold, 8, none does after block 0: |S| / 8 <= 8).
LOW = 0.25


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("d, tiles, causal, rescale, threshold", [
    (64, 2, 0, "conditional", THRESHOLD), (64, 2, 1, "conditional", LOW),
    (64, 2, 0, "always", THRESHOLD), (64, 1, 0, "always", THRESHOLD),
    (128, 2, 1, "conditional", LOW), (128, 1, 0, "conditional", THRESHOLD)])
def test_matches_float64_attention_race_free(d, tiles, causal, rescale, threshold, schedule,
                                             tmp_path):
    """L = 200: three full KV blocks and one of 8 keys (masked past L); causal: the
    query tiles' own blocks only. O corrected at every block, or where a warp votes for
    it (never after block 0 at the default threshold on these inputs, in some warps and
    blocks at LOW)."""
    check = check_file(tmp_path, d=d, tiles=tiles, length=200, causal=causal)
    _, problem, inputs, sim = run(example(d, tiles, rescale=rescale, threshold=threshold),
                                  name_of(tiles), check, SELECT, schedule)
    assert_matches(problem, inputs, sim)
    # The second bound of examples/attention_fwd_bf16.check.py: against softmax
    # attention in float64 with nothing rounded, 2^-6 (p |V|) / l covers the bf16
    # rounding of P (2^-9 relative per element) and the f32 errors.
    plain = problem.check_file.get("reference_plain")(inputs)
    bound = 2.0 * problem.check_file.get("bound")("O", inputs)[0]
    assert np.all(np.abs(sim.outputs["O"] - plain) <= bound)


@pytest.mark.slow
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [0, 1])
def test_sequence_length_1000(d, causal, tmp_path):
    """L = 1000: 15 full KV blocks and one of 40 keys (5-70 s each); race-free and within
    the bound under the eager and a random schedule (seed 0) too, nothing left at exit
    (judge; the protocol strategy=handoffs writes)."""
    check = check_file(tmp_path, d=d, length=1000, causal=causal)
    result, problem, inputs, sim = run(example(d, 2), NAME, check, SELECT)
    assert_matches(problem, inputs, sim)
    assert judge(result, check, "eager") is None
    assert judge(result, check, "random", seed=0) is None


def _verified_pipeline() -> str:
    return override_options(DEFAULT_PIPELINE, ["tcgen05-insert-sync{strategy=none}"])


@pytest.mark.parametrize("d, tiles, blocks", [(64, 1, None), (128, 2, None), (64, 2, 3)])
def test_verify_sync_accepts_the_protocol(d, tiles, blocks):
    """verify-sync checks the roles as concurrent programs (docs/partitions.md), with the
    run-time block count or a constant one, and accepts them: written all by hand, with
    the TMA loads' part inserted (strategy=loads), and (two tiles) all inserted
    (strategy=handoffs)."""
    compile_source(generate(d, tiles, blocks=blocks), f"{NAME}.mlir", emit="mlir",
                   pipeline=_verified_pipeline())
    compile_source(generate(d, tiles, blocks=blocks, planned_loads=True), f"{NAME}.mlir",
                   emit="mlir", pipeline=example_pipeline(LOADS_NAME))
    compile_source(example(d, tiles, blocks=blocks), f"{NAME}.mlir", emit="mlir",
                   pipeline=example_pipeline(name_of(tiles)))


@pytest.mark.slow
@pytest.mark.parametrize("planned", [False, True, "p_over_s", "correction"],
                         ids=["hand", "loads", "p_over_s", "correction"])
def test_deleting_any_synchronization_op_is_caught(planned, tmp_path):
    """Each synchronization op written in the kernel deleted in turn (all of them by hand,
    or the handoffs of the forms whose TMA loads insert-sync plans: P and S apart, P over
    S, P over S with a correction warpgroup): verify-sync rejects the kernel, or the
    simulator (L = 150: three blocks, the last partial) reports a race, a deadlock, a
    problem at exit or a wrong O under the late or the eager schedule. (The example
    writes none: test_deleting_any_inserted_handoff_op_* delete what strategy=handoffs
    inserts.)"""
    text = correction_kernel() if planned == "correction" else \
        hand_p_over_s(64, 2) if planned == "p_over_s" else \
        generate(64, 2, planned_loads=True) if planned else generate(64, 2)
    pipeline = example_pipeline(LOADS_NAME) if planned else _verified_pipeline()
    lines = text.splitlines()
    check = check_file(tmp_path, length=150)
    unseen = []
    for index in sync_lines(text):
        mutant = "\n".join(line for k, line in enumerate(lines) if k != index)
        try:
            result = compile_source(mutant, f"{NAME}.mlir", pipeline=pipeline)
        except CompileFailed:
            continue  # verify-sync rejects it
        if judge(result, check, "late", first_race=True) is None and \
                judge(result, check, "eager", first_race=True) is None:
            unseen.append((index, lines[index].strip()))
    assert unseen == []


def _without_o_done_fence(tiles: int) -> str:
    """The kernel for `tiles` query tiles with the fence after softmax 0's wait on
    o_done0 in the loop deleted (present for one tile only: tests/kernels/ws_attention_gen.py,
    ``o_done_fence``)."""
    text = generate(64, tiles)
    lines = text.splitlines(keepends=True)
    wait = next(k for k, line in enumerate(lines) if "(%o_done0, %o_parity)" in line)
    if "after_thread_sync" not in lines[wait + 1]:
        return text
    return "".join(line for k, line in enumerate(lines) if k != wait + 1)


def test_the_fence_after_o_done_is_needed_with_one_tile_only(tmp_path):
    """Ping-pong emits no tcgen05.fence::after_thread_sync after the wait on o_done_t in
    the loop: the MMA commits S_t of block j after P_t V_(j-1), the commit tracks every
    prior tcgen05 op of its thread (9.7.16.12.1), and the fence after the wait on s_full_t
    orders the softmax's later loads and stores after both (9.7.16.6.3); verify-sync
    accepts it (test_verify_sync_accepts_the_protocol). With one tile the MMA commits S_t
    of block j before P_t V_(j-1): without that fence the load of O_t in the correction
    is not ordered after the product writing it (9.7.16.6.4.4), which verify-sync and the
    simulator both report (hand derivation from the MMA's issue order)."""
    assert _without_o_done_fence(2) == generate(64, 2)
    mutant = _without_o_done_fence(1)
    assert mutant != generate(64, 1)
    with pytest.raises(CompileFailed, match=r"tcgen05\.ld in role 'softmax0' reads TMEM "
                       r"columns .* missing tcgen05.fence::after_thread_sync"):
        compile_source(mutant, f"{NAME}.mlir", pipeline=_verified_pipeline())
    unchecked = _verified_pipeline().replace("tcgen05-verify-sync,", "")
    result = compile_source(mutant, f"{NAME}.mlir", pipeline=unchecked)
    verdict = judge(result, check_file(tmp_path, tiles=1, length=150), "eager")
    assert verdict is not None and verdict.startswith("race:") and \
        "tcgen05.ld and tcgen05.mma" in verdict, verdict


def test_the_example_compiles_with_its_pass_options():
    """conftest.EXAMPLE_PASS_OPTIONS: strategy=handoffs (insert-sync writes the whole
    protocol, verify-sync checks the roles)."""
    result = compile_source((EXAMPLES / f"{NAME}.mlir").read_text(), f"{NAME}.mlir",
                            pipeline=example_pipeline(NAME))
    assert result.ptx.count("tcgen05.st.sync.aligned.32x32b.x32.b32") >= 2


@pytest.mark.parametrize("d, tiles, rescale", [(128, 2, "conditional"), (64, 1, "always")])
def test_the_python_twin_builds_the_variants(d, tiles, rescale):
    """examples/python/ws_attention_fwd_bf16.py takes the generator's parameters and
    compiles to the same PTX (tests/test_builder_twins.py checks the defaults)."""
    import importlib.util
    path = EXAMPLES / "python" / f"{NAME}.py"
    spec = importlib.util.spec_from_file_location("ws_attention_twin", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pipeline = example_pipeline(name_of(tiles))
    expected = compile_source(example(d, tiles, rescale=rescale), f"{NAME}.mlir",
                              arch="sm_100a", pipeline=pipeline).ptx
    assert module.build(d=d, tiles=tiles, rescale=rescale).compile(
        arch="sm_100a", pipeline=pipeline).ptx == expected


@pytest.fixture(scope="module")
def example_64_2():
    """The example's kernel for d = 64, 2 query tiles, compiled once for the seeds."""
    return compile_source(example(64, 2), f"{NAME}.mlir", pipeline=example_pipeline(NAME))


@pytest.mark.parametrize("seed", [0, 1])
def test_random_schedules(seed, example_64_2, tmp_path):
    """Random interleavings of the roles (tcgen05-sim --schedule random): race-free and
    within the bound (L = 200)."""
    assert judge(example_64_2, check_file(tmp_path, length=200), "random", seed=seed) is None


# -- the TMA loads' synchronization, inserted (strategy=loads) ----------------------------

#: The ops insert-sync writes for the example's loads, counted by hand from
#: synchronization/pipelined_loads.py's table: once_full's expect_tx and the MMA role's
#: wait before the first S (2); per K/V block the load role's wait on empty_s and
#: expect_tx on full_s (2), the MMA role's wait on full_s before the S of the block (in
#: the prologue and in the loop: 2) and its commit to empty_s after the last P V of the
#: block (in the loop and after it: 2); the producer tail, a wait per stage (2).
INSERTED = {"mbarrier_expect_tx": 2, "mbarrier_wait": 6, "commit": 2, "total": 10}
#: What the printed planned kernel calls %arg0 .. %arg8, in order (%arg9 on: loop
#: counters).
PARAMETERS = ("Q", "K", "V", "O", "L", "causal", "tmQ", "tmK", "tmV")


def _planned(tmp_path, d: int = 64, tiles: int = 2, strategy: str = "loads",
             p_over_s: bool = True):
    """The kernel after insert-sync: strategy=loads on the form whose handoffs are
    written by hand, strategy=handoffs on the example's (P over S, or apart)."""
    source = tmp_path / f"{NAME}.mlir"
    source.write_text(example(d, tiles, p_over_s=p_over_s) if strategy == "handoffs" else
                      generate(d, tiles, planned_loads=True, rescale="conditional"))
    return plan(source, strategy)


@pytest.mark.parametrize("d, tiles", [(64, 2), (128, 1)])
def test_insert_sync_writes_the_loads_protocol(d, tiles, tmp_path):
    """The same 10 ops for head dimension 128 (two K and two V boxes per block: the
    expect_tx counts 4 x 8192 bytes; Q 2 x 16384 per tile) and one query tile (the MMA
    reads K of block j + 1 before V of block j in its loop, the same first and last
    readers)."""
    planned = _planned(tmp_path, d, tiles)
    assert {k: v for k, v in planned.counts[NAME].items() if v} == INSERTED
    ring_bytes, q_bytes = 4 * 64 * 64 * d // 64, 2 * 128 * d * tiles
    assert f"bytes = {ring_bytes} : i64" in planned.text
    assert f"bytes = {q_bytes} : i64" in planned.text
    assert verify(planned.text, planned.source_name) == []


def test_deleting_any_inserted_op_is_rejected_by_verify_sync(tmp_path):
    """Each of the 10 inserted ops deleted in turn: verify-sync names an unordered pair,
    a wait that never returns, a complete_tx with no expect_tx or a commit in flight at
    exit."""
    planned = _planned(tmp_path)
    accepted = [description for description, text in
                deletion_mutants(planned.text, planned.source_name)
                if not verify(text, planned.source_name)]
    assert accepted == []


def _unseen_by_the_simulator(planned, tmp_path, first_race: bool = False) -> list:
    """The deletion mutants of `planned` (compiled without verify-sync's check of the
    roles) that the simulator does not reject at L = 150 under the late or the eager
    schedule; `first_race` stops a run at its first race (a verdict needs one)."""
    check = check_file(tmp_path, length=150)
    after = ",".join(("tcgen05-verify-sync{partitions=skip}",) + LOWERING)
    unseen = []
    for description, text in deletion_mutants(planned.text, planned.source_name):
        text = re.sub(r"%arg(\d)\b", lambda m: "%" + PARAMETERS[int(m.group(1))]
                      if int(m.group(1)) < len(PARAMETERS) else m.group(0), text)
        try:
            result = compile_source(text, f"{NAME}.mlir", pipeline=after)
        except CompileFailed:
            continue
        if all(judge(result, check, schedule, first_race=first_race) is None
               for schedule in ("late", "eager")):
            unseen.append(description)
    return unseen


@pytest.mark.slow
def test_deleting_any_inserted_op_is_caught_by_the_simulator(tmp_path):
    """The same mutants compiled without verify-sync's check of the roles: the simulator
    (L = 150) reports a race, a deadlock, an mbarrier error, a problem at exit or a wrong
    O under the late or the eager schedule."""
    assert _unseen_by_the_simulator(_planned(tmp_path), tmp_path, first_race=True) == []


@pytest.mark.parametrize("case, races", [(0, False), (1, True)])
def test_the_later_commit_kernels_in_the_simulator(case, races):
    """The two kernels of lit_tests/tcgen05-verify-sync/roles-later-commit.mlir compiled
    without verify-sync's check of the roles and run: the load of O after a wait with no
    fence of its own is ordered when the commit waited on with the fence follows O's MMA
    (9.7.16.12.1, 9.7.16.6.3), and races with it when that commit precedes the MMA
    (9.7.16.6.4.4), under both schedules (the verdicts verify-sync gives there)."""
    from tcgen05_lower.sim.api import simulate

    path = Path(__file__).parent.parent / "lit_tests" / "tcgen05-verify-sync" / \
        "roles-later-commit.mlir"
    text = path.read_text().split("// -----")[case]
    text = "\n".join(line for line in text.splitlines() if "expected-error" not in line)
    pipeline = override_options(DEFAULT_PIPELINE, ["tcgen05-insert-sync{strategy=none}",
                                                   "tcgen05-verify-sync{partitions=skip}"])
    result = compile_source(text, path.name, pipeline=pipeline)
    inputs = {"A": np.zeros(128 * 64, np.uint16), "C": np.zeros(128 * 64, np.float32)}
    for schedule in ("late", "eager"):
        found = simulate(result.ptx, result.manifest, dict(inputs), schedule=schedule).races
        assert bool(found) == races, found
        if races:
            assert "tcgen05.ld and tcgen05.mma" in str(found[0])


# -- the whole protocol, inserted (strategy=handoffs) -------------------------------------

#: The handoff ops the hand-written form writes (the form whose TMA loads strategy=loads
#: plans; counted in its text by sync_lines): per tile, the MMA role's commit to s_full
#: before its loop, its wait on p_full + fence, commits to o_done and s_full in the loop,
#: wait + fence + commit after it (8); softmax t's wait on s_full + fence, wait on
#: o_done, wait::ld in the correction, wait::ld, wait::st, fence::before and arrival on
#: p_full in its loop, wait on o_done + fence, wait::ld + fence::before after it (12);
#: the fence after the partitions op (1): 2 x 20 + 1.
HAND_HANDOFFS = 41
#: The same with P_t over S_t (hand_p_over_s): per tile the MMA's wait on o_done + fence
#: before S_t is written over P_t and softmax t's wait::ld before its store of P_t over
#: S_t come in, its wait on o_done in the loop goes (P_OVER_S_HEADER): 41 + 2 x 2.
HAND_P_OVER_S_HANDOFFS = 45


def inserted_handoffs(halves: int, p_over_s: bool = True) -> dict:
    """The ops strategy=handoffs writes for the example with `halves` 64-wide halves of
    O, counted by hand from role_handoffs.py's table: the 10 of the TMA loads
    (INSERTED) and per tile t (two) the MMA role's commit to the forward mbarrier after
    S_t before its loop, wait on the backward one + fence::after_thread_sync before
    P_t V_j and commit after S_t of block j + 1 in its loop, wait + fence + commit after
    it; softmax t's wait on the forward mbarrier + fence before its block, wait::ld
    before each store of O in the correction (one per half: the load of the same
    columns), wait::ld, wait::st, fence::before_thread_sync and arrival after its block,
    wait + fence before its epilogue, wait::ld + fence::before at its end; the fence
    after the partitions op. With P_t over S_t (`p_over_s`), per tile: the MMA's commit
    after P_t V_j and its wait + fence before S_t of block j + 1 (mma_hazards.py), and
    softmax t's wait::ld before its store of P_t over S_t (thread_order.py); its
    wait::ld before the arrival stays (it follows the correction's branch, whose
    wait::ld verify-sync wants repeated after it)."""
    per_tile = {"commit": 3, "mbarrier_wait": 4, "fence::after": 4, "wait::ld": 2 + halves,
                "wait::st": 1, "fence::before": 2, "mbarrier_arrive": 1}
    if p_over_s:
        for k in ("commit", "mbarrier_wait", "fence::after", "wait::ld"):
            per_tile[k] += 1
    counts = {k: 2 * v for k, v in per_tile.items()}
    counts["fence::after"] += 1
    for k, v in INSERTED.items():
        if k != "total":
            counts[k] = counts.get(k, 0) + v
    counts["total"] = sum(counts.values())
    return counts


def test_the_hand_written_forms_have_41_and_45_handoff_ops():
    """The counts the inserted protocol is compared with (HAND_HANDOFFS, P and S apart;
    HAND_P_OVER_S_HANDOFFS, P over S)."""
    assert len(sync_lines(generate(64, 2, planned_loads=True,
                                   rescale="conditional"))) == HAND_HANDOFFS
    assert len(sync_lines(hand_p_over_s(64, 2))) == HAND_P_OVER_S_HANDOFFS


@pytest.mark.parametrize("p_over_s", [True, False], ids=["p_over_s", "apart"])
@pytest.mark.parametrize("d", [64, 128])
def test_insert_sync_writes_the_whole_protocol(d, p_over_s, tmp_path):
    """strategy=handoffs on the example (no synchronization written). P and S apart: 47
    ops for head dimension 64 (37 of them handoffs, against the hand-written 41: one
    forward mbarrier per tile instead of s_full and o_done, since the commit after S_t
    of block j + 1 also tracks P_t V_j, 9.7.16.12.1), 49 for 128 (a wait::ld per half of
    O in the correction). P over S (the example): 55 and 57 (45 and 47 handoffs, against
    the hand-written 45 for 64), 2 more mbarriers (count 1: the MMA's own order of S_t
    after P_t V). 4 mbarriers of handoffs (count 1 and 128 per tile); verify-sync accepts
    the result."""
    planned = _planned(tmp_path, d, 2, "handoffs", p_over_s)
    counts = {k: v for k, v in planned.counts[NAME].items() if v}
    assert counts == inserted_handoffs(d // 64, p_over_s)
    assert counts["total"] - INSERTED["total"] == \
        (37 if d == 64 else 39) + (8 if p_over_s else 0)
    assert planned.text.count("count = 128 : i64") == 2
    # count 1: the TMA loads' once_full, full and empty (one op each), the forward
    # mbarrier per tile, and with P over S the MMA's own per tile.
    assert planned.text.count("count = 1 : i64") == 3 + 2 + (2 if p_over_s else 0)
    assert verify(planned.text, planned.source_name) == []


@pytest.mark.slow
def test_deleting_any_inserted_handoff_op_is_rejected_by_verify_sync(tmp_path):
    """Each of the 55 ops strategy=handoffs inserts deleted in turn: verify-sync rejects
    the kernel (an unordered pair, a wait that never returns, an arrival or commit
    missing, a load in flight at the join, a wait in a branch it cannot evaluate not
    repeated after it)."""
    planned = _planned(tmp_path, strategy="handoffs")
    mutants = list(deletion_mutants(planned.text, planned.source_name))
    assert len(mutants) == inserted_handoffs(1)["total"]
    accepted = [description for description, text in mutants
                if not verify(text, planned.source_name)]
    assert accepted == []


@pytest.mark.slow
def test_deleting_any_inserted_handoff_op_is_caught_by_the_simulator(tmp_path):
    """The same 55 mutants compiled without verify-sync's check of the roles: the
    simulator (L = 150) reports a race, a deadlock, an mbarrier error, a problem at exit
    or a wrong O under the late or the eager schedule (among them the MMA's commit, wait
    and fence before S_t is written over P_t, and softmax t's wait::ld before it stores
    P_t over S_t), for every one but four, which verify-sync rejects
    (test_deleting_any_inserted_handoff_op_is_rejected_by_verify_sync):
    - per tile, the wait::ld between a softmax thread's load of O and its store of the
      same columns in the correction (the stored values are computed from the loaded
      registers, and the simulator reports no anti-dependence there; the ISA asks for
      the wait all the same, 9.7.16.6.4.5: "to enforce such memory orderings and avoiding
      anti-dependency hazards around tcgen05.ld, tcgen05.wait::ld must be used");
    - per tile, the wait::ld before softmax t's arrival: on every path no load is in
      flight there (the correction's branch waits inside, the load of S_t was waited for
      before P_t's store), so nothing can go wrong without it; verify-sync, which traces
      the correction's branch as taken, wants the branch's wait::ld repeated right after
      it (sync_check/branches.py), and thread_order.py keeps it for that."""
    unseen = _unseen_by_the_simulator(_planned(tmp_path, strategy="handoffs"), tmp_path,
                                      first_race=True)
    unneeded = [line for t in range(2) for line in (
        f"tcgen05.wait::ld (tcgen05.st of O{t}_0 after this thread's tcgen05.ld of cells it "
        f"may share (9.7.16.6.4.2; a register dependence orders no memory access, "
        f"9.7.16.6.4.5))",
        f"tcgen05.wait::ld (the tcgen05.ld of 'softmax{t}''s turn on S{t}, O{t}_0 complete "
        f"before its arrival (9.7.16.6.4.4))")]
    assert unseen == unneeded


# -- P written over S's columns (a TMEM alias, tcgen05_lower/planning/aliases.py) ------------

def _plan(text: str, name: str = LOADS_NAME):
    """The TMEM plan tcgen05-plan-tmem made of the kernel `text` (compiled with the pass
    options of `name`)."""
    result = compile_source(text, f"{NAME}.mlir", emit="mlir", pipeline=example_pipeline(name))
    return next(r for r in result.pass_results if hasattr(r, "plans")).plans[0]


@pytest.mark.parametrize("d, tiles, before, after", [
    (64, 2, (320, 512), (256, 256)), (64, 1, (256, 256), (192, 256)),
    (128, 2, (448, 512), (384, 512))])
def test_p_over_s_takes_no_columns_of_its_own(d, tiles, before, after):
    """P_t on S_t's cells: the columns the plan needs (peak, allocation), by hand: per
    tile S_t 64 f32 columns per stage (2 stages with one tile), P_t (a [128, 64] bf16 A
    operand, two elements per 32-bit column, tmem-facts section 1) 32 per stage, O_t
    d columns; the roles run concurrently, so nothing shares columns; the allocation is
    the next power of two (9.7.16.7.1). With the alias P_t's 32 per stage are gone."""
    for p_over_s, (peak, allocation) in ((False, before), (True, after)):
        plan = _plan(hand_p_over_s(d, tiles, p_over_s=p_over_s))
        assert (plan.peak_columns, plan.allocation_columns) == (peak, allocation)
        names = {b.label for b in plan.buffers}
        assert ("%P0" in names) is not p_over_s


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("d, tiles", [(64, 1), (128, 1), (64, 2), (128, 2)])
def test_p_over_s_race_free(d, tiles, schedule, tmp_path):
    """One query tile, two stages of S (and of the P over them): S of block j + 1 goes to
    the stage P of block j - 1 lies on, after the MMA waited for that P V (phase j - 1 of
    o_done); two tiles (ping-pong), one stage each: S_t of block j + 1 over P_t of block
    j after that P V. Against the float64 recurrence (L = 200), race-free."""
    check = check_file(tmp_path, d=d, tiles=tiles, length=200)
    _, problem, inputs, sim = run(hand_p_over_s(d, tiles), LOADS_NAME, check, SELECT,
                                  schedule)
    assert_matches(problem, inputs, sim)


@pytest.mark.parametrize("tiles", [1, 2])
def test_p_over_s_waits_are_needed(tiles, tmp_path):
    """Each op the P-over-S form adds (the MMA's wait on o_done_t and its fence before S_t
    is written over P_t; the softmax's tcgen05.wait::ld before P_t is stored over the S_t
    it loaded) deleted in turn: verify-sync rejects the kernel (the rule: two MMAs of
    different accumulators are no pipelined pair, 9.7.16.6.2; a store over cells a load
    read needs wait::ld, 9.7.16.6.4.2). Without verify-sync's check of the roles, the
    simulator reports the MMA pair's race (L = 150, the eager schedule)."""
    text = hand_p_over_s(64, tiles)
    lines = text.splitlines()
    added = []
    for k, line in enumerate(lines):
        if "is written over P" in line:
            wait = next(i for i in range(k, k + 6) if "mbarrier_wait" in lines[i])
            added += [wait, wait + 1]
        elif "stored over the S just loaded" in line:
            added.append(k + 1)
    assert len(added) == 3 * tiles, added
    unchecked = example_pipeline(LOADS_NAME).replace("tcgen05-verify-sync",
                                               "tcgen05-verify-sync{partitions=skip}")
    check = check_file(tmp_path, tiles=tiles, length=150)
    for index in added:
        mutant = "\n".join(line for k, line in enumerate(lines) if k != index)
        with pytest.raises(CompileFailed, match="without ordering"):
            compile_source(mutant, f"{NAME}.mlir", pipeline=example_pipeline(LOADS_NAME))
        if "mbarrier_wait" in lines[index]:
            verdict = judge(compile_source(mutant, f"{NAME}.mlir", pipeline=unchecked),
                            check, "eager")
            assert verdict is not None and "tcgen05.mma and tcgen05.mma" in verdict, verdict


# -- a correction warpgroup (FlashAttention-4) ---------------------------------------------

def correction_kernel(d: int = 64, rescale: str = "conditional",
                      threshold: float = THRESHOLD) -> str:
    """The example with a correction warpgroup (warps 12-15) that rescales O in tensor
    memory and writes O / l, alpha and l handed over in TMEM (an alias on S's columns
    32-33) behind p_full and l_full, O handed back through o_ready."""
    return generate(d, 2, planned_loads=True, rescale=rescale, threshold=threshold,
                    p_over_s=True, correction=True)


@pytest.mark.parametrize("schedule", ["late", "eager"])
@pytest.mark.parametrize("d, causal, rescale, threshold", [
    (64, 0, "conditional", THRESHOLD), (64, 1, "conditional", LOW),
    (128, 0, "always", THRESHOLD), (128, 1, "conditional", LOW)])
def test_correction_warpgroup_matches_race_free(d, causal, rescale, threshold, schedule,
                                               tmp_path):
    """L = 200 against the float64 recurrence with P rounded to bf16 (the check file's
    bound), race-free; at LOW the warps' votes go both ways (test above), so the
    correction warpgroup's own vote (alpha != 1 in a row of the warp) rescales some
    warps and blocks and skips others."""
    check = check_file(tmp_path, d=d, length=200, causal=causal)
    result, problem, inputs, sim = run(correction_kernel(d, rescale, threshold), LOADS_NAME,
                                       check, SELECT, schedule)
    assert_matches(problem, inputs, sim)
    assert result.manifest["threads"] == 512   # 16 warps: the correction's are 12-15
    if schedule == "late":
        assert judge(result, check, "random", seed=1) is None


def test_correction_warpgroup_protocol_accepted_by_verify_sync():
    """verify-sync runs the five roles as concurrent programs for every block count up
    to the mbarriers' phase period and accepts them; the plan still needs 256 columns
    (alpha and l ride on S's columns 32-33, the plan's notes say so)."""
    plan = _plan(correction_kernel())
    assert (plan.peak_columns, plan.allocation_columns) == (256, 256)
    assert any("%C0" in note and "columns 32-33 of %S0" in note for note in plan.notes)


@pytest.mark.slow
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [0, 1])
def test_correction_warpgroup_sequence_length_1000(d, causal, tmp_path):
    """L = 1000 under the late, eager and a random schedule."""
    check = check_file(tmp_path, d=d, length=1000, causal=causal)
    result, problem, inputs, sim = run(correction_kernel(d), LOADS_NAME, check, SELECT)
    assert_matches(problem, inputs, sim)
    assert judge(result, check, "eager") is None
    assert judge(result, check, "random", seed=0) is None
