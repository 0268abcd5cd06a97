"""What every typed tcgen05 op class shares (the classes themselves are generated from the
IRDL definition into ``ops.py``; see ``generate.py``).

A class wraps a generic ``ir.Operation`` of its op: ``MmaOp(op).k_offset`` reads the
attribute with the default the dialect gives it (``attributes.DEFAULTS``), ``MmaOp(op).d``
the operand by its IRDL name (an op with several optional groups, such as the MMA's
scale_a, scale_b and metadata, finds them through its ``operandSegmentSizes``, which
``build`` writes); ``.operation`` is the wrapped operation. ``MmaOp.matches(op)``
tests an operation, and ``MmaOp.build(d=..., a=..., kind="f16", ...)`` creates exactly the
generic op the parser would make from its text, at the current insertion point and
location.

Writing: ``TmemBufferOp(op).layout = "D"`` writes the attribute as the kind the table gives
it (an integer as ``N : i64``, a Python bool as ``true`` / ``false``, a string, an
``array<i32: ...>``), ``del LdOp(op).half_split`` removes it. The methods ``has``, ``get``,
``set`` and ``remove`` take an attribute by name or by its class member
(``op.has(MmaOp.scale_vec)``), so that code outside the dialect names attributes only
through the classes.

Reading an integer attribute through its property gives an ``int``: a flag written as
``true`` reads as 1, as the table's kinds say (``attributes.py``); ``get`` gives the value
as written (``True``), which ``build`` turns back into the same attribute. An attribute of
the wrong kind raises ``InvalidAttribute`` (a located error), as the dialect's accessors
do.
"""

from __future__ import annotations

from typing import Any, ClassVar

from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect import DIALECT, InvalidAttribute, wrong_kind
from tcgen05_lower.dialect.attributes import ATTRIBUTES, DEFAULTS, KIND_NAMES
from tcgen05_lower.segments import SEGMENT_ATTR


class Attribute:
    """A data descriptor for one attribute: reads it as a Python value (int, str, or a
    tuple of ints or of strs), or its default when absent; ``None`` when it has no default."""

    def __init__(self, name: str):
        self.name = name

    def __set_name__(self, owner, name):
        self.owner = owner

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.get(self.name)
        # An "int" attribute reads as an int (a flag written as ``true`` as 1).
        return int(value) if isinstance(value, bool) else value

    def __set__(self, instance, value):
        instance.set(self.name, value)

    def __delete__(self, instance):
        instance.remove(self.name)

    def __repr__(self):
        return f"<attribute {self.name} of {getattr(self, 'owner', Tcgen05Op).full_name()}>"


class Tcgen05Op:
    """Base of the generated op classes."""

    NAME: ClassVar[str] = ""
    #: (name, variadicity) of each operand / result group, as IRDL declares them.
    OPERANDS: ClassVar[tuple[tuple[str, str], ...]] = ()
    RESULTS: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: Attributes IRDL requires (the others are optional).
    REQUIRED: ClassVar[tuple[str, ...]] = ()

    #: Set per class by __init_subclass__ (from NAME and OPERANDS, which never change):
    #: the full op name, whether the operands need operandSegmentSizes (more than one
    #: non-single group), and how many operand / result groups before the first
    #: non-single one are single (group i < that is value i).
    _FULL_NAME: ClassVar[str] = ""
    _SEGMENTED: ClassVar[bool] = False
    _LEADING_SINGLE_OPERANDS: ClassVar[int] = 0
    _LEADING_SINGLE_RESULTS: ClassVar[int] = 0

    __slots__ = ("operation",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._FULL_NAME = f"{DIALECT}.{cls.NAME}"
        cls._SEGMENTED = sum(1 for _, v in cls.OPERANDS if v != "single") >= 2
        cls._LEADING_SINGLE_OPERANDS = _leading_singles(cls.OPERANDS)
        cls._LEADING_SINGLE_RESULTS = _leading_singles(cls.RESULTS)

    def __init__(self, op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name != self._FULL_NAME:
            raise TypeError(f"{type(self).__name__} wraps {self.full_name()}, not {op.name}")
        self.operation = op

    # -- matching ---------------------------------------------------------------------------

    @classmethod
    def full_name(cls) -> str:
        return cls._FULL_NAME or f"{DIALECT}.{cls.NAME}"

    @classmethod
    def matches(cls, op) -> bool:
        op = op.operation if hasattr(op, "operation") else op
        return op.name == cls._FULL_NAME

    # -- attributes -------------------------------------------------------------------------

    @classmethod
    def attribute_kinds(cls):
        return ATTRIBUTES[cls.NAME]

    @classmethod
    def declares(cls, name: "str | Attribute") -> bool:
        """Whether the dialect's table lists the attribute for this op (written or not):
        for code that reads one attribute across several ops."""
        return (name.name if isinstance(name, Attribute) else name) in ATTRIBUTES[cls.NAME]

    def has(self, name: "str | Attribute") -> bool:
        """Whether the attribute is written on the op (not just defaulted)."""
        name = self._check_name(name)
        return name in self.operation.attributes

    def get(self, name: "str | Attribute") -> Any:
        """The attribute's value as written (a flag as a bool), its default when absent,
        None without a default. Raises InvalidAttribute for one of the wrong kind."""
        name = self._check_name(name)
        attr = self.operation.attributes.get(name)
        if attr is None:
            return DEFAULTS.get(self.NAME, {}).get(name)
        problem = wrong_kind(name, attr, ATTRIBUTES[self.NAME][name])
        if problem:
            raise InvalidAttribute(self.operation, problem)
        return _python_value(attr)

    def set(self, name: "str | Attribute", value) -> None:
        """Writes the attribute as the kind the table gives it: an int as ``N : i64``, a
        bool as ``true`` / ``false``, a str, a sequence of ints as ``array<i32: ...>``."""
        name = self._check_name(name)
        self.operation.attributes[name] = _attribute(name, value, ATTRIBUTES[self.NAME][name])

    def remove(self, name: "str | Attribute") -> None:
        """Removes the attribute if it is written (it then reads as its default)."""
        name = self._check_name(name)
        if name in self.operation.attributes:
            del self.operation.attributes[name]

    def _check_name(self, name: "str | Attribute") -> str:
        name = name.name if isinstance(name, Attribute) else name
        if name not in ATTRIBUTES[self.NAME]:
            raise LookupError(f"{self.full_name()} has no attribute {name!r} in "
                              "dialect/attributes.py")
        return name

    # -- operands and results ---------------------------------------------------------------

    def _group(self, groups, values, index: int, segments=None):
        """The values of group `index`: one value for a single group, a list for a variadic
        one, the value or None for an optional one. With more than one non-single group,
        `segments` gives each group's size (IRDL's operandSegmentSizes)."""
        if segments is None:
            fixed = sum(1 for _, v in groups if v == "single")
            extra = len(values) - fixed
            segments = [1 if v == "single" else extra for _, v in groups]
        position = 0
        for i, (_, variadicity) in enumerate(groups):
            size = segments[i]
            if i == index:
                chunk = [values[j] for j in range(position, position + size)]
                if variadicity == "single":
                    return chunk[0]
                if variadicity == "optional":
                    return chunk[0] if chunk else None
                return chunk
            position += size
        raise IndexError(index)

    def operand_segments(self) -> "list[int] | None":
        """The size of each operand group when the op has several non-single ones (from
        its operandSegmentSizes, which IRDL has checked), else None."""
        if not self._SEGMENTED:
            return None
        return list(ir.DenseI32ArrayAttr(self.operation.attributes[SEGMENT_ATTR]))

    def operand(self, index: int):
        if index < self._LEADING_SINGLE_OPERANDS:  # the operand at position `index`
            return self.operation.operands[index]
        return self._group(self.OPERANDS, self.operation.operands, index,
                           self.operand_segments())

    def result(self, index: int):
        if index < self._LEADING_SINGLE_RESULTS:
            return self.operation.results[index]
        return self._group(self.RESULTS, self.operation.results, index)

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def build(cls, *, result_types=(), attributes=None, regions: int = 0,
              **fields) -> "ir.Operation":
        """The generic op with the operands named by IRDL (a variadic group takes a list,
        an optional one a value or None), the attributes given as Python values (checked
        against the dialect's table; an attribute left at None is not written; an MLIR
        attribute is written as it is), and `result_types`, at the current insertion point
        and location. `attributes` (name -> MLIR attribute) are written as they are before
        the fields: those of an op this one replaces, which may include other dialects'
        attributes (names with a dot). `regions`: how many (empty) regions the op gets
        (tcgen05.frag_map has its body; the caller fills it)."""
        operands, segments = [], []
        for name, variadicity in cls.OPERANDS:
            value = fields.pop(name, None if variadicity != "single" else _MISSING)
            if value is _MISSING:
                raise TypeError(f"{cls.full_name()} needs operand {name}")
            if variadicity == "variadic":
                operands.extend(value or ())
                segments.append(len(value or ()))
            elif value is not None:
                operands.append(value)
                segments.append(1)
            else:
                segments.append(0)
        attributes = dict(attributes or {})
        if sum(1 for _, v in cls.OPERANDS if v != "single") > 1:
            attributes[SEGMENT_ATTR] = ir.DenseI32ArrayAttr.get(segments)
        kinds = ATTRIBUTES[cls.NAME]
        for name, value in fields.items():
            if name not in kinds:
                raise TypeError(f"{cls.full_name()} has no operand or attribute {name!r} "
                                f"(attributes: {', '.join(sorted(kinds)) or 'none'})")
            if value is not None:
                attributes[name] = _attribute(name, value, kinds[name])
        missing = [name for name in cls.REQUIRED if name not in attributes]
        if missing:
            raise TypeError(f"{cls.full_name()} needs attribute {', '.join(missing)}")
        return ir.Operation.create(cls.full_name(), results=list(result_types),
                                   operands=operands, attributes=attributes,
                                   regions=regions)


def _leading_singles(groups) -> int:
    """How many groups come before the first one that is not single."""
    count = 0
    for _, variadicity in groups:
        if variadicity != "single":
            break
        count += 1
    return count


class _MISSING:
    """Marks an operand not given to build()."""


def _python_value(attr):
    if isinstance(attr, ir.BoolAttr):
        return bool(attr.value)
    if isinstance(attr, ir.IntegerAttr):
        return int_value(attr)
    if isinstance(attr, ir.StringAttr):
        return attr.value
    if isinstance(attr, ir.DenseI32ArrayAttr):
        return tuple(attr)
    if isinstance(attr, ir.ArrayAttr):
        return tuple(ir.StringAttr(x).value for x in attr)
    return attr


def _attribute(name: str, value, kind: str):
    """The MLIR attribute the parser makes from the text a user writes: ``true`` for a
    bool, ``N : i64`` for an integer, a string, ``array<i32: ...>``; an MLIR attribute as
    it is (copied from another op: tcgen05-verify checks its kind)."""
    if isinstance(value, ir.Attribute):
        return value
    if kind == "int":
        if isinstance(value, bool):
            return ir.BoolAttr.get(value)
        if isinstance(value, int):
            return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    elif kind == "str" and isinstance(value, str):
        return ir.StringAttr.get(value)
    elif kind == "i32s" and all(isinstance(v, int) for v in value):
        return ir.DenseI32ArrayAttr.get(list(value))
    elif kind == "strs" and not isinstance(value, str) and all(isinstance(v, str)
                                                               for v in value):
        return ir.ArrayAttr.get([ir.StringAttr.get(v) for v in value])
    raise TypeError(f"attribute {name} = {value!r} must be {KIND_NAMES[kind]}")
