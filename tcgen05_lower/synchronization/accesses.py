"""The TMEM cells and shared-memory tiles each asynchronous tcgen05 op touches
(`Access`), which buffers a value may name (`Buffers`), and the pipelined pairs of
9.7.16.6.2."""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (CpOp, MmaOp, ShiftOp, SmemStageOp, StOp, TmemBufferOp,
                                       TmemStageOp)
from tcgen05_lower.isa import layouts
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import (OpDict, a_tmem_k_block, defining_op, forwarded_sources,
                                     mma_operands, parent_op)
from tcgen05_lower.synchronization.common import (ALL_LANES, ASYNC_OPS, EVERYWHERE, LOADS,
                                                  constant_value)


@dataclass(frozen=True, eq=False)
class Cells:
    """TMEM cells: columns [lo, hi) on the lane halves ``lanes``. With ``base`` set (the
    induction variable of an scf.for), the columns are [base + lo, base + hi). ``bound``
    is the whole buffer's column range, used when two slices cannot be compared."""

    lo: int
    hi: int
    lanes: int
    base: object = None
    bound: tuple = EVERYWHERE

    def key(self) -> tuple:
        """What identifies these cells (the base by its hash)."""
        return (self.lo, self.hi, self.lanes, self.bound,
                None if self.base is None else hash(self.base))

    def __eq__(self, other) -> bool:
        # MLIR values refuse comparison with None, so compare the base by hand.
        return isinstance(other, Cells) and self.key() == other.key() and \
            (self.base is None) == (other.base is None) and \
            (self.base is None or self.base == other.base)

    def __hash__(self) -> int:
        return hash(self.key())

    def describe(self) -> str:
        """The cells as reasons name them."""
        lanes = {0b11: "", 0b01: ", lanes 0-15 of each quarter",
                 0b10: ", lanes 16-31 of each quarter"}[self.lanes]
        if (self.lo, self.hi) == EVERYWHERE:
            return f"every TMEM column{lanes} (a buffer the pass cannot trace)"
        if self.base is not None:
            return f"TMEM columns [{self.bound[0]}, {self.bound[1]}){lanes}"
        return f"TMEM columns [{self.lo}, {self.hi}){lanes}"


@dataclass(frozen=True)
class Access:
    """What an asynchronous op touches."""

    op: object
    name: str  # tcgen05 op name without prefix
    cls: str  # ISSUER, WARPGROUP or GENERIC
    reads: tuple = ()
    writes: tuple = ()
    smem_reads: tuple = ()
    smem_writes: tuple = ()
    pipeline_key: tuple = ()  # mma: (the D buffers it may be, shape); cp: (shape,)
    fragment: object = None  # ld / ld_red: the fragment value


def _is_induction_variable(value) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.Block):
        return False
    parent = parent_op(owner)
    return parent is not None and parent.name == "scf.for" and \
        value == owner.arguments[0]


def loop_of_induction_variable(value):
    return parent_op(value.owner)


class Buffers:
    """Which TMEM cells the buffer values of a kernel name.

    A value made by ``tcgen05.tmem_buffer`` (or a planned stage of one) names its own
    cells. A value that control flow chooses at run time (an scf.for or scf.while
    iteration argument or result, an scf.if / scf.index_switch result: what
    lift-cf-to-scf makes of a block argument) names every cell of every buffer that can
    reach it; ``bind`` narrows that for one walk: while the first iteration of a loop is
    walked, its iteration arguments are their initial values."""

    def __init__(self):
        self.bind: dict = {}  # block argument -> the value it has in the walk at hand
        self.memo: dict = {}  # value -> cells, under `bind`
        # op -> its Access (access_of), under `bind` (an OpDict: kernel_ir)
        self.accesses = OpDict()
        self.loops: tuple = ()  # the loops whose first iteration `bind` is
        #: loops -> (bind, memo, accesses): the walks of a kernel bind the same loops
        #: again and again, and the IR does not change while they run.
        self.scopes = OpDict([((), (self.bind, self.memo, self.accesses))])

    def bound(self, loop, walk):
        """Runs `walk()` with the iteration arguments of scf.for `loop` bound to their
        initial values (its first iteration)."""
        saved = (self.loops, self.bind, self.memo, self.accesses)
        self.loops = saved[0] + (loop,)
        scope = self.scopes.get(self.loops)
        if scope is None:
            bind = dict(saved[1])
            args = list(loop.regions[0].blocks[0].arguments)[1:]
            for arg, init in zip(args, list(loop.operands)[3:]):
                bind[arg] = init
            scope = self.scopes[self.loops] = (bind, {}, OpDict())
        self.bind, self.memo, self.accesses = scope
        try:
            return walk()
        finally:
            self.loops, self.bind, self.memo, self.accesses = saved

    def cells(self, value) -> tuple:
        """(first column, columns, lanes, slices are exact, choices) of what `value`
        names; choices: the (first column, columns, lanes) of each buffer it may name,
        or None for a value the pass cannot trace (or an unplanned buffer), which counts
        as every cell."""
        found = self.memo.get(value)
        if found is None:
            leaves = self.leaves(value)
            if leaves is None:
                found = (EVERYWHERE[0], EVERYWHERE[1], ALL_LANES, False, None)
            else:
                parts = [_leaf_cells(leaf) for leaf in leaves]
                choices = tuple(p[:3] for p in parts)
                if len(parts) == 1:
                    found = parts[0] + (choices,)
                else:
                    lo = min(p[0] for p in parts)
                    hi = max(p[0] + p[1] for p in parts)
                    lanes = 0
                    for p in parts:
                        lanes |= p[2]
                    found = (lo, hi - lo, lanes, False, choices)
            self.memo[value] = found
        return found

    def leaves(self, value) -> list | None:
        """The ops (tcgen05.tmem_buffer, or a planned stage) whose results can reach
        `value`, or None when one of the ways in is not traced."""
        out: list = []
        seen: set = set()
        todo = [value]
        while todo:
            value = todo.pop()
            while value in self.bind:
                value = self.bind[value]
            if value in seen:
                continue
            seen.add(value)
            op = defining_op(value)
            if op is not None and TmemStageOp.matches(op):
                todo.append(TmemStageOp(op).buffer)  # a stage view counts as the whole buffer
            elif op is not None and TmemBufferOp.matches(op) \
                    and TmemBufferOp(op).has(TmemBufferOp.column_offset):
                if op not in out:
                    out.append(op)
            else:
                sources = _sources(value, op)
                if sources is None:
                    return None
                todo.extend(sources)
        return out


#: What a TMEM value is followed through here: scf results and iteration arguments (what
#: lift-cf-to-scf leaves). kernel_ir.forwarded_sources also follows arith.select and cf
#: block arguments; to this pass those name every cell.
_FOLLOWED_RESULTS = ("scf.if", "scf.index_switch", "scf.for", "scf.while")
_FOLLOWED_ARGUMENTS = ("scf.for", "scf.while")


def _sources(value, op) -> list | None:
    """The values an iteration argument or region result takes: initial values and
    yielded ones (None for anything else)."""
    if op is not None:  # a region result
        followed = op.name in _FOLLOWED_RESULTS
    else:
        parent = parent_op(value.owner)
        followed = parent is not None and parent.name in _FOLLOWED_ARGUMENTS
    return forwarded_sources(value) if followed else None


def _leaf_cells(op) -> tuple[int, int, int, bool]:
    """(first column, columns, lanes, slices are exact) of a planned buffer or stage."""
    buffer = TmemBufferOp(op)
    start = buffer.column_offset
    columns = buffer.columns or 0
    half = bool(buffer.half_lanes)
    lanes = (0b01 if (buffer.lane_offset or 0) == 0 else 0b10) if half else ALL_LANES
    stages = d.type_info(buffer.buffer.type).stages
    if stages > 1:
        # A multi-buffered buffer's footprint is one stage's: its stages sit side by side,
        # or in pairs on the two lane halves. Count every stage on both halves.
        return start, columns * stages, ALL_LANES, False
    info = d.type_info(op.results[0].type)
    # Column c of a full-datapath buffer whose footprint is one column per element column
    # is TMEM column start + c; other layouts map columns less simply: whole buffer.
    exact = not half and isinstance(info, d.TmemType) and len(info.shape) == 2 \
        and columns == info.cols
    return start, columns, lanes, exact


def whole_buffer(value, buffers: Buffers) -> Cells:
    """All cells of the TMEM buffer `value` names (`buffers`: the walk's bindings)."""
    start, columns, lanes, _, _ = buffers.cells(value)
    return Cells(start, start + columns, lanes, None, (start, start + columns))


def copy_cells(op, buffers: Buffers) -> Cells:
    """The cells a tcgen05.cp writes (``layouts.cp_footprint``): its columns from the
    destination's column plus the op's ``column``, on every lane of the four quarters
    (.4x256b: its 4 lanes, counted as their lane half); the whole destination, on every
    lane, when the destination may be several buffers or a stage."""
    cp = CpOp(op)
    start, columns, lanes, exact, choices = buffers.cells(cp.dest)
    bound = (start, start + columns)
    try:
        copy = layouts.cp_footprint(cp.shape, cp.multicast, column=cp.column)
    except IsaRuleError:
        return Cells(start, start + columns, ALL_LANES, None, bound)
    leaves = buffers.leaves(cp.dest) if choices is not None else None
    if not leaves or len(leaves) != 1 or d.type_info(leaves[0].results[0].type).stages > 1:
        return Cells(start, max(start + columns, start + copy.end_column), ALL_LANES, None,
                     bound)
    copy_lanes = ALL_LANES
    if not copy.whole_quarters:
        copy_lanes = lanes  # .4x256b: 4 lanes from the buffer's own lane offset
    return Cells(start + copy.first_column, start + copy.end_column, copy_lanes, None,
                 (start, max(start + columns, start + copy.end_column)))


#: Layouts that keep A's rows on lanes one to one, in consecutive 32-bit columns from the
#: buffer's address (9.7.16.10.5); B, E and G duplicate or fold them.
A_ROWS_ON_LANES = ("A", "D", "F")


def a_block_cells(op, value, buffers: Buffers) -> Cells:
    """The cells of A in tensor memory that the MMA `op` reads: the columns of its K block
    (``kernel_ir.a_tmem_k_block``, as the lowering addresses it) when `value` is one
    placed buffer whose layout keeps A's rows on lanes one to one; else the whole
    buffer(s)."""
    start, columns, lanes, _, choices = buffers.cells(value)
    whole = Cells(start, start + columns, lanes, None, (start, start + columns))
    leaves = buffers.leaves(value) if choices is not None else None
    if not leaves or len(leaves) != 1:
        return whole
    buffer = TmemBufferOp(leaves[0])
    if buffer.layout not in A_ROWS_ON_LANES or \
            d.type_info(buffer.buffer.type).stages > 1:
        return whole
    first, width = a_tmem_k_block(op)
    return Cells(start + first, start + first + width, lanes, None, whole.bound)


def buffer_slice(value, column, width: int, buffers: Buffers) -> Cells:
    """Columns [column, column + width) of buffer `value` (column: an index value)."""
    start, columns, lanes, exact, _ = buffers.cells(value)
    bound = (start, start + columns)
    if not exact:
        return Cells(start, start + columns, lanes, None, bound)
    constant = constant_value(column)
    if constant is not None:
        return Cells(start + constant, start + constant + width, lanes, None, bound)
    if _is_induction_variable(column):
        return Cells(start, start + width, lanes, column, bound)
    op = defining_op(column)
    if op is not None and op.name == "arith.addi":
        lhs, rhs = op.operands[0], op.operands[1]
        for iv, offset in ((lhs, rhs), (rhs, lhs)):
            c = constant_value(offset)
            if c is not None and _is_induction_variable(iv):
                return Cells(start + c, start + c + width, lanes, iv, bound)
    return Cells(start, start + columns, lanes, None, bound)


def access_of(op, buffers: Buffers | None = None) -> Access | None:
    """The access of an asynchronous tcgen05 op, or None for any other op (`buffers`:
    the walk's bindings of iteration arguments)."""
    name = d.op_name(op)
    cls = ASYNC_OPS.get(name)
    if cls is None:
        return None
    buffers = buffers or Buffers()
    # The walks of a loop body see each op many times; the IR does not change while
    # they run, and what the op touches depends only on the bindings in `buffers`.
    access = buffers.accesses.get(op)
    if access is None:
        access = _access(op, name, cls, buffers)
        buffers.accesses[op] = access
    return access


def _access(op, name: str, cls: str, buffers: Buffers) -> Access:
    """access_of, computed."""
    if name == MmaOp.NAME:
        operands = mma_operands(op)
        mma = MmaOp(op)
        dcells = whole_buffer(operands.d, buffers)
        reads = [whole_buffer(v, buffers) for v in
                 (operands.scale_a, operands.scale_b, operands.metadata) if v is not None]
        if operands.a_tmem is not None:
            reads.append(a_block_cells(op, operands.a, buffers))
        smem = tuple(whole_tile(v) for v in (operands.a, operands.b) if d.is_smem(v))
        shape = (operands.d_type.rows, operands.d_type.cols, mma.kind, mma.sparse, mma.k or 0)
        # The buffers the accumulator may be (none known: never pipelined).
        choices = buffers.cells(operands.d)[4]
        key = (choices, shape) if choices is not None else ()
        return Access(op, name, cls, reads=tuple(reads) + (dcells,), writes=(dcells,),
                      smem_reads=smem, pipeline_key=key)
    if name == CpOp.NAME:
        return Access(op, name, cls, writes=(copy_cells(op, buffers),),
                      smem_reads=(whole_tile(CpOp(op).source),),
                      pipeline_key=(CpOp(op).shape,))
    if name == ShiftOp.NAME:
        cells = whole_buffer(op.operands[0], buffers)
        return Access(op, name, cls, reads=(cells,), writes=(cells,))
    if name in LOADS:
        width = d.type_info(op.results[0].type).shape[1]
        return Access(op, name, cls, reads=(buffer_slice(op.operands[0], op.operands[1],
                                                          width, buffers),),
                      fragment=op.results[0])
    if name == StOp.NAME:
        width = d.type_info(op.operands[2].type).shape[1]
        return Access(op, name, cls, writes=(buffer_slice(op.operands[0], op.operands[1],
                                                           width, buffers),))
    return Access(op, name, cls, smem_writes=(whole_tile(op.operands[1]),))  # smem_fill


#: The class of a TMA load's access: a write of its tile through the async proxy, which
#: insert-sync orders after the reads of that tile still in flight (commit -> wait), but
#: does not track as in flight itself (its completion is the kernel's mbarrier protocol,
#: docs/tma.md).
TMA = "tma"


def tma_access(op) -> Access:
    """The access of a tcgen05.tma_load: it writes its tile (operand 1)."""
    return Access(op, "tma_load", TMA, smem_writes=(whole_tile(op.operands[1]),))


def whole_tile(value):
    """The shared-memory tile `value` names for ordering: a ``tcgen05.smem_stage`` view
    counts as its whole multi-stage tile (every stage), so that an access to one stage is
    ordered against accesses to any stage of the ring: more synchronization than the
    stages need, never less."""
    op = defining_op(value)
    while op is not None and SmemStageOp.matches(op):
        value = SmemStageOp(op).tile
        op = defining_op(value)
    return value


def pipelined(earlier: Access, later: Access) -> bool:
    """9.7.16.6.2: pairs the tensor core executes in issue order (same thread and
    cta_group hold for every issuer op of a kernel)."""
    pair = (earlier.name, later.name)
    if pair == ("mma", "mma"):
        # The same accumulator and shape, whichever buffer each accumulator is (or cells
        # they do not share: then there is no dependence to order).
        if not earlier.pipeline_key or not later.pipeline_key:
            return False
        (mine, shape), (theirs, other) = earlier.pipeline_key, later.pipeline_key
        if shape != other or not all(a == b or _disjoint(a, b)
                                     for a in mine for b in theirs):
            return False
        # Accumulators that may differ: no pipelined pair, so a write of one MMA to
        # cells the other reads as A, scale factors or metadata (S written over the P
        # an earlier P V read, planning/aliases.py) is ordered by nothing (as
        # sync_check.cta_checks.meet_outside_accumulators).
        return all(a == b for a in mine for b in theirs) or \
            not _meet_outside_accumulators(earlier, later)
    if pair in (("cp", "mma"), ("shift", "mma"), ("mma", "shift")):
        return True
    return pair == ("shift", "cp") and later.pipeline_key == ("4x256b",)


def _meet_outside_accumulators(earlier: Access, later: Access) -> bool:
    """Whether one MMA writes cells the other reads other than as its accumulator (an
    MMA's reads end with its accumulator's cells, _access); slices are compared by the
    whole ranges of their buffers (more synchronization, never less)."""
    def meet(p: Cells, q: Cells) -> bool:
        lo_p, hi_p = (p.lo, p.hi) if p.base is None else p.bound
        lo_q, hi_q = (q.lo, q.hi) if q.base is None else q.bound
        return bool(p.lanes & q.lanes) and lo_p < hi_q and lo_q < hi_p
    return any(meet(w, r) for w in later.writes for r in earlier.reads[:-1]) or \
        any(meet(w, r) for w in earlier.writes for r in later.reads[:-1])


def _disjoint(a: tuple, b: tuple) -> bool:
    """Whether two (first column, columns, lanes) footprints share no cell."""
    return not a[2] & b[2] or a[0] + a[1] <= b[0] or b[0] + b[1] <= a[0]
