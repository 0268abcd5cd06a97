"""A reduced .16x32bx2 row (tcgen05.ld_red's per-row value at M = 64, Layout F) is held
by threads l and l + 16 and stored by thread l only. That choice differs between the
threads of a warp, so it is each store's predicate, not a branch: a .sync.aligned
tcgen05 instruction after the store must be executed by all threads of the warp together
(PTX ISA 9.7.16.8.5), which nothing in PTX promises after a divergent branch (the same
rule as the edge-tile fill, tests/test_fill_alignment.py). Expected PTX from that rule:
a predicated st.global, and no conditional branch right before a global store."""

import re
from pathlib import Path

from tcgen05_lower.driver import compile_source

LD_RED = Path(__file__).resolve().parent.parent / "lit_tests" / "ldst" / "ld-red.mlir"


def test_reduced_row_store_is_predicated_not_branched():
    kernel = LD_RED.read_text().split("// -----")[1]   # @row_min_s32: Layout F, .16x32bx2
    assert "@row_min_s32" in kernel
    ptx = compile_source(kernel, "ld-red.mlir", arch="sm_103a").ptx
    lines = [line.strip() for line in ptx.splitlines()]
    assert any(re.match(r"@%p\d+ st\.global\.b32 ", line) for line in lines)
    branches_over_stores = [line for line, after in zip(lines, lines[1:])
                            if re.match(r"@!?%p\d+ bra", line)
                            and after.startswith("st.global")]
    assert not branches_over_stores, branches_over_stores
