"""What a ``tcgen05.frag_map`` may compute: the rules tcgen05-verify checks and the
lowering (``lowering/compute.py``) relies on. No pass logic, only the op's structure.

- The inputs are fragments of one type (IRDL binds a variadic group to one type) whose
  element type a warpgroup load gives (f32, i32, f16, bf16) or a computed one; the result
  has their shape.
- The body is one block: the element of each input, then its row and column (index);
  it ends with ``gpu.yield`` of one value of the result's element type
  (``COMPUTED_ELEMENTS``: what store_fragment can store).
- Its ops are arith, index, the math ops of ``MATH_OPS`` and the llvm ops that read
  memory or make constants (``BODY_LLVM_OPS``): the body runs once per element, in an
  order the compiler picks, in every thread that holds one, so it must not write memory
  or hold control flow or tcgen05 ops.
- ``tcgen05.frag_reduce`` reduces each row of an f32 fragment over its columns (``max``
  or ``sum``) into a [rows, 1] fragment; ``tcgen05.frag_broadcast`` repeats a [rows, 1]
  fragment (frag_reduce's or ld_red's per-row result) along the columns of a [rows, N]
  one, so that a frag_map can take it beside that fragment (a map's inputs have one
  type). A per-row result is a *row vector*, and so is a frag_map whose first input is
  one: a map of [rows, 1] fragments (row vectors, one-column loads, maps of them)
  computes per row, once per thread (the online softmax's running max and sum), and a
  map whose result is a row vector yields f32 or i32 (it is held in one 32-bit
  register). A frag_map of no input with a [128, 1] result is a row vector computed
  from the row alone (an initial running max of -inf); an scf.for may carry row vectors
  as iteration arguments (``loop_initial_value``). frag_broadcast takes any [rows, 1]
  fragment held one row per thread (what tcgen05-select-layouts checks); frag_reduce and
  frag_broadcast's `like` take no row vector.
- A conversion to fp8 is ``arith.truncf`` from f32 (``cvt.rn.satfinite.{e4m3x2,e5m2x2}
  .f32``, the f32 form PTX has); an fp8 value may only be yielded. Other narrow float
  types (f8E4M3, f6, f4) have no conversion here.
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.text import did_you_mean

#: Dialect prefixes of the ops a body may hold, and the llvm ops it may use.
BODY_DIALECTS = ("arith.", "index.")
BODY_LLVM_OPS = ("llvm.getelementptr", "llvm.load", "llvm.mlir.constant", "llvm.bitcast")
#: The math ops a body may use: exp and tanh (rewritten by the lowering into ex2.approx
#: and a division), and those convert-math-to-llvm lowers to one NVPTX instruction.
MATH_OPS = ("math.absf", "math.copysign", "math.exp", "math.exp2", "math.fma", "math.sqrt",
            "math.tanh")
#: Element types of the fragments a warpgroup load gives.
LOADED_ELEMENTS = ("f32", "i32", "si32", "ui32", "f16", "bf16")
#: Element types a frag_map may yield (store_fragment stores them) -> bytes in memory.
COMPUTED_ELEMENTS = MappingProxyType({"f32": 4, "i32": 4, "f16": 2, "bf16": 2,
                                      "f8E4M3FN": 1, "f8E5M2": 1})
#: fp8 element types -> the cvt destination type of two of them (PTX cvt, .f8x2type).
FP8_CVT = MappingProxyType({"f8E4M3FN": "e4m3x2", "f8E5M2": "e5m2x2"})
#: Narrow float types with no conversion from f32 here.
NO_CONVERSION = ("f8E4M3", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E3M4",
                 "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN")


def _walk(block):
    for op in block.operations:
        op = op.operation
        yield op
        for region in op.regions:
            for inner in region.blocks:
                yield from _walk(inner)


def frag_map_problems(op, memo: dict | None = None) -> list[tuple[object, str]]:
    """(op, message) of every rule `op` (a tcgen05.frag_map) breaks (module docstring);
    the op is the map itself or the op of its body at fault. `memo`: see
    row_vector_root."""
    what = "tcgen05.frag_map"
    inputs = list(op.operands)
    result = d.type_info(op.results[0].type)
    if not inputs:
        return _row_map_problems(op, result)
    frag = d.type_info(inputs[0].type)
    problems = []
    if tuple(result.shape) != tuple(frag.shape):
        problems.append((op, f"{what}: the result is a [{result.shape[0]}, "
                             f"{result.shape[1]}] fragment but its inputs are "
                             f"[{frag.shape[0]}, {frag.shape[1]}]: the map keeps the shape"))
    if result.element not in COMPUTED_ELEMENTS:
        problems.append((op, f"{what}: a computed fragment of {result.element} is not "
                             f"supported (f32, i32, f16, bf16, f8E4M3FN or f8E5M2)"))
    if frag.element not in LOADED_ELEMENTS:
        problems.append((op, f"{what}: inputs of {frag.element} are not supported (f32, "
                             f"i32, f16 or bf16: PTX has no fp8 arithmetic)"))
    if is_row_vector(inputs[0], memo) and result.element not in ("f32", "i32"):
        problems.append((op, f"{what}: a map of a per-row result is a per-row result, "
                             f"held in one 32-bit register per row: it yields f32 or i32, "
                             f"not {result.element}"))
    region = op.regions[0]
    if len(region.blocks) != 1:
        return problems + [(op, f"{what}: the body must be one block, not "
                                f"{len(region.blocks)}")]
    block = region.blocks[0]
    want = [str(ir.Type.parse(frag.element))] * len(inputs) + ["index", "index"]
    have = [str(a.type) for a in block.arguments]
    if have != want:
        problems.append((op, f"{what}: the body's arguments must be ({', '.join(want)}): "
                             f"the element of each of the {len(inputs)} inputs, then its "
                             f"row and column; they are ({', '.join(have)})"))
    return problems + _yield_problems(op, block, result, what)



def _yield_problems(op, block, result, what: str) -> list[tuple[object, str]]:
    """The body `block` of a frag_map ends with gpu.yield of one value of the result's
    element type, and each op before it may appear in a body (_body_op_problems)."""
    ops = list(block.operations)
    terminator = ops[-1].operation if ops else None
    if terminator is None or terminator.name != "gpu.yield" or \
            len(terminator.operands) != 1:
        return [(terminator or op, f"{what}: the body must end with gpu.yield of one value "
                                   f"(the result element)")]
    problems = []
    yielded = str(terminator.operands[0].type)
    if yielded != str(ir.Type.parse(result.element)):
        problems.append((terminator, f"{what}: the body yields {yielded} but the result "
                                     f"is a fragment of {result.element}"))
    for inner in _walk(block):
        if inner != terminator:
            problems += _body_op_problems(inner, terminator)
    return problems

def _row_map_problems(op, result) -> list[tuple[object, str]]:
    """A frag_map of no input: a per-row value computed from its row alone (the running
    max's -inf), held one row per thread of the warpgroup (thread 32 w + l holds row
    32 w + l, the rows of Layout D)."""
    what = "tcgen05.frag_map"
    if tuple(result.shape) != (128, 1):
        return [(op, f"{what} needs at least one input fragment, or a [128, 1] result (a "
                     f"per-row value computed from its row alone, one row per thread), "
                     f"not [{result.shape[0]}, {result.shape[1]}]")]
    problems = []
    if result.element not in ("f32", "i32"):
        problems.append((op, f"{what}: a per-row value is held in one 32-bit register per "
                             f"row: it yields f32 or i32, not {result.element}"))
    region = op.regions[0]
    if len(region.blocks) != 1:
        return problems + [(op, f"{what}: the body must be one block")]
    block = region.blocks[0]
    have = [str(a.type) for a in block.arguments]
    if have != ["index", "index"]:
        problems.append((op, f"{what}: the body's arguments must be (index, index): the "
                             f"row and column (0) of the value; they are "
                             f"({', '.join(have)})"))
    return problems + _yield_problems(op, block, result, what)


def _body_op_problems(op, terminator) -> list[tuple[object, str]]:
    name = op.name
    if not (name.startswith(BODY_DIALECTS) or name in BODY_LLVM_OPS or name in MATH_OPS):
        why = ("a math op the NVPTX backend has no instruction for (it would need "
               "libdevice)" if name.startswith("math.") else
               "the body may compute (arith, index, math) and read global memory "
               "(llvm.getelementptr, llvm.load); it runs once per element in an order the "
               "compiler picks")
        return [(op, f"tcgen05.frag_map: {name} in the body: {why}")]
    problems = []
    if name == "arith.truncf":
        source, target = str(op.operands[0].type), str(op.results[0].type)
        if target in FP8_CVT and source != "f32":
            problems.append((op, f"arith.truncf {source} -> {target}: PTX converts to fp8 "
                                 f"from f32 (cvt.rn.satfinite.{FP8_CVT[target]}.f32); "
                                 f"extend to f32 first"))
        elif target in NO_CONVERSION:
            problems.append((op, f"arith.truncf {source} -> {target}: no PTX conversion to "
                                 f"{target} is supported in a frag_map body (fp8 is "
                                 f"f8E4M3FN or f8E5M2)"))
    for result in op.results:
        if str(result.type) in FP8_CVT or str(result.type) in NO_CONVERSION:
            for use in result.uses:
                owner = use.owner
                owner = owner.operation if hasattr(owner, "operation") else owner
                if owner != terminator:
                    problems.append((owner, f"{owner.name} of an {result.type} value: in a "
                                            f"frag_map body an fp8 value can only be "
                                            f"yielded (PTX has no fp8 arithmetic)"))
    return problems


#: tcgen05.frag_reduce kinds -> the arith op combining two f32 values (maxnumf: a NaN is
#: skipped, as PTX max.f32 does).
REDUCE_KINDS = MappingProxyType({"max": "arith.maxnumf", "sum": "arith.addf"})


def loop_initial_value(value):
    """The initial value of `value` if it is an ``scf.for`` iteration argument or result
    (the operand the loop starts it from), else None."""
    from tcgen05_lower.kernel_ir import defining_op, parent_op

    owner = defining_op(value)
    if owner is not None:
        if owner.name != "scf.for":
            return None
        index = list(owner.results).index(value)
        return owner.operands[3 + index]
    argument = ir.BlockArgument(value)
    parent = parent_op(argument.owner)
    if parent is None or parent.name != "scf.for" or argument.arg_number == 0:
        return None
    return parent.operands[3 + argument.arg_number - 1]


def row_vector_root(value, memo: dict | None = None):
    """(value, its defining op or None) where the chain from `value` through first inputs
    of tcgen05.frag_map and scf.for iteration arguments and results (to their initial
    values) ends: how `value` is held. Each step goes to a value defined earlier; with a
    `memo` (value -> root) shared by the callers of one pass, every value of a chain is
    walked once, so the pass stays linear in the kernel's size."""
    from tcgen05_lower.dialect.ops import FragMapOp
    from tcgen05_lower.kernel_ir import defining_op

    path = []
    while True:
        if memo is not None and value in memo:
            root = memo[value]
            break
        path.append(value)
        owner = defining_op(value)
        if owner is not None and FragMapOp.matches(owner) and len(owner.operands):
            value = owner.operands[0]
            continue
        initial = loop_initial_value(value)
        if initial is None:
            root = (value, owner)
            break
        value = initial
    if memo is not None:
        for seen in path:
            memo[seen] = root
    return root


def is_row_vector(value, memo: dict | None = None) -> bool:
    """Whether `value` is a per-row value held one register per row: the result of
    tcgen05.frag_reduce, the reduced result of tcgen05.ld_red, a tcgen05.frag_map of no
    input with a [rows, 1] result (a value computed from the row alone), a frag_map whose
    first input is one (it is held as its first input is), or an scf.for iteration
    argument or result that starts from one."""
    from tcgen05_lower.dialect.ops import FragMapOp, FragReduceOp, LdRedOp

    value, owner = row_vector_root(value, memo)
    if owner is None:
        return False
    if FragReduceOp.matches(owner):
        return True
    if FragMapOp.matches(owner):  # no inputs: row_vector_root follows first inputs
        return d.type_info(owner.results[0].type).shape[1] == 1
    return LdRedOp.matches(owner) and value == LdRedOp(owner).reduced


def frag_reduce_problems(op, memo: dict | None = None) -> list[str]:
    """The rules a tcgen05.frag_reduce `op` breaks (module docstring)."""
    frag = d.type_info(op.operands[0].type)
    result = d.type_info(op.results[0].type)
    from tcgen05_lower.dialect.ops import FragReduceOp

    kind = FragReduceOp(op).kind
    problems = []
    if kind not in REDUCE_KINDS:
        problems.append(f"tcgen05.frag_reduce: kind = {kind!r} is not \"max\" or \"sum\""
                        + did_you_mean(kind, REDUCE_KINDS))
    if frag.element != "f32" or result.element != "f32":
        problems.append(f"tcgen05.frag_reduce reduces f32 fragments into f32, not "
                        f"{frag.element} into {result.element}")
    if tuple(result.shape) != (frag.shape[0], 1):
        problems.append(f"tcgen05.frag_reduce: the result must be a [{frag.shape[0]}, 1] "
                        f"fragment (one value per row), not [{result.shape[0]}, "
                        f"{result.shape[1]}]")
    if is_row_vector(op.operands[0], memo):
        problems.append("tcgen05.frag_reduce of a per-row result: it is already reduced")
    return problems


def frag_broadcast_problems(op, memo: dict | None = None) -> list[str]:
    """The rules a tcgen05.frag_broadcast `op` breaks (module docstring)."""
    rows = d.type_info(op.operands[0].type)
    like = d.type_info(op.operands[1].type)
    result = d.type_info(op.results[0].type)
    problems = []
    if rows.shape[1] != 1 or rows.shape[0] != like.shape[0]:
        problems.append(f"tcgen05.frag_broadcast: the row vector must be a "
                        f"[{like.shape[0]}, 1] fragment, not [{rows.shape[0]}, "
                        f"{rows.shape[1]}]")
    if is_row_vector(op.operands[1], memo):
        problems.append("tcgen05.frag_broadcast: `like` must be a fragment of elements, not "
                        "a per-row result")
    if tuple(result.shape) != tuple(like.shape) or result.element != rows.element:
        problems.append(f"tcgen05.frag_broadcast: the result must be a "
                        f"[{like.shape[0]}, {like.shape[1]}] fragment of {rows.element}")
    return problems
