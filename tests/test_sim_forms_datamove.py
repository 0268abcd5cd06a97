"""The simulator's data-movement forms (tcgen05_lower/sim/datamove.py and its hooks in
tensor_core.py): collector buffers, the .ws zero-column mask, tcgen05.shift, tcgen05.cp
.4x256b and decompression, tcgen05.ld.red.

(a) Unit tests on single operations, against expectations derived by hand from the PTX ISA
text (section and table numbers beside each), and where the text shows a fact only in a
figure, from the fact datamove.py names (its confidence is stated there).
(b) End-to-end tests: small kernels in the project's dialect, compiled by the pipeline and
run by the simulator under both schedules, compared with NumPy references written here
from the ISA text; each asserts the numbers, no race and no problem (TMEM leak, op never
waited for).

Tolerance of the MMA results: bf16 products are exact in float64 and the simulator rounds D
once to f32 per MMA, so |C - A @ B| <= K * 2^-24 * (|A| @ |B|), as tests/test_sim_examples.py
uses. Data movement and integer reductions are compared bit for bit."""

import re

import ml_dtypes
import numpy as np
import pytest

from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE
from tcgen05_lower.sim import datamove
from tcgen05_lower.sim import tensor_core as tc
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.ordering import OrderingModel
from tcgen05_lower.sim.state import Address, CtaMemory, SimError

RNG = np.random.default_rng(11)
SCHEDULES = ("late", "eager")


# -- helpers (Tables 40, 42, 45 by hand) -------------------------------------------------------

def smem_descriptor(start, lbo, sbo, swizzle_code=0):
    """Table 40: 14-bit fields of byte values >> 4; bits 46-48 = 0b001."""
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)
            | (swizzle_code << 61))


def place_k_major(smem, start, matrix_bytes, lbo, sbo):
    """A [rows, bytes] operand in the no-swizzle K-major canonical layout (9.7.16.3.3):
    ((8,m),(T,2k)):((1T,SBO),(1,LBO)) in bytes: row r at (r mod 8) * 16 + (r div 8) * SBO,
    16-byte unit u of K at u * LBO."""
    rows, nbytes = matrix_bytes.shape
    for r in range(rows):
        for b in range(nbytes):
            smem[start + (r % 8) * 16 + (r // 8) * sbo + (b // 16) * lbo + b % 16] = \
                matrix_bytes[r, b]


def idesc_bf16_f32(m, n):
    """Table 42, .kind::f16: dtype F32 = 1 (bits 4-5), atype = btype = BF16 = 1 (bits 7-9,
    10-12), N >> 3 at bits 17-22, M >> 4 at bits 24-28."""
    return 1 << 4 | 1 << 7 | 1 << 10 | (n >> 3) << 17 | (m >> 4) << 24


def zero_mask_desc(sc=(0, 0, 0, 0), fs=(0, 0, 0, 0), nonzero=1, skip=0, use=0, shift=0):
    """Table 45: sc_i at bits 8i..8i+7, fs_i at bit 32+i, Non-Zero Mask at 39, Skip Span
    at 40-47, Use Span at 48-55, Column Shift at 56-61."""
    value = sum(s << (8 * i) for i, s in enumerate(sc)) + sum(f << (32 + i)
                                                                for i, f in enumerate(fs))
    return value | nonzero << 39 | skip << 40 | use << 48 | shift << 56


def bf16(shape):
    return RNG.uniform(-1, 1, shape).astype(ml_dtypes.bfloat16)


def assert_gemm_close(got, a, b, k):
    """|got - a @ b| <= K * 2^-24 * (|a| @ |b|), a [M, K'], b [K', N] in float64."""
    want = a @ b
    bound = k * 2.0 ** -24 * (np.abs(a) @ np.abs(b)) + 1e-30
    err = np.abs(got.astype(np.float64) - want)
    assert (err <= bound).all(), f"max error {err.max()} (bound {bound[err > bound].min()})"


# == (a) unit tests ==============================================================================

# -- Table 45: the zero-column mask -------------------------------------------------------------

def test_zero_column_mask_example_1_non_zero_mask_clear_is_all_zeros():
    # Example 1, M = 128: skip span 4, use span 3, non-zero mask 0 -> "the mask is 0x0"
    mask = datamove.zero_column_mask(zero_mask_desc(nonzero=0, skip=4, use=3), 128, 64)
    assert not mask.zero.any() and mask.shift == 0


def test_zero_column_mask_example_2_m128():
    # Example 2: sc0 = 0, fs0 = 0, skip 2, use 3: "0b ... 111 0000 111 0000", read from
    # bit 0 upwards: four 0s (B used), three 1s (zeros), ...
    mask = datamove.zero_column_mask(zero_mask_desc(skip=2, use=3), 128, 64)
    assert mask.zero[:14].astype(int).tolist() == [0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1]


def test_zero_column_mask_example_3_m64_two_sub_masks():
    # Example 3: {sc1, sc0} = {0, 0}, {fs1, fs0} = {0, 1}, skip 2, use 3.
    # mask0 "0b ... 111 0000 111 0000 111", mask1 "0b ... 0000 111 0000 111 0000".
    n = 64
    mask = datamove.zero_column_mask(zero_mask_desc(fs=(1, 0, 0, 0), skip=2, use=3), 64, n)
    mask0 = [1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1]
    mask1 = [0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0]
    assert mask.zero[:len(mask0)].astype(int).tolist() == mask0
    assert mask.zero[n // 2:n // 2 + len(mask1)].astype(int).tolist() == mask1  # [N/2, N)


#: Example 4 of Table 45 (M = 32), each sub-mask from bit 0 upwards:
#: mask0 "0000 111 0000 111", mask1 "0000 111 0000 11", mask2 "111 0000 111 00",
#: mask3 "111 0000 111 000".
EXAMPLE_4 = dict(sc=(0, 1, 2, 1), fs=(1, 1, 0, 0), skip=2, use=3, shift=2)
EXAMPLE_4_MASKS = ([1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0],
                   [1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0],
                   [0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1],
                   [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1])


def sub_mask(sc, fs, skip, use, size):
    """One sub-mask by the reading of Table 45 that its examples give: runs alternate from
    value fs, runs of 1s skip + 1 long, runs of 0s use + 1 long, the first sc bits
    dropped."""
    bits, value = [], fs
    while len(bits) < size + sc:
        bits += [value] * ((skip if value else use) + 1)
        value ^= 1
    return bits[sc:sc + size]


def test_sub_mask_rule_reproduces_example_4():
    for i, want in enumerate(EXAMPLE_4_MASKS):
        assert sub_mask(EXAMPLE_4["sc"][i], EXAMPLE_4["fs"][i], 2, 3, len(want)) == want


def test_zero_column_mask_example_4_m32_four_sub_masks_and_shift():
    desc = zero_mask_desc(**EXAMPLE_4)
    assert desc == 0x0203028301020100     # the value lit_tests/forms/mma-ws.mlir derives
    n = 128                                 # "If N = 128 then ... columns from 2 to 129"
    mask = datamove.zero_column_mask(desc, 32, n)
    assert mask.shift == 2
    for i, want in enumerate(EXAMPLE_4_MASKS):
        got = mask.zero[i * n // 4:i * n // 4 + len(want)].astype(int).tolist()
        assert got == want, i


@pytest.mark.parametrize("desc, m, rule", [
    (zero_mask_desc(shift=17), 32, "exceeds the maximum of 16"),   # Table 45: 16 for M=32
    (zero_mask_desc(shift=33), 128, "exceeds the maximum of 32"),
    (zero_mask_desc() | 1 << 37, 128, "reserved"),
])
def test_zero_column_mask_rules(desc, m, rule):
    with pytest.raises(SimError, match=rule):
        datamove.zero_column_mask(desc, m, 64)


def ws_setup(m, n, k_bytes, b_rows):
    """A (m rows) and B (b_rows rows) of bf16 K-major without swizzle in one CTA's shared
    memory: A at 0, B at 16384; LBO = rows rounded up to 8 times 16 bytes, SBO = 128."""
    a = bf16((m, k_bytes // 2))
    b = bf16((b_rows, k_bytes // 2))
    cta = CtaMemory(0, np.zeros(32768, np.uint8))
    a_lbo, b_lbo = -(-m // 8) * 128, -(-b_rows // 8) * 128
    place_k_major(cta.smem, 0, a.view(np.uint8).reshape(m, -1), a_lbo, 128)
    place_k_major(cta.smem, 16384, b.view(np.uint8).reshape(b_rows, -1), b_lbo, 128)
    return cta, a, b, smem_descriptor(0, a_lbo, 128), smem_descriptor(16384, b_lbo, 128)


def layout_g(d_tmem, m, n):
    """tmem-facts section 1, Layout G: D[r][c] -> (lane r + 32 * (c div N/4), column
    c mod N/4)."""
    r, c = np.mgrid[0:m, 0:n]
    return d_tmem[r + 32 * (c // (n // 4)), c % (n // 4)]


def test_ws_layout_g_mma_zeroes_masked_columns_and_reads_shifted_b():
    # M = 32, N = 32, K = 16 (bf16); Example 4's mask with its column shift of 2: MMA
    # column c reads B column c + 2 (B holds N + 2 rows) unless mask bit c is 1.
    m, n = 32, 32
    cta, a, b, a_desc, b_desc = ws_setup(m, n, 32, n + 2)
    op = tc.issue_async("tcgen05.mma.ws.cta_group::1.kind::f16",
                        [Address(0), a_desc, b_desc, idesc_bf16_f32(m, n), False,
                         zero_mask_desc(**EXAMPLE_4)], 0, 1)
    op.perform([cta])
    zero = np.concatenate([(w + [0] * 8)[:n // 4] for w in EXAMPLE_4_MASKS]).astype(bool)
    b_used = b.astype(np.float64)[2:n + 2] * ~zero[:, None]
    got = layout_g(cta.tmem.view(np.float32), m, n)
    assert_gemm_close(got, a.astype(np.float64), b_used.T, 16)
    assert (got[:, zero] == 0).all()
    # the footprint holds the bytes of the B rows read, 2 .. N + 1 (LBO 40 * 16 = 640)
    want = {16384 + (r % 8) * 16 + (r // 8) * 128 + (x // 16) * 640 + x % 16
            for r in range(2, n + 2) for x in range(32)}
    reads = op.footprint.smem_reads[0]
    assert set(reads[reads >= 16384].tolist()) == want


# -- collector buffers (9.7.16.10, 9.7.16.10.9.1 / .3) ------------------------------------------

def ws_mma(cta, a_desc, b_desc, collector="", m=64, n=32, taddr=0):
    opcode = "tcgen05.mma.ws.cta_group::1.kind::f16" + collector
    op = tc.issue_async(opcode, [Address(taddr), a_desc, b_desc, idesc_bf16_f32(m, n), False],
                        0, 1)
    op.perform([cta])
    return op


def test_collector_use_without_fill_is_an_error_as_the_isa_says():
    cta, a, b, a_desc, b_desc = ws_setup(64, 32, 32, 32)
    with pytest.raises(SimError, match="requires a previous fill to the collector buffer "
                                       "to be still valid"):
        ws_mma(cta, a_desc, b_desc, ".collector::b1::use")
    with pytest.raises(SimError, match="to be valid till the collector buffer is read"):
        ws_mma(cta, a_desc, b_desc, ".collector::b1::lastuse")


def test_collector_fill_then_use_then_lastuse_then_nothing_valid():
    cta, a, b, a_desc, b_desc = ws_setup(64, 32, 32, 32)
    ws_mma(cta, a_desc, b_desc, ".collector::b2::fill")
    assert set(cta.collectors) == {"b2"}
    ws_mma(cta, a_desc, b_desc, ".collector::b2::use", taddr=64)
    ws_mma(cta, a_desc, b_desc, ".collector::b2::lastuse", taddr=128)
    assert not cta.collectors                      # lastuse: "can be discarded"
    # Layout E (tmem-facts section 1): D[r][c] -> (r + 64 * (c div N/2), c mod N/2)
    r, c = np.mgrid[0:64, 0:32]
    for base in (0, 64, 128):
        got = cta.tmem.view(np.float32)[r + 64 * (c // 16), base + c % 16]
        assert_gemm_close(got, a.astype(np.float64), b.astype(np.float64).T, 16)
    with pytest.raises(SimError, match="holds nothing valid"):
        ws_mma(cta, a_desc, b_desc, ".collector::b2::use")


def test_collector_buffers_are_separate_and_default_discard_is_b0():
    cta, a, b, a_desc, b_desc = ws_setup(64, 32, 32, 32)
    ws_mma(cta, a_desc, b_desc, ".collector::b0::fill")
    ws_mma(cta, a_desc, b_desc, ".collector::b3::fill")
    # 9.7.16.10.9.3: "If no .collector_usage qualifier is specified, then it defaults to
    # .collector::b0::discard"
    ws_mma(cta, a_desc, b_desc)
    assert set(cta.collectors) == {"b3"}
    ws_mma(cta, a_desc, b_desc, ".collector::b3::discard")
    assert not cta.collectors


def test_collector_use_of_a_changed_matrix_is_an_error():
    # 9.7.16.10: "reuse is opportunistic ... the TensorCore may reload a matrix even when
    # it has permission to reuse that matrix": a use whose memory differs from the fill is
    # not defined by the ISA.
    cta, a, b, a_desc, b_desc = ws_setup(64, 32, 32, 32)
    ws_mma(cta, a_desc, b_desc, ".collector::b0::fill")
    cta.smem[16384] ^= 1
    with pytest.raises(SimError, match="holds a different B"):
        ws_mma(cta, a_desc, b_desc, ".collector::b0::use")


def test_collector_use_with_another_element_type_is_an_error():
    # the same bytes read as f16 (Table 42 btype 0) are not the bf16 matrix ::fill stored
    cta, a, b, a_desc, b_desc = ws_setup(64, 32, 32, 32)
    ws_mma(cta, a_desc, b_desc, ".collector::b0::fill")
    f16_b = idesc_bf16_f32(64, 32) & ~(1 << 10)
    with pytest.raises(SimError, match=r"holds a different B .*bf16"):
        tc.issue_async("tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::use",
                       [Address(0), a_desc, b_desc, f16_b, False], 0, 1).perform([cta])


def test_collector_a_without_ws_holds_a():
    m, n = 128, 32
    cta, a, b, a_desc, b_desc = ws_setup(m, n, 32, n)
    opcode = "tcgen05.mma.cta_group::1.kind::f16.collector::a::"
    for op in ("fill", "lastuse"):
        tc.issue_async(opcode + op, [Address(0), a_desc, b_desc, idesc_bf16_f32(m, n),
                                     False], 0, 1).perform([cta])
    assert not cta.collectors
    with pytest.raises(SimError, match="holds nothing valid"):
        tc.issue_async(opcode + "use", [Address(0), a_desc, b_desc, idesc_bf16_f32(m, n),
                                        False], 0, 1).perform([cta])


@pytest.mark.parametrize("opcode, rule", [
    ("tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill", "holds B"),
    ("tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill", "holds A"),
])
def test_collector_buffer_of_the_other_matrix_is_an_error(opcode, rule):
    cta, a, b, a_desc, b_desc = ws_setup(128, 32, 32, 32)
    with pytest.raises(SimError, match=rule):
        tc.issue_async(opcode, [Address(0), a_desc, b_desc, idesc_bf16_f32(128, 32), False],
                       0, 1)


def test_max_shift_with_a_collector_fill_is_not_modelled():
    cta, a, b, a_desc, b_desc = ws_setup(64, 32, 32, 32)
    with pytest.raises(SimError, match="not modelled"):
        tc.issue_async("tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill",
                       [Address(0), a_desc, b_desc, idesc_bf16_f32(64, 32) | 1 << 30, False],
                       0, 1)


# -- tcgen05.shift (9.7.16.9.3) ------------------------------------------------------------------

def numbered_tmem(rank=0):
    cta = CtaMemory(rank, np.zeros(1024, np.uint8))
    lane, col = np.mgrid[0:128, 0:512]
    cta.tmem[:] = (lane * 1000 + col).astype(np.uint32)
    return cta


def test_shift_moves_31_rows_of_8_columns_down_one_lane():
    cta = numbered_tmem()
    before = cta.tmem.copy()
    op = tc.issue_async("tcgen05.shift.cta_group::1.down", [Address(32 << 16 | 5)], 0, 1)
    op.perform([cta])
    after = cta.tmem
    # lanes 33..63 of columns 5..12 hold what lanes 32..62 held; nothing else changes
    np.testing.assert_array_equal(after[33:64, 5:13], before[32:63, 5:13])
    expect = before.copy()
    expect[33:64, 5:13] = before[32:63, 5:13]
    np.testing.assert_array_equal(after, expect)
    # footprint: 31 rows read (32..62), 31 rows written (33..63), 8 columns (.31x256b)
    reads, writes = op.footprint.tmem_reads[0], op.footprint.tmem_writes[0]
    assert reads.sum() == writes.sum() == 31 * 8
    assert reads[32:63, 5:13].all() and writes[33:64, 5:13].all()
    assert op.kind == "shift"


def test_shift_lane_must_be_aligned_to_32():
    with pytest.raises(SimError, match="must be aligned to 32"):
        tc.issue_async("tcgen05.shift.cta_group::1.down", [Address(16 << 16)], 0, 1)


def test_shift_cta_group_2_shifts_both_ctas_of_the_pair():
    ctas = [numbered_tmem(0), numbered_tmem(1)]
    before = ctas[0].tmem.copy()
    op = tc.issue_async("tcgen05.shift.cta_group::2.down", [Address(0)], 1, 2)
    op.perform(ctas)
    for cta in ctas:
        np.testing.assert_array_equal(cta.tmem[1:32, :8], before[0:31, :8])
    assert set(op.footprint.tmem_writes) == {0, 1}


# -- tcgen05.cp .4x256b and decompression (9.7.16.9.1, 9.7.16.9.2) --------------------------------

def test_cp_4x256b_puts_one_row_in_each_lane_quarter():
    cta = numbered_tmem()
    before = cta.tmem.copy()
    rows = RNG.integers(0, 256, (4, 32)).astype(np.uint8)        # 4 rows of 256 bits
    place_k_major(cta.smem, 0, rows, lbo=128, sbo=256)
    op = tc.issue_async("tcgen05.cp.cta_group::1.4x256b",
                        [Address(3 << 16 | 20), smem_descriptor(0, 128, 256)], 0, 1)
    op.perform([cta])
    expect = before.copy()
    for i in range(4):          # datamove.CP_4X256B_LANES: row i -> lane 32 i (+ taddr's)
        expect[3 + 32 * i, 20:28] = rows[i].view(np.uint32)
    np.testing.assert_array_equal(cta.tmem, expect)
    assert op.footprint.tmem_writes[0].sum() == 4 * 8 and op.shape == "4x256b"


def test_cp_cta_group_2_copies_each_ctas_own_tile_into_its_own_tensor_memory():
    # 9.7.16.9.2: with .cta_group::2 "the data is copied into the Tensor Memory of both
    # the current and the peer CTAs"; the text does not say whose shared memory. Read as
    # tcgen05.mma.cta_group::2 reads its operands (each CTA's shared memory at the
    # descriptor's offsets): CTA r's tensor memory gets CTA r's tile. That is how a
    # pair's block-scaled MMA gets each CTA's own A scale factors (tmem-facts section 3:
    # "each CTA holds the A scales of its own rows"), each CTA having loaded its rows'
    # factors at the same offset (docs/cta-pairs.md). The expected lanes: the .32x128b
    # .warpx4 placement, row i into lane i of every quarter (datamove's table).
    ctas = [CtaMemory(r, np.zeros(4096, np.uint8)) for r in range(2)]
    tiles = [RNG.integers(0, 256, (32, 16)).astype(np.uint8) for _ in range(2)]
    for cta, tile in zip(ctas, tiles):
        place_k_major(cta.smem, 0, tile, lbo=512, sbo=128)
    op = tc.issue_async("tcgen05.cp.cta_group::2.32x128b.warpx4",
                        [Address(4), smem_descriptor(0, 512, 128)], 0, 2)
    op.perform(ctas)
    for cta, tile in zip(ctas, tiles):
        for quarter in range(4):
            np.testing.assert_array_equal(cta.tmem[32 * quarter:32 * quarter + 32, 4:8],
                                          tile.view(np.uint32))
    assert set(op.footprint.smem_reads) == {0, 1}
    assert set(op.footprint.tmem_writes) == {0, 1}


def test_cp_4x256b_past_lane_127_is_an_error():
    with pytest.raises(SimError, match="runs past tensor memory"):
        tc.issue_async("tcgen05.cp.cta_group::1.4x256b",
                       [Address(40 << 16), smem_descriptor(0, 128, 256)], 0, 1)


def test_decompress_b4x16_p64_by_hand():
    # 16 4-bit elements 0..15 in 8 bytes (element i at bits 4i..4i+3), then 8 bytes of
    # padding; each becomes a byte with the element in bits 5-2 (datamove.py names the
    # source of that placement).
    chunk = np.array([[0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE] + [0xFF] * 8],
                     np.uint8)
    out = datamove.decompress(chunk, "b4x16_p64")
    assert out[0].tolist() == [i << 2 for i in range(16)]


def test_decompress_b6x16_p32_by_hand():
    # element 0 = 0x3F: byte 0 = 0x3F; element 1 = 0x3F: bits 6-11 -> byte 0 = 0xC0,
    # byte 1 = 0x0F; element 15 = 0x3F: bits 90-95 -> byte 11 = 0xFC.
    for element, raw in ((0, {0: 0x3F}), (1, {0: 0xC0, 1: 0x0F}), (15, {11: 0xFC})):
        chunk = np.zeros((1, 16), np.uint8)
        chunk[0, 12:] = 0xFF                                     # padding
        for i, v in raw.items():
            chunk[0, i] = v
        out = datamove.decompress(chunk, "b6x16_p32")[0]
        assert out.tolist() == [0x3F if e == element else 0 for e in range(16)]


def unpack_reference(row, bits, offset):
    """9.7.16.9.1 by Python integers: each 16-byte chunk's elements, little-endian."""
    out = []
    for chunk in row.reshape(-1, 16):
        value = int.from_bytes(bytes(chunk[:16 * bits // 8]), "little")
        out += [((value >> (bits * e)) & ((1 << bits) - 1)) << offset for e in range(16)]
    return np.array(out, np.uint8)


@pytest.mark.parametrize("fmt, bits, offset", [("b6x16_p32", 6, 0), ("b4x16_p64", 4, 2)])
def test_cp_128x256b_decompresses_every_row(fmt, bits, offset):
    cta = CtaMemory(0, np.zeros(8192, np.uint8))
    rows = RNG.integers(0, 256, (128, 32)).astype(np.uint8)      # 2 chunks per row
    place_k_major(cta.smem, 0, rows, lbo=2048, sbo=128)
    op = tc.issue_async(f"tcgen05.cp.cta_group::1.128x256b.b8x16.{fmt}",
                        [Address(8), smem_descriptor(0, 2048, 128)], 0, 1)
    op.perform([cta])
    want = np.stack([unpack_reference(r, bits, offset) for r in rows]).view(np.uint32)
    np.testing.assert_array_equal(cta.tmem[:, 8:16], want)
    # the source footprint is the whole rows, padding included (what s-desc describes)
    assert op.footprint.smem_reads[0].size == 128 * 32


def test_cp_with_the_128b_swizzle_of_32b_atomicity_is_not_modelled():
    # Table 40 swizzle code 1; Table 53 gives its atom for an M/N leading dimension only
    # and its address pattern only in Figure 219, so the simulator refuses it
    with pytest.raises(SimError, match="not modelled"):
        tc.issue_async("tcgen05.cp.cta_group::1.128x256b",
                       [Address(0), smem_descriptor(0, 16, 1024, swizzle_code=1)], 0, 1)


def test_cp_decompression_needs_both_formats():
    with pytest.raises(SimError, match="together"):
        tc.issue_async("tcgen05.cp.cta_group::1.128x128b.b6x16_p32",
                       [Address(0), smem_descriptor(0, 2048, 128)], 0, 1)


# -- tcgen05.ld.red (9.7.16.8.3) -----------------------------------------------------------------

def f32_cells(values):
    return np.asarray(values, np.float32).view(np.uint32)


def red_load(opcode, tmem_f32, imm=None):
    cta = CtaMemory(0, np.zeros(64, np.uint8))
    cta.tmem[:tmem_f32.shape[0], :tmem_f32.shape[1]] = f32_cells(tmem_f32)
    return tc.load(opcode, 0, 0, 0, [cta], imm)


def test_ld_red_f32_max_abs_nan_over_each_lanes_columns():
    data = RNG.standard_normal((32, 4)).astype(np.float32)
    data[3, 1] = np.nan
    values, red, op = red_load("tcgen05.ld.red.sync.aligned.32x32b.x4.max.abs.NaN.f32", data)
    np.testing.assert_array_equal(values, f32_cells(data))     # r: the loaded data
    want = np.abs(data).max(axis=1)
    ok = np.arange(32) != 3
    np.testing.assert_array_equal(red[ok, 0], f32_cells(want[ok]))
    assert red[3, 0] == 0x7FFFFFFF                           # .NaN: canonical NaN
    assert op.footprint.tmem_reads[0][:32, :4].all()


def test_ld_red_f32_min_without_nan_ignores_nan_and_orders_signed_zeros():
    data = np.array([[3.0, np.nan, -2.0, 5.0], [0.0, -0.0, 1.0, 2.0]] + [[1, 2, 3, 4]] * 30,
                    np.float32)
    _, red, _ = red_load("tcgen05.ld.red.sync.aligned.32x32b.x4.min.f32", data)
    assert red[0, 0] == f32_cells(-2.0) and red[1, 0] == 0x80000000     # -0.0
    _, red, _ = red_load("tcgen05.ld.red.sync.aligned.32x32b.x4.max.f32", data)
    assert red[0, 0] == f32_cells(5.0) and red[1, 0] == f32_cells(2.0)


def test_ld_red_integer_min_max_follow_the_type():
    cta = CtaMemory(0, np.zeros(64, np.uint8))
    cta.tmem[:32, :2] = np.array([0xFFFFFFFB, 7], np.uint32)          # -5 as s32
    _, red, _ = tc.load("tcgen05.ld.red.sync.aligned.32x32b.x2.min.s32", 0, 0, 0, [cta], None)
    assert (red[:, 0] == 0xFFFFFFFB).all()
    _, red, _ = tc.load("tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32", 0, 0, 0, [cta], None)
    assert (red[:, 0] == 7).all()


def test_ld_red_16x32bx2_reduces_each_threads_registers():
    # tmem-facts section 2: thread l holds lane l mod 16, columns r + (l div 16) * imm
    data = RNG.standard_normal((16, 16)).astype(np.float32)
    values, red, _ = red_load("tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.f32", data, imm=8)
    for thread in range(32):
        cols = [thread // 16 * 8, thread // 16 * 8 + 1]
        assert red[thread, 0] == f32_cells(data[thread % 16, cols].max())


def test_ld_red_needs_x2():
    with pytest.raises(SimError, match="at least .x2"):
        red_load("tcgen05.ld.red.sync.aligned.32x32b.x1.max.f32", np.zeros((32, 1)))


# -- the ordering model sees the new footprints ----------------------------------------------------

def ordering(cta=None):
    ctas = [cta or CtaMemory(0, np.zeros(4096, np.uint8))]
    m = OrderingModel(ctas, 128, "late")
    m.alloc(np.arange(32), 0, 512, 1, line=1)
    return m, ctas


def test_shift_then_cp_4x256b_is_pipelined_but_shift_then_other_cp_races():
    # 9.7.16.6.2: "tcgen05.shift.cta_group::N -> tcgen05.cp.4x256b.cta_group::N"
    m, ctas = ordering()
    m.issue(0, tc.issue_async("tcgen05.shift.cta_group::1.down", [Address(0)], 0, 1), 10)
    m.issue(0, tc.issue_async("tcgen05.cp.cta_group::1.4x256b",
                              [Address(0), smem_descriptor(0, 128, 256)], 0, 1), 11)
    assert m.races == []
    m.issue(0, tc.issue_async("tcgen05.cp.cta_group::1.128x256b",
                              [Address(0), smem_descriptor(0, 2048, 128)], 0, 1), 12)
    # (it also races with the cp.4x256b: cp -> cp is not a pipelined pair)
    assert any("tcgen05.cp and tcgen05.shift" in str(r) for r in m.races)


def test_ld_of_shifted_rows_before_completion_races():
    m, ctas = ordering()
    m.issue(0, tc.issue_async("tcgen05.shift.cta_group::1.down", [Address(0)], 0, 1), 10)
    values, red, op = tc.load("tcgen05.ld.sync.aligned.32x32b.x8.b32", 0, 0, 0, ctas, None)
    m.issue(0, op, 11)
    assert len(m.races) == 1 and "tcgen05.ld and tcgen05.shift" in str(m.races[0])


def test_mma_then_shift_of_its_accumulator_is_pipelined():
    # 9.7.16.6.2: "tcgen05.mma.cta_group::N -> tcgen05.shift.cta_group::N"
    cta, a, b, a_desc, b_desc = ws_setup(128, 32, 32, 32)
    m, ctas = ordering(cta)
    m.issue(0, tc.issue_async("tcgen05.mma.cta_group::1.kind::f16",
                              [Address(0), a_desc, b_desc, idesc_bf16_f32(128, 32), False],
                              0, 1), 10)
    m.issue(0, tc.issue_async("tcgen05.shift.cta_group::1.down", [Address(0)], 0, 1), 11)
    assert m.races == []


# == (b) end-to-end: kernels through the pipeline and the simulator ==============================

_COMPILED = {}


def compiled(name, text, pipeline=None):
    if name not in _COMPILED:
        _COMPILED[name] = compile_source(text, name, **(
            {"pipeline": pipeline} if pipeline else {}))
    return _COMPILED[name]


def compiled_past_the_verifier(name, text, rule):
    """A kernel tcgen05-verify refuses (the diagnostic must contain `rule`), compiled by
    the default pipeline without tcgen05-verify: PTX whose fault the simulator must find
    on its own."""
    with pytest.raises(CompileFailed, match=re.escape(rule)):
        compile_source(text, name)
    return compiled(name, text, DEFAULT_PIPELINE.replace("tcgen05-verify,", "", 1))


def run(name, text, args, schedule):
    result = compiled(name, text)
    sim = simulate(result.ptx, result.manifest,
                   {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()},
                   schedule=schedule)
    assert not sim.races, sim.races
    assert not sim.problems, sim.problems
    return sim.outputs


WS_LAYOUT_E = """
!acc = !tcgen05.tmem<[64, 64], f32>
!at = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!bt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!fr = !tcgen05.frag<[64, 64], f32>
func.func @ws_b_reuse(%A0: !llvm.ptr<1>, %A1: !llvm.ptr<1>, %A2: !llvm.ptr<1>, %B: !llvm.ptr<1>,
                      %C0: !llvm.ptr<1>, %C1: !llvm.ptr<1>, %C2: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %a0 = "tcgen05.smem_buffer"() : () -> !at
  %a1 = "tcgen05.smem_buffer"() : () -> !at
  %a2 = "tcgen05.smem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !bt
  %d0 = "tcgen05.tmem_buffer"() : () -> !acc
  %d1 = "tcgen05.tmem_buffer"() : () -> !acc
  %d2 = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A0, %a0, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%A1, %a1, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%A2, %a2, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 64 : i64} : (!llvm.ptr<1>, !bt, index) -> ()
  "tcgen05.mma"(%d0, %a0, %b, %f) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "fill"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d1, %a1, %b, %f) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "use"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d2, %a2, %b, %f) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "lastuse"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d0, %a0, %b, %t) {kind = "f16", ws = true, k_offset = 16 : i64, collector_b = "b1", collector_b_op = "fill"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d1, %a1, %b, %t) {kind = "f16", ws = true, k_offset = 16 : i64, collector_b = "b1", collector_b_op = "lastuse"} : (!acc, !at, !bt, i1) -> ()
  %g0 = "tcgen05.ld"(%d0, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g0, %C0, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  %g1 = "tcgen05.ld"(%d1, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g1, %C1, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  %g2 = "tcgen05.ld"(%d2, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g2, %C2, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_ws_layout_e_reuses_b_through_collector_fill_use_lastuse(schedule):
    # Three M = 64 .ws MMAs (Layout E) share B through ::b1: fill, use, lastuse; then a
    # second K step fills again and two accumulators take it (fill, lastuse).
    a = [bf16((64, 64)) for _ in range(3)]
    b = bf16((64, 64))                                   # K x N, row-major
    args = {"A0": a[0], "A1": a[1], "A2": a[2], "B": b}
    args.update({f"C{i}": np.zeros((64, 64), np.float32) for i in range(3)})
    out = run("ws_b_reuse", WS_LAYOUT_E, args, schedule)
    a64 = [x.astype(np.float64) for x in a]
    b64 = b.astype(np.float64)
    assert_gemm_close(out["C0"], a64[0][:, :32], b64[:32], 32)
    assert_gemm_close(out["C1"], a64[1][:, :32], b64[:32], 32)
    assert_gemm_close(out["C2"], a64[2][:, :16], b64[:16], 16)


WS_LAYOUT_G_MASK = """
!acc = !tcgen05.tmem<[32, 64], f32>
!at = !tcgen05.smem<[32, 16], bf16, "K", "32B">
!bt = !tcgen05.smem<[64, 16], bf16, "K", "32B">
!fr = !tcgen05.frag<[32, 64], f32>
func.func @ws_mask(%A0: !llvm.ptr<1>, %A1: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C0: !llvm.ptr<1>,
                   %C1: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a0 = "tcgen05.smem_buffer"() : () -> !at
  %a1 = "tcgen05.smem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !bt
  %d0 = "tcgen05.tmem_buffer"() : () -> !acc
  %d1 = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A0, %a0, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%A1, %a1, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !bt, index) -> ()
  "tcgen05.mma"(%d0, %a0, %b, %f) {kind = "f16", ws = true, collector_b = "b2", collector_b_op = "fill", zero_column_mask = MASK : i64} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d1, %a1, %b, %f) {kind = "f16", ws = true, collector_b = "b2", collector_b_op = "lastuse"} : (!acc, !at, !bt, i1) -> ()
  %g0 = "tcgen05.ld"(%d0, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g0, %C0, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  %g1 = "tcgen05.ld"(%d1, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g1, %C1, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_ws_layout_g_zero_column_mask_and_collector(schedule):
    # M = 32 (Layout G), N = 64: the first MMA fills ::b2 and zeroes the columns of Table
    # 45's example 4 (its start counts, first spans and spans, without the column shift,
    # which would need a B tile of N + shift rows); the second reuses B unmasked.
    desc = zero_mask_desc(**dict(EXAMPLE_4, shift=0))
    text = WS_LAYOUT_G_MASK.replace("MASK", str(desc))
    a0, a1, b = bf16((32, 16)), bf16((32, 16)), bf16((64, 16))      # B: N x K
    args = {"A0": a0, "A1": a1, "B": b, "C0": np.zeros((32, 64), np.float32),
            "C1": np.zeros((32, 64), np.float32)}
    out = run("ws_mask", text, args, schedule)
    zero = np.concatenate([sub_mask(EXAMPLE_4["sc"][i], EXAMPLE_4["fs"][i], 2, 3, 16)
                           for i in range(4)]).astype(bool)
    b64 = b.astype(np.float64)
    assert_gemm_close(out["C0"], a0.astype(np.float64), (b64 * ~zero[:, None]).T, 16)
    assert (out["C0"][:, zero] == 0).all() and (out["C0"][:, ~zero] != 0).all()
    assert_gemm_close(out["C1"], a1.astype(np.float64), b64.T, 16)


A_REUSE = """
!acc = !tcgen05.tmem<[128, 64], f32>
!at = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!bt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!fr = !tcgen05.frag<[128, 64], f32>
func.func @a_reuse(%A: !llvm.ptr<1>, %B0: !llvm.ptr<1>, %B1: !llvm.ptr<1>, %C0: !llvm.ptr<1>,
                   %C1: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !at
  %b0 = "tcgen05.smem_buffer"() : () -> !bt
  %b1 = "tcgen05.smem_buffer"() : () -> !bt
  %d0 = "tcgen05.tmem_buffer"() : () -> !acc
  %d1 = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%B0, %b0, %c0) {src_layout = "k_mn", src_ld = 64 : i64} : (!llvm.ptr<1>, !bt, index) -> ()
  "tcgen05.smem_fill"(%B1, %b1, %c0) {src_layout = "k_mn", src_ld = 64 : i64} : (!llvm.ptr<1>, !bt, index) -> ()
  "tcgen05.mma"(%d0, %a, %b0, %f) {kind = "f16", collector_a = "fill"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d1, %a, %b1, %f) {kind = "f16", collector_a = "lastuse"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d0, %a, %b0, %t) {kind = "f16", k_offset = 16 : i64, collector_a = "fill"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d1, %a, %b1, %t) {kind = "f16", k_offset = 16 : i64, collector_a = "use"} : (!acc, !at, !bt, i1) -> ()
  "tcgen05.mma"(%d1, %a, %b1, %t) {kind = "f16", k_offset = 16 : i64, collector_a = "lastuse"} : (!acc, !at, !bt, i1) -> ()
  %g0 = "tcgen05.ld"(%d0, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g0, %C0, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  %g1 = "tcgen05.ld"(%d1, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g1, %C1, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_layout_d_reuses_a_through_collector_a(schedule):
    a, b0, b1 = bf16((128, 64)), bf16((64, 64)), bf16((64, 64))
    args = {"A": a, "B0": b0, "B1": b1, "C0": np.zeros((128, 64), np.float32),
            "C1": np.zeros((128, 64), np.float32)}
    out = run("a_reuse", A_REUSE, args, schedule)
    a64, b0_64, b1_64 = (x.astype(np.float64) for x in (a, b0, b1))
    assert_gemm_close(out["C0"], a64[:, :32], b0_64[:32], 32)
    # K block 1 of A is multiplied twice into C1 (::use, then ::lastuse)
    assert_gemm_close(out["C1"], np.concatenate([a64[:, :16], a64[:, 16:32],
                                                 a64[:, 16:32]], axis=1),
                      np.concatenate([b1_64[:16], b1_64[16:32], b1_64[16:32]]), 48)


WS_USE_FIRST = """
!acc = !tcgen05.tmem<[64, 64], f32>
!at = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!fr = !tcgen05.frag<[64, 64], f32>
func.func @ws_use_first(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !at
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%A, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %f) {kind = "f16", ws = true, collector_b = "b3", collector_b_op = "use"} : (!acc, !at, !at, i1) -> ()
  %g = "tcgen05.ld"(%d, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g, %C, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_collector_use_without_fill_is_reported_at_the_mma(schedule):
    result = compiled_past_the_verifier("ws_use_first", WS_USE_FIRST,
                                        "collector::b3::use needs a previous "
                                        "collector::b3::fill still valid")
    line = next(i + 1 for i, text in enumerate(result.ptx.splitlines())
                if "collector::b3::use" in text)
    with pytest.raises(SimError, match="holds nothing valid") as caught:
        simulate(result.ptx, result.manifest, {"A": bf16((64, 64)),
                                               "C": np.zeros((64, 64), np.float32)},
                 schedule=schedule)
    assert caught.value.ptx_line == line


WS_USE_OTHER_K = """
!acc = !tcgen05.tmem<[64, 64], f32>
!at = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!fr = !tcgen05.frag<[64, 64], f32>
func.func @ws_use_other_k(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %t = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !at
  %b = "tcgen05.smem_buffer"() : () -> !at
  %d = "tcgen05.tmem_buffer"() : () -> !acc
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !at, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %f) {kind = "f16", ws = true, collector_b = "b1", collector_b_op = "fill"} : (!acc, !at, !at, i1) -> ()
  "tcgen05.mma"(%d, %a, %b, %t) {kind = "f16", ws = true, k_offset = 16 : i64, collector_b = "b1", collector_b_op = "use"} : (!acc, !at, !at, i1) -> ()
  %g = "tcgen05.ld"(%d, %c0) : (!acc, index) -> !fr
  "tcgen05.store_fragment"(%g, %C, %c0) {ld = 64 : i64} : (!fr, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_collector_use_of_another_b_is_an_error(schedule):
    # A ::use whose B (here the next K block of the tile) is not the one ::b1 was filled
    # with: the tensor core may multiply either (9.7.16.10). tcgen05-verify refuses it;
    # compiled without the verifier, the simulator reports it at the ::use on its own.
    result = compiled_past_the_verifier("ws_use_other_k", WS_USE_OTHER_K,
                                        "it holds the B filled at line")
    line = next(i + 1 for i, text in enumerate(result.ptx.splitlines())
                if "collector::b1::use" in text)
    with pytest.raises(SimError, match="holds a different B") as caught:
        simulate(result.ptx, result.manifest, {"A": bf16((64, 64)), "B": bf16((64, 64)),
                                               "C": np.zeros((64, 64), np.float32)},
                 schedule=schedule)
    assert caught.value.ptx_line == line


SHIFT_REFRESH = """
!t = !tcgen05.tmem<[128, 32], f32>
!f = !tcgen05.frag<[128, 32], f32>
!s = !tcgen05.smem<[4, 32], i8, "K", "none">
func.func @shift_refresh(%src: !llvm.ptr<1>, %rows: !llvm.ptr<1>, %shifted: !llvm.ptr<1>,
                         %refreshed: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !t
  %s = "tcgen05.smem_buffer"() : () -> !s
  "tcgen05.smem_fill"(%rows, %s, %c0) {src_layout = "mn_k", src_ld = 32 : i64} : (!llvm.ptr<1>, !s, index) -> ()
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%buf, %c0, %in) : (!t, index, !f) -> ()
  "tcgen05.shift"(%buf) : (!t) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!t, index) -> !f
  "tcgen05.store_fragment"(%out, %shifted, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  "tcgen05.cp"(%buf, %s) {shape = "4x256b"} : (!t, !s) -> ()
  %out2 = "tcgen05.ld"(%buf, %c0) : (!t, index) -> !f
  "tcgen05.store_fragment"(%out2, %refreshed, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_shift_then_cp_4x256b(schedule):
    # One tcgen05.shift moves lanes 0..30 of 8 columns (a 32-byte element) to lanes 1..31
    # from its 32-aligned address (9.7.16.9.3); the dialect's shift is one per quarter and
    # per 8 columns, so every quarter's rows move down one lane within the quarter, in
    # all 32 columns. Then .4x256b writes the 4 source rows (32 bytes each) into lanes 0,
    # 32, 64, 96, columns 0..7.
    src = RNG.standard_normal((128, 32)).astype(np.float32)
    rows = RNG.integers(0, 256, (4, 32)).astype(np.uint8)
    args = {"src": src, "rows": rows, "shifted": np.zeros((128, 32), np.float32),
            "refreshed": np.zeros((128, 32), np.float32)}
    out = run("shift_refresh", SHIFT_REFRESH, args, schedule)
    shifted = src.view(np.uint32).copy()
    for q in range(4):
        shifted[32 * q + 1:32 * q + 32] = src.view(np.uint32)[32 * q:32 * q + 31]
    np.testing.assert_array_equal(out["shifted"].view(np.uint32), shifted)
    refreshed = shifted.copy()
    for i in range(4):
        refreshed[32 * i, :8] = rows[i].view(np.uint32)
    np.testing.assert_array_equal(out["refreshed"].view(np.uint32), refreshed)


SHIFT_PAIR = """
!t = !tcgen05.tmem<[256, 32], f32>
!f = !tcgen05.frag<[256, 32], f32>
func.func @shift_pair(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "A"} : () -> !t
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%buf, %c0, %in) : (!t, index, !f) -> ()
  "tcgen05.shift"(%buf) : (!t) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!t, index) -> !f
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_shift_cta_group_2_shifts_both_ctas(schedule):
    # A CTA pair holds rows 0..127 (rank 0) and 128..255 (rank 1) of a Layout A buffer
    # (tmem-facts section 1); the even CTA's tcgen05.shift.cta_group::2 instructions (one
    # per quarter and 8 columns) shift every quarter's rows in both CTAs' tensor memory
    # (9.7.16.9.3).
    src = RNG.standard_normal((256, 32)).astype(np.float32)
    out = run("shift_pair", SHIFT_PAIR, {"src": src, "dst": np.zeros((256, 32), np.float32)},
              schedule)
    want = src.view(np.uint32).copy()
    for base in range(0, 256, 32):
        want[base + 1:base + 32] = src.view(np.uint32)[base:base + 31]
    np.testing.assert_array_equal(out["dst"].view(np.uint32), want)


CP_DECOMPRESS = """
!t = !tcgen05.tmem<[128, 32], i32>
!f = !tcgen05.frag<[128, 32], i32>
!s6 = !tcgen05.smem<[128, 16], i8, "K", "none">
!s4 = !tcgen05.smem<[32, 16], i8, "K", "none">
func.func @cp_decompress(%init: !llvm.ptr<1>, %rows6: !llvm.ptr<1>, %rows4: !llvm.ptr<1>,
                         %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !t
  %b = "tcgen05.smem_buffer"() : () -> !s6
  %c = "tcgen05.smem_buffer"() : () -> !s4
  "tcgen05.smem_fill"(%rows6, %b, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !s6, index) -> ()
  "tcgen05.smem_fill"(%rows4, %c, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !s4, index) -> ()
  %in = "tcgen05.load_fragment"(%init, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%buf, %c0, %in) : (!t, index, !f) -> ()
  "tcgen05.cp"(%buf, %b) {shape = "128x128b", decompress = "b6x16_p32", column = 12 : i64} : (!t, !s6) -> ()
  "tcgen05.cp"(%buf, %c) {shape = "32x128b", multicast = "warpx4", decompress = "b4x16_p64", column = 20 : i64} : (!t, !s4) -> ()
  %out = "tcgen05.ld"(%buf, %c0) : (!t, index) -> !f
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 32 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_decompressing_cps(schedule):
    # The source tiles are raw bytes (i8: the compiler's smem_fill does not take 4- or
    # 6-bit element types), 16 bytes per row: one chunk of 16 packed elements and padding.
    init = RNG.integers(0, 2**31, (128, 32)).astype(np.int32)
    rows6 = RNG.integers(0, 256, (128, 16)).astype(np.uint8)
    rows4 = RNG.integers(0, 256, (32, 16)).astype(np.uint8)
    args = {"init": init, "rows6": rows6, "rows4": rows4,
            "dst": np.zeros((128, 32), np.int32)}
    out = run("cp_decompress", CP_DECOMPRESS, args, schedule)
    want = init.view(np.uint32).copy()
    for lane in range(128):             # .128x128b: row l -> lane l, 4 columns from 12
        want[lane, 12:16] = unpack_reference(rows6[lane], 6, 0).view(np.uint32)
    for quarter in range(4):            # .32x128b.warpx4: the 32 rows into every quarter
        for lane in range(32):
            want[32 * quarter + lane, 20:24] = unpack_reference(rows4[lane], 4, 2).view(
                np.uint32)
    np.testing.assert_array_equal(out["dst"].view(np.uint32), want)


LD_RED = """
!t = !tcgen05.tmem<[128, 64], f32>
!f = !tcgen05.frag<[128, 64], f32>
!r = !tcgen05.frag<[128, 1], f32>
func.func @row_max_abs(%src: !llvm.ptr<1>, %vals: !llvm.ptr<1>, %rowmax: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() : () -> !t
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%buf, %c0, %in) : (!t, index, !f) -> ()
  %frag, %red = "tcgen05.ld_red"(%buf, %c0) {op = "max", abs = true, nan = true} : (!t, index) -> (!f, !r)
  "tcgen05.store_fragment"(%frag, %vals, %c0) {ld = 64 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  "tcgen05.store_fragment"(%red, %rowmax, %c0) {ld = 1 : i64} : (!r, !llvm.ptr<1>, index) -> ()
  return
}
"""

LD_RED_S32 = """
!ti = !tcgen05.tmem<[64, 32], i32>
!fi = !tcgen05.frag<[64, 32], i32>
!ri = !tcgen05.frag<[64, 1], i32>
func.func @row_min_s32(%src: !llvm.ptr<1>, %rowmin: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "F"} : () -> !ti
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 32 : i64} : (!llvm.ptr<1>, index) -> !fi
  "tcgen05.st"(%buf, %c0, %in) : (!ti, index, !fi) -> ()
  %frag, %red = "tcgen05.ld_red"(%buf, %c0) {op = "min"} : (!ti, index) -> (!fi, !ri)
  "tcgen05.store_fragment"(%red, %rowmin, %c0) {ld = 1 : i64} : (!ri, !llvm.ptr<1>, index) -> ()
  return
}
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_ld_red_f32_row_max_abs_nan(schedule):
    src = RNG.standard_normal((128, 64)).astype(np.float32)
    src[5, 7] = np.nan
    out = run("ld_red_f32", LD_RED, {"src": src, "vals": np.zeros((128, 64), np.float32),
                                     "rowmax": np.zeros((128, 1), np.float32)}, schedule)
    np.testing.assert_array_equal(out["vals"].view(np.uint32), src.view(np.uint32))
    want = np.abs(src).max(axis=1).view(np.uint32)
    want[5] = 0x7FFFFFFF                         # .NaN: the canonical NaN
    np.testing.assert_array_equal(out["rowmax"][:, 0].view(np.uint32), want)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_e2e_ld_red_s32_row_min_16x32bx2(schedule):
    src = RNG.integers(-2**31, 2**31, (64, 32)).astype(np.int32)
    out = run("ld_red_s32", LD_RED_S32, {"src": src, "rowmin": np.zeros((64, 1), np.int32)},
              schedule)
    np.testing.assert_array_equal(out["rowmin"][:, 0], src.min(axis=1))


# -- a 512-column buffer with the widest packed messages (9.7.16.1, Table 47, 9.7.16.8.2) ------

WIDE_512 = """
!t = !tcgen05.tmem<[128, 512], f16>
!f = !tcgen05.frag<[128, 512], f16>
func.func @wide_512(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {layout = "D"} : () -> !t
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 512 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%buf, %c0, %in) {shape = "16x32bx2", num = 128 : i64, half_split = 256 : i64} : (!t, index, !f) -> ()
  %out = "tcgen05.ld"(%buf, %c0) {shape = "16x256b", num = 32 : i64} : (!t, index) -> !f
  "tcgen05.store_fragment"(%out, %dst, %c0) {ld = 512 : i64} : (!f, !llvm.ptr<1>, index) -> ()
  return
}
"""


def test_e2e_512_columns_stored_with_one_shape_and_loaded_with_another():
    # Stored by .16x32bx2.x128.unpack::16b (each half 256 columns, the second at taddr +
    # 256) and loaded by .16x256b.x32.pack::16b (512 columns per message): the two
    # mappings agree on every cell only if both place row r, column c of the buffer on lane
    # r, column c (Layout D), so the copy is exact.
    src = RNG.standard_normal((128, 512)).astype(np.float16)
    out = run("wide_512", WIDE_512, {"src": src, "dst": np.zeros((128, 512), np.float16)},
              "late")
    np.testing.assert_array_equal(out["dst"].view(np.uint16), src.view(np.uint16))
