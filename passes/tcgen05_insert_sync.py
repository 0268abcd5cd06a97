"""tcgen05-insert-sync: order every dependence between tcgen05 operations with the
cheapest canonical pattern of PTX ISA 9.7.16.6.4.

Runs after tcgen05-plan-tmem: dependences are found on TMEM *cells* (lane halves x
columns of the planned buffers, so two buffers that share cells depend on each other) and
on shared-memory tiles (``smem_fill`` writes them through the generic proxy, ``mma`` and
``cp`` read them through the async proxy, 9.7.16.6.5).

Execution model
---------------
A kernel is one program run by every thread of the CTA (or of the CTA pair). Following
Table 46 and the lowering: ``mma``, ``cp``, ``shift`` and ``commit`` are issued by one
thread ("the issuer"); ``ld``, ``ld_red``, ``st`` and ``wait`` by every warp of the
warpgroup, each on the lane quarter it owns (9.7.16.8.1), so two messages that touch the
same cell come from the same warp; ``smem_fill``, fences, barriers and mbarrier waits
by every thread.

Rules (producer -> consumer, when they touch the same cells or tile)
--------------------------------------------------------------------
========================  =====================================================  ==========
issuer op -> issuer op    nothing if pipelined (mma -> mma with the same           9.7.16.6.2,
                          accumulator and shape, cp -> mma, shift -> mma,           .6.4.1
                          shift -> cp.4x256b, mma -> shift); otherwise commit ->
                          mbarrier wait -> fence::after_thread_sync               .6.4.2 ex 2
issuer op -> ld/st        commit -> mbarrier wait -> fence::after_thread_sync     .6.4.4 ex 2
issuer op -> smem_fill    commit -> mbarrier wait (the async-proxy reads are      9.7.16.6.5
                          complete before the generic writes start)
ld/st -> ld/st            wait::ld / wait::st (same warp)                         .6.4.2 ex 1
ld/st -> issuer op        wait::ld/st -> fence::before_thread_sync -> barrier     .6.4.4 ex 1
                          -> fence::after_thread_sync
smem_fill -> mma/cp       fence.proxy.async -> barrier                            9.7.16.6.5
ld -> ld again            wait::ld first, unless the registers it wrote were      .6.4.5
                          read in between (true register dependencies are
                          respected; only an overwrite races the load)
anything -> dealloc       as for an issuer-op consumer (every access complete
                          and ordered before warp 0 frees the columns)
========================  =====================================================  ==========

Pattern 9.7.16.6.4.3 (pipelined pair, different issuing threads) cannot arise: one
thread issues every mma, cp and shift, so a pipelined pair is always pattern .6.4.1.
The barrier of the cross-thread patterns is ``tcgen05.barrier`` (barrier.sync), an
execution-ordering instruction in the sense of 9.7.16.6.3.

Placement (strategy ``minimal``)
--------------------------------
One walk in program order keeps, for every asynchronous op whose effects may not be
ordered yet, how far it is: covered by a commit, complete, released by
fence::before_thread_sync, synchronized by a barrier, acquired by
fence::after_thread_sync, made visible by fence.proxy.async. A consumer that needs more
gets exactly the missing steps, merged into one group in the order waits, fences, proxy
fence, barrier, fence::after_thread_sync:

- before a loop or an ``scf.if``, for the dependences between work issued before it and
  anything inside it (so a wait for earlier work runs once, not in every iteration);
- otherwise right before the consumer (each wait as late as possible);
- commits right after the last producer they must cover (projected into the consumer's
  block), so that work issued later is not waited for: in a persistent kernel the MMAs of
  the next tile run while the epilogue reads the other accumulator. One commit covers
  every MMA before it; a consumer whose producers a commit already covers only waits, on
  that commit's mbarrier, unless that would also wait for later work it does not need;
- a loop-carried dependence (a consumer early in the body, a producer later in the body)
  gets its commit after the last op of the body that the body needs in its next
  iteration, and its wait before the consumer; the first iteration then waits for the
  phase before the first one, which a fresh mbarrier reports complete. When the first
  thing after the loop needs the same completion, the group goes at the end of the body
  instead, so that the last iteration's wait serves the code after the loop and no
  second wait is needed there (with only index arithmetic before the consumer, that is
  the same moment anyway).

Decisions inside a loop rest on what the previous iteration leaves in flight, so each
loop is walked until that settles (first without a previous iteration, then from what
the walk leaves at the end of the body; a loop known to run once has no previous
iteration, one known to run twice or more ends after an iteration that started where
the previous one ended). A later decision can make an earlier one unnecessary (a commit
placed for a later consumer, the loop's own waits serving its first iteration): every
such wait, fence and barrier is then checked again by a walk that applies all planned
ops, and dropped when all needs are met without it (a need met right where its consumer
is cannot become redundant: everything planned later sits at or after that point). So under ``minimal`` no inserted op can
be deleted with the kernel still ordered (tests/test_mutation_sync.py checks this with
tcgen05-verify-sync on every example and corpus kernel).

Branches and scf.while
----------------------
``scf.if`` and ``scf.index_switch`` run one of their regions: each is walked from the
state before the op, and the states at their ends meet (the weaker status of each op).
``scf.while`` runs ``before``, then ``after`` and
``before`` again any number of times, with no induction variable to tell iterations
apart or count commits. Inside it, every asynchronous op is completed right after it is
issued (as strategy ``conservative`` does, once per run of ops that one commit, one
wait::ld/st or one proxy fence completes together); those completions are candidates that the
final pruning walk drops when no dependence needs them, so what remains is needed, but a
wait sits right after its producer rather than right before its consumer. Kernels
written with cf branches are lifted to scf by ``lift-cf-to-scf``, the first pass of the
default pipeline.

Buffers chosen at run time
--------------------------
A TMEM value that control flow chooses (an scf.if / scf.index_switch result, what
lift-cf-to-scf makes of a block argument; an scf.for or scf.while iteration argument or
result) stands for every cell of every buffer that can reach it. Two MMAs of one shape
are the pipelined "same accumulator" pair when, whichever buffers their accumulators
are, those are the same buffer or share no cell (then they do not depend on each other);
a value the pass cannot trace never is. The checking walk (end of "Placement") knows one
thing more: in a loop's first iteration, its iteration arguments are their initial
values. So a wait that the planning walk put before a loop of ping-pong accumulators,
for an MMA of the first iteration that is in fact on the other buffer, is dropped.

Strategy ``conservative`` completes every asynchronous op right after it is issued
(commit -> mbarrier wait -> fence::after_thread_sync, wait::ld/st, fence.proxy.async ->
barrier), then adds the cross-thread steps the dependences still need.

mbarriers
---------
Every commit site has an mbarrier of its own (``alloc_mbarrier {count = 1}``: each
commit is one arrive::one, so each commit completes one phase). Initialization by one
thread with fence.mbarrier_init and a barrier is the lowering's. A wait waits for the
most recent commit to its mbarrier; its parity is (commits executed before it - 1) mod 2,
computed from the induction variables of the enclosing loops and the trip counts of the
loops around the commit (constant factors folded). Where that count is not a function
of induction variables (a commit inside an scf.while, or in a branch inside a loop, or a
trip count not known at the wait), the wait has no parity operand: the lowering counts
the commits to that mbarrier at run time, in every thread (tcgen05.mbarrier_wait). Two
rules keep a parity wait
unambiguous, and the pass keeps both: every commit is waited for before the next commit
to the same mbarrier (a commit and its first wait sit in one block, so they alternate),
and a barrier separates every wait from the next commit to that mbarrier (otherwise
thread 0 could complete two phases while a slow warp still waits for the first, and that
warp would then wait for a phase that never comes); the pass adds that barrier where the
code has none.

Every inserted op carries a ``reason`` naming the dependence it serves (``(next
iteration)`` for loop-carried ones); ``report=true`` lists them per kernel. Cost: a loop
body is walked a bounded number of times per walk of its enclosing body (a few times 2^d
for a body d loops deep), and each op the final pruning considers costs a checking walk
of the kernel-level op that holds it (and of the next ones, until the state is what it
was with the op in place): linear in the kernel for bodies of bounded size
(benchmarks/compile/REPORT.md measures it).

Not supported (located diagnostics): kernels with several blocks (run lift-cf-to-scf
first), and region ops other than scf.for, scf.while, scf.if and scf.index_switch around
tcgen05 ops.
"""

from __future__ import annotations

from types import MappingProxyType

from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import file_location, int_value, ir
from tcgen05_lower.dialect.ops import (OPS, AllocMbarrierOp, BarrierOp, CommitOp, CpOp,
                                       FenceOp, FragMapOp, LdOp, LdRedOp, MbarrierWaitOp, MmaOp,
                                       ShiftOp, SmemFillOp, StOp,
                                       TmemBufferOp, TmemStageOp, WaitOp, wrap)
from tcgen05_lower.isa import layouts
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import a_tmem_k_block, defining_op, mma_operands, unplanned_buffer
from tcgen05_lower.pass_infra import ModulePass, Option, PassResult

STRATEGIES = ("minimal", "conservative")

#: Async op classes: issued by one thread and completed through commit -> mbarrier
#: (9.7.16.6.2.1.1), issued by the warpgroup and completed through tcgen05.wait
#: (9.7.16.6.2.1.2), and generic-proxy shared-memory writes (9.7.16.6.5).
ISSUER, WARPGROUP, GENERIC = "issuer", "warpgroup", "generic"
ASYNC_OPS = MappingProxyType({MmaOp.NAME: ISSUER, CpOp.NAME: ISSUER, ShiftOp.NAME: ISSUER,
                              LdOp.NAME: WARPGROUP, LdRedOp.NAME: WARPGROUP,
                              StOp.NAME: WARPGROUP, SmemFillOp.NAME: GENERIC})
#: The ops whose completion tcgen05.wait::ld waits for (9.7.16.8.5).
LOADS = (LdOp.NAME, LdRedOp.NAME)

#: Lane halves of a 32-lane quarter: bit 0 = lanes 0-15, bit 1 = lanes 16-31.
ALL_LANES = 0b11
#: Columns of "anything" (an unplanned buffer, a value the pass cannot trace).
EVERYWHERE = (0, 1 << 30)

#: Ops that cost nothing to wait behind (used to place loop-carried waits).
_TRIVIAL_DIALECTS = ("arith", "index", "math")
_TRIVIAL_OPS = ("llvm.getelementptr", "llvm.mlir.constant", "llvm.mlir.zero",
                "llvm.mlir.undef", "scf.yield")

#: Required ordering levels, weakest first.
NEED_COMPLETE, NEED_SYNCED, NEED_ACQUIRED = "complete", "synced", "acquired"


# ------------------------------------------------------------------------------ accesses


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


def _block_parent(block):
    """The op whose region holds `block` (None for a detached block)."""
    parent = block.owner
    return parent.operation if parent is not None and hasattr(parent, "operation") \
        else parent


def _is_induction_variable(value) -> bool:
    owner = value.owner
    if not isinstance(owner, ir.Block):
        return False
    parent = _block_parent(owner)
    return parent is not None and parent.name == "scf.for" and \
        value == owner.arguments[0]


def _loop_of_induction_variable(value):
    return _block_parent(value.owner)


def _constant(value) -> int | None:
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        return int_value(attr)
    if isinstance(attr, ir.BoolAttr):
        return int(ir.BoolAttr(attr).value)
    return None


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
        self.accesses: dict = {}  # op -> its Access (access_of), under `bind`
        self.loops: tuple = ()  # the loops whose first iteration `bind` is
        #: loops -> (bind, memo, accesses): the walks of a kernel bind the same loops
        #: again and again, and the IR does not change while they run.
        self.scopes: dict = {(): (self.bind, self.memo, self.accesses)}

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
            scope = self.scopes[self.loops] = (bind, {}, {})
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


def _sources(value, op) -> list | None:
    """The values an iteration argument or region result takes: initial values and
    yielded ones (None for anything else)."""
    if op is not None:  # a region result
        index = list(op.results).index(value)
        if op.name in ("scf.if", "scf.index_switch"):
            return [_terminator(region).operands[index] for region in op.regions
                    if len(region.blocks)]
        if op.name == "scf.for":
            return [op.operands[3 + index],
                    _terminator(op.regions[0]).operands[index]]
        if op.name == "scf.while":
            return [_terminator(op.regions[0]).operands[1 + index]]
        return None
    block = value.owner
    parent = _block_parent(block)
    index = list(block.arguments).index(value)
    if parent is None:
        return None
    if parent.name == "scf.for" and index > 0:
        return [parent.operands[3 + index - 1],
                _terminator(parent.regions[0]).operands[index - 1]]
    if parent.name == "scf.while":
        if block == parent.regions[0].blocks[0]:
            return [parent.operands[index], _terminator(parent.regions[1]).operands[index]]
        return [_terminator(parent.regions[0]).operands[1 + index]]
    return None


def _terminator(region):
    return list(region.blocks[0].operations)[-1]


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
    constant = _constant(column)
    if constant is not None:
        return Cells(start + constant, start + constant + width, lanes, None, bound)
    if _is_induction_variable(column):
        return Cells(start, start + width, lanes, column, bound)
    op = defining_op(column)
    if op is not None and op.name == "arith.addi":
        lhs, rhs = op.operands[0], op.operands[1]
        for iv, offset in ((lhs, rhs), (rhs, lhs)):
            c = _constant(offset)
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
        smem = tuple(v for v in (operands.a, operands.b) if d.is_smem(v))
        shape = (operands.d_type.rows, operands.d_type.cols, mma.kind, mma.sparse, mma.k or 0)
        # The buffers the accumulator may be (none known: never pipelined).
        choices = buffers.cells(operands.d)[4]
        key = (choices, shape) if choices is not None else ()
        return Access(op, name, cls, reads=tuple(reads) + (dcells,), writes=(dcells,),
                      smem_reads=smem, pipeline_key=key)
    if name == CpOp.NAME:
        return Access(op, name, cls, writes=(copy_cells(op, buffers),),
                      smem_reads=(CpOp(op).source,),
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
    return Access(op, name, cls, smem_writes=(op.operands[1],))  # smem_fill


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
        return shape == other and all(a == b or _disjoint(a, b)
                                      for a in mine for b in theirs)
    if pair in (("cp", "mma"), ("shift", "mma"), ("mma", "shift")):
        return True
    return pair == ("shift", "cp") and later.pipeline_key == ("4x256b",)


def _disjoint(a: tuple, b: tuple) -> bool:
    """Whether two (first column, columns, lanes) footprints share no cell."""
    return not a[2] & b[2] or a[0] + a[1] <= b[0] or b[0] + b[1] <= a[0]


# ------------------------------------------------------------------------------ state

#: carried_by of an op whose relation to a loop's iterations is no longer known.
UNKNOWN_LOOP = "unknown-loop"


@dataclass(frozen=True)
class Status:
    """How far the newest instance of one asynchronous op is ordered."""

    access: Access
    stamp: float  # walk step at which it was issued (-1: an earlier iteration)
    carried_by: object = None  # the loop whose back edge it came through
    covered: frozenset = frozenset()  # mbarriers whose most recent commit follows it
    complete: bool = False
    released: bool = False  # warpgroup op: fence::before_thread_sync after completion
    proxied: bool = False  # smem_fill: fence.proxy.async after it
    synced: bool = False  # barrier after release / proxy fence
    acquired: bool = False  # fence::after_thread_sync after completion / sync
    consumed: bool = False  # ld: its registers were read
    also: tuple = ()  # earlier ops with the same access that this one stands for

    def evolve(self, **changes) -> "Status":
        """A copy with `changes` (``dataclasses.replace`` without its per-call field
        introspection: the walk makes a new status for most ops it visits)."""
        copy = object.__new__(Status)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return copy

    def done(self) -> bool:
        """Nothing any later op could need from it."""
        return self.synced if self.access.cls == GENERIC else self.acquired

    def meet(self, other: "Status") -> "Status":
        """The weaker of two statuses of one op (where two paths meet)."""
        carried = self.carried_by if _same(self.carried_by, other.carried_by) \
            else UNKNOWN_LOOP
        also = self.also + tuple(o for o in other.also if o not in self.also)
        # Instances on different buffers (a first iteration's and a later one's): every
        # buffer the op can touch.
        access = self.access if self.access == other.access else access_of(self.access.op)
        return Status(access, max(self.stamp, other.stamp), carried,
                      self.covered & other.covered, self.complete and other.complete,
                      self.released and other.released, self.proxied and other.proxied,
                      self.synced and other.synced, self.acquired and other.acquired,
                      self.consumed and other.consumed, also)

    def at_least(self, other: "Status") -> bool:
        """Whether this status is as far along as `other` in every respect."""
        return (self.covered >= other.covered
                and all(getattr(self, f) >= getattr(other, f) for f in
                        ("complete", "released", "proxied", "synced", "acquired",
                         "consumed")))


def _same(a, b) -> bool:
    """Equality of ops that may be None or UNKNOWN_LOOP (MLIR ops refuse None)."""
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a is b or (isinstance(a, str) and a == b)
    return a == b


def join(a: dict, b: dict) -> dict:
    """The state where two paths meet: every op of either, the weaker status of both."""
    if a is b:
        return a
    out = dict(a)
    for op, status in b.items():
        mine = out.get(op)
        out[op] = status if mine is None else mine.meet(status)
    return out


def _same_state(a: dict, b: dict) -> bool:
    """Whether two states hold the same ops, each as far along in both."""
    return a.keys() == b.keys() and all(
        s.at_least(b[op]) and b[op].at_least(s) and s.access == b[op].access
        and _same(s.carried_by, b[op].carried_by) for op, s in a.items())


def conflict(status: Status, access: Access) -> str | None:
    """The dependence of `access` on the in-flight op `status`, or None."""
    earlier = status.access
    for w in earlier.writes:
        for c in access.reads:
            if overlap(w, c, status):
                return f"RAW on {c.describe()}"
        for c in access.writes:
            if overlap(w, c, status):
                return f"WAW on {c.describe()}"
    for r in earlier.reads:
        for c in access.writes:
            if overlap(r, c, status):
                return f"WAR on {c.describe()}"
    for tile in earlier.smem_writes:
        if tile in access.smem_reads:
            return "RAW on a shared-memory tile"
    for tile in earlier.smem_reads:
        if tile in access.smem_writes:
            return "WAR on a shared-memory tile"
    return None


def overlap(p: Cells, c: Cells, status: Status) -> bool:
    """Whether cells `p` of an in-flight op and cells `c` of a later op intersect."""
    if not p.lanes & c.lanes:
        return False
    if p.base is None and c.base is None:
        return p.lo < c.hi and c.lo < p.hi
    if p.base is not None and c.base is not None and p.base == c.base:
        loop = _loop_of_induction_variable(p.base)
        carried = status.carried_by
        if carried is None or (carried is not UNKNOWN_LOOP and not _same(carried, loop)
                               and _inside(carried, loop)):
            return p.lo < c.hi and c.lo < p.hi  # this iteration: the same base value
        step = _constant(loop.operands[2])
        if _same(carried, loop) and step is not None and step > 0:
            # Every earlier iteration's slice lies `step` or more columns lower.
            return not p.hi - step <= c.lo
    return p.bound[0] < c.bound[1] and c.bound[0] < p.bound[1]


def requirement(earlier: Access, later: Access) -> str | None:
    """How far `earlier` must be ordered before `later` (the rules table above)."""
    if earlier.cls == ISSUER:
        if later.cls == ISSUER:
            return None if pipelined(earlier, later) else NEED_ACQUIRED
        if later.cls == WARPGROUP:
            return NEED_ACQUIRED
        return NEED_COMPLETE  # generic writes after async-proxy reads
    if earlier.cls == WARPGROUP:
        if later.cls == WARPGROUP:
            return NEED_COMPLETE
        return NEED_ACQUIRED if later.cls == ISSUER else None
    return NEED_SYNCED if later.cls == ISSUER else None  # generic writes, async reads


def _rank(level: str) -> int:
    return {NEED_COMPLETE: 0, NEED_SYNCED: 1, NEED_ACQUIRED: 2}[level]


def _satisfied(status: Status, level: str) -> bool:
    if level == NEED_COMPLETE:
        return status.complete or status.acquired
    return status.synced if level == NEED_SYNCED else status.acquired


# ------------------------------------------------------------------------------ plan


@dataclass
class Action:
    """One op to insert at (anchor, side); actions at one position keep their order."""

    anchor: object
    side: str  # "before" | "after"
    name: str  # commit | mbarrier_wait | wait | fence | fence_proxy_async | barrier
    kind: str | None
    reason: str
    barrier: int | None = None
    #: Decided on what a loop's previous iteration or the code before a region leaves
    #: behind: checked again once the loop is planned, and dropped if redundant.
    speculative: bool = False


@dataclass
class Site:
    """Where the commits to one mbarrier are: right after `anchor`."""

    barrier: int
    anchor: object


class SyncError(Exception):
    """A construct the pass does not support, reported at `op`."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


class _Unordered(Exception):
    """Raised by a check walk at the first need the planned ops leave unmet."""


def describe(op) -> str:
    """``tcgen05.mma at line 12``, for reasons and reports."""
    _, line, _ = file_location(op.location)
    return f"{op.name} at line {line}" if line is not None else op.name


def _producers(statuses) -> str:
    ops = []
    for s in statuses:
        for op in (*s.also, s.access.op):
            if op not in ops:
                ops.append(op)
    ops.sort(key=lambda o: file_location(o.location)[1] or 0)
    # Ops made from one source op (a load split into chunks) read the same.
    return ", ".join(dict.fromkeys(describe(o) for o in ops))


def _is_trivial(op) -> bool:
    if len(op.regions):
        return False
    return op.name.split(".")[0] in _TRIVIAL_DIALECTS or op.name in _TRIVIAL_OPS


def _parent_op(op):
    parent = op.parent
    return parent.operation if parent is not None and hasattr(parent, "operation") \
        else parent


def _inside(op, ancestor) -> bool:
    parent = _parent_op(op)
    while parent is not None:
        if parent == ancestor:
            return True
        parent = _parent_op(parent)
    return False


def _project(op, block):
    """The op of `block` that is `op` or contains it."""
    while op is not None and op.block != block:
        op = _parent_op(op)
    return op


def _next_nontrivial(op):
    """The first op after `op` in its block that is not index arithmetic, or None."""
    found = False
    for other in op.block.operations:
        other = other.operation
        if found and not _is_trivial(other):
            return other
        found = found or other == op
    return None


def _first_needs(op, statuses, buffers: Buffers) -> bool:
    """Whether the first thing `op` does needs `statuses` complete."""
    while len(op.regions):
        first = next((c.operation for c in op.regions[0].blocks[0].operations
                      if not _is_trivial(c.operation)), None)
        if first is None:
            return False
        op = first
    if d.op_name(op) == "dealloc":
        return True
    access = access_of(op, buffers)
    return access is not None and any(
        conflict(s.evolve(carried_by=UNKNOWN_LOOP), access) is not None
        and requirement(s.access, access) is not None for s in statuses)


def _completion_kind(access: Access) -> tuple:
    """What completes an op: one commit covers every earlier single-thread op, one
    wait::ld every earlier ld, one wait::st every earlier st, one proxy fence every
    earlier generic write."""
    if access.cls == WARPGROUP:
        return (WARPGROUP, access.name == StOp.NAME)
    return (access.cls,)


def _run_continues(op, access: Access, buffers: Buffers) -> bool:
    """Whether the next op of the block (index arithmetic aside) is completed by the same
    mechanism as `op`: completing that one completes `op` too."""
    after = _next_nontrivial(op)
    following = access_of(after, buffers) if after is not None else None
    return following is not None and _completion_kind(following) == _completion_kind(access)


def _issues_async(op, classes=(ISSUER,)) -> bool:
    name = d.op_name(op)
    if name in ASYNC_OPS and ASYNC_OPS[name] in classes:
        return True
    return any(ASYNC_OPS.get(d.op_name(inner)) in classes for inner in d.walk_ops(op))


def constant_trip_count(loop) -> int | None:
    """Trip count of an scf.for with constant bounds and step, else None."""
    lb, ub, step = (_constant(loop.operands[i]) for i in range(3))
    if None in (lb, ub, step) or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


class Planner:
    """The program-order walk of one kernel: decides the Actions, inserts nothing.

    In check mode (``self.checking``) the same walk applies every planned action at its
    position and raises _Unordered at the first need they leave unmet; that is how loops
    drop speculative actions that turned out redundant."""

    def __init__(self, kernel, strategy: str):
        self.kernel = kernel
        self.strategy = strategy
        self.actions: list[Action] = []
        self.sites: list[Site] = []
        self.site_of: dict = {}  # anchor -> its site's mbarrier (sites are never dropped)
        self.hooks: dict = {}  # (anchor, side) -> [action index], applied when walked
        self.positions: dict = {}  # (anchor, side) -> [action index], every action
        self.disabled: set = set()
        self.checking = False
        self.step = 0
        self.blocks: list = []  # stack of (block, entry step, loop whose body it is)
        self.order_cache: dict = {}
        self.tail_cache: dict = {}
        self.prescan_state: dict = {}  # region op -> state before its pre-scan group
        self.inside_while = 0  # scf.while regions around the op being walked
        self.buffers = Buffers()  # what buffer values name (bound in check walks)

    # ---------------------------------------------------------------- transactions

    def snapshot(self) -> tuple:
        """A point to roll the plan back to."""
        return (len(self.actions),)

    def rollback(self, snap: tuple) -> None:
        """Forgets the actions planned since `snap`."""
        # Sites stay: a state computed by a discarded walk may still name their mbarriers
        # (the loop's fixed-point check decides whether the final walk commits to them).
        n_actions, = snap
        # Only the positions of the forgotten actions hold their indices (an action is
        # hooked, if at all, at its own position): the cost is what is forgotten, not
        # the plan so far.
        forgotten = range(n_actions, len(self.actions))
        keys = {(self.actions[i].anchor, self.actions[i].side) for i in forgotten}
        self.disabled.difference_update(forgotten)
        del self.actions[n_actions:]
        for table in (self.hooks, self.positions):
            for key in keys:
                if key not in table:
                    continue
                kept = [i for i in table[key] if i < n_actions]
                if kept:
                    table[key] = kept
                else:
                    del table[key]

    def enabled(self) -> list[Action]:
        """The planned actions still in the plan."""
        return [a for i, a in enumerate(self.actions) if i not in self.disabled]

    # ---------------------------------------------------------------- walking

    def run(self) -> None:
        """Walks the kernel once (loops as described in the module docstring), drops
        every planned op that the kernel turns out not to need after all, then commits
        nothing waits for."""
        if len(self.kernel.regions[0].blocks) > 1:
            raise SyncError(self.kernel, "a kernel with several blocks (cf branches) needs "
                                         "lift-cf-to-scf before tcgen05-insert-sync (the "
                                         "default pipeline runs it first)")
        entry = self.kernel.regions[0].blocks[0]
        self.walk_block(entry, {}, None)
        if self.strategy == "minimal":
            self.prune_kernel(entry)
        waited = {a.barrier for a in self.enabled() if a.name == "mbarrier_wait"}
        for i, action in enumerate(self.actions):
            if action.name == "commit" and action.barrier not in waited:
                self.disabled.add(i)
        committed = {a.barrier for a in self.enabled() if a.name == "commit"}
        if not waited <= committed:
            raise SyncError(self.kernel, "internal: a planned wait has no commit")

    def walk_block(self, block, state: dict, loop) -> dict:
        """Walks the ops of `block` (the body of `loop`, or of no loop) from `state`."""
        self.step += 1
        self.blocks.append((block, self.step, loop))
        try:
            for op in block.operations:
                state = self.visit(op.operation, state)
        finally:
            self.blocks.pop()
        return state

    def visit(self, op, state: dict) -> dict:
        """The state after `op`, planning what it needs first."""
        self.step += 1
        state = self.apply_hooks(op, "before", state)
        name = d.op_name(op)
        # A tcgen05.frag_map's body is per-element arithmetic, no control flow: the op
        # reads its input fragments' registers, nothing else.
        if len(op.regions) and not FragMapOp.matches(op):
            state = self.visit_region_op(op, state)
        elif name in ASYNC_OPS:
            state = self.visit_async(op, state)
        elif name == "dealloc":
            state = self.resolve(op, state, self.dealloc_needs(state))
        elif name in ("commit", "mbarrier_wait", "wait", "fence", "fence_proxy_async",
                      "barrier"):
            barrier = ("user", op.operands[0]) if name in ("commit", "mbarrier_wait") \
                else None
            state = self.effect(name, _kind(op), barrier, state)
        state = self.mark_fragment_uses(op, state)
        self.step += 1
        return self.apply_hooks(op, "after", state)

    def visit_async(self, op, state: dict) -> dict:
        """Plans what an asynchronous op needs, then records it as in flight."""
        access = access_of(op, self.buffers)
        older = state.get(op)
        if older is not None and older.access != access:
            # The newest instance stands for the older one, which touched other cells
            # (an iteration argument bound in a first iteration): every cell it can.
            access = access_of(op)
        state = self.resolve(op, state, self.needs(state, access, op))
        if self.strategy == "conservative" and not self.checking:
            self.plan_completion(op, access)
        elif self.inside_while and not self.checking and \
                not _run_continues(op, access, self.buffers):
            self.plan_completion(op, access, inside_while=True)
        new = {}
        also: tuple = ()
        for key, status in state.items():
            if key == op:
                continue
            if status.access.name == access.name and _same_effects(status.access, access):
                # Every sync op acts on all earlier ops, so this op is never further along
                # than an earlier one with the same effects: it stands for both.
                also += tuple(o for o in (*status.also, key) if o not in also)
                continue
            new[key] = status
        new[op] = Status(access, self.step, None, also=also)
        return new

    def visit_region_op(self, op, state: dict) -> dict:
        """Plans what the ops inside `op` need of earlier work, then walks its regions."""
        # Dependences between work issued before the region and anything inside it are
        # ordered once, before the region op (a check walk looks at the ops inside).
        if not self.checking:
            state = self.resolve(op, state, self.region_needs(state, op))
        if op.name == "scf.for":
            return self.visit_for(op, state)
        if op.name == "scf.while":
            self.prescan_state.pop(op, None)
            return self.visit_while(op, state)
        if op.name in ("scf.if", "scf.index_switch"):
            # One of the regions runs; an scf.if without else may run none.
            self.prescan_state.pop(op, None)
            ends = [self.walk_block(region.blocks[0], state, None)
                    for region in op.regions if len(region.blocks)]
            if op.name == "scf.if" and len(ends) < 2:
                ends.append(state)
            out = ends[0]
            for end in ends[1:]:
                out = join(out, end)
            return out
        if any(d.op_name(inner) in ASYNC_OPS or d.op_name(inner) == "dealloc"
               for inner in d.walk_ops(op)):
            raise SyncError(op, f"'{op.name}' around tcgen05 operations is not supported "
                                f"by tcgen05-insert-sync (it follows scf.for, scf.while, "
                                f"scf.if and scf.index_switch)")
        return state

    def visit_for(self, loop, state: dict) -> dict:
        """Plans a loop (see "Placement" in the module docstring) and returns the state after it."""
        if self.checking:
            return self.check_for(loop, state)
        pre = state
        entry_step = self.step
        prescan = [i for i in self.positions.get((loop, "before"), ())
                   if self.actions[i].speculative]
        trips = constant_trip_count(loop)
        if trips is not None and trips <= 1:
            # No iteration follows another: nothing is loop-carried (and a body that never
            # runs needs nothing).
            self.prescan_state.pop(loop, None)
            if trips == 0:
                return pre
            return self.after_loop(loop, self.walk_block(loop.regions[0].blocks[0], pre,
                                                         loop), entry_step)
        # First walk: as if there were no earlier iteration. What it leaves unordered at
        # the end of the body is what the next iteration starts with.
        snap = self.snapshot()
        end = self.walk_block(loop.regions[0].blocks[0], pre, loop)
        self.rollback(snap)
        assumed = self.back_edge(end, loop)
        for _ in range(3):
            snap = self.snapshot()
            end = self.walk_block(loop.regions[0].blocks[0], join(pre, assumed), loop)
            carried = self.back_edge(end, loop)
            if all(op not in carried or carried[op].at_least(s)
                   for op, s in assumed.items()):
                break
            self.rollback(snap)
            assumed = join(assumed, carried)
        else:
            # No fixed point: assume the previous iteration left everything unordered.
            snap = self.snapshot()
            assumed = {op: Status(s.access, -1.0, loop, also=s.also)
                       for op, s in assumed.items()}
            end = self.walk_block(loop.regions[0].blocks[0], join(pre, assumed), loop)
        exit_state = self.loop_exit(loop, pre, end, trips)
        exit_state = self.after_loop(loop, exit_state, entry_step)
        self.prune(loop, state_before_prescan=self.prescan_state.pop(loop, pre),
                   candidates=prescan + [i for i in range(snap[0], len(self.actions))
                                         if self.actions[i].speculative],
                   planned_exit=exit_state)
        return exit_state

    def visit_while(self, loop, state: dict) -> dict:
        """Plans (or, in a check walk, checks) an scf.while: `before` runs and decides,
        then `after` and `before` again, any number of times. Inside it every asynchronous
        op is completed right after it is issued (see "scf.while" in the module
        docstring), so the walk of the two blocks settles after a few rounds."""
        before, after = loop.regions[0].blocks[0], loop.regions[1].blocks[0]
        entry_step = self.step
        self.inside_while += 1
        try:
            carried: dict = {}
            for _ in range(4):
                snap = self.snapshot()
                exit_state = self.walk_block(before, join(state, carried), None)
                # (Stamps stay: the ops of an earlier iteration are older than the next
                # walk of the blocks, and ops of this while run in the enclosing body's
                # current iteration.)
                again = {op: s.evolve(carried_by=UNKNOWN_LOOP)
                         for op, s in self.walk_block(after, exit_state, None).items()}
                if all(op in carried and s.at_least(carried[op]) for op, s in again.items()):
                    break
                self.rollback(snap)
                carried = join(carried, again)
            else:
                # No fixed point: assume each iteration leaves its work unordered.
                carried = {op: Status(s.access, s.stamp, UNKNOWN_LOOP, also=s.also)
                           for op, s in carried.items()}
                exit_state = self.walk_block(before, join(state, carried), None)
                self.walk_block(after, exit_state, None)
        finally:
            self.inside_while -= 1
        return {op: (s.evolve(carried_by=UNKNOWN_LOOP) if s.stamp > entry_step else s)
                for op, s in exit_state.items()}

    def after_loop(self, loop, state: dict, entry_step) -> dict:
        """After the loop, nothing relates its ops to its induction variable any more."""
        return {op: (s.evolve(carried_by=UNKNOWN_LOOP)
                     if _same(s.carried_by, loop) or s.stamp > entry_step else s)
                for op, s in state.items()}

    def back_edge(self, end: dict, loop) -> dict:
        """The body's ops still unordered at its end, as the next iteration sees them."""
        return {op: s.evolve(carried_by=loop, stamp=-1.0)
                for op, s in end.items() if _inside(op, loop)}

    # ---------------------------------------------------------------- checking

    def check_for(self, loop, pre: dict) -> dict:
        """Check walk of a loop: its first iteration from `pre`, with the iteration
        arguments bound to their initial values; then the steady state, from where the
        previous iteration ended (the ops of the body as an earlier iteration's), until
        the state at the start of the body stops changing."""
        entry_step = self.step
        body = loop.regions[0].blocks[0]
        trips = constant_trip_count(loop)
        if trips == 0:
            return pre
        first = self.buffers.bound(loop, lambda: self.walk_block(body, pre, loop))
        if trips == 1:
            return self.after_loop(loop, first, entry_step)
        carried = self.next_iteration(first, loop)
        for _ in range(8):
            end = self.walk_block(body, carried, loop)
            merged = join(carried, self.next_iteration(end, loop))
            if _same_state(merged, carried):
                break
            carried = merged
        else:
            raise _Unordered()  # not settled: the check proves nothing
        exit_state = self.loop_exit(loop, pre, end, trips)
        if trips is None:  # the loop may also stop after its first iteration
            exit_state = join(exit_state, first)
        return self.after_loop(loop, exit_state, entry_step)

    def next_iteration(self, end: dict, loop) -> dict:
        """The state at the start of the next iteration, from `end`, the state at the end
        of the body: the body's ops are an earlier iteration's."""
        return {op: (s.evolve(carried_by=loop, stamp=-1.0) if _inside(op, loop) else s)
                for op, s in end.items()}

    def loop_exit(self, loop, pre: dict, end: dict, trips) -> dict:
        """The state after a loop. `end` is the end of a body walked from the join of
        the state before the loop and the previous iteration's; a loop known to run twice
        or more ends after an iteration that started exactly where the previous one
        ended, so it is walked once more from there (a check walk: what it plans is
        already planned)."""
        if trips is None or trips == 0:
            return join(pre, end)
        if trips == 1:
            return end
        steady = self.next_iteration(end, loop)
        # (The walk's steps stay counted: the states it returns hold its stamps.)
        saved = (self.checking, list(self.blocks))
        self.checking = True
        try:
            return self.walk_block(loop.regions[0].blocks[0], steady, loop)
        except _Unordered:
            return end
        finally:
            self.checking, self.blocks = saved

    def prune(self, loop, state_before_prescan: dict, candidates: list,
              planned_exit: dict) -> None:
        """Drops each speculative action (latest first) without which every need of the
        loop is still met and the state after it is no weaker."""
        kinds = ("mbarrier_wait", "wait", "fence", "fence_proxy_async", "barrier")
        for index in sorted(set(candidates), reverse=True):
            if index in self.disabled or self.actions[index].name not in kinds:
                continue
            self.disabled.add(index)
            if not self.still_ordered(loop, state_before_prescan, planned_exit):
                self.disabled.discard(index)

    def prune_kernel(self, entry) -> None:
        """Drops each planned op (latest first) without which every need in the kernel is
        still met: decisions taken early in the walk may be made unnecessary by ops
        planned later (a commit placed for a later consumer, a loop's own waits).

        Each candidate is checked by a walk that starts at the op of the kernel's block
        holding it, from the state a reference walk (every op still planned) had there,
        and stops as soon as its state is the reference's again: from there on the two
        walks are the same. So a candidate costs the ops it changes the state of, not the
        kernel."""
        kinds = ("mbarrier_wait", "wait", "fence", "fence_proxy_async", "barrier")
        ops = [op.operation for op in entry.operations]
        walked = self.check_walk(entry, ops, 0, [{}], until=None)
        if walked is None:
            return  # not ordered as planned: nothing to drop (run() reports no error)
        reference = [{}] + walked  # the state before each op, and at the end
        position = {op: i for i, op in enumerate(ops)}
        for index in range(len(self.actions) - 1, -1, -1):
            action = self.actions[index]
            # Only decisions taken on assumptions: a need met right where its consumer is
            # stays needed (everything planned later sits at or after that point).
            if index in self.disabled or action.name not in kinds or not action.speculative:
                continue
            self.disabled.add(index)
            start = position[_project(action.anchor, entry)]
            states = self.check_walk(entry, ops, start, reference, until=reference)
            if states is None:
                self.disabled.discard(index)
            else:
                reference[start + 1:start + 1 + len(states)] = states

    def check_walk(self, entry, ops: list, start: int, before: list, until) -> list | None:
        """Check walk of the kernel's block `entry` (its ops `ops`) from op `start`, from
        the state `before[start]`: the states after each op walked, or None when a need is
        not met. With `until` (an earlier walk's states, indexed as `before`: the state
        before op i, then the end), it stops after the first op whose state is the same
        as there."""
        saved = (self.checking, self.step, list(self.blocks))
        self.checking = True
        self.blocks.append((entry, self.step, None))
        state = before[start]
        states = []
        try:
            for i in range(start, len(ops)):
                state = self.visit(ops[i], state)
                states.append(state)
                if until is not None and _same_state(state, until[i + 1]):
                    break
        except _Unordered:
            return None
        finally:
            self.checking, self.step, self.blocks = saved
        return states

    def still_ordered(self, loop, state: dict, planned_exit: dict) -> bool:
        """Whether, without the disabled actions, a check walk of `loop` from `state` meets every need and leaves a state no weaker than `planned_exit`."""
        saved = (self.checking, self.step, list(self.blocks))
        self.checking = True
        try:
            exit_state = self.visit(loop, state)
        except _Unordered:
            return False
        finally:
            self.checking, self.step, self.blocks = saved
        # An op missing from a state is one nothing can need any more (the strongest).
        return all(op in planned_exit and s.at_least(planned_exit[op])
                   for op, s in exit_state.items())

    # ---------------------------------------------------------------- requirements

    def needs(self, state: dict, access: Access, op) -> list:
        """(status, level, dependence) for every in-flight op that `op` depends on."""
        out = []
        for key, status in state.items():
            if key == op and access.name in LOADS:
                # 9.7.16.6.4.5: this load writes the same registers again.
                if not status.complete and not status.consumed:
                    out.append((status, NEED_COMPLETE,
                                "its destination registers are written again"))
                continue
            dependence = conflict(status, access)
            if dependence is None:
                continue
            level = requirement(status.access, access)
            if level is not None:
                out.append((status, level, dependence))
        return out

    def region_needs(self, state: dict, region_op) -> list:
        """The needs of every op inside `region_op` on the work in flight before it."""
        if not state:
            return []
        found: dict = {}
        for inner in d.walk_ops(region_op):
            name = d.op_name(inner)
            if name == "dealloc":
                items = self.dealloc_needs(state)
            elif name in ASYNC_OPS:
                items = self.needs(state, access_of(inner, self.buffers), inner)
            else:
                continue
            for status, level, dependence in items:
                old = found.get(status.access.op)
                if old is None or _rank(level) > _rank(old[1]):
                    found[status.access.op] = (status, level, dependence)
        return list(found.values())

    def dealloc_needs(self, state: dict) -> list:
        """What tcgen05.dealloc needs: every TMEM access ordered before it."""
        return [(s, NEED_ACQUIRED, "TMEM accesses before the columns are freed")
                for s in state.values() if s.access.cls != GENERIC]

    # ---------------------------------------------------------------- resolution

    def resolve(self, consumer, state: dict, items: list) -> dict:
        """Plans the missing steps of the needs in `items` (and the commits they need),
        right before `consumer` or, for loop-carried needs, possibly at the end of the
        body; returns the state at `consumer` after them."""
        needs: dict = {}
        for status, level, dependence in items:
            if not _satisfied(status, level):
                needs[status.access.op] = (status, level, dependence)
        if not needs:
            return state
        if self.checking:
            raise _Unordered()
        block, entry_step, loop = self.blocks[-1]
        region_entry = len(consumer.regions) > 0
        statuses = [s for s, _, _ in needs.values()]
        carried = loop is not None and all(s.stamp <= entry_step and
                                           _inside(s.access.op, loop) for s in statuses)
        speculative = region_entry or any(s.stamp <= entry_step for s in statuses)
        end = self.end_of_body(block, loop, statuses) if carried else None

        def reason(what, group):
            # "completion of <producers> before <consumer>: <dependences>"
            deps = sorted({needs[s.access.op][2] for s in group if s.access.op in needs})
            text = f"{what} {_producers(group)} before {describe(consumer)}: " + \
                "; ".join(deps)
            return text + (" (next iteration)" if carried else "")

        new = dict(state)
        group: list = []  # (name, kind, reason, barrier)
        for kind, names in (("st", (StOp.NAME,)), ("ld", LOADS)):
            pending = [s for s in statuses if s.access.name in names and not s.complete]
            if pending:
                group.append(("wait", kind, reason("completion of", pending), None))
        issuer = [s for s in statuses if s.access.cls == ISSUER and not s.complete]
        if issuer:
            new, waits = self.plan_commits(consumer, issuer, new, reason)
            anchors = [_project(self.sites[b].anchor, block) if isinstance(b, int) else None
                       for b, _ in waits]
            if end is not None and any(a is None or self.issues_after(block, a)
                                       for a in anchors):
                # The last iteration's commit would not cover everything the code after
                # the loop needs: the wait there would not spare a second one.
                end = None
            for barrier, waited in waits:
                group.append(("mbarrier_wait", None, reason("completion of", waited),
                              barrier))
        if region_entry:
            # What a check walk of the region starts from: the commits planned for it are
            # in place (they sit after earlier ops), the ops of this group are not.
            self.prescan_state[consumer] = new
        acquire = [s for s, level, _ in needs.values()
                   if level == NEED_ACQUIRED and s.access.cls != GENERIC
                   and not new.get(s.access.op, s).acquired]
        warpgroup = [s for s in acquire if s.access.cls == WARPGROUP]
        generic = [s for s in statuses if s.access.cls == GENERIC]
        release = [s for s in warpgroup if not s.released]
        proxy = [s for s in generic if not s.proxied]
        sync = [s for s in warpgroup + generic if not s.synced]
        if release:
            group.append(("fence", "before_thread_sync", reason("completion of", release),
                          None))
        if proxy:
            group.append(("fence_proxy_async", None, reason("completion of", proxy), None))
        if sync:
            group.append(("barrier", None, reason("completion of", sync), None))
        if acquire:
            group.append(("fence", "after_thread_sync", reason("completion of", acquire),
                          None))
        position = (end, "before") if end is not None else (consumer, "before")
        # At the end of the body the group acts, as this iteration sees it, on the work of
        # the previous iteration only; the walk applies it again when it gets there.
        only = set(needs) if end is not None else None
        for name, kind, text, barrier in group:
            index = self.add(position, name, kind, text, barrier, speculative)
            if end is not None:
                self.hooks.setdefault(position, []).append(index)
            new = self.effect(name, kind, barrier, new, only)
        return {op: s for op, s in new.items() if not s.done()}

    def end_of_body(self, block, loop, statuses):
        """Where a loop-carried need is met instead of right before its consumer: at the
        end of the body, when the first thing after the loop needs the same work
        complete. The last iteration's waits then serve the code after the loop too, so
        no second wait is needed there (when only index arithmetic precedes the consumer
        in the body, that is also the same moment). None otherwise."""
        after = _next_nontrivial(loop)
        if after is None or not _first_needs(after, statuses, self.buffers):
            return None
        ops = [op.operation for op in block.operations]
        return ops[-1]  # the scf.yield: the group goes right before it

    def issues_after(self, block, anchor) -> bool:
        """Whether an op of `block` after `anchor` issues single-thread work."""
        order = self.block_order(block)
        return any(order[op.operation] > order[anchor] and _issues_async(op.operation)
                   for op in block.operations)

    def plan_commits(self, consumer, issuer: list, state: dict, reason):
        """The mbarriers to wait on so that `issuer` (statuses) complete, planning a new
        commit when no commit covers them without also covering later work they do not
        need. Returns (state with the new commit's coverage, [(barrier, statuses)])."""
        needed = {s.access.op for s in issuer}
        latest = max(s.stamp for s in issuer)

        def over_waits(barrier) -> bool:
            # Waiting on it would also wait for unfinished work issued after the last
            # producer this consumer needs.
            return any(barrier in s.covered and not s.complete and op not in needed
                       and s.access.cls == ISSUER and s.stamp > latest
                       for op, s in state.items())

        common = frozenset.intersection(*(s.covered for s in issuer))
        usable = sorted((b for b in common if not over_waits(b)), key=str)
        if usable:
            return state, [(usable[0], list(issuer))]
        barrier, covered, anchor = self.new_site(consumer, issuer, state, reason)
        state = dict(state)
        for op in covered:
            status = state[op]
            state[op] = status.evolve(covered=status.covered | {barrier})
        waits = [(barrier, [s for s in issuer if s.access.op in covered])]
        remaining = [s for s in issuer if s.access.op not in covered]
        while remaining:  # the fewest mbarriers whose commits cover the rest
            counts: dict = {}
            for s in remaining:
                for b in s.covered:
                    counts[b] = counts.get(b, 0) + 1
            best = max(counts, key=lambda b: (counts[b], str(b)))
            waits.append((best, [s for s in remaining if best in s.covered]))
            remaining = [s for s in remaining if best not in s.covered]
        return state, waits

    def new_site(self, consumer, pending: list, state: dict, reason):
        """Plans a commit after the producers in `pending`, in the consumer's block.
        Returns (mbarrier, the ops it covers as the consumer sees them, its anchor)."""
        block, entry_step, loop = self.blocks[-1]
        forward = [s for s in pending if s.stamp > entry_step]
        issuer = {op: s for op, s in state.items() if s.access.cls == ISSUER}
        if forward or loop is None:
            # Right after the last one this consumer needs: later work stays in flight.
            last = max(forward or pending, key=lambda s: s.stamp)
            anchor = _project(last.access.op, block)
            covered = {op for op, s in issuer.items()
                       if s.stamp <= last.stamp or _project(op, block) == anchor}
            carried = False
        else:
            # Loop-carried: after the last op of the body that some op of the body needs
            # in the next iteration, so that one commit serves all of them.
            order = self.block_order(block)
            anchor = max([_project(s.access.op, block) for s in pending] +
                         self.tail(loop, block), key=lambda o: order[o])
            covered = {op for op, s in issuer.items()
                       if s.stamp <= entry_step and _inside(op, loop)
                       and order[_project(op, block)] <= order[anchor]}
            carried = True
        barrier = self.site_at(anchor)
        text = reason("completion of", [s for s in pending if s.access.op in covered])
        if not any(self.actions[i].name == "commit" and self.actions[i].barrier == barrier
                   for i in self.positions.get((anchor, "after"), ())):
            index = self.add((anchor, "after"), "commit", None, text, barrier)
            if carried:  # the walk reaches it later in this iteration
                self.hooks.setdefault((anchor, "after"), []).append(index)
        return barrier, covered, anchor

    def tail(self, loop, block) -> list:
        """The last op of the body that issues a single-thread op which an op at or
        before it in the body depends on (in the next iteration), as a list of 0 or 1."""
        if loop in self.tail_cache:
            return self.tail_cache[loop]
        ops = [op.operation for op in block.operations]
        seen: list = []
        last = None
        for op in ops:
            inner = [op] + list(d.walk_ops(op))
            accesses = [a for a in (access_of(x, self.buffers) for x in inner)
                        if a is not None]
            seen.extend(accesses)
            for a in accesses:
                if a.cls != ISSUER:
                    continue
                probe = Status(a, -1.0, UNKNOWN_LOOP)
                if any(conflict(probe, b) is not None and requirement(a, b) is not None
                       for b in seen):
                    last = op
        self.tail_cache[loop] = [last] if last is not None else []
        return self.tail_cache[loop]

    def site_at(self, anchor) -> int:
        """The mbarrier of the commit site right after `anchor` (made on first use)."""
        barrier = self.site_of.get(anchor)
        if barrier is None:
            barrier = len(self.sites)
            self.sites.append(Site(barrier, anchor))
            self.site_of[anchor] = barrier
        return barrier

    def block_order(self, block) -> dict:
        """Position of each op of `block`."""
        order = self.order_cache.get(block)
        if order is None:
            order = {op.operation: i for i, op in enumerate(block.operations)}
            self.order_cache[block] = order
        return order

    # ---------------------------------------------------------------- conservative

    def plan_completion(self, op, access: Access, inside_while: bool = False) -> None:
        """Completes `op` right after it is issued: every op under strategy conservative;
        under minimal, the ops inside an scf.while, as candidates that prune_kernel drops
        when no dependence needs them."""
        text = f"conservative: completion of {describe(op)} right after it"
        if inside_while:
            text = f"completion of {describe(op)} right after it, inside scf.while"
        if access.cls == ISSUER:
            barrier = self.site_at(op)
            steps = [("commit", None, barrier), ("mbarrier_wait", None, barrier),
                     ("fence", "after_thread_sync", None)]
        elif access.cls == WARPGROUP:
            steps = [("wait", "st" if access.name == StOp.NAME else "ld", None)]
        else:
            steps = [("fence_proxy_async", None, None), ("barrier", None, None)]
        for name, kind, barrier in steps:
            index = self.add((op, "after"), name, kind, text, barrier,
                             speculative=inside_while)
            self.hooks.setdefault((op, "after"), []).append(index)

    # ---------------------------------------------------------------- effects

    def add(self, position, name: str, kind, reason: str, barrier,
            speculative: bool = False) -> int:
        """Plans one op at `position`; returns its index."""
        anchor, side = position
        self.actions.append(Action(anchor, side, name, kind, reason, barrier, speculative))
        index = len(self.actions) - 1
        self.positions.setdefault(position, []).append(index)
        return index

    def apply_hooks(self, op, side: str, state: dict) -> dict:
        """Applies the planned ops at (op, side) that the walk must see there (every one, in a check walk)."""
        table = self.positions if self.checking else self.hooks
        for index in table.get((op, side), ()):
            if index in self.disabled:
                continue
            action = self.actions[index]
            state = self.effect(action.name, action.kind, action.barrier, state)
        return state

    def effect(self, name: str, kind, barrier, state: dict, only=None) -> dict:
        """What a sync op does to the work in flight: each acts on every earlier op of
        its class (9.7.16.6.2.1, 9.7.16.11.1, 9.7.16.6.3); with `only`, on those ops."""
        new = {}
        for op, s in state.items():
            if only is not None and op not in only:
                new[op] = s
                continue
            cls = s.access.cls
            if name == "commit" and cls == ISSUER:
                s = s.evolve(covered=s.covered | {barrier})
            elif name == "mbarrier_wait" and barrier in s.covered:
                s = s.evolve(complete=True)
            elif name == "wait" and cls == WARPGROUP and \
                    (s.access.name == "st") == (kind == "st"):
                s = s.evolve(complete=True)
            elif name == "fence" and kind == "before_thread_sync" and cls == WARPGROUP \
                    and s.complete:
                s = s.evolve(released=True)
            elif name == "fence_proxy_async" and cls == GENERIC:
                s = s.evolve(proxied=True)
            elif name == "barrier" and (s.released or s.proxied):
                s = s.evolve(synced=True)
            elif name == "fence" and kind == "after_thread_sync" and \
                    (cls == ISSUER and s.complete or cls == WARPGROUP and s.synced):
                s = s.evolve(acquired=True)
            new[op] = s
        if self.checking:
            new = {op: s for op, s in new.items() if not s.done()}
        return new

    def mark_fragment_uses(self, op, state: dict) -> dict:
        """A read of the registers a tcgen05.ld wrote: ordered after the load by the true
        register dependency (9.7.16.6.4.5), and re-issuing the load no longer races it."""
        changed = None
        for operand in op.operands:
            owner = defining_op(operand)
            status = state.get(owner) if owner is not None else None
            if status is not None and not status.consumed and status.access.name in LOADS:
                changed = changed if changed is not None else dict(state)
                changed[owner] = status.evolve(consumed=True)
        return changed if changed is not None else state


def _same_effects(a: Access, b: Access) -> bool:
    """Whether two ops touch exactly the same cells and tiles the same way (and neither
    writes registers, whose own rule names the op)."""
    return (a.reads == b.reads and a.writes == b.writes and a.smem_reads == b.smem_reads
            and a.smem_writes == b.smem_writes and a.pipeline_key == b.pipeline_key
            and a.fragment is None and b.fragment is None)


# ------------------------------------------------------------------------------ phases


class Phases:
    """Builds the parity operand of an mbarrier wait: (commits to its mbarrier executed
    before the wait - 1) mod 2, from the induction variables of the loops around the wait
    and the trip counts of the loops around the commit."""

    def __init__(self, kernel, actions: list):
        self.kernel = kernel
        self.seq = {id(a): i for i, a in enumerate(actions)}

    def parity(self, wait: Action, site: Action):
        """Emits, at the insertion point, the i32 parity for `wait` and returns it; None
        when the count of commits is not a function of the loops' induction variables
        (the wait then tracks the phase at run time, see tcgen05.mbarrier_wait)."""
        chain_w = _chain(wait.anchor)
        chain_s = _chain(site.anchor)
        if not self.static(chain_s, chain_w, wait):
            return None
        loops_w = [op for op in reversed(chain_w[1:]) if op.name == "scf.for"]
        loops_s = [op for op in reversed(chain_s[1:]) if op.name == "scf.for"]
        common = []
        for a, b in zip(loops_w, loops_s):
            if a != b:
                break
            common.append(a)
        deeper = loops_s[len(common):]
        before = self.site_before_wait(site, wait, chain_s, chain_w)
        # count = linear * per + (per if the commit precedes the wait in this iteration)
        # where linear counts the completed iterations of the common loops (outer first).
        index = ir.IndexType.get()
        terms: list[list] = []  # products of factors (ints or values), summed
        per = [("trips", loop) for loop in deeper]
        for j, loop in enumerate(common):
            terms.append([("iter", loop)] + [("trips", l) for l in common[j + 1:]] + per)
        if before:
            terms.append(list(per))
        terms.append([1])  # parity = (count - 1) mod 2 = (count + 1) mod 2
        constant = 0
        values = []
        for term in terms:
            # Only the parity of each product matters: a constant even factor drops the
            # term, constant odd factors drop out, and nothing is emitted for either.
            known = [self.constant_factor(f) for f in term]
            if any(k is not None and k % 2 == 0 for k in known):
                continue
            symbolic = [f for f, k in zip(term, known) if k is None]
            if not symbolic:
                constant += 1
                continue
            product = None
            for factor in symbolic:
                value = self.factor(factor, wait.anchor, wait.side)
                product = value if product is None else \
                    _op("arith.muli", [product, value], index)
            values.append(product)
        i32 = ir.IntegerType.get_signless(32)
        if not values:
            return _const(constant % 2, i32)
        total = values[0]
        for v in values[1:]:
            total = _op("arith.addi", [total, v], index)
        if constant % 2:
            total = _op("arith.addi", [total, _const(1, index)], index)
        bit = _op("arith.andi", [total, _const(1, index)], index)
        return _op("arith.index_cast", [bit], i32)

    def static(self, chain_s, chain_w, wait: Action) -> bool:
        """Whether the commits executed before the wait can be counted from the loops:
        the commit (one op per mbarrier) is in no scf.while, and in no branch that may
        be skipped between two of the waits (a conditional not around the wait, or one
        inside a loop); and every trip count the count needs is known at the wait."""
        for depth, op in enumerate(chain_s[1:], start=1):
            if op.name == "scf.while":
                return False
            if op.name in ("scf.if", "scf.index_switch"):
                outer = chain_s[depth + 1:]
                if op not in chain_w or any(o.name in ("scf.for", "scf.while")
                                            for o in outer):
                    return False
        loops_w = {op for op in chain_w[1:] if op.name == "scf.for"}
        for loop in chain_s[1:]:
            if loop.name != "scf.for" or constant_trip_count(loop) is not None:
                continue
            # A loop around the commit but not the wait counts with its trip count.
            if loop not in loops_w and not all(_constant(v) is not None or
                                  _dominates(v, wait.anchor, wait.side)
                                  for v in list(loop.operands)[:3]):
                return False
        return True

    def site_before_wait(self, site: Action, wait: Action, chain_s, chain_w) -> bool:
        """Whether the commit runs before the wait within one iteration of the innermost
        block that holds both."""
        blocks_w = {op.block: op for op in chain_w}
        for proj_s in chain_s:
            proj_w = blocks_w.get(proj_s.block)
            if proj_w is None:
                continue
            if proj_s != proj_w:
                return proj_s.is_before_in_block(proj_w)
            # The same op of that block: the commit is after it or inside it.
            if wait.anchor == proj_w and wait.side == "before":
                return False
            if wait.anchor == proj_w and site.anchor == proj_s:
                return self.seq[id(site)] < self.seq[id(wait)]
            return wait.anchor == proj_w  # the wait is after the op holding the commit
        raise SyncError(wait.anchor, "internal: commit and wait share no block")

    def constant_factor(self, factor) -> int | None:
        """A factor's value when it is a constant (an int, or a constant trip count)."""
        if isinstance(factor, int):
            return factor
        what, loop = factor
        return constant_trip_count(loop) if what == "trips" else None

    def factor(self, factor, anchor, side):
        """An iteration index or trip count, as an int when constant, else a value."""
        what, loop = factor
        index = ir.IndexType.get()
        lb, ub, step = (loop.operands[i] for i in range(3))
        if what == "iter":
            iv = loop.regions[0].blocks[0].arguments[0]
            offset = _op("arith.subi", [iv, lb], index)
            return _op("arith.divui", [offset, step], index)
        trips = constant_trip_count(loop)
        if trips is not None:
            return trips
        # (Phases.static has made sure the bounds are available at the wait.)
        lbv, ubv, stepv = (_const(_constant(v), index) if _constant(v) is not None else v
                           for v in (lb, ub, step))
        span = _op("arith.subi", [ubv, lbv], index)
        rounded = _op("arith.addi", [span, _op("arith.subi", [stepv, _const(1, index)],
                                                 index)], index)
        count = _op("arith.divsi", [rounded, stepv], index)
        return _op("arith.maxsi", [count, _const(0, index)], index)


def _chain(op) -> list:
    """`op` and the ops around it, innermost first, up to the kernel (excluded)."""
    chain = [op]
    parent = _parent_op(op)
    while parent is not None and not d.is_kernel(parent):
        chain.append(parent)
        parent = _parent_op(parent)
    return chain


def _dominates(value, anchor, side) -> bool:
    """Whether `value` is available at (anchor, side): defined before it in a block
    around it, or an argument of such a block."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return any(op.block == owner for op in _chain(anchor))
    definer = owner.operation if hasattr(owner, "operation") else owner
    for op in _chain(anchor):
        if op.block == definer.block:
            return definer.is_before_in_block(op) or (definer == op and side == "after")
    return False


def _kind(op) -> str | None:
    """The ``kind`` of a tcgen05 op whose op has one (wait, fence; mma), else None."""
    typed = wrap(op)
    if typed is None or not typed.declares(WaitOp.kind):
        return None
    return typed.get(WaitOp.kind)


def _const(value: int, type_):
    return ir.Operation.create("arith.constant", results=[type_],
                               attributes={"value": ir.IntegerAttr.get(type_, value)}
                               ).results[0]


def _op(name: str, operands, result_type):
    return ir.Operation.create(name, results=[result_type], operands=list(operands)).results[0]


# ------------------------------------------------------------------------------ insertion


def materialize(kernel, planner: Planner) -> list:
    """Creates the planned ops (and their mbarriers at kernel entry); returns them in
    program order of creation."""
    entry = kernel.regions[0].blocks[0]
    actions = planner.enabled()
    used = sorted({a.barrier for a in actions if a.barrier is not None})
    barriers = {}
    if used:
        first = entry.operations[0]
        for b in used:
            site = planner.sites[b]
            with ir.InsertionPoint(first), site.anchor.location:
                barriers[b] = AllocMbarrierOp(AllocMbarrierOp.build(
                    result_types=[d.mbarrier_type()], count=1)).barrier
    commits = {a.barrier: a for a in actions if a.name == "commit"}
    phases = Phases(kernel, actions)
    groups: dict = {}
    for action in actions:
        groups.setdefault((action.anchor, action.side), []).append(action)
    added = []
    for (anchor, side), group in groups.items():
        point = ir.InsertionPoint(anchor) if side == "before" else \
            ir.InsertionPoint.after(anchor)
        with point, anchor.location:
            for action in group:
                cls = OPS[action.name]
                fields = dict(reason=action.reason)
                if action.barrier is not None:   # commit, mbarrier_wait
                    fields.update(barrier=barriers[action.barrier])
                if cls is MbarrierWaitOp:
                    # None: the phase is tracked at run time
                    fields.update(phase=phases.parity(action, commits[action.barrier]))
                if action.kind is not None:      # wait, fence
                    fields.update(kind=action.kind)
                added.append(cls.build(**fields))
    return added


#: %cluster_ctarank bits of both CTAs of a pair (9.7.16.5.1).
BOTH_CTAS = 0b11
#: Ops of a pair kernel that run in both CTAs and may need single-thread work complete.
_BOTH_CTA_CONSUMERS = (LdOp.NAME, LdRedOp.NAME, StOp.NAME, SmemFillOp.NAME, "dealloc")
#: Ops the pass inserts around a consumer (the consumer is the next op that is none).
_SYNC_NAMES = ("commit", "mbarrier_wait", "wait", "fence", "fence_proxy_async", "barrier")


def choose_commit_masks(kernel, added: list) -> None:
    """The ``multicast_mask`` of every commit added to a cta_group::2 kernel: which CTAs'
    mbarriers it arrives at (9.7.16.12.1), i.e. which CTAs wait for it (lowering.sync).

    Mask 0b11 (both CTAs) unless every wait on the commit's mbarrier serves a
    single-thread consumer (mma, cp, shift: issued in the even CTA, Table 46) and nothing
    that runs in both CTAs relies on those waits: then the plain commit, which arrives at
    the issuing CTA's mbarrier only. The planning walk counts a completion as seen by
    every thread, so the second condition is checked here, conservatively: each wait sits
    in the kernel's body (no loop or branch around it), and before any later op that runs
    in both CTAs there is a commit to both CTAs, a wait on it and
    tcgen05.fence::after_thread_sync (that commit covers everything the thread issued
    before, the producers of the narrowed commit included)."""
    if d.kernel_info(kernel).cta_group != 2:
        return
    commits = [op for op in added if CommitOp.matches(op)]
    waits: dict = {}
    for op in added:
        if MbarrierWaitOp.matches(op):
            waits.setdefault(op.operands[0], []).append(op)
    body = kernel.regions[0].blocks[0]
    narrow = {c.operands[0] for c in commits
              if waits.get(c.operands[0])
              and all(w.block == body and _serves_single_thread_only(w)
                      for w in waits[c.operands[0]])}
    ops = [op.operation for op in body.operations]
    # Commits to both CTAs: those added and not narrowed, and the program's own whose
    # mask names both.
    to_both = {op.operands[0] for op in d.walk_ops(kernel) if CommitOp.matches(op)
               and (CommitOp(op).multicast_mask or 0) & BOTH_CTAS == BOTH_CTAS}
    to_both |= {c.operands[0] for c in commits} - narrow
    unsafe = {b for b in narrow
              if not all(_both_ctas_ordered_after(w, ops, to_both) for w in waits[b])}
    for commit in commits:
        if commit.operands[0] not in narrow - unsafe:
            CommitOp(commit).multicast_mask = BOTH_CTAS


def _serves_single_thread_only(wait) -> bool:
    """Whether the consumer the wait was inserted for (the next op that is neither
    inserted nor index arithmetic) is a single-thread op."""
    found = False
    for op in wait.block.operations:
        op = op.operation
        if found and not _is_trivial(op) and d.op_name(op) not in _SYNC_NAMES:
            return d.op_name(op) in (MmaOp.NAME, CpOp.NAME, ShiftOp.NAME)
        found = found or op == wait
    return False


def _both_ctas_ordered_after(wait, ops: list, to_both: set) -> bool:
    """Whether every op after `wait` in the kernel's body that runs in both CTAs is
    preceded, after `wait`, by a commit to both CTAs (`to_both`: its mbarriers), a wait
    on it and a fence::after_thread_sync (see choose_commit_masks)."""
    waited = False
    for op in ops[ops.index(wait) + 1:]:
        name = d.op_name(op)
        if name == "mbarrier_wait" and op.operands[0] in to_both:
            waited = True
        elif name == "fence" and FenceOp(op).kind == "after_thread_sync" and waited:
            return True
        if any(d.op_name(x) in _BOTH_CTA_CONSUMERS for x in [op, *d.walk_ops(op)]):
            return False
    return True


def separate_phases(kernel) -> list:
    """Adds a barrier before every commit that may follow a wait on the same mbarrier
    with no barrier in between (see "mbarriers" in the module docstring). Loops are
    walked twice, the second time with what the first left pending at the end."""
    added = []

    def walk(block, waited: frozenset, insert: bool) -> frozenset:
        # `waited`: the mbarriers some thread may still be waiting on since the last barrier.
        for op in list(block.operations):
            op = op.operation
            name = d.op_name(op)
            if op.name == "scf.for":
                body = op.regions[0].blocks[0]
                trips = constant_trip_count(op)
                if trips == 0:
                    continue
                last = walk(body, waited, insert and trips == 1)
                if trips != 1:  # the next iteration starts with what this one left
                    last = walk(body, waited | last, insert)
                # A loop that may run no iteration leaves what came before it, too.
                waited = last if trips is not None and trips >= 1 else waited | last
            elif op.name == "scf.while":
                # before, (after, before)*: settle what an iteration leaves pending, then
                # walk both blocks once more from there (inserting, if asked).
                before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
                start = waited
                while True:
                    again = start | walk(after, walk(before, start, False), False)
                    if again == start:
                        break
                    start = again
                exit_waited = walk(before, start, insert)
                walk(after, exit_waited, insert)
                waited = exit_waited
            elif len(op.regions):
                result = waited
                for region in op.regions:
                    for inner in region.blocks:
                        result = result | walk(inner, waited, insert)
                waited = result
            elif name == "mbarrier_wait":
                waited = waited | {op.operands[0]}
            elif name == "barrier":
                waited = frozenset()
            elif name == "commit" and op.operands[0] in waited:
                if insert:
                    with ir.InsertionPoint(op), op.location:
                        added.append(BarrierOp.build(
                            reason=f"every thread has passed its wait on this mbarrier "
                                   f"before {describe(op)} completes its next phase"))
                waited = frozenset()
        return waited

    walk(kernel.regions[0].blocks[0], frozenset(), True)
    return added


# ------------------------------------------------------------------------------ pass

#: Report columns: label -> predicate on an inserted op.
COUNTED = (
    ("commit", lambda n, k: n == "tcgen05.commit"),
    ("mbarrier_wait", lambda n, k: n == "tcgen05.mbarrier_wait"),
    ("wait::ld", lambda n, k: n == "tcgen05.wait" and k == "ld"),
    ("wait::st", lambda n, k: n == "tcgen05.wait" and k == "st"),
    ("fence::before", lambda n, k: n == "tcgen05.fence" and k == "before_thread_sync"),
    ("fence::after", lambda n, k: n == "tcgen05.fence" and k == "after_thread_sync"),
    ("fence.proxy.async", lambda n, k: n == "tcgen05.fence_proxy_async"),
    ("barrier", lambda n, k: n == "tcgen05.barrier"),
)


@dataclass(frozen=True)
class SyncOp:
    """An op tcgen05-insert-sync added, as plain data: its name, its ``kind`` attribute
    (None if it has none) and its ``reason``."""

    name: str
    kind: str | None
    reason: str | None

    @classmethod
    def of(cls, op) -> "SyncOp":
        return cls(op.name, _kind(op), wrap(op).reason)


def count_sync_ops(ops) -> dict:
    """How many inserted ops of each kind (the report's and the benchmark's columns), of
    SyncOp records or of the ops themselves."""
    counts = {label: 0 for label, _ in COUNTED}
    for op in ops:
        kind = op.kind if isinstance(op, SyncOp) else _kind(op)
        for label, matches in COUNTED:
            if matches(op.name, kind):
                counts[label] += 1
    counts["total"] = sum(counts[label] for label, _ in COUNTED)
    return counts


@dataclass
class InsertSyncResult(PassResult):
    """Per kernel name, the ops the run added, in program order."""

    inserted: dict[str, list[SyncOp]] = field(default_factory=dict)


class Tcgen05InsertSync(ModulePass):
    name = "tcgen05-insert-sync"
    description = "Insert the canonical tcgen05 synchronization for every dependence"
    options = (
        Option("strategy", str, "minimal", "sync placement: only what dependences need "
               "(minimal) or completion after every async op (conservative)", STRATEGIES),
        Option("report", bool, False, "print the sync ops added, with their reasons"),
    )

    result_class = InsertSyncResult

    def apply(self, module) -> None:
        """Plans and inserts the synchronization of every kernel of `module`."""
        for kernel in d.kernels(module):
            unplanned = unplanned_buffer(kernel, self.name)
            if unplanned:
                self.error(*unplanned)
                continue
            planner = Planner(kernel, self.option("strategy"))
            try:
                planner.run()
                added = materialize(kernel, planner)
                added += separate_phases(kernel)
                choose_commit_masks(kernel, added)
            except SyncError as exc:
                self.fail(exc.op, exc.message)
            name = d.kernel_info(kernel).name
            order = {op: i for i, op in enumerate(d.walk_ops(kernel))}
            added.sort(key=lambda op: order[op])
            self.result.inserted[name] = [SyncOp.of(op) for op in added]
            if self.option("report"):
                barriers = len({a.barrier for a in planner.enabled() if a.barrier is not None})
                self.print_report(name, added, barriers)

    def print_report(self, name: str, added: list, barriers: int) -> None:
        """Prints what was added to one kernel, with the reasons."""
        counts = count_sync_ops(added)
        summary = ", ".join(f"{counts[label]} {label}" for label, _ in COUNTED
                            if counts[label])
        lines = [f"tcgen05-insert-sync: kernel @{name} strategy={self.option('strategy')} "
                 f"added {counts['total']} ops ({summary or 'none'}), "
                 f"{barriers} mbarriers"]
        for op in added:
            kind = _kind(op)
            label = op.name + (f"::{kind}" if kind else "")
            lines.append(f"  {label:36} {wrap(op).reason}")
        print("\n".join(lines), file=self.report_stream)
