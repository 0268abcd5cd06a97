"""Register fragments against the plans: a load_fragment gets the plan of the tcgen05.st
it feeds, a stored fragment is laid out as its store expects, per-row values are held by
the thread that holds the row, and a store_fragment's global store is one the lowering
emits."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.computed import row_vector_root
from tcgen05_lower.dialect.ops import (FragBroadcastOp, FragMapOp, FragReduceOp, LdOp, LdRedOp,
                                       LoadFragmentOp, StOp, StoreFragmentOp, wrap)
from tcgen05_lower.isa import row_slots
from tcgen05_lower.kernel_ir import defining_op, terminator
from tcgen05_lower.layout_selection.common import column_facts, line_text
from tcgen05_lower.layout_selection.results import Planned
from tcgen05_lower.planning import row_placement


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
            if plan.buffer.role == "a" and value != StOp(store).fragment:
                # load_fragment packs A's elements into the store's registers itself.
                self.error(store, "tcgen05.st into an A operand: a tcgen05.frag_map of a "
                                  "fragment loaded from global memory is not supported "
                                  "there yet (the loaded fragment is packed as A); store "
                                  "the loaded fragment itself")
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
            self.check_a_source(store, plan, producer, source.access)
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
        row's columns of the slice in that thread, or, for .16x32bx2, in the two threads
        l and l xor 16 that a shuffle combines (isa.row_slots); the operands of one op
        must give each thread the same rows (planning.row_placement)."""
        if FragMapOp.matches(op):
            for value in op.operands:
                self.check_row_held(op, value)
            self.check_same_rows(op, list(op.operands))
            return
        if op.name == "scf.for":
            # A carried row vector is one register per row: its initial value and the
            # value yielded for it are held alike, one row per thread.
            yield_op = terminator(op.regions[0].blocks[0])
            for i, result in enumerate(op.results):
                if isinstance(d.type_info(result.type), d.FragType):
                    self.check_row_held(op, op.operands[3 + i])
                    self.check_row_held(yield_op, yield_op.operands[i])
                    self.check_same_rows(yield_op, [op.operands[3 + i],
                                                    yield_op.operands[i]], one_slot=True)
            return
        if FragBroadcastOp.matches(op):
            self.check_row_held(op, op.operands[0])
            self.check_same_rows(op, list(op.operands[:2]))
        value = op.operands[0] if FragReduceOp.matches(op) else op.operands[1]
        self.check_held(op, value)

    def check_same_rows(self, op, values, one_slot: bool = False) -> None:
        """The per-row operands of `op` give each thread the same rows
        (planning.row_placement)."""
        why = row_placement.mismatch(values, self.plans, self.row_memo, one_slot=one_slot)
        if why is not None:
            self.error(op, f"{op.name}: its per-row operands must be held alike: {why}")

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
        why = row_slots.why_not(access)
        if why is not None:
            self.error(op, f"{op.name} needs the fragment held one row per message in each "
                           f"thread (.32x32b or .16x32bx2 of a layout that keeps a row on "
                           f"one warp's lanes); the load at {line_text(producer)} holds it as "
                           f"{access.describe()} (Layout {access.layout}): {why}")

    def check_global_store(self, op) -> None:
        producer = defining_op(StoreFragmentOp(op).fragment)
        while producer is not None and FragMapOp.matches(producer):
            # A computed fragment is held as its inputs are (lowering.compute).
            producer = defining_op(producer.operands[0]) if len(producer.operands) else None
        if producer is None or not isinstance(wrap(producer), (LdOp, LdRedOp, LoadFragmentOp)):
            self.error(op, "the fragment of tcgen05.store_fragment must come from "
                           "tcgen05.ld, tcgen05.ld_red, tcgen05.load_fragment or a "
                           "tcgen05.frag_map of them")
