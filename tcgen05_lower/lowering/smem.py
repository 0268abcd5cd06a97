"""Operand tiles in shared memory: placement and cooperative fills (their matrix
descriptors: ``lowering/smem_descriptors.py``).

Tiles live in one dynamic shared-memory array, placed in program order, each aligned to
1024 bytes so that every swizzle pattern starts on its boundary (Table 41) and the
descriptors' base offset is 0. A multi-stage tile ``[stages, rows, K]`` holds its stages
one after another, each starting on its swizzle's boundary (``stage_bytes``);
``tcgen05.smem_stage`` addresses one. The kernel records the size as
``tcgen05.dynamic_smem_bytes``.
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower import emit
from tcgen05_lower.bindings import file_location, ir, llvm
from tcgen05_lower.dialect.ops import SmemBufferOp, SmemFillOp, SmemStageOp
from tcgen05_lower.element_types import element_bits
from tcgen05_lower.emit import Sym, as_value, cast, i32, i64, index
from tcgen05_lower.isa import addressing
from tcgen05_lower.kernel_ir import constant_int, global_matrix, known_residue, stored_k
from tcgen05_lower.lowering.core import Loop, lowers
from tcgen05_lower.lowering.vector_stores import VECTOR_BYTES, promised_alignment
from tcgen05_lower.lowering.registers import _and, _if_else, cta_in_pair

#: arith.cmpi predicates "ult" and "uge".
_ULT, _UGE = 6, 9

#: Alignment of every tile: the 128B swizzle pattern repeats every 1024 bytes (Table 41).
TILE_ALIGNMENT = 1024
#: The most dynamic shared memory one CTA may opt in to: 227 KiB on compute capability
#: 10.x (CUDA C++ Programming Guide, technical specifications; the figure is not in the
#: PTX ISA). Applied to every tcgen05 target.
MAX_DYNAMIC_SMEM = 227 * 1024
#: The dynamic shared-memory array every kernel of a module shares.
DYNAMIC_SMEM_SYMBOL = "__tcgen05_dynamic_smem"


def ensure_dynamic_smem(lowering) -> None:
    body = lowering.module.regions[0].blocks[0]
    for existing in body.operations:
        existing = existing.operation
        if existing.name == "llvm.mlir.global" and \
                ir.StringAttr(existing.attributes["sym_name"]).value == DYNAMIC_SMEM_SYMBOL:
            return
    with ir.InsertionPoint(body.operations[0]), lowering.kernel.location:
        llvm.GlobalOp(ir.Type.parse("!llvm.array<0 x i8>"), DYNAMIC_SMEM_SYMBOL,
                      ir.Attribute.parse("#llvm.linkage<external>"),
                      addr_space=3, alignment=TILE_ALIGNMENT)


#: Where the repeating pattern of each swizzling mode starts (Table 41); without a swizzle
#: the matrix start address must be 16-byte aligned (9.7.16.4.1, after Table 41). Each
#: stage of a multi-stage tile starts on its swizzle's boundary, so that its descriptors'
#: base offset is 0 like a single tile's.
STAGE_ALIGNMENT = MappingProxyType({"128B": 1024, "128B_base32B": 1024, "64B": 512, "32B": 256,
                                   "none": 16})


def stage_bytes(tile: "d.SmemType") -> int:
    """The distance between consecutive stages of a multi-stage tile (the bytes of one
    [rows, K] stage rounded up to its swizzle's alignment); for a single tile, its bytes
    rounded up alike."""
    size = tile.rows * tile.k * element_bits(tile.element) // 8
    align = STAGE_ALIGNMENT[tile.swizzle]
    return -(-size // align) * align


def tile_bytes(tile: "d.SmemType") -> int:
    """The shared memory a tile occupies: its stages, each aligned (``stage_bytes``)."""
    if not tile.staged:
        return tile.rows * tile.k * element_bits(tile.element) // 8
    return tile.stages * stage_bytes(tile)


@lowers(SmemStageOp)
def lower_smem_stage(lowering, op) -> None:
    """The address of stage `op.operands[1]` of a multi-stage tile: the tile's address plus
    stage x ``stage_bytes``. The index is a run-time value; the lowering does not check
    its range (tcgen05-verify checks a constant one), as for tcgen05.tmem_stage."""
    view = SmemStageOp(op)
    tile = d.type_info(view.tile.type)
    offset = Sym(cast(view.stage, i64())) * stage_bytes(tile)
    lowering.values[op.results[0]] = emit.gep_bytes(lowering.values[view.tile],
                                                    as_value(offset, i64()))


@lowers(SmemBufferOp)
def lower_smem_buffer(lowering, op) -> None:
    t = d.type_info(op.results[0].type)
    size = tile_bytes(t)
    offset = -(-lowering.smem_bytes // TILE_ALIGNMENT) * TILE_ALIGNMENT
    lowering.smem_bytes = offset + size
    lowering.smem_tiles.append((op, offset, size))
    if lowering.smem_bytes > MAX_DYNAMIC_SMEM:
        placed = "; ".join(f"line {file_location(t_.location)[1]}: {n} bytes at {o}"
                           for t_, o, n in lowering.smem_tiles)
        lowering.fail(op, f"shared-memory tiles need {lowering.smem_bytes} bytes of dynamic "
                          f"shared memory, over the {MAX_DYNAMIC_SMEM} a CTA may use (227 KiB, "
                          f"compute capability 10.x); this tile crosses it. Tiles in order: "
                          f"{placed}")
    ensure_dynamic_smem(lowering)
    base = emit.address_of(DYNAMIC_SMEM_SYMBOL, 3)
    lowering.values[op.results[0]] = emit.gep_bytes(base, emit.constant(offset, i64()))


def _stored_k(lowering, tile_value) -> int:
    """kernel_ir.stored_k of a tile, worked out once per tile in a lowering: it looks at
    every use of the tile, and a kernel's fills of one tile are as many as its tiles'
    uses, so asking at every fill would grow with the square of the kernel."""
    cache = getattr(lowering, "smem_stored_k", None)
    if cache is None:
        cache = lowering.smem_stored_k = {}
    if tile_value not in cache:
        cache[tile_value] = stored_k(tile_value)
    return cache[tile_value]


@lowers(SmemFillOp)
def lower_smem_fill(lowering, op) -> None:
    """A cooperative copy: the CTA's threads stride over the tile.

    K-contiguous sources copy 16-byte chunks (the swizzle permutes 16-byte units, so a
    chunk stays contiguous); transposed sources copy element by element, consecutive
    threads reading consecutive global addresses, or read 16-byte chunks along M/N where
    the source promises the alignment (_transposing_chunks). Tile row r is row row_offset + r of
    the source matrix (the dims of the op, kernel_ir.global_matrix); in a cta_group::2
    kernel the CTA of rank q (``%cluster_ctarank & 1``) fills rows row_offset + q * R ..,
    R being the tile's rows (docs/cta-pairs.md). With the matrix's extents given (rows,
    k_size), an element outside them is written as zero and not read: a chunk that lies
    partly outside is copied element by element."""
    fill = SmemFillOp(op)
    source, tile_value, k_offset = fill.source, fill.tile, fill.k_offset
    tile = d.type_info(tile_value.type)
    bits = element_bits(tile.element)
    element_bytes = bits // 8
    layout = fill.src_layout
    matrix = global_matrix(op)
    ld = matrix.ld if isinstance(matrix.ld, int) else _int_or_i64(matrix.ld)
    tile_ptr = lowering.values[tile_value]
    k0 = _int_or_i64(k_offset)
    first_row = 0 if matrix.row_offset is None else _int_or_i64(matrix.row_offset)
    # In a CTA pair each CTA's tile is its slice of the pair's operand, the rows the MMA
    # reads from that CTA (docs/cta-pairs.md): rows rank * R .. of the global matrix, R
    # the tile's rows (M/2 of A, N/2 of B).
    if lowering.info.cta_group == 2:
        first_row = first_row + Sym(cast(cta_in_pair(lowering).value, i64())) * tile.rows
    rows = None if matrix.rows is None else _i64(matrix.rows)
    k_size = None if matrix.k_size is None else _i64(matrix.k_size)
    if tile.major == "MN":
        # 16-byte chunks along M/N from a k_mn source: rows ld apart, from the row offset.
        aligned = _vector_alignment(source, (matrix.ld, matrix.row_offset), element_bytes) \
            if layout == "k_mn" else None
        _fill_mn_major(lowering, op, tile, source, tile_ptr, layout, ld, k0, first_row, rows,
                       k_size, aligned)
        return
    chunk_bytes = 16 if layout == "mn_k" else element_bytes
    # A sparse MMA's A is stored compressed: the fill copies its K/2 stored elements per
    # row from a source of that width (kernel_ir.stored_k).
    row_bytes = _stored_k(lowering, tile_value) * element_bytes
    if layout == "mn_k" and row_bytes % chunk_bytes:
        lowering.fail(op, f"the tile's rows are {row_bytes} bytes, not a multiple of the "
                          f"{chunk_bytes}-byte chunks src_layout = \"mn_k\" copies")
    if layout == "k_mn" and _transposing_chunks(lowering, tile, source, ld, first_row, rows,
                                                k_size, element_bytes):
        _fill_transposing_chunks(lowering, tile, source, tile_ptr, ld, k0, first_row,
                                 row_bytes // element_bytes, element_type_of(bits))
        return
    # 16-byte chunks along K from an mn_k source: rows ld apart, from the K offset.
    aligned = _vector_alignment(source, (matrix.ld, k_offset), element_bytes) \
        if layout == "mn_k" else None
    per_row = row_bytes // chunk_bytes
    total = tile.rows * per_row
    warp_trips = _same_trips_in_a_warp(total, lowering.threads)
    loop = Loop(cast(lowering.tid.value, index()), emit.constant(total, index()),
                emit.constant(lowering.threads, index()))
    element_type = ir.IntegerType.get_signless(bits)
    bounded = rows is not None or k_size is not None
    with ir.InsertionPoint(loop.body):
        c = Sym(cast(loop.induction_variable, i64()))
        if layout == "mn_k":
            # Row and K of the chunk are computed only where something needs them: when
            # source rows are ld = row_bytes / element_bytes apart, the chunk's source
            # byte is (first_row * ld + k0) * element_bytes + c * chunk_bytes, and
            # kmajor_chunk_offset needs no division for a one-K-block row. Loop bodies
            # without divisions are what LLVM's loop and straight-line strength
            # reduction handle in time linear in the kernel (benchmarks/compile/NVVM.md).
            row = kchunk = None
            if bounded or not (isinstance(ld, int) and ld * element_bytes == row_bytes):
                row, kchunk = c // per_row, c % per_row
            if row is None:
                global_byte = (first_row * ld + k0) * element_bytes + c * chunk_bytes
            else:
                global_byte = ((first_row + row) * ld + k0) * element_bytes \
                    + kchunk * chunk_bytes
            if bounded:
                source_row = first_row + row
                k = k0 + kchunk * (chunk_bytes // element_bytes)
            smem_byte = addressing.kmajor_chunk_offset(
                c, chunk_bytes=chunk_bytes, row_bytes=row_bytes, rows=tile.rows,
                swizzle=tile.swizzle)
        else:
            row, kidx = c % tile.rows, c // tile.rows
            kbyte = kidx * element_bytes
            source_row = first_row + row
            k = k0 + kidx
            global_byte = (k * ld + source_row) * element_bytes
            smem_byte = addressing.kmajor_offset(row, kbyte, rows=tile.rows,
                                                 swizzle=tile.swizzle)
        src = emit.gep_bytes(source, as_value(global_byte, i64()))
        in_rows = None if rows is None else _less(source_row, rows)
        count = chunk_bytes // element_bytes
        _copy_chunk(src, lambda: emit.gep_bytes(tile_ptr, as_value(smem_byte, i64())),
                    element_type, count,
                    whole=None if rows is None and k_size is None else
                    lambda: _and(in_rows, None if k_size is None else
                                 _not_less(k_size, k + count)),
                    inside=lambda j: _and(in_rows, None if k_size is None
                                          else _less(k + j, k_size)),
                    aligned=aligned, warp_trips=warp_trips)
        ir.Operation.create("scf.yield")


def element_type_of(bits: int) -> "ir.Type":
    return ir.IntegerType.get_signless(bits)


def _transposing_chunks(lowering, tile, source, ld, first_row, rows, k_size,
                        element_bytes: int) -> bool:
    """Whether a transposing fill (an MN-contiguous source into a K-major tile) may read
    its source in 16-byte chunks along M/N: the source argument promises 16-byte
    alignment (``llvm.align``, as for store_fragment's vector stores), the source rows
    (src_ld elements apart) and the first row keep every chunk on a 16-byte boundary, the
    tile's rows are whole chunks, and no extents ask for per-element bounds checks."""

    return (rows is None and k_size is None
            and promised_alignment(lowering, source) >= VECTOR_BYTES
            and isinstance(ld, int) and ld * element_bytes % VECTOR_BYTES == 0
            and isinstance(first_row, int) and first_row * element_bytes % VECTOR_BYTES == 0
            and tile.rows * element_bytes % VECTOR_BYTES == 0)


def _fill_transposing_chunks(lowering, tile, source, tile_ptr, ld: int, k0, first_row: int,
                             depth: int, element_type) -> None:
    """The transposing fill in 16-byte chunks (see _transposing_chunks): chunk c holds
    the n = 16 / element_bytes elements of tile rows r0 .. r0 + n - 1 at K index k, r0 =
    (c % (rows / n)) * n and k = c // (rows / n), consecutive threads reading consecutive
    16-byte chunks of a source row; one 16-byte load, then each element to its place in
    the K-major tile (kmajor_row_offsets: the n rows of one K byte)."""
    element_bytes = element_type.width // 8
    per_chunk = 16 // element_bytes
    groups = tile.rows // per_chunk
    loop = Loop(cast(lowering.tid.value, index()), emit.constant(groups * depth, index()),
                emit.constant(lowering.threads, index()))
    with ir.InsertionPoint(loop.body):
        c = Sym(cast(loop.induction_variable, i64()))
        first, kidx = (c % groups) * per_chunk, c // groups
        global_byte = ((k0 + kidx) * ld + first_row + first) * element_bytes
        src = emit.gep_bytes(source, as_value(global_byte, i64()))
        vector_type = ir.VectorType.get([per_chunk], element_type)
        chunk = llvm.LoadOp(vector_type, src, alignment=16).result
        offsets = addressing.kmajor_row_offsets(first, kidx * element_bytes, per_chunk,
                                                rows=tile.rows, swizzle=tile.swizzle)
        for j, offset in enumerate(offsets):
            value = llvm.ExtractElementOp(chunk, emit.constant(j, i32())).result
            llvm.StoreOp(value, emit.gep_bytes(tile_ptr, as_value(offset, i64())),
                         alignment=element_bytes)
        ir.Operation.create("scf.yield")


def _fill_mn_major(lowering, op, tile, source, tile_ptr, layout: str, ld, k0, first_row,
                   rows, k_size, aligned=None) -> None:
    """The cooperative copy into an MN-major tile (``addressing.mnmajor_offset``): tile
    element (mn, k) is source element (first_row + mn, k0 + k). From an MN-contiguous
    source (``k_mn``: element (mn, k) at k * ld + mn) the threads copy 16-byte chunks
    along MN, which the MN-major layout keeps contiguous under every swizzle (the swizzle
    permutes 16-byte units, Table 41); a chunk that lies partly outside the matrix's
    extents, or whose alignment the run-time test `aligned` refutes (_vector_alignment),
    is copied element by element. From a K-contiguous source (``mn_k``) they copy
    element by element, consecutive threads reading consecutive K."""
    bits = element_bits(tile.element)
    element_bytes = bits // 8
    mn_bytes = tile.rows * element_bytes
    depth = _stored_k(lowering, SmemFillOp(op).tile)
    chunk_bytes = 16 if layout == "k_mn" else element_bytes
    per_k = mn_bytes // chunk_bytes
    element_type = ir.IntegerType.get_signless(bits)
    warp_trips = _same_trips_in_a_warp(depth * per_k, lowering.threads)
    loop = Loop(cast(lowering.tid.value, index()), emit.constant(depth * per_k, index()),
                emit.constant(lowering.threads, index()))
    with ir.InsertionPoint(loop.body):
        c = Sym(cast(loop.induction_variable, i64()))
        if layout == "k_mn":
            kk, mnchunk = c // per_k, c % per_k
        else:
            mnchunk, kk = c // depth, c % depth
        mnbyte = mnchunk * chunk_bytes
        mn = mnbyte // element_bytes
        k = k0 + kk
        source_row = first_row + mn
        if layout == "k_mn":
            global_byte = (k * ld + source_row) * element_bytes
        else:
            global_byte = (source_row * ld + k) * element_bytes
        smem_byte = addressing.mnmajor_offset(mnbyte, kk, mn_bytes=mn_bytes,
                                              swizzle=tile.swizzle)
        src = emit.gep_bytes(source, as_value(global_byte, i64()))
        in_k = None if k_size is None else _less(k, k_size)
        count = chunk_bytes // element_bytes
        _copy_chunk(src, lambda: emit.gep_bytes(tile_ptr, as_value(smem_byte, i64())),
                    element_type, count,
                    whole=None if rows is None and k_size is None else
                    lambda: _and(in_k, None if rows is None else
                                 _not_less(rows, source_row + count)),
                    inside=lambda j: _and(in_k, None if rows is None
                                          else _less(source_row + j, rows)),
                    aligned=aligned, warp_trips=warp_trips)
        ir.Operation.create("scf.yield")


def _copy_chunk(src, dst, element_type, count: int, *, whole, inside,
                aligned=None, warp_trips=False) -> None:
    """Copies one chunk of `count` consecutive elements from global `src` to the shared
    address `dst()`: with one (16-byte vector) load and store when `whole` and `aligned`
    are None (no extents given, alignment known at compile time); else so where `whole()`
    and `aligned` (an i1, _vector_alignment) hold and element by element elsewhere (and
    always for a one-element chunk), element j read only where ``inside(j)`` (an i1, or
    None: always) holds and written as zero where not.

    Every choice keeps the warp converged: a .sync.aligned tcgen05 instruction may follow
    the fill (a ``tcgen05.wait::st`` insert-sync places after it), which all threads of
    the warp must execute together (PTX ISA 9.7.16.8.5: "all threads in the warp must
    execute the same ... instruction"), and nothing in PTX promises reconvergence after
    a divergent branch. `aligned` tests the source pointer, the leading dimension and the
    K offset, the same in every thread: a branch on it is uniform. `whole()` differs
    between the threads of a warp at the matrix's edge: with `warp_trips` (the copy loop
    runs the same iterations in all threads of a warp) the warp votes (``vote.sync.all``)
    and copies element by element unless every thread's chunk is whole; else each thread
    chooses by predicated loads and a ``selp`` (_vector_or_elements). The element copy
    reads by predicated loads, not branches, too. One element copy serves both the
    misaligned and the edge case (the static code of the loop stays as it was)."""
    size = element_type.width // 8

    def at_once():
        chunk_type = ir.VectorType.get([4], i32()) if count * size == 16 else element_type
        value = llvm.LoadOp(chunk_type, src, alignment=count * size).result
        llvm.StoreOp(value, dst(), alignment=count * size)

    def elements():
        if count == 1:
            llvm.StoreOp(_load_if(src, element_type, inside(0)), dst(), alignment=size)
            return
        _store_words(_packed_elements(src, element_type, count, inside), dst(),
                     count * size)

    if whole is None and aligned is None:
        at_once()
    elif count == 1:
        elements()
    elif whole is None or warp_trips:
        _if_else(_and(aligned, None if whole is None else _warp_all(whole())), at_once,
                 elements)
    else:
        _vector_or_elements(src, dst(), element_type, count, _and(aligned, whole()), inside)


def _warp_all(condition):
    """An i1, the same in every thread of the warp: `condition` holds in all of its
    threads (``vote.sync.all.pred`` over the full warp, which every thread must reach)."""
    bit = ir.Operation.create("arith.extui", results=[i32()], operands=[condition]).results[0]
    (warp,) = emit.ptx("{ .reg .pred vote_in, vote_out; setp.ne.b32 vote_in, $1, 0; "
                       "vote.sync.all.pred vote_out, vote_in, 0xffffffff; "
                       "selp.u32 $0, 1, 0, vote_out; }", [bit], [i32()])
    return _not(emit.cmp_eq(warp, emit.constant(0, i32())))


def _same_trips_in_a_warp(total: int, threads: int) -> bool:
    """Whether a copy loop over `total` items, thread t taking t, t + threads, ..., runs
    the same number of iterations in all 32 threads of each warp: so when both are
    multiples of 32 (a warp's threads then pass `total` at the same iteration)."""
    return total % 32 == 0 and threads % 32 == 0


def _vector_or_elements(src, address, element_type, count: int, vector, inside) -> None:
    """The chunk at `src` stored at shared `address`: read as one 16-byte vector where the
    i1 `vector` holds, else element by element (element j where ``inside(j)`` holds, 0
    elsewhere), both by predicated loads and a ``selp`` of their values: no branch."""
    size = element_type.width // 8
    words = _packed_elements(src, element_type, count,
                             lambda j: _and(_not(vector), inside(j)))
    loaded = emit.ptx("mov.b32 $0, 0;\nmov.b32 $1, 0;\nmov.b32 $2, 0;\nmov.b32 $3, 0;\n"
                      "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];",
                      [src, vector], [i32()] * 4)
    _store_words([_select(vector, a, b) for a, b in zip(loaded, words)], address,
                 count * size)


def _load_if(address, element_type, condition):
    """The element at global `address` where `condition` (an i1, or None: always) holds,
    else 0: a predicated ld.global, not a branch."""
    size = element_type.width // 8
    if condition is None:
        return llvm.LoadOp(element_type, address, alignment=size).result
    if size == 1:   # PTX has no 8-bit registers: a byte is loaded into a 16-bit one
        i16 = ir.IntegerType.get_signless(16)
        wide = emit.ptx("mov.b16 $0, 0;\n@$2 ld.global.u8 $0, [$1];",
                        [address, condition], [i16])[0]
        return ir.Operation.create("arith.trunci", results=[element_type],
                                   operands=[wide]).results[0]
    bits = 8 * size
    return emit.ptx(f"mov.b{bits} $0, 0;\n@$2 ld.global.b{bits} $0, [$1];",
                    [address, condition], [element_type])[0]


def _packed_elements(src, element_type, count: int, read) -> list:
    """The `count` elements from `src` (element j read where ``read(j)`` holds, else 0)
    packed into i32 words, the lower address in the lower bits (little-endian, as a
    vector load would give them)."""
    size = element_type.width // 8
    per_word = max(1, 4 // size)
    words = []
    for first in range(0, count, per_word):
        word = None
        for j in range(first, min(first + per_word, count)):
            address = emit.gep_bytes(src, emit.constant(j * size, i64()))
            value = _load_if(address, element_type, read(j))
            if size < 4:
                value = ir.Operation.create("arith.extui", results=[i32()],
                                            operands=[value]).results[0]
            part = Sym(value) << (8 * size * (j - first)) if j > first else Sym(value)
            word = part if word is None else word | part
        words.append(as_value(word, i32()))
    return words


def _store_words(words: list, address, nbytes: int) -> None:
    """One shared-memory store of the i32 `words` (a vector of them, aligned to its
    `nbytes`)."""
    if len(words) == 1:
        llvm.StoreOp(words[0], address, alignment=nbytes)
        return
    vector_type = ir.VectorType.get([len(words)], i32())
    vector = llvm.UndefOp(vector_type).result
    for j, word in enumerate(words):
        vector = llvm.InsertElementOp(vector, word, emit.constant(j, i32())).result
    llvm.StoreOp(vector, address, alignment=nbytes)


def _not(condition):
    """``!condition`` of an i1."""
    true = emit.constant(1, emit.i1())
    return ir.Operation.create("arith.xori", results=[emit.i1()],
                               operands=[condition, true]).results[0]


def _select(condition, a, b):
    """``condition ? a : b`` (arith.select: a selp, not a branch)."""
    return ir.Operation.create("arith.select", results=[a.type],
                               operands=[condition, a, b]).results[0]


def _vector_alignment(source, values, element_bytes: int):
    """An i1 that holds, at run time, where a fill's 16-byte vector loads are aligned:
    the source pointer and each of `values` (the leading dimension, and the offset along
    the contiguous dimension; index values or ints or None) in bytes multiples of 16, so
    that every vector's address is. None (no test: the vector path always) when each
    value is known at compile time to keep the alignment (a constant, or a residue that
    kernel_ir.known_residue derives; tcgen05-verify refuses a misaligned one): the source
    pointer is then the caller's to align, as documented. A packed source whose rows are
    not 16-byte multiples (K = 70 bf16 elements) thus takes the element-by-element copy
    instead of a misaligned vector load, which faults (a vector access must be aligned
    to its whole size, vector_stores.VECTOR_BYTES); Triton specializes on divisibility likewise."""
    per_vector = VECTOR_BYTES // element_bytes
    unknown = [v for v in values if isinstance(v, ir.Value)
               and known_residue(v, per_vector) != 0]
    if not unknown:
        return None
    bits = Sym(llvm.PtrToIntOp(i64(), source).result)
    for value in unknown:
        bits = bits | _i64(value) * element_bytes
    return emit.cmp_eq(as_value(bits & (VECTOR_BYTES - 1), i64()),
                       emit.constant(0, i64()))


def _i64(value) -> Sym:
    return Sym(cast(value, i64()))


def _int_or_i64(value):
    """The Python int of a constant index or integer value (folded into the address
    arithmetic at compile time, x + 0 emitting nothing), else the value as an i64 Sym."""
    known = constant_int(value)
    return _i64(value) if known is None else known


def _less(a, b):
    """``a < b`` (unsigned) of two i64 Syms or ints, as an i1."""
    return ir.Operation.create("arith.cmpi", results=[emit.i1()],
                               operands=[as_value(a, i64()), as_value(b, i64())],
                               attributes={"predicate": ir.IntegerAttr.get(i64(), _ULT)}
                               ).results[0]


def _not_less(a, b):
    """``a >= b`` (unsigned), as an i1."""
    return ir.Operation.create("arith.cmpi", results=[emit.i1()],
                               operands=[as_value(a, i64()), as_value(b, i64())],
                               attributes={"predicate": ir.IntegerAttr.get(i64(), _UGE)}
                               ).results[0]
