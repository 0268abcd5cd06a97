"""Tests for tcgen05_lower.isa.shapes: Table 39 and the static tcgen05.mma rules.

Every expected value below is read from the PTX ISA text (section 9.7.16), with the row
or sentence quoted next to it; none is taken from the module under test.
"""

import pytest

from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.shapes import (
    BLOCK_SCALED_KINDS,
    KINDS,
    check_ashift,
    check_collector_usage,
    check_disable_output_lane,
    check_max_shift,
    check_mma_shape,
    check_mma_types,
    check_scale_input_d,
    check_scale_type,
    check_scale_vectorsize,
    explain_mma_shape,
    find_shape_row,
    mma_k,
    scale_factor_columns,
    valid_m,
    valid_n,
)

# N sets as Table 39 writes them.
STEP8 = frozenset(range(8, 257, 8))  # "N = {8, 16, 24, ... 256} steps of 8"
STEP16 = frozenset(range(16, 257, 16))  # "N = {16, 32, ... 256} steps of 16"
STEP32 = frozenset(range(32, 257, 32))  # "N = {32, 64, ... 256} steps of 32"
# "N = {8, 16, 24, 32, 48, ... 256} steps of 16 after N > 32"
I8_CTA1 = frozenset({8, 16, 24, 32} | set(range(48, 257, 16)))
WS_DENSE = frozenset({64, 128, 256})  # "N = {64, 128, 256}"
WS_SPARSE = frozenset({64, 128})  # "N = {64, 128}"

# A valid (D, A, B) triple per kind, from the dtype and atype/btype columns.
TYPES = {
    "f16": ("f32", "bf16", "bf16"),
    "tf32": ("f32", "tf32", "tf32"),
    "f8f6f4": ("f32", "e4m3", "e2m1"),
    "i8": ("s32", "s8", "u8"),
    "mxf8f6f4": ("f32", "e5m2", "e3m2"),
    "mxf4": ("f32", "e2m1", "e2m1"),
    "mxf4nvf4": ("f32", "e2m1", "e2m1"),
}

WS, NO_WS = True, False
DENSE, SPARSE = False, True
INVALID = None

# One entry per line of Table 39, merged cells filled in:
# (kind, .ws, cta_group, sparse, M values, N set, K); INVALID lines have no M, N or K.
# fmt: off
TABLE_39_ROWS = [
    # kind::f16 | No .ws | 1 | Dense | 64xNxK 128xNxK | steps of 8 | K = 16
    ("f16", NO_WS, 1, DENSE,  {64, 128},      STEP8,     16),
    # ... | Sparse | (merged shape and N) | K = 32
    ("f16", NO_WS, 1, SPARSE, {64, 128},      STEP8,     32),
    # ... | 2 | Dense | 128xNxK 256xNxK | steps of 16 | K = 16
    ("f16", NO_WS, 2, DENSE,  {128, 256},     STEP16,    16),
    ("f16", NO_WS, 2, SPARSE, {128, 256},     STEP16,    32),
    # .ws | 1 | Dense | 32xNxK 64xNxK 128xNxK | N = {64, 128, 256} | K = 16
    ("f16", WS,    1, DENSE,  {32, 64, 128},  WS_DENSE,  16),
    # ... | Sparse | N = {64, 128} | K = 32
    ("f16", WS,    1, SPARSE, {32, 64, 128},  WS_SPARSE, 32),
    # ... | 2 | Either | Invalid
    ("f16", WS,    2, DENSE,  INVALID, INVALID, INVALID),
    ("f16", WS,    2, SPARSE, INVALID, INVALID, INVALID),
    # kind::tf32: same shapes, K = 8 dense / 16 sparse
    ("tf32", NO_WS, 1, DENSE,  {64, 128},     STEP8,     8),
    ("tf32", NO_WS, 1, SPARSE, {64, 128},     STEP8,     16),
    ("tf32", NO_WS, 2, DENSE,  {128, 256},    STEP16,    8),
    ("tf32", NO_WS, 2, SPARSE, {128, 256},    STEP16,    16),
    ("tf32", WS,    1, DENSE,  {32, 64, 128}, WS_DENSE,  8),
    ("tf32", WS,    1, SPARSE, {32, 64, 128}, WS_SPARSE, 16),
    ("tf32", WS,    2, DENSE,  INVALID, INVALID, INVALID),
    ("tf32", WS,    2, SPARSE, INVALID, INVALID, INVALID),
    # kind::f8f6f4: same shapes, K = 32 dense / 64 sparse
    ("f8f6f4", NO_WS, 1, DENSE,  {64, 128},     STEP8,     32),
    ("f8f6f4", NO_WS, 1, SPARSE, {64, 128},     STEP8,     64),
    ("f8f6f4", NO_WS, 2, DENSE,  {128, 256},    STEP16,    32),
    ("f8f6f4", NO_WS, 2, SPARSE, {128, 256},    STEP16,    64),
    ("f8f6f4", WS,    1, DENSE,  {32, 64, 128}, WS_DENSE,  32),
    ("f8f6f4", WS,    1, SPARSE, {32, 64, 128}, WS_SPARSE, 64),
    ("f8f6f4", WS,    2, DENSE,  INVALID, INVALID, INVALID),
    ("f8f6f4", WS,    2, SPARSE, INVALID, INVALID, INVALID),
    # kind::mxf8f6f4 | No .ws | 1 | Dense | 128xNxK | steps of 8 | K = 32; Sparse K = 64
    ("mxf8f6f4", NO_WS, 1, DENSE,  {128},      STEP8,  32),
    ("mxf8f6f4", NO_WS, 1, SPARSE, {128},      STEP8,  64),
    # ... | 2 | Dense | 128xNxK 256xNxK | steps of 16 | K = 32
    ("mxf8f6f4", NO_WS, 2, DENSE,  {128, 256}, STEP16, 32),
    # ... | Sparse | 256xNxK | K = 64
    ("mxf8f6f4", NO_WS, 2, SPARSE, {256},      STEP16, 64),
    # .ws | 1 | Dense / Sparse | 2 | Dense / Sparse | Invalid
    ("mxf8f6f4", WS, 1, DENSE,  INVALID, INVALID, INVALID),
    ("mxf8f6f4", WS, 1, SPARSE, INVALID, INVALID, INVALID),
    ("mxf8f6f4", WS, 2, DENSE,  INVALID, INVALID, INVALID),
    ("mxf8f6f4", WS, 2, SPARSE, INVALID, INVALID, INVALID),
    # kind::i8 | No .ws | 1 | Dense | 64xNxK 128xNxK | {8, 16, 24, 32, 48, ... 256} | K = 32
    ("i8", NO_WS, 1, DENSE,  {64, 128},     I8_CTA1,   32),
    ("i8", NO_WS, 1, SPARSE, {64, 128},     I8_CTA1,   64),
    # ... | 2 | Dense | 128xNxK 256xNxK | N = {32, 64, ... 256} steps of 32 | K = 32
    ("i8", NO_WS, 2, DENSE,  {128, 256},    STEP32,    32),
    ("i8", NO_WS, 2, SPARSE, {128, 256},    STEP32,    64),
    ("i8", WS,    1, DENSE,  {32, 64, 128}, WS_DENSE,  32),
    ("i8", WS,    1, SPARSE, {32, 64, 128}, WS_SPARSE, 64),
    ("i8", WS,    2, DENSE,  INVALID, INVALID, INVALID),
    ("i8", WS,    2, SPARSE, INVALID, INVALID, INVALID),
    # kind::mxf4 | No .ws | 1 | Dense | 128xNxK | steps of 8 | K = 64; Sparse K = 128
    ("mxf4", NO_WS, 1, DENSE,  {128},      STEP8,  64),
    ("mxf4", NO_WS, 1, SPARSE, {128},      STEP8,  128),
    # ... | 2 | Dense | 128xNxK 256xNxK 256xNxK1 | steps of 16 | K = 64 K1 = 96
    ("mxf4", NO_WS, 2, DENSE,  {128, 256}, STEP16, 64),
    # ... | Sparse | 256xNxK | K = 128
    ("mxf4", NO_WS, 2, SPARSE, {256},      STEP16, 128),
    # .ws | 1 / 2 | Either | Invalid
    ("mxf4", WS, 1, DENSE,  INVALID, INVALID, INVALID),
    ("mxf4", WS, 1, SPARSE, INVALID, INVALID, INVALID),
    ("mxf4", WS, 2, DENSE,  INVALID, INVALID, INVALID),
    ("mxf4", WS, 2, SPARSE, INVALID, INVALID, INVALID),
    # kind::mxf4nvf4: same as mxf4
    ("mxf4nvf4", NO_WS, 1, DENSE,  {128},      STEP8,  64),
    ("mxf4nvf4", NO_WS, 1, SPARSE, {128},      STEP8,  128),
    ("mxf4nvf4", NO_WS, 2, DENSE,  {128, 256}, STEP16, 64),
    ("mxf4nvf4", NO_WS, 2, SPARSE, {256},      STEP16, 128),
    ("mxf4nvf4", WS, 1, DENSE,  INVALID, INVALID, INVALID),
    ("mxf4nvf4", WS, 1, SPARSE, INVALID, INVALID, INVALID),
    ("mxf4nvf4", WS, 2, DENSE,  INVALID, INVALID, INVALID),
    ("mxf4nvf4", WS, 2, SPARSE, INVALID, INVALID, INVALID),
]
# fmt: on

VALID_ROWS = [r for r in TABLE_39_ROWS if r[4] is not INVALID]
INVALID_ROWS = [r for r in TABLE_39_ROWS if r[4] is INVALID]

M_CANDIDATES = (0, 16, 32, 48, 64, 96, 128, 192, 256, 512)


def _row_id(row):
    kind, ws, cta, sparse = row[:4]
    return f"{kind}-{'ws' if ws else 'nows'}-cta{cta}-{'sp' if sparse else 'dense'}"


def _shape(kind, m, n, cta, sparse=False, ws=False, k96=False, types=None):
    d, a, b = types or TYPES[kind]
    check_mma_shape(
        kind=kind, m=m, n=n, cta_group=cta, sparse=sparse, ws=ws,
        d_type=d, a_type=a, b_type=b, k96=k96,
    )


def test_table_covers_every_combination():
    # 7 kinds x (.ws or not) x 2 CTA groups x (dense or sparse).
    assert len(TABLE_39_ROWS) == len(KINDS) * 2 * 2 * 2
    assert len({r[:4] for r in TABLE_39_ROWS}) == len(TABLE_39_ROWS)


@pytest.mark.parametrize("row", VALID_ROWS, ids=_row_id)
def test_row_accepts_listed_shape(row):
    kind, ws, cta, sparse, ms, ns, k = row
    for m in sorted(ms):
        _shape(kind, m, min(ns), cta, sparse, ws)
        _shape(kind, m, max(ns), cta, sparse, ws)


@pytest.mark.parametrize("row", VALID_ROWS, ids=_row_id)
def test_row_rejects_other_m(row):
    kind, ws, cta, sparse, ms, ns, k = row
    n = min(ns)
    for m in M_CANDIDATES:
        if m in ms:
            continue
        with pytest.raises(IsaRuleError) as info:
            _shape(kind, m, n, cta, sparse, ws)
        assert info.value.rule == "Table 39"
        assert f"M = {m} is not supported" in str(info.value)


@pytest.mark.parametrize("row", VALID_ROWS, ids=_row_id)
def test_row_n_set_exactly(row):
    kind, ws, cta, sparse, ms, ns, k = row
    m = min(ms)
    for n in range(0, 300):
        error = explain_mma_shape(
            kind=kind, m=m, n=n, cta_group=cta, sparse=sparse, ws=ws,
            d_type=TYPES[kind][0], a_type=TYPES[kind][1], b_type=TYPES[kind][2],
        )
        assert (error is None) == (n in ns), (n, error)
        if error is not None:
            assert error.rule == "Table 39"
            assert f"N = {n} " in error.message


@pytest.mark.parametrize("row", TABLE_39_ROWS, ids=_row_id)
def test_row_helpers(row):
    kind, ws, cta, sparse, ms, ns, k = row
    table_row = find_shape_row(kind, cta, sparse=sparse, ws=ws)
    if ms is INVALID:
        assert not table_row.valid
        assert valid_m(kind, cta, sparse=sparse, ws=ws) == ()
        assert valid_n(kind, cta, sparse=sparse, ws=ws) == ()
    else:
        assert table_row.valid
        assert set(valid_m(kind, cta, sparse=sparse, ws=ws)) == ms
        assert set(valid_n(kind, cta, sparse=sparse, ws=ws)) == ns
        assert table_row.k == k
        # 9.7.16.2.2: "K ... is implicitly determined by the MMA-kind and the sparsity".
        assert mma_k(kind, sparse=sparse) == k


@pytest.mark.parametrize("row", INVALID_ROWS, ids=_row_id)
def test_invalid_rows(row):
    kind, ws, cta, sparse = row[:4]
    for m in (64, 128, 256):
        with pytest.raises(IsaRuleError) as info:
            _shape(kind, m, 128, cta, sparse, ws)
        assert info.value.rule == "Table 39"
        if kind in BLOCK_SCALED_KINDS:
            # ".kind::mxf8f6f4 | .ws | ... | Invalid" for every CTA group and sparsity.
            assert info.value.message == f"kind::{kind} does not support .ws"
        else:
            # "| .ws | 2 | Either | ... | Invalid"
            assert info.value.message == ".ws is not supported with cta_group::2"


# ---------------------------------------------------------------------------------------
# Exact step boundaries
# ---------------------------------------------------------------------------------------

# (kind, cta_group, sparse, ws, M, N, accepted)
# fmt: off
BOUNDARIES = [
    # f16 cta_group::2: "N = {16, 32, ... 256} steps of 16"
    ("f16", 2, False, False, 128, 16, True),
    ("f16", 2, False, False, 128, 24, False),
    ("f16", 2, False, False, 128, 32, True),
    ("f16", 2, False, False, 256, 8, False),
    ("f16", 2, False, False, 256, 256, True),
    ("f16", 2, False, False, 256, 272, False),
    # f16 cta_group::1: "N = {8, 16, 24, ... 256} steps of 8"
    ("f16", 1, False, False, 64, 8, True),
    ("f16", 1, False, False, 64, 24, True),
    ("f16", 1, False, False, 64, 4, False),
    ("f16", 1, False, False, 128, 248, True),
    ("f16", 1, False, False, 128, 250, False),
    ("f16", 1, False, False, 128, 264, False),
    # i8 cta_group::1: "N = {8, 16, 24, 32, 48, ... 256} steps of 16 after N > 32"
    ("i8", 1, False, False, 128, 24, True),
    ("i8", 1, False, False, 128, 32, True),
    ("i8", 1, False, False, 128, 40, False),
    ("i8", 1, False, False, 128, 48, True),
    ("i8", 1, False, False, 128, 56, False),
    ("i8", 1, False, False, 128, 64, True),
    ("i8", 1, False, False, 128, 248, False),
    ("i8", 1, False, False, 128, 256, True),
    ("i8", 1, True, False, 64, 40, False),   # sparse line shares the merged N cell
    ("i8", 1, True, False, 64, 48, True),
    # i8 cta_group::2: "N = {32, 64, ... 256} steps of 32"
    ("i8", 2, False, False, 256, 16, False),
    ("i8", 2, False, False, 256, 32, True),
    ("i8", 2, False, False, 256, 48, False),
    ("i8", 2, False, False, 256, 64, True),
    ("i8", 2, False, False, 128, 224, True),
    # .ws dense "N = {64, 128, 256}" / .ws sparse "N = {64, 128}"
    ("f16", 1, False, True, 32, 64, True),
    ("f16", 1, False, True, 32, 192, False),
    ("f16", 1, False, True, 32, 256, True),
    ("f16", 1, True, True, 32, 128, True),
    ("f16", 1, True, True, 32, 256, False),
    ("tf32", 1, True, True, 64, 256, False),
    ("i8", 1, True, True, 128, 256, False),
    ("f8f6f4", 1, True, True, 128, 128, True),
    # .ws M = 32 exists only with .ws: "32xNxK 64xNxK 128xNxK"
    ("f16", 1, False, False, 32, 64, False),
    ("f16", 1, False, True, 32, 64, True),
    ("f16", 1, False, True, 256, 64, False),
    # mxf8f6f4 sparse cta_group::2: "256xNxK" only
    ("mxf8f6f4", 2, True, False, 128, 64, False),
    ("mxf8f6f4", 2, True, False, 256, 64, True),
    ("mxf8f6f4", 2, False, False, 128, 64, True),
    # mxf8f6f4 / mxf4 / mxf4nvf4 cta_group::1: "128xNxK" only
    ("mxf8f6f4", 1, False, False, 64, 64, False),
    ("mxf4", 1, False, False, 64, 64, False),
    ("mxf4", 1, True, False, 128, 8, True),
    ("mxf4nvf4", 1, False, False, 128, 8, True),
    ("mxf4nvf4", 1, True, False, 64, 8, False),
    # mxf4 / mxf4nvf4 sparse cta_group::2: "256xNxK | K = 128"
    ("mxf4", 2, True, False, 128, 128, False),
    ("mxf4nvf4", 2, True, False, 256, 128, True),
]
# fmt: on


@pytest.mark.parametrize("kind,cta,sparse,ws,m,n,ok", BOUNDARIES)
def test_step_boundaries(kind, cta, sparse, ws, m, n, ok):
    if ok:
        _shape(kind, m, n, cta, sparse, ws)
    else:
        with pytest.raises(IsaRuleError):
            _shape(kind, m, n, cta, sparse, ws)


# ---------------------------------------------------------------------------------------
# K and K1 = 96
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind,dense_k,sparse_k",
    [
        ("f16", 16, 32),       # "K = 16" / "K = 32"
        ("tf32", 8, 16),       # "K = 8" / "K = 16"
        ("f8f6f4", 32, 64),    # "K = 32" / "K = 64"
        ("i8", 32, 64),        # "K = 32" / "K = 64"
        ("mxf8f6f4", 32, 64),  # "K = 32" / "K = 64"
        ("mxf4", 64, 128),     # "K = 64" / "K = 128"
        ("mxf4nvf4", 64, 128),
    ],
)
def test_mma_k(kind, dense_k, sparse_k):
    assert mma_k(kind) == dense_k
    assert mma_k(kind, sparse=True) == sparse_k


@pytest.mark.parametrize("kind", ["mxf4", "mxf4nvf4"])
def test_k96_dense_cta2_m256_only(kind):
    # "128xNxK 256xNxK 256xNxK1 | ... | K = 64 K1 = 96" on the dense cta_group::2 line.
    assert mma_k(kind, k96=True) == 96
    _shape(kind, 256, 128, 2, k96=True)
    _shape(kind, 256, 16, 2, k96=True)
    assert valid_m(kind, 2, k96=True) == (256,)
    with pytest.raises(IsaRuleError, match="K1 = 96"):
        _shape(kind, 128, 128, 2, k96=True)
    with pytest.raises(IsaRuleError, match="K1 = 96"):
        _shape(kind, 128, 128, 1, k96=True)
    with pytest.raises(IsaRuleError, match="K1 = 96"):
        _shape(kind, 256, 128, 2, sparse=True, k96=True)
    with pytest.raises(IsaRuleError):
        mma_k(kind, sparse=True, k96=True)
    # The N rule of the line still applies.
    with pytest.raises(IsaRuleError, match="N = 24"):
        _shape(kind, 256, 24, 2, k96=True)


@pytest.mark.parametrize("kind", ["f16", "tf32", "f8f6f4", "i8", "mxf8f6f4"])
def test_k96_other_kinds(kind):
    with pytest.raises(IsaRuleError):
        mma_k(kind, k96=True)
    with pytest.raises(IsaRuleError, match="K1 = 96"):
        _shape(kind, 256, 128, 2, k96=True)


# ---------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------


def _message(**kw):
    kind = kw["kind"]
    d, a, b = kw.pop("types", TYPES[kind])
    error = explain_mma_shape(d_type=d, a_type=a, b_type=b, **kw)
    assert error is not None
    return error.message


def test_messages_name_the_values():
    assert _message(kind="f16", m=128, n=250, cta_group=1) == (
        "N = 250 is not a multiple of 8 for kind::f16, cta_group::1"
    )
    assert _message(kind="f16", m=96, n=64, cta_group=1) == (
        "M = 96 is not supported for kind::f16, cta_group::1 (supported: 64, 128)"
    )
    assert _message(kind="f16", m=128, n=64, cta_group=1, types=("f32", "f32", "f16")) == (
        "A type f32 is not allowed for kind::f16 (allowed: f16, bf16)"
    )
    assert _message(kind="f16", m=128, n=64, cta_group=1, types=("f16", "bf16", "bf16")) == (
        "D type f16 requires A and B of type f16 for kind::f16"
    )
    assert _message(kind="f16", m=128, n=64, cta_group=2, ws=True) == (
        ".ws is not supported with cta_group::2"
    )
    assert _message(kind="mxf8f6f4", m=128, n=64, cta_group=1, ws=True) == (
        "kind::mxf8f6f4 does not support .ws"
    )
    assert _message(kind="i8", m=128, n=40, cta_group=1) == (
        "N = 40 is not supported for kind::i8, cta_group::1 "
        "(N in 8, 16, 24, 32 or a multiple of 16 up to 256)"
    )
    assert _message(kind="f16", m=64, n=256, cta_group=1, sparse=True, ws=True) == (
        "N = 256 is not supported for kind::f16, .ws, sparse, cta_group::1 (supported: 64, 128)"
    )
    assert _message(kind="mxf8f6f4", m=128, n=64, cta_group=2, sparse=True) == (
        "M = 128 is not supported for kind::mxf8f6f4, sparse, cta_group::2 (supported: 256)"
    )


def test_error_string_appends_rule():
    with pytest.raises(IsaRuleError) as info:
        _shape("f16", 128, 250, 1)
    assert str(info.value) == "N = 250 is not a multiple of 8 for kind::f16, cta_group::1 (Table 39)"
    assert isinstance(info.value, ValueError)


def test_unknown_kind_and_cta_group():
    with pytest.raises(IsaRuleError, match="kind::f64"):
        check_mma_shape(
            kind="f64", m=128, n=64, cta_group=1, d_type="f64", a_type="f64", b_type="f64"
        )
    with pytest.raises(IsaRuleError, match="cta_group::4"):
        _shape("f16", 128, 64, 4)
    with pytest.raises(IsaRuleError):
        valid_m("bf16", 1)


# ---------------------------------------------------------------------------------------
# Types (dtype and atype/btype columns of Table 39)
# ---------------------------------------------------------------------------------------

# fmt: off
TYPE_CASES = [
    # kind::f16: ".f16 | .f16" and ".f32 | .f16, .bf16"
    ("f16", "f16", "f16", "f16", True),
    ("f16", "f32", "f16", "f16", True),
    ("f16", "f32", "bf16", "bf16", True),
    ("f16", "f32", "f16", "bf16", True),    # A and B each from ".f16, .bf16"
    ("f16", "f16", "bf16", "bf16", False),  # D f16 only with A/B f16
    ("f16", "f16", "f16", "bf16", False),
    ("f16", "bf16", "bf16", "bf16", False),
    ("f16", "f32", "f32", "f16", False),
    ("f16", "f32", "f16", "tf32", False),
    ("f16", "s32", "f16", "f16", False),
    # kind::tf32: ".f32 | .tf32"
    ("tf32", "f32", "tf32", "tf32", True),
    ("tf32", "f16", "tf32", "tf32", False),
    ("tf32", "f32", "f32", "f32", False),
    ("tf32", "f32", "tf32", "f16", False),
    # kind::f8f6f4: ".f32 .f16 | .e4m3, .e5m2, .e2m3, .e3m2, .e2m1"
    ("f8f6f4", "f32", "e4m3", "e4m3", True),
    ("f8f6f4", "f16", "e5m2", "e3m2", True),
    ("f8f6f4", "f32", "e2m3", "e2m1", True),
    ("f8f6f4", "f16", "e2m1", "e4m3", True),
    ("f8f6f4", "bf16", "e4m3", "e4m3", False),
    ("f8f6f4", "s32", "e4m3", "e4m3", False),
    ("f8f6f4", "f32", "s8", "e4m3", False),
    ("f8f6f4", "f32", "e4m3", "f16", False),
    # kind::i8: ".s32 | .s8, .u8"
    ("i8", "s32", "s8", "s8", True),
    ("i8", "s32", "u8", "s8", True),
    ("i8", "s32", "u8", "u8", True),
    ("i8", "f32", "s8", "s8", False),
    ("i8", "s32", "s4", "s8", False),
    ("i8", "s32", "s8", "e4m3", False),
    # kind::mxf8f6f4: ".f32 | .e4m3, .e5m2, .e2m3, .e3m2, .e2m1 X (Scale) .ue8m0"
    ("mxf8f6f4", "f32", "e4m3", "e2m1", True),
    ("mxf8f6f4", "f32", "e2m3", "e3m2", True),
    ("mxf8f6f4", "f16", "e4m3", "e4m3", False),  # unlike kind::f8f6f4, D is f32 only
    ("mxf8f6f4", "f32", "ue8m0", "e4m3", False),
    # kind::mxf4 / kind::mxf4nvf4: ".f32 | .e2m1 X (Scale) ..."
    ("mxf4", "f32", "e2m1", "e2m1", True),
    ("mxf4", "f32", "e4m3", "e2m1", False),
    ("mxf4", "f16", "e2m1", "e2m1", False),
    ("mxf4nvf4", "f32", "e2m1", "e2m1", True),
    ("mxf4nvf4", "f32", "e2m1", "e3m2", False),
    ("mxf4nvf4", "f16", "e2m1", "e2m1", False),
]
# fmt: on


@pytest.mark.parametrize("kind,d,a,b,ok", TYPE_CASES)
def test_type_rules(kind, d, a, b, ok):
    if ok:
        check_mma_types(kind, d, a, b)
        _shape(kind, 128, 64, 1, types=(d, a, b))
    else:
        with pytest.raises(IsaRuleError) as info:
            check_mma_types(kind, d, a, b)
        assert info.value.rule == "Table 39"
        with pytest.raises(IsaRuleError):
            _shape(kind, 128, 64, 1, types=(d, a, b))


def test_type_names_accept_ptx_spelling():
    check_mma_types("f16", ".f32", ".F16", ".bf16")


# fmt: off
@pytest.mark.parametrize("kind,scale,ok", [
    # "X (Scale) .ue8m0" for mxf8f6f4 and mxf4; ".ue8m0, .ue4m3" for mxf4nvf4
    ("mxf8f6f4", "ue8m0", True),
    ("mxf8f6f4", "ue4m3", False),
    ("mxf4", "ue8m0", True),
    ("mxf4", "ue4m3", False),
    ("mxf4nvf4", "ue8m0", True),
    ("mxf4nvf4", "ue4m3", True),
    ("mxf4nvf4", "e8m0", False),
    ("mxf4", None, False),
    ("f16", None, True),         # no block scaling, no scale type
    ("f16", "ue8m0", False),
    ("i8", "ue8m0", False),
])
# fmt: on
def test_scale_type(kind, scale, ok):
    if ok:
        check_scale_type(kind, scale)
    else:
        with pytest.raises(IsaRuleError):
            check_scale_type(kind, scale)


# ---------------------------------------------------------------------------------------
# .scale_vectorsize (Tables 54 and 55, 9.7.16.10.9.1)
# ---------------------------------------------------------------------------------------

# fmt: off
@pytest.mark.parametrize("kind,size,scale,k96,ok", [
    # Table 55: mxf8f6f4 "UE8M0 | .scale_vec::1X / .block32"
    ("mxf8f6f4", "scale_vec::1X", "ue8m0", False, True),
    ("mxf8f6f4", "block32", "ue8m0", False, True),
    ("mxf8f6f4", "scale_vec::2X", "ue8m0", False, False),
    ("mxf8f6f4", "block16", "ue8m0", False, False),
    # Table 55: mxf4 "UE8M0 | .scale_vec::2X / .block32"
    ("mxf4", "scale_vec::2X", "ue8m0", False, True),
    ("mxf4", "block32", "ue8m0", False, True),
    ("mxf4", "scale_vec::4X", "ue8m0", False, False),
    ("mxf4", "block16", "ue8m0", False, False),
    ("mxf4", "scale_vec::1X", "ue8m0", False, False),
    # "For .kind::mxf4 when the qualifier .scale_vectorsize is not specified, then it
    # defaults to .block32."
    ("mxf4", None, "ue8m0", False, True),
    # Table 55: mxf4nvf4 "UE8M0 | 2X / block32, 4X / block16"; "UE4M3 | 4X / block16"
    ("mxf4nvf4", "scale_vec::2X", "ue8m0", False, True),
    ("mxf4nvf4", "scale_vec::4X", "ue8m0", False, True),
    ("mxf4nvf4", "block16", "ue4m3", False, True),
    ("mxf4nvf4", "scale_vec::4X", "ue4m3", False, True),
    ("mxf4nvf4", "block32", "ue4m3", False, False),
    ("mxf4nvf4", "scale_vec::2X", "ue4m3", False, False),
    # "For .kind::mxf4nvf4, the qualifier .scale_vectorsize must be explicitly specified."
    ("mxf4nvf4", None, "ue8m0", False, False),
    # Table 54: K = 96 lines exist for .block16 (mxf4nvf4) and .block32 (mxf4, mxf4nvf4)
    ("mxf4", "block32", "ue8m0", True, True),
    ("mxf4nvf4", "block16", "ue4m3", True, True),
    ("mxf8f6f4", "block32", "ue8m0", True, False),
    # kinds without .block_scale take no .scale_vectorsize
    ("f16", "block32", None, False, False),
    ("f16", None, None, False, True),
    ("mxf4", "scale_vec::3X", "ue8m0", False, False),
])
# fmt: on
def test_scale_vectorsize(kind, size, scale, k96, ok):
    if ok:
        check_scale_vectorsize(kind, size, scale_type=scale, k96=k96)
    else:
        with pytest.raises(IsaRuleError):
            check_scale_vectorsize(kind, size, scale_type=scale, k96=k96)


# fmt: off
@pytest.mark.parametrize("kind,size,k96,columns", [
    # Table 54 "Shape of scale_A"
    ("mxf8f6f4", "scale_vec::1X", False, 1),   # M x 1
    ("mxf8f6f4", "block32", False, 1),         # M x 1
    ("mxf4", "scale_vec::2X", False, 2),       # M x 2
    ("mxf4", "block32", False, 2),             # M x 2 (K except 96)
    ("mxf4", "block32", True, 3),              # M x 3 (K = 96)
    ("mxf4", None, False, 2),                  # defaults to .block32
    ("mxf4nvf4", "scale_vec::4X", False, 4),   # M x 4
    ("mxf4nvf4", "block16", False, 4),         # M x 4 (K except 96)
    ("mxf4nvf4", "block16", True, 6),          # M x 6 (K = 96)
    ("mxf4nvf4", "block32", True, 3),          # M x 3 (K = 96)
])
# fmt: on
def test_scale_factor_columns(kind, size, k96, columns):
    assert scale_factor_columns(kind, size, k96=k96) == columns


def test_scale_vectorsize_spellings():
    check_scale_vectorsize("mxf4", ".scale_vec::2X")
    check_scale_vectorsize("mxf4", "scale_vec::2x")
    check_scale_vectorsize("mxf4", ".block32")


# ---------------------------------------------------------------------------------------
# Other static rules of 9.7.16.10.9
# ---------------------------------------------------------------------------------------


def test_scale_input_d():
    # "The valid range of values for argument scale-input-d is [0, 15]. The argument
    # scale-input-d is only valid for .kind::tf32 and .kind::f16."
    for value in (0, 1, 15):
        check_scale_input_d("f16", value)
        check_scale_input_d("tf32", value)
    for value in (-1, 16, 255):
        with pytest.raises(IsaRuleError, match="outside") as info:
            check_scale_input_d("f16", value)
        assert info.value.rule == "9.7.16.10.9.1"
    for kind in ("f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"):
        with pytest.raises(IsaRuleError, match=f"kind::{kind}"):
            check_scale_input_d(kind, 1)
    # tcgen05.mma.ws syntax (9.7.16.10.9.3) has no scale-input-d operand.
    with pytest.raises(IsaRuleError) as info:
        check_scale_input_d("f16", 1, ws=True)
    assert info.value.rule == "9.7.16.10.9.3"


def test_disable_output_lane():
    # "| ::1 | 4 |" and "| ::2 | 8 |"
    check_disable_output_lane(1, 4)
    check_disable_output_lane(2, 8)
    check_disable_output_lane(1, 4, kind="i8")
    with pytest.raises(IsaRuleError, match="4 elements with cta_group::1"):
        check_disable_output_lane(1, 8)
    with pytest.raises(IsaRuleError, match="8 elements with cta_group::2"):
        check_disable_output_lane(2, 4)
    # The block-scaled forms and the .ws forms have no disable-output-lane operand.
    with pytest.raises(IsaRuleError):
        check_disable_output_lane(1, 4, kind="mxf4")
    with pytest.raises(IsaRuleError):
        check_disable_output_lane(1, 4, ws=True)


def test_ashift():
    # ".ashift is only allowed with M = 128 or M = 256"
    check_ashift(m=128, a_in_tmem=True)
    check_ashift(m=256, a_in_tmem=True, kind="f16")
    check_ashift(m=128, a_in_tmem=True, kind="i8", collector="a::lastuse")
    check_ashift(m=128, a_in_tmem=True, collector="collector::a::discard")
    for m in (32, 64):
        with pytest.raises(IsaRuleError, match=f"M = {m}"):
            check_ashift(m=m, a_in_tmem=True)
    # only the [a-tmem] forms of the syntax have .ashift
    with pytest.raises(IsaRuleError, match="Tensor Memory"):
        check_ashift(m=128, a_in_tmem=False)
    # "It is illegal to specify either of .collector::a::use or .collector::a::fill along
    # with .ashift."
    for op in ("fill", "use"):
        with pytest.raises(IsaRuleError, match=op):
            check_ashift(m=128, a_in_tmem=True, collector=f".collector::a::{op}")
    # not in the block-scaled forms, not in .ws
    with pytest.raises(IsaRuleError):
        check_ashift(m=128, a_in_tmem=True, kind="mxf8f6f4")
    with pytest.raises(IsaRuleError):
        check_ashift(m=128, a_in_tmem=True, ws=True)


def test_collector_usage():
    # tcgen05.mma: "::buffer = { ::a }", "::op = { ::fill, ::use, ::lastuse, ::discard* }"
    for op in ("fill", "use", "lastuse", "discard"):
        check_collector_usage(f"a::{op}")
        check_collector_usage(f".collector::a::{op}")
    check_collector_usage(None)
    # tcgen05.mma.ws: "::buffer = { ::b0, ::b1, ::b2, ::b3 }"
    for buffer in ("b0", "b1", "b2", "b3"):
        check_collector_usage(f"collector::{buffer}::lastuse", ws=True)
    with pytest.raises(IsaRuleError, match="b0"):
        check_collector_usage("b0::fill")
    with pytest.raises(IsaRuleError) as info:
        check_collector_usage("a::fill", ws=True)
    assert info.value.rule == "9.7.16.10.9.3"
    with pytest.raises(IsaRuleError):
        check_collector_usage("b4::fill", ws=True)
    with pytest.raises(IsaRuleError, match="keep"):
        check_collector_usage("a::keep")
    with pytest.raises(IsaRuleError):
        check_collector_usage("collector::a")


def test_max_shift():
    # Table 42 bits 30-31: "no shift = 0, maximum shift of 8 = 1, of 16 = 2, of 32 = 3"
    for shift in (0, 8, 16, 32):
        check_max_shift(shift)
        check_max_shift(shift, kind="f16")
    for shift in (1, 4, 24, 64):
        with pytest.raises(IsaRuleError) as info:
            check_max_shift(shift)
        assert info.value.rule == "Table 42"
    # Tables 43 and 44 have no such field.
    check_max_shift(0, kind="mxf4")
    with pytest.raises(IsaRuleError):
        check_max_shift(8, kind="mxf8f6f4")
