"""tcgen05-insert-sync{strategy=handoffs} (tcgen05_lower/synchronization/role_handoffs.py)
on the small kernels of lit_tests/tcgen05-insert-sync/handoffs.mlir: every op it inserts
is needed, and it drops what is not.

What checks it: tcgen05-verify-sync, which runs the roles as concurrent programs for every
trip count up to the mbarriers' phase period; each inserted op deleted in turn must make
it report a problem (an unordered pair, a wait that never returns, a phase out of step, a
load in flight at the join). The expected counts are the lit file's, derived by hand in
its comment (examples/ws_attention_fwd_bf16.mlir's are tests/test_ws_attention.py's).
"""

from __future__ import annotations

from pathlib import Path

from test_sync_common import deletion_mutants, plan, verify

LIT = Path(__file__).resolve().parent.parent / "lit_tests" / "tcgen05-insert-sync" / \
    "handoffs.mlir"

#: Inserted ops per kernel, counted by hand (the lit file's comment).
COUNTS = {"handoffs": 18, "correction": 18, "overlap": 19, "first_in_loop": 15,
          "p_over_s": 21, "alias_across_turns": 17}


def _planned(tmp_path):
    source = tmp_path / LIT.name
    source.write_text(LIT.read_text())
    return plan(source, "handoffs")


def test_the_counts_and_verify_sync_accepts(tmp_path):
    planned = _planned(tmp_path)
    assert {name: counts["total"] for name, counts in planned.counts.items()} == COUNTS
    assert verify(planned.text, planned.source_name) == []


def test_deleting_any_inserted_op_is_rejected_by_verify_sync(tmp_path):
    """The dropped ones stay dropped: the wait::ld before the arrival of @correction's,
    @overlap's and @p_over_s's turn (the last store waited for every load), the
    fence after the wait before @first_in_loop's MMA after its loop (it writes O, which
    the turn before it did not touch); every op left is needed."""
    planned = _planned(tmp_path)
    mutants = list(deletion_mutants(planned.text, planned.source_name))
    assert len(mutants) == sum(COUNTS.values())
    accepted = [description for description, text in mutants
                if not verify(text, planned.source_name)]
    assert accepted == []
