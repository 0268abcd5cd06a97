"""tcgen05-insert-sync and tcgen05-verify-sync are linear in kernel size (work is counted,
not timed): on benchmarks/compile/scaling.py's straight kernel, doubling the tiles doubles
the work of each pass.

Work is the Python lines a pass executes (sys.settrace) plus the comparisons of MLIR ops
for equality (a counting wrapper around the bindings' ``__eq__``). The second catches what
the first cannot see: a dict keyed by ops compares the looked-up op with every stored op
of the same hash, inside the dict's C code, and the bindings hash an op by what is
written on it, so the same op of every tile collides with all the others.

Expected growth (hand derivation): every tile of the straight kernel is the same ops on
the same two tiles and two accumulators, so a linear pass does the same work per tile
plus a constant; doubling N at most doubles its work (ratio <= 2, with 10% allowed for
the constant's share shrinking unevenly). A pass that scans a per-tile table at every op
(a list that only grows, one state per mbarrier, colliding op keys) does N work per op,
N^2 in all: its ratio approaches 4."""

from __future__ import annotations

import sys

import pytest

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics, ir
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.pipeline import PLANNING, STRUCTURING, build_pass_manager, parse_pipeline
from test_compile_scaling import scaling

#: The largest ratio of work at 2N tiles to work at N tiles a linear pass may show.
LINEAR = 2.2
SIZES = (24, 48)
OPERATION_BASE = ir.Operation.__mro__[1]  # where the bindings define __eq__


def work(pass_name: str, tiles: int, monkeypatch) -> int:
    """Lines executed plus op comparisons while `pass_name` runs on the straight kernel of
    `tiles` tiles (the passes before it run first, uncounted)."""
    before = (STRUCTURING + PLANNING)[:(STRUCTURING + PLANNING).index(pass_name)]
    count = [0]
    real_eq = OPERATION_BASE.__eq__

    def counting_eq(self, other):
        count[0] += 1
        return real_eq(self, other)

    def tracer(frame, event, arg):
        count[0] += 1
        return tracer

    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        module = parse_module(scaling.straight_kernel(tiles), "straight.mlir")
        build_pass_manager(parse_pipeline(",".join(before))).run(module)
        manager = build_pass_manager(parse_pipeline(pass_name))
        with monkeypatch.context() as patch:
            patch.setattr(OPERATION_BASE, "__eq__", counting_eq)
            sys.settrace(tracer)
            try:
                manager.run(module)
            finally:
                sys.settrace(None)
        assert not [x for x in diagnostics if x.severity == "error"]
    return count[0]


@pytest.mark.parametrize("pass_name", ["tcgen05-insert-sync", "tcgen05-verify-sync"])
def test_sync_pass_work_is_linear_in_tiles(pass_name, monkeypatch):
    small, large = (work(pass_name, n, monkeypatch) for n in SIZES)
    assert large / small <= LINEAR, (pass_name, small, large)


def test_the_counter_sees_colliding_op_keys(monkeypatch):
    """The measure can fail: a plain dict keyed by the kernel's ops, filled and read once
    per op, is linear work in Python lines but quadratic in op comparisons."""
    real_eq = OPERATION_BASE.__eq__
    counts = []
    for tiles in SIZES:
        count = [0]

        def counting_eq(self, other, count=count):
            count[0] += 1
            return real_eq(self, other)

        with d.make_context():
            module = parse_module(scaling.straight_kernel(tiles), "straight.mlir")
            ops = list(d.walk_ops(module))
            with monkeypatch.context() as patch:
                patch.setattr(OPERATION_BASE, "__eq__", counting_eq)
                table = {op: i for i, op in enumerate(ops)}
                assert all(table[op] == i for i, op in enumerate(ops))
        counts.append(count[0])
    assert counts[1] / counts[0] > 3
