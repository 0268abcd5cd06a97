"""Building kernels from Python, without writing MLIR text.

    from tcgen05_lower.builder import KernelBuilder

    k = KernelBuilder("gemm", params={"A": "!llvm.ptr<1>", "C": "!llvm.ptr<1>"})
    acc = k.tmem([128, 256], "f32", name="acc")
    ...
    result = k.compile(arch="sm_100a")       # a driver.CompileResult: .ptx, .mlir, ...

The builder makes a ``func.func`` kernel (its ``tcgen05.kernel`` attribute from the
arguments) in a module of its own context, or of the ``ir.Context`` the caller passes
(loaded with the tcgen05 dialect), and builds each op with the typed classes of
``tcgen05_lower.dialect.ops``: exactly the generic ops the parser would make from text.
Every op is located at the line of the caller's Python code that built it
(``loc("file.py":line:1)``), so a diagnostic, and the TMEM plan's report, point there.
The parameters keep their names: each block argument of the kernel carries a name
location, and :meth:`KernelBuilder.text` prints with MLIR's ``use_name_loc_as_prefix``,
so the text says ``%A`` where the printer would otherwise say ``%arg0``.

Ops go at the end of the current block: the kernel's body, or the body of the innermost
``with`` (``loop``, ``if_``, ``role``); ``with k.at(block):`` builds in a block of one's
own, and ``k.op(name, ...)`` builds any op. ``module`` is the MLIR module, to run any
pipeline on (``tcgen05_lower.pipeline``); ``compile`` runs the driver on its text.
"""

from __future__ import annotations

import types
import contextlib
import inspect
import re
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from tcgen05_lower import dialect as d
from tcgen05_lower import segments
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import ops
from tcgen05_lower.dialect.attributes import ATTRIBUTES

#: Files whose frames are the builder's own (its context managers run in contextlib).
_OWN_FILES = (str(Path(__file__).resolve()), contextlib.__file__)

#: ``arith.cmpi`` predicates by name (the enum's values, MLIR's ArithBase.td).
CMPI_PREDICATES = types.MappingProxyType({"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4,
                                          "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9})


class BuilderError(ValueError):
    """A builder call the kernel cannot take; the message starts with the Python
    ``file:line`` of the call."""


class KernelBuilder:
    """One kernel: ``func.func @name(params)`` with a ``tcgen05.kernel`` attribute."""

    def __init__(self, name: str, *, params: Mapping[str, str] = (), target: str = "sm_100a",
                 threads: int = 128, cta_group: int = 1, context: "ir.Context | None" = None):
        self.name = name
        self.threads = threads
        self.context = context if context is not None else d.make_context()
        if context is not None:
            d.load_dialect(context)
        params = dict(params)
        with self.context, self._location() as where:
            self.module = ir.Module.create()
            types = [ir.Type.parse(t) for t in params.values()]
            function_type = ir.FunctionType.get(types, [])
            with ir.InsertionPoint(self.module.body):
                func = ir.Operation.create(
                    "func.func", regions=1,
                    attributes={"sym_name": ir.StringAttr.get(name),
                                "function_type": ir.TypeAttr.get(function_type),
                                d.KERNEL_ATTR: ir.DictAttr.get({
                                    "target": ir.StringAttr.get(target),
                                    "threads": _i64(threads), "cta_group": _i64(cta_group)})})
            self.function = func
            # A name location per parameter: printed as its SSA name (see text()).
            self.entry = func.regions[0].blocks.append(
                *types, arg_locs=[ir.Location.name(p, childLoc=where) for p in params])
        self.args = dict(zip(params, self.entry.arguments))
        self._blocks = [self.entry]
        self._before: dict = {}  # block -> the op new ops go before (its terminator)
        self._partitions: dict = {}  # block -> (ops built in it then, partitions body)
        self._built: dict = {}  # block -> how many builder calls added ops at its end
        self._ended: set = set()  # blocks ended by yield_()
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
        """An ``arith.constant`` (``index``, ``i1``, ``i32``, ``i64``), made once per
        value and type at the kernel's start, in the order first asked for."""
        key = (value, type_)
        if key not in self._constants:
            with self.context, self._location():
                point = ir.InsertionPoint.after(self._last_constant) \
                    if self._last_constant is not None \
                    else ir.InsertionPoint.at_block_begin(self.entry)
                with point:
                    t = ir.Type.parse(type_)
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

    # -- arithmetic -------------------------------------------------------------------------

    def _arith(self, name: str, lhs, rhs, **attributes) -> "ir.Value":
        lhs, rhs = self._index(lhs), self._index(rhs)
        if lhs.type != rhs.type:
            raise self._error(f"arith.{name} of {lhs.type} and {rhs.type}: the operands "
                              f"must have one type")
        with self._at_end():
            return ir.Operation.create(f"arith.{name}", results=[lhs.type],
                                       operands=[lhs, rhs], attributes=attributes).result

    def add(self, lhs, rhs) -> "ir.Value":
        """``arith.addi`` (an int operand is an ``index`` constant)."""
        return self._arith("addi", lhs, rhs)

    def sub(self, lhs, rhs) -> "ir.Value":
        """``arith.subi``."""
        return self._arith("subi", lhs, rhs)

    def mul(self, lhs, rhs) -> "ir.Value":
        """``arith.muli``."""
        return self._arith("muli", lhs, rhs)

    def div(self, lhs, rhs) -> "ir.Value":
        """``arith.divui``: unsigned division (sizes and indices are never negative)."""
        return self._arith("divui", lhs, rhs)

    def rem(self, lhs, rhs) -> "ir.Value":
        """``arith.remui``."""
        return self._arith("remui", lhs, rhs)

    def cmp(self, predicate: str, lhs, rhs) -> "ir.Value":
        """``arith.cmpi predicate, lhs, rhs``: an ``i1`` (predicate ``"eq"``, ``"ne"``,
        ``"slt"``, ... ``"uge"``)."""
        if predicate not in CMPI_PREDICATES:
            raise self._error(f"arith.cmpi predicate {predicate!r}: not one of "
                              f"{', '.join(CMPI_PREDICATES)}")
        lhs, rhs = self._index(lhs), self._index(rhs)
        if lhs.type != rhs.type:
            raise self._error(f"arith.cmpi of {lhs.type} and {rhs.type}: the operands "
                              f"must have one type")
        with self._at_end():
            attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64),
                                      CMPI_PREDICATES[predicate])
            return ir.Operation.create("arith.cmpi", results=[ir.IntegerType.get_signless(1)],
                                       operands=[lhs, rhs],
                                       attributes={"predicate": attr}).result

    # -- buffers ----------------------------------------------------------------------------

    def tmem(self, shape: Iterable[int], element: str, *, name: str | None = None,
             **attributes) -> "ir.Value":
        """A logical TMEM buffer ``!tcgen05.tmem<shape, element>`` (other attributes, such
        as a ``role``, by keyword)."""
        with self._at_end():
            t = ir.Type.parse(d.TmemType(tuple(shape), element).text())
            return ops.TmemBufferOp.build(result_types=[t], name=name, **attributes).results[0]

    def smem(self, shape: Iterable[int], element: str, *, major: str = "K",
             swizzle: str = "128B") -> "ir.Value":
        """A shared-memory operand tile ``!tcgen05.smem<[rows, K], element, major, swizzle>``."""
        with self._at_end():
            rows, k = shape
            t = ir.Type.parse(d.SmemType((rows, k), element, major, swizzle).text())
            return ops.SmemBufferOp.build(result_types=[t]).results[0]

    # -- operations -------------------------------------------------------------------------

    def fill(self, source, tile, *, k_offset=0, src_layout: str, src_ld: int) -> None:
        """``smem_fill``: global -> shared tile (``src_layout`` "mn_k" or "k_mn")."""
        self._expect(tile, "tile", d.SmemType)
        with self._at_end():
            ops.SmemFillOp.build(source=self._resolve(source), tile=tile,
                                 k_offset=self._index(k_offset), src_layout=src_layout,
                                 src_ld=src_ld)

    def mma(self, d_, a, b, enable_input_d, *, kind: str, scale_a=None, scale_b=None,
            metadata=None, aux=(), **attributes) -> None:
        """``tcgen05.mma``: D (+)= A x B; ``enable_input_d`` a bool or an i1 value; the
        scale-factor buffers (block scaling) and the metadata buffer (sparse) by keyword,
        or as ``aux`` in the order of the text (scale_a, scale_b, then metadata); other
        attributes (k_offset, sparse, scale_vec, collector_a, ...) by keyword. D must be
        a TMEM buffer and B a shared-memory tile (A either): a BuilderError otherwise."""
        if aux:
            if segments.mma_segments(segments.MMA_FIXED + len(aux)) is None \
                    or any(v is not None for v in (scale_a, scale_b, metadata)):
                raise TypeError("mma takes aux = (metadata,), (scale_a, scale_b) or "
                                "(scale_a, scale_b, metadata), and not with those keywords")
            scale_a, scale_b = (aux[0], aux[1]) if len(aux) >= 2 else (None, None)
            metadata = aux[-1] if len(aux) != 2 else None
        self._expect(d_, "D", d.TmemType)
        self._expect(a, "A", (d.SmemType, d.TmemType))
        self._expect(b, "B", d.SmemType)
        with self._at_end():
            enable = self.constant(enable_input_d, "i1") if isinstance(enable_input_d, bool) \
                else enable_input_d
            ops.MmaOp.build(d=d_, a=a, b=b, enable_input_d=enable, scale_a=scale_a,
                            scale_b=scale_b, metadata=metadata, kind=kind, **attributes)

    def _expect(self, value, what: str, kinds) -> None:
        """A BuilderError unless `value` is an ``ir.Value`` of one of the tcgen05 types
        `kinds` (the check the IRDL verifier would make later, at the builder's line)."""
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        names = " or ".join(k.__name__.removesuffix("Type").lower() for k in kinds)
        if not isinstance(value, ir.Value):
            raise self._error(f"operand {what} must be a !tcgen05.{names} value, not "
                              f"{type(value).__name__} {value!r}")
        with self.context:
            info = d.type_info(value.type)
        if not isinstance(info, kinds):
            raise self._error(f"operand {what} must be a !tcgen05.{names} value, not "
                              f"{value.type}")

    def ld(self, buffer, column, columns: int, element: str | None = None) -> "ir.Value":
        """``tcgen05.ld`` of `columns` columns from `column`: a ``!tcgen05.frag``."""
        self._expect(buffer, "source", d.TmemType)
        with self._at_end():
            t = d.type_info(buffer.type)
            frag = d.frag_type((t.rows, columns), element or t.element)
            return ops.LdOp.build(source=buffer, column=self._index(column),
                                  result_types=[frag]).results[0]

    def store_fragment(self, fragment, dest, column, *, ld: int) -> None:
        """``store_fragment``: a fragment into a row-major global matrix of row stride ld."""
        with self._at_end():
            ops.StoreFragmentOp.build(fragment=fragment, dest=self._resolve(dest),
                                      column=self._index(column), ld=ld)

    # -- control flow -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _body(self, block: "ir.Block", terminator: str | None):
        """Builds the ``with`` body into `block`, then ends it with `terminator` (unless
        the body ended it with :meth:`yield_`)."""
        self._blocks.append(block)
        try:
            yield
        finally:
            self._blocks.pop()
        if terminator is not None and block not in self._ended:
            with self.context, self._location(), ir.InsertionPoint(block):
                ir.Operation.create(terminator)

    @contextlib.contextmanager
    def loop(self, lower, upper, step, *, iter_args: Sequence = ()):
        """``scf.for`` from lower to upper: the ops built inside the ``with`` form its body.
        Without `iter_args` it yields the induction variable; with them, a :class:`Loop`
        (``.index``, ``.args``; :meth:`yield_` the next values in the body; ``.results``
        after the ``with``)."""
        with self._at_end():
            index = ir.IndexType.get()
            inits = [self._index(v) for v in iter_args]
            op = ir.Operation.create(
                "scf.for", results=[v.type for v in inits], regions=1,
                operands=[self._index(lower), self._index(upper), self._index(step), *inits])
            body = op.regions[0].blocks.append(index, *[v.type for v in inits])
        if iter_args:
            loop = Loop(op, body)
            with self._body(body, None):
                yield loop
            if body not in self._ended:
                raise self._error(f"the loop carries {len(inits)} value(s): end its body "
                                  f"with yield_(...)")
        else:
            with self._body(body, "scf.yield"):
                yield body.arguments[0]

    @contextlib.contextmanager
    def if_(self, condition, *, result_types: Sequence = ()):
        """``scf.if condition``: the ``with`` body is the then-branch; yields an
        :class:`If` whose ``with .else_():`` builds the else-branch. With `result_types`,
        each branch ends with :meth:`yield_` and ``.results`` are the op's results."""
        if isinstance(condition, bool):
            condition = self.constant(condition, "i1")
        with self._at_end():
            types = [ir.Type.parse(t) if isinstance(t, str) else t for t in result_types]
            op = ir.Operation.create("scf.if", results=types, operands=[condition],
                                     regions=2)
            then = op.regions[0].blocks.append()
        branch = If(self, op)
        with self._body(then, None if types else "scf.yield"):
            yield branch
        if types and then not in self._ended:
            raise self._error("the if has results: end its branches with yield_(...)")
        if types and not branch.has_else:
            raise self._error("an if with results needs an else branch")

    def yield_(self, *values) -> None:
        """``scf.yield values``: ends the body of a loop with iter_args, or a branch of an
        if with results (or any ``with`` body: nothing is added after it)."""
        values = [self._index(v) for v in values]
        with self._at_end():
            ir.Operation.create("scf.yield", operands=values)
        self._ended.add(self.block)

    # -- warp roles -------------------------------------------------------------------------

    @contextlib.contextmanager
    def role(self, name: str, *, first_warp: int, warps: int):
        """A warp role (docs/partitions.md): the ops of the ``with`` body are the program
        of warps ``first_warp .. first_warp + warps - 1``. Consecutive roles share one
        ``tcgen05.partitions`` op; any other op between them starts a new one. A role
        outside the kernel's warps (``threads / 32``) is a BuilderError."""
        cta_warps = self.threads // 32
        if first_warp < 0 or warps < 1 or first_warp + warps > cta_warps:
            raise self._error(f"role {name!r} has warps {first_warp}..{first_warp + warps - 1}"
                              f", outside the CTA's warps 0..{cta_warps - 1} (threads = "
                              f"{self.threads})")
        body = self._partitions_body()
        with self.context, self._location(), ir.InsertionPoint(self._before[body]):
            op = ops.RoleOp.build(regions=1, name=name, first_warp=first_warp, warps=warps)
            program = op.regions[0].blocks.append()
        with self._body(program, "gpu.yield"):
            yield

    def _partitions_body(self) -> "ir.Block":
        """The body of the ``tcgen05.partitions`` op the next role joins: the current
        block's last op if it is one (nothing was built after it), else a new one."""
        block = self.block
        last = self._partitions.get(block)
        if last is not None and self._built.get(block) == last[0]:
            return last[1]
        with self._at_end():
            op = ops.PartitionsOp.build(regions=1)
            body = op.regions[0].blocks.append()
            with ir.InsertionPoint(body):
                self._before[body] = ir.Operation.create("gpu.yield")
        self._partitions[block] = (self._built[block], body)
        return body

    def _resolve(self, value):
        return self.args[value] if isinstance(value, str) else value

    # -- the result -------------------------------------------------------------------------

    def finish(self) -> "ir.Module":
        """Ends the kernel (``func.return``) and returns the module."""
        if not self._finished:
            with self._at_end():
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


class Loop:
    """An ``scf.for`` with iteration arguments being built."""

    def __init__(self, op: "ir.Operation", body: "ir.Block"):
        self.op = op
        self.index = body.arguments[0]
        self.args = list(body.arguments)[1:]

    @property
    def results(self) -> list:
        return list(self.op.results)


class If:
    """An ``scf.if`` being built: ``with branch.else_():`` builds its else-branch."""

    def __init__(self, builder: KernelBuilder, op: "ir.Operation"):
        self._builder = builder
        self.op = op
        self.has_else = False

    @contextlib.contextmanager
    def else_(self):
        if self.has_else:
            raise self._builder._error("this if has its else branch already")
        self.has_else = True
        with self._builder.context:
            block = self.op.regions[1].blocks.append()
        terminator = None if len(self.op.results) else "scf.yield"
        with self._builder._body(block, terminator):
            yield
        if terminator is None and block not in self._builder._ended:
            raise self._builder._error("the if has results: end its branches with "
                                       "yield_(...)")

    @property
    def results(self) -> list:
        return list(self.op.results)


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
