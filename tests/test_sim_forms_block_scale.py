"""The simulator's 4- and 6-bit element types (.kind::f8f6f4) and block-scaled MMAs
(.kind::mxf8f6f4, .kind::mxf4, .kind::mxf4nvf4), tcgen05_lower/sim/block_scale.py.

(a) Unit tests against hand derivations from the PTX ISA text: instruction descriptors
(Tables 43, 44), element and scale values from their bit layouts (E2M1, E2M3, E3M2, UE8M0,
UE4M3), container formats (9.7.16.10.4, 9.7.16.9.1), the scale vector size (Tables 54, 55)
and the scale-factor placement in tensor memory (tmem-facts section 3).

(b) End to end: kernels in the tcgen05 dialect compiled with ``compile_source`` and run with
``simulate``, checked against a NumPy reference written here from the ISA text (never the
compiler's or the simulator's code): values from the formats' bit layouts by hand, the
padded and packed containers built with Python integers, scale factors laid out as
tmem-facts section 3 says. Every test asserts no race and no problem (TMEM leak, unwaited
op). Tolerance: the simulator rounds D to f32 once per MMA after an exact float64 sum, so
with f32 D every element agrees with the float64 reference within
(MMAs) * 2^-24 * (|A * scale_A| @ |B * scale_B|^T) (f16 D: 2^-11 instead of 2^-24).

The compiler refuses to fill a shared-memory tile of 4- or 6-bit elements ("filling a tile
of e2m1 is not supported yet (8-, 16- and 32-bit elements only)", tcgen05-verify), so the
end-to-end kernels with such operands are compiled twice: once as written but with 8-bit
tiles (f8E4M3FN, filled by smem_fill with the same bytes: the padded f8f6f4 containers hold
16 elements per 16 bytes, and K = 64 packed E2M1 are the same 32 bytes as K = 32 8-bit
elements), and once with the real element types and no fill; each tcgen05.mma of the first
then takes the opcode and instruction descriptor the compiler emitted for the second
(``retyped``). The ``direct`` variants compile the real kernel with its fills and are
strict xfails until the compiler accepts them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.sim import block_scale as bs
from tcgen05_lower.sim import tensor_core as tc
from tcgen05_lower.sim import tc_descriptors as td
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import Address, CtaMemory, SimError

RNG = np.random.default_rng(2024)

# -- Formats by hand -----------------------------------------------------------------------
# (exponent bits, mantissa bits, bias, NaN rule) of each type: value = (-1)^s * 2^(e - bias)
# * (1 + m / 2^M) for e > 0 and (-1)^s * 2^(1 - bias) * m / 2^M for e = 0 (subnormal).
# E2M1 / E2M3 / E3M2 have no Inf or NaN; E4M3's S.1111.111 is NaN; E5M2 is IEEE-like;
# UE8M0 is 2^(e - 127) with 0xFF NaN; UE4M3 is E4M3 without its sign bit.
FORMATS = {"e2m1": (2, 1, 1), "e2m3": (2, 3, 1), "e3m2": (3, 2, 3), "e4m3": (4, 3, 7),
           "e5m2": (5, 2, 15)}


def minifloat(code: int, element: str) -> float:
    e_bits, m_bits, bias = FORMATS[element]
    sign = -1.0 if (code >> (e_bits + m_bits)) & 1 else 1.0
    e = (code >> m_bits) & ((1 << e_bits) - 1)
    m = code & ((1 << m_bits) - 1)
    if element == "e4m3" and e == 15 and m == 7:
        return float("nan")
    if element == "e5m2" and e == 31:
        return sign * float("inf") if m == 0 else float("nan")
    if e == 0:
        return sign * 2.0 ** (1 - bias) * m / 2 ** m_bits
    return sign * 2.0 ** (e - bias) * (1 + m / 2 ** m_bits)


def scale_value(code: int, scale_type: str) -> float:
    if scale_type == "ue8m0":
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    return minifloat(code, "e4m3")      # ue4m3: the sign bit is 0


def values(codes: np.ndarray, element: str) -> np.ndarray:
    table = np.array([minifloat(c, element) for c in range(1 << BITS[element])])
    return table[codes]


def scale_values(codes: np.ndarray, scale_type: str) -> np.ndarray:
    return np.array([scale_value(c, scale_type) for c in range(256)])[codes]


BITS = {"e2m1": 4, "e2m3": 6, "e3m2": 6, "e4m3": 8, "e5m2": 8}


def pack_padded(codes: np.ndarray, bits: int, rng=RNG) -> np.ndarray:
    """9.7.16.10.4.4 / 9.7.16.9.1: each 16 elements packed into 16 * bits / 8 bytes, element
    i at bits [bits*i, bits*i + bits) of the little-endian group, then padding (filled with
    random bytes here: the MMA must not read them as data)."""
    rows, k = codes.shape
    out = rng.integers(0, 256, (rows, k), dtype=np.uint8)
    for r in range(rows):
        for g in range(k // 16):
            word = 0
            for i in range(16):
                word |= int(codes[r, 16 * g + i]) << (bits * i)
            data = word.to_bytes(2 * bits, "little")
            out[r, 16 * g:16 * g + 2 * bits] = np.frombuffer(data, np.uint8)
    return out


def pack_two_per_byte(codes: np.ndarray) -> np.ndarray:
    """9.7.16.10.4.6: two E2M1 per byte, no padding; element 2j in the low nibble."""
    return (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)


def random_codes(element: str, shape, rng=RNG) -> np.ndarray:
    """Codes of finite values (E4M3 without NaN, E5M2 without Inf/NaN, magnitudes <= 8
    for the 8-bit types so that f16 sums stay finite)."""
    bits = BITS[element]
    codes = rng.integers(0, 1 << bits, shape).astype(np.uint8)
    if bits == 8:
        limit = {"e4m3": 0x50, "e5m2": 0x48}[element]      # 8.0 in both
        codes = (codes & 0x80) | (codes & 0x7F) % limit
    return codes


# -- (a) Unit tests: descriptors ------------------------------------------------------------

def test_table_43_mxf8f6f4_descriptor_by_hand():
    # lit_tests/forms/mma-kinds.mlir's kind_mxf8f6f4, derived by hand there from Table 43:
    # scale B ID 1 << 4, btype E2M1 5 << 10, N = 64: 8 << 17, UE8M0 1 << 23, M >> 7 = 1 << 27,
    # scale A ID 3 << 29.
    info = td.decode_instr_descriptor(0x68901410, "mxf8f6f4")
    assert (info.m, info.n, info.k, info.d_type) == (128, 64, 32, "f32")
    assert (info.a_type, info.b_type, info.scale_type) == ("e4m3", "e2m1", "ue8m0")
    assert (info.scale_a_id, info.scale_b_id) == (3, 1)
    assert not (info.negate_a or info.negate_b or info.sparse or info.transpose_a)
    # every Table 43 type code: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5; M = 256 is 2 << 27
    for code, name in ((0, "e4m3"), (1, "e5m2"), (3, "e2m3"), (4, "e3m2"), (5, "e2m1")):
        info = bs.decode_instr_descriptor(code << 7 | code << 10 | 1 << 23 | 2 << 27 | 32 << 17,
                                          "mxf8f6f4")
        assert (info.a_type, info.b_type, info.m, info.n) == (name, name, 256, 256)


def test_table_44_mxf4_and_mxf4nvf4_descriptors_by_hand():
    # mma-kinds.mlir kind_mxf4: E2M1 = 1 at bits 7-9 and 10-11, N 8 << 17, UE8M0 1 << 23,
    # M 1 << 27, scale A ID 2 << 29, scale B ID 2 << 4 = 0x489004A0.
    info = td.decode_instr_descriptor(0x489004A0, "mxf4")
    assert (info.m, info.n, info.k, info.a_type, info.b_type) == (128, 64, 64, "e2m1", "e2m1")
    assert (info.scale_type, info.scale_a_id, info.scale_b_id) == ("ue8m0", 2, 2)
    # kind_mxf4nvf4: bit 23 = 0 is UE4M3 there, negate A 1 << 13 = 0x08102480
    info = td.decode_instr_descriptor(0x08102480, "mxf4nvf4")
    assert (info.scale_type, info.negate_a, info.negate_b, info.k) == ("ue4m3", True, False, 64)
    # bit 31: K dimension, 1 = dense K = 96
    assert td.decode_instr_descriptor(0x08102480 | 1 << 31, "mxf4nvf4").k == 96


@pytest.mark.parametrize("kind, idesc, message", [
    ("mxf8f6f4", 0x68901410 | 1 << 24, "reserved bit 24"),        # Table 43: 24-26 reserved
    ("mxf8f6f4", 0x68901410 | 1 << 31, "reserved bit 31"),
    ("mxf8f6f4", 0x68901410 | 1 << 3, "reserved bit 3"),
    ("mxf8f6f4", 0x68901410 & ~(1 << 23), "scale matrix type 0"),  # UE8M0 = 1 only
    ("mxf8f6f4", 0x68901410 | 2 << 7, "atype code 2"),             # 2 is no type
    ("mxf4", 0x489004A0 | 1 << 12, "reserved bit 12"),             # Table 44: bit 12
    ("mxf4", 0x489004A0 & ~(1 << 23), "scale matrix type 0"),      # mxf4: UE8M0 only
    ("mxf4", 0x489004A0 | 1 << 15, "no transpose"),                # Table 44 / Table 49
    ("mxf4", (0x489004A0 & ~(7 << 7)) | 5 << 7, "atype code 5"),   # E2M1 is 1 here
    ("mxf4nvf4", 0x08102480 & ~(3 << 27), "M >> 7"),
])
def test_descriptor_fields_the_tables_forbid_are_errors(kind, idesc, message):
    with pytest.raises(SimError, match=message):
        td.decode_instr_descriptor(idesc, kind)


@pytest.mark.parametrize("parts, kind, k, vec", [
    (["scale_vec::1X"], "mxf8f6f4", 32, 1), (["block32"], "mxf8f6f4", 32, 1),
    ([], "mxf8f6f4", 32, 1),                     # Table 54's only size for mxf8f6f4
    (["scale_vec::2X"], "mxf4", 64, 2), (["block32"], "mxf4", 64, 2),
    ([], "mxf4", 64, 2),                         # "defaults to .block32"
    (["scale_vec::2X"], "mxf4nvf4", 64, 2), (["scale_vec::4X"], "mxf4nvf4", 64, 4),
    (["block16"], "mxf4nvf4", 64, 4), (["block32"], "mxf4nvf4", 64, 2),
    (["block32"], "mxf4", 96, 3),                # 3X (K = 96): refused later as not modelled
])
def test_scale_vector_size_and_block_aliases(parts, kind, k, vec):
    assert bs.scale_vector_size(["mma", "cta_group::1", f"kind::{kind}", "block_scale"] + parts,
                                kind, k) == vec


@pytest.mark.parametrize("parts, kind, message", [
    ([], "mxf4nvf4", "explicit"), (["scale_vec::2X"], "mxf8f6f4", "Table 54"),
    (["scale_vec::4X"], "mxf4", "Table 54"), (["block16"], "mxf4", "Table 54"),
    (["scale_vec::1X", "block32"], "mxf8f6f4", "two scale vector sizes"),
])
def test_scale_vector_sizes_table_54_forbids(parts, kind, message):
    with pytest.raises(SimError, match=message):
        bs.scale_vector_size(parts, kind, bs.SCALED_K[kind])


def test_table_55_and_scale_factor_ids():
    ue4m3 = bs.decode_instr_descriptor(0x08102480, "mxf4nvf4")
    with pytest.raises(SimError, match="Table 55"):
        bs.check_scale_combination(ue4m3, 2)                  # UE4M3 needs 4X
    bs.check_scale_combination(ue4m3, 4)
    # 2X: IDs 0 or 2 (a half-word offset); 4X: 0 only; 1X: any byte 0-3
    two = bs.decode_instr_descriptor(0x489004A0, "mxf4")      # IDs 2 and 2
    bs.check_scale_combination(two, 2)
    with pytest.raises(SimError, match="ID 2 is not valid with 4"):
        bs.check_scale_combination(bs.decode_instr_descriptor(0x489004A0, "mxf4nvf4"), 4)
    with pytest.raises(SimError, match="ID 1 is not valid with 2"):
        bs.check_scale_combination(bs.decode_instr_descriptor(0x08900490, "mxf4"), 2)
    bs.check_scale_combination(bs.decode_instr_descriptor(0x68901410, "mxf8f6f4"), 1)


# -- (a) Unit tests: elements --------------------------------------------------------------

@pytest.mark.parametrize("element, code, value", [
    # E2M1 (S.EE.M, bias 1): 0.M * 2^0 below 2^0, then 1.M * 2^(E-1)
    ("e2m1", 0b0001, 0.5), ("e2m1", 0b0010, 1.0), ("e2m1", 0b0011, 1.5),
    ("e2m1", 0b0101, 3.0), ("e2m1", 0b0111, 6.0), ("e2m1", 0b1111, -6.0),
    ("e2m1", 0b1000, -0.0),
    # E2M3 (S.EE.MMM, bias 1): smallest 2^0 * 1/8, largest 2^2 * 15/8
    ("e2m3", 0b000001, 0.125), ("e2m3", 0b001000, 1.0), ("e2m3", 0b010101, 3.25),
    ("e2m3", 0b011111, 7.5), ("e2m3", 0b100001, -0.125),
    # E3M2 (S.EEE.MM, bias 3): smallest 2^-2 * 1/4, smallest normal 2^-2, largest 2^4 * 7/4
    ("e3m2", 0b000001, 0.0625), ("e3m2", 0b000100, 0.25), ("e3m2", 0b001100, 1.0),
    ("e3m2", 0b011111, 28.0), ("e3m2", 0b111111, -28.0),
])
def test_sub_byte_values_from_their_bit_layout(element, code, value):
    assert minifloat(code, element) == value                       # the test's own formula
    got = bs.code_values(np.array([code], np.uint8), element)[0]
    assert got == value and np.signbit(got) == np.signbit(value)
    # no code of the 4- and 6-bit types is Inf or NaN
    every = bs.code_values(np.arange(1 << BITS[element], dtype=np.uint8), element)
    assert np.isfinite(every).all()
    np.testing.assert_array_equal(every, [minifloat(c, element) for c in range(len(every))])


@pytest.mark.parametrize("scale_type, code, value", [
    ("ue8m0", 127, 1.0), ("ue8m0", 130, 8.0), ("ue8m0", 0, 2.0 ** -127),
    ("ue8m0", 254, 2.0 ** 127), ("ue8m0", 0xFF, np.nan),
    ("ue4m3", 0x38, 1.0), ("ue4m3", 0x7E, 448.0), ("ue4m3", 0x01, 2.0 ** -9),
    ("ue4m3", 0x08, 2.0 ** -6), ("ue4m3", 0x7F, np.nan),
])
def test_scale_values_from_their_bit_layout(scale_type, code, value):
    got = bs.decode_scale_bytes(np.array([code], np.uint8), scale_type)[0]
    np.testing.assert_equal(got, value)
    np.testing.assert_equal(scale_value(code, scale_type), value)


def test_ue4m3_with_the_sign_bit_set_is_an_error():
    with pytest.raises(SimError, match="bit 7"):
        bs.decode_scale_bytes(np.array([0xB8], np.uint8), "ue4m3")


def test_padded_4_bit_group_by_hand():
    # 16 E2M1 in bytes 0-7 (element 2j in the low nibble of byte j), bytes 8-15 padding
    group = np.full((1, 16), 0xEE, np.uint8)                  # padding: -4.0 if misread
    group[0, :8] = [0x21, 0x73, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF8]
    got = td.decode_elements(group, "e2m1")[0]
    assert got.shape == (16,)
    assert list(got[:4]) == [0.5, 1.0, 1.5, 6.0] and (got[4:14] == 0).all()
    assert got[14] == -0.0 and np.signbit(got[14]) and got[15] == -6.0


def test_padded_6_bit_group_by_hand():
    # E2M3: element 0 = 0b001000 (1.0), element 1 = 0b000001 (0.125), element 2 = 0b011111
    # (7.5), element 3 = 0b100001 (-0.125): bits 0-5, 6-11, 12-17, 18-23 of 24 bits =
    # 0b100001_011111_000001_001000 = 0x85F048 little-endian; bytes 12-15 padding.
    group = np.full((1, 16), 0xFF, np.uint8)
    group[0, :12] = 0
    group[0, :3] = [0x48, 0xF0, 0x85]
    got = td.decode_elements(group, "e2m3")[0]
    assert list(got[:4]) == [1.0, 0.125, 7.5, -0.125] and (got[4:] == 0).all()
    # the same bits as E3M2 (S.EEE.MM): 0.010.00 = 2^(2-3) = 0.5, 0.000.01 = 2^(1-3) / 4,
    # 0.111.11 = 2^(7-3) * 1.75 = 28
    assert list(td.decode_elements(group, "e3m2")[0, :3]) == [0.5, 0.0625, 28.0]


def test_packed_e2m1_of_mxf4_by_hand():
    got = bs.decode_operand(np.array([[0x7F, 0x12]], np.uint8), "e2m1", "mxf4", False)[0]
    assert list(got) == [-6.0, 6.0, 1.0, 0.5]


def test_sub_byte_a_in_tmem_of_f8f6f4_is_not_modelled():
    with pytest.raises(SimError, match="Figures 199-201"):
        bs.decode_operand(np.zeros((1, 4), np.uint8), "e2m1", "mxf8f6f4", True)
    b_desc = smem_descriptor(0, 128 * 16, 128)
    with pytest.raises(SimError, match="Figures 199-201"):   # .kind::f8f6f4, E2M1 A in TMEM
        tc.issue_async("tcgen05.mma.cta_group::1.kind::f8f6f4",
                       [Address(0), Address(64), b_desc,
                        1 << 4 | 5 << 7 | (8 >> 3) << 17 | (128 >> 4) << 24, False], 0, 1)


# -- (a) Unit tests: one scaled MMA on the tensor-core model -------------------------------

def smem_descriptor(start, lbo, sbo, swizzle_code=0):
    """Table 40 by hand: 14-bit fields of byte values >> 4; bits 46-48 = 0b001."""
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)
            | (swizzle_code << 61))


def place_k_major(smem, start, rows_bytes, lbo, sbo=128):
    """A [rows, bytes] operand in the no-swizzle K-major canonical layout (9.7.16.3.3)."""
    rows, nbytes = rows_bytes.shape
    for r in range(rows):
        for b in range(nbytes):
            smem[start + (r % 8) * 16 + (r // 8) * sbo + (b // 16) * lbo + b % 16] = \
                rows_bytes[r, b]


def put_scales(tmem, column, codes, byte0=0, quarters=range(4)):
    """tmem-facts section 3: entry i at lane 32q + i mod 32 of every quarter q, column
    column + i div 32, byte byte0 + j for factor j."""
    for i in range(codes.shape[0]):
        for q in quarters:
            for j in range(codes.shape[1]):
                lane, col, shift = 32 * q + i % 32, column + i // 32, 8 * (byte0 + j)
                word = int(tmem[lane, col]) & ~(0xFF << shift)
                tmem[lane, col] = word | (int(codes[i, j]) << shift)


def mxf4nvf4_setup(n=8):
    """A (128 x 64) and B (n x 64) of E2M1 packed in shared memory, no swizzle."""
    a_codes = random_codes("e2m1", (128, 64))
    b_codes = random_codes("e2m1", (n, 64))
    cta = CtaMemory(0, np.zeros(1 << 15, np.uint8))
    place_k_major(cta.smem, 0, pack_two_per_byte(a_codes), lbo=128 * 16)
    place_k_major(cta.smem, 16384, pack_two_per_byte(b_codes), lbo=n * 16)
    return cta, a_codes, b_codes, smem_descriptor(0, 128 * 16, 128), \
        smem_descriptor(16384, n * 16, 128)


def test_mxf4nvf4_4x_ue4m3_mma_by_hand():
    n = 8
    cta, a_codes, b_codes, a_desc, b_desc = mxf4nvf4_setup(n)
    sa = RNG.integers(0x20, 0x48, (128, 4)).astype(np.uint8)      # UE4M3 2^-3 .. 2^2
    sb = RNG.integers(0x20, 0x48, (n, 4)).astype(np.uint8)
    put_scales(cta.tmem, 100, sa)
    put_scales(cta.tmem, 104, sb)
    # Table 44: atype/btype E2M1 = 1, N >> 3 at 17, bit 23 = 0 (UE4M3), M >> 7 at 27, IDs 0
    idesc = 1 << 7 | 1 << 10 | (n >> 3) << 17 | 1 << 27
    op = tc.issue_async("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
                        [Address(8), a_desc, b_desc, idesc, Address(100), Address(104), False],
                        0, 1)
    op.perform([cta])
    a = values(a_codes, "e2m1") * np.repeat(scale_values(sa, "ue4m3"), 16, axis=1)
    b = values(b_codes, "e2m1") * np.repeat(scale_values(sb, "ue4m3"), 16, axis=1)
    want = a @ b.T                                     # Layout D: row r on lane r
    got = cta.tmem[:, 8:8 + n].view(np.float32)
    assert np.all(np.abs(got - want) <= 2.0 ** -24 * (np.abs(a) @ np.abs(b).T))
    reads = op.footprint.tmem_reads[0]
    b_lanes = np.zeros(128, bool)                      # B: 8 entries, lanes 32q + 0..7
    for q in range(4):
        b_lanes[32 * q:32 * q + 8] = True
    assert reads[:, 100:104].all() and (reads[:, 104] == b_lanes).all()
    assert not reads[:, 105:].any() and not reads[:, :100].any()
    assert op.footprint.tmem_writes[0][:, 8:8 + n].all()


def test_scale_copies_that_differ_between_lane_quarters_are_an_error():
    cta, _, _, a_desc, b_desc = mxf4nvf4_setup()
    ones = np.full((128, 4), 127, np.uint8)
    put_scales(cta.tmem, 100, ones)
    put_scales(cta.tmem, 104, ones[:8])
    put_scales(cta.tmem, 100, np.full((1, 1), 128, np.uint8), byte0=2, quarters=[3])
    idesc = 1 << 7 | 1 << 10 | 1 << 17 | 1 << 23 | 1 << 27 | 2 << 29      # SFA ID 2
    op = tc.issue_async("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X",
                        [Address(8), a_desc, b_desc, idesc, Address(100), Address(104), False],
                        0, 1)
    with pytest.raises(SimError, match="scale_A entry 0 differs"):
        op.perform([cta])
    # with SFA ID 0 the MMA reads bytes 0-1, which agree: the odd byte 2 is not read
    op = tc.issue_async("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X",
                        [Address(8), a_desc, b_desc, idesc & ~(3 << 29), Address(100),
                         Address(104), False], 0, 1)
    op.perform([cta])


@pytest.mark.parametrize("opcode, operands_change, message", [
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
     {4: Address(1 << 16 | 100)}, "lane 1"),
    ("tcgen05.mma.cta_group::1.kind::f16.block_scale.scale_vec::1X", {}, "not valid with"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale", {}, "explicit"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X", {}, "Table 55"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
     {3: 1 << 7 | 1 << 10 | 1 << 17 | 1 << 27 | 1 << 31}, "K = 96"),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
     {3: 1 << 7 | 1 << 10 | 1 << 17 | 1 << 27 | 1 << 2}, "sparse"),
])
def test_scaled_forms_outside_the_model_or_the_isa_are_errors(opcode, operands_change,
                                                               message):
    _, _, _, a_desc, b_desc = mxf4nvf4_setup()
    operands = [Address(8), a_desc, b_desc, 1 << 7 | 1 << 10 | 1 << 17 | 1 << 27,
                Address(100), Address(104), False]
    for i, value in operands_change.items():
        operands[i] = value
    with pytest.raises(SimError, match=message):
        tc.issue_async(opcode, operands, 0, 1)


def test_mxf8f6f4_pair_m256_each_cta_scales_its_own_rows():
    """cta_group::2, Layout A: each CTA holds 128 rows of A and N/2 rows of B, the A scales
    of its own rows and the B scales of all N (tmem-facts section 3)."""
    n = 16
    ctas = [CtaMemory(r, np.zeros(1 << 14, np.uint8)) for r in range(2)]
    a_codes = random_codes("e3m2", (256, 32))
    b_codes = random_codes("e2m1", (n, 32))
    sa = RNG.integers(124, 131, (256, 1)).astype(np.uint8)
    sb = RNG.integers(124, 131, (n, 1)).astype(np.uint8)
    for r, cta in enumerate(ctas):
        place_k_major(cta.smem, 0, pack_padded(a_codes[128 * r:128 * r + 128], 6), lbo=2048)
        place_k_major(cta.smem, 8192, pack_padded(b_codes[8 * r:8 * r + 8], 4), lbo=128)
        put_scales(cta.tmem, 200, sa[128 * r:128 * r + 128], byte0=1)
        put_scales(cta.tmem, 210, sb, byte0=3)
    # Table 43: atype E3M2 4, btype E2M1 5, N 16 >> 3, UE8M0, M 256 >> 7 = 2, A ID 1, B ID 3
    idesc = 3 << 4 | 4 << 7 | 5 << 10 | (n >> 3) << 17 | 1 << 23 | 2 << 27 | 1 << 29
    op = tc.issue_async("tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32",
                        [Address(0), smem_descriptor(0, 2048, 128),
                         smem_descriptor(8192, 128, 128), idesc, Address(200), Address(210),
                         False], 0, 2)
    op.perform(ctas)
    a = values(a_codes, "e3m2") * scale_values(sa, "ue8m0")
    b = values(b_codes, "e2m1") * scale_values(sb, "ue8m0")
    want = a @ b.T
    for r, cta in enumerate(ctas):
        got = cta.tmem[:, :n].view(np.float32)
        part = slice(128 * r, 128 * r + 128)
        assert np.all(np.abs(got - want[part]) <= 2.0 ** -24 * (np.abs(a[part]) @ np.abs(b).T))
    assert set(op.footprint.tmem_reads) == {0, 1}


def test_mxf4_pair_m128_layout_b_splits_the_b_scales():
    """cta_group::2, M = 128 (Layout B): each CTA holds 64 rows of A and of D (D row r,
    column c at lane r + 64 (c div N/2), column c mod N/2), its A scales duplicated in all
    quarters, and the B scales of n < N/2 in quarters 0 and 1, the others in quarters 2
    and 3 at n - N/2 (tmem-facts section 3, confidence M)."""
    n = 16
    ctas = [CtaMemory(r, np.zeros(1 << 14, np.uint8)) for r in range(2)]
    a_codes = random_codes("e2m1", (128, 64))
    b_codes = random_codes("e2m1", (n, 64))
    sa = RNG.integers(124, 131, (128, 2)).astype(np.uint8)
    sb = RNG.integers(124, 131, (n, 2)).astype(np.uint8)
    for r, cta in enumerate(ctas):
        place_k_major(cta.smem, 0, pack_two_per_byte(a_codes[64 * r:64 * r + 64]), lbo=1024)
        place_k_major(cta.smem, 8192, pack_two_per_byte(b_codes[8 * r:8 * r + 8]), lbo=128)
        put_scales(cta.tmem, 300, sa[64 * r:64 * r + 64], byte0=2)
        put_scales(cta.tmem, 310, sb[:8], quarters=(0, 1))
        put_scales(cta.tmem, 310, sb[8:], quarters=(2, 3))
    # Table 44: E2M1 = 1, N 16 >> 3, UE8M0, M 128 >> 7 = 1, scale A ID 2, scale B ID 0
    idesc = 1 << 7 | 1 << 10 | (n >> 3) << 17 | 1 << 23 | 1 << 27 | 2 << 29
    op = tc.issue_async("tcgen05.mma.cta_group::2.kind::mxf4.block_scale",    # .block32
                        [Address(0), smem_descriptor(0, 1024, 128),
                         smem_descriptor(8192, 128, 128), idesc, Address(300), Address(310),
                         False], 0, 2)
    op.perform(ctas)
    a = values(a_codes, "e2m1") * np.repeat(scale_values(sa, "ue8m0"), 32, axis=1)
    b = values(b_codes, "e2m1") * np.repeat(scale_values(sb, "ue8m0"), 32, axis=1)
    want, bound = a @ b.T, 2.0 ** -24 * (np.abs(a) @ np.abs(b).T)
    rows, cols = np.meshgrid(np.arange(64), np.arange(n), indexing="ij")
    for r, cta in enumerate(ctas):
        got = cta.tmem[rows + 64 * (cols // 8), cols % 8].view(np.float32)
        part = slice(64 * r, 64 * r + 64)
        assert np.all(np.abs(got - want[part]) <= bound[part])


# -- (b) End to end --------------------------------------------------------------------------

MLIR_TYPES = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2", "e2m3": "f6E2M3FN", "e3m2": "f6E3M2FN",
              "e2m1": "f4E2M1FN", "ue8m0": "f8E8M0FNU", "ue4m3": "f8E4M3", "f32": "f32",
              "f16": "f16"}
K_MMA = {"f8f6f4": 32, "mxf8f6f4": 32, "mxf4": 64, "mxf4nvf4": 64}      # Table 39
PACKED = ("mxf4", "mxf4nvf4")


def gemm_kernel(name, kind, a_t, b_t, *, d_t="f32", n=128, row_bytes=64, swizzle="64B",
                scale_vec=None, sf_t=None, sf_per_mma=False, fill=True, a_in_tmem=False):
    """C (128 x n) = sum over K of A (128 x K) x B (n x K)^T, one CTA, K-major tiles of
    ``row_bytes`` bytes per row filled from global memory with smem_fill (unless
    ``fill`` is false), one MMA per K block of Table 39's K. Block-scaled kernels copy each
    scale buffer [128, 4] (4 columns: 128 entries x 4 factors, tmem-facts section 3) from a
    [128, 16]-byte global array with tcgen05.cp.128x128b (the compiler refuses tcgen05.st
    into a scale buffer: "tcgen05.st of a buffer the MMA uses as its scale_b operand is not
    supported yet"); ``sf_per_mma`` gives every MMA its own buffers (4X uses all four bytes
    of a cell per MMA). With ``a_in_tmem`` A is a tensor-memory buffer that
    tcgen05.cp.128x256b fills from an i8 tile of its 32 bytes per row (one MMA). A
    block-scaled kind with ``scale_vec`` None leaves the attribute out (the ISA's default
    size, 9.7.16.10.9.1)."""
    k_elems = row_bytes * 2 if kind in PACKED else row_bytes
    k_mma = K_MMA[kind]
    n_mma = k_elems // k_mma
    ta = f'!tcgen05.smem<[128, {k_elems}], {MLIR_TYPES[a_t]}, "K", "{swizzle}">'
    staging_a = '!tcgen05.smem<[128, 32], i8, "K", "none">'
    if a_in_tmem:
        assert row_bytes == 32
        ta = f'!tcgen05.tmem<[128, {k_elems}], {MLIR_TYPES[a_t]}>'
    tb = f'!tcgen05.smem<[{n}, {k_elems}], {MLIR_TYPES[b_t]}, "K", "{swizzle}">'
    acc = f'!tcgen05.tmem<[128, {n}], {MLIR_TYPES[d_t]}>'
    frag = f'!tcgen05.frag<[128, 32], {MLIR_TYPES[d_t]}>'
    scaled = kind.startswith("mx")    # block-scaled kinds; scale_vec None: the default size
    n_sf = (n_mma if sf_per_mma else 1) if scaled else 0
    params = ["%A: !llvm.ptr<1>", "%B: !llvm.ptr<1>"]
    params += [f"%SFA{i}: !llvm.ptr<1>" for i in range(n_sf)]
    params += [f"%SFB{i}: !llvm.ptr<1>" for i in range(n_sf)]
    params += ["%C: !llvm.ptr<1>"]
    lines = [
        f'func.func @{name}({", ".join(params)})',
        '    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, '
        'cta_group = 1 : i64}} {',
        '  %c0 = arith.constant 0 : index',
        '  %c32 = arith.constant 32 : index',
        f'  %cn = arith.constant {n} : index',
        '  %f = arith.constant false',
        '  %t = arith.constant true',
        f'  %a = "tcgen05.{"tmem" if a_in_tmem else "smem"}_buffer"() : () -> {ta}',
        f'  %b = "tcgen05.smem_buffer"() : () -> {tb}',
        f'  %acc = "tcgen05.tmem_buffer"() {{name = "acc"}} : () -> {acc}']
    if a_in_tmem:
        lines.append(f'  %as = "tcgen05.smem_buffer"() : () -> {staging_a}')
        lines.append(f'  "tcgen05.smem_fill"(%A, %as, %c0) {{src_layout = "mn_k", src_ld = 32 : '
                     f'i64}} : (!llvm.ptr<1>, {staging_a}, index) -> ()')
        lines.append(f'  "tcgen05.cp"(%a, %as) {{shape = "128x256b"}} : ({ta}, {staging_a}) '
                     '-> ()')
    if fill:
        for value, tile, param in ((("%a", ta, "%A"),) if not a_in_tmem else ()) + \
                (("%b", tb, "%B"),):
            lines.append(f'  "tcgen05.smem_fill"({param}, {value}, %c0) {{src_layout = "mn_k", '
                         f'src_ld = {k_elems} : i64}} : (!llvm.ptr<1>, {tile}, index) -> ()')
    ssf = '!tcgen05.smem<[128, 16], i8, "K", "none">'
    sf = f'!tcgen05.tmem<[128, 4], {MLIR_TYPES[sf_t]}>' if scaled else None
    for operand in ("A", "B") if scaled else ():
        for i in range(n_sf):
            lines.append(f'  %sf{operand}{i} = "tcgen05.tmem_buffer"() '
                         f'{{name = "sf{operand.lower()}{i}"}} : () -> {sf}')
            lines.append(f'  %s{operand}{i} = "tcgen05.smem_buffer"() : () -> {ssf}')
            lines.append(f'  "tcgen05.smem_fill"(%SF{operand}{i}, %s{operand}{i}, %c0) '
                         f'{{src_layout = "mn_k", src_ld = 16 : i64}} : (!llvm.ptr<1>, {ssf}, '
                         'index) -> ()')
            lines.append(f'  "tcgen05.cp"(%sf{operand}{i}, %s{operand}{i}) '
                         f'{{shape = "128x128b"}} : ({sf}, {ssf}) -> ()')
    for j in range(n_mma):
        pred = "%f" if j == 0 else "%t"
        attrs = f'kind = "{kind}", k_offset = {j * k_mma} : i64'
        operands, types = f"%acc, %a, %b, {pred}", f"{acc}, {ta}, {tb}, i1"
        if scaled:
            i = j if sf_per_mma else 0
            operands += f", %sfA{i}, %sfB{i}"
            types += f", {sf}, {sf}"
            if scale_vec is not None:     # None: the ISA's default size (.block32)
                attrs += f', scale_vec = "{scale_vec}"'
            if sf_per_mma:
                attrs += ", scale_a_id = 0 : i64, scale_b_id = 0 : i64"
        lines.append(f'  "tcgen05.mma"({operands}) {{{attrs}}} : ({types}) -> ()')
    lines += [
        '  scf.for %col = %c0 to %cn step %c32 {',
        f'    %x = "tcgen05.ld"(%acc, %col) : ({acc}, index) -> {frag}',
        f'    "tcgen05.store_fragment"(%x, %C, %col) {{ld = {n} : i64}} : ({frag}, '
        '!llvm.ptr<1>, index) -> ()',
        '  }',
        '  return',
        '}']
    return "\n".join(lines) + "\n"


_MMA = re.compile(r"(tcgen05\.mma\S*)\s+\[%r\d+\],\s*(?:%rd\d+|\[%r\d+\]),\s*%rd\d+,\s*(%r\d+)")


def _mma_idescs(ptx: str):
    """(opcode, idesc register, idesc value) of every tcgen05.mma, in order; the register
    must be set once, by a mov of an immediate."""
    found = []
    for match in _MMA.finditer(ptx):
        register = match.group(2)
        movs = re.findall(rf"mov\.b32\s+{re.escape(register)},\s*(-?\d+);", ptx)
        assert len(movs) == 1, (register, movs)
        found.append((match.group(1), register, int(movs[0]) & 0xFFFFFFFF))
    return found


def retyped(staging_ptx: str, real_ptx: str) -> str:
    """The staging kernel's PTX with each tcgen05.mma's opcode and instruction descriptor
    replaced by those the compiler emitted for the real kernel (see the module docstring).
    Each descriptor register of the staging kernel must feed MMAs only."""
    staging, real = _mma_idescs(staging_ptx), _mma_idescs(real_ptx)
    assert len(staging) == len(real) > 0
    values_of = {}
    for (_, register, _), (_, _, value) in zip(staging, real):
        assert values_of.setdefault(register, value) == value, register
    for register in values_of:
        uses = len(re.findall(rf"{re.escape(register)}\b", staging_ptx))
        assert uses == 1 + sum(r == register for _, r, _ in staging), register
    out = staging_ptx
    for register, value in values_of.items():
        out = re.sub(rf"(mov\.b32\s+{re.escape(register)},\s*)-?\d+;", rf"\g<1>{value};", out)
    lines = out.split("\n")
    mma_lines = [i for i, line in enumerate(lines) if _MMA.search(line)]
    for i, (opcode, _, _) in zip(mma_lines, real):
        lines[i] = re.sub(r"tcgen05\.mma\S*", opcode, lines[i], count=1)
    return "\n".join(lines)


def sf_global(factors: np.ndarray, first: int, rng=RNG) -> np.ndarray:
    """The [128, 16] bytes a tcgen05.cp.128x128b copies lane by lane into the 4 columns of a
    scale buffer: lane L, column c, byte b holds factor ``first + b`` of entry 32c + L mod 32
    (tmem-facts section 3; the entries are duplicated in every lane quarter). Bytes of
    factors the buffer does not hold are random."""
    out = rng.integers(0, 256, (128, 16), dtype=np.uint8)
    entries, count = factors.shape
    for lane in range(128):
        for c in range(4):
            entry = 32 * c + lane % 32
            for b in range(4):
                if entry < entries and first + b < count:
                    out[lane, 4 * c + b] = factors[entry, first + b]
    return out


def run(ptx, manifest, args, schedule="late"):
    result = simulate(ptx, manifest, args, schedule=schedule)
    assert not result.races, result.races
    assert not result.problems, result.problems
    return result.outputs["C"]


def check(got, a_eff, b_eff, mmas, d_t="f32"):
    """Element-wise: |C - A_eff @ B_eff^T| <= MMAs * u * (|A_eff| @ |B_eff|^T), u = 2^-24
    (f32 D) or 2^-11 (f16 D): one rounding of D per MMA after an exact sum."""
    want = a_eff @ b_eff.T
    unit = 2.0 ** -24 if d_t == "f32" else 2.0 ** -11
    bound = mmas * unit * (np.abs(a_eff) @ np.abs(b_eff).T)
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= bound), f"max error {err.max()} (bound there {bound.flat[err.argmax()]})"
    assert np.abs(want).max() > 0


def operand_bytes(codes, element, kind):
    if kind in PACKED:
        return pack_two_per_byte(codes)
    if BITS[element] == 8:
        return codes.copy()
    return pack_padded(codes, BITS[element])


def compile_route(route, name, **kernel):
    """The PTX and manifest of a kernel with 4- or 6-bit operands: ``direct`` compiles it as
    written; ``retyped`` compiles it with f8E4M3FN tiles (same bytes) and takes the MMAs'
    opcodes and descriptors from the real kernel compiled without fills."""
    if route == "direct":
        result = compile_source(gemm_kernel(name, **kernel), name)
        return result.ptx, result.manifest
    staging = dict(kernel)
    if kernel["kind"] in PACKED:     # K = 64 packed E2M1 are the bytes of K = 32 8-bit ones
        staging.update(kind="mxf8f6f4", scale_vec=None if kernel.get("scale_vec") is None
                       else "1X", sf_t="ue8m0")
    staging.update(a_t="e4m3", b_t="e4m3")
    staged = compile_source(gemm_kernel(name, **staging), name)
    real = compile_source(gemm_kernel(name, **dict(kernel, fill=False)), name)
    return retyped(staged.ptx, real.ptx), staged.manifest


ROUTES = ["retyped", pytest.param("direct", marks=pytest.mark.xfail(
    raises=CompileFailed, strict=True,
    reason="tcgen05-verify: 'filling a tile of e2m3 is not supported yet (8-, 16- and "
           "32-bit elements only)'"))]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("a_t, b_t, d_t", [("e2m3", "e2m1", "f32"), ("e3m2", "e4m3", "f16"),
                                           ("e2m1", "e3m2", "f32")])
def test_f8f6f4_with_fp6_and_fp4_inputs(a_t, b_t, d_t, route):
    """.kind::f8f6f4, M = 128, N = 64, K = 64 (two MMAs), 64-byte swizzle; tolerance per
    the module docstring (f32 D: 2 * 2^-24, f16 D: 2 * 2^-11 relative to |A| @ |B|)."""
    n, k = 64, 64
    a_codes, b_codes = random_codes(a_t, (128, k)), random_codes(b_t, (n, k))
    ptx, manifest = compile_route(route, "f8f6f4_fp6_fp4", kind="f8f6f4", a_t=a_t, b_t=b_t,
                                  d_t=d_t, n=n, row_bytes=k)
    c = np.zeros((128, n), np.float32 if d_t == "f32" else np.float16)
    got = run(ptx, manifest, {"A": operand_bytes(a_codes, a_t, "f8f6f4"),
                              "B": operand_bytes(b_codes, b_t, "f8f6f4"), "C": c})
    check(got, values(a_codes, a_t), values(b_codes, b_t), 2, d_t)


def scaled_case(kind, a_t, b_t, scale_type, vec, k, n, rng=RNG):
    """Random codes of A (128 x k), B (n x k) and their scale factors (one per K / vec ...
    chunk of an MMA's K: k / (K / vec) factors per row), and A, B times their scales."""
    block = K_MMA[kind] // vec
    a_codes, b_codes = random_codes(a_t, (128, k)), random_codes(b_t, (n, k))
    low, high = (118, 136) if scale_type == "ue8m0" else (0x20, 0x50)   # 2^-9..2^8, 2^-3..2^3
    sa = rng.integers(low, high, (128, k // block)).astype(np.uint8)
    sb = rng.integers(low, high, (n, k // block)).astype(np.uint8)
    a_eff = values(a_codes, a_t) * np.repeat(scale_values(sa, scale_type), block, axis=1)
    b_eff = values(b_codes, b_t) * np.repeat(scale_values(sb, scale_type), block, axis=1)
    return a_codes, b_codes, sa, sb, a_eff, b_eff


@pytest.mark.parametrize("a_t, b_t, route, scale_vec", [
    ("e4m3", "e5m2", "direct", "1X"),             # 8-bit operands: compiles as written
    ("e4m3", "e5m2", "direct", None),             # no scale_vec: .block_scale alone
    ("e2m3", "e2m1", "retyped", "1X"),
    pytest.param("e2m3", "e2m1", "direct", "1X", marks=ROUTES[1].marks)])
def test_mxf8f6f4_scale_vec_1x(a_t, b_t, route, scale_vec):
    """.kind::mxf8f6f4.block_scale.scale_vec::1X, M = N = 128, K = 128 (four MMAs of
    K = 32, 128-byte swizzle), UE8M0 factors 2^-9 .. 2^8, one per row and K block, the
    compiler's scale-factor IDs 0-3 selecting byte j of the cells for K block j.
    Tolerance: 4 * 2^-24 relative to |A * scale_A| @ |B * scale_B|."""
    n, k = 128, 128
    a_codes, b_codes, sa, sb, a_eff, b_eff = scaled_case("mxf8f6f4", a_t, b_t, "ue8m0", 1,
                                                         k, n)
    ptx, manifest = compile_route(route, "mxf8f6f4_1x", kind="mxf8f6f4", a_t=a_t, b_t=b_t,
                                  n=n, row_bytes=k, swizzle="128B", scale_vec=scale_vec,
                                  sf_t="ue8m0")
    if scale_vec is None:   # 9.7.16.10.9.1's default size, spelled out on sm_100a as
        # its alias .scale_vec::1X (PTX ISA 8.6; tests/test_block_scale_default_version.py)
        assert "kind::mxf8f6f4.block_scale.scale_vec::1X [" in ptx
    args = {"A": operand_bytes(a_codes, a_t, "mxf8f6f4"),
            "B": operand_bytes(b_codes, b_t, "mxf8f6f4"), "SFA0": sf_global(sa, 0),
            "SFB0": sf_global(sb, 0), "C": np.zeros((128, n), np.float32)}
    check(run(ptx, manifest, args), a_eff, b_eff, 4)


@pytest.mark.parametrize("scale_vec, route, schedule", [
    ("2X", "retyped", "late"), ("2X", "retyped", "eager"), ("block32", "retyped", "late"),
    (None, "retyped", "late"),    # no scale_vec: "defaults to .block32" (9.7.16.10.9.1)
    pytest.param("2X", "direct", "late", marks=ROUTES[1].marks)])
def test_mxf4_scale_vec_2x(scale_vec, route, schedule):
    """.kind::mxf4 with .scale_vec::2X (and its alias .block32), M = N = 128, K = 128 (two
    MMAs of K = 64, E2M1 packed two per byte, 64-byte swizzle), two UE8M0 factors per row
    per MMA: the compiler's scale-factor IDs 0 and 2 pick half-words 0 and 1 of the cells.
    Tolerance: 2 * 2^-24 relative to |A * scale_A| @ |B * scale_B|."""
    n, k = 128, 128
    a_codes, b_codes, sa, sb, a_eff, b_eff = scaled_case("mxf4", "e2m1", "e2m1", "ue8m0", 2,
                                                         k, n)
    ptx, manifest = compile_route(route, "mxf4_2x", kind="mxf4", a_t="e2m1", b_t="e2m1", n=n,
                                  row_bytes=k // 2, scale_vec=scale_vec, sf_t="ue8m0")
    args = {"A": pack_two_per_byte(a_codes), "B": pack_two_per_byte(b_codes),
            "SFA0": sf_global(sa, 0), "SFB0": sf_global(sb, 0),
            "C": np.zeros((128, n), np.float32)}
    check(run(ptx, manifest, args, schedule), a_eff, b_eff, 2)


@pytest.mark.parametrize("scale_type, scale_vec, route", [
    ("ue4m3", "4X", "retyped"), ("ue8m0", "block16", "retyped"),
    pytest.param("ue4m3", "4X", "direct", marks=ROUTES[1].marks)])
def test_mxf4nvf4_scale_vec_4x(scale_type, scale_vec, route):
    """.kind::mxf4nvf4 with .scale_vec::4X (UE4M3 factors 2^-3 .. 2^3) and .block16 (its
    alias, UE8M0), M = N = 128, K = 128 (two MMAs of K = 64), four factors per row per MMA
    (blocks of 16 elements), so each MMA has its own scale buffers (scale-factor ID 0).
    Tolerance: 2 * 2^-24 relative to |A * scale_A| @ |B * scale_B|."""
    n, k = 128, 128
    a_codes, b_codes, sa, sb, a_eff, b_eff = scaled_case("mxf4nvf4", "e2m1", "e2m1",
                                                         scale_type, 4, k, n)
    ptx, manifest = compile_route(route, "mxf4nvf4_4x", kind="mxf4nvf4", a_t="e2m1",
                                  b_t="e2m1", n=n, row_bytes=k // 2, scale_vec=scale_vec,
                                  sf_t=scale_type, sf_per_mma=True)
    args = {"A": pack_two_per_byte(a_codes), "B": pack_two_per_byte(b_codes),
            "SFA0": sf_global(sa, 0), "SFA1": sf_global(sa, 4),
            "SFB0": sf_global(sb, 0), "SFB1": sf_global(sb, 4),
            "C": np.zeros((128, n), np.float32)}
    check(run(ptx, manifest, args), a_eff, b_eff, 2)


def test_retyped_changes_only_the_mma_opcodes_and_descriptors():
    """The patch the retyped route applies, shown on mxf4: the staging kernel's PTX and the
    result differ only in the tcgen05.mma opcodes and the movs of their descriptors, and the
    descriptors are those of Table 44 (E2M1 = 1, UE8M0, IDs 0 then 2)."""
    kernel = dict(kind="mxf4", a_t="e2m1", b_t="e2m1", n=128, row_bytes=64, scale_vec="2X",
                  sf_t="ue8m0")
    ptx, _ = compile_route("retyped", "mxf4_patch", **kernel)
    staging = compile_source(gemm_kernel("mxf4_patch", **dict(
        kernel, kind="mxf8f6f4", a_t="e4m3", b_t="e4m3", scale_vec="1X")), "mxf4_patch").ptx
    changed = [(x, y) for x, y in zip(staging.split("\n"), ptx.split("\n")) if x != y]
    assert len(ptx.split("\n")) == len(staging.split("\n"))
    assert all("tcgen05.mma" in x or re.search(r"mov\.b32\s+%r\d+, \d+;", x)
               for x, _ in changed), changed
    descriptors = [value for _, _, value in _mma_idescs(ptx)]
    base = 1 << 7 | 1 << 10 | (128 >> 3) << 17 | 1 << 23 | 1 << 27
    assert descriptors == [base, base | 2 << 4 | 2 << 29]
    assert all(op == "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X"
               for op, _, _ in _mma_idescs(ptx))


@pytest.mark.parametrize("kind, a_t, b_t, scale_vec, scale_type, route", [
    ("mxf8f6f4", "e5m2", "e4m3", "1X", "ue8m0", "direct"),
    ("mxf4", "e2m1", "e2m1", "2X", "ue8m0", "retyped"),
    ("mxf4nvf4", "e2m1", "e2m1", "4X", "ue4m3", "retyped")])
def test_a_in_tensor_memory(kind, a_t, b_t, scale_vec, scale_type, route):
    """[a-tmem]: A copied into tensor memory by tcgen05.cp.128x256b, row m on lane m with
    its 32 bytes little-endian along 8 columns (9.7.16.10.4.5 for packed E2M1; tmem-facts
    section 1: A placed like D), one MMA (M = 128, N = 64, 32-byte swizzled B).
    Tolerance: 2^-24 relative to |A * scale_A| @ |B * scale_B|."""
    n, k = 64, 2 * 32 if kind in PACKED else 32
    vec = {"1X": 1, "2X": 2, "4X": 4}[scale_vec]
    a_codes, b_codes, sa, sb, a_eff, b_eff = scaled_case(kind, a_t, b_t, scale_type, vec, k, n)
    ptx, manifest = compile_route(route, f"{kind}_a_tmem", kind=kind, a_t=a_t, b_t=b_t, n=n,
                                  row_bytes=32, swizzle="32B", scale_vec=scale_vec,
                                  sf_t=scale_type, a_in_tmem=True)
    assert re.search(r"tcgen05\.mma\S* \[%r\d+\], \[%r\d+\]", ptx)
    args = {"A": operand_bytes(a_codes, a_t, kind), "B": operand_bytes(b_codes, b_t, kind),
            "SFA0": sf_global(sa, 0), "SFB0": sf_global(sb, 0),
            "C": np.zeros((128, n), np.float32)}
    check(run(ptx, manifest, args), a_eff, b_eff, 1)
