"""The tensor core's descriptors and operands (PTX ISA 9.7.16, for ``tensor_core``):
the shared-memory descriptor of Table 40 and the byte addresses of a K-major or MN-major
operand it describes (the canonical layouts of 9.7.16.3.3, the swizzles of 9.7.16.10.6),
the instruction descriptor of Tables 41 and 42, and the element types' decoding.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from types import MappingProxyType

import ml_dtypes
import numpy as np

from tcgen05_lower.sim.state import SimError


# -- Table 40: the shared-memory descriptor ---------------------------------------------------

#: Table 40, bits 61-63: swizzling mode. 3, 5 and 7 are invalid.
SWIZZLE_MODES = MappingProxyType({0: "none", 1: "128B_base32B", 2: "128B", 4: "64B", 6: "32B"})
#: 9.7.16.3.3: the swizzle atom's row width in bytes (the n*T stride of 8 rows).
SWIZZLE_ROW_BYTES = MappingProxyType({"none": 16, "32B": 32, "64B": 64, "128B": 128})


@dataclass(frozen=True)
class SmemDescriptor:
    """A decoded shared-memory descriptor (Table 40). Addresses and offsets in bytes."""

    start: int
    leading_offset: int
    stride_offset: int
    base_offset: int
    leading_absolute: bool
    swizzle: str


def _field(value: int, low: int, width: int) -> int:
    return (value >> low) & ((1 << width) - 1)


def decode_smem_descriptor(desc: int) -> SmemDescriptor:
    """Table 40; matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4, so each 14-bit field
    is a byte value divided by 16."""
    if _field(desc, 46, 3) != 0b001:
        raise SimError(f"shared-memory descriptor {desc:#018x}: bits 46-48 must be the "
                       f"fixed constant 0b001, got {_field(desc, 46, 3):#05b} (Table 40)")
    if _field(desc, 53, 8) != 0:
        raise SimError(f"shared-memory descriptor {desc:#018x}: bits 53-60 must be 0 "
                       f"(Table 40)")
    mode = _field(desc, 61, 3)
    if mode not in SWIZZLE_MODES:
        raise SimError(f"shared-memory descriptor {desc:#018x}: swizzling mode {mode} is "
                       f"invalid (Table 40: values 3, 5 and 7 are invalid)")
    return SmemDescriptor(start=_field(desc, 0, 14) << 4,
                          leading_offset=_field(desc, 16, 14) << 4,
                          stride_offset=_field(desc, 32, 14) << 4,
                          base_offset=_field(desc, 49, 3),
                          leading_absolute=bool(_field(desc, 52, 1)),
                          swizzle=SWIZZLE_MODES[mode])


def _check_base_offset(desc: SmemDescriptor) -> None:
    """The matrix base offset (Table 40, bits 49-51) places a swizzling mode's repeating
    pattern when it does not start where Table 41 says; without swizzling there is no
    repeating pattern, so the field has nothing to place and the addresses do not depend
    on it (Triton sets it to (start >> 7) & 7 for the unswizzled scale-factor tiles its
    tcgen05.cp reads). A swizzled operand with a non-zero base offset is not modelled."""
    if desc.base_offset and desc.swizzle != "none":
        raise SimError(f"a matrix base offset of {desc.base_offset} (Table 40) with "
                       f"{desc.swizzle} swizzling is not modelled yet: the simulator needs "
                       "the pattern aligned (Table 41)")


def k_major_addresses(desc: SmemDescriptor, rows: int, k_bytes: int) -> np.ndarray:
    """Shared-memory byte address of every (row, byte of K) of a K-major operand: the
    canonical K-major layouts of 9.7.16.3.3, ((8,m),(T,2k)):((nT,SBO),(1,LBO)) without
    swizzle (n = 1) and ((8,m),(T,2k)):((nT,SBO),(1,T)) with a 32/64/128-byte swizzle
    (n = 2/4/8), in bytes: row r sits at (r mod 8) * 16n + (r div 8) * SBO; byte b of K
    in 16-byte unit b div 16 at LBO (no swizzle) or 16 bytes (swizzled) apart. The
    swizzle then XORs the 16-byte unit index (address bits 4..) with the 128-byte row
    index (address bits 7..): Swizzle<1|2|3, 4, 3> (9.7.16.10.6)."""
    if desc.swizzle == "128B_base32B":
        raise SimError("128-byte swizzle with 32-byte atomicity is not modelled yet")
    _check_base_offset(desc)
    if desc.leading_absolute:
        raise SimError("the absolute leading-dimension address mode is not modelled yet")
    row_bytes = SWIZZLE_ROW_BYTES[desc.swizzle]
    r = np.arange(rows).reshape(rows, 1)
    b = np.arange(k_bytes).reshape(1, k_bytes)
    unit_stride = desc.leading_offset if desc.swizzle == "none" else 16
    offset = (r % 8) * row_bytes + (r // 8) * desc.stride_offset \
        + (b // 16) * unit_stride + b % 16
    address = desc.start + offset
    if desc.swizzle != "none":
        address = swizzled_address(address, row_bytes)
    return address


def mn_major_addresses(desc: SmemDescriptor, rows: int, k: int, element_bytes: int) -> np.ndarray:
    """Shared-memory byte address of every (row of M or N, byte of K) of an MN-major
    (transposed, idesc bit 15 / 16) operand, in the [rows, k * element_bytes] arrangement
    of ``k_major_addresses`` (column kk * element_bytes + i is byte i of element kk).

    The canonical MN-major layouts of 9.7.16.3.3, with T elements = 16 bytes:
    ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)) without swizzle: MN runs contiguously in 16-byte
    units SBO apart, each of the 8 K rows of a core matrix 16 bytes on, 8-row groups of K
    LBO apart; ((T,n,m),(8,k)):((1,T,LBO),(nT,SBO)) with a 32/64/128-byte swizzle
    (n = 2/4/8): MN runs contiguously along a 16n-byte swizzle row, the next 16n bytes of
    MN LBO on, each of the 8 K rows 16n bytes on, 8-row groups of K SBO apart (the strides
    as 9.7.16.3.1 and 9.7.16.3.2 define them for MN-major). The swizzle is the K-major one,
    Swizzle<1|2|3, 4, 3> on the byte address (9.7.16.10.6)."""
    if desc.swizzle == "128B_base32B":
        raise SimError("MN-major operands with 128-byte swizzle and 32-byte atomicity are not "
                       "modelled yet: 9.7.16.3.3 gives no canonical layout for them")
    _check_base_offset(desc)
    if desc.leading_absolute:
        raise SimError("the absolute leading-dimension address mode is only for K-major "
                       "operands (9.7.16.3.1.2.1)")
    row_bytes = SWIZZLE_ROW_BYTES[desc.swizzle]
    mn = (np.arange(rows).reshape(rows, 1, 1) * element_bytes
          + np.arange(element_bytes).reshape(1, 1, element_bytes))
    kk = np.arange(k).reshape(1, k, 1)
    if desc.swizzle == "none":
        offset = mn % 16 + (mn // 16) * desc.stride_offset + (kk % 8) * 16 \
            + (kk // 8) * desc.leading_offset
    else:
        offset = mn % row_bytes + (mn // row_bytes) * desc.leading_offset \
            + (kk % 8) * row_bytes + (kk // 8) * desc.stride_offset
    address = (desc.start + offset).reshape(rows, k * element_bytes)
    if desc.swizzle != "none":
        address = swizzled_address(address, row_bytes)
    return address


def swizzled_address(address, row_bytes: int):
    """Where the byte at unswizzled shared-memory `address` lives under the 32/64/128-byte
    swizzle (`row_bytes`): its 16-byte unit index (address bits 4..) XORed with the
    128-byte row index (address bits 7..), Swizzle<1|2|3, 4, 3> (9.7.16.10.6). The TMA
    unit writes the same pattern (tensor swizzling modes), sim/tma.py."""
    mask = row_bytes // 16 - 1
    return address ^ (((address >> 7) & mask) << 4)


def pattern_phase(desc: SmemDescriptor) -> int | None:
    """Where the start address of ``desc`` falls in its swizzling mode's repeating pattern
    (start mod 1024, 512, 256 bytes for 128B, 64B, 32B swizzling: the boundaries of Table
    41; 0 without swizzling), when its operand addresses (``operand_addresses``) are those
    of the same descriptor started at that phase, shifted by the rest of the start (a
    multiple of the pattern's size); None for a form that is not such a shift here (a
    base offset, the absolute leading-dimension mode, 128B swizzling with 32B atomicity),
    which ``operand_addresses`` computes alone.

    Why: without swizzling an address is start + offset. A swizzle XORs address bits
    4-6 with bits 7.. under the mask m = row bytes / 16 - 1 (``swizzled_address``); with
    start = P + s, P a multiple of 8 swizzle rows (128 (m + 1) bytes, at least 256), bits
    0-7 of P + (s + offset) are those of s + offset and bits 7.. of P add a multiple of
    m + 1 to the row index, so the XOR sees s + offset alone: the address is P plus that
    of s + offset."""
    if desc.base_offset or desc.leading_absolute or desc.swizzle not in SWIZZLE_ROW_BYTES:
        return None
    if desc.swizzle == "none":
        return 0
    return desc.start % (8 * SWIZZLE_ROW_BYTES[desc.swizzle])


def operand_addresses(desc: SmemDescriptor, rows: int, k: int, element: str,
                      mn_major: bool) -> np.ndarray:
    """[rows, k * element bytes] addresses of an A or B operand in shared memory: K-major,
    or MN-major when its transpose bit is set (9.7.16.10.6). Table 52: MN-major 8- and
    16-bit operands take every swizzle but 128B with 32B atomicity, 32-bit (tf32) ones only
    that one (not modelled, see ``mn_major_addresses``)."""
    size = ELEMENT_BYTES[element]
    if not mn_major:
        return k_major_addresses(desc, rows, k * size)
    if (size == 4) != (desc.swizzle == "128B_base32B"):
        raise SimError(f"an MN-major (transposed) {8 * size}-bit operand with swizzle "
                       f"{desc.swizzle}: Table 52 allows 128B swizzling with 32B atomicity "
                       f"{'only' if size == 4 else 'never'} for {8 * size}-bit types")
    return mn_major_addresses(desc, rows, k, size)


# -- Table 42: the instruction descriptor (.kind::tf32, f16, f8f6f4, i8) ---------------------

@dataclass(frozen=True)
class InstrDescriptor:
    kind: str
    m: int
    n: int
    d_type: str
    a_type: str
    b_type: str
    negate_a: bool
    negate_b: bool
    transpose_a: bool
    transpose_b: bool
    saturate: bool
    sparse: bool


_D_TYPES = MappingProxyType({kind: MappingProxyType(codes) for kind, codes in {
    "tf32": {1: "f32"}, "f16": {0: "f16", 1: "f32"}, "f8f6f4": {0: "f16", 1: "f32"},
    "i8": {2: "s32"}}.items()})
_AB_TYPES = MappingProxyType({kind: MappingProxyType(codes) for kind, codes in {
    "tf32": {2: "tf32"}, "f16": {0: "f16", 1: "bf16"},
    "f8f6f4": {0: "e4m3", 1: "e5m2", 3: "e2m3", 4: "e3m2", 5: "e2m1"},
    "i8": {0: "u8", 1: "s8"}}.items()})


def decode_instr_descriptor(idesc: int, kind: str) -> InstrDescriptor:
    """Table 42 (tf32, f16, f8f6f4, i8); the block-scaled kinds (Tables 43, 44) are
    decoded by block_scale.decode_instr_descriptor."""
    from tcgen05_lower.sim import block_scale
    if kind in block_scale.BLOCK_SCALED_KINDS:
        return block_scale.decode_instr_descriptor(idesc, kind)
    if kind not in _D_TYPES:
        raise SimError(f".kind::{kind} is not modelled yet")

    def pick(table, code, what):
        if code not in table:
            raise SimError(f"instruction descriptor {idesc:#010x}: {what} code {code} is not "
                           f"valid for .kind::{kind} (Table 42)")
        return table[code]

    for bit in (6, 23, 29):
        if _field(idesc, bit, 1):
            raise SimError(f"instruction descriptor {idesc:#010x}: reserved bit {bit} is set "
                           "(Table 42)")
    return InstrDescriptor(
        kind=kind, m=_field(idesc, 24, 5) << 4, n=_field(idesc, 17, 6) << 3,
        d_type=pick(_D_TYPES[kind], _field(idesc, 4, 2), "dtype"),
        a_type=pick(_AB_TYPES[kind], _field(idesc, 7, 3), "atype"),
        b_type=pick(_AB_TYPES[kind], _field(idesc, 10, 3), "btype"),
        negate_a=bool(_field(idesc, 13, 1)), negate_b=bool(_field(idesc, 14, 1)),
        transpose_a=bool(_field(idesc, 15, 1)), transpose_b=bool(_field(idesc, 16, 1)),
        saturate=bool(_field(idesc, 3, 1)), sparse=bool(_field(idesc, 2, 1)))


#: Bytes of one element in shared memory, and K of one dense MMA (9.7.16.2.1, Table 39:
#: K is 32 bytes of A for every dense kind here). The 4- and 6-bit types of f8f6f4 take
#: one byte each on average: 16 packed elements and their padding per 16 bytes
#: (9.7.16.10.4.4, block_scale.decode_padded).
ELEMENT_BYTES = MappingProxyType({"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "u8": 1,
                                  "s8": 1, "e2m3": 1, "e3m2": 1, "e2m1": 1})
DENSE_K = MappingProxyType({"f16": 16, "tf32": 8, "f8f6f4": 32, "i8": 32})


def decode_elements(raw: np.ndarray, element: str) -> np.ndarray:
    """Element values (float64, or int64 for 8-bit integers) of the little-endian bytes
    ``raw[rows, bytes]``: ``[rows, bytes / element size]``; 4- and 6-bit types in the
    shared-memory format of .kind::f8f6f4 (9.7.16.10.4.4, block_scale.decode_padded).
    A float type's bytes are viewed as its elements where ``_viewable`` allows (the same
    bits, so the same values as the general ``_decode_words``)."""
    if element in ("e2m3", "e3m2", "e2m1"):
        from tcgen05_lower.sim import block_scale
        return block_scale.decode_padded(raw, element)
    size = ELEMENT_BYTES[element]
    if element in _FLOAT_DTYPES and _viewable(raw, size):
        return raw.view(_FLOAT_DTYPES[element]).astype(np.float64)
    return _decode_words(raw, element, size)


def _decode_words(raw: np.ndarray, element: str, size: int) -> np.ndarray:
    """``decode_elements`` of a 1-, 2- or 4-byte type from the little-endian words of
    ``raw`` (the general code, for any byte matrix)."""
    words = _little_endian_words(raw, size)
    if element == "u8":
        return words.astype(np.int64)
    if element == "s8":
        return words.astype(np.uint8).view(np.int8).astype(np.int64)
    if element == "tf32":
        # The MMA reads the sign, 8 exponent and 10 mantissa bits (the top 19 bits).
        bits = (words.astype(np.uint32) & np.uint32(0xFFFFE000))
        return bits.view(np.float32).astype(np.float64)
    unsigned = {2: np.uint16, 1: np.uint8}[size]
    return words.astype(unsigned).view(_FLOAT_DTYPES[element]).astype(np.float64)


#: The NumPy types of the 8- and 16-bit float elements (native byte order, as NumPy's
#: and ml_dtypes' types are).
_FLOAT_DTYPES = MappingProxyType({"f16": np.dtype(np.float16),
                                  "bf16": np.dtype(ml_dtypes.bfloat16),
                                  "e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
                                  "e5m2": np.dtype(ml_dtypes.float8_e5m2)})


def _viewable(raw: np.ndarray, size: int) -> bool:
    """Whether ``raw[rows, bytes]`` can be viewed directly as elements of ``size`` bytes
    that read as its little-endian words (``decode_elements``' fast path): a C-contiguous
    uint8 matrix of whole elements on a little-endian host, so that the view's element
    j of row i is bytes [size j, size (j + 1)) of row i with the first the least
    significant, the word ``_little_endian_words`` assembles (without its two copies).
    Anything else (another layout, dtype or host byte order) takes the general code."""
    return sys.byteorder == "little" and raw.dtype == np.uint8 and raw.ndim == 2 \
        and raw.flags.c_contiguous and raw.shape[1] % size == 0


def _little_endian_words(raw: np.ndarray, size: int) -> np.ndarray:
    """The unsigned integers of every ``size`` little-endian bytes of ``raw[rows, bytes]``:
    ``[rows, bytes / size]``. A C-contiguous uint8 matrix is viewed as little-endian words
    of that size (the same values, without assembling them byte by byte); anything else
    is assembled byte by byte."""
    if raw.dtype == np.uint8 and raw.ndim == 2 and raw.flags.c_contiguous \
            and raw.shape[1] % size == 0:
        return raw.view(np.dtype(f"<u{size}")).astype(np.dtype(f"=u{size}"))
    raw = raw.reshape(raw.shape[0], -1, size)
    words = np.zeros(raw.shape[:-1], np.uint64)
    for i in range(size):
        words |= raw[..., i].astype(np.uint64) << np.uint64(8 * i)
    return words
