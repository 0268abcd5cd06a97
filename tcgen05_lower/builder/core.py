"""The builder's core: the kernel ``func.func`` and its module, where ops go (the current
block, before its terminator), the Python line each op is located at, constants, any op by
name, the checks of operands every concern uses, and the result (``finish``, ``text``,
``compile``). The other modules of the package add the ops of one concern each as mixins
of :class:`BuilderCore`.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import types
from pathlib import Path
from typing import Mapping, Sequence

from tcgen05_lower import dialect as d
from tcgen05_lower import segments
from tcgen05_lower.bindings import ir
from tcgen05_lower.builder.params import Param
from tcgen05_lower.dialect.attributes import ATTRIBUTES, KERNEL_ENTRIES

#: Files whose frames are the builder's own: every module of this package (a call reaches
#: the op through several of them) and contextlib (its context managers run there).
_OWN_FILES = tuple(str(p) for p in sorted(Path(__file__).resolve().parent.glob("*.py"))) \
    + (contextlib.__file__,)

#: ``arith.cmpi`` predicates by name (the enum's values, MLIR's ArithBase.td).
CMPI_PREDICATES = types.MappingProxyType({"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4,
                                          "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9})


#: What ``dialect.type_info`` gives for ``!tcgen05.mbarrier``.
MBARRIER = "mbarrier"


class BuilderError(ValueError):
    """A builder call the kernel cannot take; the message starts with the Python
    ``file:line`` of the call."""


class BuilderCore:
    """What every builder call stands on: the kernel being built, the block ops go into and
    the caller's location (see ``KernelBuilder``, which adds the ops)."""

    def __init__(self, name: str, *, params: Mapping[str, "str | Param"] = (),
                 target: str = "sm_100a", threads: int = 128, cta_group: int = 1,
                 grid: Sequence[str] | None = None, kernel: Mapping | None = None,
                 context: "ir.Context | None" = None):
        self.name = name
        self.threads = threads
        self.context = context if context is not None else d.make_context()
        if context is not None:
            d.load_dialect(context)
        params = {p: v if isinstance(v, Param) else Param(v) for p, v in dict(params).items()}
        with self.context, self._location() as where:
            self.module = ir.Module.create()
            types = [ir.Type.parse(p.type) for p in params.values()]
            function_type = ir.FunctionType.get(types, [])
            attributes = {"sym_name": ir.StringAttr.get(name),
                          "function_type": ir.TypeAttr.get(function_type),
                          d.KERNEL_ATTR: _kernel_attribute(target, threads, cta_group, grid,
                                                           kernel or {})}
            if any(p.attributes for p in params.values()):
                attributes["arg_attrs"] = ir.ArrayAttr.get(
                    [ir.DictAttr.get({n: ir.Attribute.parse(a) for n, a in p.attributes})
                     for p in params.values()])
            with ir.InsertionPoint(self.module.body):
                func = ir.Operation.create("func.func", regions=1, attributes=attributes)
            self.function = func
            # A name location per parameter: printed as its SSA name (see text()).
            self.entry = func.regions[0].blocks.append(
                *types, arg_locs=[ir.Location.name(p, childLoc=where) for p in params])
        self.args = dict(zip(params, self.entry.arguments))
        self._blocks = [self.entry]
        self._before: dict = {}  # block -> the op new ops go before (its terminator)
        self._partitions: dict = {}  # block -> (ops built in it then, partitions body)
        self._built: dict = {}  # block -> how many builder calls added ops at its end
        self._ended: set = set()  # blocks ended by yield_(), br() or cond_br()
        self._constants: dict = {}
        self._last_constant = None  # new constants go after it
        self._finished = False

    # -- plumbing ---------------------------------------------------------------------------

    def _location(self) -> "ir.Location":
        """The caller's line outside this module (the user's code)."""
        frame = inspect.currentframe()
        while frame is not None and frame.f_code.co_filename in _OWN_FILES:
            frame = frame.f_back
        if frame is None:
            return ir.Location.unknown()
        return ir.Location.file(frame.f_code.co_filename, frame.f_lineno, 1)

    def location(self) -> "ir.Location":
        """The location the builder gives an op built now: the caller's Python line (for
        ops built with the upstream bindings at :meth:`insertion_point`)."""
        with self.context:
            return self._location()

    def _where(self) -> str:
        """``file:line`` of the caller (for a BuilderError)."""
        with self.context:
            loc = str(self._location())
        return loc.removeprefix("loc(").removesuffix(")").replace('"', "").rsplit(":", 1)[0]

    def _error(self, message: str) -> BuilderError:
        return BuilderError(f"{self._where()}: {message}")

    @property
    def block(self) -> "ir.Block":
        """The block new ops go into (the innermost ``with``'s body, or the kernel's)."""
        return self._blocks[-1]

    def insertion_point(self) -> "ir.InsertionPoint":
        """Where the next op goes: the end of :attr:`block`, before its terminator if the
        block has one already (a role's body inside ``tcgen05.partitions``)."""
        before = self._before.get(self.block)
        return ir.InsertionPoint(before) if before is not None else \
            ir.InsertionPoint(self.block)

    @contextlib.contextmanager
    def at(self, block: "ir.Block"):
        """Builds the ops of the ``with`` body at the end of `block` (a block of an op
        built with :meth:`op`); nothing is added to end it."""
        self._blocks.append(block)
        try:
            yield block
        finally:
            self._blocks.pop()

    @contextlib.contextmanager
    def _at_end(self):
        if self._finished:
            raise RuntimeError("the kernel is finished: build before compile()/finish()")
        block = self.block
        self._built[block] = self._built.get(block, 0) + 1
        with self.context, self._location(), self.insertion_point():
            yield

    def arg(self, name: str) -> "ir.Value":
        return self.args[name]

    def constant(self, value, type_: str = "index") -> "ir.Value":
        """An ``arith.constant``. An integer one (``index``, ``i1``, ``i32``, ``i64``) is
        made once per value and type at the kernel's start, in the order first asked for;
        a float one (``f32``, ...; ``float("-inf")`` too) where it is asked for, as a
        frag_map body writes it."""
        with self.context:
            t = ir.Type.parse(type_)
        if isinstance(t, ir.FloatType):
            with self._at_end():
                return ir.Operation.create(
                    "arith.constant", results=[t],
                    attributes={"value": ir.FloatAttr.get(t, float(value))}).result
        key = (value, type_)
        if key not in self._constants:
            with self.context, self._location():
                point = ir.InsertionPoint.after(self._last_constant) \
                    if self._last_constant is not None \
                    else ir.InsertionPoint.at_block_begin(self.entry)
                with point:
                    attr = ir.BoolAttr.get(bool(value)) if type_ == "i1" else \
                        ir.IntegerAttr.get(t, int(value))
                    op = ir.Operation.create("arith.constant", results=[t],
                                             attributes={"value": attr})
            self._constants[key] = op.results[0]
            self._last_constant = op
        return self._constants[key]

    def _index(self, value) -> "ir.Value":
        return self.constant(value) if isinstance(value, int) else value

    # -- any op -----------------------------------------------------------------------------

    def op(self, name: str, operands: Sequence = (), attributes: Mapping | None = None,
           result_types: Sequence = (), *, regions: int = 0) -> "ir.Operation":
        """Any op, generic form: ``name`` (``"arith.maxui"``, ``"tcgen05.fence"``, ...),
        operands (values, or ints made ``index`` constants), attributes as Python values
        (a tcgen05 op's by its attribute table; otherwise an int is ``i64``, a bool
        ``true``/``false``, a str a string, an ``ir.Attribute`` as it is) and result
        types (``ir.Type`` or text). Returns the ``ir.Operation`` (``.result`` for its one
        result); a region's blocks are the caller's (:meth:`at`)."""
        with self._at_end():
            converted = {k: _attribute(name, k, v) for k, v in (attributes or {}).items()}
            types = [ir.Type.parse(t) if isinstance(t, str) else t for t in result_types]
            return ir.Operation.create(name, results=types,
                                       operands=[self._index(v) for v in operands],
                                       attributes=converted, regions=regions)

    def _value(self, value, what: str) -> "ir.Value":
        """`value` if it is an MLIR value (a parameter by name too), else a BuilderError."""
        value = self._resolve(value)
        if not isinstance(value, ir.Value):
            raise self._error(f"{what} of {value!r}: an MLIR value (a builder call's result "
                              f"or a parameter) is needed")
        return value

    def _unary(self, name: str, value, result: "ir.Type", attributes=None) -> "ir.Value":
        with self._at_end():
            return ir.Operation.create(name, results=[result], operands=[value],
                                       attributes=attributes or {}).result

    def _dims(self, **named) -> tuple[list, list]:
        """The names and values of the run-time dimensions given (not None), in the order
        of the keywords: an op's ``dims`` attribute and its trailing operands."""
        given = [(n, self._index(v)) for n, v in named.items() if v is not None]
        for n, v in given:
            if not isinstance(v, ir.Value):
                raise self._error(f"{n} must be an int or an index value, not {v!r}")
            if not isinstance(v.type, ir.IndexType):
                raise self._error(f"{n} must be an int or an index value, not a value of "
                                  f"type {v.type} (k.size() makes an i32 size an index)")
        return [n for n, _ in given], [v for _, v in given]

    def _expect(self, value, what: str, kinds) -> None:
        """A BuilderError unless `value` is an ``ir.Value`` of one of the tcgen05 types
        `kinds` (TmemType, SmemType, FragType, or MBARRIER): the check the IRDL verifier
        would make later, at the builder's line."""
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        names = " or ".join(k if isinstance(k, str) else k.__name__.removesuffix("Type").lower()
                            for k in kinds)
        if not isinstance(value, ir.Value):
            raise self._error(f"operand {what} must be a !tcgen05.{names} value, not "
                              f"{type(value).__name__} {value!r}")
        with self.context:
            info = d.type_info(value.type)
        if not any(info == k if isinstance(k, str) else isinstance(info, k) for k in kinds):
            raise self._error(f"operand {what} must be a !tcgen05.{names} value, not "
                              f"{value.type}")

    def _expect_i1(self, value, what: str) -> None:
        """A BuilderError unless `value` is a Python bool or an ``i1`` value (a
        predicate operand: the IRDL verifier's check, made at the builder's line)."""
        if isinstance(value, bool):
            return
        if not isinstance(value, ir.Value):
            raise self._error(f"operand {what} must be a bool or an i1 value, not "
                              f"{type(value).__name__} {value!r}")
        if str(value.type) != "i1":
            raise self._error(f"operand {what} must be a bool or an i1 value, not a value "
                              f"of type {value.type}")

    def _resolve(self, value):
        return self.args[value] if isinstance(value, str) else value

    # -- the result -------------------------------------------------------------------------

    def finish(self) -> "ir.Module":
        """Ends the kernel (``func.return``) and returns the module."""
        if not self._finished:
            # A kernel body that branches (cf.br) returns from its last block.
            last = self.block if self.block not in self._ended else \
                list(self.function.regions[0].blocks)[-1]
            with self.at(last), self._at_end():
                ir.Operation.create("func.return")
            self._finished = True
        return self.module

    def text(self) -> str:
        """The module as MLIR text, with the locations of the Python lines that built it
        and the parameters under their names (``%A``)."""
        module = self.finish()
        with self.context:
            text = module.operation.get_asm(enable_debug_info=True,
                                            use_name_loc_as_prefix=True)
        return segments.strip(_without_unused_aliases(text))

    def compile(self, **options):
        """Compiles the kernel with ``driver.compile_source`` (options as there: arch,
        emit, pipeline, ...): a ``CompileResult``; bad input raises ``CompileFailed`` with
        diagnostics at the Python lines that built the ops."""
        from tcgen05_lower.driver import compile_source

        return compile_source(self.text(), f"<builder {self.name}>", **options)


def _attribute(op_name: str, name: str, value) -> "ir.Attribute":
    """An attribute as the parser would make it from text: a tcgen05 op's by the
    dialect's attribute table, else by the Python type of the value."""
    if isinstance(value, ir.Attribute):
        return value
    kinds = ATTRIBUTES.get(op_name.removeprefix("tcgen05."), {}) \
        if op_name.startswith("tcgen05.") else {}
    if name in kinds:
        from tcgen05_lower.dialect.op_base import _attribute as table_attribute
        return table_attribute(name, value, kinds[name])
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return _i64(value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F64Type.get(), value)
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    raise TypeError(f"attribute {name} = {value!r}: give an ir.Attribute")


def _kernel_attribute(target: str, threads: int, cta_group: int, grid, extra: Mapping):
    """The ``tcgen05.kernel`` dictionary (docs/kernel.md): each entry of the kind the
    dialect's table ``KERNEL_ENTRIES`` gives it (an entry it does not list is a
    TypeError naming the ones it does)."""
    from tcgen05_lower.dialect.op_base import _attribute as table_attribute

    entries = {"target": target, "threads": threads, "cta_group": cta_group}
    if grid is not None:
        entries["grid"] = list(grid)
    entries.update(extra)
    unknown = [name for name in entries if name not in KERNEL_ENTRIES]
    if unknown:
        raise TypeError(f"the kernel attribute has no entry {', '.join(unknown)} (entries: "
                        f"{', '.join(KERNEL_ENTRIES)})")
    return ir.DictAttr.get({name: table_attribute(name, value, KERNEL_ENTRIES[name][0])
                            for name, value in entries.items()})


def _i64(value: int) -> "ir.IntegerAttr":
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def _without_unused_aliases(text: str) -> str:
    """`text` without the location alias definitions nothing refers to: the printer
    defines one for each parameter's name location above the module although the
    signature spells the location out, and lines the builder text does not need would
    move every later line (which a location the parser gives, e.g. an scf.for's implicit
    terminator's, names)."""
    uses: dict[str, int] = {}
    for alias in re.findall(r"#loc\d*(?![\w])", text):
        uses[alias] = uses.get(alias, 0) + 1
    kept = [line for line in text.split("\n")
            if not ((m := re.match(r"(#loc\d*) = ", line)) and uses[m.group(1)] == 1)]
    return "\n".join(kept)
