"""The tcgen05 dialect: loading, typed accessors and builders.

The ops and types are defined in IRDL (``tcgen05.irdl.mlir`` beside this file), which is
loaded into every context made by :func:`make_context`. IRDL-defined types have no Python
classes, so the accessors here read a type's parameters from its textual form (cached per
distinct type, so a pass stays linear in the number of ops).

Ops (generic syntax, ``"tcgen05.<name>"(...)``):

=========================  ===================================================================
``tmem_buffer``            a logical TMEM buffer ``!tcgen05.tmem<[rows, cols], elt>``; planned:
                           operand = allocation base, attrs ``layout``, ``role``,
                           ``lane_offset``, ``column_offset``, ``columns``, ``half_lanes``
``tmem_stage``             stage `i` ([rows, cols]) of a [stages, rows, cols] TMEM buffer
``smem_buffer``            a shared-memory operand tile ``!tcgen05.smem<[rows, k], elt, major,
                           swizzle>``, or a multi-stage one ``[stages, rows, k]``
``smem_stage``             stage `i` ([rows, K]) of a [stages, rows, K] shared-memory tile
                           (a ring); its address is the tile's + i x the stage's bytes
                           rounded up to the swizzle's alignment
``smem_fill``              cooperative copy global -> shared tile (``src_layout``, ``src_ld``);
                           ``mn_k`` reads 16-byte vectors: src_ld and a constant K offset
                           must be multiples of 16 bytes (tcgen05-verify), the source pointer
                           and a run-time K offset must keep that alignment (unchecked); in
                           a cta_group::2 kernel each CTA fills its slice of the pair's
                           operand (docs/cta-pairs.md); a tile a sparse MMA reads as A is
                           filled from the compressed M x K/2 matrix (9.7.16.10.8)
``tma_load``               TMA copy of a box of a global tensor into a tile (one thread,
                           async proxy, complete_tx on an mbarrier); operands tensor map
                           parameter, tile, mbarrier, coordinates (innermost first); the
                           mbarrier may be left out in roles that write no synchronization
                           (tcgen05-insert-sync writes it in); docs/tma.md
``mbarrier_expect_tx``     mbarrier.arrive.expect_tx by one thread (``bytes``, default: the
                           tiles of the tma_loads that follow it on that mbarrier)
``mma``                    D (+)= A x B; attributes below; trailing TMEM operands scale_a,
                           scale_b (with ``scale_vec``) and metadata (with ``sparse``)
``cp``                     tcgen05.cp shared tile -> TMEM (``shape``, ``multicast``,
                           ``decompress``)
``shift``                  tcgen05.shift.down of every 32-lane quarter of a TMEM buffer, all
                           its columns (one instruction per quarter and 8 columns)
``ld``                     warpgroup load of a TMEM column slice into a ``!tcgen05.frag``;
                           optional ``pack16``; planned: ``shape``, ``num``, ``half_split``
``ld_red``                 ld with a min/max reduction per row (``op``, ``abs``, ``nan``)
``st``                     warpgroup store of a fragment into a TMEM column slice
                           (optional ``unpack16``; planned like ``ld``)
``store_fragment``         fragment -> row-major global matrix (``ld``)
``load_fragment``          row-major global matrix -> fragment (``ld``)
``frag_map``               a fragment computed element by element: a body of arith / math /
                           index ops (and global loads) on each element, its row and column,
                           ending in ``gpu.yield`` (``tcgen05_lower.computed`` says what it
                           may hold)
``alloc_mbarrier``         an mbarrier in shared memory (``count``); with ``stages`` = S a
                           ring of S mbarriers (stage i at 8 i bytes), used through
                           ``mbarrier_stage`` only
``mbarrier_stage``         the mbarrier of stage ``stage`` (an index) of an mbarrier ring
``commit``                 tcgen05.commit.mbarrier::arrive::one (optional ``multicast_mask``)
``mbarrier_wait``          wait for the phase of the given parity (without one: the phase
                           of the most recent commit, counted at run time)
``wait``                   tcgen05.wait::ld / ::st (``kind``)
``fence``                  tcgen05.fence::before_thread_sync / ::after_thread_sync (``kind``)
``fence_proxy_async``      fence.proxy.async.shared::cta
``barrier``                CTA-wide barrier; inside a ``role``, the role's named barrier
                           (``barrier.sync 1 + index, 32 x warps``)
``mbarrier_arrive``        mbarrier.arrive.release.cta by every thread that runs it (of the
                           CTA, or of its role): the mbarrier's ``count`` is the arriving
                           threads x arrivals per phase (docs/partitions.md); in a
                           cta_group::2 kernel ``cta = "even"`` arrives at the even CTA's
                           mbarrier instead (docs/cta-pairs.md)
``partitions``             warp specialization, fork/join: its body holds one ``role`` per
                           role (then ``gpu.yield``); the roles run concurrently, share the
                           values defined before it, and are joined by a CTA barrier
``role``                   one role of a ``partitions``: its region (ending in ``gpu.yield``)
                           runs on warps ``first_warp`` .. ``first_warp + warps - 1`` only
                           (``name``); single-thread ops by its first thread, warpgroup ops
                           only in whole aligned warpgroups (docs/partitions.md)
``alloc``, ``dealloc``,    physical TMEM allocation (``columns``, ``cta_group``), added by
``relinquish_alloc_permit`` tcgen05-plan-tmem
=========================  ===================================================================

Attributes of ``mma`` (all optional except ``kind``), named after the ISA's qualifiers and
instruction-descriptor fields (9.7.16.10.9, Tables 42-45):

=========================  ===================================================================
``kind``                   "f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"
``k_offset``               first K element of the tiles this MMA reads (default 0)
``k``                      96 to select K = 96 (mxf4/mxf4nvf4 on sm_103a); else K is implied
``sparse``                 true for .sp; ``sparsity_selector`` 0-3
``ws``                     true for .ws; ``collector_b`` "b0".."b3", ``collector_b_op``
                           "fill"/"use"/"lastuse"/"discard", ``zero_column_mask`` (the 64-bit
                           descriptor value of Table 45), ``max_shift`` 0/8/16/32
``scale_vec``              "1X", "2X", "4X", "block16", "block32" (.block_scale);
                           ``scale_a_id``, ``scale_b_id`` (default: from ``k_offset``, K block
                           j uses factors j * count.. of each row, 9.7.16.10.7.2)
``collector_a``            "fill", "use", "lastuse", "discard"
``ashift``                 true for .ashift (A in TMEM)
``negate_a``, ``negate_b`` descriptor negate bits
``saturate``               i8 saturation
``scale_input_d``          0-15 (f16/tf32)
``disable_output_lane``    ``array<i32: ...>`` of 4 (cta_group::1) or 8 (cta_group::2) words
=========================  ===================================================================

A kernel is a ``func.func`` with a ``tcgen05.kernel`` dictionary attribute:
``{target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}``; one warpgroup, or, in a
kernel with ``partitions``, whole warps up to 1024 threads.
"""

from __future__ import annotations

import contextlib
import functools
import re
from dataclasses import dataclass
from importlib import resources

from tcgen05_lower.bindings import int_value, ir, irdl
from tcgen05_lower.dialect.attributes import ATTRIBUTES, KERNEL_ENTRIES, KIND_NAMES
from tcgen05_lower.text import did_you_mean, split_top_level

DIALECT = "tcgen05"
KERNEL_ATTR = "tcgen05.kernel"


def irdl_source() -> str:
    """The text of the IRDL definition (tcgen05.irdl.mlir)."""
    return resources.files(__package__).joinpath("tcgen05.irdl.mlir").read_text()


def load_dialect(context: "ir.Context") -> None:
    """Registers the tcgen05 dialect (from its IRDL definition) in `context`."""
    with context, ir.Location.unknown():
        definition = ir.Module.parse(irdl_source())
        irdl.load_dialects(definition)
    # The definition is dropped here, on purpose: a Python Module holds its context, so
    # keeping it anywhere that outlives this call would keep every context alive (Python
    # cannot collect the cycle through the bindings' objects). Loading copies what the
    # verifiers need into the context: IRDL builds each constraint from the definition's
    # ops into objects that hold only context-owned attributes, type IDs and the dialect's
    # own type definitions (mlir/lib/Dialect/IRDL/IRDLLoading.cpp), never the ops.
    del definition


def make_context() -> "ir.Context":
    """A new MLIR context with the upstream dialects and the tcgen05 dialect loaded."""
    context = ir.Context()
    # The Python passes run one at a time anyway, and MLIR refuses IR printing
    # (--mlir-print-ir-after-all) on a multi-threaded context.
    context.enable_multithreading(False)
    load_dialect(context)
    return context


# ---------------------------------------------------------------------------- types

@dataclass(frozen=True)
class TmemType:
    """Parameters of ``!tcgen05.tmem<shape, element>``."""

    shape: tuple[int, ...]
    element: str

    @property
    def rows(self) -> int:
        return self.shape[-2]

    @property
    def cols(self) -> int:
        return self.shape[-1]

    @property
    def stages(self) -> int:
        return self.shape[0] if len(self.shape) == 3 else 1

    def text(self) -> str:
        return f"!tcgen05.tmem<[{', '.join(map(str, self.shape))}], {self.element}>"


@dataclass(frozen=True)
class SmemType:
    """Parameters of ``!tcgen05.smem<shape, element, major, swizzle>``: rows x K, or
    stages x rows x K for a multi-stage tile (a ring, used through ``smem_stage``)."""

    shape: tuple[int, ...]
    element: str
    major: str
    swizzle: str

    @property
    def rows(self) -> int:
        return self.shape[-2]

    @property
    def k(self) -> int:
        return self.shape[-1]

    @property
    def stages(self) -> int:
        """The number of stages: 1 for a [rows, K] tile."""
        return self.shape[0] if len(self.shape) == 3 else 1

    @property
    def staged(self) -> bool:
        """Whether the type is a multi-stage [stages, rows, K] tile."""
        return len(self.shape) == 3

    def stage(self) -> "SmemType":
        """The [rows, K] tile of one stage."""
        return SmemType(self.shape[-2:], self.element, self.major, self.swizzle)

    def text(self) -> str:
        return (f"!tcgen05.smem<[{', '.join(map(str, self.shape))}], {self.element}, "
                f"\"{self.major}\", \"{self.swizzle}\">")


@dataclass(frozen=True)
class FragType:
    """Parameters of ``!tcgen05.frag<shape, element>``."""

    shape: tuple[int, int]
    element: str

    def text(self) -> str:
        return f"!tcgen05.frag<[{self.shape[0]}, {self.shape[1]}], {self.element}>"


_TYPE_RE = re.compile(r"^!tcgen05\.(\w+)(?:<(.*)>)?$")


def _split_params(text: str) -> list[str]:
    """Splits a type's parameter list at top-level commas."""
    try:
        return split_top_level(text, "[<(", "]>)")
    except ValueError as exc:   # unbalanced brackets
        raise TypeParameterError(str(exc)) from None


class TypeParameterError(ValueError):
    """A tcgen05 type whose parameters are not of the dialect's form (a shape that is not a
    list of integers, a missing parameter). tcgen05-verify reports it at the op."""


def _int_list(text: str) -> tuple[int, ...]:
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        raise TypeParameterError(f"shape {stripped} is not a list of integers")
    items = [item.strip() for item in stripped[1:-1].split(",") if item.strip()]
    dims = []
    for item in items:
        # Array elements print as "128 : i64" or "128".
        number, _, kind = item.partition(":")
        kind = kind.strip()
        if not number.strip().lstrip("-").isdigit() or (kind and not kind.startswith(("i", "si", "ui"))) \
                or kind == "i1":
            raise TypeParameterError(
                f"shape {stripped}: dimension {item} is not an integer")
        dims.append(int(number))
    return tuple(dims)


def _params(values: list[str], count: int, name: str) -> list[str]:
    if len(values) != count:
        raise TypeParameterError(f"!tcgen05.{name} takes {count} parameters, got {len(values)}")
    return values


#: How many distinct type texts _parse_type_text remembers: far more than one kernel has,
#: and bounded, so that a process compiling many kernels does not keep them all.
TYPE_CACHE_SIZE = 4096


@functools.lru_cache(maxsize=TYPE_CACHE_SIZE)
def _parse_type_text(text: str):
    match = _TYPE_RE.match(text)
    if not match:
        return None
    name, params = match.group(1), match.group(2)
    if name == "mbarrier":
        return "mbarrier"
    values = _split_params(params or "")
    if name == "tmem":
        values = _params(values, 2, name)
        shape = _shape(values[0], (2, 3), "TMEM buffer shape",
                       "[rows, columns] or [stages, rows, columns]")
        return TmemType(shape, values[1].strip())
    if name == "smem":
        values = _params(values, 4, name)
        shape = _shape(values[0], (2, 3), "shared-memory tile shape",
                       "[rows, K] or [stages, rows, K]")
        major, swizzle = values[2].strip().strip('"'), values[3].strip().strip('"')
        if major not in MAJORS:
            raise TypeParameterError(f"major-ness \"{major}\" is not \"K\" or \"MN\" "
                                     "(9.7.16.3)" + did_you_mean(major, MAJORS))
        if swizzle not in SWIZZLES:
            raise TypeParameterError(f"swizzle \"{swizzle}\" is not one of "
                                     f"{', '.join(SWIZZLES)} (Table 40)"
                                     + did_you_mean(swizzle, SWIZZLES))
        return SmemType(shape, values[1].strip(), major, swizzle)
    if name == "frag":
        values = _params(values, 2, name)
        return FragType(_shape(values[0], (2,), "fragment shape", "[rows, columns]"),
                        values[1].strip())
    return None


#: Major-ness of a shared-memory tile (9.7.16.3) and its swizzling modes (Table 40).
MAJORS = ("K", "MN")
SWIZZLES = ("none", "32B", "64B", "128B", "128B_base32B")


def _shape(text: str, ranks: tuple[int, ...], what: str, form: str) -> tuple[int, ...]:
    """The integer shape `text` of a type, of one of the `ranks` and positive."""
    shape = _int_list(text)
    if len(shape) not in ranks:
        raise TypeParameterError(f"{what} {list(shape)} must be {form}")
    if min(shape) <= 0:
        raise TypeParameterError(f"{what} {list(shape)} must be positive")
    return shape


#: The attribute of an ir.Context under which type_memo keeps type_info's answers.
_MEMO_ATTRIBUTE = "_tcgen05_type_info_memo"


@contextlib.contextmanager
def type_memo(context: "ir.Context"):
    """While the block runs (a pass run, pass_infra.PassRun.execute), type_info remembers
    its answers by type object in `context`: printing a type costs far more than a lookup,
    and a pass asks about the same few types thousands of times. MLIR uniques types within
    a context, so equal keys are the same type. The memo hangs on the context and is
    dropped when the outermost block ends (its keys refer to the context: nothing of it
    outlives the run, and no module-level state is kept)."""
    if getattr(context, _MEMO_ATTRIBUTE, None) is not None:
        yield
        return
    setattr(context, _MEMO_ATTRIBUTE, {})
    try:
        yield
    finally:
        delattr(context, _MEMO_ATTRIBUTE)


def type_info(type_: "ir.Type"):
    """The parameters of a tcgen05 type (TmemType, SmemType, FragType, "mbarrier"), or
    None for a type of another dialect."""
    memo = getattr(getattr(type_, "context", None), _MEMO_ATTRIBUTE, None)
    if memo is None:
        return _parse_type_text(str(type_))
    info = memo.get(type_, memo)
    if info is memo:   # not asked before in this run
        info = memo[type_] = _parse_type_text(str(type_))
    return info


def is_tmem(value: "ir.Value") -> bool:
    return isinstance(type_info(value.type), TmemType)


def is_smem(value: "ir.Value") -> bool:
    return isinstance(type_info(value.type), SmemType)


def frag_type(shape, element: str) -> "ir.Type":
    return ir.Type.parse(FragType(tuple(shape), element).text())


def mbarrier_type() -> "ir.Type":
    return ir.Type.parse("!tcgen05.mbarrier")


# ---------------------------------------------------------------------------- attributes

def op_name(op) -> str | None:
    """The tcgen05 op name without prefix ("mma"), or None for other dialects' ops."""
    name = op.name
    return name[len(DIALECT) + 1:] if name.startswith(DIALECT + ".") else None


class InvalidAttribute(ValueError):
    """An attribute of an op (or an entry of ``tcgen05.kernel``) of the wrong kind: the
    passes and the driver report it as a located error at ``op``."""

    def __init__(self, op, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def wrong_kind(name: str, attr, kind: str) -> str | None:
    """The diagnostic for attribute `name` = `attr` if it is not of `kind`, else None."""
    if kind == "strs":
        if isinstance(attr, ir.ArrayAttr) and all(isinstance(x, ir.StringAttr) for x in attr):
            return None
        return f"attribute {name} = {attr} must be {KIND_NAMES[kind]}"
    ok = {"int": (ir.IntegerAttr, ir.BoolAttr), "str": (ir.StringAttr,),
          "i32s": (ir.DenseI32ArrayAttr,)}[kind]
    if isinstance(attr, ok):
        return None
    return f"attribute {name} = {attr} must be {KIND_NAMES[kind]}"


@dataclass(frozen=True)
class KernelInfo:
    """The ``tcgen05.kernel`` attribute of a kernel function."""

    name: str
    target: str
    threads: int
    cta_group: int
    #: The launch's grid, one expression per dimension (``attributes.KERNEL_ENTRIES``).
    grid: tuple = ()
    #: The cluster's CTAs along x and y as written (empty: not written).
    cluster: tuple = ()

    @property
    def cluster_dims(self) -> tuple:
        """The cluster's CTAs along x, y and z: as written (z = 1), else the CTA pair of
        a cta_group::2 kernel along x (9.7.16.5.1), else one CTA."""
        if self.cluster:
            return (tuple(self.cluster) + (1, 1))[:3]
        return (self.cta_group, 1, 1)

    @property
    def cluster_ctas(self) -> int:
        x, y, z = self.cluster_dims
        return x * y * z


def is_kernel(op) -> bool:
    return op.name == "func.func" and KERNEL_ATTR in op.attributes


def kernel_info(func_op) -> KernelInfo:
    """Reads a kernel's ``tcgen05.kernel`` dictionary (defaults: sm_100a, 128 threads,
    cta_group 1). Raises InvalidAttribute for anything but a dictionary of the entries
    ``KERNEL_ENTRIES`` lists, each of its kind."""
    raw = func_op.attributes[KERNEL_ATTR]
    if not isinstance(raw, ir.DictAttr):
        raise InvalidAttribute(func_op, f"{KERNEL_ATTR} = {raw} must be a dictionary such as "
                                        '{target = "sm_100a", threads = 128 : i64, '
                                        "cta_group = 1 : i64}")
    attr = ir.DictAttr(raw)
    for i in range(len(attr)):
        key = attr[i].name
        if key not in KERNEL_ENTRIES:
            raise InvalidAttribute(func_op, f"{KERNEL_ATTR} has no entry {key!r} (its entries: "
                                            f"{', '.join(KERNEL_ENTRIES)})"
                                            + did_you_mean(key, KERNEL_ENTRIES))

    def entry(key):
        kind, default = KERNEL_ENTRIES[key]
        if key not in attr:
            return default
        value = attr[key]
        problem = wrong_kind(f"{KERNEL_ATTR}.{key}", value, kind)
        if problem or isinstance(value, ir.BoolAttr):
            raise InvalidAttribute(func_op, problem or f"attribute {KERNEL_ATTR}.{key} = "
                                                       f"{value} must be an integer")
        if kind == "str":
            return ir.StringAttr(value).value
        if kind == "strs":
            return tuple(ir.StringAttr(x).value for x in ir.ArrayAttr(value))
        if kind == "i32s":
            return tuple(ir.DenseI32ArrayAttr(value))
        return int_value(value)

    name = ir.StringAttr(func_op.attributes["sym_name"]).value
    return KernelInfo(name, entry("target"), entry("threads"), entry("cta_group"),
                      entry("grid"), entry("cluster"))


def set_kernel_target(func_op, target: str) -> None:
    """Rewrites the kernel's target (used by the driver's --arch)."""
    kernel_info(func_op)   # checks the dictionary's form
    old = ir.DictAttr(func_op.attributes[KERNEL_ATTR])
    entries = {old[i].name: old[i].attr for i in range(len(old))}
    entries["target"] = ir.StringAttr.get(target)   # the other entries as written
    func_op.attributes[KERNEL_ATTR] = ir.DictAttr.get(entries)


def kernels(module_op) -> list:
    """The kernel functions of a module, in order."""
    return [op.operation for op in module_op.regions[0].blocks[0].operations
            if is_kernel(op.operation)]


def walk_ops(op):
    """Yields every operation nested in `op` (not `op` itself), in pre-order."""
    yield from _walk_regions(op.regions)


def _walk_regions(regions):
    """walk_ops over `regions`; an op without regions (most of them) costs no generator."""
    for region in regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                yield inner
                nested = inner.regions
                if len(nested):
                    yield from _walk_regions(nested)
