"""tcgen05.st into a buffer an MMA reads as its A operand (``tcgen05_lower.isa.a_store``):
the packed-column messages of Layouts D and F, 16- and 8-bit elements, and the check that
the stored fragment holds in each thread the elements the store packs."""

from __future__ import annotations

from tcgen05_lower.dialect.ops import FragMapOp, StOp
from tcgen05_lower.element_types import isa_bits
from tcgen05_lower.isa import a_store
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.layout_selection.common import column_facts, line_text
from tcgen05_lower.layout_selection.results import BufferInfo, Planned
from tcgen05_lower.strategies import ldst as strategies


def _bits_or_none(element: str) -> int | None:
    try:
        return isa_bits(element)
    except KeyError:
        return None


def _multiple_word(per_word: int) -> str:
    return "even" if per_word == 2 else f"a multiple of {per_word}"


def _count_word(per_word: int) -> str:
    return {2: "two", 4: "four"}.get(per_word, str(per_word))


class AStoreDecisions:
    """A stores. Mixed into tcgen05-select-layouts' run (selector.LayoutSelector):
    reports with self.error, writes plans with self.write_plan into self.plans."""

    def plan_a_store(self, op, info: BufferInfo, frag) -> None:
        """A tcgen05.st into a buffer an MMA reads as its A operand (``isa.a_store``): A
        is row-major in tensor memory on the lanes of D's rows, its 16-bit (8-bit)
        elements packed two (four) to a 32-bit column, the lower K index in the low bits
        (9.7.16.10.4). The op's column and the fragment's columns count K elements; the
        message moves packed registers, so it is planned on the buffer's packed columns:
        .32x32b for Layout D (thread l of warp w writes row 32w + l), .16x32bx2 with
        immHalfSplitoff = .num for Layout F (thread l of warp w writes row 16w + l mod 16
        on the buffer's lane half), never .unpack::16b (one element per column, the
        packing of D, 9.7.16.8.2). The fragment must hold in each thread the elements
        the store packs (check_stored_fragment)."""
        typed = StOp(op)
        what = "tcgen05.st into an A operand"
        if not a_store.supported(info.layout):
            self.error(op, f"{what} of Layout {info.layout} is not supported yet: only "
                           f"Layout D (M = 128, cta_group::1), whose A rows are lanes "
                           f"0-127, one per thread of a .32x32b message, and Layout F (M = "
                           f"64), 16 rows per warp on its lane half with .16x32bx2")
            return
        per_word = a_store.PER_WORD.get(_bits_or_none(info.element))
        if per_word is None:
            self.error(op, f"{what}: {info.element} elements are not supported yet (16-bit "
                           f"elements two per 32-bit column or 8-bit ones four per column, "
                           f"9.7.16.10.4)")
            return
        if not self.check_a_fragment_type(op, info, frag):
            return
        width = frag.shape[1]
        if width % per_word:
            self.error(op, f"{what}: a fragment of {width} K elements; A packs {per_word} "
                           f"per 32-bit column (9.7.16.10.4), so the width must be a "
                           f"multiple of {per_word}")
            return
        shape = a_store.SHAPE[info.layout]
        if (typed.shape not in (None, shape)) or typed.unpack16:
            self.error(op, f"{what} of Layout {info.layout} is stored with .{shape} "
                           f"messages of packed registers; "
                           f"{'.unpack::16b' if typed.unpack16 else '.' + typed.shape} "
                           f"cannot store it (.unpack::16b puts one element in each "
                           f"column, 9.7.16.8.2)")
            return
        constant, multiple = column_facts(op.operands[1])
        if constant is not None and not (constant % per_word == 0 and
                                         0 <= constant <= info.cols - width):
            self.error(op, f"{what}: column {constant} (a K element) must be "
                           f"{_multiple_word(per_word)} and the slice [{constant}, "
                           f"{constant + width}) inside the buffer's {info.cols} K "
                           f"elements, since A packs {_count_word(per_word)} per 32-bit "
                           f"column")
            return
        if constant is None and multiple % per_word:
            self.error(op, f"{what}: this column (a K element) cannot be shown to be "
                           f"{_multiple_word(per_word)} (use a constant or a multiple of "
                           f"{per_word}); A packs {_count_word(per_word)} elements per "
                           f"32-bit column (9.7.16.10.4)")
            return
        num = (typed.num if typed.num is not None
               else self.a_source_num(op, info, isa_bits(info.element)))
        packed = width // per_word
        try:
            access = a_store.packed_access(info.layout, cols=info.cols, width=width,
                                           bits=isa_bits(info.element), num=num)
        except IsaRuleError as exc:
            self.error(op, f"{what}: {exc}")
            return
        request = strategies.AccessRequest(info.layout, info.cols // per_word, packed, 32,
                                           "st", info.layout_c, shape=shape,
                                           num=access.num, pack16=False)
        self.write_plan(op, access)
        self.plans[op] = Planned(op, info, access, request,
                                 note=f"A operand: {width} K elements packed in {packed} "
                                      f"columns")

    def a_source_num(self, op, info: BufferInfo, bits: int) -> int | None:
        """The .num of an A store whose fragment comes from a planned tcgen05.ld (through
        frag_maps) that only a matching .num can pack (a_store.matching_num); None:
        the default."""
        producer = defining_op(StOp(op).fragment)
        while producer is not None and FragMapOp.matches(producer) and producer.operands:
            producer = defining_op(producer.operands[0])
        source = self.plans.get(producer) if producer is not None else None
        if source is None:
            return None
        return a_store.matching_num(info.layout, source.access, bits)

    def check_a_fragment_type(self, op, info: BufferInfo, frag) -> bool:
        """The fragment of an A store has the buffer's rows and element type and fits."""
        what = "tcgen05.st into an A operand"
        if frag.shape[0] != info.rows or frag.shape[1] > info.cols:
            self.error(op, f"{what}: a fragment of {frag.shape[0]} x {frag.shape[1]} does "
                           f"not fit the buffer's {info.rows} x {info.cols}: a warpgroup "
                           f"access moves whole columns of all rows")
            return False
        if frag.element != info.element:
            self.error(op, f"{what}: fragment element type {frag.element} differs from "
                           f"the buffer's {info.element}")
            return False
        return True

    def check_a_source(self, store, plan: Planned, producer, access) -> None:
        """The A store packs, in each thread, the per_word K elements of a packed column
        of its row: the load the fragment comes from must have left exactly those in
        that thread (isa.a_store.source_mismatch)."""
        bits = isa_bits(plan.buffer.element)
        per_word = a_store.PER_WORD[bits]
        why = a_store.source_mismatch(access, plan.access, per_word)
        if why is None:
            return
        if plan.access.layout == "D":
            held = ("held one row per thread, as .32x32b of a Layout D buffer without "
                    ".pack::16b leaves it")
        else:
            held = (f"held as the store's .{plan.access.shape} messages hold it, as "
                    f".{plan.access.shape}.x{plan.access.num * per_word} of a Layout "
                    f"{plan.access.layout} accumulator leaves it ({why})")
        self.error(store, f"tcgen05.st into an A operand packs the K elements each "
                          f"thread holds of its row, so the fragment must be {held}; the "
                          f"load at {line_text(producer)} left it as {access.describe()} "
                          f"(Layout {access.layout})")
