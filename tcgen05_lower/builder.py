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

Every example of ``examples/`` has a twin built with these calls in
``examples/python/<example>.py`` whose PTX is the .mlir file's (tests/test_builder_twins.py):
the place to look for how a kernel of each kind (run-time shapes and grids, TMA and tensor
maps, rings, warp roles, CTA pairs, frag_map epilogues, attention) is written here.
"""

from __future__ import annotations

import types
import contextlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from tcgen05_lower import dialect as d
from tcgen05_lower import segments
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import ops
from tcgen05_lower.dialect.attributes import ATTRIBUTES, KERNEL_ENTRIES
from tcgen05_lower.tma import TENSOR_MAP_ATTR

#: Files whose frames are the builder's own (its context managers run in contextlib).
_OWN_FILES = (str(Path(__file__).resolve()), contextlib.__file__)

#: ``arith.cmpi`` predicates by name (the enum's values, MLIR's ArithBase.td).
CMPI_PREDICATES = types.MappingProxyType({"eq": 0, "ne": 1, "slt": 2, "sle": 3, "sgt": 4,
                                          "sge": 5, "ult": 6, "ule": 7, "ugt": 8, "uge": 9})


#: What ``dialect.type_info`` gives for ``!tcgen05.mbarrier``.
MBARRIER = "mbarrier"

#: The type of a pointer to global memory (address space 1).
GLOBAL_POINTER = "!llvm.ptr<1>"


class BuilderError(ValueError):
    """A builder call the kernel cannot take; the message starts with the Python
    ``file:line`` of the call."""


@dataclass(frozen=True)
class Param:
    """A kernel parameter: its type and the attributes it carries, (name, MLIR text)
    pairs, as ``%C: !llvm.ptr<1> {llvm.align = 16 : i64}`` writes them. :func:`pointer`
    and :func:`tensor_map` make the usual ones; a plain type string is a Param without
    attributes."""

    type: str
    attributes: tuple[tuple[str, str], ...] = ()


def pointer(*, align: int | None = None) -> Param:
    """A global pointer ``!llvm.ptr<1>``; with `align`, the caller's promise
    ``{llvm.align = align}`` (16 lets store_fragment and the transposing fill use
    16-byte accesses)."""
    if align is None:
        return Param(GLOBAL_POINTER)
    return Param(GLOBAL_POINTER, (("llvm.align", f"{int(align)} : i64"),))


def tensor_map(tensor: str, box: Sequence[int], *, swizzle: str = "128B") -> Param:
    """A TMA tensor map parameter (docs/tma.md): a pointer to the CUtensorMap the host
    encodes for the global matrix `tensor` (another parameter's name) with box
    ``[K, rows]`` and `swizzle`, for ``tma_load``."""
    text = (f'{{tensor = "{tensor}", box = array<i64: {", ".join(str(int(b)) for b in box)}>,'
            f' swizzle = "{swizzle}"}}')
    return Param(GLOBAL_POINTER, ((TENSOR_MAP_ATTR, text),))


class KernelBuilder:
    """One kernel: ``func.func @name(params)`` with a ``tcgen05.kernel`` attribute.

    `params` maps each parameter's name to its type (text) or a :class:`Param`; `grid`
    gives the launch grid as expressions of the parameters (``["ceildiv(N, 256)",
    "ceildiv(M, 128)"]``, docs/grid.md); `kernel` adds other entries to the kernel
    attribute (name -> Python value, of the kind ``dialect.attributes.KERNEL_ENTRIES``
    gives it)."""

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

    # -- buffers ----------------------------------------------------------------------------

    def tmem(self, shape: Iterable[int], element: str, *, name: str | None = None,
             stages: int | None = None, **attributes) -> "ir.Value":
        """A logical TMEM buffer ``!tcgen05.tmem<shape, element>``; with `stages`, a ring
        of that many ``[rows, columns]`` stages (``[stages, rows, columns]``, used through
        :meth:`stage`). Other attributes, such as a ``role``, by keyword."""
        shape = tuple(shape) if stages is None else (stages, *shape)
        with self._at_end():
            t = ir.Type.parse(d.TmemType(shape, element).text())
            return ops.TmemBufferOp.build(result_types=[t], name=name, **attributes).results[0]

    def smem(self, shape: Iterable[int], element: str, *, major: str = "K",
             swizzle: str = "128B", stages: int | None = None) -> "ir.Value":
        """A shared-memory operand tile ``!tcgen05.smem<[rows, K], element, major,
        swizzle>``; with `stages`, a ring ``[stages, rows, K]`` (used through :meth:`stage`)."""
        rows, k = shape
        shape = (rows, k) if stages is None else (stages, rows, k)
        with self._at_end():
            t = ir.Type.parse(d.SmemType(shape, element, major, swizzle).text())
            return ops.SmemBufferOp.build(result_types=[t]).results[0]

    def mbarrier(self, *, count: int | None = None, stages: int | None = None,
                 **attributes) -> "ir.Value":
        """``alloc_mbarrier``: an mbarrier expecting `count` arrivals per phase (the
        dialect's default 1 when not given); with `stages`, a ring of them."""
        with self._at_end():
            return ops.AllocMbarrierOp.build(result_types=[d.mbarrier_type()], count=count,
                                             stages=stages, **attributes).results[0]

    def stage(self, ring, index) -> "ir.Value":
        """Stage `index` of a ring: ``smem_stage`` of a ``[stages, rows, K]`` tile,
        ``tmem_stage`` of a ``[stages, rows, columns]`` TMEM buffer, ``mbarrier_stage``
        of an mbarrier ring."""
        self._expect(ring, "ring", (d.SmemType, d.TmemType, MBARRIER))
        with self.context:
            info = d.type_info(ring.type)
        if isinstance(info, d.SmemType):
            if not info.staged:
                raise self._error(f"smem_stage of {ring.type}: not a [stages, rows, K] tile")
            build, view = ops.SmemStageOp.build, info.stage().text()
            operands = {"tile": ring}
        elif isinstance(info, d.TmemType):
            if len(info.shape) != 3:
                raise self._error(f"tmem_stage of {ring.type}: not a [stages, rows, "
                                  f"columns] buffer")
            build = ops.TmemStageOp.build
            view = d.TmemType(info.shape[1:], info.element).text()
            operands = {"buffer": ring}
        else:
            build, view, operands = ops.MbarrierStageOp.build, str(ring.type), {"ring": ring}
        with self._at_end():
            return build(result_types=[ir.Type.parse(view)], stage=self._index(index),
                         **operands).results[0]

    # -- copies into shared memory ----------------------------------------------------------

    def fill(self, source, tile, *, k_offset=0, src_layout: str, src_ld=None,
             row_offset=None, rows=None, k_size=None) -> None:
        """``smem_fill``: global -> shared tile (``src_layout`` "mn_k" or "k_mn") from
        `k_offset`. `src_ld` (the leading dimension), `row_offset` and the extents `rows`
        and `k_size` may be run-time values (index): they become the op's named trailing
        operands (its ``dims``); an int `src_ld` is the attribute."""
        self._expect(tile, "tile", d.SmemType)
        if src_ld is None:
            raise self._error("smem_fill needs src_ld (an int or an index value)")
        constant_ld = src_ld if isinstance(src_ld, int) else None
        names, values = self._dims(src_ld=None if constant_ld is not None else src_ld,
                                   row_offset=row_offset, rows=rows, k_size=k_size)
        with self._at_end():
            ops.SmemFillOp.build(source=self._resolve(source), tile=tile,
                                 k_offset=self._index(k_offset), dim_values=values,
                                 src_layout=src_layout, src_ld=constant_ld,
                                 dims=names or None)

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

    def tma_load(self, tensor_map, tile, coordinates: Sequence, *, barrier=None,
                 **attributes) -> None:
        """``tma_load``: the box of the tensor map (a parameter made with
        :func:`tensor_map`, by name) at `coordinates` (innermost first: K, then the row)
        into `tile`, completing on `barrier` (an mbarrier; without one tcgen05-insert-sync
        gives it one); other attributes of the op by keyword."""
        self._expect(tile, "tile", d.SmemType)
        coordinates = [self._index(c) for c in coordinates]
        if barrier is None:
            # Without an mbarrier the generic op's operands are the coordinates right
            # after the tile, as the parser makes them from text.
            barrier, coordinates = coordinates[0], coordinates[1:]
        else:
            self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.TmaLoadOp.build(tensor_map=self._resolve(tensor_map), tile=tile,
                                barrier=barrier, coordinates=coordinates, **attributes)

    # -- synchronization --------------------------------------------------------------------

    def mbarrier_expect_tx(self, barrier, *, bytes: int | None = None) -> None:
        """``mbarrier_expect_tx``: one arrival plus the bytes the TMA loads that follow on
        `barrier` bring (counted by the compiler unless given)."""
        self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.MbarrierExpectTxOp.build(barrier=barrier, bytes=bytes)

    def mbarrier_wait(self, barrier, phase=None) -> None:
        """``mbarrier_wait`` for the phase parity `phase` (an int or an i32 value; without
        it the compiler tracks the phase)."""
        self._expect(barrier, "barrier", MBARRIER)
        if isinstance(phase, int):
            phase = self.constant(phase, "i32")
        with self._at_end():
            ops.MbarrierWaitOp.build(barrier=barrier, phase=phase)

    def mbarrier_arrive(self, barrier, **attributes) -> None:
        """``mbarrier_arrive``: one arrival of each thread that runs it."""
        self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.MbarrierArriveOp.build(barrier=barrier, **attributes)

    def commit(self, barrier, **attributes) -> None:
        """``tcgen05.commit``: `barrier` tracks the completion of the MMAs issued before."""
        self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.CommitOp.build(barrier=barrier, **attributes)

    def fence(self, kind: str) -> None:
        """``tcgen05.fence`` (`kind` "before_thread_sync" or "after_thread_sync")."""
        with self._at_end():
            ops.FenceOp.build(kind=kind)

    def fence_proxy_async(self) -> None:
        """``fence_proxy_async``: generic-proxy writes to shared memory become visible to
        the async proxy (the MMA, TMA)."""
        with self._at_end():
            ops.FenceProxyAsyncOp.build()

    def wait(self, kind: str) -> None:
        """``tcgen05.wait`` (`kind` "ld" or "st")."""
        with self._at_end():
            ops.WaitOp.build(kind=kind)

    def barrier(self) -> None:
        """``tcgen05.barrier``: a CTA-wide thread barrier."""
        with self._at_end():
            ops.BarrierOp.build()

    # -- the tensor core and TMEM ------------------------------------------------------------

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

    def ld(self, buffer, column, columns: int, element: str | None = None,
           **attributes) -> "ir.Value":
        """``tcgen05.ld`` of `columns` columns from `column`: a ``!tcgen05.frag`` (other
        attributes, such as ``shape``, by keyword)."""
        self._expect(buffer, "source", d.TmemType)
        with self._at_end():
            t = d.type_info(buffer.type)
            frag = d.frag_type((t.rows, columns), element or t.element)
            return ops.LdOp.build(source=buffer, column=self._index(column),
                                  result_types=[frag], **attributes).results[0]

    def ld_red(self, buffer, column, columns: int, *, op: str,
               **attributes) -> tuple["ir.Value", "ir.Value"]:
        """``tcgen05.ld.red``: a load of `columns` columns that also reduces each row
        (`op` "min" or "max"; ``abs``, ``nan`` by keyword): the fragment and the per-row
        ``[rows, 1]`` value."""
        self._expect(buffer, "source", d.TmemType)
        with self._at_end():
            t = d.type_info(buffer.type)
            frag = d.frag_type((t.rows, columns), t.element)
            reduced = d.frag_type((t.rows, 1), t.element)
            result = ops.LdRedOp.build(source=buffer, column=self._index(column), op=op,
                                       result_types=[frag, reduced], **attributes)
            return result.results[0], result.results[1]

    def cp(self, dest, source, *, shape: str, **attributes) -> None:
        """``tcgen05.cp``: a shared-memory tile into TMEM buffer `dest` (`shape`
        "128x256b", "4x256b", "128x128b", "64x128b" or "32x128b"; ``multicast``,
        ``decompress``, ``column`` by keyword), issued by one thread."""
        self._expect(dest, "dest", d.TmemType)
        self._expect(source, "source", d.SmemType)
        with self._at_end():
            ops.CpOp.build(dest=dest, source=source, shape=shape, **attributes)

    def shift(self, buffer) -> None:
        """``tcgen05.shift``: the rows of each 32-lane quarter of a TMEM buffer down by one
        lane (``tcgen05.shift.down``)."""
        self._expect(buffer, "buffer", d.TmemType)
        with self._at_end():
            ops.ShiftOp.build(buffer=buffer)

    def st(self, buffer, column, fragment, **attributes) -> None:
        """``tcgen05.st``: a fragment into TMEM `buffer` from `column`."""
        self._expect(buffer, "dest", d.TmemType)
        self._expect(fragment, "fragment", d.FragType)
        with self._at_end():
            ops.StOp.build(dest=buffer, column=self._index(column), fragment=fragment,
                           **attributes)

    def store_fragment(self, fragment, dest, column, *, ld, row_offset=None,
                       column_offset=None, rows=None, columns=None) -> None:
        """``store_fragment``: a fragment into a row-major global matrix of row stride
        `ld` at `column`. `ld`, `row_offset`, `column_offset` and the extents `rows` and
        `columns` may be run-time values (index): they become the op's named trailing
        operands (``dims``); an int `ld` is the attribute."""
        self._expect(fragment, "fragment", d.FragType)
        constant_ld = ld if isinstance(ld, int) else None
        names, values = self._dims(ld=None if constant_ld is not None else ld,
                                   row_offset=row_offset, column_offset=column_offset,
                                   rows=rows, columns=columns)
        with self._at_end():
            ops.StoreFragmentOp.build(fragment=fragment, dest=self._resolve(dest),
                                      column=self._index(column), dim_values=values,
                                      ld=constant_ld, dims=names or None)

    def load_fragment(self, source, column, shape: Sequence[int], element: str, *, ld,
                      row_offset=None, column_offset=None, rows=None,
                      columns=None) -> "ir.Value":
        """``load_fragment``: a ``[rows, columns]`` fragment of a row-major global matrix
        (the inverse of :meth:`store_fragment`, with the same dimensions)."""
        constant_ld = ld if isinstance(ld, int) else None
        names, values = self._dims(ld=None if constant_ld is not None else ld,
                                   row_offset=row_offset, column_offset=column_offset,
                                   rows=rows, columns=columns)
        with self._at_end():
            return ops.LoadFragmentOp.build(
                source=self._resolve(source), column=self._index(column),
                dim_values=values, ld=constant_ld, dims=names or None,
                result_types=[d.frag_type(shape, element)]).results[0]

    # -- fragments (registers) --------------------------------------------------------------

    def frag_map(self, body, *inputs, element: str | None = None,
                 shape: Sequence[int] | None = None) -> "ir.Value":
        """``frag_map``: a fragment computed element by element. `body` is a Python
        function called once, while the op's body is built, with one element value per
        input, then the row and the column (index values); it builds its result with the
        builder's arithmetic (:meth:`add`, :meth:`exp`, :meth:`convert`, :meth:`load`
        ...) and returns it. The result has the inputs' shape (`shape` for a map of no
        input) and the element type `element` (by default the first input's); the value
        returned must have that type."""
        for i, value in enumerate(inputs):
            self._expect(value, f"input {i}", d.FragType)
        with self.context:
            infos = [d.type_info(v.type) for v in inputs]
        if not infos and (shape is None or element is None):
            raise self._error("a frag_map of no input needs shape= and element=")
        shape = tuple(shape) if shape is not None else infos[0].shape
        element = element or infos[0].element
        with self._at_end():
            op = ops.FragMapOp.build(inputs=list(inputs),
                                     result_types=[d.frag_type(shape, element)], regions=1)
            index = ir.IndexType.get()
            block = op.regions[0].blocks.append(
                *[ir.Type.parse(i.element) for i in infos], index, index)
        self._blocks.append(block)
        try:
            value = body(*block.arguments)
            if isinstance(value, (int, float)):  # a constant result (an initial value)
                with self.context:
                    value = self._number(value, ir.Type.parse(element))
        finally:
            self._blocks.pop()
        if not isinstance(value, ir.Value) or str(value.type) != element:
            raise self._error(f"the frag_map body returned {value!r}: it must return a "
                              f"{element} value (the element type of the result)")
        with self.context, self._location(), ir.InsertionPoint(block):
            ir.Operation.create("gpu.yield", operands=[value])
        return op.results[0]

    def frag_reduce(self, fragment, kind: str) -> "ir.Value":
        """``frag_reduce``: each row of a fragment reduced (`kind` "max", "sum", ...) to
        a per-row value ``[rows, 1]``."""
        self._expect(fragment, "fragment", d.FragType)
        with self._at_end():
            info = d.type_info(fragment.type)
            t = d.frag_type((info.shape[0], 1), info.element)
            return ops.FragReduceOp.build(fragment=fragment, kind=kind,
                                          result_types=[t]).results[0]

    def frag_broadcast(self, rows, like) -> "ir.Value":
        """``frag_broadcast``: a per-row value ``[rows, 1]`` repeated across the columns
        of the fragment `like` (a fragment of its type)."""
        self._expect(rows, "rows", d.FragType)
        self._expect(like, "like", d.FragType)
        with self._at_end():
            return ops.FragBroadcastOp.build(rows=rows, like=like,
                                             result_types=[like.type]).results[0]

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

    def new_block(self, *types: str) -> "ir.Block":
        """A new block at the end of the kernel's body, with arguments of `types`: for
        unstructured control flow (:meth:`br`, :meth:`cond_br`); build in it with
        ``with k.at(block):``. ``func.return`` ends the last block."""
        with self.context, self._location() as where:
            parsed = [ir.Type.parse(t) for t in types]
            return self.function.regions[0].blocks.append(*parsed,
                                                          arg_locs=[where] * len(parsed))

    def br(self, dest: "ir.Block", *args) -> None:
        """``cf.br`` to `dest` with its arguments; ends the current block."""
        args = [self._index(a) for a in args]
        with self._at_end():
            ir.Operation.create("cf.br", operands=args, successors=[dest])
        self._ended.add(self.block)

    def cond_br(self, condition, true_dest: "ir.Block", false_dest: "ir.Block", *,
                true_args: Sequence = (), false_args: Sequence = ()) -> None:
        """``cf.cond_br condition, true_dest(true_args), false_dest(false_args)``; ends
        the current block."""
        true_args = [self._index(a) for a in true_args]
        false_args = [self._index(a) for a in false_args]
        with self._at_end():
            segments = ir.DenseI32ArrayAttr.get([1, len(true_args), len(false_args)])
            ir.Operation.create("cf.cond_br", operands=[condition, *true_args, *false_args],
                                successors=[true_dest, false_dest],
                                attributes={"operandSegmentSizes": segments})
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
