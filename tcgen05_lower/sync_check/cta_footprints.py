"""The cells each access touches in the one-program model: TMEM footprints of buffers,
copies and A blocks, shared-memory tiles, the registers an op reads, and the instance of
an op with its operands bound."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (CpOp, LdOp, LdRedOp, MmaOp, ShiftOp, SmemStageOp, StOp,
                                       TmemBufferOp, TmemStageOp, wrap)
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.verification.common import known_element_bits
from tcgen05_lower.sync_check.model import (ANY_TILE, A_CONTAINER_BITS, A_LINEAR_LAYOUTS,
                                            A_ROW_BITS, A_ROW_BITS_K96, COPY_COLUMNS, FULL_LANES,
                                            Footprint, Instance, TMEM_COLUMNS, WARPGROUP_OPS,
                                            is_placed_buffer, is_poison, lane_mask)


class Footprints:
    """Cells, tiles and instances. A part of the one-program model (cta.Run), which composes
    it: reads and updates the run's state (instances, mbarriers, aliases, problems)."""

    def register_reads(self, op) -> None:
        """Marks the loads whose registers `op` reads."""
        known = self.loads_read.get(op)
        if known is None:
            loads, bound = [], []
            for operand in op.operands:
                # Integers are no registers of a load; kernel arguments are bound to
                # nothing.
                if isinstance(operand.type, (ir.IndexType, ir.IntegerType)) or \
                        operand in self.kernel_args:
                    continue
                if self.varies(operand):
                    bound.append(operand)  # a region result or block argument
                    continue
                owner = defining_op(operand)
                if isinstance(wrap(owner), (LdOp, LdRedOp)):
                    loads.append(owner)
            known = self.loads_read[op] = (loads, bound)
        loads, bound = known
        if bound:
            loads = list(loads)
            for operand in bound:
                for value in self.roots(operand):
                    owner = defining_op(value)
                    if owner is not None and isinstance(wrap(owner), (LdOp, LdRedOp)):
                        loads.append(owner)
        for owner in loads:
            for inst in self.live:
                if inst.op == owner:
                    inst.registers_read = True

    def cells(self, value) -> list:
        """[(cells, linear)] for every buffer `value` may name now (one, unless it is a
        region result or block argument that several ways bound), where linear is the
        elements per TMEM column when element c of a row is in TMEM column (first column
        + c // linear), else 0."""
        found = []
        for root in self.roots(value):
            for cell in self.buffer_cells(root):
                if cell not in found:
                    found.append(cell)
        return found

    def buffer_cells(self, value) -> list:
        """[(cells, linear)] of one buffer value."""
        op = defining_op(value)
        if op is not None and TmemStageOp.matches(op):
            # A stage (the planner places its buffer): the staged buffer's cells (which
            # may itself be bound at run time), none of them linear.
            return [(cells, False) for cells, _ in self.cells(TmemStageOp(op).buffer)]
        if not is_placed_buffer(op):
            # Not a placed buffer (e.g. a region result no way bound): every cell.
            return [(Footprint(0, TMEM_COLUMNS, FULL_LANES, known=False), False)]
        buffer = TmemBufferOp(op)
        first = buffer.column_offset
        columns = buffer.columns or 0
        half = bool(buffer.half_lanes)
        lanes = lane_mask(buffer.lane_offset or 0, half)
        stages = d.type_info(buffer.buffer.type).shape
        if len(stages) == 3:
            # `columns` is one stage's footprint; where each stage sits (side by side, or
            # paired on lane halves) is the planner's: take all of them on every lane.
            return [(Footprint(first, first + columns * stages[0], FULL_LANES), False)]
        info = d.type_info(value.type)
        shape = info.shape
        linear = 0
        if not half and len(shape) == 2:
            linear = _elements_per_column(info.element, shape[-1], columns)
        return [(Footprint(first, first + columns, lanes), linear)]

    def copy_cells(self, op) -> list:
        """The cells a tcgen05.cp writes in each buffer its destination may name: from
        the buffer's first column plus the op's ``column``, COPY_COLUMNS[shape] columns,
        on the lanes COPY_LANES gives (all 128 for every shape but .4x256b, whose 4 lanes
        start at the buffer's lane offset). A destination that is not a placed buffer
        keeps the buffer's own cells."""
        cp = CpOp(op)
        shape = cp.shape
        width = COPY_COLUMNS.get(shape)
        column = cp.column
        found = []
        for root in self.roots(cp.dest):
            owner = defining_op(root)
            for cells, linear in self.buffer_cells(root):
                placed = is_placed_buffer(owner) and \
                    len(d.type_info(owner.results[0].type).shape) == 2
                if width is None or not placed or not cells.known:
                    found.append(cells)
                    continue
                lanes = FULL_LANES
                if shape == "4x256b":
                    lanes = ((1 << 4) - 1) << (TmemBufferOp(owner).lane_offset or 0)
                first = cells.lo + column
                found.append(Footprint(first, first + width, lanes))
        return found

    def a_block_cells(self, op, value) -> list:
        """The cells of A in tensor memory that one MMA reads: in a buffer whose layout
        puts A's rows on lanes one to one (A_LINEAR_LAYOUTS), the 32-bit columns of its K
        block, from column k_offset x container bits / 32 of the buffer (k_offset halved
        for a sparse MMA, whose A is stored compressed, 9.7.16.10.8), A_ROW_BITS / 32
        wide; any other buffer (a stage, a folded layout, one bound to nothing placed)
        whole."""
        mma = MmaOp(op)
        bits = A_CONTAINER_BITS.get(mma.kind)
        offset = mma.k_offset or 0
        if mma.sparse:
            offset //= 2
        width = (A_ROW_BITS_K96 if mma.k == 96 else A_ROW_BITS) // 32
        found = []
        for root in self.roots(value):
            owner = defining_op(root)
            linear = is_placed_buffer(owner) and bits is not None \
                and len(d.type_info(owner.results[0].type).shape) == 2 \
                and TmemBufferOp(owner).layout in A_LINEAR_LAYOUTS
            for cells, _ in self.buffer_cells(root):
                if not linear or not cells.known or (offset * bits) % 32:
                    found.append(cells)
                    continue
                first = cells.lo + offset * bits // 32
                found.append(Footprint(first, first + width, cells.lanes))
        return found

    def tiles(self, value) -> list:
        """The shared-memory tiles `value` may name now; ANY_TILE for one no way bound
        (or a ub.poison)."""
        out = []
        for root in self.roots(value):
            owner = defining_op(root)
            if owner is not None and SmemStageOp.matches(owner):
                # A stage view counts as its whole multi-stage tile: accesses to different
                # stages are ordered as if they met (more than needed, never less).
                found = self.tiles(SmemStageOp(owner).tile)
            else:
                found = [ANY_TILE if self.varies(root) or is_poison(root) else root]
            out += [t for t in found if t not in out]
        return out

    def instance(self, op, name: str) -> Instance:
        """A new execution of `op`: its cells (a load's or store's slice from the column
        its operand has now), the rest computed once per op unless an operand is bound
        at run time (a region result or block argument)."""
        fixed = self.static.get(op)
        if fixed is None:
            fixed = self.fixed_instance(op, name)
            varying = self.varying.get(op)
            if varying is None:
                varying = self.varying[op] = any(
                    self.varies(v) for v in op.operands
                    if not isinstance(v.type, (ir.IndexType, ir.IntegerType)))
            if not varying:
                self.static[op] = fixed
        if name not in WARPGROUP_OPS:
            return Instance(op, name, list(fixed.tmem_reads), list(fixed.tmem_writes),
                            fixed.tiles_read, fixed.tiles_written, fixed.shape_key)
        buffers, column, width = fixed
        start = self.eval.value(column)
        cells = []
        for whole, linear in buffers:
            # `linear` elements per 32-bit column (2 for a packed 16-bit buffer): a slice
            # that starts and ends on a column boundary is those columns
            if linear and start is not None and start % linear == 0 and width % linear == 0:
                whole = Footprint(whole.lo + start // linear,
                                  whole.lo + (start + width) // linear, whole.lanes)
            cells.append(whole)
        if name == StOp.NAME:
            return Instance(op, name, [], cells, [], [])
        return Instance(op, name, cells, [], [], [])

    def fixed_instance(self, op, name: str):
        """The parts of an instance of `op` that are the same in every execution with
        the same bindings."""
        if name in WARPGROUP_OPS:
            frag = wrap(op).fragment
            width = d.type_info(frag.type).shape[1]
            return self.cells(op.operands[0]), op.operands[1], width
        if name == MmaOp.NAME:
            operands = mma_operands(op)
            mma = MmaOp(op)
            accumulators = [cells for cells, _ in self.cells(operands.d)]
            reads = [cells for v in (operands.scale_a, operands.scale_b, operands.metadata)
                     if v is not None and d.is_tmem(v) for cells, _ in self.cells(v)]
            if d.is_tmem(operands.a):
                reads += self.a_block_cells(op, operands.a)
            shape = (operands.d_type.rows, operands.d_type.cols, mma.kind, mma.sparse,
                     mma.k or 0)
            tiles = [t for v in (operands.a, operands.b) if d.is_smem(v)
                     for t in self.tiles(v)]
            return Instance(op, name, reads + accumulators, list(accumulators), tiles, [],
                            shape)
        if name == CpOp.NAME:
            return Instance(op, name, [], self.copy_cells(op), self.tiles(CpOp(op).source),
                            [], (CpOp(op).shape,))
        if name == ShiftOp.NAME:
            cells = [cells for cells, _ in self.cells(op.operands[0])]
            return Instance(op, name, cells, list(cells), [], [])
        # smem_fill and tma_load: the tile is operand 1
        return Instance(op, name, [], [], [], self.tiles(op.operands[1]))


def _elements_per_column(element: str, elements: int, columns: int) -> int:
    """How many elements of a row one 32-bit column holds in a buffer of `elements`
    columns of `element` placed on `columns` TMEM columns: 1 when they are as many, 32 /
    bits when the buffer packs its elements along the columns (a 16-bit A operand: two
    per column, tmem-facts section 1), else 0 (no linear map: the whole buffer)."""
    if columns == elements:
        return 1
    bits = known_element_bits(element)
    if bits in (8, 16) and columns * (32 // bits) == elements:
        return 32 // bits
    return 0
