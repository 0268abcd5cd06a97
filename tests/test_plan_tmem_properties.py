"""Property test: random kernels of buffer definitions, MMAs, copies, shifts, loads,
stores, waits, loops (with known and unknown trip counts), branches and values through
arith.select and scf.if results. For every strategy, the independent checker
(tests/tmem_checker.py) accepts the plan, or the planner reports over-subscription;
``optimal`` never needs more columns than ``first-fit`` (and fits whenever first-fit
does).

Buffers carry the footprint tcgen05-select-layouts would give them (Layout D: N columns
on all lanes; Layout F: N columns on 16 lanes of each quarter), so the kernels run
through tcgen05-plan-tmem alone.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import tmem_checker
from test_plan_tmem import run_planner

#: Slow (hypothesis-generated kernels under every planner strategy):
#: `pytest -m "not slow"` skips it in a quick local run; CI runs everything.
pytestmark = pytest.mark.slow

#: (rows, columns, layout, half lanes) of the buffers a program may define.
KINDS = [(128, 32, "D", False), (128, 64, "D", False), (128, 128, "D", False),
         (64, 64, "F", True), (64, 128, "F", True), (128, 256, "D", False)]

define = st.tuples(st.just("def"), st.integers(0, len(KINDS) - 1))
leaf = st.one_of(
    define,
    define,
    st.tuples(st.just("mma"), st.integers(0, 7), st.booleans()),
    st.tuples(st.just("ld"), st.integers(0, 7), st.integers(0, 2)),
    st.tuples(st.just("st"), st.integers(0, 7)),
    st.tuples(st.just("sel"), st.integers(0, 7), st.integers(0, 7)),
    st.tuples(st.just("cp"), st.integers(0, 7), st.booleans()),
    st.tuples(st.just("shift"), st.integers(0, 7)),
)
body = st.recursive(
    st.lists(leaf, min_size=1, max_size=6),
    lambda inner: st.lists(st.one_of(
        leaf,
        st.tuples(st.just("loop"), st.booleans(), inner),
        st.tuples(st.just("if"), inner, inner),
        st.tuples(st.just("ifyield"), st.integers(0, 7), st.integers(0, 7), inner),
    ), min_size=1, max_size=6),
    max_leaves=14,
)
#: A few buffers up front, then the random body.
program = st.tuples(st.lists(define, min_size=1, max_size=4), body).map(
    lambda parts: parts[0] + parts[1])


class Renderer:
    """Turns a statement tree into a kernel; uses pick among the buffers in scope."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.kinds: dict[str, int] = {}

    def fresh(self, prefix="v") -> str:
        self.count += 1
        return f"%{prefix}{self.count}"

    def type_of(self, name: str) -> str:
        rows, cols, _, _ = KINDS[self.kinds[name]]
        return f"!tcgen05.tmem<[{rows}, {cols}], f32>"

    def frag(self, name: str) -> str:
        rows = KINDS[self.kinds[name]][0]
        return f"!tcgen05.frag<[{rows}, 32], f32>"

    def emit(self, text: str, depth: int) -> None:
        self.lines.append("  " * depth + text)

    def load(self, value: str, kind_of: str, use: int, depth: int) -> None:
        frag = self.fresh()
        self.emit(f'{frag} = "tcgen05.ld"({value}, %c0) : ({self.type_of(kind_of)}, index) '
                  f'-> {self.frag(kind_of)}', depth)
        if use == 1:
            self.emit(f'"tcgen05.store_fragment"({frag}, %C, %c0) {{ld = 32 : i64}} : '
                      f'({self.frag(kind_of)}, !llvm.ptr<1>, index) -> ()', depth)
        elif use == 2:
            self.emit('"tcgen05.wait"() {kind = "ld"} : () -> ()', depth)

    def same_type(self, scope, a: int, b: int):
        """Two buffers of one type (select and scf.if need that), or None."""
        if not scope:
            return None
        first = scope[a % len(scope)]
        same = [x for x in scope if self.kinds[x] == self.kinds[first]]
        return first, same[b % len(same)]

    def block(self, statements, scope: list, depth: int) -> None:
        scope = list(scope)
        for s in statements:
            kind = s[0]
            if kind == "def":
                name = self.fresh("buf")
                self.kinds[name] = s[1]
                rows, cols, layout, half = KINDS[s[1]]
                self.emit(f'{name} = "tcgen05.tmem_buffer"() {{name = "{name[1:]}", '
                          f'role = "d", layout = "{layout}", columns = {cols} : i64, '
                          f'half_lanes = {"true" if half else "false"}}} : () -> '
                          f'{self.type_of(name)}', depth)
                scope.append(name)
            elif not scope:
                continue
            elif kind == "mma":
                buf = scope[s[1] % len(scope)]
                rows, cols, layout, _ = KINDS[self.kinds[buf]]
                enable = "%t" if s[2] else "%f"
                self.emit(f'"tcgen05.mma"({buf}, %a{rows}, %b{cols}, {enable}) '
                          f'{{kind = "f16", layout = "{layout}"}} : ({self.type_of(buf)}, '
                          f'!a{rows}, !b{cols}, i1) -> ()', depth)
            elif kind == "ld":
                buf = scope[s[1] % len(scope)]
                self.load(buf, buf, s[2], depth)
            elif kind == "st":
                buf = scope[s[1] % len(scope)]
                rows = KINDS[self.kinds[buf]][0]
                value = self.fresh()
                self.emit(f'{value} = "tcgen05.load_fragment"(%C, %c0) {{ld = 32 : i64}} : '
                          f'(!llvm.ptr<1>, index) -> {self.frag(buf)}', depth)
                self.emit(f'"tcgen05.st"({buf}, %c0, {value}) : ({self.type_of(buf)}, index, '
                          f'{self.frag(buf)}) -> ()', depth)
            elif kind == "cp":
                buf = scope[s[1] % len(scope)]
                shape = "4x256b" if s[2] else "128x256b"
                self.emit(f'"tcgen05.cp"({buf}, %s) {{shape = "{shape}"}} : '
                          f'({self.type_of(buf)}, !s) -> ()', depth)
            elif kind == "shift":
                buf = scope[s[1] % len(scope)]
                self.emit(f'"tcgen05.shift"({buf}) : ({self.type_of(buf)}) -> ()', depth)
            elif kind == "sel":
                x, y = self.same_type(scope, s[1], s[2])
                value = self.fresh()
                self.emit(f"{value} = arith.select %flag, {x}, {y} : {self.type_of(x)}", depth)
                self.load(value, x, 1, depth)
            elif kind == "loop":
                bound = "%c3" if s[1] else "%n"
                self.emit(f"scf.for {self.fresh('i')} = %c0 to {bound} step %c1 {{", depth)
                self.block(s[2], scope, depth + 1)
                self.emit("}", depth)
            elif kind == "if":
                self.emit("scf.if %flag {", depth)
                self.block(s[1], scope, depth + 1)
                self.emit("} else {", depth)
                self.block(s[2], scope, depth + 1)
                self.emit("}", depth)
            elif kind == "ifyield":
                x, y = self.same_type(scope, s[1], s[2])
                value = self.fresh()
                t = self.type_of(x)
                self.emit(f"{value} = scf.if %flag -> ({t}) {{", depth)
                self.block(s[3], scope, depth + 1)
                self.emit(f"scf.yield {x} : {t}", depth + 1)
                self.emit("} else {", depth)
                self.emit(f"scf.yield {y} : {t}", depth + 1)
                self.emit("}", depth)
                self.load(value, x, 1, depth)

    def kernel(self, statements) -> str:
        self.block(statements, [], 1)
        smem = []
        for rows in (64, 128):
            smem.append(f'!a{rows} = !tcgen05.smem<[{rows}, 64], bf16, "K", "128B">')
        for cols in sorted({k[1] for k in KINDS}):
            smem.append(f'!b{cols} = !tcgen05.smem<[{cols}, 64], bf16, "K", "128B">')
        smem.append('!s = !tcgen05.smem<[128, 16], bf16, "K", "none">')
        head = [
            'func.func @k(%C: !llvm.ptr<1>, %flag: i1, %n: index) attributes '
            '{tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {',
            "  %c0 = arith.constant 0 : index",
            "  %c1 = arith.constant 1 : index",
            "  %c3 = arith.constant 3 : index",
            "  %f = arith.constant false",
            "  %t = arith.constant true",
        ]
        for rows in (64, 128):
            head.append(f'  %a{rows} = "tcgen05.smem_buffer"() : () -> !a{rows}')
        for cols in sorted({k[1] for k in KINDS}):
            head.append(f'  %b{cols} = "tcgen05.smem_buffer"() : () -> !b{cols}')
        head.append('  %s = "tcgen05.smem_buffer"() : () -> !s')
        return "\n".join(smem + head + self.lines + ["  return", "}"]) + "\n"


@settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements=program)
def test_random_kernels_plan_soundly_under_every_strategy(statements):
    text = Renderer().kernel(statements)
    with tempfile.TemporaryDirectory() as tmp:
        check_every_strategy(text, Path(tmp))


def check_every_strategy(text: str, tmp: Path) -> None:
    peaks, fits = {}, {}
    for strategy in ("first-fit", "optimal", "no-reuse"):
        json_path = tmp / f"{strategy}.json"
        plans, planned, errors = run_planner(text, strategy, pipeline="tcgen05-plan-tmem",
                                             json_path=str(json_path))
        if not plans:  # no buffer defined: nothing to plan
            assert not errors and planned is not None
            return
        (plan,) = plans
        peaks[strategy] = plan.peak_columns
        fits[strategy] = plan.peak_columns <= 512
        if fits[strategy]:
            assert not errors, (errors, text)
            report = json.loads(json_path.read_text())
            assert tmem_checker.check_text(planned, report) == [], (strategy, text)
        else:
            assert len(errors) == 1 and "over-subscribed" in errors[0], errors
    assert peaks["optimal"] <= peaks["first-fit"], text
    assert fits["optimal"] or not fits["first-fit"]
