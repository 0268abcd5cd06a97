"""The descriptors that the first example's MMAs really use, checked against values
derived by hand from PTX ISA Tables 40 and 42.

The values are read from the LLVM IR the compiler emits (the operands of the inline
tcgen05.mma), so this checks the whole path from the IR's types to the instruction.
"""

import re

from tcgen05_lower.driver import compile_source
from tcgen05_lower.isa import descriptors

from conftest import EXAMPLES

# Instruction descriptor, Table 42, column .kind::f16, for D f32, A/B bf16, M=128, N=256,
# K-major A and B (no transpose), dense, no negation, no shift:
#   bits 0-1 sparsity selector      0
#   bit  2   sparsity (dense)       0
#   bit  3   saturate               0
#   bits 4-5 dtype F32 = 1          1 << 4           = 0x00000010
#   bits 7-9 atype BF16 = 1         1 << 7           = 0x00000080
#   bits 10-12 btype BF16 = 1       1 << 10          = 0x00000400
#   bits 13/14 negate A/B           0
#   bits 15/16 transpose A/B        0 (K-major)
#   bits 17-22 N >> 3 = 32          32 << 17         = 0x00400000
#   bits 24-28 M >> 4 = 8           8 << 24          = 0x08000000
#   bits 30-31 max shift            0
IDESC_BY_HAND = 0x10 + 0x80 + 0x400 + 0x00400000 + 0x08000000  # = 0x08400490

# Shared-memory descriptor, Table 40, for a K-major bf16 tile with 128-byte swizzle:
# each row of the tile is 64 bf16 = 128 bytes, one swizzle atom wide, so
#   LBO: unused for swizzled K-major, "assumed 1" (9.7.16.3.1): 16 bytes, encoded 1
#        bits 16-29: 1 << 16                       = 0x0000000000010000
#   SBO: 8 rows x 128 bytes = 1024 bytes between 8-row groups (9.7.16.3.2), encoded
#        1024 >> 4 = 64 in bits 32-45: 64 << 32    = 0x0000004000000000
#   bits 46-48 fixed 0b001: 1 << 46                = 0x0000400000000000
#   bits 49-51 base offset 0 (tiles are 1024-byte aligned, Table 41)
#   bit 52 relative LBO mode 0
#   bits 61-63 swizzle 128B = 2: 2 << 61           = 0x4000000000000000
# The start address (bits 0-13) is ORed in at run time.
SMEM_DESC_CONSTANT_BY_HAND = 0x10000 + (64 << 32) + (1 << 46) + (2 << 61)


def test_hand_values_agree_with_the_encoders():
    assert IDESC_BY_HAND == 0x08400490
    assert descriptors.encode_instr_desc(kind="f16", a_type="bf16", b_type="bf16",
                                         d_type="f32", m=128, n=256) == IDESC_BY_HAND
    assert descriptors.encode_smem_desc(start_address=0, lbo=16, sbo=1024,
                                        swizzle="128B") == SMEM_DESC_CONSTANT_BY_HAND


def compiled_llvm_ir() -> str:
    text = (EXAMPLES / "gemm_bf16_128x256.mlir").read_text()
    return compile_source(text, "gemm_bf16_128x256.mlir", emit="llvm").llvm_ir


def test_mma_operands_carry_the_hand_derived_descriptors():
    llvm_ir = compiled_llvm_ir()
    mma_calls = [line for line in llvm_ir.splitlines() if "tcgen05.mma.cta_group::1" in line]
    assert len(mma_calls) == 4
    for call in mma_calls:
        # Operands: d-tmem (i32), a-desc (i64), b-desc (i64), idesc (i32), enable-input-d.
        operands = re.search(r'"\((.*)\)$', call).group(1)
        assert f"i32 {IDESC_BY_HAND}" in operands, call
    # Both tiles' descriptors: encode(tile base) widened and ORed with the constant high
    # word (bits 32-63 of the constant part), once per tile; the low constant (LBO) and
    # the K block then added in 64 bits (no carry: the sum stays below 2^30): 2 ORs, one
    # per tile, feeding 4 MMAs x (A, B) adds.
    high_word = SMEM_DESC_CONSTANT_BY_HAND & ~0xFFFFFFFF
    ors = re.findall(r"(%\w+) = or i64 %\w+, (\d+)", llvm_ir)
    assert [word for _, word in ors].count(str(high_word)) == 2
    adds = [re.findall(rf"= add i64 {name}, (\d+)$", llvm_ir, re.M) for name, _ in ors]
    assert sum(len(a) for a in adds) == 8


def test_k_blocks_advance_the_start_address_by_32_bytes():
    """K = 16 bf16 = 32 bytes per MMA inside one 128-byte swizzle atom: the descriptor
    start addresses of the four MMAs are the tile base + 0, 32, 64, 96 bytes, i.e. the
    encoded start field (bytes >> 4, Table 40) + 0, 2, 4, 6, added to the tile's
    encoded base (widened, ORed with the high word) together with the LBO field
    (encoded 1 at bit 16: 65536)."""
    llvm_ir = compiled_llvm_ir()
    # The two tiles' encoded bases: A at the dynamic array's start, B 16384 bytes after
    # it (A is 128 x 64 bf16 = 16384 bytes, tiles 1024-byte aligned).
    bases = re.findall(r"(%\d+) = lshr i32 ptrtoint \(ptr addrspace\(3\) (.*) to i32\), 4$",
                       llvm_ir, re.M)
    assert [where for _, where in bases] == [
        "@__tcgen05_dynamic_smem",
        "getelementptr (i8, ptr addrspace(3) @__tcgen05_dynamic_smem, i64 16384)"]
    high_word = SMEM_DESC_CONSTANT_BY_HAND & ~0xFFFFFFFF
    for base, _ in bases:
        (wide,) = re.findall(rf"(%\d+) = zext i32 {base} to i64$", llvm_ir, re.M)
        (ored,) = re.findall(rf"(%\d+) = or i64 {wide}, {high_word}$", llvm_ir, re.M)
        added = re.findall(rf"= add i64 {ored}, (\d+)$", llvm_ir, re.M)
        assert added == [str(65536 + k_bytes // 16) for k_bytes in (0, 32, 64, 96)]
