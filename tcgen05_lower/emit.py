"""Small helpers for building arith/llvm/nvvm ops from Python.

:class:`Sym` wraps an integer SSA value so that the address formulas of
``tcgen05_lower.isa.addressing`` (plain Python operators) emit arith ops when given
symbolic operands; constants fold at build time.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from tcgen05_lower.bindings import ir, llvm, nvvm

_ARITH = MappingProxyType({
    "+": "arith.addi", "-": "arith.subi", "*": "arith.muli", "//": "arith.divui",
    "%": "arith.remui", "<<": "arith.shli", ">>": "arith.shrui", "&": "arith.andi",
    "|": "arith.ori", "^": "arith.xori",
})


class ConstantOutOfRange(ValueError):
    """A constant, typically address arithmetic folded at build time (Sym), that no
    integer of its type holds: past the signed and the unsigned range of its width (64
    for index). The lowering reports it at the op it was lowering (an offset that large
    is no valid address); LLVM's wrapping arithmetic would silently make it another."""

    def __init__(self, value: int, type_):
        self.value = value
        self.type = type_
        super().__init__(f"{value} does not fit {type_}")


def _width(type_) -> int:
    """Bits of an integer type; index is 64 (the lowering's target)."""
    return 64 if isinstance(type_, ir.IndexType) else ir.IntegerType(type_).width


def constant(value: int, type_) -> "ir.Value":
    """An ``arith.constant`` of integer or index type at the current insertion point.
    Values past the signed range of a signless integer type (a descriptor with bit 63
    set) are stored as the same bits in two's complement; values past both the signed
    and the unsigned range raise ConstantOutOfRange."""
    value = int(value)
    width = _width(type_)
    if not -(1 << (width - 1)) <= value < (1 << width):
        raise ConstantOutOfRange(value, type_)
    if value >> (width - 1) == 1:
        if isinstance(type_, ir.IndexType):
            raise ConstantOutOfRange(value, type_)  # index constants are signed
        value -= 1 << width
    return ir.Operation.create("arith.constant", results=[type_],
                               attributes={"value": ir.IntegerAttr.get(type_, value)}
                               ).results[0]


#: Operators whose identity element folds on either side (0 + x, 1 * x, ...).
_COMMUTATIVE = frozenset({"+", "*", "|", "^"})


class Sym:
    """An unsigned integer SSA value of a fixed type, with Python operators that emit
    arith ops. Mixing with Python ints folds the int in as a constant; x * 1, x + 0 and
    similar identities emit nothing."""

    def __init__(self, value: "ir.Value"):
        self.value = value
        self.type = value.type

    def _binary(self, op: str, other, reverse: bool = False):
        if isinstance(other, int):
            identity = {"+": 0, "-": 0, "*": 1, "//": 1, "<<": 0, ">>": 0, "|": 0, "^": 0}
            if identity.get(op) == other and (not reverse or op in _COMMUTATIVE):
                return self
            if op == "*" and other == 0:
                return 0
            other_value = constant(other, self.type)
        else:
            other_value = other.value
        lhs, rhs = (other_value, self.value) if reverse else (self.value, other_value)
        return Sym(ir.Operation.create(_ARITH[op], results=[self.type],
                                       operands=[lhs, rhs]).results[0])

    def __add__(self, o): return self._binary("+", o)
    def __radd__(self, o): return self._binary("+", o, True)
    def __sub__(self, o): return self._binary("-", o)
    def __rsub__(self, o): return self._binary("-", o, True)
    def __mul__(self, o): return self._binary("*", o)
    def __rmul__(self, o): return self._binary("*", o, True)
    def __floordiv__(self, o): return self._binary("//", o)
    def __mod__(self, o): return self._binary("%", o)
    def __lshift__(self, o): return self._binary("<<", o)
    def __rshift__(self, o): return self._binary(">>", o)
    def __and__(self, o): return self._binary("&", o)
    def __rand__(self, o): return self._binary("&", o, True)
    def __or__(self, o): return self._binary("|", o)
    def __ror__(self, o): return self._binary("|", o, True)
    def __xor__(self, o): return self._binary("^", o)


def as_value(x, type_) -> "ir.Value":
    """The SSA value of a Sym or a Python int (materialized as a constant)."""
    return x.value if isinstance(x, Sym) else constant(x, type_)


def i32() -> "ir.Type":
    return ir.IntegerType.get_signless(32)


def i64() -> "ir.Type":
    return ir.IntegerType.get_signless(64)


def i1() -> "ir.Type":
    return ir.IntegerType.get_signless(1)


def index() -> "ir.Type":
    return ir.IndexType.get()


def cast(value: "ir.Value", to_type) -> "ir.Value":
    """Integer/index conversions: index_cast between index and integers, extui/trunci
    between integer widths."""
    src = value.type
    if src == to_type:
        return value
    if isinstance(src, ir.IndexType) or isinstance(to_type, ir.IndexType):
        name = "arith.index_castui"
    elif ir.IntegerType(src).width < ir.IntegerType(to_type).width:
        name = "arith.extui"
    else:
        name = "arith.trunci"
    return ir.Operation.create(name, results=[to_type], operands=[value]).results[0]


def cmp_eq(a: "ir.Value", b: "ir.Value") -> "ir.Value":
    pred = ir.IntegerAttr.get(i64(), 0)  # arith.cmpi "eq"
    return ir.Operation.create("arith.cmpi", results=[i1()], operands=[a, b],
                               attributes={"predicate": pred}).results[0]


#: The predicate register a guarded inline-PTX instruction declares for its guard.
GUARD = "tcgen05_guard"


def guarded(code: str, operand: int) -> str:
    """`code` with its first instruction guarded by operand `operand`, an i32 that is
    nonzero where it runs: the guard predicate is set inside the inline PTX from that
    register, in a scope of its own."""
    return f"{{ .reg .pred {GUARD}; setp.ne.b32 {GUARD}, ${operand}, 0; @{GUARD} {code} }}"


@dataclass(frozen=True)
class Elected:
    """A guard for ptx(): the one thread ``elect.sync`` elects in the full warp, ANDed
    with the i1 `also` if given. The warp must run the instruction converged (every lane
    reaches it: ``.sync``), and the same lane is elected every time for the same mask
    (PTX ISA, elect.sync: "Election of a leader thread happens deterministically"), so
    every instruction guarded so is issued by one and the same thread."""

    also: "ir.Value | None" = None


#: The predicate register of an elected guard (elected()).
ELECTED = "tcgen05_elected"


def elected(code: str, operand: int | None) -> str:
    """`code` with its first instruction guarded by the lane elect.sync elects in the full
    warp; with `operand` (an i32, nonzero where it may run) ANDed in."""
    if operand is None:
        return f"{{ .reg .pred {GUARD}; elect.sync _|{GUARD}, -1; @{GUARD} {code} }}"
    return (f"{{ .reg .pred {GUARD}, {ELECTED}; setp.ne.b32 {GUARD}, ${operand}, 0; "
            f"elect.sync _|{ELECTED}, -1; and.pred {GUARD}, {GUARD}, {ELECTED}; "
            f"@{GUARD} {code} }}")


def guard_operand(predicate: "ir.Value") -> "ir.Value":
    """The i32 (0 or 1) a guarded() instruction takes for an i1 `predicate`."""
    return ir.Operation.create("arith.extui", results=[i32()], operands=[predicate]
                               ).results[0]


def ptx(code: str, inputs=(), results=(), predicate=None) -> list["ir.Value"]:
    """An ``nvvm.inline_ptx``: `$0..` name the results, then the inputs; `predicate`
    (an i1, or an Elected) guards the first instruction of `code`.

    The guard reaches the inline PTX as an i32 register and becomes a predicate inside
    it (guarded()), not as an i1 operand (a ``b`` constraint, what the op's own
    predicate operand gives): one i1 such as "thread 0" used by inline PTX in many
    blocks makes LLVM's CodeGenPrepare take time that grows faster than the kernel
    (benchmarks/compile/NVVM.md), an i32 does not."""
    inputs = list(inputs)
    if isinstance(predicate, Elected):
        if predicate.also is None:
            code = elected(code, None)
        else:
            code = elected(code, len(results) + len(inputs))
            inputs.append(guard_operand(predicate.also))
    elif predicate is not None:
        code = guarded(code, len(results) + len(inputs))
        inputs.append(guard_operand(predicate))
    op = nvvm.InlinePtxOp(list(results), inputs, [], code)
    return list(op.operation.results)


def ptr_type(address_space: int) -> "ir.Type":
    return ir.Type.parse(f"!llvm.ptr<{address_space}>") if address_space else \
        ir.Type.parse("!llvm.ptr")


def gep_bytes(base: "ir.Value", offset: "ir.Value") -> "ir.Value":
    """``base + offset`` bytes (an i8 GEP); `offset` is an i64."""
    dynamic = -2147483648  # GEPOp's marker for a dynamic index
    return llvm.GEPOp(base.type, base, [offset], ir.DenseI32ArrayAttr.get([dynamic]),
                      ir.TypeAttr.get(ir.IntegerType.get_signless(8)),
                      None).result  # no-wrap flags: none


def address_of(symbol: str, address_space: int) -> "ir.Value":
    return llvm.AddressOfOp(ptr_type(address_space), symbol).result


def counter() -> "ir.Value":
    """A per-thread i32 counter set to 0 (an alloca in the local address space, which
    the pipeline's mem2reg turns into registers); returns its address."""
    one = constant(1, i64())
    address = llvm.AllocaOp(ptr_type(0), one, i32(), alignment=4).result
    llvm.StoreOp(constant(0, i32()), address)
    return address


def load_i32(address: "ir.Value") -> "ir.Value":
    return llvm.LoadOp(i32(), address).result


def store(value: "ir.Value", address: "ir.Value") -> None:
    llvm.StoreOp(value, address)
