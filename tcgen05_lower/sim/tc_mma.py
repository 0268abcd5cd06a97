"""tcgen05.mma in the simulator (PTX ISA 9.7.16.10, for ``tensor_core.issue_async``):
the operation of one dense or sparse MMA (``_build_mma``; ``sparse.py``, ``datamove.py``
for the collector buffers and the .ws column mask) and of one block-scaled MMA
(``_build_scaled_mma``; ``block_scale.py``): its footprint in shared and tensor memory
and its effect when performed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tcgen05_lower.sim import datamove, sparse
from tcgen05_lower.sim.mma_moves import (_CHUNKS, _d_block, _d_moved, _d_template_key,
                                         _note_widest, _pattern_chunks, _pattern_unique,
                                         _prefix_pattern, _read_only, _reads_chunk_form)
from tcgen05_lower.sim.smem_chunks import give_chunk_form
from tcgen05_lower.sim.state import (TMEM_COLUMNS, TMEM_LANES, Address, CtaMemory,
                                     Footprint, SimError, unique_addresses)
from tcgen05_lower.sim.tc_datapath import (Operation, _a_tmem_cells, _accumulate, _mask,
                                           _tmem_bytes, d_cells, gather_bytes,
                                           one_blas_thread, tmem_block)
from tcgen05_lower.sim.tc_descriptors import (DENSE_K, ELEMENT_BYTES, decode_elements,
                                              decode_instr_descriptor, decode_smem_descriptor,
                                              operand_addresses, pattern_phase)
from tcgen05_lower.sim.tmem_index import shared_summary


#: The key, in a run's cache of built MMAs (tensor_core.CACHES_MMAS), of the parts of an
#: MMA that are pure functions of a smaller key than the whole MMA's (its D cells and
#: masks, its operands' address patterns), shared read-only by the MMAs of the run that
#: have them alike: a ring of stages gives every stage its own descriptors, so the MMAs
#: rarely repeat, but their D and their operands' layouts do. Emptied when it holds
#: _PARTS_SIZE entries.
_PARTS = "mma parts"
_PARTS_SIZE = 64


def shared_parts(cache: dict | None) -> dict | None:
    """The dict of shared MMA parts inside the run's ``cache``, or None without one."""
    if cache is None:
        return None
    shared = cache.get(_PARTS)
    if shared is None or len(shared) >= _PARTS_SIZE:
        shared = cache[_PARTS] = {}
    return shared


#: The key, in the shared parts, of the dict of MMAs' operand addresses by descriptors
#: (``_build_mma``'s "smem side"): a ring's stages and K steps give many, which must not
#: empty the shared parts; emptied alone when it holds _SIDES_SIZE entries.
_SIDES = "smem sides"
_SIDES_SIZE = 64


def _smem_sides(shared: dict) -> dict:
    """The dict of kept operand addresses inside the run's shared parts."""
    sides = shared.get(_SIDES)
    if sides is None or len(sides) >= _SIDES_SIZE:
        sides = shared[_SIDES] = {}
    return sides


def _d_part(m: int, n: int, cta_group: int, ws: bool, taddr: int, shared: dict | None):
    """(lanes, cols, rows, D's mask, D's cells for _accumulate) of ``d_cells``; the same read-only arrays for every MMA of the run with this shape
    and d-tmem address."""
    key = ("d", m, n, cta_group, ws, taddr)
    found = None if shared is None else shared.get(key)
    if found is None:
        moved = None if shared is None else _d_moved(m, n, cta_group, ws, taddr, shared) \
            or _d_block(m, n, cta_group, taddr)
        if moved is not None:
            lanes, cols, rows, d_at = moved
        else:
            lanes, cols, rows = d_cells(m, n, cta_group, ws, taddr)
            d_at = tmem_block(lanes, cols)
        # _mask(lanes, cols): tmem_block's slices are those very cells, else it gives
        # the cells back, so the mask is set by a block's slices, not cell by cell
        d_mask = np.zeros((TMEM_LANES, TMEM_COLUMNS), bool)
        d_mask[d_at] = True
        found = (lanes, cols, rows, *_read_only(d_mask), d_at)
        if shared is not None:
            shared[key] = found
            shared.setdefault(_d_template_key(m, n, cta_group, ws, taddr),
                              (taddr & 0xFFFF, found, int(cols.max())))
    return found


def _instr_descriptor(idesc: int, kind: str, shared: dict | None):
    """``decode_instr_descriptor(idesc, kind)`` (a frozen InstrDescriptor), the same
    object for the run's MMAs of this descriptor; an invalid one raises every time."""
    key = ("idesc", idesc, kind)
    found = None if shared is None else shared.get(key)
    if found is None:
        found = decode_instr_descriptor(idesc, kind)
        if shared is not None:
            shared[key] = found
    return found


def _has_cells(mask: np.ndarray, shared: dict | None) -> bool:
    """``mask.any()``, kept for a read-only mask (a shared D mask) by its id, with the
    mask, so that no other object takes the id while kept."""
    if shared is None or mask.flags.writeable:
        return bool(mask.any())
    key = ("any", id(mask))
    found = shared.get(key)
    if found is None or found[0] is not mask:
        found = shared[key] = (mask, bool(mask.any()))
    return found[1]


def _operand(desc, rows: int, k: int, element: str, mn_major: bool, shared: dict | None,
             skip: int = 0):
    """(addresses of rows ``skip`` to ``skip + rows`` of the operand ``desc`` describes,
    ``operand_addresses``; (U, shift) such that U + shift are their ``unique_addresses``,
    or None when not computed). When they are a pattern shifted by the start
    (``pattern_phase``), the pattern of the start's phase and its unique addresses U are
    made once per run and layout, and the rest of the start (shift) added; else the
    general computation."""
    phase = None if shared is None else pattern_phase(desc)
    if phase is None:
        return operand_addresses(desc, rows + skip, k, element, mn_major)[skip:], None
    key = _operand_key(desc, phase, rows, skip, k, element, mn_major)
    found = shared.get(key)
    if found is None:
        pattern, chunks = _prefix_pattern(shared, key)
        if pattern is None:
            pattern = operand_addresses(dataclasses.replace(desc, start=phase), rows + skip,
                                        k, element, mn_major)[skip:]
            chunks = _pattern_chunks(pattern)
        found = shared[key] = _read_only(pattern, _pattern_unique(shared, key, pattern,
                                                                  chunks))
        _note_widest(shared, key, pattern, chunks)
    pattern, unique = found
    shift = desc.start - phase
    return pattern + shift, (unique, shift)


def _operand_key(desc, phase: int, rows: int, skip: int, k: int, element: str,
                 mn_major: bool) -> tuple:
    """The key of an operand's address pattern in the run's shared parts (``_operand``;
    ``_operand_chunks`` finds the pattern by it)."""
    return ("operand", desc.swizzle, desc.leading_offset, desc.stride_offset, phase, rows,
            skip, k, element, mn_major)


def _operand_chunks(shared: dict | None, desc, rows: int, k: int, element: str,
                    mn_major: bool, skip: int = 0):
    """(chunks[rows, bytes / 16], offset, the largest chunk) such that the chunks plus
    the offset are those (address // 16) of the addresses ``_operand`` gave for the same
    arguments (``tc_datapath.gather_bytes`` copies the operand by them), or None
    when that did not use a kept pattern or the pattern's rows are not whole aligned
    16-byte chunks in order (an MN-major operand's are not). The swizzles move whole
    16-byte units (9.7.16.10.6) and every offset of a K-major layout is a multiple of 16
    bytes (Table 40 encodes them in units of 16), so a K-major pattern's are; the
    addresses are the pattern plus the rest of the start (a multiple of 16 bytes, as
    the start is), so their chunks are the pattern's plus that over 16 (the offset). The
    pattern's chunks are found once per run (``tma.chunk_rows``, which checks every
    byte)."""
    phase = None if shared is None else pattern_phase(desc)
    if phase is None:
        return None
    key = _operand_key(desc, phase, rows, skip, k, element, mn_major)
    found = shared.get(key)
    shift = desc.start - phase
    if found is None or shift % 16:
        return None
    pattern = found[0]
    kept = shared.setdefault(_CHUNKS, {})
    chunks = kept.get(key)
    if chunks is None or chunks[0] is not pattern:
        chunks = kept[key] = (pattern, _pattern_chunks(pattern))
    if chunks[1] is None:
        return None
    index, highest = chunks[1]
    return index, shift // 16, highest


def _smem_reads(b_addresses, b_unique, a_addresses, a_unique) -> np.ndarray:
    """unique_addresses of both operands' (A's None when in tensor memory). From their
    own unique addresses ((U, shift) of ``_operand``) when both are known and their
    ranges do not overlap (the lower one's then come first), else from the addresses."""
    if a_addresses is None and b_unique is not None:
        return b_unique[0] + b_unique[1]
    if b_unique is not None and a_unique is not None and b_unique[0].size \
            and a_unique[0].size:
        first, second = sorted((a_unique, b_unique), key=lambda u: int(u[0][0]) + u[1])
        if int(first[0][-1]) + first[1] < int(second[0][0]) + second[1]:
            out = np.empty(first[0].size + second[0].size, np.int64)
            np.add(first[0], first[1], out=out[:first[0].size])
            np.add(second[0], second[1], out=out[first[0].size:])
            return out
    smem = [b_addresses.reshape(-1)]
    if a_addresses is not None:
        smem.append(a_addresses.reshape(-1))
    return unique_addresses(np.concatenate(smem))


def _build_mma(kind, cta_group, ws, operands, rank, cluster_size,
               collector: datamove.CollectorUsage, is_sparse: bool = False,
               shared: dict | None = None) -> Operation:
    """The operation of one dense or sparse tcgen05.mma; ``shared``: the run's shared
    parts (``shared_parts``), or None to compute every one."""
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
    info = _instr_descriptor(int(idesc), kind, shared)
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
        d_mask = _mask(lanes, cols)
        d_at = tmem_block(lanes, cols)   # D's cells, as slices when a block
    else:
        lanes, cols, rows, d_mask, d_at = _d_part(info.m, info.n, cta_group, ws,
                                                  int(d_taddr), shared)
    fp = Footprint()
    a_in_tmem = isinstance(a_operand, Address)
    # the operands' addresses of an MMA with A in shared memory are a pure function of
    # this key, kept in the run's shared parts: the MMAs of two accumulators (another
    # d-tmem) or with enable-input-d false then true read the same stage's operands
    side_key = None if shared is None or a_in_tmem or is_sparse else (
        "smem side", kind, cta_group, ws, int(idesc), int(b_desc), int(a_operand),
        column_shift)
    sides = None if side_key is None else _smem_sides(shared)
    side = None if side_key is None else sides.get(side_key)
    if side is not None:
        b_addresses, a_addresses, smem_reads, _, b_chunks, a_chunks = side
    else:
        b_desc_d = decode_smem_descriptor(int(b_desc))
        b_rows = info.n // cta_group   # each CTA of a pair holds N/2 rows of B
        if info.transpose_b and ELEMENT_BYTES[info.b_type] == 1 and (
                info.n % (16 * cta_group) or info.n < 16 * cta_group):
            raise SimError(f"N = {info.n} with an 8-bit transposed B: Table 50 allows "
                           f"{16 * cta_group} <= N <= 256 in steps of {16 * cta_group} for "
                           f"cta_group::{cta_group}")
        # Table 45's column shift: MMA column c reads B's column c + shift
        b_addresses, b_unique = _operand(b_desc_d, b_rows, k, info.b_type,
                                         info.transpose_b, shared, skip=column_shift)
        # their 16-byte chunks, for perform's gathers (None: byte by byte)
        b_chunks = _operand_chunks(shared, b_desc_d, b_rows, k, info.b_type,
                                   info.transpose_b, column_shift)
        a_addresses = a_unique = a_chunks = None
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
                sparse.check_a_tmem_alignment(int(a_operand), int(d_taddr), cta_group,
                                              info.m)
            a_cells = _a_tmem_cells(lanes, rows, int(a_operand),
                                    a_k * ELEMENT_BYTES[info.a_type])
        else:
            a_desc = decode_smem_descriptor(int(a_operand))
            a_addresses, a_unique = _operand(a_desc, rows, a_k, info.a_type,
                                             info.transpose_a, shared)
            a_chunks = _operand_chunks(shared, a_desc, rows, a_k, info.a_type,
                                       info.transpose_a)
    meta = None if not is_sparse else sparse.Metadata(
        kind, int(idesc), int(meta_taddr), lanes[:, 0], int(d_taddr) >> 16,
        sparse.half_datapath(cta_group, info.m))
    if disabled is not None:
        lane_bits = np.array([(disabled[i // 32] >> (i % 32)) & 1 for i in range(32 * len(disabled))],
                             bool)
        if len(disabled) != 4 * cta_group:
            raise SimError(f"disable-output-lane has {len(disabled)} elements; cta_group::"
                           f"{cta_group} takes {4 * cta_group} (9.7.16.10.9.1)")
    if side is None:
        smem_reads = _smem_reads(b_addresses, b_unique, a_addresses, a_unique)
        if side_key is not None:
            side = sides[side_key] = (*_read_only(b_addresses, a_addresses, smem_reads),
                                      _reads_chunk_form(shared, smem_reads, b_unique,
                                                        a_addresses, a_unique),
                                      b_chunks, a_chunks)
    for r in ranks:
        fp.tmem_writes[r] = d_mask
        fp.smem_reads[r] = smem_reads
        if not a_in_tmem and meta is None:   # D's cells alone, or none
            if enable_input_d and _has_cells(d_mask, shared):
                fp.tmem_reads[r] = d_mask
            continue
        reads = d_mask.copy() if enable_input_d else np.zeros_like(d_mask)
        if a_in_tmem:
            reads[a_cells[0], a_cells[1]] = True
        if meta is not None:
            reads[meta.cells()] = True
        if reads.any():
            fp.tmem_reads[r] = reads
    if side is not None:   # the chunks of the kept addresses, made once (smem_chunks)
        for r in ranks:
            give_chunk_form(fp, r, smem_reads, side[3])
    if shared is not None and not a_in_tmem and meta is None:   # D's mask alone
        shared_summary(fp, shared, ("tmem summary", info.m, info.n, cta_group, ws,
                                    int(d_taddr), rank, bool(fp.tmem_reads)),
                       block=(d_mask, d_at))

    def perform(ctas: list[CtaMemory]) -> None:
        b_raw = [gather_bytes(ctas[r].smem, b_addresses, b_chunks) for r in ranks]
        if ws:   # the collector holds B for .ws, A otherwise (9.7.16.10)
            b_raw = [datamove.through_collector(ctas[rank], collector, b_raw[0], "B",
                                                 info.b_type)]
        b_parts = [decode_elements(raw, info.b_type) for raw in b_raw]
        # [N, K]; one part is decode_elements' new array, as the concatenation would be
        b_matrix = b_parts[0] if len(b_parts) == 1 else np.concatenate(b_parts, axis=0)
        if info.negate_b:
            b_matrix = -b_matrix
        if zero_mask is not None:   # 9.7.16.4.3: "0s must be used for the entire column"
            b_matrix[zero_mask.zero] = 0
        for r in ranks:
            cta = ctas[r]
            a_raw = _tmem_bytes(cta, *a_cells, rows) if a_in_tmem else \
                gather_bytes(cta.smem, a_addresses, a_chunks)
            if not ws:
                a_raw = datamove.through_collector(cta, collector, a_raw, "A", info.a_type)
            a_matrix = decode_elements(a_raw, info.a_type)          # [rows, K]
            if meta is not None:      # [rows, K/2] stored -> [rows, K] (9.7.16.10.8)
                a_matrix = meta.expand(cta.tmem, a_matrix)
            if info.negate_a:
                a_matrix = -a_matrix
            with one_blas_thread():
                product = a_matrix @ b_matrix.T                 # [rows, N]
            _accumulate(cta, *d_at, product, info, enable_input_d, scale_input_d,
                        None if disabled is None else lane_bits[lanes + 128 * (r - rank)])

    key = (rank, int(d_taddr), info.m, info.n, cta_group)
    return Operation("mma", fp, key, perform)


def _build_scaled_mma(parts: list[str], kind: str, cta_group: int, operands: list,
                      rank: int, cluster_size: int, shared: dict | None = None):
    """The operation of one ``tcgen05.mma.cta_group.kind{.block_scale}{.size}`` (syntax 2
    and 4 of 9.7.16.10.9.1): operands [d-tmem], a-desc | [a-tmem], b-desc, idesc,
    [scale-A-tmem], [scale-B-tmem], enable-input-d. The formats, scale factors and
    their cells are block_scale's; the cells and accumulation are this module's.
    ``shared``: as _build_mma's."""
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
    lanes, cols, rows, d_mask, d_at = _d_part(info.m, info.n, cta_group, False,
                                              int(d_taddr), shared)
    layout_b = cta_group == 2 and info.m == 128
    k_bytes = block_scale.row_bytes(kind, info.k)
    # K-major rows of k_bytes one-byte elements: operand_addresses(.., "u8", False) is
    # k_major_addresses(desc, rows, k_bytes)
    b_addresses, b_unique = _operand(decode_smem_descriptor(int(b_desc)),
                                     info.n // cta_group, k_bytes, "u8", False, shared)
    a_addresses = a_unique = None
    a_in_tmem = isinstance(a_operand, Address)
    if a_in_tmem:
        if info.a_type in block_scale.SUB_BYTE_BITS and kind == "mxf8f6f4":
            raise block_scale.sub_byte_a_in_tmem(kind, info.a_type)
        a_cells = _a_tmem_cells(lanes, rows, int(a_operand), k_bytes)
    else:
        a_addresses, a_unique = _operand(decode_smem_descriptor(int(a_operand)), rows,
                                         k_bytes, "u8", False, shared)
    sfa_cells = block_scale.scale_factor_cells(int(sfa_taddr), rows)
    sfb_cells = block_scale.scale_factor_cells(int(sfb_taddr), info.n, layout_b_split=layout_b)

    fp = Footprint()
    smem_reads = _smem_reads(b_addresses, b_unique, a_addresses, a_unique)
    for r in ranks:
        fp.tmem_writes[r] = d_mask
        reads = d_mask.copy() if enable_input_d else np.zeros_like(d_mask)
        if a_in_tmem:
            reads[a_cells[0], a_cells[1]] = True
        for cell_lanes, cell_cols in (sfa_cells, sfb_cells):
            reads[cell_lanes, np.broadcast_to(cell_cols, cell_lanes.shape)] = True
        fp.tmem_reads[r] = reads
        fp.smem_reads[r] = smem_reads   # np.unique's, for non-negative addresses

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
            _accumulate(cta, *d_at, product, info, enable_input_d, 0, None)

    key = (rank, int(d_taddr), info.m, info.n, cta_group)
    return Operation("mma", fp, key, perform)
