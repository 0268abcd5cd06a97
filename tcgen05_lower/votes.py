"""tcgen05.frag_vote: a warp's vote over the rows it holds of a per-row value (the op's
comment in dialect/tcgen05.irdl.mlir). The rules tcgen05-verify checks are here; the
lowering (lowering/votes.py) checks how the value is held (one row per thread)."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.computed import is_row_vector
from tcgen05_lower.text import did_you_mean

#: The votes of tcgen05.frag_vote, as PTX's vote.sync names them.
VOTE_KINDS = ("any", "all")


def frag_vote_problems(op, memo: dict | None = None) -> list[str]:
    """The rules a tcgen05.frag_vote `op` breaks."""
    from tcgen05_lower.dialect.ops import FragVoteOp

    kind = FragVoteOp(op).kind
    rows = d.type_info(op.operands[0].type)
    problems = []
    if kind not in VOTE_KINDS:
        problems.append(f"tcgen05.frag_vote: kind = {kind!r} is not \"any\" or \"all\""
                        + did_you_mean(kind, VOTE_KINDS))
    if rows.shape[1] != 1 or not is_row_vector(op.operands[0], memo):
        problems.append(f"tcgen05.frag_vote: the operand ({op.operands[0].type}) must be a "
                        f"per-row value (a frag_reduce or ld_red result, or a frag_map whose "
                        f"first input is one), one register per row in the thread of the "
                        f"row")
    return problems
