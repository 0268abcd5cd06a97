"""Warp roles in the planning passes (docs/partitions.md): tcgen05-plan-tmem treats the
roles of a tcgen05.partitions as concurrent. Expected placements are derived by hand: two
128-column buffers, each defined right before its uses, share columns in a uniform kernel
(the live ranges are disjoint, first-fit reuses column 0), while in two roles, which run
at the same time, each is live across the whole partitions op and they must not share.

tcgen05-verify requires buffers to be declared before the partitions, which already makes
every buffer a role uses live at the op's start; the concurrent-roles rule of the liveness
must hold without that, so the second kernel declares each buffer in its role and runs
the planning passes without tcgen05-verify."""

from __future__ import annotations

import io
import re

from tcgen05_lower.driver import compile_source

ACC = "!tcgen05.tmem<[128, 128], f32>"
TILE = '!tcgen05.smem<[128, 16], bf16, "K", "none">'
PLANNING = "tcgen05-select-layouts,tcgen05-plan-tmem{report=true}"


def use(buffer: str) -> str:
    """`buffer` defined, written by an MMA and read by a load."""
    return (f'%{buffer} = "tcgen05.tmem_buffer"() {{name = "{buffer}"}} : () -> {ACC}\n'
            f'"tcgen05.mma"(%{buffer}, %a, %b, %f) {{kind = "f16"}} : ({ACC}, {TILE}, '
            f'{TILE}, i1) -> ()\n'
            f'%r_{buffer} = "tcgen05.ld"(%{buffer}, %c0) : ({ACC}, index) -> '
            f'!tcgen05.frag<[128, 32], f32>\n'
            f'"tcgen05.wait"() {{kind = "ld"}} : () -> ()\n')


def kernel(body: str, threads: int) -> str:
    return f'''func.func @k() attributes {{tcgen05.kernel = {{target = "sm_100a", threads = {threads} : i64, cta_group = 1 : i64}}}} {{
%c0 = arith.constant 0 : index
%f = arith.constant false
%a = "tcgen05.smem_buffer"() : () -> {TILE}
%b = "tcgen05.smem_buffer"() : () -> {TILE}
{body}return
}}
'''


def role(name: str, first: int, body: str) -> str:
    return (f'"tcgen05.role"() ({{\n{body}"gpu.yield"() : () -> ()\n}}) '
            f'{{name = "{name}", first_warp = {first} : i64, warps = 4 : i64}} : () -> ()\n')


def columns(text: str) -> tuple[dict, str]:
    report = io.StringIO()
    result = compile_source(text, "k.mlir", pipeline=PLANNING, emit="mlir",
                            report_stream=report)
    placed = re.findall(r'column_offset = (\d+) : i64, columns = 128 : i64, '
                             r'half_lanes = false, lane_offset = 0 : i64, layout = "D", '
                             r'name = "(\w)"', result.mlir)
    return {name: int(col) for col, name in placed}, report.getvalue()


def test_a_uniform_kernel_reuses_the_columns_of_a_dead_buffer():
    placed, _ = columns(kernel(use("x") + use("y"), 128))
    assert placed == {"x": 0, "y": 0}


def test_buffers_of_concurrent_roles_never_share_columns():
    body = ('"tcgen05.partitions"() ({\n' + role("first", 0, use("x"))
            + role("second", 4, use("y")) + '"gpu.yield"() : () -> ()\n}) : () -> ()\n')
    placed, report = columns(kernel(body, 256))
    assert sorted(placed.values()) == [0, 128]
    assert "run concurrently: every buffer a role uses is live across the whole " \
           "partitions op, so buffers of different roles never share columns (%x, %y)" \
        in report
