"""The simulator's tensor-core model (tcgen05_lower/sim/tensor_core.py) on single
operations, against expectations derived by hand from the PTX ISA text: descriptor bits
from Tables 40 and 42, operand addresses from the canonical layouts (9.7.16.3.3) and
swizzles (9.7.16.10.6), D placement from the data-path layouts (9.7.16.10.5), fragments
from tmem-facts.md section 2, and products computed with NumPy in float64.

Tolerance: D is rounded once to its type per MMA, so an f32 D matches the float64 NumPy
product to f32 rounding (rtol 2^-23 of the largest magnitude); integer kinds are exact."""

import ml_dtypes
import numpy as np
import pytest

from tcgen05_lower.sim import tensor_core as tc
from tcgen05_lower.sim import tc_descriptors as td
from tcgen05_lower.sim.state import Address, CtaMemory, SimError

RNG = np.random.default_rng(7)


def smem_descriptor(start, lbo, sbo, swizzle_code):
    """Table 40 by hand: 14-bit fields of byte values >> 4; bits 46-48 = 0b001."""
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)
            | (swizzle_code << 61))


def test_descriptor_of_the_example_decodes_as_table_40_says():
    # 0x4000404000010000: swizzle field (61-63) = 2 -> 128-byte swizzle; SBO field
    # (32-45) = 0x40 -> 1024 bytes; LBO field (16-29) = 1 -> 16 bytes; start 0; fixed 0b001.
    desc = td.decode_smem_descriptor(0x4000404000010000)
    assert (desc.start, desc.leading_offset, desc.stride_offset, desc.swizzle) == \
        (0, 16, 1024, "128B")


@pytest.mark.parametrize("bad, rule", [(3 << 61 | 1 << 46, "swizzling mode 3"),
                                       (0, "bits 46-48"),
                                       (1 << 46 | 1 << 53, "bits 53-60")])
def test_descriptor_bits_the_isa_forbids_are_errors(bad, rule):
    with pytest.raises(SimError, match=rule):
        td.decode_smem_descriptor(bad)


def test_k_major_128b_swizzle_addresses_by_hand():
    desc = td.decode_smem_descriptor(smem_descriptor(0, 16, 1024, 2))
    address = td.k_major_addresses(desc, rows=16, k_bytes=64)
    # row r at (r mod 8) * 128 + (r div 8) * SBO, then bits 4-6 ^= bits 7-9:
    assert address[0, 16] == 16          # row 0: no XOR
    assert address[1, 0] == 128 ^ 16     # row 1, unit 0 -> unit 1
    assert address[9, 0] == 1152 ^ 16    # 1024 + 128; (1152 >> 7) & 7 = 1
    assert address[3, 40] == 408         # 384 + 40 = 0b110101000 ^ 0b000110000


def test_k_major_without_swizzle_uses_lbo_between_16_byte_units():
    desc = td.decode_smem_descriptor(smem_descriptor(2048, 256, 128, 0))
    address = td.k_major_addresses(desc, rows=16, k_bytes=32)
    assert address[0, 0] == 2048
    assert address[5, 3] == 2048 + 5 * 16 + 3          # core matrix: 8 rows x 16 bytes
    assert address[8, 0] == 2048 + 128                   # next 8 rows: SBO
    assert address[2, 17] == 2048 + 2 * 16 + 256 + 1     # next 16 bytes of K: LBO


def test_base_offset_without_swizzle_moves_no_address():
    # Table 40 bits 49-51 place a swizzle's repeating pattern (Table 41); without
    # swizzling there is none. The descriptor Triton 3.9 gives tcgen05.cp for an mxfp4
    # scale tile: start 0x8600, SBO 128, no swizzle, base offset (0x8600 >> 7) & 7 = 4.
    desc = td.decode_smem_descriptor(smem_descriptor(0x8600, 0, 128, 0) | 4 << 49)
    assert desc.base_offset == 4
    address = td.k_major_addresses(desc, rows=32, k_bytes=16)
    # row r of a 32x128b tile: (r mod 8) * 16 + (r div 8) * SBO from the start, by hand
    assert address[0, 0] == 0x8600
    assert address[9, 5] == 0x8600 + 1 * 16 + 1 * 128 + 5
    assert address[31, 15] == 0x8600 + 7 * 16 + 3 * 128 + 15


def test_base_offset_with_a_swizzle_is_refused():
    desc = td.decode_smem_descriptor(smem_descriptor(0x8600, 16, 1024, 2) | 4 << 49)
    with pytest.raises(SimError, match="base offset of 4"):
        td.k_major_addresses(desc, rows=8, k_bytes=128)


def place_k_major(smem, start, matrix_bytes, lbo, sbo):
    """Writes a [rows, bytes] operand in the no-swizzle K-major canonical layout."""
    rows, nbytes = matrix_bytes.shape
    for r in range(rows):
        for b in range(nbytes):
            smem[start + (r % 8) * 16 + (r // 8) * sbo + (b // 16) * lbo + b % 16] = \
                matrix_bytes[r, b]


def idesc(kind_bits, m, n):
    """Table 42: N >> 3 at bits 17-22, M >> 4 at bits 24-28."""
    return kind_bits | ((n >> 3) << 17) | ((m >> 4) << 24)


def mma_setup(a, b, element_bytes, m, n):
    smem = np.zeros(64 * 1024, np.uint8)
    a_bytes = a.view(np.uint8).reshape(a.shape[0], -1)
    b_bytes = b.view(np.uint8).reshape(b.shape[0], -1)
    place_k_major(smem, 0, a_bytes, lbo=m * 16, sbo=128)
    place_k_major(smem, 32768, b_bytes, lbo=n * 16, sbo=128)
    return (CtaMemory(0, smem), smem_descriptor(0, m * 16, 128, 0),
            smem_descriptor(32768, n * 16, 128, 0))


def run_mma(opcode, cta, a_desc, b_desc, descriptor, taddr=0, accumulate=False, extra=()):
    op = tc.issue_async(opcode, [Address(taddr), a_desc, b_desc, descriptor, *extra,
                                 accumulate], 0, 1)
    op.perform([cta])
    return op


def test_f16_kind_bf16_inputs_f32_d_in_layout_d():
    m, n, k = 128, 16, 16
    a = RNG.uniform(-1, 1, (m, k)).astype(ml_dtypes.bfloat16)
    b = RNG.uniform(-1, 1, (n, k)).astype(ml_dtypes.bfloat16)   # B is N x K, K-major
    cta, a_desc, b_desc = mma_setup(a, b, 2, m, n)
    # dtype F32 = 1 (bits 4-5), atype = btype = BF16 = 1 (bits 7-9, 10-12)
    descriptor = idesc(1 << 4 | 1 << 7 | 1 << 10, m, n)
    op = run_mma("tcgen05.mma.cta_group::1.kind::f16", cta, a_desc, b_desc, descriptor,
                 taddr=8)
    want = a.astype(np.float64) @ b.astype(np.float64).T
    got = cta.tmem[:128, 8:8 + n].view(np.float32)                # Layout D: (r, c)
    np.testing.assert_allclose(got, want, rtol=2**-23, atol=2**-23 * np.abs(want).max())
    assert op.footprint.tmem_writes[0][:, 8:24].all()
    assert not op.footprint.tmem_writes[0][:, :8].any()
    assert op.accumulator == (0, 8, 128, 16, 1)
    run_mma("tcgen05.mma.cta_group::1.kind::f16", cta, a_desc, b_desc, descriptor, taddr=8,
            accumulate=True)
    np.testing.assert_allclose(cta.tmem[:128, 8:8 + n].view(np.float32), 2 * want,
                               rtol=2**-22, atol=2**-22 * np.abs(want).max())


def test_layout_f_places_64_rows_in_16_lanes_per_quarter_at_lane_offset_16():
    m, n, k = 64, 8, 16
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float16)
    b = RNG.uniform(-1, 1, (n, k)).astype(np.float16)
    cta, a_desc, b_desc = mma_setup(a, b, 2, m, n)
    descriptor = idesc(1 << 4, m, n)                               # f16 in, f32 D
    run_mma("tcgen05.mma.cta_group::1.kind::f16", cta, a_desc, b_desc, descriptor,
            taddr=16 << 16)
    want = a.astype(np.float64) @ b.astype(np.float64).T
    for r in (0, 15, 16, 37, 63):                                  # lane 32*(r//16)+r%16+16
        lane = 32 * (r // 16) + r % 16 + 16
        np.testing.assert_allclose(cta.tmem[lane, :n].view(np.float32), want[r], rtol=1e-6,
                                   atol=1e-6)
    assert not cta.tmem[0:16].any() and not cta.tmem[32:48].any()  # the other half untouched


def test_i8_kind_signed_is_exact_s32():
    m, n, k = 128, 8, 32
    a = RNG.integers(-128, 128, (m, k)).astype(np.int8)
    b = RNG.integers(-128, 128, (n, k)).astype(np.int8)
    cta, a_desc, b_desc = mma_setup(a, b, 1, m, n)
    descriptor = idesc(2 << 4 | 1 << 7 | 1 << 10, m, n)           # S32 D, signed A and B
    run_mma("tcgen05.mma.cta_group::1.kind::i8", cta, a_desc, b_desc, descriptor)
    want = a.astype(np.int64) @ b.astype(np.int64).T
    np.testing.assert_array_equal(cta.tmem[:128, :n].view(np.int32), want)


def test_tf32_kind_ignores_the_low_13_mantissa_bits():
    m, n, k = 128, 8, 8
    a = np.full((m, k), 1.0, np.float32)
    a_bits = a.view(np.uint32) | np.uint32(0x1FFF)                 # below tf32's mantissa
    b = np.full((n, k), 1.0, np.float32)
    cta, a_desc, b_desc = mma_setup(a_bits.view(np.float32), b, 4, m, n)
    descriptor = idesc(1 << 4 | 2 << 7 | 2 << 10, m, n)           # F32 D, TF32 A and B
    run_mma("tcgen05.mma.cta_group::1.kind::tf32", cta, a_desc, b_desc, descriptor)
    assert (cta.tmem[:128, :n].view(np.float32) == 8.0).all()     # 8 products of 1 x 1


def test_e4m3_inputs_of_kind_f8f6f4():
    m, n, k = 128, 8, 32
    a = RNG.uniform(-2, 2, (m, k)).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.uniform(-2, 2, (n, k)).astype(ml_dtypes.float8_e4m3fn)
    cta, a_desc, b_desc = mma_setup(a, b, 1, m, n)
    descriptor = idesc(1 << 4, m, n)                               # F32 D, E4M3 = 0
    run_mma("tcgen05.mma.cta_group::1.kind::f8f6f4", cta, a_desc, b_desc, descriptor)
    want = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(cta.tmem[:128, :n].view(np.float32), want, rtol=2**-22,
                               atol=2**-22 * np.abs(want).max())


def test_disable_output_lane_keeps_the_masked_lanes():
    m, n, k = 128, 8, 16
    a = np.ones((m, k), np.float16)
    b = np.ones((n, k), np.float16)
    cta, a_desc, b_desc = mma_setup(a, b, 2, m, n)
    cta.tmem[:, :n] = 7
    mask = (0x0000FFFF, 0, 0, 0x80000000)                          # lanes 0-15 and 127
    run_mma("tcgen05.mma.cta_group::1.kind::f16", cta, a_desc, b_desc, idesc(1 << 4, m, n),
            extra=(mask,))
    assert (cta.tmem[0:16, :n] == 7).all() and (cta.tmem[127, :n] == 7).all()
    assert (cta.tmem[16:127, :n].view(np.float32) == 16.0).all()


def tmem_with_addresses():
    cta = CtaMemory(0, np.zeros(16, np.uint8))
    lanes, cols = np.meshgrid(np.arange(128), np.arange(512), indexing="ij")
    cta.tmem[:] = lanes * 1000 + cols
    return cta


def test_ld_32x32b_reads_lane_per_thread_column_per_register():
    cta = tmem_with_addresses()
    values, _, op = tc.load("tcgen05.ld.sync.aligned.32x32b.x4.b32", (32 << 16) | 8, 1, 0,
                            [cta], None)
    thread, register = 5, 3
    assert values[thread, register] == (32 + 5) * 1000 + 8 + 3
    assert op.footprint.tmem_reads[0][32:64, 8:12].all()


def test_ld_16x64b_and_16x256b_fragments_as_tmem_facts_tabulate():
    cta = tmem_with_addresses()
    values, _, _ = tc.load("tcgen05.ld.sync.aligned.16x64b.x2.b32", 0, 0, 0, [cta], None)
    # (L0 + l/4 + 8*(l%2), C0 + (l/2)%2 + 2r)
    assert values[1, 0] == 8 * 1000 + 0
    assert values[2, 1] == 0 * 1000 + 3
    assert values[7, 1] == 9 * 1000 + 3
    values, _, _ = tc.load("tcgen05.ld.sync.aligned.16x256b.x1.b32", 0, 0, 0, [cta], None)
    # (L0 + l/4 + 8*((r/2)%2), C0 + r%2 + 2*(l%4) + 8*(r/4)): 4 registers per .x1
    assert values.shape == (32, 4)
    assert values[6, 3] == (1 + 8) * 1000 + 1 + 4


def test_ld_outside_the_warps_lane_quarter_is_an_error():
    with pytest.raises(SimError, match="9.7.16.8.1"):
        tc.load("tcgen05.ld.sync.aligned.32x32b.x1.b32", 0, 1, 0, [tmem_with_addresses()],
                None)


def test_pack_and_unpack_16b_pair_adjacent_columns():
    cta = tmem_with_addresses()
    values, _, _ = tc.load("tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32", 10, 0, 0, [cta],
                           None)
    # register r of lane l: low 16 bits of columns 10+2r and 10+2r+1
    assert values[3, 1] == ((3000 + 12) & 0xFFFF) | (((3000 + 13) & 0xFFFF) << 16)
    op = tc.store("tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32", 10, 0, 0, values, None)
    cta.tmem[:32, 10:14] = 0
    op.perform([cta])
    assert cta.tmem[3, 12] == (3000 + 12) & 0xFFFF and cta.tmem[3, 13] == (3000 + 13) & 0xFFFF


def test_packed_16x32bx2_second_access_starts_imm_columns_after_taddr():
    # 9.7.16.8.3: "the base address of the second access is specified by
    # taddr+immHalfSplitoff": the offset is added to the address, in columns, and packing
    # (9.7.16.8.2) pairs columns from that base on. Thread l >= 16, register r: columns
    # 10 + imm + 2r and 10 + imm + 2r + 1 of lane l - 16.
    cta = tmem_with_addresses()
    imm = 4
    values, _, _ = tc.load("tcgen05.ld.sync.aligned.16x32bx2.x2.pack::16b.b32", 10, 0, 0,
                           [cta], imm)
    assert values[0, 1] == ((0 + 12) & 0xFFFF) | (((0 + 13) & 0xFFFF) << 16)
    assert values[19, 1] == ((3000 + 16) & 0xFFFF) | (((3000 + 17) & 0xFFFF) << 16)
    op = tc.store("tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32", 10, 0, 0, values,
                  imm)
    assert op.footprint.tmem_writes[0][:16, 10:18].all()
    assert op.footprint.tmem_writes[0].sum() == 16 * 8


def test_cp_128x256b_copies_each_row_into_its_lane_along_8_columns():
    cta = CtaMemory(0, np.zeros(8192, np.uint8))
    rows = RNG.integers(0, 256, (128, 32)).astype(np.uint8)   # 128 rows of 256 bits
    place_k_major(cta.smem, 0, rows, lbo=2048, sbo=128)
    op = tc.issue_async("tcgen05.cp.cta_group::1.128x256b",
                        [Address(40), smem_descriptor(0, 2048, 128, 0)], 0, 1)
    op.perform([cta])
    want = rows.view(np.uint32)                                  # little-endian words
    np.testing.assert_array_equal(cta.tmem[:, 40:48], want)
    assert op.footprint.tmem_writes[0][:, 40:48].all()
    assert op.footprint.tmem_writes[0].sum() == 128 * 8


def test_cp_32x128b_warpx4_lands_in_every_lane_quarter():
    cta = CtaMemory(0, np.zeros(4096, np.uint8))
    rows = RNG.integers(0, 256, (32, 16)).astype(np.uint8)
    place_k_major(cta.smem, 0, rows, lbo=512, sbo=128)
    op = tc.issue_async("tcgen05.cp.cta_group::1.32x128b.warpx4",
                        [Address(0), smem_descriptor(0, 512, 128, 0)], 0, 1)
    op.perform([cta])
    for quarter in range(4):                                     # 9.7.16.9.2: all 4 warps
        np.testing.assert_array_equal(cta.tmem[32 * quarter:32 * quarter + 32, :4],
                                      rows.view(np.uint32))
