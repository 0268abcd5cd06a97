"""The messages of every warpgroup load and store: shape, num, half_split and pack16 /
unpack16 of each tcgen05.ld / ld_red / st (Tables 47/48, tcgen05_lower.strategies.ldst),
the column range and fragment type each access needs, and the plan written on the op."""

from __future__ import annotations

import math
from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import LdRedOp, StOp, wrap
from tcgen05_lower.element_types import isa_bits, isa_type
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import index_range, pack_attribute
from tcgen05_lower.layout_selection.common import buffer_label, column_facts, traced_buffers
from tcgen05_lower.layout_selection.results import BufferInfo, Planned
from tcgen05_lower.strategies import ldst as strategies
from tcgen05_lower.text import did_you_mean


#: tcgen05.ld.red types (9.7.16.8.3): .f32, .u32, .s32.
RED_TYPES = MappingProxyType({"f32": "f32", "s32": "s32", "u32": "u32"})

_KNOWN_ELEMENTS = frozenset({"f32", "f16", "bf16", "i32", "si32", "ui32", "tf32"})


class MessageDecisions:
    """ld / ld_red / st messages. Mixed into tcgen05-select-layouts' run
    (selector.LayoutSelector): reports with self.error and reads the per-kernel tables
    select_in_kernel sets up (self.buffers, self.plans, self.row_memo)."""

    def access_buffer(self, op, operand) -> BufferInfo | None:
        sources = traced_buffers(op.operands[operand])
        if sources is None:
            self.error(op, f"tcgen05.{d.op_name(op)} of a TMEM value that is not a "
                           f"tcgen05.tmem_buffer result, a tcgen05.tmem_stage of one, or a "
                           f"select, branch or loop value that only such values reach")
            return None
        infos = [self.buffers.get(source) for source in sources]
        if any(info is None for info in infos):
            return None  # the buffer's own diagnostic was already reported
        info = infos[0]
        for other, source in zip(infos[1:], sources[1:]):
            # One message plan serves every buffer the value may name at run time.
            if (other.layout, other.layout_c, other.role) != \
                    (info.layout, info.layout_c, info.role):
                self.error(op, f"tcgen05.{d.op_name(op)} of a buffer chosen at run time: "
                               f"{buffer_label(sources[0])} has Layout {info.layout} (role "
                               f"{info.role}) but {buffer_label(source)} has Layout "
                               f"{other.layout} (role {other.role}); one access is planned "
                               f"for both, so their layouts must agree")
                return None
        if info.role == "a" and StOp.matches(op):
            return info  # plan_a_store
        if info.role != "d":
            self.error(op, f"tcgen05.{d.op_name(op)} of a buffer the MMA uses as its "
                           f"{info.role} operand is not supported yet: only buffers that "
                           f"hold one 32-bit column per element (accumulators) are, and "
                           f"tcgen05.st into a 16-bit A operand")
            return None
        return info

    def plan_access(self, op) -> None:
        name = d.op_name(op)
        typed = wrap(op)
        frag_value = typed.fragment
        info = self.access_buffer(op, 0)
        if info is None:
            return
        frag = d.type_info(frag_value.type)
        if info.role == "a":
            self.plan_a_store(op, info, frag)
            return
        if not self.check_fragment_type(op, info, frag):
            return
        if isinstance(typed, LdRedOp) and not self.check_reduction(op, info):
            return
        # tcgen05.ld.red has no .pack::16b (9.7.16.8.3), so ld_red has no pack16.
        pack_attr = pack_attribute(typed)
        requested_shape = typed.shape
        if requested_shape is None and self.option("shape") != "auto":
            requested_shape = self.option("shape")
        # Without the attribute the strategy decides (None), unlike pack16 = false.
        pack = (typed.get(pack_attr) if typed.has(pack_attr) else None) if pack_attr else 0
        request = strategies.AccessRequest(
            info.layout, info.cols, frag.shape[1], isa_bits(frag.element), name,
            info.layout_c, shape=requested_shape, num=typed.num,
            pack16=None if pack is None else bool(pack))
        try:
            access = self.strategy.access(request)
        except IsaRuleError as exc:
            conflict = ""
            if typed.shape is None and self.option("shape") != "auto" and typed.num is not None:
                conflict = (f" (the shape comes from the pass option shape="
                            f"{self.option('shape')}, which conflicts with this op's own "
                            f"num = {typed.num})")
            self.error(op, str(exc) + conflict)
            return
        if not self.check_column(op, op.operands[1], access):
            return
        self.write_plan(op, access)
        self.plans[op] = Planned(op, info, access, request)

    def plan_a_store(self, op, info: BufferInfo, frag) -> None:
        """A tcgen05.st into a buffer an MMA reads as its A operand. A is row-major in
        tensor memory with its 16-bit elements packed two to a 32-bit column, the lower K
        index in the low half (9.7.16.10.4; tmem-facts section 1: Layout D places row r
        on lane r). The op's column and the fragment's columns count K elements; the
        message moves packed registers, so it is planned on the buffer's TMEM columns:
        .32x32b (thread l of warp w writes lane 32w + l, which is row 32w + l) with
        .num = half the fragment's width (or the largest power of two dividing it), no
        .unpack::16b (which would put one element in each column, the packing of D,
        9.7.16.8.2). The fragment must be held one row per thread the same way
        (check_a_fragment)."""
        typed = StOp(op)
        what = "tcgen05.st into an A operand"
        if info.layout != "D":
            self.error(op, f"{what} of Layout {info.layout} is not supported yet: only "
                           f"Layout D (M = 128, cta_group::1), whose A rows are lanes "
                           f"0-127, one per thread of a .32x32b message")
            return
        if info.element not in ("f16", "bf16"):
            self.error(op, f"{what}: {info.element} elements are not supported yet (16-bit "
                           f"f16 or bf16, two per 32-bit column, 9.7.16.10.4)")
            return
        if not self.check_fragment_type(op, info, frag):
            return
        width = frag.shape[1]
        if width % 2:
            self.error(op, f"{what}: a fragment of {width} K elements; A packs two per "
                           f"32-bit column (9.7.16.10.4), so the width must be even")
            return
        if (typed.shape not in (None, "32x32b")) or typed.unpack16:
            self.error(op, f"{what} is stored with .32x32b messages of packed registers; "
                           f"{'.unpack::16b' if typed.unpack16 else '.' + typed.shape} "
                           f"cannot store it (.unpack::16b puts one element in each "
                           f"column, 9.7.16.8.2)")
            return
        constant, multiple = column_facts(op.operands[1])
        if constant is not None and not (constant % 2 == 0 and
                                         0 <= constant <= info.cols - width):
            self.error(op, f"{what}: column {constant} (a K element) must be even and the "
                           f"slice [{constant}, {constant + width}) inside the buffer's "
                           f"{info.cols} K elements, since A packs two per 32-bit column")
            return
        if constant is None and multiple % 2:
            self.error(op, f"{what}: this column (a K element) cannot be shown to be even "
                           f"(use a constant or a multiple of 2); A packs two elements per "
                           f"32-bit column (9.7.16.10.4)")
            return
        num = typed.num if typed.num is not None else math.gcd(width // 2, 128)
        request = strategies.AccessRequest(info.layout, info.cols // 2, width // 2, 32, "st",
                                           info.layout_c, shape="32x32b", num=num,
                                           pack16=False)
        try:
            access = WarpgroupAccess.create(info.layout, n=info.cols // 2, width=width // 2,
                                            shape="32x32b", num=num, op="st")
        except IsaRuleError as exc:
            self.error(op, f"{what}: {exc}")
            return
        self.write_plan(op, access)
        self.plans[op] = Planned(op, info, access, request,
                                 note=f"A operand: {width} K elements packed in {width // 2} "
                                      f"columns")

    def check_fragment_type(self, op, info: BufferInfo, frag) -> bool:
        what = f"tcgen05.{d.op_name(op)}"
        if frag.shape[0] != info.rows:
            self.error(op, f"{what}: the fragment has {frag.shape[0]} rows but the buffer "
                           f"has {info.rows}: a warpgroup access moves whole columns")
            return False
        if frag.shape[1] > info.cols:
            self.error(op, f"{what}: a fragment of {frag.shape[1]} columns is wider than "
                           f"the buffer ({info.cols} columns)")
            return False
        if frag.element != info.element:
            self.error(op, f"{what}: fragment element type {frag.element} differs from "
                           f"the buffer's {info.element}")
            return False
        bits = isa_bits(frag.element) if frag.element in _KNOWN_ELEMENTS else None
        if bits not in (16, 32):
            self.error(op, f"{what}: {frag.element} data is not supported: a D-like buffer "
                           f"holds one 32- or 16-bit element per column (9.7.16.10.4.1)")
            return False
        return True

    def check_reduction(self, op, info: BufferInfo) -> bool:
        red = LdRedOp(op)
        reduced = d.type_info(red.reduced.type)
        if tuple(reduced.shape) != (info.rows, 1) or reduced.element != info.element:
            self.error(op, f"tcgen05.ld_red: the per-row result must be a "
                           f"!tcgen05.frag<[{info.rows}, 1], {info.element}>")
            return False
        red_op = red.op
        if red_op not in ("min", "max"):
            self.error(op, f"tcgen05.ld_red: op = \"{red_op}\" is not \"min\" or \"max\" "
                           f"(9.7.16.8.3 .redOp)" + did_you_mean(red_op, ("min", "max")))
            return False
        red_type = RED_TYPES.get(isa_type(info.element))
        if info.element == "ui32":
            red_type = "u32"
        if red_type is None:
            self.error(op, f"tcgen05.ld_red reduces .f32, .u32 or .s32 data, not "
                           f"{info.element} (9.7.16.8.3)")
            return False
        for flag in (LdRedOp.abs, LdRedOp.nan):
            if red.get(flag) and red_type != "f32":
                self.error(op, f"tcgen05.ld_red: {flag.name} = true is only for .f32 data, not "
                               f".{red_type} (9.7.16.8.3)")
                return False
        return True

    def check_column(self, op, column, access) -> bool:
        """The slice stays inside the buffer, and for folded layouts inside one column
        block (or covers whole blocks): statically for a constant column, else from what
        is known about the column (a multiple of the width, e.g. an induction variable)."""
        constant, multiple = column_facts(column)
        width, block = access.width, access.block
        what = f"tcgen05.{d.op_name(op)}"
        if constant is not None and not 0 <= constant <= access.n - width:
            self.error(op, f"{what}: columns [{constant}, {constant + width}) are outside "
                           f"the buffer's {access.n} columns")
            return False
        if constant is None and not self.check_column_range(op, column, access):
            return False
        if access.fold == 1:
            return True
        if width <= block:
            inside = ((constant % block) + width <= block if constant is not None
                      else multiple % width == 0)
        else:
            inside = (constant if constant is not None else multiple) % block == 0
        if not inside:
            shown = f"column {constant}" if constant is not None else "this column"
            need = ("lie inside one of them" if width <= block else "consist of whole blocks")
            self.error(op, f"{what}: Layout {access.layout} keeps columns [j*{block}, "
                           f"(j+1)*{block}) of D on separate lanes, so a {width}-column "
                           f"slice must {need}; {shown} cannot be shown to do so (use a "
                           f"constant or a multiple of {min(width, block)}) (9.7.16.10.5)")
            return False
        return True

    def check_column_range(self, op, column, access) -> bool:
        """A column that is not a constant but whose values are known (an induction
        variable of a loop with constant bounds, and sums and products of it with
        constants: kernel_ir.index_range) keeps every slice inside the buffer: the bounds
        of the loop, not only one value, must fit (a slice past the buffer reads or writes
        the TMEM columns of whatever lies behind it)."""
        known = index_range(column)
        if known is None:
            return True  # nothing known: the run-time value is the caller's promise
        least, greatest = known
        if 0 <= least and greatest + access.width <= access.n:
            return True
        self.error(op, f"tcgen05.{d.op_name(op)}: the column takes values from {least} to "
                       f"{greatest} (from the constant bounds of its loop), so the "
                       f"{access.width}-column slices cover columns [{least}, "
                       f"{greatest + access.width}), outside the buffer's {access.n} "
                       f"columns [0, {access.n})")
        return False

    def write_plan(self, op, access) -> None:
        """Writes the planned access on the ld, st, ld_red or load_fragment `op`: its
        message shape, .num and immHalfSplitoff, and pack16 (unpack16 on st) when it
        packs; a pack request the access does not honour is dropped."""
        typed = wrap(op)
        pack_attr = pack_attribute(typed)
        typed.shape = access.shape
        typed.num = int(access.num)
        if access.half_split is not None:
            typed.half_split = int(access.half_split)
        else:
            del typed.half_split
        if access.pack16:
            typed.set(pack_attr, True)
        elif pack_attr is not None and typed.has(pack_attr) and typed.get(pack_attr):
            typed.remove(pack_attr)
