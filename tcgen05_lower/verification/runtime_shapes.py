"""What holds at run time: the launch grid's form, kernel argument alignments, the dims of
a global matrix (leading dimension, offsets), smem_fill chunks and the 16-byte alignment of
its vector loads (known residues of run-time values), and the per-CTA tiles of a CTA
pair."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import pair_scale_tiles
from tcgen05_lower.dialect.attributes import DIMS
from tcgen05_lower.dialect.ops import MmaOp, SmemFillOp, SmemStageOp, wrap
from tcgen05_lower.element_types import isa_type
from tcgen05_lower.kernel_ir import (constant_int, defining_op, global_matrix, known_residue,
                                     misaligned_arguments, stored_k)
from tcgen05_lower.launch import GridError, grid_arguments
from tcgen05_lower.text import did_you_mean
from tcgen05_lower.verification.common import known_element_bits


#: Bytes of one global load of a K-contiguous (src_layout = "mn_k") smem_fill.
FILL_VECTOR_BYTES = 16


def _read_by_mma(tile) -> bool:
    """Whether a tcgen05.mma reads the shared-memory tile value `tile` as A or B."""
    for use in tile.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if MmaOp.matches(owner) and use.operand_number in (1, 2):
            return True
    return False


class RuntimeShapeRules:
    """Grid, alignments, global matrices and fills. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def check_grid(self, kernel, info) -> None:
        """The form of the grid entry (tcgen05_lower.launch). Which names are integer
        arguments only the source text says (parsed block arguments have no names): the
        driver checks that when it writes the launch manifest."""
        try:
            grid_arguments(info.grid)
        except GridError as exc:
            self.error(kernel, f"{d.KERNEL_ATTR}.grid: {exc}")

    def check_argument_alignment(self, kernel) -> bool:
        """The ``llvm.align`` of a kernel argument (the alignment the caller promises,
        which store_fragment's 16-byte stores rely on) is a power of two
        (kernel_ir.misaligned_arguments)."""
        found = misaligned_arguments(kernel)
        for _number, message in found:
            self.error(kernel, message)
        return not found

    def check_global_matrix(self, op) -> int | None:
        """The dims of an op that addresses a global matrix (kernel_ir.global_matrix); its
        leading dimension when it is a constant, else None."""
        matrix = global_matrix(op)
        for problem in matrix.problems:
            self.error(op, problem)
        ld_name = DIMS[wrap(op).NAME][0]
        ld = matrix.ld if isinstance(matrix.ld, int) or matrix.ld is None \
            else constant_int(matrix.ld)
        if ld is not None and ld <= 0:
            self.error(op, f"{ld_name} = {ld} must be positive")
            return None
        return None if matrix.problems else ld

    def check_smem_fill(self, op, info) -> None:
        fill = SmemFillOp(op)
        tile = d.type_info(fill.tile.type)
        layout = fill.src_layout
        if layout not in ("mn_k", "k_mn"):
            self.error(op, f"src_layout = \"{layout}\" is not \"mn_k\" or \"k_mn\""
                           + did_you_mean(layout, ("mn_k", "k_mn")))
        matrix_ok = not global_matrix(op).problems
        self.check_global_matrix(op)
        if tile.swizzle == "128B_base32B":
            self.error(op, "filling a tile with 128B swizzle of 32B atomicity is not "
                           "supported yet")
        elif known_element_bits(tile.element) not in (8, 16, 32):
            self.error(op, f"filling a tile of {isa_type(tile.element)} is not supported yet "
                           f"(8-, 16- and 32-bit elements only)")
        elif not self.check_fill_chunks(op, tile, layout):
            pass
        elif tile.major == "K" and layout == "mn_k" and matrix_ok:
            self.check_fill_alignment(op, tile)
        elif tile.major == "MN" and layout == "k_mn" and matrix_ok:
            self.check_fill_alignment(op, tile, along_mn=True)
        if info.cta_group == 2:
            self.check_pair_tile(op, SmemFillOp(op).tile, "filled")

    def check_fill_chunks(self, op, tile, layout: str) -> bool:
        """A fill along the tile's contiguous dimension (mn_k into a K-major tile, k_mn
        into an MN-major one) copies 16-byte chunks, the units the swizzle permutes (Table
        41): the tile's extent along that dimension must be whole chunks, or the chunks of
        one row would run into the next."""
        along_k = tile.major == "K" and layout == "mn_k"
        if not along_k and not (tile.major == "MN" and layout == "k_mn"):
            return True
        element_bytes = known_element_bits(tile.element) // 8
        if along_k:
            value = SmemFillOp(op).tile
            if value not in self.stored_k_memo:
                self.stored_k_memo[value] = stored_k(value)
            extent = self.stored_k_memo[value]
        else:
            extent = tile.rows
        if extent * element_bytes % FILL_VECTOR_BYTES == 0:
            return True
        what = "K" if along_k else "M/N"
        self.error(op, f"the tile's {what} extent of {extent} {isa_type(tile.element)} "
                       f"elements is {extent * element_bytes} bytes, not a multiple of the "
                       f"{FILL_VECTOR_BYTES}-byte chunks src_layout = \"{layout}\" copies")
        return False

    def check_pair_tile(self, op, tile, how: str) -> bool:
        """In a CTA pair, a tile is the CTA's slice of an MMA operand (M/2 rows of A, N/2
        of B), and each CTA fills (or TMA-loads) its own rows (docs/cta-pairs.md). A tile
        no MMA reads as A or B has no such split, but for a TMA-loaded tile of scale
        factors, whose split its tcgen05.cp's destination gives (pair_scale_tiles.py)."""
        if _read_by_mma(tile):
            return True
        # A stage of a ring (tcgen05.smem_stage): the ring is an MMA operand when an MMA
        # reads any stage of it (the load role's and the MMA role's stage views are
        # different values); the split is the stage's rows either way. Memoized per ring,
        # so that the kernel's fills and loads walk each ring's uses once.
        view = defining_op(tile)
        if view is not None and SmemStageOp.matches(view):
            ring = view.operands[0]
            memo = self.ring_read_by_mma
            if ring not in memo:
                memo[ring] = any(
                    SmemStageOp.matches(owner) and _read_by_mma(owner.results[0])
                    for owner in (u.owner.operation if hasattr(u.owner, "operation")
                                  else u.owner for u in ring.uses))
            if memo[ring]:
                return True
        if how == "loaded" and pair_scale_tiles.tile_split(tile) is not None:
            return True   # scale factors: the CTA's rows of scale_A, all of scale_B
        self.error(op, f"in a cta_group::2 kernel a shared-memory tile is {how} as this "
                       f"CTA's slice of an MMA operand (rows rank * R .., docs/cta-pairs.md), "
                       f"but no tcgen05.mma reads this tile as A or B, so how the pair "
                       f"splits it is not defined (only a TMA-loaded tile that "
                       f"tcgen05.cp.cta_group::2 copies into MMAs' scale_A buffers only, "
                       f"or scale_B buffers only, has a split: the CTA's rows, or the "
                       f"whole tile in each CTA; 9.7.16.9.2, tmem-facts section 3)")
        return False

    def check_fill_alignment(self, op, tile, along_mn: bool = False) -> None:
        """A fill that reads global memory in 16-byte vectors (ld.global.v4.b32) needs
        16-byte aligned addresses: every source row start (src_ld elements apart) and the
        offset along the contiguous dimension must be whole multiples of 16 bytes (each
        vector is one of the 16-byte units the swizzle permutes, Table 41). That dimension
        is K for a K-contiguous (mn_k) fill of a K-major tile, and M/N (the row offset)
        for an MN-contiguous (k_mn) fill of an MN-major tile (`along_mn`). A value known
        only at run time is checked when its residue modulo 16 bytes is known
        (kernel_ir.known_residue: e.g. a loop over K offsets 8, 72, 136, ...); otherwise
        the lowering tests it, with the source pointer, at run time and copies element
        by element where the vectors would be misaligned (lowering.smem._vector_alignment)."""
        fill = SmemFillOp(op)
        matrix = global_matrix(op)
        element = isa_type(tile.element)
        element_bytes = known_element_bits(tile.element) // 8
        per_vector = FILL_VECTOR_BYTES // element_bytes   # elements in one vector
        source = "k_mn" if along_mn else "mn_k"
        ld = matrix.ld if isinstance(matrix.ld, int) else constant_int(matrix.ld)
        if ld is not None:
            row_bytes = ld * element_bytes
            if row_bytes % FILL_VECTOR_BYTES:
                self.error(op, f"src_ld = {ld} {element} elements is {row_bytes} bytes, not "
                               f"a multiple of the {FILL_VECTOR_BYTES}-byte vector loads of "
                               f"src_layout = \"{source}\": every other row would start "
                               f"misaligned")
                return
        else:
            residue = known_residue(matrix.ld, per_vector)
            if residue:
                self.error(op, f"src_ld is {residue} modulo {per_vector} {element} elements "
                               f"({residue * element_bytes} bytes past a multiple of "
                               f"{FILL_VECTOR_BYTES}) for every value it takes: the "
                               f"{FILL_VECTOR_BYTES}-byte vector loads of src_layout = "
                               f"\"{source}\" would start every other row misaligned")
                return
        offset_value = matrix.row_offset if along_mn else fill.k_offset
        what = "row offset" if along_mn else "K offset"
        if offset_value is None:
            return  # no row offset: the tile starts at the matrix's first row
        offset = constant_int(offset_value)
        if offset is not None:
            if offset * element_bytes % FILL_VECTOR_BYTES:
                self.error(op, f"{what} {offset} {element} elements is "
                               f"{offset * element_bytes} bytes, not a multiple of the "
                               f"{FILL_VECTOR_BYTES}-byte vector loads of src_layout = "
                               f"\"{source}\"")
            return
        residue = known_residue(offset_value, per_vector)
        if residue:
            self.error(op, f"the {what} is {residue} modulo {per_vector} {element} "
                           f"elements ({residue * element_bytes} bytes past a multiple of "
                           f"{FILL_VECTOR_BYTES}) for every value it takes: not aligned to "
                           f"the {FILL_VECTOR_BYTES}-byte vector loads of src_layout = "
                           f"\"{source}\" (the 16-byte units the {tile.swizzle} swizzle "
                           f"permutes, Table 41)")
