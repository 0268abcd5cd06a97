"""The small pure helpers behind verify-sync's run-time loop bounds
(tcgen05_lower/sync_check/runtime_bounds.py: the smallest value of a root giving a loop a
trip count) and insert-sync's rings of handoffs (tcgen05_lower/synchronization/
alias_cells.py: whether two accesses' columns meet). Expected values by hand."""

from __future__ import annotations

from tcgen05_lower.sync_check.runtime_bounds import smallest_value
from tcgen05_lower.synchronization.alias_cells import cells_meet


def test_smallest_value_of_a_root():
    """The smallest n >= 0 with count(n) == trips, for counts that do not decrease in n:
    n itself (n = trips), n - 1 (trips + 1), ceil((n + 63) / 64) as the attention
    example's KV blocks ((trips - 1) * 64 + 1), min(n, 4) (none past 4), 2 n (none for an
    odd count: it jumps over it)."""
    assert [smallest_value(lambda n: n, t) for t in (1, 2, 6)] == [1, 2, 6]
    assert [smallest_value(lambda n: max(0, n - 1), t) for t in (1, 2, 6)] == [2, 3, 7]
    assert [smallest_value(lambda n: (n + 63) // 64, t) for t in (1, 2, 6)] == [1, 65, 321]
    assert smallest_value(lambda n: min(n, 4), 4) == 4
    assert smallest_value(lambda n: min(n, 4), 5) is None
    assert smallest_value(lambda n: 2 * n, 4) == 2
    assert smallest_value(lambda n: 2 * n, 3) is None
    # A count that does not evaluate for some values (a division by zero) counts as
    # short of the target there.
    assert smallest_value(lambda n: None if n < 3 else n, 5) == 5


def test_cells_meet():
    """(root, (first column, count)) entries; None for every column of the root. Columns
    [0, 32) and [32, 33) do not meet; [32, 34) and [33, 34) do; another root never does;
    None meets any span of its root."""
    s, o = "S", "O"
    assert not cells_meet([(s, (33, 1))], [(s, (0, 32)), (s, (32, 1)), (o, None)])
    assert cells_meet([(s, (33, 1))], [(s, (0, 32)), (s, (32, 2))])
    assert cells_meet([(s, (33, 1))], [(s, None)])
    assert cells_meet([(s, None)], [(s, (0, 1))])
    assert not cells_meet([(o, (0, 64))], [(s, None)])
    # Runs that touch merge: [0, 16) and [16, 32) cover 31; [40, 48) misses [32, 40).
    assert cells_meet([(s, (31, 1))], [(s, (16, 16)), (s, (0, 16))])
    assert not cells_meet([(s, (32, 8))], [(s, (16, 16)), (s, (40, 8))])
