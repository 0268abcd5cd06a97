"""Register fragments against the plans: a load_fragment gets the plan of the tcgen05.st
it feeds, a stored fragment is laid out as its store expects, per-row values are held by
the thread that holds the row, and a store_fragment's global store is one the lowering
emits."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.computed import row_vector_root
from tcgen05_lower.dialect.ops import (FragBroadcastOp, FragMapOp, FragReduceOp, LdOp, LdRedOp,
                                       LoadFragmentOp, StOp, StoreFragmentOp, wrap)
from tcgen05_lower.kernel_ir import defining_op, terminator
from tcgen05_lower.layout_selection.common import column_facts, line_text
from tcgen05_lower.layout_selection.results import Planned


def _mapping(access):
    """What decides which element each register holds (the instruction aside)."""
    return (access.layout, access.layout_c, access.n, access.width, access.shape,
            access.num, access.pack16, access.half_split)


def _same_block(a, b, access) -> bool:
    if a == b:
        return True
    (ca, _), (cb, _) = column_facts(a), column_facts(b)
    return ca is not None and cb is not None and ca // access.block == cb // access.block


class FragmentDecisions:
    """Fragments against the access plans. Mixed into tcgen05-select-layouts' run
    (selector.LayoutSelector): reports with self.error and reads the per-kernel tables
    select_in_kernel sets up (self.buffers, self.plans, self.row_memo)."""

    def plan_load_fragment(self, op) -> None:
        """A fragment read from global memory takes the register layout of the tcgen05.st
        that stores it; every st it feeds must want the same layout."""
        stores = [use.owner for use in op.results[0].uses]
        stores = [s.operation if hasattr(s, "operation") else s for s in stores]
        tmem_stores = [s for s in stores if StOp.matches(s)]
        if not tmem_stores:
            self.error(op, "a fragment loaded from global memory must be stored to tensor "
                           "memory with tcgen05.st: the store decides its register layout")
            return
        plans = [self.plans.get(s) for s in tmem_stores]
        if any(p is None for p in plans):
            return  # the store's own diagnostic was already reported
        first = plans[0]
        for store, plan in zip(tmem_stores[1:], plans[1:]):
            if plan.access != first.access:
                self.error(store, f"this tcgen05.st needs the fragment as "
                                  f"{plan.access.describe()} but an earlier store of the same "
                                  f"fragment needs {first.access.describe()}")
                return
        if first.access.fold > 1:
            for store in tmem_stores:
                if not (column_facts(store.operands[1])[0] is not None
                        or store.operands[1] == op.operands[1]):
                    self.error(store, f"Layout {first.access.layout}: which warps hold a "
                                      f"fragment loaded from global memory depends on the "
                                      f"column block it is stored to, so the store's column "
                                      f"must be a constant or the load_fragment's own column")
                    return
        self.write_plan(op, first.access)
        self.plans[op] = Planned(op, first.buffer, first.access, first.request)

    def check_stored_fragment(self, store) -> None:
        plan = self.plans.get(store)
        value = StOp(store).fragment
        producer = defining_op(value)
        while producer is not None and FragMapOp.matches(producer) and producer.operands:
            # A computed fragment is held as its (first) input is (lowering.compute).
            value = producer.operands[0]
            producer = defining_op(value)
        typed = wrap(producer) if producer is not None else None
        if plan is None:
            return
        if isinstance(typed, LoadFragmentOp):
            if plan.buffer.role == "a":
                self.error(store, "tcgen05.st into an A operand: a fragment loaded from "
                                  "global memory is not supported there yet; fill the A "
                                  "tile in shared memory instead")
            return
        if not isinstance(typed, (LdOp, LdRedOp)):
            self.error(store, "the fragment stored by tcgen05.st must come from tcgen05.ld, "
                              "tcgen05.ld_red or tcgen05.load_fragment, or a tcgen05.frag_map "
                              "of them")
            return
        if value != typed.fragment:
            self.error(store, "the per-row result of tcgen05.ld_red cannot be stored to "
                              "tensor memory")
            return
        source = self.plans.get(producer)
        if source is None:
            return
        if plan.buffer.role == "a":
            access = source.access
            if access.layout != "D" or access.shape != "32x32b" or access.pack16:
                self.error(store, f"tcgen05.st into an A operand packs the K elements each "
                                  f"thread holds of its row, so the fragment must be held one "
                                  f"row per thread, as .32x32b of a Layout D buffer without "
                                  f".pack::16b leaves it; the load at {line_text(producer)} "
                                  f"left it as {access.describe()} (Layout {access.layout})")
            return
        if _mapping(source.access) != _mapping(plan.access):
            self.error(store, f"this tcgen05.st would need the fragment's registers as "
                              f"{plan.access.describe()} (Layout {plan.access.layout}) but "
                              f"the load left them as {source.access.describe()} (Layout "
                              f"{source.access.layout}); registers cannot move between "
                              f"threads here")
            return
        if plan.access.partial and not _same_block(producer.operands[1], store.operands[1],
                                                   plan.access):
            self.error(store, f"Layout {plan.access.layout}: the load and this store must "
                              f"address the same column block (the same column value, or "
                              f"constants in the same block), so that the same warps hold "
                              f"the fragment")

    def check_rows_per_thread(self, op) -> None:
        """tcgen05.frag_reduce reduces in each thread the columns it holds of its row, and
        tcgen05.frag_broadcast gives each element of `like` the value its thread holds
        for its row: both need the fragment (`like`) held one row per thread, all of the
        row's columns of the slice in that thread: .32x32b of a full-datapath layout
        that does not fold columns onto other lanes (thread l of warp w holds lane
        32w + l, tmem-facts section 2). Another message shape spreads a row over 4 or 2
        threads; reducing across them is not supported yet."""
        if FragMapOp.matches(op):
            for value in op.operands:
                self.check_row_held(op, value)
            return
        if op.name == "scf.for":
            # A carried row vector is one register per row: its initial value and the
            # value yielded for it are held alike, one row per thread.
            yield_op = terminator(op.regions[0].blocks[0])
            for i, result in enumerate(op.results):
                if isinstance(d.type_info(result.type), d.FragType):
                    self.check_row_held(op, op.operands[3 + i])
                    self.check_row_held(yield_op, yield_op.operands[i])
            return
        if FragBroadcastOp.matches(op):
            self.check_row_held(op, op.operands[0])
        value = op.operands[0] if FragReduceOp.matches(op) else op.operands[1]
        self.check_held(op, value)

    def check_row_held(self, op, value) -> None:
        """A [rows, 1] operand of a per-row computation (the row vector of a
        frag_broadcast, an input of a map of per-row values) is held one row per thread:
        a per-row result of frag_reduce (checked at the reduction) or of ld_red, or a
        one-column load, through the first inputs of frag_maps. Each check follows one
        chain of first inputs (as check_stored_fragment does)."""
        value, producer = row_vector_root(value, self.row_memo)
        if producer is not None and (FragReduceOp.matches(producer) or
                                     FragMapOp.matches(producer)):
            return  # the reduction is checked itself; a map of no input is per row
        self.check_held(op, value)

    def check_held(self, op, value) -> None:
        producer = defining_op(value)
        while producer is not None and FragMapOp.matches(producer) and producer.operands:
            producer = defining_op(producer.operands[0])
        if producer is None or not isinstance(wrap(producer), (LdOp, LdRedOp)):
            self.error(op, f"{op.name}: the fragment must come from tcgen05.ld or "
                           f"tcgen05.ld_red, or a tcgen05.frag_map of them")
            return
        plan = self.plans.get(producer)
        if plan is None:
            return
        access = plan.access
        if access.shape != "32x32b" or access.fold != 1:
            why = ("a 16-lane message spreads each row over several threads"
                   if access.shape != "32x32b" else
                   f"Layout {access.layout} puts the columns of a row beyond the first "
                   f"{access.block} on other lanes")
            self.error(op, f"{op.name} needs the fragment held one row per thread (.32x32b "
                           f"of a layout that keeps a row on one lane); the load at "
                           f"{line_text(producer)} holds it as {access.describe()} (Layout "
                           f"{access.layout}): {why}, and a reduction across threads is "
                           f"not supported yet")

    def check_global_store(self, op) -> None:
        producer = defining_op(StoreFragmentOp(op).fragment)
        while producer is not None and FragMapOp.matches(producer):
            # A computed fragment is held as its inputs are (lowering.compute).
            producer = defining_op(producer.operands[0]) if len(producer.operands) else None
        if producer is None or not isinstance(wrap(producer), (LdOp, LdRedOp, LoadFragmentOp)):
            self.error(op, "the fragment of tcgen05.store_fragment must come from "
                           "tcgen05.ld, tcgen05.ld_red, tcgen05.load_fragment or a "
                           "tcgen05.frag_map of them")
