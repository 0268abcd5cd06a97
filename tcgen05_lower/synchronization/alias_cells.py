"""(strategy=handoffs) Which of its parent's columns an access through a TMEM alias
touches, once tcgen05-plan-tmem has placed the buffers (the alias is written back at the
parent's column offset + ``alias_column``, planning/aliases.py).

An alias names ``columns`` 32-bit columns of its parent from ``column_offset -
parent's column_offset`` on. A tcgen05.ld or tcgen05.st of a 32-bit alias at a constant
column c, with a fragment c' columns wide, touches c' of them from c (one element per
32-bit column, tmem-facts section 1); any other access (an MMA operand, a packed 16-bit
alias such as P_t over S_t, a column that does not evaluate) the alias's whole range.
Columns count from the parent's first, in 32-bit units, which are the parent's own
element columns when the parent is 32-bit; otherwise (or before placement) nothing is
said: None, any column of the parent.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import LdOp, StOp, TmemBufferOp
from tcgen05_lower.element_types import element_bits
from tcgen05_lower.op_tables import OpDict
from tcgen05_lower.synchronization.common import constant_value


def alias_columns(op, alias, parent) -> tuple | None:
    """(first, count) of the parent's columns the access `op` (an ld, st or MMA)
    touches through the alias buffer op `alias` (module docstring), or None."""
    mine, theirs = TmemBufferOp(alias), TmemBufferOp(parent)
    if mine.column_offset is None or theirs.column_offset is None or not mine.columns:
        return None   # not placed yet
    if _bits(parent) != 32:
        return None   # the parent's own columns are not 32-bit units
    start = mine.column_offset - theirs.column_offset
    if _bits(alias) == 32 and (LdOp.matches(op) or StOp.matches(op)):
        column = constant_value(LdOp(op).column if LdOp.matches(op) else StOp(op).column)
        fragment = op.results[0] if LdOp.matches(op) else StOp(op).fragment
        if column is not None:
            return start + column, d.type_info(fragment.type).shape[1]
    return start, mine.columns


def _bits(buffer) -> int | None:
    try:
        return element_bits(d.type_info(buffer.results[0].type).element)
    except NotImplementedError:
        return None


def op_cells(op, aliased) -> list:
    """(parent root op, (first, count) or None) for each TMEM operand of the ld, st or
    MMA `op`: its root buffer's cells (an alias's parent, with the columns of
    :func:`alias_columns`; an ordinary buffer's: None, all of them)."""
    from tcgen05_lower.dialect.ops import MmaOp
    from tcgen05_lower.kernel_ir import root_buffers

    if LdOp.matches(op):
        values = [LdOp(op).source]
    elif StOp.matches(op):
        values = [StOp(op).dest]
    else:
        mma = MmaOp(op)
        values = [v for v in (mma.a, mma.scale_a, mma.scale_b, mma.metadata, mma.d)
                  if v is not None and d.is_tmem(v)]
    found = []
    for value in values:
        roots = root_buffers(value)
        if not roots or len(roots) != 1:
            continue   # role_turns refused it already
        root = roots[0]
        if aliased is not None and root in aliased:
            found.append((aliased[root], alias_columns(op, root, aliased[root])))
        else:
            found.append((root, None))
    return found


def cells_meet(mine: list, theirs: list) -> bool:
    """Whether two lists of :func:`op_cells` entries share a cell: their spans per root
    sorted once, each of `mine` looked up by bisection (n log n in the entries)."""
    from bisect import bisect_right

    spans = OpDict()   # root -> None (every cell) or sorted [(first, end)]
    for root, span in theirs:
        if span is None:
            spans[root] = None
        elif spans.get(root, []) is not None:
            spans.setdefault(root, []).append((span[0], span[0] + span[1]))
    merged = OpDict()
    for root, found in spans.items():
        merged[root] = None if found is None else _merge(sorted(found))
    for root, span in mine:
        if root not in merged:
            continue
        runs = merged[root]
        if span is None or runs is None:
            return True
        first, end = span[0], span[0] + span[1]
        # The last run starting at or before `first`, then the one after it.
        k = bisect_right(runs, (first, float("inf"))) - 1
        if k >= 0 and runs[k][1] > first:
            return True
        if k + 1 < len(runs) and runs[k + 1][0] < end:
            return True
    return False


def _merge(runs: list) -> list:
    """Sorted (first, end) runs merged where they overlap or touch."""
    merged = []
    for first, end in runs:
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((first, end))
    return merged
