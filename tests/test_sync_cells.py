"""Issue 19: synchronization follows the cells each op touches, not whole buffers.

Both tcgen05-insert-sync and tcgen05-verify-sync (each with its own code) take an MMA's
read of A in tensor memory to be the 32-bit columns of its K block (9.7.16.10.4: K x the
container's bits = 256 bits per row, 8 columns, from column k_offset x bits / 32), and a
tcgen05.cp's write to be its own columns (9.7.16.2.3). Every expected count below is
derived by hand from the PTX ISA's rules (9.7.16.6): cp -> mma and mma -> mma on one
accumulator are pipelined pairs (9.7.16.6.2); cp -> cp is not; accesses to disjoint cells
have no dependence; an ld after an MMA needs commit -> mbarrier wait ->
fence::after_thread_sync (9.7.16.6.4.4); the columns are freed after wait::ld ->
fence::before_thread_sync -> barrier -> fence::after_thread_sync.
"""

from __future__ import annotations


from tcgen05_lower import dialect as d
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.dialect.ops import CommitOp, MbarrierWaitOp

from test_sync_common import ROOT, inserted_ops, plan, verify

CORPUS = ROOT / "benchmarks" / "tmem" / "corpus"

#: The ops a kernel needs when its only ordering is "the MMAs before the epilogue's ld,
#: then the ld before the dealloc": commit, mbarrier wait, fence::after (the MMAs); then
#: wait::ld, fence::before, barrier, fence::after (the dealloc).
EPILOGUE_ONLY = {"commit": 1, "mbarrier_wait": 1, "wait::ld": 1, "wait::st": 0,
                 "fence::before": 1, "fence::after": 2, "fence.proxy.async": 0,
                 "barrier": 1, "total": 7}


def counts(name: str) -> dict:
    (found,) = plan(CORPUS / f"{name}.mlir", "minimal").counts.values()
    return found


def test_copies_of_a_in_pieces_before_the_mmas_that_read_them_need_no_round_trip():
    # MMA k reads A columns [8k, 8k + 8); copy k + 1 writes [8k + 8, 8k + 16): disjoint.
    assert counts("39_a_tmem_pieces_interleaved") == EPILOGUE_ONLY


def test_copies_into_disjoint_columns_need_nothing():
    # Four copies of 8 columns each, then the MMAs (cp -> mma pipelined).
    assert counts("21_a_tmem_m128") == EPILOGUE_ONLY


def test_attention_p_slices_have_no_round_trip_between_copies():
    # corpus/23 writes P in eight disjoint 8-column slices: none of the commits the pass
    # adds orders one copy before another.
    planned = plan(CORPUS / "23_attention_s_p_o.mlir", "minimal")
    context = d.make_context()
    with context:
        module = parse_module(planned.text, planned.source_name)
        reasons = [str(op.attributes["reason"]) for op in inserted_ops(module)]
    assert reasons
    assert not [r for r in reasons if "tcgen05.cp" in r and "before tcgen05.cp" in r]


def test_a_copy_over_the_cells_of_an_earlier_copy_waits_for_it():
    # cp -> cp on columns [0, 8) is not a pipelined pair: one more commit and wait (and
    # its fence::after) than the epilogue-only kernel.
    found = counts("40_cp_overwrites_cp")
    assert found["commit"] == 2 and found["mbarrier_wait"] == 2
    assert found["fence::after"] == 3 and found["total"] == 10


def test_verify_sync_rejects_the_copy_order_deleted():
    planned = plan(CORPUS / "40_cp_overwrites_cp.mlir", "minimal")
    assert verify(planned.text, planned.source_name) == []
    context = d.make_context()
    with context:
        module = parse_module(planned.text, planned.source_name)
        between = [op for op in inserted_ops(module)
                   if (CommitOp.matches(op) or MbarrierWaitOp.matches(op))
                   and "before tcgen05.cp" in str(op.attributes["reason"])]
        assert len(between) == 2  # the commit after the first copy and its wait
        for op in between:
            mutant = module.operation.clone() if hasattr(module, "operation") \
                else module.clone()
            victim = [o for o in inserted_ops(mutant)
                      if o.name == op.name and "before tcgen05.cp" in
                      str(o.attributes["reason"])][0]
            victim.erase()
            errors = verify(mutant.get_asm(enable_debug_info=True), planned.source_name)
            assert any("tcgen05.cp" in e and "writes TMEM columns" in e for e in errors), \
                errors
