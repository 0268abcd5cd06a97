"""Random planned kernels through both sync passes: a differential test.

A seeded generator builds kernels from every asynchronous op kind (mma on two
accumulators, on a narrower buffer that shares their cells, and with A in TMEM; ld, st,
cp, shift, smem_fill), in straight-line code, scf.for loops of 1 to 3 iterations, scf.while
loops (to a constant or to a kernel argument), scf.if and scf.index_switch on a kernel
argument, nested up to two deep. Accumulators also flow through control flow: scf.for
loops carry two of them as iteration arguments (swapped or kept each iteration), and
scf.if chooses one; among them %acc2, which overlaps both %acc0 and %acc1, so an MMA on a
chosen accumulator may partly overlap an earlier one. For each, under both strategies,
tcgen05-verify-sync (an independent analysis) must accept what tcgen05-insert-sync
produced; and whenever strategy=minimal added anything, taking all of it out must leave
the kernel unordered (so the acceptance is not vacuous).
"""

from __future__ import annotations

import random

import pytest

from test_sync_common import inserted_ops, verify
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.passes.tcgen05_insert_sync import Tcgen05InsertSync

SEEDS = range(60)

HEADER = '''!acc = !tcgen05.tmem<[128, 64], f32>
!acc32 = !tcgen05.tmem<[128, 32], f32>
!at = !tcgen05.tmem<[128, 16], bf16>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!tb32 = !tcgen05.smem<[32, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 32], f32>
func.func @random(%G: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant false
  %t = arith.constant true
  %base = "tcgen05.alloc"() {columns = 256 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %b32 = "tcgen05.smem_buffer"() : () -> !tb32
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc2 = "tcgen05.tmem_buffer"(%base) {column_offset = 32 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %alias = "tcgen05.tmem_buffer"(%base) {column_offset = 32 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc32
  %atm = "tcgen05.tmem_buffer"(%base) {column_offset = 128 : i64, columns = 8 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !at
  %in = "tcgen05.load_fragment"(%G, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !frag
'''


def generate(seed: int) -> str:
    """A random kernel; the same seed gives the same kernel."""
    rng = random.Random(seed)
    counter = [0]

    def fresh(prefix: str) -> str:
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    def one_op(accs: list[str]) -> list[str]:
        acc = rng.choice(accs)
        col = rng.choice(["%c0", "%c32"])
        flag = rng.choice(["%f", "%t"])
        kind = rng.choice(["mma", "mma", "mma_a_tmem", "mma_alias", "ld", "ld", "st", "fill",
                           "cp", "shift"])
        if kind == "mma":
            return [f'"tcgen05.mma"({acc}, %a, %b, {flag}) {{kind = "f16"}} : '
                    f'(!acc, !ta, !tb, i1) -> ()']
        if kind == "mma_a_tmem":
            return [f'"tcgen05.mma"({acc}, %atm, %b, {flag}) {{kind = "f16"}} : '
                    f'(!acc, !at, !tb, i1) -> ()']
        if kind == "mma_alias":
            return [f'"tcgen05.mma"(%alias, %a, %b32, {flag}) {{kind = "f16"}} : '
                    f'(!acc32, !ta, !tb32, i1) -> ()']
        if kind == "ld":
            name = fresh("x")
            lines = [f'{name} = "tcgen05.ld"({acc}, {col}) : (!acc, index) -> !frag']
            if rng.random() < 0.7:  # registers read (or not: 9.7.16.6.4.5)
                lines.append(f'"tcgen05.store_fragment"({name}, %G, %c0) {{ld = 64 : i64}} : '
                             f'(!frag, !llvm.ptr<1>, index) -> ()')
            return lines
        if kind == "st":
            return [f'"tcgen05.st"({acc}, {col}, %in) : (!acc, index, !frag) -> ()']
        if kind == "fill":
            tile, type_ = rng.choice([("%a", "!ta"), ("%b", "!tb")])
            return [f'"tcgen05.smem_fill"(%G, {tile}, %c0) {{src_layout = "mn_k", '
                    f'src_ld = 16 : i64}} : (!llvm.ptr<1>, {type_}, index) -> ()']
        if kind == "cp":
            return ['"tcgen05.cp"(%atm, %a) {shape = "128x256b"} : (!at, !ta) -> ()']
        return ['"tcgen05.shift"(%atm) : (!at) -> ()']

    def block(depth: int, accs: list[str]) -> list[str]:
        lines = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if depth < 2 and r < 0.08:
                # scf.for carrying two accumulators, swapped or kept each iteration; the
                # rest of the block uses its results.
                trips = rng.choice(["%c1", "%c2", "%c3", "%n"])
                x, y = (rng.choice(accs + ["%acc2"]) for _ in range(2))
                p, q, res = fresh("p"), fresh("q"), fresh("r")
                lines.append(f"{res}:2 = scf.for {fresh('i')} = %c0 to {trips} step %c1 "
                             f"iter_args({p} = {x}, {q} = {y}) -> (!acc, !acc) {{")
                lines += ["  " + line for line in block(depth + 1, [p, q])]
                yielded = f"{q}, {p}" if rng.random() < 0.7 else f"{p}, {q}"
                lines.append(f"  scf.yield {yielded} : !acc, !acc")
                lines.append("}")
                accs = [f"{res}#0", f"{res}#1"]
            elif depth < 2 and r < 0.13:
                # scf.if choosing an accumulator for the rest of the block.
                condition, chosen = fresh("p"), fresh("s")
                lines.append(f"{condition} = arith.cmpi ne, %n, %c0 : index")
                lines.append(f"{chosen} = scf.if {condition} -> (!acc) {{")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append(f"  scf.yield {rng.choice(accs + ['%acc2'])} : !acc")
                lines.append("} else {")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append(f"  scf.yield {rng.choice(accs + ['%acc2'])} : !acc")
                lines.append("}")
                accs = accs + [chosen]
            elif depth < 2 and r < 0.28:
                trips = rng.choice(["%c1", "%c2", "%c3"])
                lines.append(f"scf.for {fresh('i')} = %c0 to {trips} step %c1 {{")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append("}")
            elif depth < 2 and r < 0.36:
                condition = fresh("p")
                lines.append(f"{condition} = arith.cmpi ne, %n, %c0 : index")
                lines.append(f"scf.if {condition} {{")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append("}")
            elif depth < 2 and r < 0.42:
                # scf.while counting to a constant or to the kernel argument.
                iv, more, j, nxt = fresh("w"), fresh("more"), fresh("j"), fresh("next")
                bound = rng.choice(["%c2", "%n"])
                lines.append(f"{fresh('wr')} = scf.while ({iv} = %c0) : (index) -> index {{")
                lines.append(f"  {more} = arith.cmpi ult, {iv}, {bound} : index")
                lines.append(f"  scf.condition({more}) {iv} : index")
                lines.append("} do {")
                lines.append(f"^bb0({j}: index):")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append(f"  {nxt} = arith.addi {j}, %c1 : index")
                lines.append(f"  scf.yield {nxt} : index")
                lines.append("}")
            elif depth < 2 and r < 0.46:
                lines.append("scf.index_switch %n")
                lines.append("case 1 {")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append("  scf.yield")
                lines.append("}")
                lines.append("default {")
                lines += ["  " + line for line in block(depth + 1, accs)]
                lines.append("  scf.yield")
                lines.append("}")
            else:
                lines += one_op(accs)
        return lines

    body = "".join(f"  {line}\n" for line in block(0, ["%acc0", "%acc1"]))
    return (HEADER + body + '  "tcgen05.dealloc"(%base) {columns = 256 : i64, '
            'cta_group = 1 : i64} : (i32) -> ()\n  return\n}\n')


def insert(text: str, strategy: str):
    """(planned text, number of ops added); every generated kernel must be supported."""
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(text, "random.mlir")
        ok = Tcgen05InsertSync(strategy=strategy).run_on(module)
        assert ok, [x.format() for x in diagnostics if x.severity == "error"]
        return module.get_asm(enable_debug_info=True), len(inserted_ops(module))


def without_inserted_ops(text: str) -> str:
    context = d.make_context()
    with context:
        module = parse_module(text, "random.mlir")
        for op in reversed(inserted_ops(module)):
            op.erase()
        return module.get_asm(enable_debug_info=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_kernel(seed):
    text = generate(seed)
    for strategy in ("minimal", "conservative"):
        planned, added = insert(text, strategy)
        assert verify(planned, "random.mlir") == [], (strategy, planned)
        if added and strategy == "minimal":
            # minimal adds only for dependences: without its ops some are unordered.
            assert verify(without_inserted_ops(planned), "random.mlir")


def test_the_generator_reaches_every_kind_of_op():
    text = "".join(generate(seed) for seed in SEEDS)
    for needle in ("tcgen05.mma", "tcgen05.ld", "tcgen05.st", "tcgen05.cp", "tcgen05.shift",
                   "tcgen05.smem_fill", "scf.for", "scf.if", "scf.while", "scf.index_switch",
                   "%alias", "%atm, %b", "iter_args(", "scf.yield %q", "-> (!acc) {",
                   "%acc2"):
        assert needle in text, needle
