"""Data movement inside the simulated tensor core, and the state it keeps between MMAs, read
from the PTX ISA text (section 9.7.16) alone. ``tensor_core.py`` calls into this module:

- collector buffers of tcgen05.mma (9.7.16.10, the .collector_usage tables of
  9.7.16.10.9.1 and 9.7.16.10.9.3): what each CTA's collector holds, and which operand an
  MMA takes through it;
- the zero-column mask descriptor of tcgen05.mma.ws (9.7.16.4.3, Table 45);
- tcgen05.shift (9.7.16.9.3);
- tcgen05.cp's .4x256b lanes and its decompression (9.7.16.9.1);
- the reduction of tcgen05.ld.red (9.7.16.8.3).

Like the rest of the simulator, nothing here comes from the compiler's models. Where the ISA
shows a fact only in a figure (which the text does not carry), the fact used is named, with
its source and confidence, beside the code that uses it; facts of low confidence sit in one
table each so that they can be changed in one place.

Limits
------
- Collector state changes when an MMA is performed, in the order the ordering model
  performs them: issue order for one issuing thread (the case the ISA's collector text
  describes, a sequence of MMAs). A ::fill by one thread and a ::use by another are not
  checked for ordering (no race is reported on the collector itself).
- The maximum B-reuse shift of .ws (Table 42 bits 30-31) together with a collector
  ::fill / ::use / ::lastuse is an error (not modelled): the text does not say which B
  columns the collector then holds.
- The 128B swizzle with 32B atomicity (descriptor swizzle code 1) is not modelled: Table 53
  gives its atom only for an M/N leading dimension ("-" for K) and its address pattern only
  in Figure 219; tcgen05.cp reads its source K-major, so a cp with it is an error too.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim.state import (TMEM_COLUMNS, TMEM_LANES, Address, CtaMemory, Footprint,
                                     SimError)

# -- collector buffers ------------------------------------------------------------------------

#: 9.7.16.10.9.1 and 9.7.16.10.9.3: ::buffer of .collector_usage; ::a for an MMA without
#: .ws, ::b0-::b3 for .ws (9.7.16.10: "Collector buffer is applicable on matrix A" for the
#: default tcgen05.mma, "on matrix B" for .ws).
COLLECTOR_BUFFERS = MappingProxyType({False: frozenset({"a"}),
                                      True: frozenset({"b0", "b1", "b2", "b3"})})
COLLECTOR_OPS = frozenset({"fill", "use", "lastuse", "discard"})


@dataclass(frozen=True)
class CollectorUsage:
    """The .collector::buffer::op of one MMA."""

    buffer: str   # "a", "b0" .. "b3"
    op: str       # "fill", "use", "lastuse", "discard"

    def __str__(self) -> str:
        return f".collector::{self.buffer}::{self.op}"


def collector_usage(parts: list[str], ws: bool) -> CollectorUsage:
    """The collector usage of an MMA from its qualifiers. Without one it "defaults to
    .collector::a::discard" (9.7.16.10.9.1) or, with .ws, ".collector::b0::discard"
    (9.7.16.10.9.3)."""
    given = [p for p in parts if p.startswith("collector::")]
    if len(given) > 1:
        raise SimError(f"tcgen05.mma with {len(given)} .collector_usage qualifiers (one at "
                       "most, 9.7.16.10.9.1)")
    if not given:
        return CollectorUsage("b0" if ws else "a", "discard")
    fields = given[0].split("::")
    if len(fields) != 3 or fields[1] not in COLLECTOR_BUFFERS[ws] or \
            fields[2] not in COLLECTOR_OPS:
        which = "B: ::b0-::b3 (9.7.16.10.9.3)" if ws else "A: ::a (9.7.16.10.9.1)"
        raise SimError(f".{given[0]} is not a collector usage of tcgen05.mma"
                       f"{'.ws' if ws else ''}, whose collector buffer holds {which}")
    return CollectorUsage(fields[1], fields[2])


def through_collector(cta: CtaMemory, usage: CollectorUsage, operand: np.ndarray,
                      what: str, element: str) -> np.ndarray:
    """The bytes of the operand an MMA multiplies (``operand``: what its memory holds now,
    [rows, bytes] of ``element`` values) after its collector usage, updating the CTA's
    collector state.

    - ::fill: "the A [B] matrix read from the memory should be filled in collector buffer";
      the buffer holds the operand from now on.
    - ::use: "the A matrix can be read from the collector buffer. This requires a previous
      fill to the collector buffer to be still valid." A use without a valid fill is an
      error.
    - ::lastuse: the same, "and the contents of the collector buffer can be discarded": the
      buffer holds nothing valid afterwards.
    - ::discard: "the contents of the collector buffer ... can be discarded": the MMA
      reads memory and the buffer holds nothing valid afterwards.

    9.7.16.10: "reuse is opportunistic in that the TensorCore may reload a matrix even when
    it has permission to reuse that matrix". A ::use / ::lastuse therefore has a defined
    result only when the collector and the memory hold the same matrix; when they differ,
    the result depends on a choice the ISA leaves to the hardware, and that is an error
    here too (the simulator does not pick one)."""
    buffers = cta.collectors
    if usage.op == "fill":
        buffers[usage.buffer] = (element, np.array(operand, copy=True))
        return operand
    if usage.op == "discard":
        buffers.pop(usage.buffer, None)
        return operand
    held_element, held = buffers.get(usage.buffer, (None, None))
    if held is None:
        rule = ("This requires a previous fill to the collector buffer to be still valid"
                if usage.op == "use" else "This requires a previous fill to the collector "
                "buffer to be valid till the collector buffer is read")
        raise SimError(f"tcgen05.mma{usage} reads {what} from collector buffer "
                       f"::{usage.buffer} of CTA {cta.rank}, which holds nothing valid (no "
                       f"::fill since it was last discarded): \"{rule}\" (9.7.16.10.9.1, "
                       "9.7.16.10.9.3)")
    if held_element != element or held.shape != np.shape(operand) or \
            not np.array_equal(held, operand):
        raise SimError(f"tcgen05.mma{usage}: collector buffer ::{usage.buffer} of CTA "
                       f"{cta.rank} holds a different {what} ({held.shape[0]} x "
                       f"{held.shape[1]} bytes of {held_element}) from the one its operand now "
                       "describes in memory; reuse is opportunistic (\"the TensorCore may "
                       "reload a matrix even when it has permission to reuse that matrix\", "
                       "9.7.16.10), so the result would depend on whether it reloads")
    if usage.op == "lastuse":
        del buffers[usage.buffer]
    return held


# -- zero-column mask descriptor (9.7.16.4.3, Table 45) ---------------------------------------

#: Table 45: "Max shift amount = 16 for M=32, Max shift amount = 32 otherwise".
MAX_COLUMN_SHIFT = MappingProxyType({32: 16, 64: 32, 128: 32})


@dataclass(frozen=True)
class ZeroColumnMask:
    """A decoded zero-column mask: ``zero[c]`` is True where column c of the MMA takes 0s
    instead of B; the MMA's column c reads B's column ``c + shift``."""

    zero: np.ndarray
    shift: int


def _bits(value: int, low: int, width: int) -> int:
    return (value >> low) & ((1 << width) - 1)


def zero_column_mask(desc: int, m: int, n: int) -> ZeroColumnMask:
    """Table 45 on an M x N .ws MMA.

    The mask has N bits in 128 / M sub-masks of equal size, sub-mask i covering columns
    [i * N * M / 128, (i + 1) * N * M / 128) (the coverage table). With Non-Zero Mask
    (bit 39) 0 the mask is all 0s. Otherwise sub-mask i is an alternation of runs that
    starts with the value First Span i (bit 32 + i), with its first Start Count i (bits
    8i..8i+7) bits dropped ("the LSBs that must be skipped"). Run lengths follow the
    examples of 9.7.16.4.3, which the field descriptions contradict (tmem-facts section 4:
    "Follow the examples"): runs of 1s (zeroed columns) are Skip Span + 1 long (bits
    40-47), runs of 0s (columns that use B) are Use Span + 1 long (bits 48-55). Example 2
    (skip span 2, use span 3, first span 0) gives 0b...111 0000 111 0000: from bit 0, four
    0s then three 1s. Column Shift (bits 56-61) "allows MMA on non-0 starting column": with
    N = 128 and shift 2, "B Matrix with columns from 2 to 129 will be used" (example 4), so
    MMA column c reads B column c + shift, and mask bit c applies to that MMA column."""
    desc = int(desc) & (2**64 - 1)
    if m not in MAX_COLUMN_SHIFT:
        raise SimError(f"a zero-column mask for M = {m}: Table 45 covers M = 128, 64, 32")
    if _bits(desc, 36, 3) or _bits(desc, 62, 2):
        raise SimError(f"zero-column mask descriptor {desc:#018x}: reserved bits 36-38 / "
                       "62-63 are set (Table 45)")
    shift = _bits(desc, 56, 6)
    if shift > MAX_COLUMN_SHIFT[m]:
        raise SimError(f"zero-column mask descriptor {desc:#018x}: column shift {shift} "
                       f"exceeds the maximum of {MAX_COLUMN_SHIFT[m]} for M = {m} (Table 45)")
    zero = np.zeros(n, bool)
    if not _bits(desc, 39, 1):
        return ZeroColumnMask(zero, shift)
    skip_run = _bits(desc, 40, 8) + 1        # 1s: columns replaced by 0s
    use_run = _bits(desc, 48, 8) + 1         # 0s: columns that use B
    parts = 128 // m
    size = n // parts
    for i in range(parts):
        start, first = _bits(desc, 8 * i, 8), _bits(desc, 32 + i, 1)
        p = (np.arange(size) + start) % (skip_run + use_run)
        zero[i * size:(i + 1) * size] = p < skip_run if first else p >= use_run
    return ZeroColumnMask(zero, shift)


# -- tcgen05.shift (9.7.16.9.3) ---------------------------------------------------------------

#: 9.7.16.2.3: ".31x256b (implicit)": 31 rows of 256 bits (8 columns) move.
SHIFT_ROWS, SHIFT_COLUMNS = 31, 8


def peer_ranks(cta_group: int, rank: int, cluster_size: int, what: str) -> list[int]:
    """The CTAs whose tensor memory a cp / shift touches: "When .cta_group::2 is
    specified, ... of both the current and the peer CTAs" (9.7.16.9.2, 9.7.16.9.3); the
    peer of a CTA is the other CTA of its pair (9.7.16.5.2)."""
    if cta_group == 1:
        return [rank]
    if cluster_size < 2:
        raise SimError(f"a cta_group::2 {what} needs a cluster of two CTAs (9.7.16.5.1)")
    return [rank, rank ^ 1]


def shift(parts: list[str], operands: list, rank: int, cluster_size: int):
    """tcgen05.shift.cta_group.down [taddr]: "the shifting of 32-byte elements downwards
    across all the rows, except the last, by one row"; "The lane of the address operand
    taddr must be aligned to 32"; the data movement shape is .31x256b (9.7.16.2.3). Read
    here as: in the 32 lanes [L, L + 32) from taddr's lane L, the 8 columns from taddr's
    column, lane L + i + 1 receives what lane L + i held, for i = 0 .. 30 (the last row's
    old contents are shifted out). Lane L is not written: the text moves 31 rows and says
    nothing else about the first, so it keeps its contents.

    Returns (footprint, perform)."""
    cta_group = int(next(p for p in parts if p.startswith("cta_group::"))[-1])
    if len(operands) != 1 or not isinstance(operands[0], Address):
        raise SimError("tcgen05.shift takes one operand, [taddr] (9.7.16.9.3)")
    taddr = int(operands[0])
    lane, col = taddr >> 16, taddr & 0xFFFF
    if lane % 32:
        raise SimError(f"tcgen05.shift at lane {lane}: \"The lane of the address operand "
                       "taddr must be aligned to 32\" (9.7.16.9.3)")
    if lane + SHIFT_ROWS + 1 > TMEM_LANES or col + SHIFT_COLUMNS > TMEM_COLUMNS:
        raise SimError(f"tcgen05.shift at {taddr:#x} runs past tensor memory")
    ranks = peer_ranks(cta_group, rank, cluster_size, "shift")
    source = np.zeros((TMEM_LANES, TMEM_COLUMNS), bool)
    source[lane:lane + SHIFT_ROWS, col:col + SHIFT_COLUMNS] = True
    dest = np.zeros_like(source)
    dest[lane + 1:lane + SHIFT_ROWS + 1, col:col + SHIFT_COLUMNS] = True
    fp = Footprint(tmem_reads={r: source for r in ranks}, tmem_writes={r: dest for r in ranks})

    def perform(ctas: list[CtaMemory]) -> None:
        for r in ranks:
            tmem = ctas[r].tmem
            rows = tmem[lane:lane + SHIFT_ROWS, col:col + SHIFT_COLUMNS].copy()
            tmem[lane + 1:lane + SHIFT_ROWS + 1, col:col + SHIFT_COLUMNS] = rows

    return fp, perform


# -- tcgen05.cp (9.7.16.9.1, 9.7.16.9.2) --------------------------------------------------------

#: The lanes of .4x256b's four rows, relative to taddr's lane. The ISA gives the shape only
#: (9.7.16.2.3: 4 lanes x 256 bits) and pairs it with tcgen05.shift (9.7.16.6.2: shift ->
#: cp.4x256b is pipelined), which moves rows within a 32-lane quarter. CUTLASS's
#: Copy_Traits<SM100_UTCCP_4dp256bit_1cta> (cute/atom/copy_traits_sm100.hpp) maps row i to
#: lane 32 * i: one row into each lane quarter, "to refresh" the row the shifts free.
#: Confidence M (one source, no hardware test published); tmem-facts.md does not cover it.
CP_4X256B_LANES = (0, 32, 64, 96)


def cp_4x256b_lanes() -> np.ndarray:
    """The destination lanes of .4x256b as ``_cp_lanes`` returns them: [copies, rows]."""
    return np.array([CP_4X256B_LANES])


#: 9.7.16.9.1: each .src_fmt is 16 elements followed by padding, 16 bytes in all, and
#: .dst_fmt .b8x16 is 16 8-bit elements (16 bytes): (element bits, bytes of elements).
DECOMPRESSION = MappingProxyType({"b4x16_p64": (4, 8), "b6x16_p32": (6, 12)})

#: Where an element sits in its 8-bit destination container, and in which order the 16
#: packed elements are numbered: the ISA shows both only in Figures 194-198, which the text
#: does not carry. Used here (confidence L): element i occupies bits [b*i, b*i + b) of its
#: chunk read as a little-endian integer, as PTX numbers packed sub-byte elements elsewhere;
#: a 4-bit E2M1 value lands in bits 5-2 of its byte and a 6-bit value in bits 5-0, the
#: 8-bit container that the f8f6f4 MMAs read (9.7.16.10.4.3, Figures 199-201, as CUTLASS
#: documents that container: mma_traits_sm120.hpp "MMA F8F6F4 expects the four-bit data to
#: be in the middle of the eight-bit container", with no shift for 6-bit types).
DECOMPRESSED_BIT_OFFSET = MappingProxyType({"b4x16_p64": 2, "b6x16_p32": 0})


def decompression(parts: list[str]) -> str | None:
    """The .src_fmt of a tcgen05.cp with .dst_fmt.src_fmt, else None. The syntax block
    (9.7.16.9.2) has .dst_fmt and .src_fmt together or neither; .dst_fmt is .b8x16."""
    source = [p for p in parts if p in DECOMPRESSION]
    has_dest = "b8x16" in parts
    if not source and not has_dest:
        return None
    if len(source) != 1 or not has_dest:
        raise SimError("tcgen05.cp decompression needs .dst_fmt (.b8x16) and one .src_fmt "
                       "(.b6x16_p32 or .b4x16_p64) together (9.7.16.9.2)")
    return source[0]


def decompress(raw: np.ndarray, source_format: str) -> np.ndarray:
    """The bytes tcgen05.cp writes for source rows ``raw`` (uint8 [rows, bytes]) in
    ``source_format``: every 16 source bytes (16 packed elements and their padding,
    9.7.16.9.1) become 16 8-bit elements. The padding is not read into the result."""
    bits, packed = DECOMPRESSION[source_format]
    rows, nbytes = raw.shape
    if nbytes % 16:
        raise SimError(f"tcgen05.cp .{source_format}: a row of {nbytes} bytes is not a "
                       "whole number of 16-byte chunks (9.7.16.9.1)")
    chunks = raw.reshape(rows, nbytes // 16, 16)[..., :packed].astype(np.uint64)
    # the packed bytes as one little-endian integer per chunk, in two 64-bit halves
    low = np.zeros(chunks.shape[:-1], np.uint64)
    high = np.zeros(chunks.shape[:-1], np.uint64)
    for i in range(packed):
        if i < 8:
            low |= chunks[..., i] << np.uint64(8 * i)
        else:
            high |= chunks[..., i] << np.uint64(8 * (i - 8))
    out = np.zeros(chunks.shape[:-1] + (16,), np.uint8)
    mask = np.uint64((1 << bits) - 1)
    for e in range(16):
        first = bits * e
        if first + bits <= 64:
            value = (low >> np.uint64(first)) & mask
        elif first >= 64:
            value = (high >> np.uint64(first - 64)) & mask
        else:   # straddles the two halves
            value = ((low >> np.uint64(first)) | (high << np.uint64(64 - first))) & mask
        out[..., e] = (value << np.uint64(DECOMPRESSED_BIT_OFFSET[source_format])).astype(
            np.uint8)
    return out.reshape(rows, nbytes)


# -- tcgen05.ld.red (9.7.16.8.3) ---------------------------------------------------------------

@dataclass(frozen=True)
class Reduction:
    """The .redOp{.abs}{.NaN}.f32 or .redOp.type of a tcgen05.ld.red."""

    op: str          # "min" | "max"
    type: str        # "f32" | "u32" | "s32"
    abs: bool = False
    nan: bool = False


def load_reduction(parts: list[str]) -> Reduction:
    """Parses the qualifiers after .num of tcgen05.ld.red (9.7.16.8.3's syntax block):
    ``.redOp{.abs}{.NaN}.f32`` or ``.redOp.type``; "When .red qualifier is specified,
    .num modifier must be at least .x2"; the shapes are .32x32b and .16x32bx2."""
    shape = next((p for p in parts if p in ("32x32b", "16x32bx2")), None)
    if shape is None:
        raise SimError("tcgen05.ld.red takes .32x32b or .16x32bx2 (9.7.16.8.3: .shape3, "
                       ".shape4)")
    num = next(p for p in parts if p.startswith("x") and p[1:].isdigit())
    if int(num[1:]) < 2:
        raise SimError("tcgen05.ld.red with .x1: \"When .red qualifier is specified, .num "
                       "modifier must be at least .x2\" (9.7.16.8.3)")
    tail = parts[parts.index(num) + 1:]
    if not tail or tail[0] not in ("min", "max"):
        raise SimError(f"tcgen05.ld.red needs .min or .max after .{num} (9.7.16.8.3)")
    if tail[-1] == "f32" and set(tail[1:-1]) <= {"abs", "NaN"}:
        return Reduction(tail[0], "f32", "abs" in tail, "NaN" in tail)
    if tail[1:] in (["u32"], ["s32"]):
        return Reduction(tail[0], tail[1])
    raise SimError(f"tcgen05.ld.red: .{'.'.join(tail)} is not .redOp{{.abs}}{{.NaN}}.f32 or "
                   ".redOp.u32/.s32 (9.7.16.8.3)")


def reduce_loaded(values: np.ndarray, reduction: Reduction) -> np.ndarray:
    """redVal of each thread (uint32 [32, 1]) from the registers the load wrote
    (``values``, uint32 [32, registers]). 9.7.16.8.3: "the reduction operation specified
    by .redOp is performed on the data that is loaded across columns in each lane. The
    result of the reduction operation is written into the corresponding thread's 32-bit
    destination register operand redVal." Each thread's registers hold columns of one lane
    (.32x32b: lane l; .16x32bx2: lane l mod 16 of the access of its half, tmem-facts
    section 2), so the reduction is over the thread's own registers: for .16x32bx2, threads
    l and l + 16 each reduce their half (the text names no combination across threads).

    .f32: .abs reduces the absolute values (the registers r keep the loaded data). Without
    .NaN a NaN value is ignored unless every value is NaN (then the result is the canonical
    NaN 0x7FFFFFFF); with .NaN any NaN value makes the result the canonical NaN: the
    meaning .NaN has on PTX's min / max (9.7.3), which this executor's min / max follow.
    Zeros of both signs order -0.0 below +0.0."""
    values = np.asarray(values, np.uint32)
    pick = np.argmin if reduction.op == "min" else np.argmax
    if reduction.type in ("u32", "s32"):
        data = values.view(np.int32).astype(np.int64) if reduction.type == "s32" else \
            values.astype(np.int64)
        best = data[np.arange(len(data)), pick(data, axis=1)]
        return (best & 0xFFFFFFFF).astype(np.uint32).reshape(-1, 1)
    bits = values & np.uint32(0x7FFFFFFF) if reduction.abs else values
    data = bits.view(np.float32).astype(np.float64)
    # order -0.0 below +0.0 by adding the sign as a tie-breaker key
    negative_zero = (data == 0) & ((bits >> np.uint32(31)) == 1)
    nan = np.isnan(data)
    fill = np.inf if reduction.op == "min" else -np.inf
    key = np.where(nan, fill, data)
    best_value = (key.min if reduction.op == "min" else key.max)(axis=1, keepdims=True)
    candidates = (key == best_value) & ~nan
    # among equal candidates (only zeros can differ in their bits) take -0.0 for min and
    # +0.0 for max
    prefer = negative_zero if reduction.op == "min" else ~negative_zero
    choice = np.where((candidates & prefer).any(axis=1), (candidates & prefer).argmax(axis=1),
                      candidates.argmax(axis=1))
    result = bits[np.arange(len(bits)), choice].astype(np.uint32)
    all_nan = nan.all(axis=1)
    any_nan = nan.any(axis=1)
    canonical = np.uint32(0x7FFFFFFF)
    result = np.where(any_nan if reduction.nan else all_nan, canonical, result)
    return result.reshape(-1, 1).astype(np.uint32)
