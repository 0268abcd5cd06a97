"""tcgen05.cp and tcgen05.shift: shape x multicast and decompression formats
(9.7.16.9.2), the source tile's shape, the destination columns."""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import CpOp
from tcgen05_lower.element_types import container_bits, isa_type
from tcgen05_lower.text import did_you_mean


#: tcgen05.cp shapes: (lanes, bits per lane) (9.7.16.2.3).
CP_SHAPES = MappingProxyType({"128x256b": (128, 256), "4x256b": (4, 256), "128x128b": (128, 128),
             "64x128b": (64, 128), "32x128b": (32, 128)})

#: ".64x128b requires .warpx2::02_13 or .warpx2::01_23; .32x128b requires .warpx4"
#: (9.7.16.9.2); the other shapes take no .multicast.
CP_MULTICAST = MappingProxyType({"64x128b": ("warpx2::02_13", "warpx2::01_23"), "32x128b": ("warpx4",)})

CP_DECOMPRESS = ("b6x16_p32", "b4x16_p64")


class CopyRules:
    """tcgen05.cp and tcgen05.shift. Mixed into tcgen05-verify's run (verifier.Verifier):
    reports with self.error and reads the per-kernel state verify_kernel sets up."""

    def check_cp(self, op, info) -> None:
        if not self.check_feature(op, "cp", info):
            return
        cp = CpOp(op)
        shape = cp.shape
        if shape not in CP_SHAPES:
            self.error(op, f"tcgen05.cp shape .{shape} is not one of "
                           f"{', '.join(CP_SHAPES)} (9.7.16.9.2)" + did_you_mean(shape, CP_SHAPES))
            return
        multicast = cp.multicast
        allowed = CP_MULTICAST.get(shape, ())
        if multicast not in (allowed or (None,)):
            wanted = " or ".join("." + x for x in allowed) if allowed else "no .multicast"
            self.error(op, f".{shape} requires {wanted}, got "
                           f"{'.' + multicast if multicast else 'none'} (9.7.16.9.2)")
        source = d.type_info(cp.source.type)
        if isinstance(source, d.SmemType) and source.swizzle == "128B_base32B":
            self.error(op, "tcgen05.cp from a tile with 128-byte swizzling of 32-byte "
                           "atomicity is not supported yet (its address pattern is given only "
                           "as a figure, 9.7.16.10.6; Table 53)")
        decompress = cp.decompress
        if decompress is not None and decompress not in CP_DECOMPRESS:
            self.error(op, f"decompress = \"{decompress}\" is not one of "
                           f"{', '.join(CP_DECOMPRESS)} (9.7.16.9.1)"
                           + did_you_mean(decompress, CP_DECOMPRESS))
        column = cp.column
        if column < 0:
            self.error(op, f"column = {column} must not be negative")
        self.check_cp_column_in_buffer(op, column)
        tile = d.type_info(cp.source.type)
        lanes, bits = CP_SHAPES[shape]
        if tile.major != "K":
            self.error(op, "the source tile of tcgen05.cp must be K-major: its rows are the "
                           "TMEM lanes the copy writes (9.7.16.9.2)")
            return
        try:
            row_bits = tile.k * container_bits(tile.element)
        except KeyError:
            self.error(op, f"source tile element type {tile.element} has no ISA width")
            return
        if tile.rows != lanes or row_bits != bits:
            self.error(op, f"source tile {list(tile.shape)} of {isa_type(tile.element)} holds "
                           f"{tile.rows} rows of {row_bits} bits; .{shape} copies {lanes} rows "
                           f"of {bits} bits (9.7.16.2.3)")

    def check_cp_column_in_buffer(self, op, column: int) -> None:
        """The copy's first column (its taddr, 9.7.16.9.2) must lie inside the destination
        buffer. Whether all the columns the copy writes fit is checked by
        tcgen05-select-layouts, which knows the buffer's footprint (a folded layout holds
        fewer columns than it declares; a scale-factor or metadata buffer grows to the
        copies that fill it)."""
        dst = d.type_info(CpOp(op).dest.type)
        try:
            columns = -(-dst.shape[-1] * container_bits(dst.element) // 32)
        except KeyError:
            return  # the buffer's element type is reported where the buffer is checked
        if column >= columns:
            self.error(op, f"tcgen05.cp column = {column} starts outside its destination "
                           f"buffer, which has {columns} columns (9.7.16.9.2: the taddr "
                           "operand is the first column written)")

    def check_shift(self, op, info) -> None:
        self.check_feature(op, "shift", info)
