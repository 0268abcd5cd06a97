"""tcgen05.mma shapes and operands: Table 39 (kind x .ws x cta_group x sparsity x types
-> M, N, K, and K = 96), what each TMEM buffer is to the MMAs that use it, and the operand
tiles (rows, K, k_offset, Table 52's major-ness x type size x swizzle)."""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import MmaOp, SmemStageOp, TmemStageOp
from tcgen05_lower.element_types import container_bits, isa_type
from tcgen05_lower.isa import descriptors, shapes, targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op, effective_scale_vec, mma_operands
from tcgen05_lower.text import did_you_mean
from tcgen05_lower.verification.common import known_element_bits


#: Swizzle width in bytes of each mode (Table 40); 16 bytes (a core-matrix row) without.
SWIZZLE_BYTES = MappingProxyType({"none": 16, "32B": 32, "64B": 64, "128B": 128, "128B_base32B": 128})


class MmaRules:
    """MMA shapes, operand roles and tiles. Mixed into tcgen05-verify's run
    (verifier.Verifier): reports with self.error and reads the per-kernel state
    verify_kernel sets up."""

    def collect_roles(self, op) -> None:
        try:
            MmaOp(op).sparse
        except d.InvalidAttribute:
            return  # reported by check_attribute_types
        operands = mma_operands(op)
        for role, value in (("a", operands.a if operands.a_tmem else None),
                            ("scale_a", operands.scale_a), ("scale_b", operands.scale_b),
                            ("metadata", operands.metadata)):
            owner = defining_op(value) if value is not None else None
            if owner is not None and TmemStageOp.matches(owner):
                owner = defining_op(owner.operands[0])  # the multi-buffered buffer
            if owner is not None:
                self.roles.setdefault(owner, role)

    def check_mma(self, op, info) -> None:
        mma = MmaOp(op)
        kind = mma.kind
        if kind not in shapes.KINDS:
            self.error(op, f"kind::{kind} is not an MMA kind (one of "
                           f"{', '.join(shapes.KINDS)}; 9.7.16.10.9.1)"
                           + did_you_mean(kind, shapes.KINDS))
            return
        operands = mma_operands(op)
        if operands.a_smem is None and operands.a_tmem is None:
            self.error(op, f"operand A has type {op.operands[1].type}; expected a TMEM "
                           f"buffer or a shared-memory tile")
            return
        if not self.check_mma_operand_roles(op, kind, operands):
            return
        sparse, ws = bool(mma.sparse), bool(mma.ws)
        if sparse and operands.a_smem is not None:
            owner = defining_op(operands.a)
            if owner is not None and SmemStageOp.matches(owner):
                # A fill stores K/2 elements per row in a tile a sparse MMA reads as A
                # (kernel_ir.stored_k), which it sees through the tile's own uses only.
                self.error(op, "a sparse MMA reading A from a stage of a multi-stage "
                               "tile (tcgen05.smem_stage) is not supported yet: give the "
                               "compressed A (M x K/2, 9.7.16.10.8) its own [rows, K] tile")
                return
        k_attr = mma.k
        k96 = k_attr == 96
        dt, at, bt = operands.d_type, operands.a_type, operands.b_type
        m, n = dt.rows, dt.cols
        try:
            if k_attr is not None and not k96 and k_attr != shapes.mma_k(kind, sparse=sparse):
                raise IsaRuleError("Table 39", f"k = {k_attr} is neither the K = "
                                   f"{shapes.mma_k(kind, sparse=sparse)} of kind::{kind}"
                                   f"{' sparse' if sparse else ''} nor K1 = 96")
            shapes.check_mma_shape(kind=kind, m=m, n=n, cta_group=info.cta_group,
                                   sparse=sparse, ws=ws, k96=k96,
                                   d_type=isa_type(dt.element), a_type=isa_type(at.element),
                                   b_type=isa_type(bt.element))
            k = shapes.mma_k(kind, sparse=sparse, k96=k96)
        except IsaRuleError as exc:
            self.rule(op, exc)
            return
        features = targets.mma_features(kind, sparse=sparse, ws=ws, k96=k96,
                                        scale_input_d=mma.has(MmaOp.scale_input_d))
        for feature in features:
            if not self.check_feature(op, feature.key, info):
                return
        if not self.check_mma_tiles(op, kind, operands, info, k, k96):
            return
        checks = (self.check_mma_sparsity, self.check_mma_block_scale, self.check_mma_ws,
                  self.check_mma_qualifiers)
        before = self.failed
        self.failed = False
        for check in checks:
            check(op, kind, operands, info, k96)
        if not self.failed:
            self.check_instr_desc(op, kind, operands, k96)
        self.failed = self.failed or before

    def check_mma_operand_roles(self, op, kind, operands) -> bool:
        """The trailing TMEM operands match the attributes that name them."""
        block_scaled = kind in shapes.BLOCK_SCALED_KINDS
        if block_scaled and effective_scale_vec(op) is None:
            self.error(op, f"kind::{kind} needs an explicit scale_vec (9.7.16.10.9.1: \"For "
                           f".kind::mxf4nvf4, the qualifier .scale_vectorsize must be "
                           f"explicitly specified\"; mxf4 and mxf8f6f4 default to .block32)")
            return False
        if not block_scaled and MmaOp(op).has(MmaOp.scale_vec):
            self.error(op, f"scale_vec needs .block_scale, which kind::{kind} does not take "
                           f"(block-scaled kinds: {', '.join(shapes.BLOCK_SCALED_KINDS)}; "
                           f"9.7.16.10.9.1)")
            return False
        if block_scaled and (operands.scale_a is None or operands.scale_b is None):
            self.error(op, "a block-scaled MMA takes the scale_A and scale_B TMEM operands "
                           "after enable_input_d")
            return False
        if MmaOp(op).sparse and operands.metadata is None:
            self.error(op, "a sparse MMA (.sp) takes the sparsity metadata TMEM operand "
                           "after the scale operands (9.7.16.10.9.2)")
            return False
        if operands.unexpected:
            self.error(op, f"{len(operands.unexpected)} trailing TMEM operand(s) that no "
                           f"attribute accounts for: scale_a and scale_b come with "
                           f"scale_vec, the metadata with sparse")
            return False
        return True

    @staticmethod
    def zero_column_shift(op) -> int:
        """The Column Shift field (bits 56-61) of a .ws MMA's zero-column mask (Table 45):
        "Shifts column by specified amount. Thus allows MMA on non-0 starting column" --
        the MMA reads B's rows (its N columns) from that row of the tile on."""
        mma = MmaOp(op)
        if not mma.ws or not mma.has(MmaOp.zero_column_mask):
            return 0
        mask = mma.zero_column_mask & 0xFFFFFFFFFFFFFFFF
        operands = mma_operands(op)
        try:
            descriptors.zero_column_masks(mask, m=operands.d_type.rows,
                                          n=operands.d_type.cols)
            return descriptors.decode_zero_column_mask(mask)["column_shift"]
        except IsaRuleError:
            return 0   # a malformed mask: check_mma_ws reports it

    def check_mma_tiles(self, op, kind, operands, info, k, k96) -> bool:
        """Operand shapes (per CTA for tiles), the K block, Tables 49, 50 and 52."""
        dt, bt, cta = operands.d_type, operands.b_type, info.cta_group
        m, n = dt.rows, dt.cols
        ok = True
        if operands.a_smem is not None and operands.a_smem.rows != m // cta:
            self.error(op, f"A tile has {operands.a_smem.rows} rows but the accumulator has "
                           f"M = {m}" + (f" (each CTA of the pair holds M/2 = {m // 2})"
                                         if cta == 2 else ""))
            ok = False
        if operands.a_tmem is not None:
            a = operands.a_tmem
            if len(a.shape) != 2 or a.rows != m:
                self.error(op, f"A in tensor memory has shape {list(a.shape)}; expected "
                               f"[{m}, K] (M = {m} rows, 9.7.16.10.5)")
                ok = False
        shift = self.zero_column_shift(op)
        if (bt.rows != n // cta) if not shift else (bt.rows < n // cta + shift):
            self.error(op, f"B tile has {bt.rows} rows but the accumulator has N = {n}"
                           + (f" (each CTA of the pair holds N/2 = {n // 2})"
                              if cta == 2 else "")
                           + (f" and the zero-column mask shifts B's columns by {shift} "
                              f"(Table 45: the MMA reads B columns {shift} to "
                              f"{n // cta + shift - 1}, so the tile needs at least "
                              f"{n // cta + shift} rows)" if shift else ""))
            ok = False
        a_k = operands.a_type.shape[-1]
        if a_k != bt.k:
            what = "tile" if operands.a_smem is not None else "buffer"
            self.error(op, f"A {what} has K = {a_k} but B tile has K = {bt.k}")
            ok = False
        if not ok:
            return False
        k_offset = MmaOp(op).k_offset
        if k_offset % k != 0 or k_offset < 0 or k_offset + k > bt.k:
            self.error(op, f"k_offset = {k_offset} does not select a K = {k} block of the "
                           f"{bt.k}-wide tiles (kind::{kind}, Table 39)")
            return False
        sparse = bool(MmaOp(op).sparse)
        for which, tile in (("A", operands.a_smem), ("B", bt)):
            stored = tile.k // 2 if tile is not None and sparse and which == "A" \
                else (tile.k if tile is not None else 0)
            if tile is not None and not self.check_tile(op, kind, which, tile, n, cta, stored):
                ok = False
            elif tile is not None and k96 and tile.major == "K":
                ok = self.check_k96_block(op, which, tile, kind, k_offset) and ok
            elif tile is not None and tile.major == "K":
                ok = self.check_k_block_in_swizzle_row(
                    op, which, tile, kind, k=k, k_offset=k_offset,
                    compressed=sparse and which == "A") and ok
        return ok

    def check_tile(self, op, kind, which, tile, n, cta, stored_k) -> bool:
        """Tables 49, 50 and 52 for one shared-memory operand tile, and its canonical
        layout (9.7.16.3.3); `stored_k` is the K extent in memory (K/2 for a sparse A)."""
        elt = isa_type(tile.element)
        bits = known_element_bits(tile.element)
        if tile.swizzle == "128B_base32B" and not (tile.major == "MN" and bits == 32):
            self.error(op, f"{which} tile: 128B swizzle with 32B atomicity is only for "
                           f"MN-major 32-bit operands (Table 52)")
            return False
        if tile.major == "MN" and bits == 32 and tile.swizzle != "128B_base32B":
            self.error(op, f"{which} tile: MN-major {elt} requires 128B swizzle with 32B "
                           f"atomicity, got \"{tile.swizzle}\" (Table 52)")
            return False
        if tile.major != "MN":
            # K-major canonical layouts (9.7.16.3.3) are made of 8-row core matrices whose
            # rows are one swizzle width W long (16 bytes without swizzle).
            width = SWIZZLE_BYTES[tile.swizzle]
            row_bytes = stored_k * container_bits(tile.element, kind=kind) // 8 \
                if bits is not None else 0
            if tile.rows % 8 or row_bytes % width:
                stored = f" (stored as K/2 = {stored_k})" if stored_k != tile.k else ""
                self.error(op, f"{which} tile {list(tile.shape)} of {elt}{stored} is not a "
                               f"whole number of K-major \"{tile.swizzle}\" atoms: 8 rows "
                               f"of {width} bytes (9.7.16.3.3)")
                return False
            return True
        # MN-major is the transposed operand: Table 49 per kind, Table 52 per type size.
        if kind in ("mxf4", "mxf4nvf4"):
            self.error(op, f"{which} tile is MN-major (transposed), which kind::{kind} does "
                           f"not support (Table 49)")
            return False
        if bits is not None and bits < 8:
            self.error(op, f"{which} tile: {bits}-bit {elt} must be K-major (Table 52)")
            return False
        if which == "B" and bits == 8:
            step, low = (16, 16) if cta == 1 else (32, 32)
            if not (low <= n <= 256 and n % step == 0):
                self.error(op, f"N = {n} is not allowed for an 8-bit transposed (MN-major) B "
                               f"with cta_group::{cta}: {low} <= N <= 256, step {step} "
                               f"(Table 50)")
                return False
        try:
            descriptors.canonical_smem_strides(dtype=elt, major="MN", swizzle=tile.swizzle,
                                               tile_mn=tile.rows, tile_k=stored_k)
        except IsaRuleError as exc:
            self.error(op, f"{which} tile: {exc}")
            return False
        return True

    def check_k96_block(self, op, which, tile, kind, k_offset) -> bool:
        """A K = 96 block of 4-bit elements is 48 bytes (9.7.16.3.1.2): within a swizzle
        row it must not cross the row's end, which would need the absolute LBO mode."""
        bits = container_bits(tile.element, kind=kind)
        # K = 96 exists only for dense MMAs (Table 39), so A is not compressed.
        start, size = k_offset * bits // 8, 96 * bits // 8
        width = SWIZZLE_BYTES[tile.swizzle]
        if tile.swizzle != "none" and start % width + size > width:
            self.error(op, f"{which} tile: the K = 96 block at byte {start} of each row "
                           f"crosses the {width}-byte swizzle row; that needs the leading-"
                           f"dimension absolute address mode (9.7.16.3.1.2), which is not "
                           f"supported yet")
            return False
        return True

    def check_k_block_in_swizzle_row(self, op, which, tile, kind, *, k: int, k_offset: int,
                                     compressed: bool) -> bool:
        """The bytes of one row that this MMA's K block reads must lie inside one swizzle
        row of a swizzled K-major tile: the descriptor's start address selects the block,
        and with a swizzle the leading-dimension byte offset is not used for K-major
        layouts (9.7.16.3.1, 9.7.16.3.3), so nothing steps to the next swizzle atom along
        K. A sparse MMA reads a dense 64-byte block of B per row (9.7.16.10.8), which a
        32-byte row cannot hold. `compressed`: A of a sparse MMA, stored as K/2."""
        if tile.swizzle == "none":
            return True  # core matrices along K are LBO apart: any K block is reachable
        bits = container_bits(tile.element, kind=kind)
        stored_k, stored_offset = (k // 2, k_offset // 2) if compressed else (k, k_offset)
        start, size = stored_offset * bits // 8, stored_k * bits // 8
        width = SWIZZLE_BYTES[tile.swizzle]
        if start % width + size <= width:
            return True
        stored = " (stored compressed, K/2)" if compressed else ""
        self.error(op, f"{which} tile: the K = {k} block{stored} at k_offset = {k_offset} "
                       f"reads bytes [{start % width}, {start % width + size}) of each "
                       f"row, but a K-major \"{tile.swizzle}\" row holds {width} bytes and "
                       f"the leading-dimension offset is unused with swizzling (9.7.16.3.1, "
                       f"9.7.16.3.3): use a swizzle of at least {size} bytes")
        return False
