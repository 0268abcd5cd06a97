"""TMA loads in the IR: the tensor-map parameters and which expect_tx covers which load.

A ``tcgen05.tma_load`` names a kernel parameter (``!llvm.ptr<1>``: the global address of a
64-byte aligned CUtensorMap, docs/tma.md) whose argument attribute
``tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}``
says what the map describes: the array parameter it was encoded for, the box (innermost
dimension first, as ``cuTensorMapEncodeTiled`` and PTX order them) and the swizzle mode.
The box is a whole tile: a K-major tile of R rows and K elements is the box {K, R}, an
MN-major one {R, K}; only tiles whose contiguous extent is exactly one swizzle span (32,
64 or 128 bytes) are loaded that way, since then the tile's layout (9.7.16.3.3, Table 41)
is the layout TMA writes for that box and swizzle mode (PTX ISA 5.5.6, tensor swizzling
modes).

An ``mbarrier_expect_tx`` covers the tma_loads that follow it on the same mbarrier in its
block, up to the next expect_tx, mbarrier_wait or commit on that mbarrier: one walk of
each block (``cover``).

A load's operands after the tile are its mbarrier, then its coordinates; a kernel with
warp roles that writes no synchronization leaves the mbarrier out, and
tcgen05-insert-sync writes it in (``with_barrier``). Operand 2's type says which form an
op has (``load_barrier``, ``load_coordinates``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (CommitOp, MbarrierExpectTxOp, MbarrierWaitOp,
                                       TmaLoadOp)
from tcgen05_lower.element_types import element_bits, isa_bits
from tcgen05_lower.text import did_you_mean

#: The argument attribute of a tensor-map parameter.
TENSOR_MAP_ATTR = "tcgen05.tensor_map"
#: Swizzle mode -> bytes of one swizzled row (the span whose 16-byte chunks it permutes).
SWIZZLE_SPAN = MappingProxyType({"32B": 32, "64B": 64, "128B": 128})
#: A box dimension is at most 256 elements (cuTensorMapEncodeTiled's boxDim limit).
MAX_BOX = 256


@dataclass(frozen=True)
class TensorMapSpec:
    """What a tensor-map parameter's attribute says (None where missing or malformed)."""
    tensor: str | None
    box: tuple | None
    swizzle: str | None
    problems: tuple = ()

    def as_manifest(self) -> dict:
        return {"tensor": self.tensor, "box": list(self.box or ()), "swizzle": self.swizzle}


def _is_mbarrier(value) -> bool:
    return str(value.type) == "!tcgen05.mbarrier"


def load_barrier(op):
    """The mbarrier operand of a tcgen05.tma_load, or None when it has none (yet)."""
    first = TmaLoadOp(op).barrier
    return first if _is_mbarrier(first) else None


def load_coordinates(op) -> list:
    """The coordinate operands of a tcgen05.tma_load (innermost first)."""
    load = TmaLoadOp(op)
    first = load.barrier
    return list(load.coordinates) if _is_mbarrier(first) else [first, *load.coordinates]


def with_barrier(op, barrier) -> "ir.Operation":
    """A tcgen05.tma_load without an mbarrier rewritten with `barrier` (a new op in its
    place, its attributes and location kept); returns the new op."""
    load = TmaLoadOp(op)
    coordinates = load_coordinates(op)
    with ir.InsertionPoint(op), op.location:
        new = TmaLoadOp.build(tensor_map=load.tensor_map, tile=load.tile,
                              barrier=barrier, coordinates=coordinates,
                              attributes={name: op.attributes[name]
                                          for name in op.attributes})
    op.erase()
    return new


def barrierless_load(kernel):
    """The first tcgen05.tma_load of `kernel` that names no mbarrier, else None."""
    for op in d.walk_ops(kernel):
        if TmaLoadOp.matches(op) and load_barrier(op) is None:
            return op
    return None


#: What a pass that needs every TMA load's mbarrier says of one that has none.
BARRIERLESS = ("this tcgen05.tma_load names no mbarrier: only tcgen05-insert-sync "
               "(strategy minimal or conservative, in a kernel with warp roles that "
               "writes no synchronization) chooses one; write the mbarrier operand "
               "(after the tile) when the kernel writes its own synchronization "
               "(docs/tma.md)")


def _argument_attributes(value):
    """(kernel, index, DictAttr or None) of a kernel's entry-block argument, else None."""
    if not isinstance(value, ir.BlockArgument):
        return None
    block = value.owner
    parent = block.owner
    parent = parent.operation if hasattr(parent, "operation") else parent
    if parent is None or not d.is_kernel(parent) or \
            block != parent.regions[0].blocks[0]:
        return None
    index = value.arg_number
    attrs = None
    if "arg_attrs" in parent.attributes:
        attrs = ir.DictAttr(ir.ArrayAttr(parent.attributes["arg_attrs"])[index])
    return parent, index, attrs


def parameter_spec(attrs) -> TensorMapSpec | None:
    """The tensor-map description of an argument's attribute dictionary, or None when it
    has no ``tcgen05.tensor_map``."""
    if attrs is None or TENSOR_MAP_ATTR not in attrs:
        return None
    entry = attrs[TENSOR_MAP_ATTR]
    if not isinstance(entry, ir.DictAttr):
        try:
            entry = ir.DictAttr(entry)
        except ValueError:
            return TensorMapSpec(None, None, None, (f"{TENSOR_MAP_ATTR} is not a dictionary",))
    problems, tensor, box, swizzle = [], None, None, None
    names = {entry[i].name for i in range(len(entry))}
    for extra in sorted(names - {"tensor", "box", "swizzle"}):
        problems.append(f"{TENSOR_MAP_ATTR} has no entry {extra!r} (tensor, box, swizzle)"
                        + did_you_mean(extra, ("tensor", "box", "swizzle")))
    try:
        tensor = ir.StringAttr(entry["tensor"]).value
    except (KeyError, ValueError):
        problems.append(f"{TENSOR_MAP_ATTR}.tensor must be a string naming the array "
                        "parameter the map describes")
    try:
        box = tuple(int(x) for x in ir.DenseI64ArrayAttr(entry["box"]))
    except (KeyError, ValueError):
        problems.append(f"{TENSOR_MAP_ATTR}.box must be an array<i64: inner, outer>")
    try:
        swizzle = ir.StringAttr(entry["swizzle"]).value
    except (KeyError, ValueError):
        problems.append(f"{TENSOR_MAP_ATTR}.swizzle must be a string "
                        "(\"128B\", \"64B\" or \"32B\")")
    return TensorMapSpec(tensor, box, swizzle, tuple(problems))


def tensor_map_of(value) -> TensorMapSpec | None:
    """The tensor-map description of the kernel parameter `value`, or None when `value` is
    not a kernel parameter with a ``tcgen05.tensor_map`` attribute."""
    found = _argument_attributes(value)
    return None if found is None else parameter_spec(found[2])


def kernel_tensor_maps(kernel) -> dict[int, TensorMapSpec]:
    """Argument index -> description, for every tensor-map parameter of `kernel`."""
    out = {}
    if "arg_attrs" not in kernel.attributes:
        return out
    for i, attrs in enumerate(ir.ArrayAttr(kernel.attributes["arg_attrs"])):
        spec = parameter_spec(ir.DictAttr(attrs))
        if spec is not None:
            out[i] = spec
    return out


#: The kinds whose MMAs read 4-bit elements packed two per byte (9.7.16.10.4.6); the
#: others (kind::f8f6f4, mxf8f6f4) read them in 8-bit containers (9.7.16.10.4.4).
PACKED_KINDS = ("mxf4", "mxf4nvf4")


def _readers_unpacked(tile_value) -> list:
    """The MMAs that read the tile (or another stage of its ring) in 8-bit containers:
    one walk of the uses of the tile's ring and of its stage views."""
    from tcgen05_lower.dialect.ops import MmaOp, SmemStageOp
    from tcgen05_lower.kernel_ir import defining_op

    view = defining_op(tile_value)
    root = SmemStageOp(view).tile if view is not None and SmemStageOp.matches(view) \
        else tile_value
    found, values = [], [root]
    for use in root.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if SmemStageOp.matches(owner):
            values.append(owner.results[0])
    for value in values:
        for use in value.uses:
            owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if MmaOp.matches(owner) and MmaOp(owner).kind not in PACKED_KINDS:
                found.append(owner)
    return found


def load_bits(t) -> int:
    """Bits per element that a TMA load writes of a tile (``d.type_info``): 4-bit elements
    packed two per byte, as the block-scaled kinds kind::mxf4 / mxf4nvf4 read them
    (``tile_problem`` refuses a 4-bit tile that another kind reads)."""
    bits = element_bits(t.element)
    try:
        return 4 if isa_bits(t.element) == 4 else bits
    except KeyError:
        return bits


def tile_bytes(tile_value) -> int:
    t = d.type_info(tile_value.type)
    return t.rows * t.k * load_bits(t) // 8


def tile_box(tile_value) -> tuple[int, int]:
    """The box that is exactly the tile, innermost first: {K, rows} of a K-major tile,
    {rows, K} of an MN-major one (its M or N elements are the contiguous ones). A tile of
    4-bit elements packs two per byte (9.7.16.10.4.6) and is loaded from the array of
    those bytes (a tensor map of 8-bit elements): its contiguous extent, and the
    load's innermost coordinate, are counted in bytes."""
    t = d.type_info(tile_value.type)
    bits = load_bits(t)
    packed = (lambda n: n * bits // 8) if bits == 4 else (lambda n: n)
    return (packed(t.k), t.rows) if t.major == "K" else (packed(t.rows), t.k)


def one_core_column(t) -> bool:
    """Whether a tile (``d.type_info``) is a K-major, unswizzled tile of 16-byte rows: one
    column of core matrices, whose rows the canonical layout puts 16 bytes apart (SBO =
    128 between 8-row groups, 9.7.16.3.3; addressing.kmajor_offset), i.e. the box's dense
    rows as TMA writes them without swizzle. The block-scale factors that tcgen05.cp
    copies (.32x128b, .128x128b) come in such tiles."""
    return (t.swizzle == "none" and t.major == "K"
            and t.k * load_bits(t) == 8 * 16)


def tile_problem(tile_value) -> str | None:
    """Why TMA cannot write this tile's layout in one box, or None. The tile's layout is
    one box's when its contiguous extent (K of a K-major tile, M or N of an MN-major one)
    is one swizzle span: then the canonical layout (9.7.16.3.3; addressing.kmajor_offset
    and mnmajor_offset) puts line j of that extent at j * span bytes, swizzled, which is
    how TMA lays out the box's lines."""
    t = d.type_info(tile_value.type)
    unpacked = _readers_unpacked(tile_value) if load_bits(t) == 4 else []
    if unpacked:
        from tcgen05_lower.dialect.ops import MmaOp

        return (f"a TMA load writes {t.element} packed two per byte, as kind::mxf4 and "
                f"kind::mxf4nvf4 read it (9.7.16.10.4.6); kind::{MmaOp(unpacked[0]).kind} "
                f"reads this tile's elements in 8-bit containers (9.7.16.10.4.4)")
    if one_core_column(t):
        return None
    span = SWIZZLE_SPAN.get(t.swizzle)
    if span is None:
        return (f"the tile's swizzle is \"{t.swizzle}\"; a TMA box writes the tile's layout "
                "only for \"128B\", \"64B\" or \"32B\", or without swizzle for a K-major "
                "tile of 16-byte rows (docs/tma.md)")
    bits = load_bits(t)
    if t.major == "K":
        line, what = t.k * bits // 8, f"a row of the tile is {t.k * bits // 8} bytes (K = {t.k}"
    else:
        line, what = t.rows * bits // 8, (f"a K row of the MN-major tile is "
                                          f"{t.rows * bits // 8} bytes (MN = {t.rows}")
    if line != span:
        return (f"{what} of {t.element}); one TMA box writes the {t.swizzle}-swizzled "
                f"{t.major}-major layout only when that is one {span}-byte swizzle span")
    return None


@dataclass
class Cover:
    """Which expect_tx covers each tma_load, and the loads each expect_tx covers."""
    of_load: dict
    loads: dict
    #: CTAs whose loads complete on one mbarrier: 2 in a cta_group::2 kernel, where both
    #: CTAs of the pair load their own slice of each tile and signal the even CTA's
    #: mbarrier (docs/cta-pairs.md, "TMA in a CTA pair"), 1 otherwise.
    ctas: int = 1

    def expected_bytes(self, expect_op) -> int:
        return self.ctas * sum(tile_bytes(TmaLoadOp(x).tile)
                               for x in self.loads.get(expect_op, ()))


def cover(kernel) -> Cover:
    """One walk of every block of `kernel` (module docstring)."""
    of_load, loads = {}, {}

    def walk(block) -> None:
        open_ = {}   # mbarrier value -> its open expect_tx
        for op in block.operations:
            op = op.operation
            if MbarrierExpectTxOp.matches(op):
                open_[op.operands[0]] = op
                loads[op] = []
            elif TmaLoadOp.matches(op):
                expect = open_.get(load_barrier(op))
                of_load[op] = expect
                if expect is not None:
                    loads[expect].append(op)
            elif MbarrierWaitOp.matches(op) or CommitOp.matches(op):
                open_.pop(op.operands[0], None)
            for region in op.regions:
                for inner in region.blocks:
                    walk(inner)

    for region in kernel.regions:
        for block in region.blocks:
            walk(block)
    try:
        ctas = 2 if d.kernel_info(kernel).cta_group == 2 else 1
    except d.InvalidAttribute:
        ctas = 1  # tcgen05-verify reports the kernel's attributes
    return Cover(of_load, loads, ctas)


def written_bytes(expect_op) -> int | None:
    """The ``bytes`` attribute of an mbarrier_expect_tx, or None when not written."""
    return MbarrierExpectTxOp(expect_op).bytes
