"""Every warpgroup load and store the lowering can emit moves every element of its slice
of D exactly once, and nothing else (issue 5, acceptance 1).

For each layout A-G (both readings of C), each message shape the lowering may choose for
it (``addressing.ACCESS_SHAPES``) with its narrowest and widest .num, with and without
.pack::16b, N in {8, 16, 64, 256} where the layout can fold N, both lane offsets of F and
C, and both CTAs of a cta_group::2 pair, the test takes what the lowering emits -- which
warps take part (``block_offset``), the taddr of each message (``message_address``) and
the element it believes each register holds (``element``) -- and checks it against two
independent models:

- the register -> TMEM cell mapping of the message shape (``fragments.fragment_cell``,
  tmem-facts section 2 / Table 47), and
- the data-path layout (``layouts.tmem_to_d`` for loads, ``layouts.d_to_tmem`` for
  stores; tmem-facts section 1).

Loads: the cell each register reads, mapped back through the layout's inverse, is the
element the lowering says it holds; no register reads a cell outside D or outside the
slice; the elements read are the slice, each once. Stores: the cell each register writes
is the cell the layout gives the element the register holds; the cells written are the
slice's, each once. Besides the whole of D, folded layouts (B, E, G, C read as B) are
checked on slices inside one column block, which only that block's warps read.

The address formulas are plain operators, so the test runs them on NumPy arrays (all
threads and registers of a warp at once); both models are tabulated once per buffer
geometry by calling them cell by cell.
"""

import functools
import itertools

import numpy as np
import pytest

from tcgen05_lower.isa import addressing, fragments, layouts
from tcgen05_lower.isa.addressing import WarpgroupAccess

NS = (8, 16, 64, 256)
#: (layout, Layout-C reading) pairs: C is checked under both readings.
LAYOUT_CASES = [("A", "F"), ("B", "F"), ("C", "F"), ("C", "B"), ("D", "F"), ("E", "F"),
                ("F", "F"), ("G", "F")]
COLUMN_OFFSET = 64  # the buffer's first TMEM column: columns below are relative to it


@functools.lru_cache(maxsize=None)
def fragment_table(shape, num, pack16, half_split):
    """The fragment model at taddr (0, 0) as arrays dl[thread, reg, half], dc[...]."""
    regs = fragments.registers_per_thread(shape, num)
    halves = 2 if pack16 else 1
    dl = np.zeros((32, regs, halves), dtype=np.int64)
    dc = np.zeros_like(dl)
    for thread, reg, half in itertools.product(range(32), range(regs), range(halves)):
        kw = dict(pack16=True, half=half) if pack16 else {}
        dl[thread, reg, half], dc[thread, reg, half] = fragments.fragment_cell(
            shape, num, thread=thread, reg=reg, half_split=half_split, **kw)
    return dl, dc


@functools.lru_cache(maxsize=None)
def inverse_table(layout, layout_c, n, lane_offset, cta):
    """layouts.tmem_to_d for every cell of the CTA's TMEM columns [0, N): arrays
    row[lane, column], col[...], -1 where the cell holds no element of D."""
    m = layouts.LAYOUTS[layout].m
    row = np.full((128, n), -1, dtype=np.int64)
    col = np.full((128, n), -1, dtype=np.int64)
    for lane, column in itertools.product(range(128), range(n)):
        got = layouts.tmem_to_d(layout, m=m, n=n, cta=cta, lane=lane, column=column,
                                lane_offset=lane_offset, layout_c=layout_c)
        if got is not None:
            row[lane, column], col[lane, column] = got
    return row, col


@functools.lru_cache(maxsize=None)
def forward_table(layout, layout_c, n, lane_offset, cta):
    """layouts.d_to_tmem for the rows of D this CTA holds: arrays lane[row, col],
    column[row, col] (rows relative to the CTA's first row)."""
    m = layouts.LAYOUTS[layout].m
    rows = layouts.rows_of_cta(layout, m, cta)
    lane = np.zeros((len(rows), n), dtype=np.int64)
    column = np.zeros_like(lane)
    for i, c in itertools.product(range(len(rows)), range(n)):
        got_cta, lane[i, c], column[i, c] = layouts.d_to_tmem(
            layout, m=m, n=n, row=rows[i], col=c, lane_offset=lane_offset,
            layout_c=layout_c)
        assert got_cta == cta
    return lane, column


def nums_to_check(shape, warp_columns, pack16, op):
    """The narrowest and the widest .num whose message tiles the warp's columns."""
    fitting = [num for num in fragments.valid_nums(shape)
               if warp_columns % fragments.columns_per_access(shape, num, pack16=pack16) == 0
               and (op != "ld_red" or num >= 2)]
    return sorted({fitting[0], fitting[-1]}) if fitting else []


def accesses(layout, layout_c, n, op):
    """Every (access, column) covered for one buffer: the whole of D (not for ld.red of
    a folded layout, which must stay inside one block), and for folded layouts slices
    inside one column block."""
    geo = layouts.geometry(layout, layout_c)
    block = geo.block_columns(n)
    slices = [] if (op == "ld_red" and geo.fold > 1) else [(n, 0)]
    if geo.fold > 1:
        slices.append((block, n - block))
        if block >= 4:
            slices.append((block // 2, block // 2))
    kind = "half" if geo.half else "full"
    for width, column in slices:
        warp_columns = min(width, block)
        for shape in addressing.ACCESS_SHAPES[(kind, op)]:
            for pack16 in ((False, True) if op != "ld_red" else (False,)):
                for num in nums_to_check(shape, warp_columns, pack16, op):
                    columns = fragments.columns_per_access(shape, num, pack16=pack16)
                    split = columns // 2 if shape == "16x32bx2" else None
                    yield WarpgroupAccess.create(
                        layout, n=n, width=width, shape=shape, num=num, pack16=pack16,
                        half_split=split, layout_c=layout_c, op=op), column


def warpgroup(access, *, column, lane_offset, cta):
    """For every warp that takes part: (warp, rows, cols, lanes, tcols) as arrays over
    [thread, reg, half] -- the element the lowering assigns to each register (row of D,
    column relative to the slice) and the TMEM cell the message moves (lane, column
    relative to the buffer's first column)."""
    dl, dc = fragment_table(access.shape, access.num, access.pack16, access.half_split)
    threads = np.arange(32).reshape(32, 1, 1)
    regs = np.arange(access.registers).reshape(1, -1, 1)
    halves = np.arange(2 if access.pack16 else 1).reshape(1, 1, -1)
    for warp in range(4):
        offset = addressing.block_offset(access, warp, column)
        if not 0 <= offset < access.blocks:
            continue
        for message in range(access.messages):
            lane, col = addressing.message_address(access, warp=warp, message=message,
                                                   column=column)
            # The fragment model's own checks: a message stays in its warp's quarter
            # (9.7.16.8.1) and inside the 512 columns.
            fragments.fragment_cell(access.shape, access.num, thread=0, reg=0,
                                    lane0=lane_offset + lane, col0=COLUMN_OFFSET + col,
                                    half_split=access.half_split, pack16=access.pack16)
            assert (lane_offset + lane) // 32 == warp
        message = regs // access.message_registers
        lane, col = addressing.message_address(access, warp=warp, message=message,
                                               column=column)
        r = regs % access.message_registers
        lanes = lane_offset + lane + dl[threads, r, halves]
        tcols = col + dc[threads, r, halves]
        rows, cols = addressing.element(access, warp=warp, thread=threads, reg=regs,
                                        half=halves, cta=cta, column=column)
        shape = np.broadcast_shapes(lanes.shape, rows.shape)
        yield (warp, np.broadcast_to(rows, shape), np.broadcast_to(cols, shape),
               np.broadcast_to(lanes, shape), np.broadcast_to(tcols, shape))


def geometry_cases(layout, layout_c):
    geo = layouts.geometry(layout, layout_c)
    return [(a, cta) for a in geo.alignments for cta in range(geo.cta_group)]


def cases():
    return [pytest.param(layout, layout_c, n,
                         id=f"{layout}{'-as-' + layout_c if layout == 'C' else ''}-N{n}")
            for layout, layout_c in LAYOUT_CASES for n in NS
            if n % layouts.geometry(layout, layout_c).fold == 0]


def assert_exactly_the_slice(codes, layout, width, cta):
    """`codes` (row * width + column per element moved) name every element of the
    CTA's rows x [0, width) exactly once."""
    rows = layouts.rows_of_cta(layout, layouts.LAYOUTS[layout].m, cta)
    want = np.arange(rows[0] * width, (rows[-1] + 1) * width)
    assert np.array_equal(np.sort(codes), want)


@pytest.mark.parametrize("layout,layout_c,n", cases())
def test_loads_read_every_element_of_the_slice_once(layout, layout_c, n):
    checked = 0
    for access, column in accesses(layout, layout_c, n, "ld"):
        for lane_offset, cta in geometry_cases(layout, layout_c):
            inv_row, inv_col = inverse_table(layout, layout_c, n, lane_offset, cta)
            read = []
            for warp, rows, cols, lanes, tcols in warpgroup(access, column=column,
                                                            lane_offset=lane_offset,
                                                            cta=cta):
                assert (tcols >= 0).all() and (tcols < n).all(), access
                model_row, model_col = inv_row[lanes, tcols], inv_col[lanes, tcols]
                assert (model_row >= 0).all(), ("reads a cell outside D", access, warp)
                assert ((model_col >= column) & (model_col < column + access.width)).all(), (
                    "reads outside the slice", access, warp)
                assert (rows == model_row).all() and (cols == model_col - column).all(), (
                    access, warp)
                read.append(rows.ravel() * access.width + cols.ravel())
            assert_exactly_the_slice(np.concatenate(read), layout, access.width, cta)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("layout,layout_c,n", cases())
def test_stores_write_every_element_of_the_slice_once(layout, layout_c, n):
    m = layouts.LAYOUTS[layout].m
    checked = 0
    for access, column in accesses(layout, layout_c, n, "st"):
        for lane_offset, cta in geometry_cases(layout, layout_c):
            fw_lane, fw_column = forward_table(layout, layout_c, n, lane_offset, cta)
            first_row = layouts.rows_of_cta(layout, m, cta)[0]
            written = []
            for warp, rows, cols, lanes, tcols in warpgroup(access, column=column,
                                                            lane_offset=lane_offset,
                                                            cta=cta):
                assert ((cols >= 0) & (cols < access.width)).all(), access
                local = rows - first_row
                assert ((local >= 0) & (local < len(fw_lane))).all(), (access, warp)
                assert (fw_lane[local, column + cols] == lanes).all(), (access, warp)
                assert (fw_column[local, column + cols] == tcols).all(), (access, warp)
                written.append(rows.ravel() * access.width + cols.ravel())
            # Each cell written is the layout's cell of the element (above), so elements
            # written exactly once means cells written exactly once.
            assert_exactly_the_slice(np.concatenate(written), layout, access.width, cta)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("layout,layout_c,n", cases())
def test_reductions_cover_every_row_once(layout, layout_c, n):
    """tcgen05.ld.red: every register feeding a reduction slot holds that slot's row, and
    each row of the slice is owned by exactly one thread's slot."""
    m = layouts.LAYOUTS[layout].m
    for access, column in accesses(layout, layout_c, n, "ld_red"):
        for lane_offset, cta in geometry_cases(layout, layout_c):
            owners = []
            for warp, rows, cols, lanes, tcols in warpgroup(access, column=column,
                                                            lane_offset=lane_offset,
                                                            cta=cta):
                threads = np.arange(32)
                for reg in range(access.registers):
                    slot = (reg // access.message_registers) % access.lane_halves
                    assert (rows[:, reg, 0] == addressing.reduced_row(
                        access, warp=warp, thread=threads, slot=slot, cta=cta)).all()
                owner = np.broadcast_to(addressing.reduced_copy(access, threads) == 0, (32,))
                for s in range(addressing.reduced_slots(access)):
                    slot_rows = addressing.reduced_row(access, warp=warp, thread=threads,
                                                       slot=s, cta=cta)
                    owners += np.broadcast_to(slot_rows, (32,))[owner].tolist()
            assert sorted(owners) == list(layouts.rows_of_cta(layout, m, cta)), access


def test_folded_layouts_refuse_slices_across_a_block_boundary():
    # Layout E, N = 64: columns [0, 32) on lanes 0-63, [32, 64) on lanes 64-127. A
    # 48-column slice neither fits in one block nor consists of whole blocks.
    with pytest.raises(Exception, match="whole blocks"):
        WarpgroupAccess.create("E", n=64, width=48, shape="32x32b", num=16)
    with pytest.raises(Exception, match="one block"):
        WarpgroupAccess.create("E", n=64, width=64, shape="32x32b", num=32, op="ld_red")


def test_half_datapath_layouts_refuse_32_lane_messages():
    with pytest.raises(Exception, match="other 16 lanes"):
        WarpgroupAccess.create("F", n=64, width=64, shape="32x32b", num=64)


def test_warps_that_take_part():
    """Which warps read a slice (tmem-facts section 1): all four for A, D, F and whole
    folded buffers; the two warps of a column half for B and E; one warp per quarter
    block for G."""
    def taking_part(layout, n, width, column):
        access = WarpgroupAccess.create(layout, n=n, width=width, shape="32x32b",
                                        num=min(width, n // layouts.geometry(layout).fold))
        return [w for w in range(4)
                if 0 <= addressing.block_offset(access, w, column) < access.blocks]
    assert taking_part("D", 256, 32, 64) == [0, 1, 2, 3]
    assert taking_part("E", 256, 256, 0) == [0, 1, 2, 3]
    assert taking_part("E", 256, 32, 0) == [0, 1]
    assert taking_part("E", 256, 32, 160) == [2, 3]
    assert taking_part("B", 128, 64, 64) == [2, 3]
    assert taking_part("G", 256, 64, 128) == [2]
    assert taking_part("G", 256, 128, 128) == [2, 3]
