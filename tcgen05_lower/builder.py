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
Every op is located at the line of the caller's Python code that built it, so a
diagnostic points there. ``module`` is the MLIR module, to run any pipeline on
(``tcgen05_lower.pipeline``); ``compile`` runs the driver on its text.
"""

from __future__ import annotations

import contextlib
import inspect
import re
from pathlib import Path
from typing import Iterable, Mapping

from tcgen05_lower import dialect as d
from tcgen05_lower import segments
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import ops

#: Files whose frames are the builder's own (its context managers run in contextlib).
_OWN_FILES = (str(Path(__file__).resolve()), contextlib.__file__)


class KernelBuilder:
    """One kernel: ``func.func @name(params)`` with a ``tcgen05.kernel`` attribute."""

    def __init__(self, name: str, *, params: Mapping[str, str] = (), target: str = "sm_100a",
                 threads: int = 128, cta_group: int = 1, context: "ir.Context | None" = None):
        self.name = name
        self.context = context if context is not None else d.make_context()
        if context is not None:
            d.load_dialect(context)
        params = dict(params)
        with self.context, self._location():
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
            # Each parameter's name rides on its block argument's location (a name
            # location), so the text says %A, not %arg0, and the parser hands the name
            # back (kernel_ir.source_parameter_names): the launch manifest and a grid
            # or tensor map refer to the parameters by name.
            here = self._location()
            self.entry = func.regions[0].blocks.append(
                *types, arg_locs=[ir.Location.name(name, childLoc=here) for name in params])
        self.args = dict(zip(params, self.entry.arguments))
        self._blocks = [self.entry]
        self._constants: dict = {}
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

    @contextlib.contextmanager
    def _at_end(self):
        if self._finished:
            raise RuntimeError("the kernel is finished: build before compile()/finish()")
        with self.context, self._location(), ir.InsertionPoint(self._blocks[-1]):
            yield

    def arg(self, name: str) -> "ir.Value":
        return self.args[name]

    def constant(self, value, type_: str = "index") -> "ir.Value":
        """An ``arith.constant`` (``index``, ``i1``, ``i32``, ``i64``), made once per
        value and type at the kernel's start."""
        key = (value, type_)
        if key not in self._constants:
            with self.context, self._location():
                first = self.entry.operations[0] if len(self.entry.operations) else None
                point = ir.InsertionPoint(first) if first is not None else \
                    ir.InsertionPoint(self.entry)
                with point:
                    t = ir.Type.parse(type_)
                    attr = ir.BoolAttr.get(bool(value)) if type_ == "i1" else \
                        ir.IntegerAttr.get(t, int(value))
                    op = ir.Operation.create("arith.constant", results=[t],
                                             attributes={"value": attr})
            self._constants[key] = op.results[0]
        return self._constants[key]

    def _index(self, value) -> "ir.Value":
        return self.constant(value) if isinstance(value, int) else value

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
        with self._at_end():
            ops.SmemFillOp.build(source=self._resolve(source), tile=tile,
                                 k_offset=self._index(k_offset), src_layout=src_layout,
                                 src_ld=src_ld)

    def mma(self, d_, a, b, enable_input_d, *, kind: str, scale_a=None, scale_b=None,
            metadata=None, aux=(), **attributes) -> None:
        """``tcgen05.mma``: D (+)= A x B; ``enable_input_d`` a bool or an i1 value; the
        scale-factor buffers (block scaling) and the metadata buffer (sparse) by keyword,
        or as ``aux`` in the order of the text (scale_a, scale_b, then metadata); other
        attributes (k_offset, sparse, scale_vec, collector_a, ...) by keyword."""
        if aux:
            if segments.mma_segments(segments.MMA_FIXED + len(aux)) is None \
                    or any(v is not None for v in (scale_a, scale_b, metadata)):
                raise TypeError("mma takes aux = (metadata,), (scale_a, scale_b) or "
                                "(scale_a, scale_b, metadata), and not with those keywords")
            scale_a, scale_b = (aux[0], aux[1]) if len(aux) >= 2 else (None, None)
            metadata = aux[-1] if len(aux) != 2 else None
        with self._at_end():
            enable = self.constant(enable_input_d, "i1") if isinstance(enable_input_d, bool) \
                else enable_input_d
            ops.MmaOp.build(d=d_, a=a, b=b, enable_input_d=enable, scale_a=scale_a,
                            scale_b=scale_b, metadata=metadata, kind=kind, **attributes)

    def ld(self, buffer, column, columns: int, element: str | None = None) -> "ir.Value":
        """``tcgen05.ld`` of `columns` columns from `column`: a ``!tcgen05.frag``."""
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

    @contextlib.contextmanager
    def loop(self, lower, upper, step):
        """``scf.for`` from lower to upper: the ops built inside the ``with`` form its body;
        yields the induction variable."""
        with self._at_end():
            index = ir.IndexType.get()
            op = ir.Operation.create(
                "scf.for", results=[], regions=1,
                operands=[self._index(lower), self._index(upper), self._index(step)])
            body = op.regions[0].blocks.append(index)
        self._blocks.append(body)
        try:
            yield body.arguments[0]
        finally:
            self._blocks.pop()
            with self.context, self._location(), ir.InsertionPoint(body):
                ir.Operation.create("scf.yield")

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
