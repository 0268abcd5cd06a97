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

Modules
-------
This module is the tensor core the executor is given (``issue_async``, ``load``,
``store``, ``CACHES_MMAS``), with tcgen05.cp and tcgen05.ld / st; ``tc_descriptors``
decodes the descriptors and operand addresses, ``tc_datapath`` places D and A in tensor
memory and accumulates, ``tc_mma`` builds the MMAs.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import datamove
from tcgen05_lower.sim.state import (TMEM_COLUMNS, TMEM_LANES, Address, CtaMemory, Footprint,
                                     SimError, unique_addresses)
from tcgen05_lower.sim.tc_datapath import Operation, _mask, tmem_block
# decode_instr_descriptor: also read through this module (sim/timing.py's MMA shapes)
from tcgen05_lower.sim.tc_descriptors import (decode_instr_descriptor,  # noqa: F401
                                              decode_smem_descriptor, k_major_addresses)
from tcgen05_lower.sim.tc_mma import _build_mma, _build_scaled_mma, shared_parts
from tcgen05_lower.sim.tmem_index import summary_of_block, summary_of_one_block


def _qualifiers(opcode: str) -> list[str]:
    return opcode.split(".")[1:]


def issue_async(opcode: str, operands: list, rank: int, cluster_size: int,
                cache: dict | None = None):
    """Builds the operation of one tcgen05.mma / cp / shift issued by a thread of CTA
    ``rank`` (the TensorOp protocol of state.py); ``cache``: the run's built MMAs
    (CACHES_MMAS), or None to build every one."""
    key = ("mma form", opcode, rank, cluster_size)
    form = None if cache is None else cache.get(key)
    if form is None:
        parts = _qualifiers(opcode)
        if parts[0] == "cp":
            return _build_cp(parts, operands, rank, cluster_size)
        if parts[0] == "shift":
            footprint, perform = datamove.shift(parts, operands, rank, cluster_size)
            return Operation("shift", footprint, None, perform)
        form = _mma_form(parts, rank)
        if cache is not None:   # a pure function of the key, kept only when valid
            if len(cache) >= _MMA_CACHE_SIZE:
                cache.clear()
            cache[key] = form
    if form[0] == "block_scale":
        parts, kind, cta_group = form[1:]
        return _cached_mma(("block_scale", parts, rank, cluster_size), operands, cache,
                           lambda shared: _build_scaled_mma(list(parts), kind, cta_group,
                                                            operands, rank, cluster_size,
                                                            shared))
    kind, cta_group, ws, collector, is_sparse = form[1:]
    # (the opcode names all the qualifiers the build depends on)
    return _cached_mma(("dense", opcode, rank, cluster_size), operands, cache,
                       lambda shared: _build_mma(kind, cta_group, ws, operands, rank,
                                                 cluster_size, collector=collector,
                                                 is_sparse=is_sparse, shared=shared))


def _mma_form(parts: list[str], rank: int) -> tuple:
    """What issue_async takes from a tcgen05.mma's qualifiers (and the issuing CTA's
    rank, for the pair's rule): ("block_scale", parts, kind, cta_group) or ("dense",
    kind, cta_group, ws, collector usage, sparse); a SimError for what is not
    modelled or invalid, in the order of the checks below."""
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
        return ("block_scale", tuple(parts), kind, cta_group)
    if scaling:
        raise SimError(f".{scaling[0]} is not valid with .kind::{kind} (9.7.16.10.9.1)")
    collector, is_sparse = datamove.collector_usage(parts, ws), "sp" in parts
    return ("dense", kind, cta_group, ws, collector, is_sparse)


#: issue_async takes a ``cache`` (a dict the machine owns, one per run): built MMAs by
#: their qualifiers and operand values. A kernel issues the same few MMAs (descriptors,
#: TMEM address, instruction descriptor) again and again, and building one (its cells,
#: its operands' byte addresses) costs far more than performing it. What is built is a
#: pure function of the key; the operation's effect reads the machine's state when it is
#: performed. Cleared when it holds _MMA_CACHE_SIZE entries. It also holds, under one
#: key, the parts that MMAs which differ share (tc_mma.shared_parts: D's cells, operand
#: address patterns). No cache lives here: a run leaves nothing behind for the next
#: (tests/test_process_hygiene.py).
CACHES_MMAS = True
_MMA_CACHE_SIZE = 128


def _cached_mma(form: tuple, operands, cache: dict | None, build) -> Operation:
    """``build(shared)``'s operation (``shared``: the run's shared MMA parts,
    tc_mma.shared_parts), reusing the footprint and effect of an identical earlier issue:
    the same ``form`` (the qualifiers and issuer the build depends on besides the
    operands) and operand values (a fresh Operation each time, so no two issues share
    one record)."""
    if cache is None:
        return build(None)
    try:
        key = (*form, tuple(operands), tuple(map(type, operands)))
        built = cache.get(key)
    except TypeError:   # an unhashable operand: build it every time
        key, built = None, None
    if built is None:
        built = build(shared_parts(cache))
        if key is not None:
            if len(cache) >= _MMA_CACHE_SIZE:
                cache.clear()
            cache[key] = built
    return Operation(built.kind, built.footprint, built.accumulator, built._perform)


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


class _LdForm:
    """The cells of an ld/st opcode (and immHalfSplitoff) relative to its address: those
    ``_ldst_cells`` gives for taddr 0 (``lanes``, ``cols``), their bounds, and whether
    they are a block (``tmem_block``'s slices): every address's cells are these shifted
    by its lane and column, and so are their bounds and their block."""

    __slots__ = ("lanes", "cols", "packed", "low", "high", "last", "block")

    def __init__(self, opcode: str, imm: int | None):
        parts = _qualifiers(opcode)
        shape = next(p for p in parts if "x" in p and p[0].isdigit())
        num = int(next(p for p in parts if p.startswith("x") and p[1:].isdigit())[1:])
        self.packed = any(p in ("pack::16b", "unpack::16b") for p in parts)
        lanes, col_off, base = _fragment(shape, num, imm)
        if self.packed:
            cols = np.expand_dims(base, -1) + np.stack([2 * col_off, 2 * col_off + 1],
                                                       axis=-1)
            lanes = np.stack([lanes, lanes], axis=-1)
        else:
            cols = base + col_off
        self.lanes, self.cols = lanes, cols
        self.low, self.high, self.last = int(lanes.min()), int(lanes.max()), int(cols.max())
        self.block = isinstance(tmem_block(lanes, cols)[0], slice)

    def cells(self, taddr: int, warp: int):
        """``_ldst_cells`` at `taddr` by `warp`, with tmem_block's form of the cells:
        (lanes, cols, packed, at)."""
        lane, column = self._check(taddr, warp)
        lanes, cols = lane + self.lanes, column + self.cols
        if not self.block:
            return lanes, cols, self.packed, (lanes, cols)
        return lanes, cols, self.packed, self._block_at(lane, column)

    def block_at(self, taddr: int, warp: int) -> tuple:
        """For a block form: ``cells(taddr, warp)``'s slices (`at`) alone, after the
        same checks (the same SimError)."""
        return self._block_at(*self._check(taddr, warp))

    def _block_at(self, lane: int, column: int) -> tuple:
        rows, n = self.lanes.shape
        first, start = lane + int(self.lanes[0, 0]), column + int(self.cols[0, 0])
        return slice(first, first + rows), slice(start, start + n)

    def _check(self, taddr: int, warp: int) -> tuple[int, int]:
        """(lane, column) of `taddr`; SimError when the cells at it are not the warp's
        lanes (9.7.16.8.1) or run past column 511."""
        lane, column = taddr >> 16, taddr & 0xFFFF
        quarter = warp % 4
        if lane + self.low < 32 * quarter or lane + self.high >= 32 * quarter + 32:
            raise SimError(f"warp {warp} accesses TMEM lanes {lane + self.low}-"
                           f"{lane + self.high}; a warp of rank {quarter} in its warpgroup "
                           f"may access only lanes {32 * quarter}-{32 * quarter + 31} "
                           "(9.7.16.8.1)")
        if column + self.last >= TMEM_COLUMNS:
            raise SimError(f"tcgen05.ld/st at column {column} runs past column 511")
        return lane, column


def _kept_ldst_cells(opcode: str, taddr: int, warp: int, imm: int | None, cache: dict | None):
    """(lanes, cols, packed, tmem_block(lanes, cols)) of ``_ldst_cells``, from the
    opcode's ``_LdForm`` kept in the run's `cache` (a pure function of the opcode and
    immHalfSplitoff); without a cache, ``_ldst_cells`` itself."""
    if cache is None:
        lanes, cols, packed = _ldst_cells(opcode, taddr, warp, imm)
        return lanes, cols, packed, tmem_block(lanes, cols)
    return _kept_form(opcode, imm, cache).cells(taddr, warp)


def _kept_form(opcode: str, imm: int | None, cache: dict) -> _LdForm:
    """The opcode's ``_LdForm``, made once per run (kept in its `cache`)."""
    key = ("ld form", opcode, imm)
    form = cache.get(key)
    if form is None:
        form = cache[key] = _LdForm(opcode, imm)
    return form


def load(opcode: str, taddr: int, warp: int, rank: int, ctas: list[CtaMemory],
         imm: int | None, cache: dict | None = None):
    """tcgen05.ld by warp ``warp`` (index in the CTA): the registers of its 32 threads.
    ``cache``: the run's (issue_async's); the cells and footprint of an ld are a pure
    function of its qualifiers, address, warp and CTA, kept there."""
    parts = _qualifiers(opcode)
    reduction = datamove.load_reduction(parts) if parts[1] == "red" else None
    at, packed, fp = built_load(opcode, taddr, warp, rank, imm, cache)
    # a copy, also of a block's view
    cells = loaded_cells(ctas[rank].tmem, at, packed).astype(np.uint32)
    red = None if reduction is None else datamove.reduce_loaded(cells, reduction)
    return cells, red, ld_operation(fp)


def built_load(opcode: str, taddr: int, warp: int, rank: int, imm: int | None,
               cache: dict | None = None) -> tuple:
    """What ``load`` builds of an ld, kept in the run's `cache` under its qualifiers,
    address, warp and CTA: (the cells as ``tmem_block`` gives them, slices when they are
    a block, whether the registers are packed, the footprint shared by the lds of the
    key). SimError for an address the warp may not access (9.7.16.8.1)."""
    return _built_ldst("ld", opcode, taddr, warp, rank, imm, cache)


def built_store(opcode: str, taddr: int, warp: int, rank: int, imm: int | None,
                cache: dict | None = None) -> tuple:
    """``built_load`` of a tcgen05.st: its cells, and a footprint that writes them,
    shared by the sts of the key (``store_operation`` gives each its values)."""
    return _built_ldst("st", opcode, taddr, warp, rank, imm, cache)


def _built_ldst(kind: str, opcode: str, taddr: int, warp: int, rank: int, imm: int | None,
                cache: dict | None) -> tuple:
    key = (kind, opcode, taddr, warp, rank, imm)
    built = None if cache is None else cache.get(key)
    if built is None:
        built = _built_block(kind, opcode, taddr, warp, rank, imm, cache) or \
            _built_cells(kind, opcode, taddr, warp, rank, imm, cache)
        if cache is not None:
            if len(cache) >= _MMA_CACHE_SIZE:
                cache.clear()
            cache[key] = built
    return built


def _built_cells(kind: str, opcode: str, taddr: int, warp: int, rank: int,
                 imm: int | None, cache: dict | None) -> tuple:
    """``_built_ldst``'s (at, packed, footprint) from the cells (the general code)."""
    lanes, cols, packed, at = _kept_ldst_cells(opcode, taddr, warp, imm, cache)
    # the footprint is shared by the ops of the key, as a built MMA's (not changed
    # after its issue); the cells as slices when they are a block (.32x32b)
    mask = np.zeros((TMEM_LANES, TMEM_COLUMNS), bool)
    mask[at] = True   # _mask(lanes, cols)
    mask.flags.writeable = False   # shared by the ops of the key
    fp = Footprint(tmem_reads={rank: mask}) if kind == "ld" else \
        Footprint(tmem_writes={rank: mask})
    summary_of_block(fp, mask, at, lanes, cols)   # from the block's bounds
    return at, packed, fp


def _built_block(kind: str, opcode: str, taddr: int, warp: int, rank: int,
                 imm: int | None, cache: dict | None) -> tuple | None:
    """``_built_ldst``'s (at, packed, footprint) for an ld / st whose cells are a block
    (.32x32b unpacked: every ld of the persistent kernels' epilogues), made from the
    block's slices alone: the opcode's form (kept for the run) gives them at any
    address and warp by translation, the mask is set by them, and the summary is made
    from their bounds (``summary_of_one_block``), without the cells' index arrays.
    None (nothing done) without a run's cache, for cells that are not a block, or a
    rank that is not an int >= 0: the general code builds those. The same SimError
    as the general code for an address the warp may not access."""
    if cache is None or type(rank) is not int or rank < 0:
        return None
    form = _kept_form(opcode, imm, cache)
    if not form.block:
        return None
    at = form.block_at(taddr, warp)
    mask = _block_mask(at, cache)
    writes = kind != "ld"
    fp = Footprint(tmem_writes={rank: mask}) if writes else Footprint(tmem_reads={rank: mask})
    summary_of_one_block(fp, rank, mask, at, writes)
    return at, form.packed, fp


def _block_mask(at: tuple, cache: dict) -> np.ndarray:
    """The mask (bool[128, 512], read-only) whose cells are the block `at` (slices of
    step 1 inside TMEM), as a view of one sheet per block size kept for the run: the
    sheet is twice TMEM's size with the block's cells at its middle, and the 128 x 512
    window that starts `at`'s first lane and column before the middle holds them at
    `at` and nothing else. The lds of a shape at every address and warp so share one
    array instead of 64 KiB each (the same cells as a mask set by `at`)."""
    (l0, l1), (c0, c1) = (at[0].start, at[0].stop), (at[1].start, at[1].stop)
    key = ("block sheet", l1 - l0, c1 - c0)
    sheet = cache.get(key)
    if sheet is None:
        sheet = np.zeros((2 * TMEM_LANES, 2 * TMEM_COLUMNS), bool)
        sheet[TMEM_LANES:TMEM_LANES + l1 - l0, TMEM_COLUMNS:TMEM_COLUMNS + c1 - c0] = True
        sheet.flags.writeable = False   # its windows are the footprints' masks
        cache[key] = sheet
    return sheet[TMEM_LANES - l0:2 * TMEM_LANES - l0, TMEM_COLUMNS - c0:2 * TMEM_COLUMNS - c0]


def loaded_cells(tmem: np.ndarray, at, packed: bool) -> np.ndarray:
    """The [32, registers] words an ld of cells `at` (``built_load``'s) reads from the
    CTA's `tmem`: a view of it for an unpacked block."""
    cells = tmem[at]
    if packed:   # 9.7.16.8.2: two adjacent cells' low 16 bits in one register
        cells = (cells[..., 0] & 0xFFFF) | ((cells[..., 1] & 0xFFFF) << 16)
    return cells


def ld_operation(fp: Footprint) -> Operation:
    """The operation of one issued ld of footprint `fp` (a fresh one per issue, so that
    no two issues share one record)."""
    return Operation("ld", fp, None, _no_effect)


def _no_effect(ctas: list[CtaMemory]) -> None:
    """The effect of an ld when the ordering model performs it: none (its registers are
    written at its issue)."""


def store_operation(fp: Footprint, rank: int, at, packed: bool,
                    values: np.ndarray) -> Operation:
    """The operation of one issued st of ``built_store``'s (footprint, cells, packed) with
    the registers `values` (uint32[32, registers]): it writes them when performed."""
    if packed:   # 9.7.16.8.2: each register's halves go to two adjacent cells
        values = np.stack([values & 0xFFFF, values >> 16], axis=-1)

    def perform(ctas: list[CtaMemory]) -> None:
        ctas[rank].tmem[at] = values

    return Operation("st", fp, None, perform)


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
