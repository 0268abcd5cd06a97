"""The ordering rules of PTX ISA 9.7.16.6, checked end to end on both passes.

Expected values are written here from the ISA text: the list of pipelined pairs of
9.7.16.6.2 and the mechanism of each canonical pattern of 9.7.16.6.4 (9.7.16.6.5 for
shared memory). For every pair of conflicting ops: tcgen05-insert-sync puts exactly the
expected ops between them, and tcgen05-verify-sync flags the pair when nothing is between
them exactly when the ISA requires something. The two passes share no code (checked
below), so agreeing with the table is two independent confirmations.
"""

from __future__ import annotations

import ast

import pytest

from test_sync_common import ROOT, verify  # noqa: F401  (also sets up the bindings)
from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import wrap
from tcgen05_lower.bindings import capture_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.passes.tcgen05_insert_sync import Tcgen05InsertSync

PREAMBLE = '''!acc = !tcgen05.tmem<[128, 64], f32>
!acc32 = !tcgen05.tmem<[128, 32], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!sf = !tcgen05.tmem<[128, 8], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!tb32 = !tcgen05.smem<[32, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @k(%G: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b32 = "tcgen05.smem_buffer"() : () -> !tb32
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %narrow = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc32
  %x = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  %sf = "tcgen05.tmem_buffer"(%base) {column_offset = 136 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !sf
  %in = "tcgen05.load_fragment"(%G, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
'''

OPS = {
    "mma D=acc": '"tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()',
    "mma D=narrow": '"tcgen05.mma"(%narrow, %a, %b32, %t) {kind = "f16"} : (!acc32, !ta, !tb32, i1) -> ()',
    "mma A=x": '"tcgen05.mma"(%acc, %x, %b, %t) {kind = "f16"} : (!acc, !at, !tb, i1) -> ()',
    "cp x": '"tcgen05.cp"(%x, %a) {shape = "128x256b"} : (!at, !ta) -> ()',
    "shift x": '"tcgen05.shift"(%x) : (!at) -> ()',
    "shift sf": '"tcgen05.shift"(%sf) : (!sf) -> ()',
    "cp.4x256b sf": '"tcgen05.cp"(%sf, %a) {shape = "4x256b"} : (!sf, !ta) -> ()',
    "cp.128x256b sf": '"tcgen05.cp"(%sf, %a) {shape = "128x256b"} : (!sf, !ta) -> ()',
    "ld acc": '%r = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag',
    "ld acc again": '%r2 = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag',
    "use r": '"tcgen05.store_fragment"(%r, %G, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()',
    "st acc": '"tcgen05.st"(%acc, %c0, %in) : (!acc, index, !frag) -> ()',
    "fill a": '"tcgen05.smem_fill"(%G, %a, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !ta, index) -> ()',
    "mma reads a": '"tcgen05.mma"(%acc, %a, %b, %t) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()',
}

COMPLETION_BY_MBARRIER = ["tcgen05.commit", "tcgen05.mbarrier_wait"]
ISSUER_TO_ASYNC = COMPLETION_BY_MBARRIER + ["tcgen05.fence::after_thread_sync"]

#: (earlier, later) -> the ops tcgen05-insert-sync must put between them, in order.
#: Single-thread pairs: 9.7.16.6.2 lists the pipelined ones; the rest need pattern
#: 9.7.16.6.4.2 (commit, wait, fence::after_thread_sync).
RULES = [
    # 9.7.16.6.2 item 1: same accumulator and shape.
    ("mma D=acc", "mma D=acc", []),
    # Not the same accumulator and shape (the cells overlap): not pipelined.
    ("mma D=acc", "mma D=narrow", ISSUER_TO_ASYNC),
    ("cp x", "mma A=x", []),  # item 2
    ("shift x", "mma A=x", []),  # item 3
    ("shift sf", "cp.4x256b sf", []),  # item 4
    ("shift sf", "cp.128x256b sf", ISSUER_TO_ASYNC),  # item 4 is for .4x256b only
    ("mma A=x", "shift x", []),  # item 5
    ("mma A=x", "cp x", ISSUER_TO_ASYNC),  # no mma -> cp pair
    ("cp x", "cp x", ISSUER_TO_ASYNC),
    ("cp x", "shift x", ISSUER_TO_ASYNC),
    ("shift x", "shift x", ISSUER_TO_ASYNC),
    # 9.7.16.6.4.4 example 2: mma by one thread, ld by the warpgroup.
    ("mma D=acc", "ld acc", ISSUER_TO_ASYNC),
    ("mma D=acc", "st acc", ISSUER_TO_ASYNC),
    # 9.7.16.6.4.4 example 1: ld (or st) by the warpgroup, then the MMA.
    ("ld acc", "mma D=acc", ["tcgen05.wait::ld", "tcgen05.fence::before_thread_sync",
                             "tcgen05.barrier", "tcgen05.fence::after_thread_sync"]),
    ("st acc", "mma D=acc", ["tcgen05.wait::st", "tcgen05.fence::before_thread_sync",
                             "tcgen05.barrier", "tcgen05.fence::after_thread_sync"]),
    # 9.7.16.6.4.2 example 1, and the anti-dependences of 9.7.16.6.4.5.
    ("st acc", "ld acc", ["tcgen05.wait::st"]),
    ("ld acc", "st acc", ["tcgen05.wait::ld"]),
    ("st acc", "st acc", ["tcgen05.wait::st"]),
    ("ld acc", "ld acc again", []),  # two reads
    # 9.7.16.6.4.5: a true register dependency is respected without a wait.
    ("ld acc", "use r", []),
    # 9.7.16.6.5: generic-proxy writes, then async-proxy reads; and the reverse.
    ("fill a", "mma reads a", ["tcgen05.fence_proxy_async", "tcgen05.barrier"]),
    ("mma reads a", "fill a", COMPLETION_BY_MBARRIER),
]


def kernel(first: str, second: str) -> str:
    return PREAMBLE + f"  {OPS[first]}\n  {OPS[second]}\n  return\n}}\n"


def between(text: str, last_two: bool = False) -> list[str]:
    """The sync ops tcgen05-insert-sync puts between the first two (or the last two) ops
    of `text` that it did not add and that are not set-up ops."""
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, "pair.mlir")
        assert Tcgen05InsertSync().run_on(module), [x.format() for x in diagnostics]
        ops = [op for kernel_ in d.kernels(module) for op in d.walk_ops(kernel_)]
        marks = [i for i, op in enumerate(ops) if op.name not in (
            "arith.constant", "tcgen05.alloc", "tcgen05.smem_buffer", "tcgen05.tmem_buffer",
            "tcgen05.load_fragment", "tcgen05.alloc_mbarrier", "func.return")
            and "reason" not in op.attributes]
        first, second = (marks[-2], marks[-1]) if last_two else (marks[0], marks[1])
        out = []
        for op in ops[first + 1:second]:
            if "reason" in op.attributes:
                typed = wrap(op)
                kind = typed.get("kind") if typed is not None and typed.declares("kind") \
                    else None
                out.append(op.name + (f"::{kind}" if kind else ""))
        return out


@pytest.mark.parametrize("first,second,expected", RULES,
                         ids=[f"{a} -> {b}" for a, b, _ in RULES])
def test_insert_sync_puts_the_isa_mechanism_between(first, second, expected):
    assert between(kernel(first, second)) == expected


@pytest.mark.parametrize("first,second,expected", RULES,
                         ids=[f"{a} -> {b}" for a, b, _ in RULES])
def test_verify_sync_flags_exactly_the_unordered_pairs(first, second, expected):
    errors = verify(kernel(first, second), "pair.mlir")
    if expected:
        assert len(errors) == 1, errors
        assert "without ordering: missing" in errors[0]
    else:
        assert errors == []


def test_dealloc_patterns():
    # Only the issuing thread's MMAs in flight: their completion and
    # fence::after_thread_sync (9.7.16.6.4.2 example 2 with the dealloc as consumer; no
    # other thread accessed TMEM). A load in flight: 9.7.16.6.4.4 example 1.
    dealloc = '  "tcgen05.dealloc"(%base) {columns = 256 : i64, cta_group = 1 : i64} : (i32) -> ()\n'
    mma_only = PREAMBLE + f"  {OPS['mma D=acc']}\n" + dealloc + "  return\n}\n"
    with_load = PREAMBLE + f"  {OPS['ld acc']}\n  {OPS['use r']}\n" + dealloc + \
        "  return\n}\n"
    assert between(mma_only) == ISSUER_TO_ASYNC
    assert between(with_load, last_two=True) == ["tcgen05.wait::ld", "tcgen05.fence::before_thread_sync",
                                  "tcgen05.barrier", "tcgen05.fence::after_thread_sync"]
    for text in (mma_only, with_load):
        assert len(verify(text)) == 1


def test_the_verifier_shares_no_code_with_insertion():
    # The pass and its models' package (tcgen05_lower/sync_check/) import nothing of
    # tcgen05-insert-sync or of the package it plans with (tcgen05_lower/synchronization/).
    sources = [ROOT / "passes" / "tcgen05_verify_sync.py"] + sorted(
        (ROOT / "tcgen05_lower" / "sync_check").glob("*.py"))
    assert len(sources) > 5
    imported = set()
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                imported.add(node.module or "")
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert not any("insert_sync" in name or "synchronization" in name
                   for name in imported), imported
