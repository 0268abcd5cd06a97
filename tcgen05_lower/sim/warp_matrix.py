"""Warp-collective matrix loads and stores between shared memory and registers:
``ldmatrix`` and ``stmatrix`` (PTX ISA 9.7.14.5.15 ldmatrix, 9.7.14.5.16 stmatrix), the
``.m8n8`` shape with ``.b16`` elements, which compilers of other front ends (Triton) emit
around tcgen05 MMAs to move tiles through shared memory.

The ISA's fragment layout (both instructions): a warp moves 1, 2 or 4 (``.x1/.x2/.x4``)
8x8 matrices of 16-bit elements. Each matrix row is 16 contiguous bytes in shared memory;
the address of row r of matrix i is given by lane 8*i + r (lanes past 8*n give none).
In registers, matrix i is register i of every lane: lane L holds the elements (L/4,
2*(L%4)) in the lower half and (L/4, 2*(L%4) + 1) in the upper half. With ``.trans`` the
register holds the transposed matrix the same way: element (row, col) of the fragment is
element (col, row) of the matrix in memory.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_support import MemoryAccess
from tcgen05_lower.sim.state import SimError


def form(ins: P.Instr) -> tuple[int, bool]:
    """(matrix count, transposed) of an ``{ld,st}matrix.sync.aligned.m8n8.xN{.trans}
    .shared{::cta}.b16``; the ops module's Unknown for any other form."""
    from tcgen05_lower.sim.ops_support import _unknown

    parts = ins.parts
    mods = parts[1:]
    count = next((int(p[1:]) for p in mods if p in ("x1", "x2", "x4")), None)
    trans = "trans" in mods
    expected = {"sync", "aligned", "m8n8", f"x{count}", "b16"} | ({"trans"} if trans else set())
    spaces = set(mods) - expected
    if count is None or not expected <= set(mods) or not spaces <= {"shared", "shared::cta"} \
            or len(spaces) != 1:
        raise _unknown(ins, "only .sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16")
    return count, trans


def _row_addresses(m, ins, threads: np.ndarray, address_op, count: int):
    """The lanes that give row addresses (lane < 8 * count) and their addresses."""
    addrs = np.asarray(m.address(address_op, threads, ins), np.uint64).reshape(-1)
    lanes = m.tid[threads] % 32
    giving = lanes < 8 * count
    return threads[giving], addrs[giving]


def _check_whole_warps(m, ins, threads: np.ndarray) -> None:
    warps, sizes = np.unique(m.warp_of[threads], return_counts=True)
    if np.any(sizes != 32):
        raise SimError(f"{ins.opcode} needs every lane of the warp (a warp of "
                       f"{int(sizes[np.flatnonzero(sizes != 32)[0]])} threads executes it)",
                       ins.line, ins.text)


def _fragment_index(lanes: np.ndarray, trans: bool) -> tuple[np.ndarray, np.ndarray]:
    """For each lane, the (row, col) in the 8x8 matrix of the two 16-bit halves of its
    register, shape (lanes, 2) each (lower half first)."""
    row = (lanes // 4).reshape(-1, 1) * np.ones(2, np.int64)
    col = (2 * (lanes % 4)).reshape(-1, 1) + np.arange(2)
    return (col, row) if trans else (row, col)


def _matrix_op(ins: P.Instr, registers_at: int, what: str, move):
    """The instruction of ldmatrix / stmatrix: ``registers_at`` is the index of the
    register vector among the operands (the other is the address), ``what`` names its
    registers in diagnostics, and ``move(m, ins, threads, giving, addrs, registers, place,
    count)`` moves the rows of the warps' matrices, with ``place`` = (warp of each
    thread, (lanes, 2) rows, (lanes, 2) columns) of each register's two 16-bit halves
    (_fragment_index)."""
    count, trans = form(ins)

    def make(m, ins):
        registers, address_op = ins.operands[registers_at], ins.operands[1 - registers_at]
        registers = list(registers.items) if isinstance(registers, P.Vec) else [registers]
        if len(registers) != count:
            raise SimError(f"{ins.opcode} takes {count} {what} registers", ins.line,
                           ins.text)

        def run(ins, idx):
            m.check_warp_converged(ins, idx)
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                _check_whole_warps(m, ins, threads)
                giving, addrs = _row_addresses(m, ins, threads, address_op, count)
                warp = (np.arange(threads.size) // 32).reshape(-1, 1)
                r, c = _fragment_index(m.tid[threads] % 32, trans)
                move(m, ins, threads, giving, addrs, registers, (warp, r, c), count)
            m.advance(idx)
        return run
    return make


def ldmatrix(ins: P.Instr, memory: MemoryAccess):
    """``ldmatrix.sync.aligned.m8n8.xN{.trans}.shared{::cta}.b16 {d0..dN-1}, [a]``, which
    loads through ``memory`` (ops' loads)."""

    def move(m, ins, threads, giving, addrs, dsts, place, count):
        warp, r, c = place
        # 16 bytes per row as 8 halves: rows[warp, 8 * i + r, element]
        words = memory.load(m, "shared::cta", giving, addrs, 2, 8, ins)
        rows = words.reshape(threads.size // 32, 8 * count, 8)
        for i, d in enumerate(dsts):
            halves = rows[warp, 8 * i + r, c]
            value = halves[:, 0] | (halves[:, 1] << np.uint64(16))
            m.write(d.name, threads, value, 32, ins)

    return _matrix_op(ins, 0, "destination", move)


def stmatrix(ins: P.Instr, memory: MemoryAccess):
    """``stmatrix.sync.aligned.m8n8.xN{.trans}.shared{::cta}.b16 [a], {r0..rN-1}``, which
    stores through ``memory`` (ops' stores)."""

    def move(m, ins, threads, giving, addrs, srcs, place, count):
        warp, r, c = place
        rows = np.zeros((threads.size // 32, 8 * count, 8), np.uint64)
        for i, s in enumerate(srcs):
            value = np.asarray(m.read(s, threads, 32, ins), np.uint64) \
                * np.ones(threads.size, np.uint64)
            halves = np.stack([value & np.uint64(0xFFFF), value >> np.uint64(16)], axis=1)
            rows[warp, 8 * i + r, c] = halves
        memory.store(m, "shared::cta", giving, addrs, 2, 8, rows.reshape(-1, 8), ins)

    return _matrix_op(ins, 1, "source", move)
