"""Strategies for the messages of warpgroup tcgen05.ld / tcgen05.st / tcgen05.ld.red.

A warpgroup access of a slice of a TMEM buffer becomes, in every warp that takes part, a
sequence of equal messages ``.<shape>.x<num>`` (``tcgen05_lower.isa.addressing`` says
which warps, taddrs and registers). Which shape, which ``.num`` and whether a wide
load -> store pair is split into narrower pairs is this module's decision:

``max-width``
    Fewest instructions: the widest ``.num`` whose message tiles the warp's columns (at
    most 128 registers per message, Table 47), and no splitting, so a load holds all its
    columns in registers at once (a 128 x 256 f32 load: two .32x32b.x128 messages and 256
    registers per thread).

``register-budget=R``
    At most R registers per thread hold loaded data at once: a load whose fragment only
    feeds one store (tcgen05.ld -> store_fragment in an epilogue, load_fragment ->
    tcgen05.st in a prologue) is split by tcgen05-select-layouts into a sequence of
    pairs of at most R registers each, each pair moved with the widest messages. A
    fragment the program itself keeps whole (used twice, or by a tcgen05.ld.red whose
    per-row result needs all columns) keeps its width and is moved with the widest
    messages too -- narrower messages would hold the same registers with more
    instructions; the budget cannot shrink what the program holds, and the pass's report
    says so. An op's own ``num`` wins over the budget as well: its pair is split only into
    chunks of whole messages of that ``.num``, however many registers one chunk holds.

The default, ``register-budget=32``, suits an epilogue: it streams a 128 x N f32
accumulator through 32 registers per thread in .32x32b.x32 messages -- the widest
message that still leaves a 255-register thread room for addresses and a second chunk in
flight, so ptxas needs no spills (see tests/test_ldst_ptxas.py for the measured numbers).

Shapes: unless an op or the pass asks for one, full-datapath layouts (A, B, D, E, G, C
read as B) use .32x32b and half-datapath layouts (F, C read as F) .16x32bx2: with both,
thread l holds consecutive columns of one row, which is what row-major stores and per-row
reductions want. 16-bit data is packed two per register (.pack::16b / .unpack::16b)
unless an op says ``pack16 = false`` / ``unpack16 = false``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from tcgen05_lower.isa import addressing, fragments, layouts
from tcgen05_lower.isa.addressing import WarpgroupAccess
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.text import did_you_mean

__all__ = [
    "AccessRequest",
    "LdStStrategy",
    "MaxWidth",
    "RegisterBudget",
    "STRATEGIES",
    "DEFAULT_STRATEGY",
    "parse_strategy",
    "default_shape",
]

DEFAULT_STRATEGY = "register-budget=32"


@dataclass(frozen=True)
class AccessRequest:
    """What is known about one warpgroup access when its messages are chosen.

    ``layout``/``layout_c``/``n``: the buffer (D-like data, one column per element).
    ``width``: the columns of the slice. ``element_bits``: 32, or 16 for f16/bf16 data.
    ``op``: "ld", "st" or "ld_red". ``shape``, ``num``, ``pack16``: what the op or the
    pass option asks for (None: the strategy decides).
    """

    layout: str
    n: int
    width: int
    element_bits: int = 32
    op: str = "ld"
    layout_c: str = "F"
    shape: str | None = None
    num: int | None = None
    pack16: bool | None = None

    @property
    def geometry(self) -> layouts.Geometry:
        return layouts.geometry(self.layout, self.layout_c)


def default_shape(geometry: layouts.Geometry) -> str:
    """.32x32b for full-datapath layouts, .16x32bx2 for half-datapath ones (module
    docstring)."""
    return "16x32bx2" if geometry.half else "32x32b"


def _shape(req: AccessRequest) -> str:
    shape = req.shape or default_shape(req.geometry)
    kind = "half" if req.geometry.half else "full"
    if shape not in addressing.ACCESS_SHAPES[(kind, req.op)]:
        # Let the access model say why (it names the rule).
        WarpgroupAccess.create(req.layout, n=req.n, width=req.width, shape=shape, num=2,
                               half_split=None, layout_c=req.layout_c, op=req.op)
    return shape


def _warp_columns(req: AccessRequest, width: int) -> int:
    return min(width, req.geometry.block_columns(req.n))


def _fitting_nums(req: AccessRequest, shape: str, pack16: bool, width: int) -> list[int]:
    """The .num values whose message tiles the columns each warp moves, ascending."""
    columns = _warp_columns(req, width)
    return [num for num in fragments.valid_nums(shape)
            if columns % fragments.columns_per_access(shape, num, pack16=pack16) == 0
            and (req.op != "ld_red" or num >= 2)]


def _pack(req: AccessRequest, shape: str) -> bool:
    if req.pack16 is not None:
        if req.pack16 and req.element_bits != 16:
            raise IsaRuleError("9.7.16.8.2", f".pack::16b packs 16-bit data; this buffer "
                                             f"holds {req.element_bits}-bit elements")
        return req.pack16
    return (req.element_bits == 16 and req.op != "ld_red"
            and bool(_fitting_nums(req, shape, True, req.width)))


def registers_per_thread(req: AccessRequest, width: int, *, pack16: bool) -> int:
    """Registers per thread that hold a ``width``-column slice: one per cell of the warp's
    lanes and columns, over 32 threads, halved when packed."""
    lanes = 16 if req.geometry.half else 32
    cells = _warp_columns(req, width) * lanes
    return max(1, cells // 32 // (2 if pack16 else 1))


def _legal_width(req: AccessRequest, width: int) -> bool:
    geo = req.geometry
    block = geo.block_columns(req.n)
    if geo.fold > 1:
        return (width <= block and block % width == 0) or width % block == 0
    return True


class LdStStrategy:
    """A strategy: the messages of an access, and the width of the chunks a splittable
    load -> store pair is cut into."""

    name = ""

    def text(self) -> str:
        """The strategy as the pass option spells it."""
        return self.name

    def chunk_width(self, req: AccessRequest) -> int:
        """Columns per chunk when the access may be split (``req.width``: no split)."""
        return req.width

    def access(self, req: AccessRequest) -> WarpgroupAccess:
        """The messages of the access: the requested or default shape, packing for 16-bit
        data, and the widest .num (or the requested one) whose message tiles the columns
        each warp moves. Raises IsaRuleError when no message can move the slice."""
        shape = _shape(req)
        pack16 = _pack(req, shape)
        fitting = _fitting_nums(req, shape, pack16, req.width)
        if req.num is not None:
            num = req.num
        elif fitting:
            num = fitting[-1]
        else:
            smallest = 2 if req.op == "ld_red" else 1
            unit = fragments.columns_per_access(shape, smallest, pack16=pack16)
            raise IsaRuleError(
                "Table 47", f".{shape}{'.pack::16b' if pack16 else ''} messages move "
                            f"{unit} x 2^k columns (.x{smallest} to .x"
                            f"{fragments.valid_nums(shape)[-1]}), which cannot tile the "
                            f"{_warp_columns(req, req.width)} columns each warp moves")
        columns = fragments.columns_per_access(shape, num, pack16=pack16)
        return WarpgroupAccess.create(
            req.layout, n=req.n, width=req.width, shape=shape, num=num, pack16=pack16,
            half_split=columns // 2 if shape == "16x32bx2" else None,
            layout_c=req.layout_c, op=req.op)


def _moves_whole_messages(req: AccessRequest, shape: str, pack16: bool, width: int) -> bool:
    """Whether the op's own ``.num`` (``req.num``) tiles the columns each warp moves of a
    ``width``-column chunk."""
    return (req.num in fragments.valid_nums(shape)
            and _warp_columns(req, width)
            % fragments.columns_per_access(shape, req.num, pack16=pack16) == 0)


def num_exceeds_budget(strategy: "LdStStrategy", req: AccessRequest) -> int | None:
    """The registers per thread of the narrowest chunk made of whole messages of the op's
    own ``.num`` when that is more than ``strategy``'s register budget (the op's ``.num``
    wins), else None."""
    if req.num is None or not isinstance(strategy, RegisterBudget):
        return None
    shape = _shape(req)
    registers = registers_per_thread(req, strategy.chunk_width(req),
                                     pack16=_pack(req, shape))
    return registers if registers > strategy.budget else None


class MaxWidth(LdStStrategy):
    """Fewest instructions: the widest message that tiles the slice, no splitting."""

    name = "max-width"


class RegisterBudget(LdStStrategy):
    """At most ``budget`` registers per thread hold loaded data at once."""

    name = "register-budget"

    def __init__(self, budget: int):
        if budget < 1:
            raise ValueError(f"register-budget must be at least 1, not {budget}")
        self.budget = budget

    def text(self) -> str:
        return f"{self.name}={self.budget}"

    def chunk_width(self, req: AccessRequest) -> int:
        """The widest chunk that divides the slice, is itself a legal slice (inside one
        column block, or whole blocks, for folded layouts), can be moved by some message
        and needs at most ``budget`` registers per thread.

        An op's own ``.num`` wins over the budget: each chunk is then moved by whole
        messages of that ``.num``, and when one such message alone holds more than
        ``budget`` registers the chunk is one message (``num_exceeds_budget`` says so)."""
        shape = _shape(req)
        pack16 = _pack(req, shape)
        movable = [width for width in range(req.width, 0, -1)
                   if req.width % width == 0 and _legal_width(req, width)
                   and _fitting_nums(req, shape, pack16, width)
                   and (req.num is None or _moves_whole_messages(req, shape, pack16, width))]
        for width in movable:
            if registers_per_thread(req, width, pack16=pack16) <= self.budget:
                return width
        if req.num is not None and movable:
            return movable[-1]
        raise IsaRuleError(
            "Table 47", f"register-budget={self.budget}: no chunk of this "
                        f"{req.width}-column slice fits in {self.budget} registers per "
                        f"thread with .{shape} messages")


#: Strategy name -> factory from the text after ``=`` (None when there is none).
STRATEGIES = MappingProxyType({
    "max-width": lambda arg: MaxWidth() if arg is None else _no_argument("max-width"),
    "register-budget": lambda arg: RegisterBudget(_budget(arg)),
})


def _no_argument(name: str):
    raise ValueError(f"strategy '{name}' takes no argument")


def _budget(arg: str | None) -> int:
    if arg is None or not arg.isdigit():
        raise ValueError("register-budget needs a register count, as in register-budget=32"
                         + ("" if arg is None else f", not {arg!r}"))
    return int(arg)


def parse_strategy(text: str) -> LdStStrategy:
    """``"max-width"`` or ``"register-budget=R"`` -> the strategy; ValueError otherwise."""
    name, sep, arg = text.partition("=")
    if name not in STRATEGIES:
        raise ValueError(f"unknown ld/st strategy '{text}'; the strategies are max-width "
                         f"and register-budget=R" + did_you_mean(name, STRATEGIES))
    return STRATEGIES[name](arg if sep else None)
