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

The package's modules, one concern each (``KernelBuilder`` is their mixins together):
``core`` (the kernel, locations, constants, any op, the result), ``params`` (parameter
types), ``values`` (arithmetic, conversions, global pointers), ``buffers`` (TMEM and
shared-memory buffers, rings, copies into shared memory), ``synchronization`` (mbarriers,
fences, barriers), ``tensor_core`` (MMA, TMEM loads and stores, fragments to and from
global memory), ``fragments`` (frag_map and the per-row ops), ``control_flow`` (loops,
ifs, blocks and branches, warp roles) and ``kernel`` (the class).
"""

from tcgen05_lower.builder.control_flow import If, Loop
from tcgen05_lower.builder.core import CMPI_PREDICATES, MBARRIER, BuilderError
from tcgen05_lower.builder.kernel import KernelBuilder
from tcgen05_lower.builder.params import GLOBAL_POINTER, Param, pointer, tensor_map

__all__ = ["CMPI_PREDICATES", "GLOBAL_POINTER", "MBARRIER", "BuilderError", "If",
           "KernelBuilder", "Loop", "Param", "pointer", "tensor_map"]
