"""Tests for tcgen05_lower.isa.descriptors.

Expected values come from the PTX ISA text (ptx-isa-tcgen05.md, section 9.7.16) or from
tmem-facts.md section 4.  Descriptor words are written as sums of ``code << bit`` with the
field named, so each one can be checked against Tables 40-45 by reading it.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcgen05_lower.isa.descriptors import (
    SWIZZLE_CODES,
    canonical_smem_strides,
    decode_instr_desc,
    decode_smem_desc,
    decode_zero_column_mask,
    encode_instr_desc,
    encode_smem_desc,
    encode_zero_column_mask,
    matrix_descriptor_encode,
    zero_column_masks,
)
from tcgen05_lower.isa.errors import IsaRuleError

PROPERTY = settings(max_examples=200, deadline=None)


# =======================================================================================
# Instruction descriptor (Tables 42, 43, 44)
# =======================================================================================

# The project's first example: kind::f16, bf16 x bf16 -> f32, M = 128, N = 256 (Table 42).
F16_BF16_M128_N256 = dict(kind="f16", a_type="bf16", b_type="bf16", d_type="f32", m=128, n=256)
F16_BF16_M128_N256_WORD = (
    (1 << 4)            # dtype F32 = 1, bits 4-5
    + (1 << 7)          # atype BF16 = 1, bits 7-9
    + (1 << 10)         # btype BF16 = 1, bits 10-12
    + (32 << 17)        # N >> 3 = 256 >> 3 = 32, bits 17-22
    + (8 << 24)         # M >> 4 = 128 >> 4 = 8, bits 24-28
)


def test_first_example_f16_bf16_f32_m128_n256():
    # 0x10 + 0x80 + 0x400 + 0x40_0000 + 0x800_0000
    assert F16_BF16_M128_N256_WORD == 0x0840_0490
    assert encode_instr_desc(**F16_BF16_M128_N256) == 0x0840_0490
    decoded = decode_instr_desc(0x0840_0490, kind="f16")
    assert decoded == {
        **F16_BF16_M128_N256,
        "transpose_a": False, "transpose_b": False, "negate_a": False, "negate_b": False,
        "sparse": False, "sparsity_selector": 0, "saturate": False, "max_shift": 0,
        "scale_type": None, "scale_a_id": 0, "scale_b_id": 0,
        "k": 16,  # Table 39: dense kind::f16 has K = 16
    }


EVERY_KIND = [
    pytest.param(
        dict(kind="tf32", a_type="tf32", b_type="tf32", d_type="f32", m=64, n=8),
        (1 << 4)        # dtype F32 = 1
        + (2 << 7)      # atype TF32 = 2
        + (2 << 10)     # btype TF32 = 2
        + (1 << 17)     # N >> 3 = 1
        + (4 << 24),    # M >> 4 = 4
        8, id="tf32"),
    pytest.param(
        dict(kind="f16", a_type="f16", b_type="f16", d_type="f16", m=64, n=64),
        (0 << 4)        # dtype F16 = 0
        + (0 << 7)      # atype F16 = 0
        + (0 << 10)     # btype F16 = 0
        + (8 << 17)     # N >> 3 = 8
        + (4 << 24),    # M >> 4 = 4
        16, id="f16-f16"),
    pytest.param(
        dict(kind="f8f6f4", a_type="e4m3", b_type="e2m1", d_type="f16", m=128, n=128),
        (0 << 4)        # dtype F16 = 0
        + (0 << 7)      # atype E4M3 = 0
        + (5 << 10)     # btype E2M1 = 5 in Table 42
        + (16 << 17)    # N >> 3 = 16
        + (8 << 24),    # M >> 4 = 8
        32, id="f8f6f4-e4m3-e2m1"),
    pytest.param(
        dict(kind="f8f6f4", a_type="e5m2", b_type="e2m3", d_type="f32", m=128, n=24),
        (1 << 4)        # dtype F32 = 1
        + (1 << 7)      # atype E5M2 = 1
        + (3 << 10)     # btype E2M3 = 3
        + (3 << 17)     # N >> 3 = 3
        + (8 << 24),    # M >> 4 = 8
        32, id="f8f6f4-e5m2-e2m3"),
    pytest.param(
        dict(kind="f8f6f4", a_type="e3m2", b_type="e3m2", d_type="f32", m=256, n=256),
        (1 << 4)        # dtype F32 = 1
        + (4 << 7)      # atype E3M2 = 4
        + (4 << 10)     # btype E3M2 = 4
        + (32 << 17)    # N >> 3 = 32
        + (16 << 24),   # M >> 4 = 16
        32, id="f8f6f4-e3m2"),
    pytest.param(
        dict(kind="i8", a_type="s8", b_type="u8", d_type="s32", m=128, n=32, saturate=True),
        (1 << 3)        # Saturate = 1
        + (2 << 4)      # dtype S32 = 2
        + (1 << 7)      # atype Signed 8b = 1
        + (0 << 10)     # btype Unsigned 8b = 0
        + (4 << 17)     # N >> 3 = 4
        + (8 << 24),    # M >> 4 = 8
        32, id="i8-s8-u8-saturate"),
    pytest.param(
        dict(kind="i8", a_type="u8", b_type="s8", d_type="s32", m=64, n=256),
        (2 << 4)        # dtype S32 = 2
        + (0 << 7)      # atype Unsigned 8b = 0
        + (1 << 10)     # btype Signed 8b = 1
        + (32 << 17)    # N >> 3 = 32
        + (4 << 24),    # M >> 4 = 4
        32, id="i8-u8-s8"),
    pytest.param(
        dict(kind="mxf8f6f4", a_type="e2m1", b_type="e4m3", d_type="f32", m=256, n=256,
             scale_type="ue8m0", scale_a_id=3, scale_b_id=1),
        (1 << 4)        # Matrix B Scale Factor Data ID = 1, bits 4-5
        + (5 << 7)      # atype E2M1 = 5 in Table 43
        + (0 << 10)     # btype E4M3 = 0
        + (32 << 17)    # N >> 3 = 32
        + (1 << 23)     # Scale Matrix Type UE8M0 = 1
        + (2 << 27)     # M >> 7 = 2, bits 27-28
        + (3 << 29),    # Matrix A Scale Factor Data ID = 3, bits 29-30
        32, id="mxf8f6f4-e2m1-e4m3"),
    pytest.param(
        dict(kind="mxf8f6f4", a_type="e5m2", b_type="e3m2", d_type="f32", m=128, n=8,
             scale_type="ue8m0"),
        (1 << 7)        # atype E5M2 = 1
        + (4 << 10)     # btype E3M2 = 4
        + (1 << 17)     # N >> 3 = 1
        + (1 << 23)     # UE8M0 = 1
        + (1 << 27),    # M >> 7 = 1
        32, id="mxf8f6f4-e5m2-e3m2"),
    pytest.param(
        dict(kind="mxf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=128, n=128,
             scale_type="ue8m0", scale_a_id=2, scale_b_id=2),
        (2 << 4)        # Matrix B Scale Factor Data ID = 2
        + (1 << 7)      # atype E2M1 = 1 in Table 44
        + (1 << 10)     # btype E2M1 = 1, bits 10-11
        + (16 << 17)    # N >> 3 = 16
        + (1 << 23)     # UE8M0 = 1
        + (1 << 27)     # M >> 7 = 1
        + (2 << 29),    # Matrix A Scale Factor Data ID = 2
        64, id="mxf4"),
    pytest.param(
        dict(kind="mxf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=256, n=128,
             scale_type="ue8m0", k=96),
        (1 << 7)        # atype E2M1 = 1
        + (1 << 10)     # btype E2M1 = 1
        + (16 << 17)    # N >> 3 = 16
        + (1 << 23)     # UE8M0 = 1
        + (2 << 27)     # M >> 7 = 2
        + (1 << 31),    # K Dimension: Dense K=96 = 1
        96, id="mxf4-k96"),
    pytest.param(
        dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=256, n=256,
             scale_type="ue4m3", scale_a_id=1, scale_b_id=3, k=96),
        (3 << 4)        # Matrix B Scale Factor Data ID = 3 (K = 96 block32 IDs 0-3)
        + (1 << 7)      # atype E2M1 = 1
        + (1 << 10)     # btype E2M1 = 1
        + (32 << 17)    # N >> 3 = 32
        + (0 << 23)     # UE4M3 = 0
        + (2 << 27)     # M >> 7 = 2
        + (1 << 29)     # Matrix A Scale Factor Data ID = 1
        + (1 << 31),    # Dense K=96 = 1
        96, id="mxf4nvf4-ue4m3-k96"),
    pytest.param(
        dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=128, n=64,
             scale_type="ue8m0", sparse=True),
        (1 << 2)        # Sparsity: Sparse = 1
        + (1 << 7)      # atype E2M1 = 1
        + (1 << 10)     # btype E2M1 = 1
        + (8 << 17)     # N >> 3 = 8
        + (1 << 23)     # UE8M0 = 1
        + (1 << 27),    # M >> 7 = 1
        128, id="mxf4nvf4-ue8m0-sparse"),
]


@pytest.mark.parametrize("fields, word, k", EVERY_KIND)
def test_instr_desc_every_kind(fields, word, k):
    assert encode_instr_desc(**fields) == word
    decoded = decode_instr_desc(word, kind=fields["kind"])
    assert decoded["k"] == k
    assert {key: decoded[key] for key in fields if key != "k"} == \
        {key: value for key, value in fields.items() if key != "k"}
    assert encode_instr_desc(**decoded) == word


@pytest.mark.parametrize("m, m_field", [(32, 2), (64, 4), (128, 8), (256, 16), (496, 31)])
def test_instr_desc_m_table42(m, m_field):
    # Table 42 bits 24-28 hold M >> 4; M = 32 is the .ws shape, 496 the largest that fits.
    fields = {**F16_BF16_M128_N256, "m": m}
    expected = F16_BF16_M128_N256_WORD - (8 << 24) + (m_field << 24)
    assert encode_instr_desc(**fields) == expected
    assert decode_instr_desc(expected, kind="f16")["m"] == m


@pytest.mark.parametrize("m, m_field", [(128, 1), (256, 2)])
@pytest.mark.parametrize("kind", ["mxf8f6f4", "mxf4", "mxf4nvf4"])
def test_instr_desc_m_block_scaled(kind, m, m_field):
    # Tables 43/44 bits 27-28 hold M >> 7.
    a = "e4m3" if kind == "mxf8f6f4" else "e2m1"
    word = encode_instr_desc(kind=kind, a_type=a, b_type=a, d_type="f32", m=m, n=8,
                             scale_type="ue8m0")
    assert (word >> 27) & 0b11 == m_field
    assert (word >> 24) & 0b111 == 0  # reserved bits 24-26 stay clear
    assert decode_instr_desc(word, kind=kind)["m"] == m


@pytest.mark.parametrize("n, n_field", [(8, 1), (16, 2), (24, 3), (64, 8), (248, 31),
                                        (256, 32), (504, 63)])
def test_instr_desc_n(n, n_field):
    # Bits 17-22 hold N >> 3 in all three tables.
    expected = F16_BF16_M128_N256_WORD - (32 << 17) + (n_field << 17)
    assert encode_instr_desc(**{**F16_BF16_M128_N256, "n": n}) == expected
    assert decode_instr_desc(expected, kind="f16")["n"] == n


@pytest.mark.parametrize("name, bit", [("negate_a", 13), ("negate_b", 14),
                                       ("transpose_a", 15), ("transpose_b", 16)])
def test_instr_desc_transpose_negate_bits(name, bit):
    word = F16_BF16_M128_N256_WORD + (1 << bit)
    assert encode_instr_desc(**F16_BF16_M128_N256, **{name: True}) == word
    assert decode_instr_desc(word, kind="f16")[name] is True


def test_instr_desc_transpose_negate_other_kinds():
    # Table 49: i8 transposes but does not negate; mxf8f6f4 does both; mxf4 only negates.
    i8 = dict(kind="i8", a_type="s8", b_type="s8", d_type="s32", m=128, n=64)
    i8_word = (2 << 4) + (1 << 7) + (1 << 10) + (8 << 17) + (8 << 24)
    assert encode_instr_desc(**i8, transpose_a=True, transpose_b=True) == \
        i8_word + (1 << 15) + (1 << 16)
    mx = dict(kind="mxf8f6f4", a_type="e4m3", b_type="e5m2", d_type="f32", m=128, n=64,
              scale_type="ue8m0")
    mx_word = (0 << 7) + (1 << 10) + (8 << 17) + (1 << 23) + (1 << 27)
    assert encode_instr_desc(**mx, negate_a=True, transpose_b=True) == \
        mx_word + (1 << 13) + (1 << 16)
    fp4 = dict(kind="mxf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=128, n=64,
               scale_type="ue8m0")
    fp4_word = (1 << 7) + (1 << 10) + (8 << 17) + (1 << 23) + (1 << 27)
    assert encode_instr_desc(**fp4, negate_b=True) == fp4_word + (1 << 14)


@pytest.mark.parametrize("selector", [0, 1, 2, 3])
def test_instr_desc_sparse_selector(selector):
    # Table 42: bit 2 Sparse = 1, bits 0-1 the selector; Table 39: sparse f16 has K = 32.
    word = F16_BF16_M128_N256_WORD + (1 << 2) + selector
    assert encode_instr_desc(**F16_BF16_M128_N256, sparse=True,
                             sparsity_selector=selector) == word
    decoded = decode_instr_desc(word, kind="f16")
    assert (decoded["sparse"], decoded["sparsity_selector"], decoded["k"]) == \
        (True, selector, 32)


@pytest.mark.parametrize("kind, a_type, d_type, dense_k", [
    ("tf32", "tf32", "f32", 8), ("f16", "f16", "f32", 16), ("f8f6f4", "e4m3", "f32", 32),
    ("i8", "s8", "s32", 32), ("mxf8f6f4", "e4m3", "f32", 32), ("mxf4", "e2m1", "f32", 64),
    ("mxf4nvf4", "e2m1", "f32", 64)])
@pytest.mark.parametrize("sparse", [False, True])
def test_instr_desc_k_follows_kind_and_sparsity(kind, a_type, d_type, dense_k, sparse):
    # Table 39's K column; a sparse MMA has twice the dense K.
    scale = "ue8m0" if kind.startswith("mx") else None
    fields = dict(kind=kind, a_type=a_type, b_type=a_type, d_type=d_type, m=128, n=64,
                  sparse=sparse, scale_type=scale)
    k = dense_k * (2 if sparse else 1)
    word = encode_instr_desc(**fields)
    assert encode_instr_desc(**fields, k=k) == word
    assert decode_instr_desc(word, kind=kind)["k"] == k


@pytest.mark.parametrize("shift, code", [(0, 0), (8, 1), (16, 2), (32, 3)])
def test_instr_desc_max_shift(shift, code):
    # Table 42 bits 30-31: no shift = 0, 8 = 1, 16 = 2, 32 = 3.
    word = F16_BF16_M128_N256_WORD + (code << 30)
    assert encode_instr_desc(**F16_BF16_M128_N256, max_shift=shift) == word
    assert decode_instr_desc(word, kind="f16")["max_shift"] == shift


def test_instr_desc_scale_ids_and_types():
    base = dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", d_type="f32", m=128, n=8,
                scale_type="ue8m0")
    base_word = (1 << 17) + (1 << 23) + (1 << 27)
    for a_id in range(4):
        for b_id in range(4):
            # scale_A ID at bits 29-30, scale_B ID at bits 4-5 (Table 43).
            word = base_word + (a_id << 29) + (b_id << 4)
            assert encode_instr_desc(**base, scale_a_id=a_id, scale_b_id=b_id) == word
    nv = dict(kind="mxf4nvf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=128, n=8)
    nv_word = (1 << 7) + (1 << 10) + (1 << 17) + (1 << 27)
    assert encode_instr_desc(**nv, scale_type="ue8m0") == nv_word + (1 << 23)
    assert encode_instr_desc(**nv, scale_type="ue4m3") == nv_word
    assert decode_instr_desc(nv_word, kind="mxf4nvf4")["scale_type"] == "ue4m3"
    assert decode_instr_desc(nv_word + (1 << 23), kind="mxf4nvf4")["scale_type"] == "ue8m0"
    # Table 44: IDs 0 or 2 without K = 96.
    assert encode_instr_desc(**nv, scale_type="ue8m0", scale_a_id=2, scale_b_id=2) == \
        nv_word + (1 << 23) + (2 << 29) + (2 << 4)


def test_instr_desc_decode_defaults_for_absent_fields():
    mx_word = (1 << 17) + (1 << 23) + (1 << 27)  # mxf8f6f4 e4m3 x e4m3, M = 128, N = 8
    decoded = decode_instr_desc(mx_word, kind="mxf8f6f4")
    assert decoded["d_type"] == "f32"
    assert (decoded["sparsity_selector"], decoded["saturate"], decoded["max_shift"]) == \
        (0, False, 0)
    decoded = decode_instr_desc(F16_BF16_M128_N256_WORD, kind="f16")
    assert (decoded["scale_type"], decoded["scale_a_id"], decoded["scale_b_id"]) == (None, 0, 0)


F16 = dict(F16_BF16_M128_N256)
F8 = dict(kind="f8f6f4", a_type="e4m3", b_type="e4m3", d_type="f32", m=128, n=64)
I8 = dict(kind="i8", a_type="s8", b_type="s8", d_type="s32", m=128, n=64)
TF32 = dict(kind="tf32", a_type="tf32", b_type="tf32", d_type="f32", m=128, n=64)
MX8 = dict(kind="mxf8f6f4", a_type="e4m3", b_type="e4m3", d_type="f32", m=128, n=64,
           scale_type="ue8m0")
MX4 = dict(kind="mxf4", a_type="e2m1", b_type="e2m1", d_type="f32", m=128, n=64,
           scale_type="ue8m0")
NV4 = dict(MX4, kind="mxf4nvf4")

ILLEGAL_INSTR = [
    (F16, dict(n=250), "n = 250", "Table 42"),
    (F16, dict(n=0), "n = 0", "Table 42"),
    (F16, dict(n=512), "n = 512", "Table 42"),
    (F16, dict(m=40), "m = 40", "Table 42"),
    (F16, dict(m=0), "m = 0", "Table 42"),
    (F16, dict(m=512), "m = 512", "Table 42"),
    (MX8, dict(m=64), "m = 64", "Table 43"),
    (MX4, dict(m=384), "m = 384", "Table 44"),
    (F16, dict(kind="f17"), "kind = 'f17'", "9.7.16.4.2"),
    (F8, dict(a_type="f16"), "a_type = 'f16'", "Table 42"),
    (I8, dict(b_type="e2m1"), "b_type = 'e2m1'", "Table 42"),
    (TF32, dict(d_type="f16"), "d_type = 'f16'", "Table 42"),
    (F16, dict(d_type="s32"), "d_type = 's32'", "Table 42"),
    (MX4, dict(d_type="f16"), "d_type = 'f16'", "Table 44"),
    (MX4, dict(a_type="e4m3"), "a_type = 'e4m3'", "Table 44"),
    (F16, dict(saturate=True), "saturate = True", "Table 42"),
    (I8, dict(negate_a=True), "negate_a = True", "Table 49"),
    (I8, dict(negate_b=True), "negate_b = True", "Table 49"),
    (MX4, dict(transpose_a=True), "transpose_a = True", "Table 49"),
    (NV4, dict(transpose_b=True), "transpose_b = True", "Table 49"),
    (F8, dict(a_type="e2m1", transpose_a=True), "transpose_a = True", "Table 52"),
    (MX8, dict(b_type="e3m2", transpose_b=True), "transpose_b = True", "Table 52"),
    (F16, dict(transpose_a=2), "transpose_a = 2", "Table 42"),
    (F16, dict(sparse=True, sparsity_selector=4), "sparsity_selector = 4", "Table 42"),
    (F16, dict(sparsity_selector=1), "sparsity_selector = 1", "Table 42"),
    (MX8, dict(sparse=True, sparsity_selector=1), "sparsity_selector = 1", "Table 43"),
    (F16, dict(max_shift=4), "max_shift = 4", "Table 42"),
    (MX4, dict(max_shift=8), "max_shift = 8", "Table 44"),
    (MX8, dict(scale_type=None), "scale_type", "Table 43"),
    (MX8, dict(scale_type="ue4m3"), "scale_type = 'ue4m3'", "Table 43"),
    (MX4, dict(scale_type="ue4m3"), "scale_type = 'ue4m3'", "Table 44"),
    (F16, dict(scale_type="ue8m0"), "scale_type = 'ue8m0'", "Table 42"),
    (MX4, dict(scale_a_id=1), "scale_a_id = 1", "Table 44"),
    (NV4, dict(scale_b_id=3), "scale_b_id = 3", "Table 44"),
    (MX8, dict(scale_a_id=4), "scale_a_id = 4", "Table 43"),
    (F16, dict(scale_b_id=1), "scale_b_id = 1", "Table 42"),
    (F16, dict(k=96), "k = 96", "Table 42"),
    (F16, dict(k=32), "k = 32", "Table 42"),
    (MX8, dict(k=96), "k = 96", "Table 43"),
    (MX4, dict(sparse=True, k=96), "k = 96", "Table 44"),
    (MX4, dict(k=128), "k = 128", "Table 44"),
]


@pytest.mark.parametrize("base, change, named, rule", ILLEGAL_INSTR)
def test_instr_desc_rejects(base, change, named, rule):
    with pytest.raises(IsaRuleError) as info:
        encode_instr_desc(**{**base, **change})
    assert named in info.value.message
    assert info.value.rule == rule


def test_instr_desc_rejects_wrong_python_types():
    with pytest.raises(TypeError):
        encode_instr_desc(**{**F16, "m": "128"})
    with pytest.raises(TypeError):
        encode_instr_desc(**F16, negate_a="yes")


ILLEGAL_INSTR_WORDS = [
    # (kind, word, text in the message): reserved bits, undefined codes, impossible fields.
    ("f16", F16_BF16_M128_N256_WORD + (1 << 6), "reserved bit 6"),
    ("f16", F16_BF16_M128_N256_WORD + (1 << 23), "reserved bit 23"),
    ("f16", F16_BF16_M128_N256_WORD + (1 << 29), "reserved bit 29"),
    ("f16", F16_BF16_M128_N256_WORD + (1 << 32), "32-bit"),
    ("f16", F16_BF16_M128_N256_WORD - (8 << 24), "m = 0"),
    ("f16", F16_BF16_M128_N256_WORD - (32 << 17), "n = 0"),
    ("f16", F16_BF16_M128_N256_WORD + (1 << 7), "a_type code 2"),        # BF16 1 -> 2
    ("f16", F16_BF16_M128_N256_WORD + (1 << 3), "saturate"),
    ("f16", F16_BF16_M128_N256_WORD + 1, "sparsity_selector = 1"),        # dense
    ("tf32", (0 << 4) + (2 << 7) + (2 << 10) + (8 << 17) + (8 << 24), "d_type code 0"),
    ("f8f6f4", (1 << 4) + (2 << 7) + (8 << 17) + (8 << 24), "a_type code 2"),
    ("i8", (2 << 4) + (1 << 13) + (8 << 17) + (8 << 24), "negate_a"),
    ("mxf8f6f4", (8 << 17) + (1 << 23) + (1 << 27) + 1, "reserved bits 0-1"),
    ("mxf8f6f4", (8 << 17) + (1 << 23) + (1 << 27) + (1 << 3), "reserved bit 3"),
    ("mxf8f6f4", (8 << 17) + (1 << 23) + (1 << 27) + (1 << 25), "reserved bits 24-26"),
    ("mxf8f6f4", (8 << 17) + (1 << 23) + (1 << 27) + (1 << 31), "reserved bit 31"),
    ("mxf8f6f4", (8 << 17) + (1 << 27), "scale_type = 'ue4m3'"),         # bit 23 = 0
    ("mxf8f6f4", (8 << 17) + (1 << 23), "m = 0"),
    ("mxf4", (1 << 7) + (1 << 10) + (8 << 17) + (1 << 23) + (1 << 27) + (1 << 12),
     "reserved bit 12"),
    ("mxf4", (1 << 7) + (1 << 10) + (8 << 17) + (1 << 27), "scale_type"),  # UE4M3 on mxf4
    ("mxf4", (1 << 7) + (1 << 10) + (8 << 17) + (1 << 23) + (3 << 27), "m = 384"),
    ("mxf4", (1 << 7) + (1 << 10) + (8 << 17) + (1 << 23) + (1 << 27) + (1 << 29),
     "scale_a_id = 1"),
    ("mxf4", (1 << 2) + (1 << 7) + (1 << 10) + (8 << 17) + (1 << 23) + (1 << 27) + (1 << 31),
     "k = 96"),                                                           # sparse K = 96
]


@pytest.mark.parametrize("kind, word, named", ILLEGAL_INSTR_WORDS)
def test_instr_desc_decode_rejects(kind, word, named):
    with pytest.raises(IsaRuleError) as info:
        decode_instr_desc(word, kind=kind)
    assert named in info.value.message


# Legal values per kind, transcribed from Tables 39 and 42-44 independently of the module.
AB_TYPES = {
    "tf32": ["tf32"], "f16": ["f16", "bf16"], "i8": ["s8", "u8"],
    "f8f6f4": ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1"],
    "mxf8f6f4": ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1"],
    "mxf4": ["e2m1"], "mxf4nvf4": ["e2m1"],
}
D_TYPES = {"tf32": ["f32"], "f16": ["f16", "f32"], "f8f6f4": ["f16", "f32"], "i8": ["s32"],
           "mxf8f6f4": ["f32"], "mxf4": ["f32"], "mxf4nvf4": ["f32"]}
DENSE_K = {"tf32": 8, "f16": 16, "f8f6f4": 32, "i8": 32, "mxf8f6f4": 32, "mxf4": 64,
           "mxf4nvf4": 64}
SUB_BYTE = {"e2m3", "e3m2", "e2m1"}


@st.composite
def legal_instr_fields(draw):
    kind = draw(st.sampled_from(sorted(AB_TYPES)))
    block = kind.startswith("mx")
    fp4 = kind in ("mxf4", "mxf4nvf4")
    a_type = draw(st.sampled_from(AB_TYPES[kind]))
    b_type = draw(st.sampled_from(AB_TYPES[kind]))
    sparse = draw(st.booleans())
    k = DENSE_K[kind] * (2 if sparse else 1)
    if fp4 and not sparse and draw(st.booleans()):
        k = 96
    if block:
        scale_type = draw(st.sampled_from(["ue8m0", "ue4m3"] if kind == "mxf4nvf4"
                                          else ["ue8m0"]))
        ids = [0, 2] if fp4 and k != 96 else [0, 1, 2, 3]
    else:
        scale_type, ids = None, [0]
    return dict(
        kind=kind, a_type=a_type, b_type=b_type,
        d_type=draw(st.sampled_from(D_TYPES[kind])),
        m=draw(st.sampled_from([128, 256])) if block else 16 * draw(st.integers(1, 31)),
        n=8 * draw(st.integers(1, 63)),
        transpose_a=draw(st.booleans()) if not fp4 and a_type not in SUB_BYTE else False,
        transpose_b=draw(st.booleans()) if not fp4 and b_type not in SUB_BYTE else False,
        negate_a=draw(st.booleans()) if kind != "i8" else False,
        negate_b=draw(st.booleans()) if kind != "i8" else False,
        sparse=sparse,
        sparsity_selector=draw(st.integers(0, 3)) if sparse and not block else 0,
        saturate=draw(st.booleans()) if kind == "i8" else False,
        max_shift=draw(st.sampled_from([0, 8, 16, 32])) if not block else 0,
        scale_type=scale_type,
        scale_a_id=draw(st.sampled_from(ids)),
        scale_b_id=draw(st.sampled_from(ids)),
        k=k,
    )


@PROPERTY
@given(legal_instr_fields())
def test_instr_desc_round_trip(fields):
    word = encode_instr_desc(**fields)
    assert 0 <= word < 1 << 32
    assert decode_instr_desc(word, kind=fields["kind"]) == fields


@PROPERTY
@given(st.sampled_from(sorted(AB_TYPES)), st.integers(0, (1 << 32) - 1))
def test_instr_desc_decode_accepts_only_encodable_words(kind, word):
    try:
        fields = decode_instr_desc(word, kind=kind)
    except IsaRuleError:
        return
    assert encode_instr_desc(**fields) == word


# =======================================================================================
# Shared-memory descriptor (Table 40) and canonical strides (9.7.16.3.3)
# =======================================================================================

FIXED_46_48 = 0b001 << 46  # Table 40: bits 46-48 hold the constant 0b001


@pytest.mark.parametrize("swizzle, code", [("none", 0), ("128B_base32B", 1), ("128B", 2),
                                           ("64B", 4), ("32B", 6)])
def test_smem_desc_every_swizzle(swizzle, code):
    word = (
        (0x400 >> 4)            # start address 0x400, bits 0-13
        + ((16 >> 4) << 16)     # LBO 16 bytes, bits 16-29
        + ((1024 >> 4) << 32)   # SBO 1024 bytes, bits 32-45
        + FIXED_46_48
        + (code << 61)          # swizzling mode, bits 61-63
    )
    assert SWIZZLE_CODES[swizzle] == code
    assert encode_smem_desc(start_address=0x400, lbo=16, sbo=1024, swizzle=swizzle) == word
    assert decode_smem_desc(word) == dict(start_address=0x400, lbo=16, sbo=1024,
                                          swizzle=swizzle, base_offset=0, lbo_mode="relative")


# The examples of 9.7.16.3.3.  The tile extents are read off each "Exact layout": its first
# mode is the MN extent, its second the K extent (e.g. ((8,2),(4,4)) is 16 x 16).  LBO and
# SBO in bytes are the table's element counts times sizeof (4 for tf32, 2 for bf16).
ISA_CANONICAL_EXAMPLES = [
    # dtype, major, swizzle, tile_mn, tile_k, LBO bytes, SBO bytes, LBO field, SBO field
    pytest.param("tf32", "K", "none", 16, 16, 64 * 4, 32 * 4, 16, 8, id="K-none-tf32"),
    # LBO is "NA" for swizzled K-major; the field is "1 (assumed)", i.e. 16 bytes.
    pytest.param("tf32", "K", "32B", 16, 16, 16, 64 * 4, 1, 16, id="K-32B-tf32"),
    pytest.param("bf16", "MN", "none", 16, 16, 128 * 2, 64 * 2, 16, 8, id="MN-none-bf16"),
    pytest.param("bf16", "MN", "32B", 32, 16, 128 * 2, 256 * 2, 16, 32, id="MN-32B-bf16"),
    pytest.param("bf16", "MN", "64B", 64, 16, 256 * 2, 512 * 2, 32, 64, id="MN-64B-bf16"),
]


@pytest.mark.parametrize("dtype, major, swizzle, tile_mn, tile_k, lbo, sbo, lbo_field, "
                         "sbo_field", ISA_CANONICAL_EXAMPLES)
def test_canonical_strides_isa_examples(dtype, major, swizzle, tile_mn, tile_k, lbo, sbo,
                                        lbo_field, sbo_field):
    assert canonical_smem_strides(dtype=dtype, major=major, swizzle=swizzle,
                                  tile_mn=tile_mn, tile_k=tile_k) == (lbo, sbo)
    word = encode_smem_desc(start_address=0, lbo=lbo, sbo=sbo, swizzle=swizzle)
    assert (word >> 16) & 0x3FFF == lbo_field
    assert (word >> 32) & 0x3FFF == sbo_field


TMEM_FACTS_STRIDES = [
    # tmem-facts section 4, MN-major bf16, tile MN x K = 128x64 and 64x128 (LBO, SBO).
    ("bf16", "MN", "128B", 128, 64, 1024, 2048),
    ("bf16", "MN", "64B", 128, 64, 512, 2048),
    ("bf16", "MN", "32B", 128, 64, 256, 2048),
    ("bf16", "MN", "none", 128, 64, 2048, 128),
    ("bf16", "MN", "128B", 64, 128, 0, 1024),  # one atom along MN: LBO never stepped
    ("bf16", "MN", "64B", 64, 128, 512, 1024),
    ("bf16", "MN", "32B", 64, 128, 256, 1024),
    ("bf16", "MN", "none", 64, 128, 1024, 128),
    # MN-major tf32 with the 4-row atom of 128B swizzle with 32B atomicity (C++ convention).
    ("tf32", "MN", "128B_base32B", 128, 64, 512, 2048),
    ("tf32", "MN", "128B_base32B", 64, 128, 512, 1024),
    # K-major swizzled: SBO = 8 * W, LBO = 16.
    ("bf16", "K", "128B", 128, 64, 16, 8 * 128),
    ("bf16", "K", "64B", 128, 32, 16, 8 * 64),
    ("bf16", "K", "32B", 128, 16, 16, 8 * 32),
    ("e4m3", "K", "128B", 256, 128, 16, 8 * 128),
    ("tf32", "K", "128B", 128, 32, 16, 8 * 128),
    # K-major without swizzle: SBO = 128, LBO = 16 * MN extent.
    ("bf16", "K", "none", 128, 64, 16 * 128, 128),
    ("f16", "K", "none", 64, 16, 16 * 64, 128),
    # Sub-byte types, K-major only.  128 padded E2M3 are 128 bytes (16 per 16 bytes);
    # 256 packed E2M1 are 128 bytes (two per byte).
    ("e2m3", "K", "128B", 128, 128, 16, 8 * 128),
    ("e2m1", "K", "128B", 128, 256, 16, 8 * 128),
    ("e2m1", "K", "none", 128, 32, 16 * 128, 128),
]


@pytest.mark.parametrize("dtype, major, swizzle, tile_mn, tile_k, lbo, sbo", TMEM_FACTS_STRIDES)
def test_canonical_strides_conventions(dtype, major, swizzle, tile_mn, tile_k, lbo, sbo):
    assert canonical_smem_strides(dtype=dtype, major=major, swizzle=swizzle,
                                  tile_mn=tile_mn, tile_k=tile_k) == (lbo, sbo)


ILLEGAL_CANONICAL = [
    (dict(dtype="e2m1", major="MN", swizzle="128B", tile_mn=256, tile_k=64), "dtype = 'e2m1'",
     "Table 52"),
    (dict(dtype="e3m2", major="MN", swizzle="none", tile_mn=128, tile_k=64), "dtype = 'e3m2'",
     "Table 52"),
    (dict(dtype="tf32", major="MN", swizzle="128B", tile_mn=128, tile_k=64), "swizzle = '128B'",
     "Table 52"),
    (dict(dtype="bf16", major="MN", swizzle="128B_base32B", tile_mn=128, tile_k=64),
     "swizzle = '128B_base32B'", "Table 52"),
    (dict(dtype="bf16", major="K", swizzle="128B_base32B", tile_mn=128, tile_k=64),
     "swizzle = '128B_base32B'", "Table 53"),
    (dict(dtype="bf16", major="K", swizzle="128B", tile_mn=128, tile_k=32), "tile_k = 32",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="K", swizzle="none", tile_mn=12, tile_k=64), "tile_mn = 12",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="K", swizzle="none", tile_mn=128, tile_k=4), "tile_k = 4",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="MN", swizzle="128B", tile_mn=32, tile_k=64), "tile_mn = 32",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="MN", swizzle="64B", tile_mn=64, tile_k=12), "tile_k = 12",
     "9.7.16.3.3"),
    (dict(dtype="tf32", major="MN", swizzle="128B_base32B", tile_mn=64, tile_k=6), "tile_k = 6",
     "9.7.16.3.3"),
    (dict(dtype="s32", major="K", swizzle="none", tile_mn=128, tile_k=64), "dtype = 's32'",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="M", swizzle="none", tile_mn=128, tile_k=64), "major = 'M'",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="K", swizzle="16B", tile_mn=128, tile_k=64), "swizzle = '16B'",
     "Table 40"),
    (dict(dtype="bf16", major="K", swizzle="none", tile_mn=0, tile_k=64), "tile_mn = 0",
     "9.7.16.3.3"),
    (dict(dtype="bf16", major="K", swizzle="none", tile_mn=16384, tile_k=64), "lbo = ",
     "Table 40"),
]


@pytest.mark.parametrize("args, named, rule", ILLEGAL_CANONICAL)
def test_canonical_strides_rejects(args, named, rule):
    with pytest.raises(IsaRuleError) as info:
        canonical_smem_strides(**args)
    assert named in info.value.message
    assert info.value.rule == rule


def test_smem_desc_base_offset():
    # Table 41: a 128B-swizzle pattern should start on a 1024-byte boundary.  One starting
    # at 0x1380 needs base offset = (0x1380 >> 7) & 7 = 0x27 & 7 = 7, in bits 49-51.
    start = 0x1380
    word = ((0x1380 >> 4) + ((16 >> 4) << 16) + ((1024 >> 4) << 32) + FIXED_46_48
            + (7 << 49) + (2 << 61))
    assert encode_smem_desc(start_address=start, lbo=16, sbo=1024, swizzle="128B",
                            base_offset=(start >> 0x7) & 0x7) == word
    assert decode_smem_desc(word)["base_offset"] == 7


def test_smem_desc_absolute_mode():
    # 9.7.16.3.1.2: LBO holds the address of the second K chunk; bit 52 = 1 selects it.
    word = ((0x800 >> 4) + ((0x1000 >> 4) << 16) + ((1024 >> 4) << 32) + FIXED_46_48
            + (1 << 52) + (2 << 61))
    assert encode_smem_desc(start_address=0x800, lbo=0x1000, sbo=1024, swizzle="128B",
                            lbo_mode="absolute") == word
    assert decode_smem_desc(word) == dict(start_address=0x800, lbo=0x1000, sbo=1024,
                                          swizzle="128B", base_offset=0, lbo_mode="absolute")


def test_smem_desc_extreme_offsets():
    # The largest 16-byte-aligned value matrix-descriptor-encode keeps: 0x3FFF0 -> 0x3FFF.
    word = 0x3FFF + (0x3FFF << 16) + (0x3FFF << 32) + FIXED_46_48
    assert encode_smem_desc(start_address=0x3FFF0, lbo=0x3FFF0, sbo=0x3FFF0,
                            swizzle="none") == word
    assert encode_smem_desc(start_address=0, lbo=0, sbo=0, swizzle="none") == FIXED_46_48


def test_matrix_descriptor_encode_formula():
    # (x & 0x3FFFF) >> 4: bits 4-17 survive, anything above bit 17 is dropped.
    assert matrix_descriptor_encode(0x12340) == 0x1234
    assert matrix_descriptor_encode(0x412340) == 0x1234
    assert matrix_descriptor_encode(0x3FFFF) == 0x3FFF
    assert matrix_descriptor_encode(0xF) == 0


@PROPERTY
@given(st.integers(0, 0x3FFF).map(lambda units: units * 16),
       st.sampled_from(sorted(SWIZZLE_CODES)))
def test_smem_desc_runtime_start_address_or(address, swizzle):
    # The lowering builds the constant part with start_address = 0 and ORs the run-time
    # field in; that must equal encoding the address directly.
    constant = encode_smem_desc(start_address=0, lbo=16, sbo=1024, swizzle=swizzle)
    assert constant | matrix_descriptor_encode(address) == \
        encode_smem_desc(start_address=address, lbo=16, sbo=1024, swizzle=swizzle)


ILLEGAL_SMEM = [
    (dict(start_address=8), "start_address = 0x8", "Table 40"),
    (dict(lbo=24), "lbo = 0x18", "Table 40"),
    (dict(sbo=1000), "sbo = 0x3e8", "Table 40"),
    (dict(start_address=0x40000), "start_address = 0x40000", "Table 40"),
    (dict(lbo=-16), "lbo = -0x10", "Table 40"),
    (dict(base_offset=8), "base_offset = 8", "Table 40"),
    (dict(base_offset=-1), "base_offset = -1", "Table 40"),
    (dict(swizzle="16B"), "swizzle = '16B'", "Table 40"),
    (dict(lbo_mode="bogus"), "lbo_mode = 'bogus'", "Table 40"),
    (dict(lbo_mode="absolute", swizzle="64B"), "swizzle = '64B'", "9.7.16.3.1.2.1"),
    (dict(lbo_mode="absolute", swizzle="128B_base32B"), "swizzle = '128B_base32B'",
     "9.7.16.3.1.2.1"),
    (dict(lbo_mode="absolute", base_offset=1), "base_offset = 1", "9.7.16.3.1.2.1"),
]


@pytest.mark.parametrize("change, named, rule", ILLEGAL_SMEM)
def test_smem_desc_rejects(change, named, rule):
    fields = dict(start_address=0x400, lbo=16, sbo=1024, swizzle="128B", **{})
    fields.update(change)
    with pytest.raises(IsaRuleError) as info:
        encode_smem_desc(**fields)
    assert named in info.value.message
    assert info.value.rule == rule


SMEM_OK = (0x400 >> 4) + (1 << 16) + (64 << 32) + FIXED_46_48 + (2 << 61)


@pytest.mark.parametrize("word, named", [
    (SMEM_OK - FIXED_46_48, "bits 46-48"),
    (SMEM_OK + (1 << 47), "bits 46-48"),
    (SMEM_OK + (1 << 53), "bits 53-60"),
    (SMEM_OK + (1 << 60), "bits 53-60"),
    (SMEM_OK + (1 << 14), "bits 14-15"),
    (SMEM_OK + (1 << 31), "bits 30-31"),
    (SMEM_OK - (2 << 61) + (3 << 61), "swizzle code 3"),
    (SMEM_OK - (2 << 61) + (5 << 61), "swizzle code 5"),
    (SMEM_OK - (2 << 61) + (7 << 61), "swizzle code 7"),
    (SMEM_OK - (2 << 61) + (4 << 61) + (1 << 52), "swizzle = '64B'"),  # absolute + 64B
    (SMEM_OK + (1 << 52) + (1 << 49), "base_offset = 1"),              # absolute + offset
    (1 << 64, "64-bit"),
])
def test_smem_desc_decode_rejects(word, named):
    with pytest.raises(IsaRuleError) as info:
        decode_smem_desc(word)
    assert named in info.value.message


@st.composite
def legal_smem_fields(draw):
    offset = st.integers(0, 0x3FFF).map(lambda units: units * 16)
    lbo_mode = draw(st.sampled_from(["relative", "absolute"]))
    absolute = lbo_mode == "absolute"
    return dict(
        start_address=draw(offset), lbo=draw(offset), sbo=draw(offset),
        swizzle="128B" if absolute else draw(st.sampled_from(sorted(SWIZZLE_CODES))),
        base_offset=0 if absolute else draw(st.integers(0, 7)),
        lbo_mode=lbo_mode,
    )


@PROPERTY
@given(legal_smem_fields())
def test_smem_desc_round_trip(fields):
    word = encode_smem_desc(**fields)
    assert 0 <= word < 1 << 64
    assert decode_smem_desc(word) == fields


@PROPERTY
@given(st.integers(0, (1 << 64) - 1))
def test_smem_desc_decode_accepts_only_encodable_words(word):
    # Force the fixed bits for half the space so that the other checks are reached.
    for candidate in (word, (word & ~(0b111 << 46) & ~(0xFF << 53)) | FIXED_46_48):
        try:
            fields = decode_smem_desc(candidate)
        except IsaRuleError:
            continue
        assert encode_smem_desc(**fields) == candidate


# =======================================================================================
# Zero-column mask descriptor (Table 45)
# =======================================================================================
#
# Reading the examples.  The example tables give Skip Span and Use Span as the encoded
# field values (count - 1), and the masks show what the spans count:
#
#   Example 2: fs0 = 0, Skip Span = 2, Use Span = 3, mask0 = 0b ... 111 0000 111 0000.
#   Read from the LSB: four 0s, three 1s, four 0s, three 1s.  1 = column zeroed,
#   0 = column used.  So the runs of 1s are Skip Span + 1 = 3 long and the runs of 0s are
#   Use Span + 1 = 4 long: skip span counts zeroed columns, use span counts used columns.
#   (Table 45's description column says the reverse; the examples are followed.)
#   fs0 = 0 makes the mask start with a run of 0s (a use span).
#
#   Example 3, mask0: fs0 = 1, mask 0b ... 111 0000 111 0000 111, from the LSB three 1s,
#   four 0s, ...: fs = 1 starts with a run of 1s (a skip span).  mask1 (fs1 = 0) starts
#   with four 0s, like example 2.
#
#   Example 4 adds start counts.  mask1 has sc1 = 1, fs1 = 1: the fs = 1 string is
#   111 0000 111 0000 ... (LSB first); dropping its first bit gives 11 0000 111 0000 ...,
#   and the ISA's mask1 = 0b ... 0000 111 0000 11 read from the LSB is exactly two 1s,
#   four 0s, three 1s.  mask2 (sc2 = 2, fs2 = 0): 0000 111 ... minus two bits is
#   00 111 0000 111, matching 0b ... 111 0000 111 00.  mask3 (sc3 = 1, fs3 = 0):
#   000 111 0000 ..., matching 0b ... 111 0000 111 000.  So the start count drops that
#   many leading bits of the periodic string: bit j of mask i is bit j + sc_i of it.
#
#   Column shift.  Example 4 has shift 2, yet its masks are exactly what sc/fs/spans give
#   on their own: the shift does not move mask bits.  It moves the B columns the MMA
#   reads ("columns from 2 to 129 ... for N = 128"), and mask bit j applies to the j-th
#   column of that shifted window.

EXAMPLE_1 = (4 << 40) + (3 << 48)  # Non-Zero Mask = 0, Skip Span 4, Use Span 3
EXAMPLE_2 = (0 << 0) + (0 << 32) + (1 << 39) + (2 << 40) + (3 << 48)
EXAMPLE_3 = (0 << 0) + (0 << 8) + (1 << 32) + (0 << 33) + (1 << 39) + (2 << 40) + (3 << 48)
EXAMPLE_4 = (
    (0 << 0) + (1 << 8) + (2 << 16) + (1 << 24)      # sc0..sc3 = 0, 1, 2, 1
    + (1 << 32) + (1 << 33) + (0 << 34) + (0 << 35)  # fs0..fs3 = 1, 1, 0, 0
    + (1 << 39)                                      # Non-Zero Mask = 1
    + (2 << 40) + (3 << 48)                          # Skip Span 2, Use Span 3 (fields)
    + (2 << 56)                                      # Column Shift 2
)


def test_zero_column_mask_encode_examples():
    # Spans are passed as counts: field + 1.
    assert encode_zero_column_mask(non_zero_mask=False, skip_span=5, use_span=4) == EXAMPLE_1
    assert encode_zero_column_mask(skip_span=3, use_span=4) == EXAMPLE_2
    assert encode_zero_column_mask(first_spans=(1, 0, 0, 0), skip_span=3,
                                   use_span=4) == EXAMPLE_3
    assert encode_zero_column_mask(start_counts=(0, 1, 2, 1), first_spans=(1, 1, 0, 0),
                                   skip_span=3, use_span=4, column_shift=2) == EXAMPLE_4
    assert decode_zero_column_mask(EXAMPLE_4) == dict(
        start_counts=(0, 1, 2, 1), first_spans=(1, 1, 0, 0), non_zero_mask=True,
        skip_span=3, use_span=4, column_shift=2)


def _low_bits_match(mask, shown):
    """The ISA prints the low end of each mask, MSB first, after "0b ..."."""
    digits = shown.replace(" ", "")
    return mask & ((1 << len(digits)) - 1) == int(digits, 2)


def test_zero_column_mask_example_1():
    assert zero_column_masks(EXAMPLE_1, m=128, n=128) == [0x0]


def test_zero_column_mask_example_2():
    (mask0,) = zero_column_masks(EXAMPLE_2, m=128, n=64)
    assert _low_bits_match(mask0, "111 0000 111 0000")
    # N = 64: LSB-first string 0000111 repeated; bits 0-62 are nine periods and bit 63 is
    # the first bit of the tenth (a 0).  MSB first: 0, then nine times 1110000.
    assert mask0 == 0b0_1110000_1110000_1110000_1110000_1110000_1110000_1110000_1110000_1110000


def test_zero_column_mask_example_3():
    mask0, mask1 = zero_column_masks(EXAMPLE_3, m=64, n=64)  # two 32-bit sub-masks
    assert _low_bits_match(mask0, "111 0000 111 0000 111")
    assert _low_bits_match(mask1, "0000 111 0000 111 0000")
    # mask0 (fs0 = 1): LSB first 1110000 x 4 (bits 0-27), then 1110 (bits 28-31).
    assert mask0 == 0b0111_0000111_0000111_0000111_0000111
    # mask1 (fs1 = 0): LSB first 0000111 x 4, then 0000.
    assert mask1 == 0b0000_1110000_1110000_1110000_1110000


def test_zero_column_mask_example_4():
    masks = zero_column_masks(EXAMPLE_4, m=32, n=128)  # N = 128 as in the text: 4 x 32 bits
    mask0, mask1, mask2, mask3 = masks
    assert _low_bits_match(mask0, "0000 111 0000 111")
    assert _low_bits_match(mask1, "0000 111 0000 11")
    assert _low_bits_match(mask2, "111 0000 111 00")
    assert _low_bits_match(mask3, "111 0000 111 000")
    # mask0: sc0 = 0, fs0 = 1, as example 3's mask0.
    assert mask0 == 0b0111_0000111_0000111_0000111_0000111
    # mask1: fs1 = 1 string without its first bit.  LSB first: 110000 (6 bits),
    # 1110000 x 3 (21), then string bits 28-32 = 11100 (5).  Reversed for MSB first:
    assert mask1 == 0b00111_0000111_0000111_0000111_000011
    # mask2: fs2 = 0 string without two bits.  LSB first: 00111 (5), 0000111 x 3 (21),
    # then string bits 28-33 = 000011 (6).
    assert mask2 == 0b110000_1110000_1110000_1110000_11100
    # mask3: fs3 = 0 string without one bit.  LSB first: 000111 (6), 0000111 x 3 (21),
    # then string bits 28-32 = 00001 (5).
    assert mask3 == 0b10000_1110000_1110000_1110000_111000
    # The column shift of 2 does not change the masks.
    unshifted = EXAMPLE_4 - (2 << 56)
    assert zero_column_masks(unshifted, m=32, n=128) == masks


def test_zero_column_mask_shift_limits():
    at_16 = encode_zero_column_mask(skip_span=1, use_span=1, column_shift=16)
    at_17 = encode_zero_column_mask(skip_span=1, use_span=1, column_shift=17)
    at_32 = encode_zero_column_mask(skip_span=1, use_span=1, column_shift=32)
    assert at_32 == (1 << 39) + (32 << 56)
    assert len(zero_column_masks(at_16, m=32, n=128)) == 4
    assert len(zero_column_masks(at_17, m=64, n=128)) == 2
    with pytest.raises(IsaRuleError, match="column_shift = 17"):
        zero_column_masks(at_17, m=32, n=128)


ILLEGAL_ZCM = [
    (dict(start_counts=(0, 0, 256, 0)), "start_counts[2] = 256"),
    (dict(start_counts=(-1, 0, 0, 0)), "start_counts[0] = -1"),
    (dict(first_spans=(0, 2, 0, 0)), "first_spans[1] = 2"),
    (dict(skip_span=0), "skip_span = 0"),
    (dict(skip_span=257), "skip_span = 257"),
    (dict(use_span=0), "use_span = 0"),
    (dict(use_span=300), "use_span = 300"),
    (dict(column_shift=33), "column_shift = 33"),
    (dict(column_shift=-1), "column_shift = -1"),
    (dict(non_zero_mask=2), "non_zero_mask = 2"),
]


@pytest.mark.parametrize("change, named", ILLEGAL_ZCM)
def test_zero_column_mask_rejects(change, named):
    fields = dict(skip_span=3, use_span=4)
    fields.update(change)
    with pytest.raises(IsaRuleError) as info:
        encode_zero_column_mask(**fields)
    assert named in info.value.message
    assert info.value.rule == "Table 45"


def test_zero_column_mask_rejects_malformed_sequences():
    with pytest.raises(TypeError):
        encode_zero_column_mask(start_counts=(0, 0, 0), skip_span=1, use_span=1)
    with pytest.raises(TypeError):
        encode_zero_column_mask(first_spans="0000", skip_span=1, use_span=1)


@pytest.mark.parametrize("word, named", [
    (EXAMPLE_2 + (1 << 36), "reserved bits 36-38"),
    (EXAMPLE_2 + (1 << 38), "reserved bits 36-38"),
    (EXAMPLE_2 + (1 << 62), "bits 62-63"),
    (EXAMPLE_2 + (33 << 56), "column_shift = 33"),
    (1 << 64, "64-bit"),
])
def test_zero_column_mask_decode_rejects(word, named):
    with pytest.raises(IsaRuleError) as info:
        decode_zero_column_mask(word)
    assert named in info.value.message


@pytest.mark.parametrize("m, n, named", [(256, 128, "m = 256"), (128, 60, "n = 60"),
                                         (32, 0, "n = 0"), (64, -8, "n = -8")])
def test_zero_column_masks_rejects_shapes(m, n, named):
    with pytest.raises(IsaRuleError, match=named):
        zero_column_masks(EXAMPLE_2, m=m, n=n)


legal_zcm_fields = st.fixed_dictionaries(dict(
    start_counts=st.tuples(*[st.integers(0, 255)] * 4),
    first_spans=st.tuples(*[st.integers(0, 1)] * 4),
    non_zero_mask=st.booleans(),
    skip_span=st.integers(1, 256),
    use_span=st.integers(1, 256),
    column_shift=st.integers(0, 32),
))


@PROPERTY
@given(legal_zcm_fields)
def test_zero_column_mask_round_trip(fields):
    word = encode_zero_column_mask(**fields)
    assert 0 <= word < 1 << 64
    assert decode_zero_column_mask(word) == fields


@PROPERTY
@given(st.integers(0, 40), st.integers(1, 12), st.integers(1, 12), st.integers(0, 1))
def test_zero_column_mask_structure(start, skip, use, first):
    # Properties the examples imply, checked without restating the generator.
    period = skip + use
    width = 64

    def mask(sc, fs, n=width):
        word = encode_zero_column_mask(start_counts=(sc, 0, 0, 0), first_spans=(fs, 0, 0, 0),
                                       skip_span=skip, use_span=use)
        return zero_column_masks(word, m=128, n=n)[0]

    bits = [(mask(start, first) >> j) & 1 for j in range(width)]
    # Periodic, with exactly `skip` zeroed columns per period.
    for j in range(width - period):
        assert bits[j] == bits[j + period]
        assert sum(bits[j:j + period]) == skip
    # A start count drops leading bits of the sc = 0 string (example 4).
    wide = mask(0, first, n=width + 64)
    assert mask(start, first) == (wide >> start) & ((1 << width) - 1)
    # A 1s-first string is the 0s-first string advanced past its first use span.
    if first == 1 and start + use <= 255:
        assert mask(start, 1) == mask(start + use, 0)
    # Without a start count the first span is a run of fs-valued bits.
    head = mask(0, first)
    run = skip if first else use
    assert all((head >> j) & 1 == first for j in range(run))


@PROPERTY
@given(legal_zcm_fields, st.sampled_from([32, 64]))
def test_zero_column_mask_sub_masks_are_independent(fields, m):
    # With M = 64 or 32, sub-mask i depends only on sc_i and fs_i, as an M = 128 mask over
    # its slice of N would.
    fields = dict(fields, non_zero_mask=True, column_shift=0)
    n = 128
    count = 128 // m
    masks = zero_column_masks(encode_zero_column_mask(**fields), m=m, n=n)
    assert len(masks) == count
    for i, sub_mask in enumerate(masks):
        alone = dict(fields, start_counts=(fields["start_counts"][i], 0, 0, 0),
                     first_spans=(fields["first_spans"][i], 0, 0, 0))
        (expected,) = zero_column_masks(encode_zero_column_mask(**alone), m=128, n=n // count)
        assert sub_mask == expected
