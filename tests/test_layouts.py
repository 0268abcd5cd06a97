"""Tests of tcgen05_lower.isa.layouts against PTX ISA 9.7.16.10.5 and tmem-facts.md.

Every expected value below is transcribed from the ISA text or tmem-facts.md, or derived
by hand in a comment next to it; none was produced by running the code under test.
"""

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.layouts import (
    check_d_shape,
    LAYOUTS,
    Footprint,
    a_row_lanes,
    a_tmem_footprint,
    d_footprint,
    d_to_tmem,
    rows_of_cta,
    scale_factor_cells,
    scale_factor_footprint,
    select_layout,
    sparse_metadata_footprint,
    tmem_to_d,
)

ALL = ((0, 128),)
HALF0 = ((0, 16), (32, 16), (64, 16), (96, 16))
HALF16 = ((16, 16), (48, 16), (80, 16), (112, 16))

# ---------------------------------------------------------------------------------------
# select_layout: the 9.7.16.10.5 table, row by row ("Either" expanded to both values;
# ".ws N/A" for cta_group::2 means no .ws form, so only ws=False).
# ---------------------------------------------------------------------------------------

TABLE_ROWS = [
    # (M, cta_group, sparse values, ws values, layout, lane alignment)
    (32, 1, (False, True), (True,), "G", (0,)),
    (64, 1, (False, True), (True,), "E", (0,)),
    (64, 1, (False, True), (False,), "F", (0, 16)),
    (128, 1, (False, True), (False, True), "D", (0,)),
    (128, 2, (False,), (False,), "B", (0,)),
    (128, 2, (True,), (False,), "C", (0, 16)),
    (256, 2, (False, True), (False,), "A", (0,)),
]

SELECT_CASES = [
    (m, cg, sp, ws, name)
    for m, cg, sps, wss, name, _ in TABLE_ROWS
    for sp in sps
    for ws in wss
]


@pytest.mark.parametrize("m,cta_group,sparse,ws,expected", SELECT_CASES)
def test_select_layout_table_rows(m, cta_group, sparse, ws, expected):
    assert select_layout(m=m, cta_group=cta_group, sparse=sparse, ws=ws) == expected


@pytest.mark.parametrize("m,cta_group,sparse,ws,name,alignments", TABLE_ROWS)
def test_layout_info_matches_table(m, cta_group, sparse, ws, name, alignments):
    info = LAYOUTS[name]
    assert (info.name, info.m, info.cta_group) == (name, m, cta_group)
    assert info.lane_alignments == alignments
    # "1/2 datapath utilized" rows are exactly F and C.
    assert info.half_datapath == (name in ("F", "C"))
    assert info.rows_per_cta == m // cta_group
    assert info.description


def test_layout_fold_factors():
    # tmem-facts section 1: B and E fold N into N/2 columns, G into N/4, others N.
    assert {n: i.column_fold for n, i in LAYOUTS.items()} == {
        "A": 1, "B": 2, "C": 1, "D": 1, "E": 2, "F": 1, "G": 4}


def test_every_input_combination_has_at_most_one_layout():
    # Exhaustive over the inputs: the table's rows do not overlap, and everything not in
    # SELECT_CASES is rejected.
    accepted = {(m, cg, sp, ws): name for m, cg, sp, ws, name in SELECT_CASES}
    for m, cg, sp, ws in itertools.product((16, 32, 64, 128, 256, 512), (1, 2),
                                            (False, True), (False, True)):
        key = (m, cg, sp, ws)
        if key in accepted:
            assert select_layout(m=m, cta_group=cg, sparse=sp, ws=ws) == accepted[key]
        else:
            with pytest.raises(IsaRuleError):
                select_layout(m=m, cta_group=cg, sparse=sp, ws=ws)


@pytest.mark.parametrize("kw", [
    dict(m=32, cta_group=1, ws=False),        # M=32 exists only with .ws
    dict(m=32, cta_group=2, ws=True),
    dict(m=64, cta_group=2),
    dict(m=256, cta_group=1),
    dict(m=128, cta_group=2, ws=True),        # .ws has no cta_group::2 form
    dict(m=256, cta_group=2, ws=True),
    dict(m=128, cta_group=3),
    dict(m=96, cta_group=1),
])
def test_select_layout_rejections(kw):
    with pytest.raises(IsaRuleError) as exc:
        select_layout(**kw)
    assert exc.value.rule == "9.7.16.10.5"
    assert f"M={kw['m']}" in str(exc.value)
    assert f"cta_group::{kw['cta_group']}" in str(exc.value)


def test_unknown_layout_name():
    with pytest.raises(IsaRuleError):
        d_footprint("H", 64)


# ---------------------------------------------------------------------------------------
# d_to_tmem / tmem_to_d: properties, for every layout (and every reading of C and lane
# offset) and N in {8, 16, 64, 256} where N is divisible by the layout's fold.
# ---------------------------------------------------------------------------------------

CONFIGS = [
    # (layout, lane_offset, layout_c)
    ("A", 0, "F"), ("B", 0, "F"), ("C", 0, "F"), ("C", 16, "F"), ("C", 0, "B"),
    ("D", 0, "F"), ("E", 0, "F"), ("F", 0, "F"), ("F", 16, "F"), ("G", 0, "F"),
]
NS = (8, 16, 64, 256)
PROPERTY_CASES = [
    (layout, a, lc, n)
    for layout, a, lc in CONFIGS
    for n in NS
    if n % (2 if (layout == "C" and lc == "B") else LAYOUTS[layout].column_fold) == 0
]


def _ctas(layout):
    return range(LAYOUTS[layout].cta_group)


@pytest.mark.parametrize("layout,lane_offset,layout_c,n", PROPERTY_CASES)
def test_d_mapping_is_a_bijection_onto_the_footprint(layout, lane_offset, layout_c, n):
    m = LAYOUTS[layout].m
    kw = dict(lane_offset=lane_offset, layout_c=layout_c)
    fp = d_footprint(layout, n, **kw)
    seen = {}
    for row in range(m):
        for col in range(n):
            cta, lane, column = d_to_tmem(layout, m=m, n=n, row=row, col=col, **kw)
            assert cta in _ctas(layout)
            assert fp.contains(lane, column)
            assert (cta, lane, column) not in seen          # injective
            seen[(cta, lane, column)] = (row, col)
            assert tmem_to_d(layout, m=m, n=n, cta=cta, lane=lane, column=column,
                             **kw) == (row, col)
    # D fills its footprint in every CTA exactly: M*N elements = ctas x footprint cells.
    assert len(seen) == m * n == len(_ctas(layout)) * fp.num_cells
    # Cells outside the footprint (other lanes, the column just past it) hold nothing.
    for cta in _ctas(layout):
        for lane in range(128):
            for column in (fp.columns - 1, fp.columns):
                got = tmem_to_d(layout, m=m, n=n, cta=cta, lane=lane, column=column, **kw)
                assert (got is not None) == fp.contains(lane, column)


@settings(max_examples=200, deadline=None)
@given(case=st.sampled_from(PROPERTY_CASES), data=st.data())
def test_d_mapping_round_trip_random(case, data):
    layout, lane_offset, layout_c, n = case
    m = LAYOUTS[layout].m
    row = data.draw(st.integers(0, m - 1))
    col = data.draw(st.integers(0, n - 1))
    kw = dict(lane_offset=lane_offset, layout_c=layout_c)
    cta, lane, column = d_to_tmem(layout, m=m, n=n, row=row, col=col, **kw)
    assert tmem_to_d(layout, m=m, n=n, cta=cta, lane=lane, column=column, **kw) == (row, col)
    # The row's CTA is the one rows_of_cta assigns it to.
    assert row in rows_of_cta(layout, m, cta)


# Hand-checked spot values. Each derivation applies tmem-facts section 1's formula.
SPOTS = [
    # A, M=256, N=64: row 130 -> odd CTA (rows 128..255), r_loc=2 -> lane 2; column = col.
    ("A", {}, 64, 130, 5, (1, 2, 5)),
    ("A", {}, 256, 127, 255, (0, 127, 255)),
    # B, N=64 (N/2=32): row 5, col N/2+3=35 -> lane 5+64*1=69, column 35 mod 32 = 3.
    ("B", {}, 64, 5, 35, (0, 69, 3)),
    # B: row 70 -> odd CTA, r_loc 6; col 3 < N/2 -> lane 6, column 3.
    ("B", {}, 64, 70, 3, (1, 6, 3)),
    # B, N=256 (N/2=128): row 64+5, col 128+3 -> odd CTA, lane 5+64=69, column 3.
    ("B", {}, 256, 69, 131, (1, 69, 3)),
    # C as F, a=0: row 20 -> r_loc 20 -> 32*(20 div 16) + 20 mod 16 = 32+4 = 36.
    ("C", {}, 64, 20, 7, (0, 36, 7)),
    ("C", {"lane_offset": 16}, 64, 20, 7, (0, 52, 7)),
    # C as F: row 111 -> odd CTA, r_loc 47 -> 32*2 + 15 = 79; +16 with a=16 -> 95.
    ("C", {}, 64, 111, 0, (1, 79, 0)),
    ("C", {"lane_offset": 16}, 64, 111, 0, (1, 95, 0)),
    # C as B: same as B's value above.
    ("C", {"layout_c": "B"}, 64, 5, 35, (0, 69, 3)),
    ("C", {"layout_c": "B"}, 64, 70, 3, (1, 6, 3)),
    # D: row r -> lane r, col c -> column c.
    ("D", {}, 16, 100, 9, (0, 100, 9)),
    # E, N=64: row 10, col 40 -> 40 div 32 = 1 -> lane 10+64 = 74, column 40 mod 32 = 8.
    ("E", {}, 64, 10, 40, (0, 74, 8)),
    ("E", {}, 64, 63, 31, (0, 63, 31)),
    # F: row 17 -> 32*1 + 1 = 33 (a=0) or 49 (a=16); row 63 -> 32*3 + 15 = 111 / 127.
    ("F", {}, 64, 17, 3, (0, 33, 3)),
    ("F", {"lane_offset": 16}, 64, 17, 3, (0, 49, 3)),
    ("F", {}, 64, 63, 63, (0, 111, 63)),
    ("F", {"lane_offset": 16}, 64, 63, 63, (0, 127, 63)),
    # G, N=64 (N/4=16): row 7, col 50 -> 50 div 16 = 3 -> lane 7+96 = 103, column 2.
    ("G", {}, 64, 7, 50, (0, 103, 2)),
    ("G", {}, 256, 31, 64, (0, 63, 0)),   # 64 div 64 = 1 -> lane 31+32, column 0
]


@pytest.mark.parametrize("layout,kw,n,row,col,expected", SPOTS)
def test_d_to_tmem_spot_values(layout, kw, n, row, col, expected):
    m = LAYOUTS[layout].m
    assert d_to_tmem(layout, m=m, n=n, row=row, col=col, **kw) == expected
    cta, lane, column = expected
    assert tmem_to_d(layout, m=m, n=n, cta=cta, lane=lane, column=column, **kw) == (row, col)


@pytest.mark.parametrize("n", NS)
def test_warpgroup_read_statements(n):
    """tmem-facts section 1, "How a warpgroup reads its rows of D": thread l of warp w
    reading column col of the 32x32b access at lane 32w sees
      A, D: row 32w + l;  B, E: row 32*(w & 1) + l at column (w >> 1)*N/2 + col;
      G: row l at column w*N/4 + col;  F: warp w holds rows 16w .. 16w+15."""
    for w, l in itertools.product(range(4), range(32)):
        lane = 32 * w + l
        assert tmem_to_d("D", m=128, n=n, cta=0, lane=lane, column=0) == (32 * w + l, 0)
        for cta in (0, 1):
            assert tmem_to_d("A", m=256, n=n, cta=cta, lane=lane, column=0) == (
                128 * cta + 32 * w + l, 0)
        for col in range(n // 2):
            want = (32 * (w & 1) + l, (w >> 1) * n // 2 + col)
            assert tmem_to_d("E", m=64, n=n, cta=0, lane=lane, column=col) == want
            assert tmem_to_d("B", m=128, n=n, cta=1, lane=lane, column=col) == (
                want[0] + 64, want[1])
        for col in range(n // 4):
            assert tmem_to_d("G", m=32, n=n, cta=0, lane=lane, column=col) == (
                l, w * n // 4 + col)
        for a in (0, 16):
            got = tmem_to_d("F", m=64, n=n, cta=0, lane=lane, column=0, lane_offset=a)
            if a <= l < a + 16:
                assert got == (16 * w + l - a, 0)
            else:
                assert got is None


@pytest.mark.parametrize("layout", ["F", "C"])
def test_half_datapath_lane_offsets_are_disjoint_with_same_columns(layout):
    m, n = LAYOUTS[layout].m, 64
    cells = {}
    for a in (0, 16):
        cells[a] = {d_to_tmem(layout, m=m, n=n, row=r, col=c, lane_offset=a)
                    for r in range(m) for c in range(n)}
    assert not cells[0] & cells[16]
    # Same columns, same CTAs: the two accumulators differ only in lane (by 16).
    assert {(cta, lane + 16, col) for cta, lane, col in cells[0]} == cells[16]
    assert {c for _, _, c in cells[0]} == {c for _, _, c in cells[16]} == set(range(n))


# ---------------------------------------------------------------------------------------
# Footprints of D
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout,kw,n,columns,lanes", [
    ("A", {}, 256, 256, ALL),
    ("B", {}, 256, 128, ALL),             # N/2
    ("B", {}, 16, 8, ALL),
    ("C", {}, 64, 64, HALF0),             # as F
    ("C", {"lane_offset": 16}, 64, 64, HALF16),
    ("C", {"layout_c": "B"}, 64, 32, ALL),  # as B: N/2
    ("D", {}, 8, 8, ALL),
    ("E", {}, 64, 32, ALL),               # N/2
    ("F", {}, 256, 256, HALF0),
    ("F", {"lane_offset": 16}, 8, 8, HALF16),
    ("G", {}, 64, 16, ALL),               # N/4, all lanes since columns are folded
    ("G", {}, 8, 2, ALL),
])
def test_d_footprint(layout, kw, n, columns, lanes):
    fp = d_footprint(layout, n, **kw)
    assert fp == Footprint(columns, lanes)
    assert fp.copies == 1


@pytest.mark.parametrize("layout,n,kw", [
    ("B", 7, {}),            # N/2 must be whole
    ("E", 9, {}),
    ("G", 6, {}),            # N/4 must be whole
    ("C", 7, {"layout_c": "B"}),
    ("D", 0, {}),
    ("D", 264, {}),
    ("D", 64, {"lane_offset": 16}),   # alignment 0 only
    ("A", 64, {"lane_offset": 16}),
    ("F", 64, {"lane_offset": 8}),    # 0 or 16
    ("C", 64, {"lane_offset": 16, "layout_c": "B"}),  # the B atom spans all lanes
])
def test_d_footprint_rejections(layout, n, kw):
    with pytest.raises(IsaRuleError):
        d_footprint(layout, n, **kw)


def test_d_to_tmem_range_checks():
    with pytest.raises(IsaRuleError):
        d_to_tmem("D", m=64, n=64, row=0, col=0)          # D is M=128
    with pytest.raises(IsaRuleError):
        d_to_tmem("D", m=128, n=64, row=128, col=0)
    with pytest.raises(IsaRuleError):
        d_to_tmem("D", m=128, n=64, row=0, col=64)
    with pytest.raises(IsaRuleError):
        d_to_tmem("D", m=128, n=64, row=-1, col=0)
    with pytest.raises(IsaRuleError):
        d_to_tmem("F", m=64, n=64, row=0, col=0, lane_offset=32)
    with pytest.raises(IsaRuleError):
        tmem_to_d("D", m=128, n=64, cta=1, lane=0, column=0)   # cta_group::1: only CTA 0
    with pytest.raises(IsaRuleError):
        tmem_to_d("A", m=256, n=64, cta=2, lane=0, column=0)
    with pytest.raises(IsaRuleError):
        tmem_to_d("A", m=256, n=64, cta=0, lane=128, column=0)
    with pytest.raises(IsaRuleError):
        tmem_to_d("A", m=256, n=64, cta=0, lane=0, column=512)
    with pytest.raises(ValueError):
        d_to_tmem("C", m=128, n=64, row=0, col=0, layout_c="X")


def test_rows_of_cta():
    # tmem-facts section 1: the even CTA holds rows 0 .. M/2-1, the odd CTA the rest.
    assert rows_of_cta("A", 256, 0) == range(0, 128)
    assert rows_of_cta("A", 256, 1) == range(128, 256)
    assert rows_of_cta("B", 128, 1) == range(64, 128)
    assert rows_of_cta("C", 128, 0) == range(0, 64)
    assert rows_of_cta("F", 64, 0) == range(0, 64)
    with pytest.raises(IsaRuleError):
        rows_of_cta("D", 128, 1)
    with pytest.raises(IsaRuleError):
        rows_of_cta("B", 256, 0)


# ---------------------------------------------------------------------------------------
# A in TMEM
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout,kw,k,a_bits,expected", [
    # f16 K=16: 16 elements x 16 bits = 256 bits = 8 columns; rows on lanes like D.
    ("D", {}, 16, 16, Footprint(8, ALL)),
    ("A", {}, 16, 16, Footprint(8, ALL)),
    # tf32 K=8: 8 x 32 bits = 8 columns. 8-bit K=32: 32 x 8 = 8 columns.
    ("D", {}, 8, 32, Footprint(8, ALL)),
    ("F", {}, 32, 8, Footprint(8, HALF0)),
    ("F", {"lane_offset": 16}, 32, 8, Footprint(8, HALF16)),
    # mxf4 K=64: two 4-bit values per byte -> 64 x 4 = 256 bits = 8 columns.
    ("D", {}, 64, 4, Footprint(8, ALL)),
    # B, E: each row duplicated on two lanes (tmem-facts section 1) -> 2 copies.
    ("B", {}, 16, 16, Footprint(8, ALL, copies=2)),
    ("E", {}, 16, 16, Footprint(8, ALL, copies=2)),
    # G: four copies (inferred, confidence L).
    ("G", {}, 16, 16, Footprint(8, ALL, copies=4)),
    # Sparse f16 K=32: stored as K/2 = 16 elements -> 8 columns. C is sparse by default.
    ("D", {"sparse": True}, 32, 16, Footprint(8, ALL)),
    ("C", {}, 32, 16, Footprint(8, HALF0)),
    ("C", {"lane_offset": 16}, 32, 16, Footprint(8, HALF16)),
    ("C", {"layout_c": "B"}, 32, 16, Footprint(8, ALL, copies=2)),
    # A larger K than one MMA's, e.g. a K-tile of 64 f16: 64 x 16 / 32 = 32 columns.
    ("D", {}, 64, 16, Footprint(32, ALL)),
])
def test_a_tmem_footprint(layout, kw, k, a_bits, expected):
    assert a_tmem_footprint(layout, m=LAYOUTS[layout].m, k=k, a_bits=a_bits, **kw) == expected


@pytest.mark.parametrize("layout,kw", [
    ("D", dict(k=16, a_bits=6)),             # 6-bit types use 8-bit containers
    ("D", dict(k=16, a_bits=12)),
    ("D", dict(k=3, a_bits=8)),              # 24 bits: not whole columns
    ("B", dict(k=32, a_bits=16, sparse=True)),   # B is dense-only
    ("C", dict(k=16, a_bits=16, sparse=False)),  # C is sparse-only
    ("D", dict(k=16, a_bits=16, lane_offset=16)),
])
def test_a_tmem_footprint_rejections(layout, kw):
    with pytest.raises(IsaRuleError):
        a_tmem_footprint(layout, m=LAYOUTS[layout].m, **kw)


@pytest.mark.parametrize("layout,kw,row,expected", [
    # tmem-facts section 1: Layout B lanes 0-31 rows 0-31, 32-63 rows 32-63, 64-95 rows
    # 0-31 again, 96-127 rows 32-63.
    ("B", {}, 5, (0, (5, 69))),
    ("B", {}, 40, (0, (40, 104))),
    ("B", {}, 64 + 40, (1, (40, 104))),
    # E: lanes 0-63 and 64-127 both hold row r.
    ("E", {}, 10, (0, (10, 74))),
    # G (confidence L): one copy per quarter.
    ("G", {}, 3, (0, (3, 35, 67, 99))),
    ("D", {}, 77, (0, (77,))),
    ("A", {}, 200, (1, (72,))),
    # F/C as F: D's lane: row 17 -> 33 (+16).
    ("F", {"lane_offset": 16}, 17, (0, (49,))),
    ("C", {}, 64 + 17, (1, (33,))),
])
def test_a_row_lanes(layout, kw, row, expected):
    assert a_row_lanes(layout, m=LAYOUTS[layout].m, row=row, **kw) == expected


@pytest.mark.parametrize("layout", ["A", "B", "D", "E", "F", "G"])
def test_a_row_lanes_cover_footprint(layout):
    info = LAYOUTS[layout]
    fp = a_tmem_footprint(layout, m=info.m, k=16, a_bits=16)
    per_cta = {}
    for row in range(info.m):
        cta, lanes = a_row_lanes(layout, m=info.m, row=row)
        assert len(lanes) == fp.copies
        for lane in lanes:
            assert fp.contains(lane, 0)
            assert (cta, lane) not in per_cta
            per_cta[(cta, lane)] = row
    assert len(per_cta) == info.cta_group * fp.num_lanes


# ---------------------------------------------------------------------------------------
# Scale factors (tmem-facts section 3)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("rows,scale_vec,kw,expected", [
    # "128 rows x 4 scale factors therefore fill 4 columns", duplicated in 4 quarters.
    (128, 4, {}, Footprint(4, ((0, 32), (32, 32), (64, 32), (96, 32)), copies=4)),
    # Row m -> column m div 32 regardless of scale_vec: 128 rows always take 4 columns.
    (128, 1, {}, Footprint(4, ((0, 32), (32, 32), (64, 32), (96, 32)), copies=4)),
    (256, 2, {}, Footprint(8, ((0, 32), (32, 32), (64, 32), (96, 32)), copies=4)),
    # 16 entries: lanes 0-15 of every quarter, one column.
    (16, 4, {}, Footprint(1, ((0, 16), (32, 16), (64, 16), (96, 16)), copies=4)),
    # 48 entries: 2 columns (ceil(48/32)), bounding region covers all 32 lanes.
    (48, 1, {}, Footprint(2, ((0, 32), (32, 32), (64, 32), (96, 32)), copies=4)),
    # Layout B, scale_B, N=256: halves of 128 on quarters 0-1 / 2-3 in the same 4 columns.
    (256, 1, dict(operand="B", layout="B"),
     Footprint(4, ((0, 32), (32, 32), (64, 32), (96, 32)), copies=2)),
    # scale_A with Layout B is not split.
    (64, 1, dict(operand="A", layout="B"),
     Footprint(2, ((0, 32), (32, 32), (64, 32), (96, 32)), copies=4)),
])
def test_scale_factor_footprint(rows, scale_vec, kw, expected):
    assert scale_factor_footprint(rows=rows, scale_vec=scale_vec, **kw) == expected


def test_scale_factor_cells_spot_values():
    # Row 37, 2X, SF_ID 2: lane 37 mod 32 = 5 of every quarter, column 37 div 32 = 1,
    # bytes SF_ID + k for k = 0, 1 -> 2, 3.
    assert scale_factor_cells(index=37, rows=128, scale_vec=2, sf_id=2) == (
        (5, 1, 2), (5, 1, 3), (37, 1, 2), (37, 1, 3),
        (69, 1, 2), (69, 1, 3), (101, 1, 2), (101, 1, 3))
    # 1X, SF_ID 3: a single byte.
    assert scale_factor_cells(index=0, rows=128, scale_vec=1, sf_id=3) == (
        (0, 0, 3), (32, 0, 3), (64, 0, 3), (96, 0, 3))
    # Layout B scale_B, N=256: n=130 >= 128 -> quarters 2 and 3, i = 2 -> lanes 66 and 98,
    # column 0; n=5 -> quarters 0 and 1.
    kw = dict(rows=256, scale_vec=1, operand="B", layout="B")
    assert scale_factor_cells(index=130, **kw) == ((66, 0, 0), (98, 0, 0))
    assert scale_factor_cells(index=5, **kw) == ((5, 0, 0), (37, 0, 0))


@pytest.mark.parametrize("rows,scale_vec", [(128, 1), (128, 2), (128, 4), (256, 4), (40, 2)])
def test_scale_factor_cells_are_disjoint_and_inside_footprint(rows, scale_vec):
    fp = scale_factor_footprint(rows=rows, scale_vec=scale_vec)
    seen = set()
    for i in range(rows):
        cells = scale_factor_cells(index=i, rows=rows, scale_vec=scale_vec)
        assert len(cells) == fp.copies * scale_vec
        for lane, column, byte in cells:
            assert fp.contains(lane, column) and 0 <= byte < 4
            assert (lane, column, byte) not in seen
            seen.add((lane, column, byte))


def test_scale_factor_rejections():
    with pytest.raises(IsaRuleError):
        scale_factor_cells(index=0, rows=128, scale_vec=2, sf_id=1)   # 2X: 0 or 2
    with pytest.raises(IsaRuleError):
        scale_factor_cells(index=0, rows=128, scale_vec=4, sf_id=2)   # 4X: 0 only
    with pytest.raises(IsaRuleError):
        scale_factor_cells(index=128, rows=128, scale_vec=1)
    with pytest.raises(IsaRuleError):
        scale_factor_footprint(rows=128, scale_vec=8)
    with pytest.raises(IsaRuleError):
        scale_factor_footprint(rows=0, scale_vec=1)
    with pytest.raises(NotImplementedError):
        scale_factor_footprint(rows=128, scale_vec=3)                 # K=96 forms


# ---------------------------------------------------------------------------------------
# Sparse metadata (tmem-facts section 3)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout,kw,kind,expected", [
    # One 2-column granule; lane = row for M=128 (8-bit kinds) ...
    ("D", {}, "i8", Footprint(2, ALL)),
    # ... and for f16/tf32, lane 16*(m >> 4) + (m & 7) + 8*(j & 1) over m < 128, j < 2
    # covers lanes 0..127.
    ("D", {}, "f16", Footprint(2, ALL)),
    ("D", {}, "kind::tf32", Footprint(2, ALL)),
    ("A", {}, "mxf4nvf4", Footprint(2, ALL)),
    # M=64: Layout F's row placement and alignment.
    ("F", {}, "f16", Footprint(2, HALF0)),
    ("F", {"lane_offset": 16}, "f8f6f4", Footprint(2, HALF16)),
    ("C", {"lane_offset": 16}, "mxf8f6f4", Footprint(2, HALF16)),
    # E, G (confidence L): placed like A.
    ("E", {}, "f16", Footprint(2, ALL, copies=2)),
    ("G", {}, "i8", Footprint(2, ALL, copies=4)),
])
def test_sparse_metadata_footprint(layout, kw, kind, expected):
    assert sparse_metadata_footprint(layout, m=LAYOUTS[layout].m, kind=kind, **kw) == expected


def test_sparse_metadata_rejections():
    with pytest.raises(IsaRuleError):
        sparse_metadata_footprint("B", m=128, kind="f16")     # B is dense-only
    with pytest.raises(IsaRuleError):
        sparse_metadata_footprint("D", m=128, kind="f64")
    with pytest.raises(IsaRuleError):
        sparse_metadata_footprint("D", m=128, kind="f16", lane_offset=16)


def test_n_bound_of_an_mma_and_of_a_buffer_only_ld_st_touch():
    # Table 39: no .kind has N > 256, so an MMA's accumulator stops there; a buffer no MMA
    # uses is bounded only by Tensor Memory's 512 columns (9.7.16.1), after the layout's
    # fold (B and E put N/2 columns per CTA).
    with pytest.raises(IsaRuleError, match=r"N=512 is outside 1..256 \(Table 39\)"):
        check_d_shape("D", m=128, n=512, cta_group=1)
    with pytest.raises(IsaRuleError, match="Table 39"):
        d_footprint("D", 512)
    assert d_footprint("D", 512, mma=False).columns == 512
    check_d_shape("D", m=128, n=512, cta_group=1, mma=False)
    assert d_footprint("E", 1024, mma=False).columns == 512
    with pytest.raises(IsaRuleError, match=r"N=514 takes 514 columns.*\(9.7.16.1\)"):
        d_footprint("D", 514, mma=False)
    with pytest.raises(IsaRuleError, match=r"N=1026 takes 513 columns"):
        d_footprint("E", 1026, mma=False)
