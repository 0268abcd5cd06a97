"""The tensor core of the simulated SM: what tcgen05.mma, tcgen05.ld and tcgen05.st do to
shared and tensor memory, read from the PTX ISA text (section 9.7.16) alone.

Nothing here comes from the compiler's models (``tcgen05_lower.isa``): descriptors are
decoded from Tables 40 and 42, shared-memory operands are read through the canonical
layouts of 9.7.16.3.3 and the swizzles of 9.7.16.10.6, the data-path layouts of
9.7.16.10.5 place D in tensor memory, and the ld/st fragments follow the figures of
9.7.16.2.3.1 as transcribed in ``spec/tmem-facts.md`` section 2.

What is modelled
----------------
- tcgen05.mma, dense, without block scaling: ``.kind::f16`` (f16 / bf16 inputs, f32 or f16
  D), ``.kind::tf32`` (inputs truncated to tf32), ``.kind::f8f6f4`` with E4M3 / E5M2 / E2M3 /
  E3M2 / E2M1 inputs (the 4- and 6-bit ones in shared memory only, 16 packed elements and
  their padding per 16 bytes, 9.7.16.10.4.4), ``.kind::i8`` (s32 D, wrapping or saturating
  per idesc bit 3); A in shared memory or in tensor memory; cta_group::1 with Layouts D
  (M = 128), F (M = 64), and .ws Layouts E (M = 64) and G (M = 32); cta_group::2 with
  Layouts A (M = 256) and B (M = 128); enable-input-d, scale-input-d, disable-output-lane,
  negate A / B.
- Shared-memory operands A and B K-major or MN-major (idesc bits 15 / 16, the canonical
  layouts of 9.7.16.3.3 and swizzles of 9.7.16.10.6: ``k_major_addresses``,
  ``mn_major_addresses``), every swizzle mode but 128B with 32B atomicity (so no MN-major
  tf32, which Table 52 allows only with that mode).
- tcgen05.mma.sp (``sparse.py``): ``.kind::f16``, ``.kind::tf32``, ``.kind::f8f6f4``
  (E4M3 / E5M2) and ``.kind::i8`` with the metadata in tensor memory (tmem-facts section
  3) and the sparsity selector of idesc bits 0-1; cta_group::1 with Layouts D (M = 128)
  and F (M = 64), cta_group::2 with Layouts A (M = 256) and C (M = 128, read as the PTX
  text describes it, like F; CUTLASS's Layout-B reading is a SimError).
- tcgen05.mma with block scaling (``block_scale.py``, 9.7.16.10.7): ``.kind::mxf8f6f4``
  (every f8f6f4 element type, UE8M0, scale_vec::1X / .block32), ``.kind::mxf4`` (packed
  E2M1, UE8M0, 2X / .block32), ``.kind::mxf4nvf4`` (packed E2M1, UE8M0 with 2X / 4X, UE4M3
  with 4X / .block16); instruction descriptors of Tables 43 and 44, scale factors in
  tensor memory as tmem-facts section 3 places them, selected by the scale-factor IDs;
  K = 32 / 64, A in shared or tensor memory, Layouts D, A and B, negate A / B.
- collector buffers (datamove.py): .collector::a::* without .ws, ::b0-::b3::* with .ws;
  per CTA what each buffer holds; ::use / ::lastuse without a valid ::fill is an error,
  and so is one whose buffer and memory hold different matrices (reuse is opportunistic).
- .ws zero-column-mask-desc (Table 45, spans as its examples give them): zeroed columns
  of B and the column shift. A maximum B-reuse shift (Table 42 bits 30-31) with a collector
  fill / use is not modelled.
- tcgen05.cp: .128x256b, .128x128b, .4x256b (one row per lane quarter, datamove.py),
  .64x128b.warpx2::*, .32x128b.warpx4, with cta_group::1 / ::2, and decompression
  .b8x16.b6x16_p32 / .b8x16.b4x16_p64 (element placement in the 8-bit container: an
  assumption, see datamove.DECOMPRESSED_BIT_OFFSET).
- tcgen05.shift.down, cta_group::1 / ::2 (datamove.py).
- tcgen05.ld / tcgen05.st: every shape, every .num, .pack::16b / .unpack::16b, and the
  access restriction of 9.7.16.8.1; tcgen05.ld.red (.min / .max of each thread's loaded
  values; .abs, .NaN; .f32, .u32, .s32).

Everything else (.ws.sp, sparse block-scaled kinds, K = 96, 4- and 6-bit A in tensor
memory for f8f6f4 / mxf8f6f4, .ashift, the 128B swizzle with 32B atomicity, whose address
pattern the ISA gives only in Figure 219) raises SimError saying it is not modelled yet:
the simulator never guesses.

Numerics
--------
Products and their sum over K are formed exactly in float64 (bf16/f16/tf32/fp8 products
and sums of up to 256 of them are exact or within 2^-40 relative), then added to D (scaled
by 2^-scale-input-d) and rounded once to D's type. Hardware may round partial sums
differently; a GEMM's result therefore agrees with NumPy's float64 reference to f32
rounding per MMA, which is the tolerance the tests use (|err| <= K * 2^-24 * (|A| @ |B|)).
Block scaling multiplies each element by its chunk's scale factor before the product; a
scaled element (at most 8 significant bits: element x UE8M0 power of two, or x UE4M3) and
the product of two (at most 16 bits) are exact in float64, so block-scaled MMAs are
modelled with the same single f32 rounding per MMA; the tests bound the error of mxf8f6f4,
mxf4 and mxf4nvf4 by (MMAs accumulated) * 2^-24 * (|A * scale_A| @ |B * scale_B|), and that
of f8f6f4 with 4- and 6-bit inputs as of e4m3 (f32 D: 2^-24, f16 D: 2^-11 per MMA).
"""

from __future__ import annotations

import functools

from dataclasses import dataclass
from types import MappingProxyType

import ml_dtypes
import numpy as np

from tcgen05_lower.sim import datamove, sparse
from tcgen05_lower.sim.state import (TMEM_COLUMNS, TMEM_LANES, Address, CtaMemory, Footprint,
                                     SimError, unique_addresses)

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
    if desc.base_offset:
        raise SimError(f"a matrix base offset of {desc.base_offset} (Table 40) is not "
                       "modelled yet: the simulator needs the pattern aligned (Table 41)")
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
    if desc.base_offset:
        raise SimError(f"a matrix base offset of {desc.base_offset} (Table 40) is not "
                       "modelled yet: the simulator needs the pattern aligned (Table 41)")
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
    shared-memory format of .kind::f8f6f4 (9.7.16.10.4.4, block_scale.decode_padded)."""
    if element in ("e2m3", "e3m2", "e2m1"):
        from tcgen05_lower.sim import block_scale
        return block_scale.decode_padded(raw, element)
    size = ELEMENT_BYTES[element]
    raw = raw.reshape(raw.shape[0], -1, size)
    words = np.zeros(raw.shape[:-1], np.uint64)
    for i in range(size):
        words |= raw[..., i].astype(np.uint64) << np.uint64(8 * i)
    if element == "u8":
        return words.astype(np.int64)
    if element == "s8":
        return words.astype(np.uint8).view(np.int8).astype(np.int64)
    if element == "tf32":
        # The MMA reads the sign, 8 exponent and 10 mantissa bits (the top 19 bits).
        bits = (words.astype(np.uint32) & np.uint32(0xFFFFE000))
        return bits.view(np.float32).astype(np.float64)
    dtype = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "e4m3": ml_dtypes.float8_e4m3fn,
             "e5m2": ml_dtypes.float8_e5m2}[element]
    unsigned = {2: np.uint16, 1: np.uint8}[size]
    return words.astype(unsigned).view(dtype).astype(np.float64)


# -- Data-path layouts (9.7.16.10.5, tmem-facts section 1) ------------------------------------

def d_cells(m: int, n: int, cta_group: int, ws: bool, taddr: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(lanes[rows, N], columns[rows, N], rows) of the D rows one CTA holds, for the
    data-path layout the MMA's shape selects (9.7.16.10.5). Row i of the result is the
    CTA's i-th row of D (for a CTA pair: row i + rows * (rank & 1) of the pair's D)."""
    lane0, col0 = taddr >> 16, taddr & 0xFFFF
    c = np.arange(n).reshape(1, n)
    if cta_group == 1 and m == 128:           # Layout D (also .ws with M = 128)
        rows, lane, col = 128, np.arange(128).reshape(128, 1) + lane0 + 0 * c, col0 + c
    elif cta_group == 1 and m == 64 and not ws:   # Layout F: 16 lanes of each quarter
        if lane0 not in (0, 16):
            raise SimError(f"Layout F (M = 64): d-tmem lane {lane0} must be 0 or 16 "
                           "(9.7.16.10.5.6)")
        r = np.arange(64).reshape(64, 1)
        rows, lane, col = 64, 32 * (r // 16) + r % 16 + lane0 + 0 * c, col0 + c
    elif cta_group == 1 and m == 64 and ws:       # Layout E: two column halves
        half = n // 2
        r = np.arange(64).reshape(64, 1)
        rows, lane, col = 64, r + 64 * (c // half) + lane0, col0 + c % half
    elif cta_group == 1 and m == 32 and ws:       # Layout G: four column quarters
        quarter = n // 4
        r = np.arange(32).reshape(32, 1)
        rows, lane, col = 32, r + 32 * (c // quarter) + lane0, col0 + c % quarter
    elif cta_group == 2 and m == 256:            # Layout A: 128 rows per CTA
        rows, lane, col = 128, np.arange(128).reshape(128, 1) + lane0 + 0 * c, col0 + c
    elif cta_group == 2 and m == 128:            # Layout B (dense): 64 rows per CTA
        half = n // 2
        r = np.arange(64).reshape(64, 1)
        rows, lane, col = 64, r + 64 * (c // half) + lane0, col0 + c % half
    else:
        raise SimError(f"no data-path layout for M = {m}, cta_group::{cta_group}"
                       f"{', .ws' if ws else ''} (9.7.16.10.5)")
    lane = np.broadcast_to(lane, (rows, n))
    col = np.broadcast_to(col, (rows, n))
    if lane.max() >= TMEM_LANES or col.max() >= TMEM_COLUMNS:
        raise SimError(f"D of M = {m}, N = {n} at TMEM address {taddr:#x} runs past tensor "
                       f"memory (128 lanes x 512 columns)")
    return lane, col, rows


def _mask(lanes: np.ndarray, cols: np.ndarray) -> np.ndarray:
    mask = np.zeros((TMEM_LANES, TMEM_COLUMNS), bool)
    mask[lanes, cols] = True
    return mask


# -- tcgen05.mma ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)   # the library is looked up once per process
def _openblas_local_threads():
    """OpenBLAS's ``openblas_set_num_threads_local`` (0.3.27 and later: sets the calling
    thread's BLAS thread count, returns the previous one) from the OpenBLAS NumPy ships
    with, or None when NumPy links another BLAS."""
    import ctypes
    import glob
    import os

    here = os.path.dirname(np.__file__)
    for path in sorted(glob.glob(os.path.join(here, os.pardir, "numpy.libs", "*openblas*")) +
                       glob.glob(os.path.join(here, ".dylibs", "*openblas*"))):
        try:
            function = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
        return function
    return None


class one_blas_thread:
    """Runs the products of one MMA (a few hundred thousand multiply-adds) on one BLAS
    thread: a threaded BLAS splits a product that small across threads that then wait for
    each other, tens of milliseconds per MMA when the cores are busy. The numbers are the
    same (each element of the product is computed by one thread either way)."""

    def __enter__(self):
        set_threads = _openblas_local_threads()
        self.previous = set_threads(1) if set_threads else None

    def __exit__(self, *exc):
        if self.previous is not None:
            _openblas_local_threads()(self.previous)


@dataclass
class Operation:
    """One issued tcgen05.mma, cp, ld or st (the TensorOp protocol of state.py)."""

    kind: str
    footprint: Footprint
    accumulator: tuple
    _perform: object

    def perform(self, ctas: list[CtaMemory]) -> None:
        self._perform(ctas)


def _qualifiers(opcode: str) -> list[str]:
    return opcode.split(".")[1:]


def issue_async(opcode: str, operands: list, rank: int, cluster_size: int,
                cache: dict | None = None):
    """Builds the operation of one tcgen05.mma / cp / shift issued by a thread of CTA
    ``rank`` (the TensorOp protocol of state.py); ``cache``: the run's built MMAs
    (CACHES_MMAS), or None to build every one."""
    parts = _qualifiers(opcode)
    if parts[0] == "cp":
        return _build_cp(parts, operands, rank, cluster_size)
    if parts[0] == "shift":
        footprint, perform = datamove.shift(parts, operands, rank, cluster_size)
        return Operation("shift", footprint, None, perform)
    if parts[0] != "mma":
        raise SimError(f"tcgen05.{parts[0]} is not modelled yet")
    unsupported = [p for p in parts if p == "ashift"]
    if unsupported:
        raise SimError(f"tcgen05.mma with .{unsupported[0]} is not modelled yet")
    kind = next(p for p in parts if p.startswith("kind::")).split("::")[1]
    cta_group = int(next(p for p in parts if p.startswith("cta_group::"))[-1])
    ws = "ws" in parts
    if cta_group == 2 and rank & 1:
        raise SimError("a cta_group::2 MMA must be issued by the even CTA of the pair "
                       "(9.7.16.5.1)")
    from tcgen05_lower.sim import block_scale    # block scaling: 9.7.16.10.7
    scaling = [p for p in parts if p in ("block_scale", "block16", "block32")
               or p.startswith("scale_vec::")]
    if kind in block_scale.BLOCK_SCALED_KINDS:
        return _build_scaled_mma(parts, kind, cta_group, operands, rank, cluster_size)
    if scaling:
        raise SimError(f".{scaling[0]} is not valid with .kind::{kind} (9.7.16.10.9.1)")
    return _cached_mma(kind, cta_group, ws, operands, rank, cluster_size,
                       datamove.collector_usage(parts, ws), "sp" in parts, cache)


#: issue_async takes a ``cache`` (a dict the machine owns, one per run): built MMAs by
#: their qualifiers and operand values. A kernel issues the same few MMAs (descriptors,
#: TMEM address, instruction descriptor) again and again, and building one (its cells,
#: its operands' byte addresses) costs far more than performing it. What is built is a
#: pure function of the key; the operation's effect reads the machine's state when it is
#: performed. Cleared when it holds _MMA_CACHE_SIZE entries. No cache lives here: a run
#: leaves nothing behind for the next (tests/test_process_hygiene.py).
CACHES_MMAS = True
_MMA_CACHE_SIZE = 128


def _cached_mma(kind, cta_group, ws, operands, rank, cluster_size,
                collector: datamove.CollectorUsage, is_sparse: bool,
                cache: dict | None) -> Operation:
    """_build_mma's operation, reusing the footprint and effect of an identical earlier
    issue (a fresh Operation each time, so no two issues share one record)."""
    if cache is None:
        return _build_mma(kind, cta_group, ws, operands, rank, cluster_size,
                          collector=collector, is_sparse=is_sparse)
    try:
        key = (kind, cta_group, ws, rank, cluster_size, collector, is_sparse,
               tuple((type(o), o) for o in operands))
        built = cache.get(key)
    except TypeError:   # an unhashable operand: build it every time
        key, built = None, None
    if built is None:
        built = _build_mma(kind, cta_group, ws, operands, rank, cluster_size,
                           collector=collector, is_sparse=is_sparse)
        if key is not None:
            if len(cache) >= _MMA_CACHE_SIZE:
                cache.clear()
            cache[key] = built
    return Operation(built.kind, built.footprint, built.accumulator, built._perform)


def _build_mma(kind, cta_group, ws, operands, rank, cluster_size,
               collector: datamove.CollectorUsage, is_sparse: bool = False) -> Operation:
    operands = list(operands)
    meta_taddr = operands.pop(3) if is_sparse else None   # [sp-meta-tmem] (9.7.16.10.9.2)
    d_taddr, a_operand, b_desc, idesc = operands[:4]
    rest = list(operands[4:])
    if not isinstance(d_taddr, Address):
        raise SimError("tcgen05.mma: the first operand must be [d-tmem]")
    disabled = rest.pop(0) if rest and isinstance(rest[0], tuple) else None
    if not rest or not isinstance(rest[0], bool):
        raise SimError("tcgen05.mma: enable-input-d (a predicate) is missing")
    enable_input_d = rest.pop(0)
    scale_input_d = 0
    if rest and not ws:
        scale_input_d = int(rest.pop(0))
        if not 0 <= scale_input_d <= 15:
            raise SimError(f"scale-input-d = {scale_input_d} is outside [0, 15] (9.7.16.10.9.1)")
    zero_mask = rest.pop(0) if rest and ws else None   # .ws: zero-column-mask-desc
    if rest:
        raise SimError(f"tcgen05.mma: {len(rest)} unexpected trailing operand(s)")
    info = decode_instr_descriptor(int(idesc), kind)
    if info.sparse != is_sparse:    # Table 42, bit 2: Dense = 0, Sparse = 1
        raise SimError(f"instruction descriptor {int(idesc):#010x}: the sparsity bit (bit 2) "
                       f"is {int(info.sparse)} for tcgen05.mma{'.sp' if is_sparse else ''} "
                       "(Table 42)")
    if zero_mask is not None:
        zero_mask = datamove.zero_column_mask(int(zero_mask), info.m, info.n)
    column_shift = zero_mask.shift if zero_mask is not None else 0
    if ws and int(idesc) >> 30 and collector.op != "discard":
        raise SimError("a .ws MMA with a maximum B-reuse shift (Table 42 bits 30-31) and "
                       f"{collector} is not modelled: the ISA does not say which B columns "
                       "the collector then holds")
    if is_sparse:                   # 9.7.16.10.8: A is M x K, stored as M x K/2
        sparse.check_form(kind, ws, cta_group, info.m)
        k = sparse.SPARSE_K[kind]
    else:
        k = DENSE_K[kind]
    a_k = k // 2 if is_sparse else k
    ranks = [rank, rank + 1] if cta_group == 2 else [rank]
    if cta_group == 2 and cluster_size < 2:
        raise SimError("a cta_group::2 MMA needs a cluster of two CTAs (9.7.16.5.1)")
    if is_sparse and cta_group == 2 and info.m == 128:
        lanes, cols, rows = sparse.layout_c_cells(info.n, int(d_taddr))
    else:
        lanes, cols, rows = d_cells(info.m, info.n, cta_group, ws, int(d_taddr))
    fp = Footprint()
    a_desc = b = None
    b_desc_d = decode_smem_descriptor(int(b_desc))
    b_rows = info.n // cta_group                    # each CTA of a pair holds N/2 rows of B
    if info.transpose_b and ELEMENT_BYTES[info.b_type] == 1 and (
            info.n % (16 * cta_group) or info.n < 16 * cta_group):
        raise SimError(f"N = {info.n} with an 8-bit transposed B: Table 50 allows "
                       f"{16 * cta_group} <= N <= 256 in steps of {16 * cta_group} for "
                       f"cta_group::{cta_group}")
    # Table 45's column shift: MMA column c reads B's column c + shift
    b_addresses = operand_addresses(b_desc_d, b_rows + column_shift, k, info.b_type,
                                    info.transpose_b)[column_shift:]
    a_in_tmem = isinstance(a_operand, Address)
    if a_in_tmem:
        if kind == "i8" or info.a_type not in ELEMENT_BYTES:
            raise SimError(f"A in tensor memory for .kind::{kind} is not modelled yet")
        if info.a_type in ("e2m3", "e3m2", "e2m1"):    # 9.7.16.10.4.3: figures only
            from tcgen05_lower.sim import block_scale
            raise block_scale.sub_byte_a_in_tmem(kind, info.a_type)
        if info.transpose_a:
            raise SimError("Transpose A with A in tensor memory: A in tensor memory is "
                           "row-major (Table 51)")
        if is_sparse:
            sparse.check_a_tmem_alignment(int(a_operand), int(d_taddr), cta_group, info.m)
        a_cells = _a_tmem_cells(lanes, rows, int(a_operand), a_k * ELEMENT_BYTES[info.a_type])
    else:
        a_desc = decode_smem_descriptor(int(a_operand))
        a_addresses = operand_addresses(a_desc, rows, a_k, info.a_type, info.transpose_a)
    meta = None if not is_sparse else sparse.Metadata(
        kind, int(idesc), int(meta_taddr), lanes[:, 0], int(d_taddr) >> 16,
        sparse.half_datapath(cta_group, info.m))
    d_mask = _mask(lanes, cols)
    if disabled is not None:
        lane_bits = np.array([(disabled[i // 32] >> (i % 32)) & 1 for i in range(32 * len(disabled))],
                             bool)
        if len(disabled) != 4 * cta_group:
            raise SimError(f"disable-output-lane has {len(disabled)} elements; cta_group::"
                           f"{cta_group} takes {4 * cta_group} (9.7.16.10.9.1)")
    for r in ranks:
        fp.tmem_writes[r] = d_mask
        reads = d_mask.copy() if enable_input_d else np.zeros_like(d_mask)
        if a_in_tmem:
            reads[a_cells[0], a_cells[1]] = True
        if meta is not None:
            reads[meta.cells()] = True
        if reads.any():
            fp.tmem_reads[r] = reads
        smem = [b_addresses.reshape(-1)]
        if not a_in_tmem:
            smem.append(a_addresses.reshape(-1))
        fp.smem_reads[r] = unique_addresses(np.concatenate(smem))

    def perform(ctas: list[CtaMemory]) -> None:
        b_raw = [ctas[r].smem[b_addresses] for r in ranks]
        if ws:   # the collector holds B for .ws, A otherwise (9.7.16.10)
            b_raw = [datamove.through_collector(ctas[rank], collector, b_raw[0], "B",
                                                 info.b_type)]
        b_parts = [decode_elements(raw, info.b_type) for raw in b_raw]
        b_matrix = np.concatenate(b_parts, axis=0)            # [N, K]
        if info.negate_b:
            b_matrix = -b_matrix
        if zero_mask is not None:   # 9.7.16.4.3: "0s must be used for the entire column"
            b_matrix[zero_mask.zero] = 0
        for r in ranks:
            cta = ctas[r]
            a_raw = _tmem_bytes(cta, *a_cells, rows) if a_in_tmem else cta.smem[a_addresses]
            if not ws:
                a_raw = datamove.through_collector(cta, collector, a_raw, "A", info.a_type)
            a_matrix = decode_elements(a_raw, info.a_type)          # [rows, K]
            if meta is not None:      # [rows, K/2] stored -> [rows, K] (9.7.16.10.8)
                a_matrix = meta.expand(cta.tmem, a_matrix)
            if info.negate_a:
                a_matrix = -a_matrix
            with one_blas_thread():
                product = a_matrix @ b_matrix.T                 # [rows, N]
            _accumulate(cta, lanes, cols, product, info, enable_input_d, scale_input_d,
                        None if disabled is None else lane_bits[lanes + 128 * (r - rank)])

    key = (rank, int(d_taddr), info.m, info.n, cta_group)
    return Operation("mma", fp, key, perform)


#: 9.7.16.2.3: rows and bits per row of each tcgen05.cp shape.
CP_SHAPES = MappingProxyType({"128x256b": (128, 256), "128x128b": (128, 128), "64x128b": (64, 128),
                              "32x128b": (32, 128), "4x256b": (4, 256)})


def _cp_lanes(shape: str, multicast: str | None) -> np.ndarray:
    """The destination lane of each (copy, source row): [copies, rows]. 9.7.16.9.2:
    with .warpx4 the 32 rows go to every warp's 32-lane quarter; with .warpx2 the data
    is multicast into warp pairs, each warp of a pair receiving half (32 of the 64 rows):
    ::02_13 pairs warps (0, 2) and (1, 3), ::01_23 pairs (0, 1) and (2, 3). Read here as:
    the first warp of each pair takes rows 0-31, the second rows 32-63 (tmem-facts has no
    figure for it; the ISA sentence is all there is)."""
    rows = CP_SHAPES[shape][0]
    r = np.arange(rows)
    if shape in ("128x256b", "128x128b"):
        return r.reshape(1, rows)
    if shape == "4x256b" and multicast is None:
        return datamove.cp_4x256b_lanes()
    if shape == "32x128b" and multicast == "warpx4":
        return np.stack([32 * w + r for w in range(4)])
    if shape == "64x128b" and multicast in ("warpx2::02_13", "warpx2::01_23"):
        pairs = ((0, 2), (1, 3)) if multicast == "warpx2::02_13" else ((0, 1), (2, 3))
        lanes = np.empty((2, rows), int)
        for copy, (first, second) in enumerate(pairs):
            lanes[copy, :32] = 32 * first + r[:32]
            lanes[copy, 32:] = 32 * second + r[:32]
        return lanes
    raise SimError(f"tcgen05.cp.{shape}{'.' + multicast if multicast else ''} is not "
                   "modelled yet")


@dataclass
class CopyOp(Operation):
    shape: str = ""


def _build_cp(parts, operands, rank, cluster_size) -> Operation:
    """tcgen05.cp [taddr], s-desc (9.7.16.9.2): source rows from the issuing CTA's shared
    memory through the descriptor (K-major canonical layout, the row's bits along K), each
    row into one lane, its bits little-endian along 32-bit columns from taddr's column;
    with cta_group::2 into the tensor memory of both CTAs of the pair, each CTA's from its
    own shared memory at the descriptor's offsets (as the pair's MMA reads its operands;
    docs/cta-pairs.md)."""
    source_format = datamove.decompression(parts)   # 9.7.16.9.1
    shape = next(p for p in parts if p in CP_SHAPES)
    multicast = next((p for p in parts if p.startswith("warpx")), None)
    cta_group = int(next(p for p in parts if p.startswith("cta_group::"))[-1])
    taddr, desc = operands
    if not isinstance(taddr, Address):
        raise SimError("tcgen05.cp: the first operand must be [taddr]")
    rows, bits = CP_SHAPES[shape]
    words = bits // 32
    source = k_major_addresses(decode_smem_descriptor(int(desc)), rows, bits // 8)
    lanes = _cp_lanes(shape, multicast) + (int(taddr) >> 16)
    col0 = int(taddr) & 0xFFFF
    if lanes.max() >= TMEM_LANES or col0 + words > TMEM_COLUMNS:
        raise SimError(f"tcgen05.cp.{shape} at {int(taddr):#x} runs past tensor memory")
    lane_grid = np.repeat(lanes[..., None], words, axis=-1)          # [copies, rows, words]
    col_grid = col0 + np.broadcast_to(np.arange(words), lane_grid.shape)
    ranks = [rank, rank ^ 1] if cta_group == 2 else [rank]
    if cta_group == 2 and cluster_size < 2:
        raise SimError("a cta_group::2 copy needs a cluster of two CTAs (9.7.16.9.2)")
    written = _mask(lane_grid, col_grid)
    fp = Footprint(tmem_writes={r: written for r in ranks},
                   smem_reads={r: unique_addresses(source) for r in ranks})

    def perform(ctas: list[CtaMemory]) -> None:
        for r in ranks:
            raw = ctas[r].smem[source]
            if source_format is not None:
                raw = datamove.decompress(raw, source_format)
            data = np.ascontiguousarray(raw).view(np.uint32)                # [rows, words]
            ctas[r].tmem[lane_grid, col_grid] = np.broadcast_to(data, lane_grid.shape)

    return CopyOp("cp", fp, None, perform, shape)


def _a_tmem_cells(d_lanes: np.ndarray, rows: int, a_taddr: int, k_bytes: int):
    """Cells of A in tensor memory (9.7.16.10.4, tmem-facts section 1): row i on the lane
    D's row i uses, shifted to a-tmem's lane field; the K elements packed little-endian
    along 32-bit columns from a-tmem's column. Returns (lanes[rows, words],
    columns[rows, words])."""
    words = -(-k_bytes // 4)
    lane = d_lanes[:, :1] - int(d_lanes[0, 0]) + (a_taddr >> 16) + np.zeros((1, words), int)
    col = (a_taddr & 0xFFFF) + np.arange(words).reshape(1, words) + np.zeros((rows, 1), int)
    if lane.max() >= TMEM_LANES or col.max() >= TMEM_COLUMNS:
        raise SimError(f"A at TMEM address {a_taddr:#x} runs past tensor memory")
    return lane, col


def _tmem_bytes(cta: CtaMemory, lane, col, rows) -> np.ndarray:
    words = cta.tmem[lane, col]                                  # [rows, words] uint32
    return words.view(np.uint8).reshape(rows, -1) if words.flags.c_contiguous else \
        np.ascontiguousarray(words).view(np.uint8).reshape(rows, -1)


def _accumulate(cta: CtaMemory, lanes, cols, product, info: InstrDescriptor,
                enable_input_d: bool, scale_input_d: int, keep_lanes) -> None:
    old = cta.tmem[lanes, cols]
    if info.d_type == "s32":
        total = product.astype(np.int64)
        if enable_input_d:
            total = total + old.view(np.int32).astype(np.int64)
        if info.saturate:
            total = np.clip(total, -2**31, 2**31 - 1)
        new = (total & 0xFFFFFFFF).astype(np.uint32)
    else:
        if enable_input_d:
            if info.d_type == "f32":
                prior = old.view(np.float32).astype(np.float64)
            else:
                prior = (old & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
            product = product + prior * 2.0 ** -scale_input_d
        if info.d_type == "f32":
            new = product.astype(np.float32).view(np.uint32)
        else:   # 9.7.16.10.4.1: a 16-bit D element in the low 16 bits of its word
            new = product.astype(np.float16).view(np.uint16).astype(np.uint32)
    if keep_lanes is not None:
        new = np.where(keep_lanes, old, new)
    cta.tmem[lanes, cols] = new


# -- tcgen05.ld / tcgen05.st (9.7.16.8, fragments of 9.7.16.2.3.1) ---------------------------

#: Registers per .num unit and the (lane, column) of register r of thread l, relative to
#: the base address of its access (tmem-facts section 2, transcribing Figures 183-187),
#: and that base's column offset from taddr: 0, except for the second .16x32b access of
#: .16x32bx2, whose base address is taddr + immHalfSplitoff (9.7.16.8.3).
def _fragment(shape: str, num: int, imm: int | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray | int]:
    l = np.arange(32).reshape(32, 1)
    if shape == "32x32b":
        r = np.arange(num).reshape(1, num)
        return l + 0 * r, r + 0 * l, 0
    if shape == "16x64b":
        r = np.arange(num).reshape(1, num)
        return l // 4 + 8 * (l % 2) + 0 * r, (l // 2) % 2 + 2 * r, 0
    if shape == "16x128b":
        r = np.arange(2 * num).reshape(1, 2 * num)
        return l // 4 + 8 * (r % 2), l % 4 + 4 * (r // 2), 0
    if shape == "16x256b":
        r = np.arange(4 * num).reshape(1, 4 * num)
        return l // 4 + 8 * ((r // 2) % 2), r % 2 + 2 * (l % 4) + 8 * (r // 4), 0
    if shape == "16x32bx2":
        if imm is None:
            raise SimError(".16x32bx2 needs immHalfSplitoff (9.7.16.8.3)")
        r = np.arange(num).reshape(1, num)
        return l % 16 + 0 * r, r + 0 * l, (l // 16) * imm + 0 * r
    raise SimError(f"tcgen05.ld/st shape .{shape} is not one of 9.7.16.2.3's")


def _ldst_cells(opcode: str, taddr: int, warp: int, imm: int | None):
    """Lanes and columns of every register of the warp's 32 threads: [32, registers], or
    with .pack::16b / .unpack::16b [32, registers, 2] (the two adjacent 16-bit cells a
    register packs, 9.7.16.8.2: a packed register stands where one 32-bit column stands
    unpacked, so its two cells are columns 2c and 2c + 1 of the fragment's column c,
    counted from the base address of its access: immHalfSplitoff is added to the address,
    9.7.16.8.3, and so is not doubled)."""
    parts = _qualifiers(opcode)
    shape = next(p for p in parts if "x" in p and p[0].isdigit())
    num = int(next(p for p in parts if p.startswith("x") and p[1:].isdigit())[1:])
    packed = any(p in ("pack::16b", "unpack::16b") for p in parts)
    lane_off, col_off, base_off = _fragment(shape, num, imm)
    lanes = (taddr >> 16) + lane_off
    base = (taddr & 0xFFFF) + base_off
    if packed:
        cols = np.expand_dims(base, -1) + np.stack([2 * col_off, 2 * col_off + 1], axis=-1)
        lanes = np.stack([lanes, lanes], axis=-1)
    else:
        cols = base + col_off
    quarter = warp % 4
    if lanes.min() < 32 * quarter or lanes.max() >= 32 * quarter + 32:
        raise SimError(f"warp {warp} accesses TMEM lanes {int(lanes.min())}-{int(lanes.max())};"
                       f" a warp of rank {quarter} in its warpgroup may access only lanes "
                       f"{32 * quarter}-{32 * quarter + 31} (9.7.16.8.1)")
    if cols.max() >= TMEM_COLUMNS:
        raise SimError(f"tcgen05.ld/st at column {taddr & 0xFFFF} runs past column 511")
    return lanes, cols, packed


def load(opcode: str, taddr: int, warp: int, rank: int, ctas: list[CtaMemory],
         imm: int | None):
    """tcgen05.ld by warp ``warp`` (index in the CTA): the registers of its 32 threads."""
    parts = _qualifiers(opcode)
    reduction = datamove.load_reduction(parts) if parts[1] == "red" else None
    lanes, cols, packed = _ldst_cells(opcode, taddr, warp, imm)
    cells = ctas[rank].tmem[lanes, cols]
    if packed:   # 9.7.16.8.2: two adjacent cells' low 16 bits in one register
        cells = (cells[..., 0] & 0xFFFF) | ((cells[..., 1] & 0xFFFF) << 16)
    fp = Footprint(tmem_reads={rank: _mask(lanes, cols)})
    cells = cells.astype(np.uint32)
    red = None if reduction is None else datamove.reduce_loaded(cells, reduction)
    return cells, red, Operation("ld", fp, None, lambda ctas: None)


def store(opcode: str, taddr: int, warp: int, rank: int, values: np.ndarray,
          imm: int | None):
    """tcgen05.st by warp ``warp``: writes the cells when performed."""
    lanes, cols, packed = _ldst_cells(opcode, taddr, warp, imm)
    values = np.asarray(values, np.uint32)
    if values.shape != lanes.shape[:2]:
        raise SimError(f"tcgen05.st: {values.shape[1]} registers per thread for a fragment of "
                       f"{lanes.shape[1]}")
    if packed:   # 9.7.16.8.2: each register's halves go to two adjacent cells
        values = np.stack([values & 0xFFFF, values >> 16], axis=-1)
    fp = Footprint(tmem_writes={rank: _mask(lanes, cols)})

    def perform(ctas: list[CtaMemory]) -> None:
        ctas[rank].tmem[lanes, cols] = values

    return Operation("st", fp, None, perform)


def _build_scaled_mma(parts: list[str], kind: str, cta_group: int, operands: list,
                      rank: int, cluster_size: int):
    """The operation of one ``tcgen05.mma.cta_group.kind{.block_scale}{.size}`` (syntax 2
    and 4 of 9.7.16.10.9.1): operands [d-tmem], a-desc | [a-tmem], b-desc, idesc,
    [scale-A-tmem], [scale-B-tmem], enable-input-d. The formats, scale factors and
    their cells are block_scale's; the cells and accumulation are this module's."""
    from tcgen05_lower.sim import block_scale    # block scaling: 9.7.16.10.7

    if "ws" in parts:
        raise SimError(f".ws is invalid with .kind::{kind} (Table 39)")
    if len(operands) != 7:
        raise SimError(f"tcgen05.mma.kind::{kind}: {len(operands)} operands; a block-scaled "
                       "MMA takes [d-tmem], A, b-desc, idesc, [scale-A-tmem], [scale-B-tmem], "
                       "enable-input-d (9.7.16.10.9.1)")
    d_taddr, a_operand, b_desc, idesc, sfa_taddr, sfb_taddr, enable_input_d = operands
    if not isinstance(d_taddr, Address):
        raise SimError("tcgen05.mma: the first operand must be [d-tmem]")
    if not (isinstance(sfa_taddr, Address) and isinstance(sfb_taddr, Address)):
        raise SimError("tcgen05.mma: scale-A-tmem and scale-B-tmem must be tensor-memory "
                       "addresses in brackets (9.7.16.10.9.1)")
    if not isinstance(enable_input_d, bool):
        raise SimError("tcgen05.mma: enable-input-d (a predicate) is missing")
    info = block_scale.decode_instr_descriptor(int(idesc), kind)
    if info.sparse:
        raise SimError("sparse block-scaled MMAs (idesc bit 2) are not modelled yet")
    if info.transpose_a or info.transpose_b:
        raise SimError("MN-major (transposed) operands are not modelled yet")
    if info.k == 96:
        raise SimError("K = 96 (Table 44 bit 31) is not modelled yet")
    vec = block_scale.scale_vector_size(parts, kind, info.k)
    block_scale.check_scale_combination(info, vec)
    if cta_group == 1 and info.m != 128:
        raise SimError(f"M = {info.m} with .kind::{kind}, cta_group::1: Table 39 allows 128")
    if cta_group == 2 and cluster_size < 2:
        raise SimError("a cta_group::2 MMA needs a cluster of two CTAs (9.7.16.5.1)")
    ranks = [rank, rank + 1] if cta_group == 2 else [rank]
    lanes, cols, rows = d_cells(info.m, info.n, cta_group, False, int(d_taddr))
    layout_b = cta_group == 2 and info.m == 128
    k_bytes = block_scale.row_bytes(kind, info.k)
    b_addresses = k_major_addresses(decode_smem_descriptor(int(b_desc)),
                                    info.n // cta_group, k_bytes)
    a_in_tmem = isinstance(a_operand, Address)
    if a_in_tmem:
        if info.a_type in block_scale.SUB_BYTE_BITS and kind == "mxf8f6f4":
            raise block_scale.sub_byte_a_in_tmem(kind, info.a_type)
        a_cells = _a_tmem_cells(lanes, rows, int(a_operand), k_bytes)
    else:
        a_addresses = k_major_addresses(decode_smem_descriptor(int(a_operand)), rows,
                                        k_bytes)
    sfa_cells = block_scale.scale_factor_cells(int(sfa_taddr), rows)
    sfb_cells = block_scale.scale_factor_cells(int(sfb_taddr), info.n, layout_b_split=layout_b)

    d_mask = _mask(lanes, cols)
    fp = Footprint()
    for r in ranks:
        fp.tmem_writes[r] = d_mask
        reads = d_mask.copy() if enable_input_d else np.zeros_like(d_mask)
        if a_in_tmem:
            reads[a_cells[0], a_cells[1]] = True
        for cell_lanes, cell_cols in (sfa_cells, sfb_cells):
            reads[cell_lanes, np.broadcast_to(cell_cols, cell_lanes.shape)] = True
        fp.tmem_reads[r] = reads
        smem = [b_addresses.reshape(-1)]
        if not a_in_tmem:
            smem.append(a_addresses.reshape(-1))
        fp.smem_reads[r] = np.unique(np.concatenate(smem)).astype(np.int64)

    def perform(ctas) -> None:
        b_parts = [block_scale.decode_operand(ctas[r].smem[b_addresses], info.b_type, kind,
                                              False)
                   for r in ranks]
        b_matrix = np.concatenate(b_parts, axis=0)                  # [N, K]
        if info.negate_b:
            b_matrix = -b_matrix
        for r in ranks:
            cta = ctas[r]
            if a_in_tmem:
                a_matrix = block_scale.decode_operand(_tmem_bytes(cta, *a_cells, rows),
                                                      info.a_type, kind, True)
            else:
                a_matrix = block_scale.decode_operand(cta.smem[a_addresses], info.a_type,
                                                      kind, False)
            if info.negate_a:
                a_matrix = -a_matrix
            scale_a = block_scale.read_scale_factors(cta.tmem, sfa_cells, info.scale_a_id, vec,
                                         info.scale_type, "A")
            scale_b = block_scale.read_scale_factors(cta.tmem, sfb_cells, info.scale_b_id, vec,
                                         info.scale_type, "B")
            with one_blas_thread():
                product = (block_scale.apply_scales(a_matrix, scale_a)
                           @ block_scale.apply_scales(b_matrix, scale_b).T)
            _accumulate(cta, lanes, cols, product, info, enable_input_d, 0, None)

    key = (rank, int(d_taddr), info.m, info.n, cta_group)
    return Operation("mma", fp, key, perform)
