"""Parts of tcgen05.mma builds (``tc_mma``) made by moving parts the run already made
(PTX ISA 9.7.16.10): a kernel's MMAs read a few operand layouts at many starts (a ring's
stages, its K steps) and write a few D shapes at several columns (an accumulator ring's
buffers), so most of what one build computes is another build's part translated.

- D at another column of the same d-tmem lane: the first D part of its shape, every
  column moved (``_d_moved``); Layouts D and A from their corner (``_d_block``).
- An operand pattern of fewer rows: the first rows of a kept pattern of its layout
  (``_prefix_pattern``); its unique addresses from its 16-byte chunks
  (``_pattern_unique``).
- The chunk form of an MMA's shared-memory reads: the operands' unique addresses' forms
  moved by their starts (``_reads_chunk_form``).

Each is a fast path with the general computation (``d_cells``, ``tmem_block``,
``operand_addresses``, ``unique_addresses``, ``chunk_form``) as its fall-back for
anything it does not describe exactly; everything lives in the run's shared parts
(``tc_mma.shared_parts``), nothing past the run.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.smem_chunks import CHUNK, ChunkForm, chunk_form, chunk_form_of_chunks
from tcgen05_lower.sim.state import TMEM_COLUMNS, TMEM_LANES, unique_addresses
from tcgen05_lower.sim.tma import chunk_rows


def _read_only(*arrays):
    """The arrays, made read-only: several MMAs' footprints and effects hold them."""
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    return arrays


def _d_block(m: int, n: int, cta_group: int, taddr: int):
    """(lanes, cols, rows, d_at) of ``d_cells`` and its ``tmem_block`` for Layouts D
    (cta_group::1, M = 128, with or without .ws) and A (cta_group::2, M = 256), whose
    128 rows are the lanes from d-tmem's on and whose N columns are the columns from
    d-tmem's on (9.7.16.10.5): the block's slices from its corner, without testing
    every cell; None for another layout or a D that would run past tensor memory
    (``d_cells`` then says so)."""
    if not (cta_group == 1 and m == 128 or cta_group == 2 and m == 256):
        return None
    lane0, col0 = taddr >> 16, taddr & 0xFFFF
    if n < 1 or lane0 + 128 > TMEM_LANES or col0 + n > TMEM_COLUMNS:
        return None
    lanes = np.broadcast_to(np.arange(128).reshape(128, 1) + lane0, (128, n))
    cols = np.broadcast_to(col0 + np.arange(n).reshape(1, n), (128, n))
    return lanes, cols, 128, (slice(lane0, lane0 + 128), slice(col0, col0 + n))


def _d_template_key(m: int, n: int, cta_group: int, ws: bool, taddr: int) -> tuple:
    """The key, in the run's shared parts, of the first D part made for this shape and
    d-tmem lane (``_d_moved`` moves it to other columns)."""
    return ("d template", m, n, cta_group, ws, taddr >> 16)


def _d_moved(m: int, n: int, cta_group: int, ws: bool, taddr: int, shared: dict):
    """(lanes, cols, rows, d_at) of ``d_cells`` at `taddr` and its ``tmem_block``, from a
    D part of the same shape and d-tmem lane made at another column (an accumulator
    ring's other buffers), or None when there is none or the moved cells would run past
    column 511 (``d_cells`` then says so). Every data-path layout of ``d_cells`` places
    D's cells at the lane and column of d-tmem plus offsets that depend on neither
    (9.7.16.10.5), so another column moves every cell's column by the difference:
    the lanes are the same, and a block stays a block (``tmem_block``'s test is of
    consecutive lanes and columns), its column slice moved."""
    template = shared.get(_d_template_key(m, n, cta_group, ws, taddr))
    if template is None:
        return None
    column, (lanes, cols, rows, _, d_at), last = template
    delta = (taddr & 0xFFFF) - column
    if last + delta >= TMEM_COLUMNS:
        return None
    cols = cols + delta
    if isinstance(d_at[0], slice):
        d_at = (d_at[0], slice(d_at[1].start + delta, d_at[1].stop + delta))
    else:
        d_at = (lanes, cols)
    return lanes, cols, rows, d_at


#: The key, in the run's shared parts, of the dict of the operand patterns with the
#: most rows made so far per layout (``_prefix_pattern``).
_WIDEST = "widest patterns"


def _prefix_pattern(shared: dict, key: tuple):
    """(pattern, _pattern_chunks(pattern)) of the operand pattern of `key`
    (``_operand_key``'s) as the first rows of a kept pattern of the same layout with at
    least as many rows, or (None, None) without one. ``operand_addresses`` places each
    row from its own index alone (``k_major_addresses``, ``mn_major_addresses``: row r's
    bytes are a function of r, the descriptor and K), so fewer rows of a layout are the
    first rows of more: a 128-row A reads the layout of a 256-row B at the same phase.
    The chunks are the first rows' chunks (``chunk_rows`` tests each 16 bytes alone)."""
    rows = key[5]
    wide = shared.get(_WIDEST, {}).get(key[:5] + key[6:])
    if wide is None or wide[0] < rows or rows < 1:
        return None, None
    pattern = wide[1][:rows]
    if wide[2] is None:
        return pattern, _pattern_chunks(pattern)
    index = wide[2][0][:rows]
    return pattern, (index, int(index.max()))


def _note_widest(shared: dict, key: tuple, pattern: np.ndarray, chunks) -> None:
    """Keeps the pattern of `key` (and its chunks) for ``_prefix_pattern`` when it has
    more rows than the kept one of its layout."""
    widest = shared.setdefault(_WIDEST, {})
    base, rows = key[:5] + key[6:], key[5]
    if base not in widest or widest[base][0] < rows:
        widest[base] = (rows, pattern, chunks)


def _pattern_unique(shared: dict, key: tuple, pattern: np.ndarray, chunks) -> np.ndarray:
    """``unique_addresses(pattern)`` of a new operand pattern (kept under `key`), from
    its 16-byte chunks when its rows are whole aligned chunks in order: the addresses
    are then those of the distinct chunks, each 16 bytes from 16 x its number, so they
    are the bytes of the sorted distinct chunk numbers (``chunk_form_of_chunks``, whose
    form is ``chunk_form(unique)``), a few hundred numbers instead of thousands of
    addresses. The chunks are kept for ``_operand_chunks`` (which would find them
    anyway), and the unique addresses' chunk form for ``_reads_chunk_form``.
    `chunks`: ``_pattern_chunks(pattern)``. Else ``unique_addresses`` itself."""
    shared.setdefault(_CHUNKS, {})[key] = (pattern, chunks)
    form = None if chunks is None else chunk_form_of_chunks(chunks[0].reshape(-1))
    if form is None:
        return unique_addresses(pattern)
    unique = (CHUNK * form.index[:, None] + np.arange(CHUNK, dtype=np.int64)).reshape(-1)
    shared.setdefault(_UNIQUE_FORMS, {})[id(unique)] = (unique, form)
    return unique


#: The key, in the run's shared parts, of the dict of operand patterns' 16-byte chunks
#: (``_operand_chunks``): one entry of the shared parts for all of them.
_CHUNKS = "operand chunks"


def _pattern_chunks(pattern: np.ndarray):
    """(chunks[rows, bytes / 16], the largest) of an operand's address pattern
    [rows, bytes] when every 16 bytes of a row are one aligned chunk in order, else
    None."""
    if pattern.ndim != 2 or not pattern.size or pattern.shape[1] % 16:
        return None
    chunks = chunk_rows(np.ascontiguousarray(pattern).reshape(-1))
    if chunks is None:
        return None
    return _read_only(chunks.reshape(pattern.shape[0], -1))[0], int(chunks.max())


def _reads_chunk_form(shared: dict, smem_reads: np.ndarray, b_unique, a_addresses,
                      a_unique) -> ChunkForm | None:
    """``chunk_form(smem_reads)`` of the reads ``_smem_reads`` made from the same
    arguments. When it made them from the operands' kept unique addresses (each U plus
    its shift, the lower operand's first), their chunks are those of each U
    (``_unique_form``) moved by shift / 16, one after the other: a ring's stages read
    the same layouts at other starts, so their forms are the few patterns' forms
    moved. Anything else (reads made from the addresses, a shift not a multiple of
    16, a U that is not whole chunks, a start below address 0): ``chunk_form``."""
    if a_addresses is None and b_unique is not None:
        parts = [b_unique]
    elif b_unique is not None and a_unique is not None and b_unique[0].size \
            and a_unique[0].size:
        parts = sorted((a_unique, b_unique), key=lambda u: int(u[0][0]) + u[1])
        if int(parts[0][0][-1]) + parts[0][1] >= int(parts[1][0][0]) + parts[1][1]:
            return chunk_form(smem_reads)   # overlapping: _smem_reads took the addresses
    else:
        return chunk_form(smem_reads)
    forms = [_unique_form(shared, unique) for unique, _ in parts]
    if any(form is None for form in forms) or any(shift % CHUNK for _, shift in parts):
        return chunk_form(smem_reads)
    low, high = forms[0].low + parts[0][1], forms[-1].high + parts[-1][1]
    if low < 0:
        return chunk_form(smem_reads)
    index = np.concatenate([form.index + shift // CHUNK
                            for form, (_, shift) in zip(forms, parts)])
    span = slice(low, high + 1) if high - low + 1 == CHUNK * index.size else None
    return ChunkForm(index, span, low, high)


#: The key, in the run's shared parts, of the dict of kept unique operand addresses'
#: chunk forms (``_unique_form``), by the array's id.
_UNIQUE_FORMS = "unique forms"


def _unique_form(shared: dict, unique: np.ndarray) -> ChunkForm | None:
    """``chunk_form(unique)`` of a kept operand pattern's unique addresses, made once
    (``_pattern_unique`` gives most): kept by id with the array, so that no other
    array takes its id while kept."""
    kept = shared.setdefault(_UNIQUE_FORMS, {})
    found = kept.get(id(unique))
    if found is None or found[0] is not unique:
        found = kept[id(unique)] = (unique, chunk_form(unique))
    return found[1]
