"""Typed classes of the tcgen05 ops. GENERATED from tcgen05.irdl.mlir and
attributes.py by ``python -m tcgen05_lower.dialect.generate``: do not edit.

Each class wraps a generic ``ir.Operation`` of its op (``MmaOp(op).k_offset``), tests
one (``MmaOp.matches(op)``) and builds one (``MmaOp.build(d=..., kind=...)``); see
op_base.py."""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower.dialect.op_base import DIALECT, Attribute, Tcgen05Op



class TmemBufferOp(Tcgen05Op):
    """tcgen05.tmem_buffer."""

    NAME = "tmem_buffer"
    OPERANDS = (('base', 'optional'),)
    RESULTS = (('buffer', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def base(self):
        """The optional operand base."""
        return self.operand(0)

    @property
    def buffer(self):
        """The single result buffer."""
        return self.result(0)

    alias = Attribute("alias")  # str
    alias_column = Attribute("alias_column")  # int, default 0
    column_offset = Attribute("column_offset")  # int
    columns = Attribute("columns")  # int
    half_lanes = Attribute("half_lanes")  # int, default 0
    lane_offset = Attribute("lane_offset")  # int
    layout = Attribute("layout")  # str
    layout_c = Attribute("layout_c")  # str
    name = Attribute("name")  # str
    role = Attribute("role")  # str
    stage_layout = Attribute("stage_layout")  # str
    stage_stride = Attribute("stage_stride")  # int


class TmemStageOp(Tcgen05Op):
    """tcgen05.tmem_stage."""

    NAME = "tmem_stage"
    OPERANDS = (('buffer', 'single'), ('stage', 'single'))
    RESULTS = (('view', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def buffer(self):
        """The single operand buffer."""
        return self.operand(0)

    @property
    def stage(self):
        """The single operand stage."""
        return self.operand(1)

    @property
    def view(self):
        """The single result view."""
        return self.result(0)

    columns = Attribute("columns")  # int
    half_lanes = Attribute("half_lanes")  # int, default 0
    layout = Attribute("layout")  # str
    role = Attribute("role")  # str


class SmemBufferOp(Tcgen05Op):
    """tcgen05.smem_buffer."""

    NAME = "smem_buffer"
    OPERANDS = ()
    RESULTS = (('buffer', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def buffer(self):
        """The single result buffer."""
        return self.result(0)


class SmemStageOp(Tcgen05Op):
    """tcgen05.smem_stage."""

    NAME = "smem_stage"
    OPERANDS = (('tile', 'single'), ('stage', 'single'))
    RESULTS = (('view', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def tile(self):
        """The single operand tile."""
        return self.operand(0)

    @property
    def stage(self):
        """The single operand stage."""
        return self.operand(1)

    @property
    def view(self):
        """The single result view."""
        return self.result(0)


class SmemFillOp(Tcgen05Op):
    """tcgen05.smem_fill."""

    NAME = "smem_fill"
    OPERANDS = (('source', 'single'), ('tile', 'single'), ('k_offset', 'single'), ('dim_values', 'variadic'))
    RESULTS = ()
    REQUIRED = ('src_layout',)
    __slots__ = ()

    @property
    def source(self):
        """The single operand source."""
        return self.operand(0)

    @property
    def tile(self):
        """The single operand tile."""
        return self.operand(1)

    @property
    def k_offset(self):
        """The single operand k_offset."""
        return self.operand(2)

    @property
    def dim_values(self):
        """The variadic operand dim_values."""
        return self.operand(3)

    dims = Attribute("dims")  # strs, default ()
    src_layout = Attribute("src_layout")  # str
    src_ld = Attribute("src_ld")  # int


class TmaLoadOp(Tcgen05Op):
    """tcgen05.tma_load."""

    NAME = "tma_load"
    OPERANDS = (('tensor_map', 'single'), ('tile', 'single'), ('barrier', 'single'), ('coordinates', 'variadic'))
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def tensor_map(self):
        """The single operand tensor_map."""
        return self.operand(0)

    @property
    def tile(self):
        """The single operand tile."""
        return self.operand(1)

    @property
    def barrier(self):
        """The single operand barrier."""
        return self.operand(2)

    @property
    def coordinates(self):
        """The variadic operand coordinates."""
        return self.operand(3)

    multicast = Attribute("multicast")  # str


class MbarrierExpectTxOp(Tcgen05Op):
    """tcgen05.mbarrier_expect_tx."""

    NAME = "mbarrier_expect_tx"
    OPERANDS = (('barrier', 'single'),)
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def barrier(self):
        """The single operand barrier."""
        return self.operand(0)

    bytes = Attribute("bytes")  # int
    reason = Attribute("reason")  # str


class MmaOp(Tcgen05Op):
    """tcgen05.mma."""

    NAME = "mma"
    OPERANDS = (('d', 'single'), ('a', 'single'), ('b', 'single'), ('enable_input_d', 'single'), ('scale_a', 'optional'), ('scale_b', 'optional'), ('metadata', 'optional'))
    RESULTS = ()
    REQUIRED = ('kind',)
    __slots__ = ()

    @property
    def d(self):
        """The single operand d."""
        return self.operand(0)

    @property
    def a(self):
        """The single operand a."""
        return self.operand(1)

    @property
    def b(self):
        """The single operand b."""
        return self.operand(2)

    @property
    def enable_input_d(self):
        """The single operand enable_input_d."""
        return self.operand(3)

    @property
    def scale_a(self):
        """The optional operand scale_a."""
        return self.operand(4)

    @property
    def scale_b(self):
        """The optional operand scale_b."""
        return self.operand(5)

    @property
    def metadata(self):
        """The optional operand metadata."""
        return self.operand(6)

    ashift = Attribute("ashift")  # int, default 0
    collector_a = Attribute("collector_a")  # str, default 'discard'
    collector_b = Attribute("collector_b")  # str, default 'b0'
    collector_b_op = Attribute("collector_b_op")  # str, default 'discard'
    disable_output_lane = Attribute("disable_output_lane")  # i32s
    k = Attribute("k")  # int
    k_offset = Attribute("k_offset")  # int, default 0
    kind = Attribute("kind")  # str
    layout = Attribute("layout")  # str
    max_shift = Attribute("max_shift")  # int, default 0
    negate_a = Attribute("negate_a")  # int, default 0
    negate_b = Attribute("negate_b")  # int, default 0
    saturate = Attribute("saturate")  # int, default 0
    scale_a_id = Attribute("scale_a_id")  # int
    scale_b_id = Attribute("scale_b_id")  # int
    scale_input_d = Attribute("scale_input_d")  # int
    scale_vec = Attribute("scale_vec")  # str
    sparse = Attribute("sparse")  # int, default 0
    sparsity_selector = Attribute("sparsity_selector")  # int, default 0
    ws = Attribute("ws")  # int, default 0
    zero_column_mask = Attribute("zero_column_mask")  # int


class CpOp(Tcgen05Op):
    """tcgen05.cp."""

    NAME = "cp"
    OPERANDS = (('dest', 'single'), ('source', 'single'))
    RESULTS = ()
    REQUIRED = ('shape',)
    __slots__ = ()

    @property
    def dest(self):
        """The single operand dest."""
        return self.operand(0)

    @property
    def source(self):
        """The single operand source."""
        return self.operand(1)

    column = Attribute("column")  # int, default 0
    decompress = Attribute("decompress")  # str
    multicast = Attribute("multicast")  # str
    shape = Attribute("shape")  # str


class ShiftOp(Tcgen05Op):
    """tcgen05.shift."""

    NAME = "shift"
    OPERANDS = (('buffer', 'single'),)
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def buffer(self):
        """The single operand buffer."""
        return self.operand(0)


class LdOp(Tcgen05Op):
    """tcgen05.ld."""

    NAME = "ld"
    OPERANDS = (('source', 'single'), ('column', 'single'))
    RESULTS = (('fragment', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def source(self):
        """The single operand source."""
        return self.operand(0)

    @property
    def column(self):
        """The single operand column."""
        return self.operand(1)

    @property
    def fragment(self):
        """The single result fragment."""
        return self.result(0)

    half_split = Attribute("half_split")  # int
    num = Attribute("num")  # int
    pack16 = Attribute("pack16")  # int, default 0
    shape = Attribute("shape")  # str


class StoreFragmentOp(Tcgen05Op):
    """tcgen05.store_fragment."""

    NAME = "store_fragment"
    OPERANDS = (('fragment', 'single'), ('dest', 'single'), ('column', 'single'), ('dim_values', 'variadic'))
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def fragment(self):
        """The single operand fragment."""
        return self.operand(0)

    @property
    def dest(self):
        """The single operand dest."""
        return self.operand(1)

    @property
    def column(self):
        """The single operand column."""
        return self.operand(2)

    @property
    def dim_values(self):
        """The variadic operand dim_values."""
        return self.operand(3)

    dims = Attribute("dims")  # strs, default ()
    ld = Attribute("ld")  # int


class LdRedOp(Tcgen05Op):
    """tcgen05.ld_red."""

    NAME = "ld_red"
    OPERANDS = (('source', 'single'), ('column', 'single'))
    RESULTS = (('fragment', 'single'), ('reduced', 'single'))
    REQUIRED = ('op',)
    __slots__ = ()

    @property
    def source(self):
        """The single operand source."""
        return self.operand(0)

    @property
    def column(self):
        """The single operand column."""
        return self.operand(1)

    @property
    def fragment(self):
        """The single result fragment."""
        return self.result(0)

    @property
    def reduced(self):
        """The single result reduced."""
        return self.result(1)

    abs = Attribute("abs")  # int, default 0
    half_split = Attribute("half_split")  # int
    nan = Attribute("nan")  # int, default 0
    num = Attribute("num")  # int
    op = Attribute("op")  # str
    shape = Attribute("shape")  # str


class StOp(Tcgen05Op):
    """tcgen05.st."""

    NAME = "st"
    OPERANDS = (('dest', 'single'), ('column', 'single'), ('fragment', 'single'))
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def dest(self):
        """The single operand dest."""
        return self.operand(0)

    @property
    def column(self):
        """The single operand column."""
        return self.operand(1)

    @property
    def fragment(self):
        """The single operand fragment."""
        return self.operand(2)

    half_split = Attribute("half_split")  # int
    num = Attribute("num")  # int
    shape = Attribute("shape")  # str
    unpack16 = Attribute("unpack16")  # int, default 0


class FragMapOp(Tcgen05Op):
    """tcgen05.frag_map."""

    NAME = "frag_map"
    OPERANDS = (('inputs', 'variadic'),)
    RESULTS = (('mapped', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def inputs(self):
        """The variadic operand inputs."""
        return self.operand(0)

    @property
    def mapped(self):
        """The single result mapped."""
        return self.result(0)


class FragReduceOp(Tcgen05Op):
    """tcgen05.frag_reduce."""

    NAME = "frag_reduce"
    OPERANDS = (('fragment', 'single'),)
    RESULTS = (('reduced', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def fragment(self):
        """The single operand fragment."""
        return self.operand(0)

    @property
    def reduced(self):
        """The single result reduced."""
        return self.result(0)

    kind = Attribute("kind")  # str


class FragBroadcastOp(Tcgen05Op):
    """tcgen05.frag_broadcast."""

    NAME = "frag_broadcast"
    OPERANDS = (('rows', 'single'), ('like', 'single'))
    RESULTS = (('broadcast', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def rows(self):
        """The single operand rows."""
        return self.operand(0)

    @property
    def like(self):
        """The single operand like."""
        return self.operand(1)

    @property
    def broadcast(self):
        """The single result broadcast."""
        return self.result(0)


class FragVoteOp(Tcgen05Op):
    """tcgen05.frag_vote."""

    NAME = "frag_vote"
    OPERANDS = (('rows', 'single'),)
    RESULTS = (('vote', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def rows(self):
        """The single operand rows."""
        return self.operand(0)

    @property
    def vote(self):
        """The single result vote."""
        return self.result(0)

    kind = Attribute("kind")  # str


class LoadFragmentOp(Tcgen05Op):
    """tcgen05.load_fragment."""

    NAME = "load_fragment"
    OPERANDS = (('source', 'single'), ('column', 'single'), ('dim_values', 'variadic'))
    RESULTS = (('fragment', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def source(self):
        """The single operand source."""
        return self.operand(0)

    @property
    def column(self):
        """The single operand column."""
        return self.operand(1)

    @property
    def dim_values(self):
        """The variadic operand dim_values."""
        return self.operand(2)

    @property
    def fragment(self):
        """The single result fragment."""
        return self.result(0)

    dims = Attribute("dims")  # strs, default ()
    half_split = Attribute("half_split")  # int
    ld = Attribute("ld")  # int
    num = Attribute("num")  # int
    pack16 = Attribute("pack16")  # int, default 0
    shape = Attribute("shape")  # str


class AllocMbarrierOp(Tcgen05Op):
    """tcgen05.alloc_mbarrier."""

    NAME = "alloc_mbarrier"
    OPERANDS = ()
    RESULTS = (('barrier', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def barrier(self):
        """The single result barrier."""
        return self.result(0)

    count = Attribute("count")  # int, default 1
    reason = Attribute("reason")  # str
    stages = Attribute("stages")  # int


class MbarrierStageOp(Tcgen05Op):
    """tcgen05.mbarrier_stage."""

    NAME = "mbarrier_stage"
    OPERANDS = (('ring', 'single'), ('stage', 'single'))
    RESULTS = (('barrier', 'single'),)
    REQUIRED = ()
    __slots__ = ()

    @property
    def ring(self):
        """The single operand ring."""
        return self.operand(0)

    @property
    def stage(self):
        """The single operand stage."""
        return self.operand(1)

    @property
    def barrier(self):
        """The single result barrier."""
        return self.result(0)


class CommitOp(Tcgen05Op):
    """tcgen05.commit."""

    NAME = "commit"
    OPERANDS = (('barrier', 'single'),)
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def barrier(self):
        """The single operand barrier."""
        return self.operand(0)

    multicast_mask = Attribute("multicast_mask")  # int
    reason = Attribute("reason")  # str


class MbarrierWaitOp(Tcgen05Op):
    """tcgen05.mbarrier_wait."""

    NAME = "mbarrier_wait"
    OPERANDS = (('barrier', 'single'), ('phase', 'optional'))
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def barrier(self):
        """The single operand barrier."""
        return self.operand(0)

    @property
    def phase(self):
        """The optional operand phase."""
        return self.operand(1)

    reason = Attribute("reason")  # str


class WaitOp(Tcgen05Op):
    """tcgen05.wait."""

    NAME = "wait"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ('kind',)
    __slots__ = ()

    kind = Attribute("kind")  # str
    reason = Attribute("reason")  # str


class FenceOp(Tcgen05Op):
    """tcgen05.fence."""

    NAME = "fence"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ('kind',)
    __slots__ = ()

    kind = Attribute("kind")  # str
    reason = Attribute("reason")  # str


class FenceProxyAsyncOp(Tcgen05Op):
    """tcgen05.fence_proxy_async."""

    NAME = "fence_proxy_async"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    reason = Attribute("reason")  # str


class BarrierOp(Tcgen05Op):
    """tcgen05.barrier."""

    NAME = "barrier"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    reason = Attribute("reason")  # str


class MbarrierArriveOp(Tcgen05Op):
    """tcgen05.mbarrier_arrive."""

    NAME = "mbarrier_arrive"
    OPERANDS = (('barrier', 'single'),)
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    @property
    def barrier(self):
        """The single operand barrier."""
        return self.operand(0)

    cta = Attribute("cta")  # str
    reason = Attribute("reason")  # str


class PartitionsOp(Tcgen05Op):
    """tcgen05.partitions."""

    NAME = "partitions"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()


class RoleOp(Tcgen05Op):
    """tcgen05.role."""

    NAME = "role"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ()
    __slots__ = ()

    first_warp = Attribute("first_warp")  # int
    name = Attribute("name")  # str
    warps = Attribute("warps")  # int


class AllocOp(Tcgen05Op):
    """tcgen05.alloc."""

    NAME = "alloc"
    OPERANDS = ()
    RESULTS = (('address', 'single'),)
    REQUIRED = ('columns', 'cta_group')
    __slots__ = ()

    @property
    def address(self):
        """The single result address."""
        return self.result(0)

    columns = Attribute("columns")  # int
    cta_group = Attribute("cta_group")  # int


class DeallocOp(Tcgen05Op):
    """tcgen05.dealloc."""

    NAME = "dealloc"
    OPERANDS = (('address', 'single'),)
    RESULTS = ()
    REQUIRED = ('columns', 'cta_group')
    __slots__ = ()

    @property
    def address(self):
        """The single operand address."""
        return self.operand(0)

    columns = Attribute("columns")  # int
    cta_group = Attribute("cta_group")  # int


class RelinquishAllocPermitOp(Tcgen05Op):
    """tcgen05.relinquish_alloc_permit."""

    NAME = "relinquish_alloc_permit"
    OPERANDS = ()
    RESULTS = ()
    REQUIRED = ('cta_group',)
    __slots__ = ()

    cta_group = Attribute("cta_group")  # int


#: Every op class by op name (without ``tcgen05.``).
OPS = MappingProxyType({cls.NAME: cls for cls in (
    TmemBufferOp,
    TmemStageOp,
    SmemBufferOp,
    SmemStageOp,
    SmemFillOp,
    TmaLoadOp,
    MbarrierExpectTxOp,
    MmaOp,
    CpOp,
    ShiftOp,
    LdOp,
    StoreFragmentOp,
    LdRedOp,
    StOp,
    FragMapOp,
    FragReduceOp,
    FragBroadcastOp,
    FragVoteOp,
    LoadFragmentOp,
    AllocMbarrierOp,
    MbarrierStageOp,
    CommitOp,
    MbarrierWaitOp,
    WaitOp,
    FenceOp,
    FenceProxyAsyncOp,
    BarrierOp,
    MbarrierArriveOp,
    PartitionsOp,
    RoleOp,
    AllocOp,
    DeallocOp,
    RelinquishAllocPermitOp,
)})


def wrap(op):
    """The typed view of `op` (an instance of its op's class), or None for an op of
    another dialect: for code that reads one attribute across several ops."""
    op = op.operation if hasattr(op, "operation") else op
    name = op.name
    prefix = DIALECT + "."
    cls = OPS.get(name[len(prefix):]) if name.startswith(prefix) else None
    return cls(op) if cls is not None else None
