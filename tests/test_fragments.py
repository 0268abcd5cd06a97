"""Tests of tcgen05_lower.isa.fragments against Table 47 and tmem-facts.md section 2.

Expected values are transcribed from the ISA (Table 47) or tmem-facts.md, or derived by
hand in a comment next to them; none was produced by running the code under test.
"""

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.fragments import (
    LD_ST_SHAPES,
    NUMS,
    columns_per_access,
    fragment_cell,
    fragment_cells,
    lanes_per_access,
    registers_per_thread,
    valid_nums,
)
from tcgen05_lower.isa.layouts import tmem_to_d

# Table 47 as printed: .num -> registers for (.16x32bx2 / .16x64b / .32x32b, .16x128b,
# .16x256b); None = NA.
TABLE_47 = {
    1: (1, 2, 4),
    2: (2, 4, 8),
    4: (4, 8, 16),
    8: (8, 16, 32),
    16: (16, 32, 64),
    32: (32, 64, 128),
    64: (64, 128, None),
    128: (128, None, None),
}
COLUMN_OF = {"16x32bx2": 0, "16x64b": 0, "32x32b": 0, "16x128b": 1, "16x256b": 2}

ALL_PAIRS = [(shape, num) for shape in LD_ST_SHAPES for num in NUMS]
VALID_PAIRS = [(s, n) for s, n in ALL_PAIRS if TABLE_47[n][COLUMN_OF[s]] is not None]


def test_constants():
    assert LD_ST_SHAPES == ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
    assert NUMS == (1, 2, 4, 8, 16, 32, 64, 128)


@pytest.mark.parametrize("shape,num", ALL_PAIRS)
def test_registers_per_thread_table_47(shape, num):
    expected = TABLE_47[num][COLUMN_OF[shape]]
    if expected is None:
        with pytest.raises(IsaRuleError) as exc:
            registers_per_thread(shape, num)
        assert exc.value.rule == "Table 47"
    else:
        assert registers_per_thread(shape, num) == expected


def test_valid_nums():
    # Table 47: .x128 only for the 32-bit-wide shapes, .x64 at most for .16x128b,
    # .x32 at most for .16x256b.
    assert valid_nums("32x32b") == NUMS
    assert valid_nums("16x64b") == NUMS
    assert valid_nums("16x32bx2") == NUMS
    assert valid_nums("16x128b") == NUMS[:-1]
    assert valid_nums("16x256b") == NUMS[:-2]


@pytest.mark.parametrize("bad", [("32x64b", 1), ("16x32b", 1), ("32x32b", 3),
                                 ("32x32b", 256), ("32x32b", 0)])
def test_unknown_shape_or_num(bad):
    with pytest.raises(IsaRuleError):
        registers_per_thread(*bad)


def test_lanes_and_columns_per_access():
    # 9.7.16.2.3: "lane x size"; size bits / 32 columns per repetition, times .num.
    assert [lanes_per_access(s) for s in LD_ST_SHAPES] == [32, 16, 16, 16, 16]
    assert columns_per_access("32x32b", 4) == 4
    assert columns_per_access("16x64b", 4) == 8
    assert columns_per_access("16x128b", 4) == 16
    assert columns_per_access("16x256b", 4) == 32
    assert columns_per_access("16x32bx2", 4) == 8        # two halves of 4
    with pytest.raises(IsaRuleError):
        columns_per_access("16x256b", 64)


@pytest.mark.parametrize("shape,num", VALID_PAIRS)
def test_cells_times_lanes_equals_registers_times_threads(shape, num):
    # Every register moves one 32-bit cell, so 32 x regs = lanes x columns.
    assert 32 * registers_per_thread(shape, num) == (
        lanes_per_access(shape) * columns_per_access(shape, num))


def _bijection(shape, num, lane0, col0, half_split):
    kw = {} if half_split is None else {"half_split": half_split}
    cells = fragment_cells(shape, num, lane0=lane0, col0=col0, **kw)
    assert len(cells) == 32 * registers_per_thread(shape, num)
    assert len(set(cells.values())) == len(cells)          # each cell exactly once
    lanes = range(lane0, lane0 + lanes_per_access(shape))
    if half_split is None:
        cols = range(col0, col0 + columns_per_access(shape, num))
    else:
        cols = [*range(col0, col0 + num), *range(col0 + half_split, col0 + half_split + num)]
    assert set(cells.values()) == set(itertools.product(lanes, cols))
    assert len(set(cells.values())) == lanes_per_access(shape) * columns_per_access(shape, num)


@pytest.mark.parametrize("shape,num", VALID_PAIRS)
def test_fragment_is_a_bijection(shape, num):
    half = num if shape == "16x32bx2" else None      # halves side by side
    _bijection(shape, num, 0, 0, half)


@pytest.mark.parametrize("shape,num", VALID_PAIRS)
def test_fragment_is_a_bijection_at_an_offset(shape, num):
    lane0 = 96 if shape == "32x32b" else 112        # last quarter (upper half for 16 lanes)
    half = num + 5 if shape == "16x32bx2" else None  # halves with a gap between them
    col0 = 256 if shape != "16x32bx2" else 200
    _bijection(shape, num, lane0, col0, half)


@pytest.mark.parametrize("shape,num,thread,reg,kw,expected", [
    # .32x32b: (L0 + l, C0 + r): 64+7, 16+9.
    ("32x32b", 4 * 4, 7, 9, dict(lane0=64, col0=16), (71, 25)),
    # .16x64b: (L0 + l/4 + 8*(l%2), C0 + (l/2)%2 + 2r)
    #   l=5, r=3: 1 + 8*1 = 9;  (2)%2=0 + 6 = 6.
    ("16x64b", 4, 5, 3, {}, (9, 6)),
    #   l=2, r=0: 0 + 0 = 0; (1)%2 = 1 -> column 1.
    ("16x64b", 1, 2, 0, {}, (0, 1)),
    #   l=31, r=1, L0=16, C0=100: 7 + 8 = 15 -> 31; (15)%2 = 1 + 2 = 3 -> 103.
    ("16x64b", 2, 31, 1, dict(lane0=16, col0=100), (31, 103)),
    # .16x128b: (L0 + l/4 + 8*(r%2), C0 + l%4 + 4*(r/2))
    #   l=13, r=5: 3 + 8 = 11; 1 + 8 = 9.
    ("16x128b", 4, 13, 5, {}, (11, 9)),
    #   l=0, r=1: 0 + 8 = 8; 0 + 0 = 0.
    ("16x128b", 1, 0, 1, {}, (8, 0)),
    # .16x256b: (L0 + l/4 + 8*((r/2)%2), C0 + r%2 + 2*(l%4) + 8*(r/4))
    #   l=22, r=6: 5 + 8*(3%2=1) = 13; 0 + 2*2 + 8*1 = 12.
    ("16x256b", 2, 22, 6, {}, (13, 12)),
    #   l=1, r=1: 0 + 0 = 0; 1 + 2 + 0 = 3.
    ("16x256b", 1, 1, 1, {}, (0, 3)),
    #   l=31, r=7: 7 + 8*(3%2=1) = 15; 1 + 2*3 + 8*1 = 15.
    ("16x256b", 2, 31, 7, {}, (15, 15)),
    # .16x32bx2: (L0 + l%16, C0 + r + (l/16)*imm)
    #   l=20, r=2, imm=8: 4; 2 + 8 = 10.
    ("16x32bx2", 4, 20, 2, dict(half_split=8), (4, 10)),
    #   l=3, r=2: first half: 3; 2.
    ("16x32bx2", 4, 3, 2, dict(half_split=8), (3, 2)),
    #   l=31, r=0, imm=32, L0=48, C0=10: 48+15 = 63; 10 + 0 + 32 = 42.
    ("16x32bx2", 1, 31, 0, dict(half_split=32, lane0=48, col0=10), (63, 42)),
])
def test_fragment_spot_values(shape, num, thread, reg, kw, expected):
    assert fragment_cell(shape, num, thread=thread, reg=reg, **kw) == expected


@settings(max_examples=200, deadline=None)
@given(pair=st.sampled_from(VALID_PAIRS), data=st.data())
def test_fragment_cell_stays_in_the_access(pair, data):
    shape, num = pair
    lanes = lanes_per_access(shape)
    lane0 = data.draw(st.sampled_from([q * 32 + o for q in range(4)
                                       for o in ((0,) if lanes == 32 else (0, 16))]))
    col0 = data.draw(st.integers(0, 512 - 2 * columns_per_access(shape, num)))
    thread = data.draw(st.integers(0, 31))
    reg = data.draw(st.integers(0, registers_per_thread(shape, num) - 1))
    kw = dict(half_split=num) if shape == "16x32bx2" else {}
    lane, column = fragment_cell(shape, num, thread=thread, reg=reg, lane0=lane0,
                                 col0=col0, **kw)
    assert lane0 <= lane < lane0 + lanes
    assert col0 <= column < col0 + columns_per_access(shape, num)
    # All cells of one warp's access lie in that warp's quarter (9.7.16.8.1).
    assert lane // 32 == lane0 // 32


def test_fragment_rejections():
    with pytest.raises(IsaRuleError):
        fragment_cell("16x32bx2", 1, thread=0, reg=0)                 # immHalfSplitoff needed
    with pytest.raises(IsaRuleError):
        fragment_cell("32x32b", 1, thread=0, reg=0, half_split=1)     # only for .16x32bx2
    with pytest.raises(IsaRuleError):
        fragment_cell("16x32bx2", 1, thread=0, reg=0, half_split=-1)
    with pytest.raises(IsaRuleError):
        fragment_cell("32x32b", 1, thread=32, reg=0)
    with pytest.raises(IsaRuleError):
        fragment_cell("16x128b", 1, thread=0, reg=2)                  # 2 registers: 0, 1
    with pytest.raises(IsaRuleError):
        fragment_cell("32x32b", 1, thread=0, reg=0, lane0=16)         # crosses a quarter
    with pytest.raises(IsaRuleError):
        fragment_cell("16x64b", 1, thread=0, reg=0, lane0=24)         # crosses a quarter
    with pytest.raises(IsaRuleError):
        fragment_cell("32x32b", 16, thread=0, reg=0, col0=500)        # 500+16 > 512
    with pytest.raises(IsaRuleError):
        fragment_cell("16x32bx2", 4, thread=0, reg=0, col0=500, half_split=10)
    with pytest.raises(IsaRuleError):
        fragment_cell("16x256b", 64, thread=0, reg=0)                 # NA in Table 47


def test_half_split_overlap_is_allowed_but_not_a_bijection():
    # immHalfSplitoff < num makes the two .16x32b halves overlap (documented behaviour).
    cells = fragment_cells("16x32bx2", 4, half_split=2)
    assert len(set(cells.values())) == 16 * 6       # columns 0..5, not 8 distinct


# ---------------------------------------------------------------------------------------
# Fragments together with the data-path layouts (tmem-facts section 1, "How a warpgroup
# reads its rows of D").
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,num", [("16x64b", 2), ("16x128b", 2), ("16x256b", 1),
                                       ("16x32bx2", 4)])
@pytest.mark.parametrize("lane_offset", [0, 16])
def test_layout_f_warp_w_reads_rows_16w_to_16w_plus_15(shape, num, lane_offset):
    # F: a 16-lane shape at base + ((32w) << 16) + col, base carrying the lane offset a;
    # warp w gets rows 16w .. 16w+15.
    n = 64
    kw = dict(half_split=num) if shape == "16x32bx2" else {}
    for w in range(4):
        cells = fragment_cells(shape, num, lane0=32 * w + lane_offset, col0=0, **kw)
        rows = {tmem_to_d("F", m=64, n=n, cta=0, lane=lane, column=col,
                          lane_offset=lane_offset)[0]
                for lane, col in cells.values()}
        assert rows == set(range(16 * w, 16 * w + 16))


def test_layout_d_with_16_lane_shapes_needs_two_accesses_per_warp():
    # A, D with 16-lane shapes: two accesses per warp at lane offsets 32w and 32w+16.
    for w in range(4):
        rows = set()
        for offset in (0, 16):
            for lane, col in fragment_cells("16x256b", 1, lane0=32 * w + offset).values():
                rows.add(tmem_to_d("D", m=128, n=64, cta=0, lane=lane, column=col)[0])
        assert rows == set(range(32 * w, 32 * w + 32))


def test_layout_d_32x32b_thread_l_reads_row_32w_plus_l():
    for w in range(4):
        cells = fragment_cells("32x32b", 8, lane0=32 * w, col0=8)
        for (thread, reg), (lane, col) in cells.items():
            assert tmem_to_d("D", m=128, n=64, cta=0, lane=lane, column=col) == (
                32 * w + thread, 8 + reg)
