"""tcgen05-select-layouts: the data-path layout (A-G) of every MMA, the TMEM footprint of
every buffer, and the messages of every warpgroup load and store.

Decisions written into the IR:

- ``tcgen05.mma``: ``layout`` (9.7.16.10.5, from M, cta_group, sparsity and .ws).
- ``tcgen05.tmem_buffer``: ``role`` (what the MMA uses it as: "d", "a", "scale_a",
  "scale_b", "metadata"), ``layout``, ``columns`` (columns per CTA) and ``half_lanes``
  (true when the buffer uses 16 lanes of each 32-lane quarter, so that another such
  buffer may take the other half of the same columns); for Layout C also ``layout_c``,
  the reading used. Footprints come from ``tcgen05_lower.isa.layouts``: D (B, E and G
  fold N), A in TMEM (packed elements, duplicated rows for B and E), scale factors (all
  four lane quarters), sparse metadata (2-column granules).
- ``tcgen05.ld``, ``tcgen05.ld_red``, ``tcgen05.st``: ``shape``, ``num`` (of each
  message), ``half_split`` (immHalfSplitoff, .16x32bx2 only) and ``pack16`` (ld) /
  ``unpack16`` (st); ``tcgen05.load_fragment`` gets the plan of the tcgen05.st it feeds
  (its registers must be laid out as that store expects). Which warps take part, the
  taddr of each message and the element in each register follow from these and the
  buffer (``tcgen05_lower.isa.addressing``).

A multi-buffered ``[stages, rows, cols]`` buffer is used through ``tcgen05.tmem_stage``
views: the MMAs and loads/stores of its stages decide and are planned against one stage's
``[rows, cols]`` footprint, which is written on the buffer itself (all stages share one
role and layout; tcgen05-plan-tmem places the stages and copies the footprint onto each
view).

A buffer's layout: the layout of the MMAs that use it (all must agree); else a
``layout`` attribute the program wrote on the ``tmem_buffer`` (a request, checked against
the buffer's shape and the kernel's cta_group, and against any MMA); else Layout D for 128
rows of a cta_group::1 kernel and Layout A for 256 rows of a cta_group::2 kernel. The
request lets a kernel load and store buffers of layouts whose MMAs it does not contain.

Options:

- ``strategy``: the ld/st message strategy (``tcgen05_lower.strategies.ldst``):
  ``max-width`` or ``register-budget=R`` (default ``register-budget=32``, suited to an
  epilogue). Under a budget, a load whose fragment only feeds one store
  (ld -> store_fragment, load_fragment -> st, in the same block with only arith ops
  between them) is rewritten into a sequence of narrower load -> store pairs at the
  store's position, each an ordinary ld/store_fragment (or load_fragment/st), so that
  tcgen05-insert-sync, which runs later, sees every load and its consumer.
- ``shape``: the message shape of every access (``auto``: .32x32b for full-datapath
  layouts, .16x32bx2 for half-datapath ones); a ``shape``/``num`` attribute on an op wins
  over this option and over the strategy (a budget splits such an op's pair only into
  chunks of whole messages of its ``.num``); an op with a ``num`` but no ``shape`` that
  the option's shape cannot move is a located error naming the option.
- ``layout-c``: how Layout C places D. ``F`` (default): the PTX ISA's own wording, "4x1
  (1/2 datapath utilized)" with lane alignment 0 or 16, i.e. Layout F's placement in each
  CTA of the pair; the ISA is the authority this project follows. ``B``: CUTLASS's
  reuse of the Layout-B atom (all 128 lanes, N/2 columns), which CUTLASS does not test
  for this case. tmem-facts.md section 1 rates the question L; no hardware result
  settles it.
- ``report``: print every decision.

A buffer used by MMAs of different layouts is an error: its cells would mean different
elements to each.
"""

from __future__ import annotations

from types import MappingProxyType

import math
from dataclasses import dataclass, field, replace

from tcgen05_lower import dialect as d
from tcgen05_lower.computed import is_row_vector, row_vector_root
from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect.ops import (CpOp, FragBroadcastOp, FragMapOp, FragReduceOp, LdOp, LdRedOp, LoadFragmentOp, MmaOp,
                                       ShiftOp,
                                       StOp, StoreFragmentOp, TmemBufferOp, TmemStageOp,
                                       WaitOp, wrap)
from tcgen05_lower.element_types import element_bits, isa_bits, isa_type
from tcgen05_lower.isa import a_store, fragments, layouts, row_slots, shapes
from tcgen05_lower.planning import row_placement
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.shapes import SCALE_VEC_QUALIFIERS
from tcgen05_lower.kernel_ir import (OpMap, defining_op, effective_scale_vec, index_range,
                                     mma_operands, pack_attribute, root_buffers, terminator)
from tcgen05_lower.pass_infra import ModulePass, Option, PassResult
from tcgen05_lower.strategies import ldst as strategies
from tcgen05_lower.text import did_you_mean


#: Scale factors per row per MMA for each .scale_vectorsize (Table 54; the blockN aliases
#: are resolved per kind by tcgen05-verify, here the footprint is the same bounding region).
#: Roles whose declared shape is the MMA's logical matrix rather than their cells: their
#: footprint grows to cover what the tcgen05.cp ops filling them write.
GROWN_BY_COPIES = ("scale_a", "scale_b", "metadata")
#: Columns tcgen05.shift moves: its 32-byte elements (9.7.16.9.3, shape .31x256b).
SHIFT_COLUMNS = 8
#: tcgen05.ld.red types (9.7.16.8.3): .f32, .u32, .s32.
RED_TYPES = MappingProxyType({"f32": "f32", "s32": "s32", "u32": "u32"})
#: Ops that may sit between a load and the store it feeds without stopping the split:
#: they neither touch memory nor the tensor memory.
PURE_PREFIXES = ("arith.", "index.")


def _strategy_option(text: str) -> str:
    strategies.parse_strategy(text)  # raises ValueError with the reason
    return text


@dataclass(frozen=True)
class Use:
    """How an MMA uses a TMEM buffer."""

    role: str
    layout: str
    footprint: layouts.Footprint
    mma: object


@dataclass(frozen=True)
class BufferInfo:
    """A TMEM buffer after layout selection."""

    op: object
    role: str
    layout: str
    layout_c: str
    rows: int
    cols: int
    element: str


@dataclass
class Planned:
    """The plan of one warpgroup access op."""

    op: object
    buffer: BufferInfo | None
    access: object  # addressing.WarpgroupAccess
    request: strategies.AccessRequest
    note: str = ""


def _half_lane_copy_message(shape: str, multicast: str | None, info: "BufferInfo") -> str:
    """Why a tcgen05.cp cannot fill an operand held on 16 lanes of each quarter."""
    what = {"a": "A", "metadata": "sparse-metadata", "d": "accumulator"}.get(info.role,
                                                                         info.role)
    qualifier = f".{shape}" + (f".{multicast}" if multicast else "")
    if shape == "4x256b":
        writes = "writes 4 lanes from its taddr, one quarter only"
    else:
        writes = ("writes 32 lanes of every 32-lane quarter (9.7.16.9.2: its rows are "
                  "multicast to the warps' quarters, or go to all 128 lanes)")
    return (f"tcgen05.cp{qualifier} {writes}, but Layout {info.layout} holds this {what} "
            f"operand ({info.rows} rows) on 16 lanes of each quarter (9.7.16.10.5): the copy "
            f"would write the other lane half, which the plan may give to another buffer, "
            f"and no copy shape puts the operand's rows on the lanes the MMA reads. "
            f"Half-lane (M = 64) operands in tensor memory cannot be filled by tcgen05.cp; "
            f"tcgen05.st would be the way, which is not supported yet for MMA operands")


def _bits_or_none(element: str) -> int | None:
    try:
        return isa_bits(element)
    except KeyError:
        return None


def _multiple_word(per_word: int) -> str:
    return "even" if per_word == 2 else f"a multiple of {per_word}"


def _count_word(per_word: int) -> str:
    return {2: "two", 4: "four"}.get(per_word, str(per_word))


def default_layout_for_rows(rows: int, cta_group: int = 1) -> str | None:
    """The layout of a buffer that no MMA uses and that asks for none: rows on lanes one
    to one (Layout D for 128 rows of a cta_group::1 kernel, Layout A for 256 rows of a
    cta_group::2 kernel). Anything else is ambiguous and needs a ``layout`` request."""
    if cta_group == 1 and rows == 128:
        return "D"
    if cta_group == 2 and rows == 256:
        return "A"
    return None


def traced_buffers(value) -> list | None:
    """The ``tcgen05.tmem_buffer`` ops the TMEM value `value` may name
    (``kernel_ir.root_buffers``: its producer, the multi-buffered buffer of a
    ``tcgen05.tmem_stage`` view, every buffer that reaches a select, a branch or loop
    result or a block argument); None when a way in is not traced (a kernel argument,
    an unknown op's result)."""
    found = root_buffers(value)
    return found or None


def column_facts(value, depth: int = 0) -> tuple[int | None, int]:
    """(constant value or None, a number the value is known to be a multiple of; 0 means
    the value is 0) of an index value: constants, scf.for induction variables with
    constant bounds, and sums, products and casts of those."""
    if depth > 8:
        return None, 1
    op = defining_op(value)
    if op is None:
        arg = ir.BlockArgument(value)
        parent = arg.owner.owner
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent is not None and parent.name == "scf.for" and arg.arg_number == 0:
            lower, _ = column_facts(parent.operands[0], depth + 1)
            step, _ = column_facts(parent.operands[2], depth + 1)
            if lower is not None and step is not None:
                return None, math.gcd(lower, step)
        return None, 1
    if op.name == "arith.constant":
        constant = int_value(op.attributes["value"])
        return constant, constant
    if op.name in ("arith.index_cast", "arith.index_castui", "arith.extui"):
        return column_facts(op.operands[0], depth + 1)
    if op.name in ("arith.addi", "arith.muli"):
        (c1, g1), (c2, g2) = (column_facts(op.operands[i], depth + 1) for i in (0, 1))
        if op.name == "arith.addi":
            return (c1 + c2 if c1 is not None and c2 is not None else None), math.gcd(g1, g2)
        return (c1 * c2 if c1 is not None and c2 is not None else None), g1 * g2
    return None, 1


@dataclass(frozen=True)
class BufferLayout:
    """The decision for one TMEM buffer: its layout (and how Layout C was read), role and
    footprint."""

    label: str
    rows: int
    cols: int
    element: str
    layout: str
    layout_c: str
    role: str
    columns: int | None
    half_lanes: bool
    stages: int

    def text(self) -> str:
        reading = f" (read as {self.layout_c})" if self.layout == "C" else ""
        if self.stages > 1:
            reading += f", {self.stages} stages"
        return (f"%{self.label} {self.rows}x{self.cols}x{self.element}: Layout "
                f"{self.layout}{reading}, role {self.role}, {self.columns} columns"
                f"{', half lanes' if self.half_lanes else ''}")


@dataclass(frozen=True)
class AccessMessages:
    """The messages chosen for one tcgen05.ld / ld_red / st or load_fragment."""

    op: str
    where: str
    width: int
    messages: str
    note: str = ""

    def text(self) -> str:
        return (f"tcgen05.{self.op} at {self.where}: {self.width} columns, {self.messages}"
                + (f"; {self.note}" if self.note else ""))


@dataclass(frozen=True)
class KernelLayouts:
    """Everything select-layouts decided in one kernel."""

    kernel: str
    strategy: str
    layout_c: str
    buffers: tuple[BufferLayout, ...]
    accesses: tuple[AccessMessages, ...]
    #: The load -> store pairs split to meet the register budget.
    splits: tuple[str, ...]

    def lines(self) -> list[str]:
        """The report (``report=true``)."""
        return ([f"tcgen05-select-layouts: kernel @{self.kernel} strategy={self.strategy} "
                 f"layout-c={self.layout_c}"]
                + [f"  {b.text()}" for b in self.buffers]
                + [f"  {a.text()}" for a in self.accesses]
                + [f"  split {note}" for note in self.splits])


@dataclass
class SelectLayoutsResult(PassResult):
    """Per kernel name, the layouts and messages the run chose."""

    layouts: dict[str, KernelLayouts] = field(default_factory=dict)


class Tcgen05SelectLayouts(ModulePass):
    name = "tcgen05-select-layouts"
    description = ("Choose the data-path layout of each MMA, the footprint of each TMEM "
                   "buffer and the messages of each tcgen05.ld/st")
    options = (
        Option("strategy", _strategy_option, strategies.DEFAULT_STRATEGY,
               "ld/st messages: max-width | register-budget=R",
               kind="max-width or register-budget=R (R registers per thread)"),
        Option("shape", str, "auto", "message shape of every ld/st (an op's own wins)",
               ("auto",) + fragments.LD_ST_SHAPES),
        Option("layout-c", str, "F", "reading of Layout C: F (PTX wording) or B (CUTLASS)",
               layouts.LAYOUT_C_READINGS),
        Option("report", bool, False, "print the layouts and ld/st plans to stderr"),
    )

    result_class = SelectLayoutsResult

    def apply(self, module) -> None:
        self.strategy = strategies.parse_strategy(self.option("strategy"))
        self.layout_c = self.option("layout-c")
        for kernel in d.kernels(module):
            self.select_in_kernel(kernel)

    # ------------------------------------------------------------------ kernel

    def select_in_kernel(self, kernel) -> None:
        info = d.kernel_info(kernel)
        chosen: dict = {}  # tmem_buffer op -> Use (role, layout, footprint, mma op)
        buffers, accesses, load_fragments, store_fragments, copies = [], [], [], [], []
        row_ops = []  # frag_reduce, frag_broadcast: check_rows_per_thread
        #: value -> how it is held (computed.row_vector_root), shared by the checks.
        self.row_memo: dict = {}
        for op in d.walk_ops(kernel):
            typed = wrap(op)
            if isinstance(typed, TmemBufferOp):
                buffers.append(op)
            elif isinstance(typed, (LdOp, LdRedOp, StOp)):
                accesses.append(op)
            elif isinstance(typed, LoadFragmentOp):
                load_fragments.append(op)
            elif isinstance(typed, StoreFragmentOp):
                store_fragments.append(op)
            elif isinstance(typed, (CpOp, ShiftOp)):
                copies.append(op)
            elif isinstance(typed, MmaOp):
                self.select_for_mma(op, info, chosen)
            elif isinstance(typed, (FragReduceOp, FragBroadcastOp)):
                row_ops.append(op)
            elif isinstance(typed, FragMapOp) and any(
                    is_row_vector(value, self.row_memo) for value in op.operands):
                row_ops.append(op)  # a map of per-row values
            elif op.name == "scf.for" and any(
                    isinstance(d.type_info(r.type), d.FragType) for r in op.results):
                row_ops.append(op)  # carries row vectors
        self.buffers = OpMap()   # not a dict: an op's hash changes with its attributes
        for buffer in buffers:
            self.record_footprint(buffer, chosen.get(buffer), info)
        for op in copies:
            if CpOp.matches(op):
                self.fit_copy(op)
            else:
                self.fit_shift(op)
        self.plans: dict = {}
        self.split_notes: list[str] = []
        for op in accesses:
            self.plan_access(op)
        for op in load_fragments:
            self.plan_load_fragment(op)
        for op in accesses:
            if StOp.matches(op):
                self.check_stored_fragment(op)
        for op in store_fragments:
            self.check_global_store(op)
        for op in row_ops:
            self.check_rows_per_thread(op)
        if not self.failed:
            self.split_for_budget(kernel, accesses, load_fragments)
        decided = self.kernel_layouts(info, buffers)
        self.result.layouts[info.name] = decided
        if self.option("report"):
            print("\n".join(decided.lines()), file=self.report_stream)

    # ------------------------------------------------------------------ layouts

    @staticmethod
    def scale_factors_per_row(op, kind: str) -> int | None:
        """Scale factors per row of one block-scaled MMA (Table 54; its scale_vec, or the
        default of 9.7.16.10.9.1), or None when there is no valid size (tcgen05-verify
        reports it)."""
        vec = effective_scale_vec(op)
        if vec is None:
            return None
        try:
            return shapes.scale_factor_columns(kind, SCALE_VEC_QUALIFIERS.get(vec, vec),
                                               k96=MmaOp(op).k == 96)
        except IsaRuleError:
            return None

    def select_for_mma(self, op, info, chosen) -> None:
        operands = mma_operands(op)
        mma = MmaOp(op)
        kind = mma.kind
        sparse = bool(mma.sparse)
        ws = bool(mma.ws)
        m, n = operands.d_type.rows, operands.d_type.cols
        lc = self.layout_c
        try:
            layout = layouts.select_layout(m=m, cta_group=info.cta_group, sparse=sparse, ws=ws)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        mma.layout = layout
        uses = [("d", operands.d, lambda: layouts.d_footprint(layout, n, layout_c=lc))]
        if operands.a_tmem is not None:
            a = operands.a_tmem
            uses.append(("a", operands.a, lambda: layouts.a_tmem_footprint(
                layout, m=m, k=a.cols, a_bits=element_bits(a.element), sparse=sparse,
                layout_c=lc)))
        scale_vec = self.scale_factors_per_row(op, kind)
        if operands.scale_a is not None and scale_vec is not None:
            uses.append(("scale_a", operands.scale_a, lambda: layouts.scale_factor_footprint(
                rows=m // info.cta_group, scale_vec=scale_vec, operand="A", layout=layout)))
        if operands.scale_b is not None and scale_vec is not None:
            uses.append(("scale_b", operands.scale_b, lambda: layouts.scale_factor_footprint(
                rows=n, scale_vec=scale_vec, operand="B", layout=layout)))
        if operands.metadata is not None:
            uses.append(("metadata", operands.metadata,
                         lambda: layouts.sparse_metadata_footprint(layout, m=m, kind=kind,
                                                                   layout_c=lc)))
        for role, value, footprint in uses:
            owners = traced_buffers(value)
            if owners is None:
                self.error(op, f"the MMA's {role} operand must be a tcgen05.tmem_buffer result, "
                               f"a tcgen05.tmem_stage of one, or a select, branch or loop "
                               f"value that only such values reach")
                continue
            try:
                use = Use(role, layout, footprint(), op)
            except (IsaRuleError, NotImplementedError) as exc:
                self.error(op, f"{role} operand: {exc}")
                continue
            # A value chosen at run time: every buffer it may name is used this way.
            for owner in owners:
                previous = chosen.get(owner)
                if previous is not None and \
                        (previous.role, previous.layout) != (role, layout):
                    what = "this buffer" if len(owners) == 1 else _buffer_name(owner)
                    self.error(op, f"{what} is used as {role} with Layout "
                                   f"{layout} here but as {previous.role} with Layout "
                                   f"{previous.layout} by an earlier MMA; one buffer has one "
                                   f"role and layout")
                    break
                chosen.setdefault(owner, use)

    def record_footprint(self, buffer, use, info) -> None:
        typed = TmemBufferOp(buffer)
        t = d.type_info(typed.buffer.type)
        requested = typed.layout
        if use is not None and requested is not None and requested != use.layout:
            self.error(buffer, f"this buffer asks for Layout {requested} but the MMA at "
                               f"{_where(use.mma)} uses it with Layout {use.layout}")
            return
        if use is None:
            layout = requested or default_layout_for_rows(t.rows, info.cta_group)
            if layout is None:
                self.error(buffer, f"no MMA uses this {t.rows}-row buffer, so its layout "
                                   f"cannot be chosen: give the tcgen05.tmem_buffer a "
                                   f"layout = \"A\"..\"G\" attribute")
                return
            try:
                # No MMA uses it: Table 39's N <= 256 does not apply, only TMEM's width.
                layouts.check_d_shape(layout, m=t.rows, n=t.cols, cta_group=info.cta_group,
                                      layout_c=self.layout_c, mma=False)
                use = Use("d", layout, layouts.d_footprint(layout, t.cols, mma=False,
                                                           layout_c=self.layout_c), None)
            except IsaRuleError as exc:
                self.error(buffer, f"layout = \"{layout}\": {exc}" if requested else str(exc))
                return
        typed.role = use.role
        typed.layout = use.layout
        if use.layout == "C":
            typed.layout_c = self.layout_c
        typed.columns = int(use.footprint.columns)
        typed.half_lanes = all(count == layouts.HALF_LANES for _, count in use.footprint.lanes)
        self.buffers[buffer] = BufferInfo(buffer, use.role, use.layout, self.layout_c,
                                          t.rows, t.cols, t.element)

    # ------------------------------------------------------------------ copies

    def fit_copy(self, op) -> None:
        """The destination of a tcgen05.cp owns every cell the copy writes
        (``layouts.cp_footprint``): a scale-factor or metadata buffer, whose declared shape
        is the MMA's logical matrix, grows to the copy's columns; a buffer whose shape is
        its cells (an accumulator, A) must hold them. A copy into an operand that the MMA
        reads on 16 lanes of each quarter (Layouts F and C read as F) is an error: every
        copy shape but .4x256b writes whole quarters, and none places the operand's rows
        on the lanes such an MMA reads."""
        cp = CpOp(op)
        shape, multicast = cp.shape, cp.multicast
        # The buffers the destination may be (one reported already has no info).
        owners = [(owner, self.buffers.get(owner))
                  for owner in traced_buffers(cp.dest) or ()]
        owners = [(owner, info) for owner, info in owners if info is not None]
        if not owners:
            return
        try:
            copy = layouts.cp_footprint(shape, multicast, column=cp.column)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        for owner, info in owners:
            if not self.fit_copy_into(op, owner, info, copy, shape, multicast):
                return

    def fit_copy_into(self, op, owner, info, copy, shape, multicast) -> bool:
        """Grows or checks one destination buffer of a copy (see fit_copy); False when
        an error was reported."""
        buffer = TmemBufferOp(owner)
        if buffer.half_lanes:
            self.error(op, _half_lane_copy_message(shape, multicast, info))
            return False
        columns = buffer.columns
        if copy.end_column <= columns:
            return True
        if info.role in GROWN_BY_COPIES:
            buffer.columns = int(copy.end_column)
            return True
        self.error(op, f"tcgen05.cp.{shape} at column {copy.first_column} writes columns "
                       f"[{copy.first_column}, {copy.end_column}) of its destination "
                       f"(9.7.16.2.3: {copy.columns} columns per lane), which has only "
                       f"{columns}: the copy would write cells the plan gives to other "
                       f"buffers")
        return False

    def fit_shift(self, op) -> None:
        """tcgen05.shift moves 32-byte elements down one row within 32 lanes from a lane
        aligned to 32 (9.7.16.2.3 ".31x256b (implicit)", 9.7.16.9.3): it touches 8 columns
        on both lane halves of a quarter, so its buffer must have 8 columns and not be a
        half-lane one (the other half may hold another buffer)."""
        for owner in traced_buffers(ShiftOp(op).buffer) or ():
            info = self.buffers.get(owner)
            if info is not None:  # else a buffer already reported
                self.fit_shift_into(op, owner, info)

    def fit_shift_into(self, op, owner, info) -> None:
        """Checks one buffer a tcgen05.shift may move (see fit_shift)."""
        if TmemBufferOp(owner).half_lanes:
            self.error(op, f"tcgen05.shift shifts the 32 lanes from its 32-aligned taddr "
                           f"(9.7.16.9.3), both halves of a quarter, but Layout "
                           f"{info.layout} holds this buffer on 16 lanes of each quarter "
                           f"(9.7.16.10.5): the shift would move the other half, which the "
                           f"plan may give to another buffer")
            return
        columns = TmemBufferOp(owner).columns
        if columns < SHIFT_COLUMNS:
            self.error(op, f"tcgen05.shift moves {SHIFT_COLUMNS} columns (32-byte elements, "
                           f"9.7.16.9.3) but its buffer has {columns}: it would move cells "
                           f"the plan gives to other buffers")

    # ------------------------------------------------------------------ accesses

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
                               f"{_buffer_name(sources[0])} has Layout {info.layout} (role "
                               f"{info.role}) but {_buffer_name(source)} has Layout "
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

    # ------------------------------------------------------------------ fragments

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
                          f"load at {_where(producer)} left it as {access.describe()} "
                          f"(Layout {access.layout})")

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
                           f"one warp's lanes); the load at {_where(producer)} holds it as "
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

    # ------------------------------------------------------------------ budget

    def split_for_budget(self, kernel, accesses, load_fragments) -> None:
        """Rewrites each splittable load -> store pair whose chunk width is below its
        width into a sequence of narrower pairs (module docstring)."""
        positions = BlockPositions(kernel)
        for op in accesses + load_fragments:
            plan = self.plans.get(op)
            if plan is None or StOp.matches(op) or plan.buffer.role == "a":
                continue  # an A store's messages are whole rows of packed columns
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
        self.split_notes.append(f"tcgen05.ld at {_where(load)}: {plan.access.width} columns "
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
        self.split_notes.append(f"tcgen05.st at {_where(store)}: {plan.access.width} columns "
                                f"-> {count} load_fragment/st pairs of {chunk} columns, "
                                f"{access.describe()}{_over_budget(plan, self.strategy)}")
        self.plans.pop(load, None)
        self.plans.pop(store, None)
        store.erase()
        load.erase()

    # ------------------------------------------------------------------ report

    def kernel_layouts(self, info, buffers) -> KernelLayouts:
        """What this kernel's selection decided, as plain data."""
        chosen = []
        for buffer in buffers:
            binfo = self.buffers.get(buffer)
            if binfo is None:
                continue
            typed = TmemBufferOp(buffer)
            chosen.append(BufferLayout(
                typed.name or "tmem_buffer", binfo.rows, binfo.cols,
                binfo.element, binfo.layout, binfo.layout_c, binfo.role,
                typed.columns, bool(typed.half_lanes),
                d.type_info(typed.buffer.type).stages))
        accesses = tuple(AccessMessages(d.op_name(op), _where(op), plan.access.width,
                                        plan.access.describe(), plan.note)
                         for op, plan in self.plans.items())
        return KernelLayouts(info.name, self.strategy.text(), self.layout_c, tuple(chosen),
                             accesses, tuple(self.split_notes))


_KNOWN_ELEMENTS = frozenset({"f32", "f16", "bf16", "i32", "si32", "ui32", "tf32"})


def _where(op) -> str:
    loc = op.location
    return f"line {loc.start_line}" if loc.is_a_file() else "an op"


def _buffer_name(buffer) -> str:
    """How a diagnostic names a tcgen05.tmem_buffer: ``%`` + its ``name``, else where it
    is defined."""
    name = TmemBufferOp(buffer).name
    return f"%{name}" if name else f"the buffer at {_where(buffer)}"


def _mapping(access):
    """What decides which element each register holds (the instruction aside)."""
    return (access.layout, access.layout_c, access.n, access.width, access.shape,
            access.num, access.pack16, access.half_split)


def _same_block(a, b, access) -> bool:
    if a == b:
        return True
    (ca, _), (cb, _) = column_facts(a), column_facts(b)
    return ca is not None and cb is not None and ca // access.block == cb // access.block


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
