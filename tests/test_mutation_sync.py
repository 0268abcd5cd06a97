"""Mutation test of tcgen05-insert-sync against the independent tcgen05-verify-sync.

For every example and corpus kernel: the program insert-sync produces is ordered, and
deleting any single op it inserted leaves a dependence unordered, which verify-sync must
flag. A deletion verify-sync accepts means the op was redundant; the test lists every
such deletion with its reason. Under strategy=minimal there must be none. Under
strategy=conservative, which completes every asynchronous op right after it whether a
dependence needs it or not, redundant completions are expected: the test accepts exactly
those (their reason says "conservative: ..."), and every op added for a dependence must
still be needed.
"""

from __future__ import annotations

import pytest

from test_sync_common import deletions, kernel_id, kernel_paths, plan, verify

KERNELS = kernel_paths()
EXAMPLES = [p for p in KERNELS if p.parent.name == "examples"]


def test_there_are_kernels_to_mutate():
    assert len(EXAMPLES) >= 4
    assert any(p.name.startswith("persistent_gemm") for p in EXAMPLES)


@pytest.mark.parametrize("path", KERNELS, ids=[kernel_id(p) for p in KERNELS])
def test_minimal_inserts_nothing_redundant(path):
    planned = plan(path, "minimal")
    assert verify(planned.text, planned.source_name) == []
    accepted = [description for description, ok in deletions(planned) if ok]
    # Each entry: an inserted op whose deletion verify-sync accepts, and the dependence
    # its reason says it serves.
    assert accepted == [], "redundant under minimal:\n" + "\n".join(accepted)


@pytest.mark.parametrize("path", EXAMPLES, ids=[kernel_id(p) for p in EXAMPLES])
def test_conservative_redundancy_is_only_its_own_completions(path):
    planned = plan(path, "conservative")
    assert verify(planned.text, planned.source_name) == []
    results = list(deletions(planned))
    accepted = [description for description, ok in results if ok]
    # Redundant because conservative completes every async op right after it: the
    # dependence is ordered by another op as well (a later completion, or a pipelined pair
    # that needs none).
    unexplained = [x for x in accepted if "(conservative: completion of" not in x]
    assert unexplained == [], "\n".join(unexplained)
    # Every op that serves a dependence of the kernel is needed.
    flagged = [description for description, ok in results if not ok]
    assert flagged, "verify-sync flagged no deletion at all"
