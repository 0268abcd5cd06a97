"""Read-only views of tcgen05 ops that several passes share.

Passes look at ops through these views instead of indexing operands by position, so an
operand added to an op in the IRDL definition is handled in one place. Tables keyed by
ops (``op_tables``), kernel parameters' source names (``parameter_names``) and warp roles
(``warp_roles``) live in modules of their own, whose names this module re-exports.
"""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower import dialect
from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect.ops import AllocOp, LdRedOp, MmaOp, StOp, TmemBufferOp, wrap
from tcgen05_lower.dialect.attributes import DIMS
from tcgen05_lower.element_types import isa_type
from tcgen05_lower.isa import layouts, shapes
from tcgen05_lower.isa.shapes import SCALE_VEC_QUALIFIERS
from tcgen05_lower.text import did_you_mean

# Re-exported: the passes read these as kernel_ir names.
from tcgen05_lower.op_tables import OpDict, OpMap, op_key
from tcgen05_lower.parameter_names import (PARAMETER_NAME_ATTR, record_parameter_names,
                                           recorded_parameter_names, source_parameter_names)
from tcgen05_lower.warp_roles import (PARTITIONS_OP, ROLE_OP, Role, WARPGROUP_OPS, WARP_THREADS,
                                      enclosing_roles, has_partitions, partition_roles, role_info,
                                      user_synchronized)


def defining_op(value: "ir.Value"):
    """The operation that defines `value`, or None for a block argument."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def constant_int(value: "ir.Value") -> int | None:
    """The value of an integer or index ``arith.constant``, else None."""
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    try:
        return int_value(op.attributes["value"])
    except ValueError:
        return None


def known_residue(value: "ir.Value", modulus: int, depth: int = 0) -> int | None:
    """``value mod modulus`` when every value it can take has the same residue, as far
    as constants, ``arith.addi`` / ``subi`` / ``muli``, index casts and the induction
    variable of an ``scf.for`` (its lower bound, when the step is a multiple) show; else
    None. Wrap-around is ignored: index values of addresses stay far below it."""
    if depth > 32:
        return None
    op = defining_op(value)
    if op is None:
        block = value.owner
        parent = block.owner
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent is not None and parent.name == "scf.for" and \
                ir.BlockArgument(value).arg_number == 0:
            step = known_residue(parent.operands[2], modulus, depth + 1)
            if step == 0:
                return known_residue(parent.operands[0], modulus, depth + 1)
        return None
    if op.name == "arith.constant":
        constant = constant_int(value)
        return None if constant is None else constant % modulus
    if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
        return known_residue(op.operands[0], modulus, depth + 1)
    if op.name in ("arith.addi", "arith.subi", "arith.muli"):
        a, b = (known_residue(x, modulus, depth + 1) for x in op.operands)
        if op.name == "arith.muli" and 0 in (a, b):
            return 0
        if a is None or b is None:
            return None
        return {"arith.addi": a + b, "arith.subi": a - b, "arith.muli": a * b}[op.name] \
            % modulus
    return None


#: How deep index_range follows an index expression (each ld/st looks at a bounded
#: expression, so the check stays linear in the kernel).
INDEX_RANGE_DEPTH = 8


def index_range(value: "ir.Value", depth: int = 0) -> tuple[int, int] | None:
    """(least, greatest) of the integer values `value` takes, both inclusive, as far as
    constants, the induction variable of an ``scf.for`` with constant bounds and a positive
    constant step (lower .. the last lower + k * step below upper), index casts and
    ``arith.addi`` / ``subi`` / ``muli`` of those show (interval arithmetic); else None.
    A loop that never runs gives None too: its body reads nothing."""
    if depth > INDEX_RANGE_DEPTH:
        return None
    op = defining_op(value)
    if op is None:
        return _induction_range(value, depth)
    if op.name == "arith.constant":
        constant = constant_int(value)
        return None if constant is None else (constant, constant)
    if op.name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
        return index_range(op.operands[0], depth + 1)
    if op.name in ("arith.addi", "arith.subi", "arith.muli"):
        a, b = (index_range(x, depth + 1) for x in op.operands)
        if a is None or b is None:
            return None
        if op.name == "arith.addi":
            return a[0] + b[0], a[1] + b[1]
        if op.name == "arith.subi":
            return a[0] - b[1], a[1] - b[0]
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    return None


def _induction_range(value: "ir.Value", depth: int) -> tuple[int, int] | None:
    """index_range of a block argument: an scf.for's induction variable, else None."""
    parent = value.owner.owner
    parent = parent.operation if hasattr(parent, "operation") else parent
    if parent is None or parent.name != "scf.for" or ir.BlockArgument(value).arg_number:
        return None
    bounds = [index_range(parent.operands[i], depth + 1) for i in range(3)]
    if any(b is None or b[0] != b[1] for b in bounds):
        return None  # a bound that is not one constant
    lower, upper, step = (b[0] for b in bounds)
    if step <= 0 or upper <= lower:
        return None  # no iteration (or a step scf.for does not define)
    return lower, lower + (upper - 1 - lower) // step * step


@dataclass(frozen=True)
class MmaOperands:
    """The operands of a ``tcgen05.mma`` and the parameters of their types."""

    d: "ir.Value"
    a: "ir.Value"
    b: "ir.Value"
    enable_input_d: "ir.Value"
    d_type: dialect.TmemType
    a_smem: dialect.SmemType | None
    a_tmem: dialect.TmemType | None
    b_type: dialect.SmemType
    scale_a: "ir.Value | None" = None
    scale_b: "ir.Value | None" = None
    metadata: "ir.Value | None" = None
    #: Trailing operands the attributes do not account for (a verifier error).
    unexpected: tuple = ()

    @property
    def a_type(self):
        return self.a_smem if self.a_smem is not None else self.a_tmem


def mma_operands(op) -> MmaOperands:
    """The operands of the ``tcgen05.mma`` op `op`: scale_a and scale_b when the kind is
    block-scaled (or ``scale_vec`` is set), the metadata when ``sparse`` is set, each read
    from its own optional operand; those written without the attribute that asks for
    them are ``unexpected``."""
    mma = MmaOp(op)
    dv, av, bv, en = mma.d, mma.a, mma.b, mma.enable_input_d
    a_info = dialect.type_info(av.type)
    roles, unexpected = {}, []
    scaled = mma.has(MmaOp.scale_vec) or mma.kind in shapes.BLOCK_SCALED_KINDS
    for role, value, wanted in (("scale_a", mma.scale_a, scaled),
                                ("scale_b", mma.scale_b, scaled),
                                ("metadata", mma.metadata, bool(mma.sparse))):
        if wanted:
            roles[role] = value
        elif value is not None:
            unexpected.append(value)
    return MmaOperands(
        d=dv, a=av, b=bv, enable_input_d=en,
        d_type=dialect.type_info(dv.type),
        a_smem=a_info if isinstance(a_info, dialect.SmemType) else None,
        a_tmem=a_info if isinstance(a_info, dialect.TmemType) else None,
        b_type=dialect.type_info(bv.type),
        unexpected=tuple(unexpected), **roles,
    )


@dataclass(frozen=True)
class MmaForm:
    """The static attributes of one tcgen05.mma, read once from the op."""

    kind: str
    cta_group: int
    sparse: bool
    ws: bool
    k96: bool
    k: int
    k_offset: int
    #: The scale vector size (a ``scale_vec`` value): as written, else the default of
    #: 9.7.16.10.9.1 (``block32`` for mxf4 and mxf8f6f4), else None.
    scale_vec: str | None
    #: Whether ``scale_vec`` was written; without it the qualifier is left out of the PTX,
    #: as the ISA allows (and as upstream NVVM's default block scale prints it).
    scale_vec_written: bool
    collector: tuple[str, str] | None
    ashift: bool
    disable_output_lane: tuple[int, ...] | None
    scale_input_d: int | None
    zero_column_mask: int | None

    @property
    def block_scaled(self) -> bool:
        return self.kind in shapes.BLOCK_SCALED_KINDS


def mma_form(op, cta_group: int) -> MmaForm:
    """Reads the attributes of the ``tcgen05.mma`` `op` (defaults as the dialect states)."""
    mma = MmaOp(op)
    kind = mma.kind
    sparse = bool(mma.sparse)
    ws = bool(mma.ws)
    k96 = mma.k == 96
    collector = None
    if ws and (mma.has(MmaOp.collector_b) or mma.has(MmaOp.collector_b_op)):
        # .ws defaults to .collector::b0::discard (9.7.16.10.9.3).
        collector = (mma.collector_b, mma.collector_b_op)
    elif mma.has(MmaOp.collector_a):
        collector = ("a", mma.collector_a)
    lanes = mma.disable_output_lane
    return MmaForm(
        kind=kind, cta_group=cta_group, sparse=sparse, ws=ws, k96=k96,
        k=shapes.mma_k(kind, sparse=sparse, k96=k96),
        k_offset=mma.k_offset,
        scale_vec=effective_scale_vec(op),
        scale_vec_written=mma.has(MmaOp.scale_vec),
        collector=collector,
        ashift=bool(mma.ashift),
        disable_output_lane=lanes,
        scale_input_d=mma.scale_input_d,
        zero_column_mask=mma.zero_column_mask,
    )


def effective_scale_vec(op) -> str | None:
    """The ``scale_vec`` of a ``tcgen05.mma``, or when it is left out the default the ISA
    gives: "For .kind::mxf4 when the qualifier .scale_vectorsize is not specified, then it
    defaults to .block32" (9.7.16.10.9.1); kind::mxf8f6f4 has one size only (scale_vec::1X,
    alias .block32, Table 54), which is read as its default too; kind::mxf4nvf4 has none
    ("must be explicitly specified") and other kinds take no block scaling: None."""
    mma = MmaOp(op)
    if mma.scale_vec is not None:
        return mma.scale_vec
    return {"mxf4": "block32", "mxf8f6f4": "block32"}.get(mma.kind)


def scale_type(operands: MmaOperands) -> str | None:
    """The scale type (ue8m0 / ue4m3) of a block-scaled MMA: scale_A's element type."""
    if operands.scale_a is None:
        return None
    return isa_type(dialect.type_info(operands.scale_a.type).element)


def scale_factor_ids(op, form: MmaForm) -> tuple[int, int]:
    """(scale_A ID, scale_B ID) of a block-scaled MMA: ``scale_a_id`` / ``scale_b_id`` as
    written, else derived from ``k_offset`` (the K block j of the tiles uses scale factors
    j * count.. of each row, count from Table 54; ``layouts.scale_factor_id_for_k_block``).
    Raises IsaRuleError when the derived factors lie past a cell's four bytes."""
    mma = MmaOp(op)
    written = (mma.scale_a_id, mma.scale_b_id)
    if not form.block_scaled:
        return tuple(0 if given is None else given for given in written)
    per_mma = shapes.scale_factor_columns(
        form.kind, SCALE_VEC_QUALIFIERS.get(form.scale_vec, form.scale_vec), k96=form.k96)
    ids = []
    for given in written:
        ids.append(given if given is not None else layouts.scale_factor_id_for_k_block(
            k_offset=form.k_offset, k=form.k, per_mma=per_mma))
    return ids[0], ids[1]


def stored_k(tile_value: "ir.Value") -> int:
    """Elements per row a shared-memory tile stores: its K, or K/2 when a sparse MMA
    reads it as A ("A is stored compressed as M x K/2", 9.7.16.10.8); the tile's type
    names the logical K that the MMAs' ``k_offset`` counts."""
    tile = dialect.type_info(tile_value.type)
    for use in tile_value.uses:
        owner = use.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if (MmaOp.matches(owner) and use.operand_number == 1
                and MmaOp(owner).sparse):
            return tile.k // 2
    return tile.k


def a_tmem_k_block(op) -> tuple[int, int]:
    """(first column, columns), relative to A's buffer, of the K block that the
    ``tcgen05.mma`` `op` with A in tensor memory reads: A is row-major in TMEM (Table 51),
    its elements packed in 32-bit columns (9.7.16.10.4.3, 9.7.16.10.4.5), and a sparse
    MMA's A is stored compressed as M x K/2 (9.7.16.10.8); K is the MMA's (Table 39)."""
    from tcgen05_lower.element_types import container_bits

    mma = MmaOp(op)
    a_type = dialect.type_info(mma.a.type)
    bits = container_bits(a_type.element, kind=mma.kind)
    sparse = bool(mma.sparse)
    k = shapes.mma_k(mma.kind, sparse=sparse, k96=mma.k == 96)
    offset = mma.k_offset // 2 if sparse else mma.k_offset
    stored_k = k // 2 if sparse else k
    return offset * bits // 32, stored_k * bits // 32


def pack_attribute(access):
    """The attribute of the typed tcgen05.ld, st, ld_red or load_fragment `access` that asks
    for 16-bit packing: ``unpack16`` on st, ``pack16`` on ld and load_fragment, None on
    ld_red (tcgen05.ld.red has no .pack::16b, 9.7.16.8.3)."""
    if isinstance(access, StOp):
        return StOp.unpack16
    if isinstance(access, LdRedOp):
        return None
    return type(access).pack16


def packs16(access) -> bool:
    """Whether the typed access `access` packs (or unpacks) 16-bit pairs."""
    attribute = pack_attribute(access)
    return bool(attribute is not None and access.get(attribute))


#: mbarrier.init's arrival count lies in [1, 2^20 - 1] (PTX ISA, mbarrier.init).
MBARRIER_MAX_COUNT = 2 ** 20
#: The most stages an mbarrier ring (alloc_mbarrier stages = S) may have: each stage is an
#: 8-byte object of static shared memory initialized at kernel entry; 256 bounds a ring at
#: 2 KiB and its initialization at 256 instructions (a pipeline ring is 2 to 8 deep).
MBARRIER_RING_MAX_STAGES = 256


@dataclass(frozen=True)
class GlobalMatrix:
    """How a ``smem_fill``, ``store_fragment`` or ``load_fragment`` addresses its global
    matrix: the leading dimension (an int from the attribute, or an index value), and the
    index values its ``dims`` attribute names (``attributes.DIMS``; each field is named
    after its dims name; None: not given, i.e. offset 0 or no bound). ``problems`` are
    the verifier's: names dims may not use, a count that does not match the operands, an
    operand that is not an index, a leading dimension given twice or not at all."""

    ld: "int | ir.Value | None"
    row_offset: "ir.Value | None" = None
    column_offset: "ir.Value | None" = None
    rows: "ir.Value | None" = None
    columns: "ir.Value | None" = None
    k_size: "ir.Value | None" = None
    problems: tuple = ()

    @property
    def bounded(self) -> bool:
        """Whether some element may lie outside the matrix (an extent is given)."""
        return any(v is not None for v in (self.rows, self.columns, self.k_size))


def global_matrix(op) -> GlobalMatrix:
    """The view of `op` (a ``tcgen05.smem_fill``, ``store_fragment`` or ``load_fragment``)
    described by GlobalMatrix."""
    typed = wrap(op)
    allowed = DIMS[typed.NAME]
    ld_name = allowed[0]
    names, values = tuple(typed.dims), list(typed.dim_values)
    problems = []
    for name in names:
        if name not in allowed:
            problems.append(f"dims names \"{name}\", which is not one of "
                            f"{', '.join(allowed)}" + did_you_mean(name, allowed))
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"dims names \"{name}\" twice")
    if len(names) != len(values):
        problems.append(f"dims names {len(names)} operand(s) ({', '.join(names) or 'none'}) "
                        f"but the op has {len(values)} after its "
                        f"{len(typed.OPERANDS) - 1} fixed operand(s)")
    named = dict(zip(names, values))
    for name, value in named.items():
        if not isinstance(value.type, ir.IndexType):
            problems.append(f"{name} has type {value.type}, not index (arith.index_cast "
                            f"converts an integer kernel argument)")
    ld = named.get(ld_name)
    if ld is not None and typed.has(ld_name):
        problems.append(f"the leading dimension {ld_name} is given twice: as the attribute "
                        f"{ld_name} = {typed.get(ld_name)} and as an operand named in dims")
    elif ld is None:
        ld = typed.get(ld_name)
        if ld is None:
            problems.append(f"no leading dimension: give the attribute {ld_name} = N : i64 "
                            f"or an index operand named \"{ld_name}\" in dims")
    fields = {name: value for name, value in named.items()
              if name in allowed and name != ld_name}
    return GlobalMatrix(ld=ld, problems=tuple(problems), **fields)


#: LLVM's largest alignment (llvm::Value::MaximumAlignment, 2^MaxAlignmentExponent with
#: an exponent of 32); its translation refuses a larger one ("huge alignment values are
#: unsupported").
LLVM_MAX_ALIGNMENT = 1 << 32


def misaligned_arguments(func_op) -> list[tuple[int, str]]:
    """(argument number, diagnostic) of every argument of `func_op` (a func.func or
    llvm.func) whose ``llvm.align`` LLVM's translation would abort the process on, or
    refuse: one that is not a power of two (every LLVM alignment is one), one past
    LLVM_MAX_ALIGNMENT, or an integer of a signed or unsigned type (``1 : si32``; the
    translation reads a signless integer). MLIR's own
    verifier has already refused one that is not an integer."""
    if "arg_attrs" not in func_op.attributes:
        return []
    found = []
    for number, entry in enumerate(ir.ArrayAttr(func_op.attributes["arg_attrs"])):
        entry = ir.DictAttr(entry)
        if "llvm.align" not in entry:
            continue
        attribute = entry["llvm.align"]
        try:
            align = int_value(attribute)
        except (ValueError, TypeError):
            continue
        kind = ir.IntegerAttr(attribute).type
        if isinstance(kind, ir.IntegerType) and not kind.is_signless:
            found.append((number, f"argument {number}: llvm.align = {attribute} is not a "
                                  f"signless integer (an alignment in bytes, such as "
                                  f"{align} : i64)"))
        elif align < 1 or align & (align - 1):
            found.append((number, f"argument {number}: llvm.align = {align} is not a power "
                                  f"of two (an alignment in bytes, as LLVM's are)"))
        elif align > LLVM_MAX_ALIGNMENT:
            found.append((number, f"argument {number}: llvm.align = {align} is past LLVM's "
                                  f"largest alignment, 2^32 bytes"))
    return found


def mbarrier_count_error(count: int) -> str:
    return (f"alloc_mbarrier count = {count} is outside [1, {MBARRIER_MAX_COUNT - 1}], the "
            "arrival counts mbarrier.init takes (PTX ISA, mbarrier.init)")


def planned_buffer_problem(op) -> str | None:
    """What is wrong with a planned ``tcgen05.tmem_buffer`` (one with the allocation base
    as operand), or None: the base must be a ``tcgen05.alloc`` result, and
    ``lane_offset`` / ``column_offset`` (written by tcgen05-plan-tmem) must place the
    buffer inside tensor memory (128 lanes x 512 columns, 9.7.16.7.1)."""
    buffer = TmemBufferOp(op)
    owner = defining_op(buffer.base)
    if owner is None or not AllocOp.matches(owner):
        return ("a planned tcgen05.tmem_buffer takes the result of a tcgen05.alloc as its "
                "base (tcgen05-plan-tmem writes both)")
    missing = [a.name for a in (TmemBufferOp.lane_offset, TmemBufferOp.column_offset)
               if not buffer.has(a)]
    if missing:
        return (f"a planned tcgen05.tmem_buffer needs {' and '.join(missing)} (written by "
                "tcgen05-plan-tmem)")
    lane, column = buffer.lane_offset, buffer.column_offset
    if not 0 <= lane < 128 or lane % 16:
        return (f"lane_offset = {lane} is not a lane offset of tensor memory (0 to 112 in "
                "steps of 16: a buffer starts at a lane quarter or half, 9.7.16.10.5)")
    if not 0 <= column < 512:
        return f"column_offset = {column} is outside tensor memory's 512 columns (9.7.16.7.1)"
    return None


def unplanned_buffer(kernel, pass_name: str) -> tuple | None:
    """(op, message) for the first TMEM buffer of `kernel` that tcgen05-plan-tmem has not
    placed (no ``column_offset``), or None: the synchronization passes read every
    buffer's cells, and an unplanned one would count as all of tensor memory."""
    for op in dialect.walk_ops(kernel):
        if TmemBufferOp.matches(op) and not TmemBufferOp(op).has(TmemBufferOp.column_offset):
            return op, (f"{pass_name} needs planned IR: this TMEM buffer has no place in "
                        "tensor memory yet; run tcgen05-select-layouts and tcgen05-plan-tmem "
                        "first (the default pipeline does)")
    return None


# ------------------------------------------------------------------ buffers chosen at run time

#: Ops that pass a TMEM value on unchanged: what they produce is one of their operands,
#: chosen at run time (a select, a branch or loop result, a block argument).
FORWARDING_OPS = frozenset({"arith.select", "scf.yield", "scf.condition", "scf.for",
                            "scf.while", "scf.if", "scf.index_switch", "cf.br",
                            "cf.cond_br"})


def parent_op(block):
    """The op whose region holds `block` (None for a detached block)."""
    parent = block.owner
    return parent.operation if parent is not None and hasattr(parent, "operation") \
        else parent


def terminator(block):
    """The last op of `block`."""
    operations = block.operations
    return operations[len(operations) - 1]


def _branch_operands(branch, target) -> list | None:
    """The operands `branch` (a cf.br or cf.cond_br) passes to block `target`'s
    arguments, as one list per edge, or None for another terminator."""
    operands = list(branch.operands)
    successors = list(branch.successors)
    if branch.name == "cf.br":
        return [operands] if successors[0] == target else []
    if branch.name == "cf.cond_br":
        n_true = len(successors[0].arguments)
        edges = []
        if successors[0] == target:
            edges.append(operands[1:1 + n_true])
        if successors[1] == target:
            edges.append(operands[1 + n_true:])
        return edges
    return None if target in successors else []


def forwarded_sources(value) -> list | None:
    """The values that `value` may be at run time when an op of ``FORWARDING_OPS`` made it:
    both operands of an ``arith.select``; the yielded values of an ``scf.if`` /
    ``scf.index_switch`` result; the initial and yielded value of an ``scf.for``
    iteration argument or result; for ``scf.while``, the initial and after-region value
    of a before-region argument and the condition's value of an after-region argument
    or result; every value branched to a ``cf`` block argument. ``[value]``'s own
    definition is not looked at here: None for a value made any other way (an op
    result that is not forwarded, an argument of the kernel or of an unknown region)."""
    op = defining_op(value)
    if op is not None:
        index = value.result_number if hasattr(value, "result_number") \
            else list(op.results).index(value)
        if op.name == "arith.select":
            return [op.operands[1], op.operands[2]]
        if op.name in ("scf.if", "scf.index_switch"):
            return [terminator(region.blocks[0]).operands[index] for region in op.regions
                    if len(region.blocks)]
        if op.name == "scf.for":
            return [op.operands[3 + index],
                    terminator(op.regions[0].blocks[0]).operands[index]]
        if op.name == "scf.while":
            return [terminator(op.regions[0].blocks[0]).operands[1 + index]]
        return None
    argument = ir.BlockArgument(value)
    block = argument.owner
    parent = parent_op(block)
    index = argument.arg_number
    if parent is None:
        return None
    if parent.name == "scf.for":
        if index == 0:
            return None  # the induction variable
        return [parent.operands[3 + index - 1],
                terminator(parent.regions[0].blocks[0]).operands[index - 1]]
    if parent.name == "scf.while":
        if block == parent.regions[0].blocks[0]:
            return [parent.operands[index],
                    terminator(parent.regions[1].blocks[0]).operands[index]]
        return [terminator(parent.regions[0].blocks[0]).operands[1 + index]]
    region = block.region
    if block == region.blocks[0]:
        return None  # an entry block's arguments come from its op (the kernel's own)
    sources = []
    for other in region.blocks:
        edges = _branch_operands(terminator(other), block)
        if edges is None:
            return None
        sources.extend(edge[index] for edge in edges)
    return sources


def root_buffers(value, bind: dict | None = None) -> list | None:
    """The ``tcgen05.tmem_buffer`` ops whose TMEM values can reach `value` (a
    ``tcgen05.tmem_stage`` view counts as its multi-buffered buffer), in the order first
    met; None when a way in is not traced (see :func:`forwarded_sources`). `bind` maps
    values to the value they have in the walk at hand (e.g. a loop's iteration arguments
    to their initial values in its first iteration)."""
    from tcgen05_lower.dialect.ops import TmemStageOp

    found: list = []
    seen: set = set()
    todo = [value]
    while todo:
        value = todo.pop()
        while bind and value in bind:
            value = bind[value]
        if value in seen:
            continue
        seen.add(value)
        op = defining_op(value)
        if op is not None and TmemStageOp.matches(op):
            todo.append(TmemStageOp(op).buffer)
        elif op is not None and TmemBufferOp.matches(op):
            if op not in found:
                found.append(op)
        else:
            sources = forwarded_sources(value)
            if sources is None:
                return None
            todo.extend(reversed(sources))
    return found
