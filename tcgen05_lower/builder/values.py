"""Values computed in the kernel: integer and float arithmetic, comparisons, casts and
conversions, ``math`` functions, the CTA's block id, and global pointers (``gep``,
``load``)."""

from __future__ import annotations

from tcgen05_lower.bindings import ir
from tcgen05_lower.builder.core import CMPI_PREDICATES, _i64


class ArithmeticMixin:
    """The builder's arithmetic and global-pointer ops (a mixin of ``BuilderCore``)."""

    # -- arithmetic -------------------------------------------------------------------------
    # Integer or index operands give the integer op (unsigned where signedness matters:
    # sizes and indices are never negative), float operands the float op. A Python int or
    # float operand becomes a constant of the other operand's type: an int an ``index``
    # (or i32, i64) constant at the kernel's start, a float an ``arith.constant`` where it
    # is used (as a frag_map body writes it).

    def _pair(self, name: str, lhs, rhs) -> tuple:
        """Both operands as values of one type (a Python number takes the other's)."""
        if not isinstance(lhs, ir.Value) and not isinstance(rhs, ir.Value):
            lhs = self._index(lhs)
        if not isinstance(lhs, ir.Value):
            lhs = self._number(lhs, rhs.type)
        if not isinstance(rhs, ir.Value):
            rhs = self._number(rhs, lhs.type)
        if lhs.type != rhs.type:
            raise self._error(f"{name} of {lhs.type} and {rhs.type}: the operands must "
                              f"have one type")
        return lhs, rhs

    def _number(self, value, type_: "ir.Type") -> "ir.Value":
        if isinstance(type_, ir.FloatType):
            return self.constant(float(value), str(type_))
        if isinstance(value, float):
            raise self._error(f"the float {value} as a {type_} operand")
        return self.constant(value, str(type_))

    def _arith(self, name: str, lhs, rhs, float_name: str | None = None) -> "ir.Value":
        lhs, rhs = self._pair(f"arith.{name}", lhs, rhs)
        is_float = isinstance(lhs.type, ir.FloatType)
        if is_float and float_name is None:
            raise self._error(f"arith.{name} of {lhs.type}: integer or index operands only")
        name = float_name if is_float else name
        with self._at_end():
            attributes = {"fastmath": ir.Attribute.parse("#arith.fastmath<none>")} \
                if is_float else {}
            return ir.Operation.create(f"arith.{name}", results=[lhs.type],
                                       operands=[lhs, rhs], attributes=attributes).result

    def add(self, lhs, rhs) -> "ir.Value":
        """``arith.addi`` (``addf`` of floats; an int operand is an ``index`` constant)."""
        return self._arith("addi", lhs, rhs, "addf")

    def sub(self, lhs, rhs) -> "ir.Value":
        """``arith.subi`` (``subf``)."""
        return self._arith("subi", lhs, rhs, "subf")

    def mul(self, lhs, rhs) -> "ir.Value":
        """``arith.muli`` (``mulf``)."""
        return self._arith("muli", lhs, rhs, "mulf")

    def div(self, lhs, rhs) -> "ir.Value":
        """``arith.divui``: unsigned division (``divf`` of floats)."""
        return self._arith("divui", lhs, rhs, "divf")

    def rem(self, lhs, rhs) -> "ir.Value":
        """``arith.remui``."""
        return self._arith("remui", lhs, rhs)

    def min(self, lhs, rhs) -> "ir.Value":
        """``arith.minui`` (``minnumf``)."""
        return self._arith("minui", lhs, rhs, "minnumf")

    def max(self, lhs, rhs) -> "ir.Value":
        """``arith.maxui`` (``maxnumf``)."""
        return self._arith("maxui", lhs, rhs, "maxnumf")

    def and_(self, lhs, rhs) -> "ir.Value":
        """``arith.andi``."""
        return self._arith("andi", lhs, rhs)

    def or_(self, lhs, rhs) -> "ir.Value":
        """``arith.ori``."""
        return self._arith("ori", lhs, rhs)

    def cmp(self, predicate: str, lhs, rhs) -> "ir.Value":
        """``arith.cmpi predicate, lhs, rhs``: an ``i1`` (predicate ``"eq"``, ``"ne"``,
        ``"slt"``, ... ``"uge"``)."""
        if predicate not in CMPI_PREDICATES:
            raise self._error(f"arith.cmpi predicate {predicate!r}: not one of "
                              f"{', '.join(CMPI_PREDICATES)}")
        lhs, rhs = self._pair("arith.cmpi", lhs, rhs)
        if isinstance(lhs.type, ir.FloatType):
            raise self._error(f"arith.cmpi of {lhs.type}: integer or index operands only")
        with self._at_end():
            attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                      CMPI_PREDICATES[predicate])
            return ir.Operation.create("arith.cmpi", results=[ir.IntegerType.get_signless(1)],
                                       operands=[lhs, rhs],
                                       attributes={"predicate": attr}).result

    def index_cast(self, value, to: str, *, unsigned: bool = False) -> "ir.Value":
        """``arith.index_cast`` (``index_castui`` when `unsigned`) of an index to the
        integer type `to`, or of an integer (a parameter by name) to ``index``."""
        value = self._value(value, "index_cast")
        with self.context:
            target = ir.Type.parse(to)
        if isinstance(value.type, ir.IndexType) == isinstance(target, ir.IndexType):
            raise self._error(f"index_cast of {value.type} to {to}: one side must be index")
        name = "arith.index_castui" if unsigned else "arith.index_cast"
        return self._unary(name, value, target)

    def size(self, value) -> "ir.Value":
        """An ``i32`` size or stride (a parameter by name) as an ``index``:
        ``arith.index_castui`` (sizes are never negative)."""
        return self.index_cast(value, "index", unsigned=True)

    def convert(self, value, element: str) -> "ir.Value":
        """A float converted to the float type `element`: ``arith.truncf`` to a narrower
        one (``"bf16"``, ``"f8E4M3FN"``), ``arith.extf`` to a wider one."""
        value = self._value(value, "convert")
        with self.context:
            target = ir.Type.parse(element)
        if not (isinstance(value.type, ir.FloatType) and isinstance(target, ir.FloatType)):
            raise self._error(f"convert of {value.type} to {element}: floats only")
        wider = target.width > value.type.width
        return self._unary("arith.extf" if wider else "arith.truncf", value, target)

    def math(self, name: str, value) -> "ir.Value":
        """``math.<name>`` of a float (``"exp"``, ``"tanh"``, ``"sqrt"``, ...)."""
        value = self._value(value, f"math.{name}")
        if not isinstance(value.type, ir.FloatType):
            raise self._error(f"math.{name} of {value.type}: a float operand only")
        with self.context:
            fastmath = ir.Attribute.parse("#arith.fastmath<none>")
        return self._unary(f"math.{name}", value, value.type, {"fastmath": fastmath})

    def exp(self, value) -> "ir.Value":
        """``math.exp``."""
        return self.math("exp", value)

    def tanh(self, value) -> "ir.Value":
        """``math.tanh``."""
        return self.math("tanh", value)

    def block_id(self, dimension: str = "x") -> "ir.Value":
        """``gpu.block_id`` (x, y or z): this CTA's index in the grid."""
        if dimension not in ("x", "y", "z"):
            raise self._error(f"gpu.block_id {dimension!r}: x, y or z")
        with self._at_end():
            attr = ir.Attribute.parse(f"#gpu<dim {dimension}>")
            return ir.Operation.create("gpu.block_id", results=[ir.IndexType.get()],
                                       attributes={"dimension": attr}).result

    # -- global memory ----------------------------------------------------------------------

    def gep(self, pointer, index, element: str) -> "ir.Value":
        """``pointer + index`` elements of type `element`: ``llvm.getelementptr`` (an
        index operand is first ``arith.index_cast`` to i64)."""
        pointer, index = self._resolve(pointer), self._index(index)
        if isinstance(index.type, ir.IndexType):
            index = self.index_cast(index, "i64")
        with self._at_end():
            return ir.Operation.create(
                "llvm.getelementptr", results=[pointer.type], operands=[pointer, index],
                attributes={"elem_type": ir.TypeAttr.get(ir.Type.parse(element)),
                            "noWrapFlags": ir.IntegerAttr.get(
                                ir.IntegerType.get_signless(32), 0),
                            # One index, given as an operand (LLVM's kDynamicIndex).
                            "rawConstantIndices": ir.DenseI32ArrayAttr.get([-2 ** 31])}
            ).result

    def load(self, pointer, element: str) -> "ir.Value":
        """``llvm.load`` of one `element` from a global pointer (a parameter by name)."""
        pointer = self._resolve(pointer)
        with self._at_end():
            return ir.Operation.create(
                "llvm.load", results=[ir.Type.parse(element)], operands=[pointer],
                attributes={"ordering": _i64(0)}).result
