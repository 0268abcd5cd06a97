"""Splits under a register budget: a load whose fragment only feeds one store (ld ->
store_fragment, load_fragment -> st, in one block with only arith ops between) becomes a
sequence of narrower load -> store pairs at the store's position, so that
tcgen05-insert-sync, which runs later, sees every load and its consumer."""

from __future__ import annotations

from dataclasses import replace

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect.ops import (FragMapOp, LdOp, LdRedOp, LoadFragmentOp, StOp,
                                       StoreFragmentOp, WaitOp, wrap)
from tcgen05_lower.element_types import element_bits
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.layout_selection.common import line_text
from tcgen05_lower.layout_selection.results import Planned
from tcgen05_lower.strategies import ldst as strategies


#: Ops that may sit between a load and the store it feeds without stopping the split:
#: they neither touch memory nor the tensor memory.
PURE_PREFIXES = ("arith.", "index.")


def _offset_index(value, delta: int):
    """`value + delta` as an index value at the insertion point (a new constant when
    `value` is one)."""
    if delta == 0:
        return value
    index = ir.IndexType.get()
    producer = defining_op(value)
    if producer is not None and producer.name == "arith.constant":
        constant = int_value(producer.attributes["value"])
        return ir.Operation.create("arith.constant", results=[index], attributes={
            "value": ir.IntegerAttr.get(index, constant + delta)}).results[0]
    offset = ir.Operation.create("arith.constant", results=[index], attributes={
        "value": ir.IntegerAttr.get(index, delta)}).results[0]
    return ir.Operation.create("arith.addi", results=[index],
                               operands=[value, offset]).results[0]


#: Attributes tcgen05-select-layouts writes; everything else on an op is the program's.
_PACK = frozenset(a.name for a in (LdOp.pack16, StOp.unpack16))

_PLANNED = frozenset(a.name for a in (LdOp.shape, LdOp.num, LdOp.half_split)) | _PACK


def _user_attributes(op) -> dict:
    """The attributes of `op` that a chunk of it keeps: the program's own, and its
    pack16/unpack16 request."""
    return {name: op.attributes[name] for name in op.attributes
            if name not in _PLANNED or name in _PACK}


def _build_like(cls, like, *, result_types=(), **operands):
    """A new `cls` op (at the insertion point) with `operands` and, as they are, the
    attributes of `like` that a chunk keeps (_user_attributes)."""
    return cls.build(result_types=result_types, attributes=_user_attributes(like), **operands)


def _uses(value) -> list:
    users = []
    for use in value.uses:
        owner = use.owner
        users.append(owner.operation if hasattr(owner, "operation") else owner)
    return users


def _reorders(op) -> bool:
    """Whether moving a load (or a store) across `op` could change what the program does:
    anything but arith/index ops, tcgen05.frag_map (registers in, registers out; its body
    at most reads global memory, tcgen05-verify checks) and tcgen05.wait (which only
    orders earlier accesses)."""
    if op.name.startswith(PURE_PREFIXES) or FragMapOp.matches(op):
        return False
    return not (WaitOp.matches(op) and not op.regions)


class BlockPositions:
    """Every op's block and position, and per block how many ops up to each position a
    load must not be moved across (one walk, so each query is O(1))."""

    def __init__(self, root):
        self.where: dict = {}
        self.fences: list[list[int]] = []
        self._index(root)

    def _index(self, op) -> None:
        for region in op.regions:
            for block in region.blocks:
                block_id = len(self.fences)
                counts = [0]
                self.fences.append(counts)
                for i, inner in enumerate(block.operations):
                    inner = inner.operation
                    self.where[inner] = (block_id, i)
                    counts.append(counts[-1] + _reorders(inner))
                    self._index(inner)

    def movable_between(self, first, last) -> bool:
        """Whether `first` and `last` are in one block with only movable ops between."""
        (b1, i1), (b2, i2) = self.where[first], self.where[last]
        return b1 == b2 and i1 < i2 and self.fences[b1][i2] - self.fences[b1][i1 + 1] == 0


def _maps_after(load) -> list:
    """The tcgen05.frag_map ops, each of one input, that the load's fragment flows
    through one after another as their only use (ld -> frag_map -> ... -> store)."""
    maps, value = [], wrap(load).fragment
    while True:
        users = _uses(value)
        if len(users) != 1 or not FragMapOp.matches(users[0]) or \
                len(users[0].operands) != 1:
            return maps
        maps.append(users[0])
        value = users[0].results[0]


def _computed_budget(budget: int, maps) -> int:
    """The registers a chunk's loaded data may take when each of its elements also
    gives a computed value (of the widest result element of `maps`) live until it is
    stored: loaded + computed registers stay within `budget`."""
    bits = max(element_bits(d.type_info(m.results[0].type).element) for m in maps)
    return max(1, budget * 32 // (32 + bits))


def _map_chunk(frag_map, fragment, offset: int, chunk: int):
    """A copy of `frag_map` (at the insertion point) on the chunk `fragment` that
    starts `offset` columns into the original's: its result has `chunk` columns and its
    body sees the original's column numbers (column argument + offset)."""
    result = d.type_info(frag_map.results[0].type)
    copy = frag_map.clone()
    copy.operands[0] = fragment
    copy.results[0].set_type(d.frag_type([result.shape[0], chunk], result.element))
    if offset:
        block = copy.regions[0].blocks[0]
        column = block.arguments[len(block.arguments) - 1]
        uses = [(use.owner, use.operand_number) for use in column.uses]
        with ir.InsertionPoint.at_block_begin(block), frag_map.location:
            shifted = _offset_index(column, offset)
        for owner, number in uses:
            owner = owner.operation if hasattr(owner, "operation") else owner
            owner.operands[number] = shifted
    return copy.results[0]


def _only_consumer(load, positions: BlockPositions):
    """(the single store the load feeds, "") when the pair may be split, else (None,
    reason); the load may feed the store through frag_maps (_maps_after)."""
    maps = _maps_after(load) if LdOp.matches(load) else []
    users = _uses(maps[-1].results[0] if maps else wrap(load).fragment)
    want = (StoreFragmentOp if LdOp.matches(load) else StOp).NAME
    if len(users) != 1 or d.op_name(users[0]) != want:
        return None, f"its fragment is used by {len(users)} ops, not by one tcgen05.{want}"
    store = users[0]
    if store not in positions.where or not positions.movable_between(load, store):
        return None, (f"ops between it and its tcgen05.{want} (or another block) would be "
                      f"reordered by a split")
    return store, ""


def _over_budget(plan: Planned, strategy) -> str:
    if strategies.num_exceeds_budget(strategy, plan.request) is None:
        return ""
    return f" ({_own_num_wins(plan, strategy)})"


def _why_whole(op, plan: Planned, strategy) -> str:
    if LdRedOp.matches(op):
        return "tcgen05.ld_red reduces all its columns in one op"
    if strategies.num_exceeds_budget(strategy, plan.request) is not None:
        return _own_num_wins(plan, strategy)
    return "it is as narrow as its messages allow"


def _own_num_wins(plan: Planned, strategy) -> str:
    return (f"the op's own num = {plan.request.num} wins over {strategy.text()}: a chunk "
            f"of whole .{plan.access.shape}.x{plan.request.num} messages holds "
            f"{strategies.num_exceeds_budget(strategy, plan.request)} registers per thread")


class BudgetSplits:
    """Load -> store splits under the register budget. Mixed into tcgen05-select-layouts' run
    (selector.LayoutSelector): reports with self.error and reads the per-kernel tables
    select_in_kernel sets up (self.buffers, self.plans, self.row_memo)."""

    def split_for_budget(self, kernel, accesses, load_fragments) -> None:
        """Rewrites each splittable load -> store pair whose chunk width is below its
        width into a sequence of narrower pairs (module docstring)."""
        positions = BlockPositions(kernel)
        for op in accesses + load_fragments:
            plan = self.plans.get(op)
            if plan is None or StOp.matches(op):
                continue
            strategy = self.strategy
            maps = _maps_after(op) if LdOp.matches(op) else []
            if maps and isinstance(strategy, strategies.RegisterBudget):
                # The chunk's computed values are live beside its loaded registers.
                strategy = strategies.RegisterBudget(_computed_budget(strategy.budget, maps))
            try:
                chunk = strategy.chunk_width(replace(plan.request, op=plan.access.op))
                if chunk != plan.access.width:  # each chunk must be movable (chunking())
                    strategy.access(replace(plan.request, width=chunk))
            except IsaRuleError as exc:
                self.error(op, str(exc))
                continue
            if LdRedOp.matches(op):
                chunk = plan.access.width
            if chunk == plan.access.width:
                if isinstance(self.strategy, strategies.RegisterBudget) and \
                        plan.access.registers > self.strategy.budget:
                    plan.note = (f"kept whole: {plan.access.registers} registers per thread "
                                 f"({_why_whole(op, plan, self.strategy)})")
                continue
            consumer, why = _only_consumer(op, positions)
            if consumer is None:
                plan.note = (f"kept whole: {plan.access.registers} registers per thread "
                             f"({why})")
                continue
            if LoadFragmentOp.matches(op):
                self.split_prologue(op, consumer, plan, chunk)
            else:
                self.split_epilogue(op, consumer, plan, chunk, maps)

    def chunking(self, load, plan: Planned, chunk: int):
        """(the access of one chunk, how many chunks, the fragment type of one chunk) of
        a fragment of `plan.access.width` columns split into `chunk`-column pieces."""
        frag = d.type_info(load.results[0].type)
        return (self.strategy.access(replace(plan.request, width=chunk)),
                plan.access.width // chunk, d.frag_type([frag.shape[0], chunk], frag.element))

    def split_epilogue(self, load, store, plan: Planned, chunk: int, maps=()) -> None:
        access, count, chunk_type = self.chunking(load, plan, chunk)
        buffer, column = load.operands[0], load.operands[1]
        dest, dest_column = store.operands[1], store.operands[2]
        with ir.InsertionPoint(store):
            for k in range(count):
                with load.location:
                    col = _offset_index(column, k * chunk)
                    new_load = _build_like(LdOp, load, source=buffer, column=col,
                                           result_types=[chunk_type])
                self.write_plan(new_load, access)
                fragment = LdOp(new_load).fragment
                for frag_map in maps:
                    fragment = _map_chunk(frag_map, fragment, k * chunk, chunk)
                with store.location:
                    dcol = col if dest_column == column else _offset_index(dest_column,
                                                                           k * chunk)
                    # The run-time dims (leading dimension, offsets, extents) stay
                    # the store's: each chunk lands in the same matrix.
                    _build_like(StoreFragmentOp, store, fragment=fragment,
                                dest=dest, column=dcol,
                                dim_values=list(StoreFragmentOp(store).dim_values))
        what = (LdOp.NAME + " -> frag_map" * len(maps) + "/store_fragment chains" if maps
                else "ld/store_fragment pairs")
        self.split_notes.append(f"tcgen05.ld at {line_text(load)}: {plan.access.width} columns "
                                f"-> {count} {what} of {chunk} columns, "
                                f"{access.describe()}{_over_budget(plan, self.strategy)}")
        self.plans.pop(load, None)
        store.erase()
        for frag_map in reversed(maps):
            frag_map.erase()
        load.erase()

    def split_prologue(self, load, store, plan: Planned, chunk: int) -> None:
        access, count, chunk_type = self.chunking(load, plan, chunk)
        source, source_column = load.operands[0], load.operands[1]
        buffer, column = store.operands[0], store.operands[1]
        with ir.InsertionPoint(store):
            for k in range(count):
                with load.location:
                    new_load = _build_like(
                        LoadFragmentOp, load, source=source,
                        column=_offset_index(source_column, k * chunk),
                        dim_values=list(LoadFragmentOp(load).dim_values),
                        result_types=[chunk_type])
                self.write_plan(new_load, access)
                with store.location:
                    col = (LoadFragmentOp(new_load).column if column == source_column
                           else _offset_index(column, k * chunk))
                    new_store = _build_like(StOp, store, dest=buffer, column=col,
                                            fragment=LoadFragmentOp(new_load).fragment)
                self.write_plan(new_store, access)
        self.split_notes.append(f"tcgen05.st at {line_text(store)}: {plan.access.width} columns "
                                f"-> {count} load_fragment/st pairs of {chunk} columns, "
                                f"{access.describe()}{_over_budget(plan, self.strategy)}")
        self.plans.pop(load, None)
        self.plans.pop(store, None)
        store.erase()
        load.erase()
