"""tcgen05-verify: the ISA's semantic rules that the dialect's IRDL types cannot express.

Runs first in the pipeline so that every later pass may assume well-formed input. Each
rule reports at the offending op with the rule's source (a table or section of PTX ISA
9.7.16) and the bad value, e.g. ``N = 250 is not a multiple of 8 for kind::f16,
cta_group::1 (Table 39)``.

Rules, by op:

- kernel: a tcgen05 target (9.7.16 Target ISA Notes), cta_group 1 or 2 and one
  warpgroup per CTA; every op that carries a cta_group carries the kernel's (one
  .cta_group per kernel, 9.7.16.7.1 and every instruction's description).
- mma: Table 39 (kind x .ws x cta_group x sparsity x types -> M, N, K, and K = 96);
  operand tiles (rows, K, k_offset); Table 52 (major-ness x type size x swizzle); Table 49
  (transpose / negate per kind) and Table 50 (N of an 8-bit transposed B); sparsity
  (metadata operand, selector 9.7.16.10.8.4); block scaling (Tables 54 and 55, scale types
  of Table 39, scale-factor IDs of Tables 43/44); .ws (collector ::b0-::b3, zero-column
  mask of Table 45, maximum shift of Table 42); collector ::a, .ashift, disable-output-lane,
  scale-input-d (9.7.16.10.9.1); and the Target ISA Notes of all of them (kind::i8, K = 96,
  .sp with mxf4 kinds, scale-input-d, .scale_vec::NX / .blockN).
- cp: shape x multicast and decompression formats (9.7.16.9.2), source tile shape.
- shift, commit (16-bit CTA mask within the cluster), ld / st / ld.red (Tables 47/48, the
  .red rules and targets of 9.7.16.8.3), alloc / dealloc (nCols a power of two in
  [32, 512], 9.7.16.7.1), wait, fence.

Forms the lowering does not emit yet are rejected with "not supported yet".

Operand conventions: TMEM buffers have the logical shape of the matrix they hold for the
whole CTA pair (D is M x N, A in TMEM is M x K); scale-factor and metadata buffers have
the MMA's M rows and the element type of their contents (the scale type of Table 39 for
scale_A and scale_B; the dialect's trailing operands share one type). Shared-memory tiles
are per CTA: with cta_group::2 each CTA holds M/2 rows of A and N/2 rows of B (9.7.16.10,
"B ... in Shared Memory of the current CTA and optionally in peer CTA"). A of a sparse MMA
is described by its logical K; it is stored compressed as M x K/2 (9.7.16.10.8).
"""

from __future__ import annotations

from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.bindings import file_location, int_value, ir
from tcgen05_lower.computed import (frag_broadcast_problems, frag_map_problems,
                                    frag_reduce_problems, is_row_vector)
from tcgen05_lower.dialect.ops import (MbarrierArriveOp, MbarrierStageOp, MbarrierWaitOp,
                                       RoleOp,
                                       AllocMbarrierOp, AllocOp, CommitOp, CpOp, DeallocOp,
                                       FenceOp, FragBroadcastOp, FragMapOp, FragReduceOp, LdOp, LdRedOp, LoadFragmentOp,
                                       MbarrierExpectTxOp, MmaOp, RelinquishAllocPermitOp,
                                       ShiftOp, SmemBufferOp, SmemFillOp, SmemStageOp, StOp,
                                       StoreFragmentOp, TmaLoadOp, TmemBufferOp, TmemStageOp,
                                       WaitOp, wrap)
from tcgen05_lower.dialect.attributes import DIMS
from tcgen05_lower.element_types import MLIR_TO_ISA, container_bits, isa_bits, isa_type
from tcgen05_lower.isa import descriptors, fragments, shapes, targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import (MBARRIER_MAX_COUNT, MBARRIER_RING_MAX_STAGES, constant_int, defining_op,
                                     effective_scale_vec, global_matrix, known_residue,
                                     mbarrier_count_error, misaligned_arguments, mma_form,
                                     mma_operands, planned_buffer_problem,
                                     scale_factor_ids, stored_k)
from tcgen05_lower.isa.shapes import SCALE_VEC_QUALIFIERS
from tcgen05_lower.kernel_ir import (PARTITIONS_OP, ROLE_OP, WARP_THREADS, WARPGROUP_OPS,
                                     enclosing_roles, partition_roles, role_info, terminator)
from tcgen05_lower import verify_clusters
from tcgen05_lower.launch import GridError, grid_arguments
from tcgen05_lower.pass_infra import ModulePass
from tcgen05_lower.segments import SEGMENT_ATTR
from tcgen05_lower.text import did_you_mean

#: Threads per warpgroup: ld/st are issued by all four warps of a warpgroup (Table 46).
WARPGROUP_THREADS = 128
#: Threads of a CTA at most (a kernel with partitions may use more than one warpgroup).
MAX_THREADS = 1024
#: Roles of one tcgen05.partitions at most: named barriers 1..15 (barrier 0 is the CTA's).
MAX_ROLES = 15
#: Upstream ops that wait for every thread of the CTA.
CTA_WIDE_BARRIERS = frozenset({"gpu.barrier", "nvvm.barrier0", "nvvm.barrier"})
#: Swizzle width in bytes of each mode (Table 40); 16 bytes (a core-matrix row) without.
SWIZZLE_BYTES = MappingProxyType({"none": 16, "32B": 32, "64B": 64, "128B": 128, "128B_base32B": 128})
#: Element types of D (Table 39 dtype column), as MLIR spells them.
ACCUMULATOR_TYPES = ("f32", "f16", "i32")

#: The element type of a sparsity metadata buffer (docs/element-types.md: `si32` is `i32`).
METADATA_ELEMENTS = ("i32", "si32")
#: TMEM allocation: a power of two of columns in [32, 512] (9.7.16.7.1).
ALLOC_MIN, ALLOC_MAX = 32, 512
#: tcgen05.cp shapes: (lanes, bits per lane) (9.7.16.2.3).
CP_SHAPES = MappingProxyType({"128x256b": (128, 256), "4x256b": (4, 256), "128x128b": (128, 128),
             "64x128b": (64, 128), "32x128b": (32, 128)})
#: ".64x128b requires .warpx2::02_13 or .warpx2::01_23; .32x128b requires .warpx4"
#: (9.7.16.9.2); the other shapes take no .multicast.
CP_MULTICAST = MappingProxyType({"64x128b": ("warpx2::02_13", "warpx2::01_23"), "32x128b": ("warpx4",)})
CP_DECOMPRESS = ("b6x16_p32", "b4x16_p64")
#: Bytes of one global load of a K-contiguous (src_layout = "mn_k") smem_fill.
FILL_VECTOR_BYTES = 16
#: The element types of tcgen05.ld.red (9.7.16.8.3: .f32, .u32, .s32).
LD_RED_TYPES = ("f32", "u32", "s32")


#: What a collector buffer holds when it is known to hold nothing valid.
_RELEASED = "released"


def _collector_written(op) -> bool:
    mma = MmaOp(op)
    return any(mma.has(a) for a in (MmaOp.collector_a, MmaOp.collector_b, MmaOp.collector_b_op))


def _collector_usage(op):
    """(buffer, operation, (operand, k_offset)) of an MMA's collector usage: .ws MMAs use
    ``collector::b0..b3`` for B, others ``collector::a`` for A; the default operation is
    ``discard`` (9.7.16.10.9.1, 9.7.16.10.9.3)."""
    mma = MmaOp(op)
    k_offset = mma.k_offset
    if mma.ws:
        return mma.collector_b, mma.collector_b_op, (mma.b, k_offset)
    return "a", mma.collector_a, (mma.a, k_offset)


def _collected(name: str) -> str:
    return "A" if name == "a" else "B"


def _describe(filled, used) -> str:
    (fv, fk), (uv, uk) = filled, used
    if fv != uv:
        return "another tile or buffer"
    return f"k_offset = {fk}; this MMA's is {uk}"


def _read_by_mma(tile) -> bool:
    """Whether a tcgen05.mma reads the shared-memory tile value `tile` as A or B."""
    for use in tile.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if MmaOp.matches(owner) and use.operand_number in (1, 2):
            return True
    return False


def _line(op) -> str:
    _, line, _ = file_location(op.location)
    return "?" if line is None else str(line)


def _or_zero(value: int | None) -> int:
    """An attribute without a default read as 0 when absent."""
    return 0 if value is None else value


def _element_bits(element: str) -> int | None:
    """Bits of an element type the ISA knows, else None."""
    try:
        return isa_bits(element)
    except KeyError:
        return None


class Tcgen05Verify(ModulePass):
    """Checks every kernel of the module against the rules listed in the module
    docstring; reports each broken rule at its op and fails the pass."""

    name = "tcgen05-verify"
    description = "Check the PTX ISA's shape, type and target rules on tcgen05 kernels"

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            self.verify_kernel(kernel)
        self.check_other_functions(module)

    def rule(self, op, exc: IsaRuleError) -> None:
        """Reports a broken ISA rule raised by the isa package at `op`."""
        self.error(op, str(exc))

    # ------------------------------------------------------------------ kernel

    def verify_kernel(self, kernel) -> None:
        try:
            info = d.kernel_info(kernel)
        except d.InvalidAttribute as exc:
            self.error(kernel, exc.message)
            return
        try:
            targets.check_target(info.target)
        except IsaRuleError as exc:
            self.rule(kernel, exc)
            return
        if info.cta_group not in (1, 2):
            self.error(kernel, f"cta_group = {info.cta_group} is not 1 or 2 (9.7.16.5)")
            return
        ops = list(d.walk_ops(kernel))
        partitioned = any(op.name in (PARTITIONS_OP, ROLE_OP) for op in ops)
        if not self.check_threads(kernel, info, partitioned):
            return
        if info.grid:
            self.check_grid(kernel, info)
        if not verify_clusters.check_clusters(kernel, info, ops, self.error):
            return
        if not self.check_argument_alignment(kernel):
            return
        if not self.check_type_parameters(ops):
            return  # every later rule reads these types
        #: value -> how it is held (computed.row_vector_root), shared by the checks.
        self.row_memo: dict = {}
        #: Per kernel: rings an MMA reads (check_pair_tile), mbarriers whose cta = "even"
        #: arrivals were checked (check_even_arrivals).
        self.ring_read_by_mma: dict = {}
        self.even_mbarriers_checked: set = set()
        #: tile value -> kernel_ir.stored_k, once per tile (it looks at every use of the
        #: tile, and a kernel fills one tile as often as it has tiles).
        self.stored_k_memo: dict = {}
        self.check_fragments_stay(ops)
        attributes_ok = True
        for op in ops:
            if d.op_name(op) in d.ATTRIBUTES:
                attributes_ok &= self.check_attribute_types(op)
        if not attributes_ok:
            return  # ... and these attributes
        self.role_of = enclosing_roles(kernel) if partitioned else {}
        self.role = {}
        if partitioned and not self.check_partitions(ops, info):
            return  # the rules below read the roles
        # What each TMEM buffer is to the MMAs that use it, so that a buffer's element type
        # is checked against its role (one pass over the kernel, then one over the ops).
        self.roles = {}
        for op in ops:
            if MmaOp.matches(op):
                self.collect_roles(op)
        staged_ok = True
        for op in ops:
            name = d.op_name(op)
            if name is not None and name not in _RING_OPS and not self.check_single_stage(op):
                staged_ok = False
                continue
            check = _CHECKS.get(name)
            if check is None:
                continue
            if name in _INSTRUCTIONS and not self.check_two_dimensional(op):
                continue
            check(self, op, info)
        if not staged_ok:
            return  # the TMA rules read single tiles
        if any(TmaLoadOp.matches(op) or MbarrierExpectTxOp.matches(op) for op in ops):
            self.check_tma(kernel, ops, info)
        if not self.failed:
            self.check_collectors(kernel.regions[0].blocks[0], entry=True)

    # ------------------------------------------------------------------ TMA

    def check_tma(self, kernel, ops, info) -> None:
        """TMA loads (tcgen05_lower.tma, docs/tma.md): the tensor-map parameter's box and
        swizzle are the tile's, the tile's layout is one TMA box, coordinates are one per
        box dimension, every load's bytes are expected by an mbarrier_expect_tx before it
        on its mbarrier (9.7.13.15: a phase completes when its pending arrivals and its
        transaction count are both zero, so bytes not expected complete the phase early
        or underflow it), and an expect_tx that writes ``bytes`` expects exactly the
        bytes of the loads it covers."""
        for op in ops:
            if not TmaLoadOp.matches(op):
                continue
            element = d.type_info(TmaLoadOp(op).tile.type).element
            if _element_bits(element) is None:
                # The tile's declaration is refused for its element type (check_smem_buffer
                # reports it); the byte counts below need every tile's element size.
                return
        covered = tma.cover(kernel)
        for op in ops:
            if TmaLoadOp.matches(op):
                self.check_tma_load(op, info, covered)
            elif MbarrierExpectTxOp.matches(op):
                written = tma.written_bytes(op)
                loads = covered.loads.get(op, [])
                want = covered.expected_bytes(op)
                if written is not None and written >= 1 << 20:
                    self.error(op, f"bytes = {written} exceeds the transaction count range "
                                   f"of an mbarrier (2^20 - 1, PTX ISA 9.7.13.15.2)")
                elif written is not None and written != want:
                    pair = (" in each CTA of the pair (both complete on the even CTA's "
                            "mbarrier, docs/cta-pairs.md)" if covered.ctas == 2 else "")
                    self.error(op, f"bytes = {written} is not the {want} bytes of the "
                                   f"{len(loads)} tcgen05.tma_load op(s) that follow it on "
                                   f"this mbarrier in its block{pair}: a phase completes "
                                   f"when its transaction count reaches zero (PTX ISA "
                                   f"9.7.13.15)")
                elif written is None and not loads:
                    self.error(op, "no tcgen05.tma_load follows this mbarrier_expect_tx on "
                                   "its mbarrier in its block, so its byte count cannot be "
                                   "computed: write bytes = N")

    def check_tma_load(self, op, info, covered) -> None:
        load = TmaLoadOp(op)
        first = load.barrier
        if str(first.type) not in ("!tcgen05.mbarrier", "index"):
            self.error(op, f"operand 2 of tcgen05.tma_load is its !tcgen05.mbarrier or, "
                           f"without one, its first index coordinate, not {first.type}")
            return
        if info.cta_group == 2 and not self.check_pair_tile(op, load.tile, "loaded"):
            return
        spec = tma.tensor_map_of(load.tensor_map)
        if spec is None:
            self.error(op, f"the tensor map of tcgen05.tma_load must be a kernel parameter "
                           f"with the argument attribute {tma.TENSOR_MAP_ATTR} = {{tensor = "
                           f"\"<array parameter>\", box = array<i64: ...>, swizzle = ...}} "
                           f"(docs/tma.md)")
            return
        if str(load.tensor_map.type) != "!llvm.ptr<1>":
            self.error(op, f"the tensor-map parameter is {load.tensor_map.type}; it must be "
                           f"!llvm.ptr<1>, the global address of the CUtensorMap "
                           f"(docs/tma.md)")
        for problem in spec.problems:
            self.error(op, f"tensor-map parameter: {problem}")
        problem = tma.tile_problem(load.tile)
        if problem:
            self.error(op, problem)
        tile = d.type_info(load.tile.type)
        want = tma.tile_box(load.tile)
        if spec.box is not None and spec.box != want:
            order = (f"K = {tile.k}, rows = {tile.rows}" if tile.major == "K" else
                     f"rows = {tile.rows}, K = {tile.k}: the tile is MN-major")
            self.error(op, f"the tensor map's box {list(spec.box)} is not the tile's "
                           f"{list(want)} (innermost first: {order})")
        if spec.box is not None and any(not 1 <= b <= tma.MAX_BOX for b in spec.box):
            self.error(op, f"box {list(spec.box)}: every box dimension must be 1 to "
                           f"{tma.MAX_BOX} elements (cuTensorMapEncodeTiled)")
        if spec.swizzle is not None and spec.swizzle != tile.swizzle:
            self.error(op, f"the tensor map's swizzle \"{spec.swizzle}\" is not the "
                           f"tile's \"{tile.swizzle}\" (PTX ISA 5.5.6, Table 41)")
        coordinates = len(tma.load_coordinates(op))
        if spec.box is not None and coordinates != len(spec.box):
            self.error(op, f"{coordinates} coordinate(s) for a {len(spec.box)}-dimensional "
                           f"tensor map: one per dimension, innermost first")
        if tma.load_barrier(op) is None:
            if self.role_of.get(op) is None:
                self.error(op, "this tcgen05.tma_load names no mbarrier and is not in a "
                               "tcgen05.role: only tcgen05-insert-sync's protocol for warp "
                               "roles chooses one (docs/tma.md); write the mbarrier operand "
                               "after the tile")
        elif covered.of_load.get(op) is None:
            self.error(op, "no tcgen05.mbarrier_expect_tx on this mbarrier precedes the "
                           "tma_load in its block (after the last wait or commit on it): "
                           "the phase would complete before the copy lands, or never "
                           "(PTX ISA 9.7.13.15)")

    def check_fragments_stay(self, ops) -> None:
        """A fragment is registers of each thread whose mapping to (row, column) the
        tcgen05 op that makes it decides (tcgen05-select-layouts plans it, the lowering
        follows it from op to op): it is an operand of tcgen05 ops, and an scf.for may
        carry a per-row value (a row vector: one register per row, held by the thread of
        the row) as an iteration argument, from an initial value to the value yielded for
        the next iteration, both row vectors (held alike). Any other select, branch, loop
        or call of a fragment is refused here, at that op, before any plan depends on
        it."""
        for op in ops:
            if d.op_name(op) is not None:
                continue
            for index, value in enumerate(op.operands):
                if not isinstance(d.type_info(value.type), d.FragType):
                    continue
                problem = self.carried_fragment_problem(op, index, value)
                if problem:
                    self.error(op, problem)
                    break

    def carried_fragment_problem(self, op, index: int, value) -> str | None:
        """What is wrong with fragment operand `index` of the non-tcgen05 `op` (None: an
        iteration argument's initial or yielded row vector)."""
        kind = d.type_info(value.type)
        parent = op.parent.operation if op.name == "scf.yield" else None
        if op.name == "scf.for" and index >= 3 or \
                op.name == "scf.yield" and parent is not None and parent.name == "scf.for":
            where = index - 3 if op.name == "scf.for" else index
            what = "initial value of" if op.name == "scf.for" else "value yielded for"
            if kind.shape[1] != 1:
                return (f"{op.name}: iteration argument #{where} is a {value.type}: an "
                        f"scf.for carries per-row values ([rows, 1], one register per row) "
                        f"only, not fragments of several columns, whose registers the "
                        f"message shapes planned for them decide")
            if not is_row_vector(value, self.row_memo):
                return (f"{op.name}: the {what} iteration argument #{where} is not a "
                        f"per-row value (a frag_reduce or ld_red result, a frag_map of no "
                        f"input or whose first input is one, or an iteration argument "
                        f"starting from one): the initial and the yielded value must be "
                        f"held alike, one register per row in the thread of the row")
            return None
        return (f"{op.name} takes a {value.type}: a fragment is an operand of tcgen05 ops "
                f"only, it cannot flow through selects, branches, loops or calls (an scf.for "
                f"may carry a per-row value as an iteration argument)")

    def check_threads(self, kernel, info, partitioned: bool) -> bool:
        """One warpgroup per CTA, or, in a kernel with warp roles, whole warps up to the
        CTA's 1024 threads (the roles say which warps do what; docs/partitions.md)."""
        if not partitioned:
            if info.threads != WARPGROUP_THREADS:
                self.error(kernel, f"threads = {info.threads}: this version lowers kernels "
                                   f"without tcgen05.partitions of exactly one warpgroup "
                                   f"({WARPGROUP_THREADS} threads)")
                return False
            return True
        if info.threads % WARP_THREADS or not WARPGROUP_THREADS <= info.threads <= MAX_THREADS:
            self.error(kernel, f"threads = {info.threads}: a kernel with tcgen05.partitions "
                               f"has whole warps, {WARPGROUP_THREADS} to {MAX_THREADS} "
                               f"threads")
            return False
        return True

    def check_partitions(self, ops, info) -> bool:
        """The warp-role rules of docs/partitions.md, at the op that breaks each: a
        partitions body of roles only, each role's warps inside the CTA and disjoint from
        the others', no nesting; inside a role, warpgroup ops only in whole aligned
        warpgroups, no allocation or CTA-wide barrier, buffers and mbarriers declared
        before the partitions, mbarrier waits with an explicit parity. One walk."""
        ok = True
        for op in ops:
            if op.name == PARTITIONS_OP:
                if op in self.role_of:
                    ok = False
                    self.error(op, f"tcgen05.partitions inside "
                                   f"{self.role_name(self.role_of[op])}: partitions do not "
                                   f"nest (a role is a sequential program of its warps)")
                ok &= self.check_partition_body(op, info)
            elif op.name == ROLE_OP:
                parent = op.parent
                if parent is None or parent.name != PARTITIONS_OP:
                    ok = False
                    self.error(op, "tcgen05.role outside the body of a tcgen05.partitions")
        if not ok:
            return False
        warpgroup_kernel = info.threads == WARPGROUP_THREADS
        # mbarriers that a role signals: a wait outside the roles counts its phase at run
        # time from the commits of its own program, which a role's are not part of.
        signalled_in_roles = {op.operands[0] for op in ops if op in self.role_of
                              and d.op_name(op) in ("commit", "mbarrier_arrive")}
        for op in ops:
            name = d.op_name(op)
            owner = self.role_of.get(op)
            role = self.role.get(owner) if owner is not None else None
            if name in WARPGROUP_OPS:
                if role is None and not warpgroup_kernel:
                    ok = False
                    self.error(op, f"tcgen05.{name} outside the roles of a kernel of "
                                   f"{info.threads} threads: a warpgroup op runs on every "
                                   f"warp of a warpgroup (Table 46), so outside a role the "
                                   f"kernel must be exactly one warpgroup; move it into a "
                                   f"role of whole warpgroups")
                elif role is not None and not role.whole_warpgroups:
                    ok = False
                    self.error(op, f"tcgen05.{name} in {role.describe()}: it is executed by "
                                   f"every warp of a warpgroup, warp w accessing TMEM lanes "
                                   f"32 * (w % 4) to 32 * (w % 4) + 31 (Table 46, 9.7.16.8.1), "
                                   f"so its role must be whole aligned warpgroups (first_warp "
                                   f"and warps multiples of 4)")
            if role is None:
                if name == MbarrierWaitOp.NAME and len(op.operands) < 2 \
                        and op.operands[0] in signalled_in_roles:
                    ok = False
                    self.error(op, "tcgen05.mbarrier_wait without a phase on an mbarrier "
                                   "that a tcgen05.role signals: the run-time phase count "
                                   "follows the commits of the waiting thread's own "
                                   "program, which the role's are not part of; give the "
                                   "parity as an operand")
                continue
            if name in ("alloc", "dealloc", "relinquish_alloc_permit"):
                ok = False
                self.error(op, f"tcgen05.{name} in {role.describe()}: TMEM allocation is "
                               f"planned for the whole CTA (warp 0, outside the partitions)")
            elif name in ("tmem_buffer", "smem_buffer", "alloc_mbarrier"):
                ok = False
                self.error(op, f"tcgen05.{name} in {role.describe()}: buffers and mbarriers "
                               f"are declared before the tcgen05.partitions, where every "
                               f"role sees them")
            elif name == MbarrierWaitOp.NAME and len(op.operands) < 2:
                ok = False
                self.error(op, f"tcgen05.mbarrier_wait without a phase in {role.describe()}: "
                               f"the run-time phase count follows the commits of the "
                               f"waiting thread's own program, which another role's "
                               f"commits are not part of; give the parity as an operand")
            elif op.name in CTA_WIDE_BARRIERS:
                ok = False
                self.error(op, f"{op.name} in {role.describe()}: a CTA-wide barrier waits "
                               f"for every thread of the CTA, and the warps of the other "
                               f"roles never reach it (deadlock); use tcgen05.barrier, the "
                               f"role's own named barrier")
        return ok

    def role_name(self, owner) -> str:
        role = self.role.get(owner)
        return role.describe() if role is not None else "a tcgen05.role"

    def check_partition_body(self, op, info) -> bool:
        """A partitions body holds one tcgen05.role per role and ends in gpu.yield; each
        role has a name, first_warp and warps, within the CTA and disjoint from the other
        roles', and ends in gpu.yield. Records each role (self.role)."""
        if not len(op.regions[0].blocks):
            self.error(op, "tcgen05.partitions has no tcgen05.role (its body is empty)")
            return False
        body = op.regions[0].blocks[0]
        roles = partition_roles(op)
        ok = True
        for inner in body.operations:
            inner = inner.operation
            if inner.name not in (ROLE_OP, "gpu.yield"):
                ok = False
                self.error(inner, f"{inner.name} in the body of tcgen05.partitions: the "
                                  f"body holds one tcgen05.role per role (then gpu.yield), "
                                  f"each role's ops inside its role")
        if terminator(body).name != "gpu.yield":
            ok = False
            self.error(op, "the body of tcgen05.partitions ends in gpu.yield")
        if not roles:
            self.error(op, "tcgen05.partitions has no tcgen05.role")
            return False
        if len(roles) > MAX_ROLES:
            self.error(op, f"tcgen05.partitions has {len(roles)} roles: each role's "
                           f"tcgen05.barrier is a named barrier 1..{MAX_ROLES} (barrier 0 "
                           f"is the CTA's), so at most {MAX_ROLES}")
            return False
        warps_in_cta = info.threads // WARP_THREADS
        placed, names = [], {}
        for index, role_op in enumerate(roles):
            role = RoleOp(role_op)
            missing = [a.name for a in (RoleOp.name, RoleOp.first_warp, RoleOp.warps)
                       if not role.has(a)]
            if missing:
                ok = False
                self.error(role_op, f"tcgen05.role needs name (a string), first_warp and "
                                    f"warps (integers); missing: {', '.join(missing)}")
                continue
            if not len(role_op.regions[0].blocks) or \
                    terminator(role_op.regions[0].blocks[0]).name != "gpu.yield":
                ok = False
                self.error(role_op, f"the region of role '{role.name}' ends in gpu.yield")
            if role.first_warp < 0 or role.warps < 1:
                ok = False
                self.error(role_op, f"role '{role.name}': first_warp = {role.first_warp} "
                                    f"and warps = {role.warps}: first_warp >= 0 and warps "
                                    f">= 1")
                continue
            info_ = role_info(role_op, index)
            if role.first_warp + role.warps > warps_in_cta:
                ok = False
                self.error(role_op, f"{info_.describe()} is outside the CTA: threads = "
                                    f"{info.threads} has warps 0-{warps_in_cta - 1}")
                continue
            if role.name in names:
                ok = False
                self.error(role_op, f"two roles are named '{role.name}' (the other at line "
                                    f"{_line(names[role.name])})")
            names[role.name] = role_op
            for other in placed:
                if other.first_warp < info_.first_warp + info_.warps and \
                        info_.first_warp < other.first_warp + other.warps:
                    ok = False
                    self.error(role_op, f"{info_.describe()} overlaps {other.describe()} "
                                        f"(line {_line(other.op)}): a warp runs one role")
            placed.append(info_)
            self.role[role_op] = info_
        return ok

    def check_mbarrier_arrive(self, op, info) -> None:
        """Each thread that executes tcgen05.mbarrier_arrive arrives once: the threads of
        its role, or of the CTA outside roles. The mbarrier's count must be a whole
        number of such arrivals, else a phase completes part-way through one (and the rest
        arrive on the next phase): count = threads x arrive executions per phase
        (docs/partitions.md)."""
        owner = self.role_of.get(op)
        role = self.role.get(owner) if owner is not None else None
        threads = role.threads if role is not None else info.threads
        cta = MbarrierArriveOp(op).cta
        if cta is not None:
            if cta != "even":
                self.error(op, f"cta = \"{cta}\" is not \"even\" (the only CTA of a pair "
                               f"an mbarrier_arrive may arrive at besides its own, "
                               f"docs/cta-pairs.md)" + did_you_mean(cta, ("even",)))
                return
            if info.cta_group != 2:
                self.error(op, f"cta = \"even\" arrives at the even CTA of a CTA pair, but "
                               f"the kernel has cta_group = {info.cta_group}: only a "
                               f"cta_group::2 kernel runs as a pair (9.7.16.5.1)")
                return
            # Both CTAs' threads arrive at the even CTA's mbarrier.
            threads *= 2
        barrier = defining_op(op.operands[0])
        if barrier is not None and MbarrierStageOp.matches(barrier):
            barrier = defining_op(barrier.operands[0])   # every stage has the ring's count
        if barrier is None or not AllocMbarrierOp.matches(barrier):
            return
        count = AllocMbarrierOp(barrier).count
        if count % threads:
            who = role.describe() if role is not None else "the CTA"
            if cta is not None:
                who += " in both CTAs of the pair"
            self.error(op, f"tcgen05.mbarrier_arrive by the {threads} threads of {who} "
                           f"makes {threads} arrivals, but the mbarrier (line "
                           f"{_line(barrier)}) has count = {count}, not a multiple of "
                           f"{threads}: a phase would complete part-way through the "
                           f"arrivals (9.7.13.15.13)")
        if cta is not None:
            self.check_even_arrivals(op, barrier)

    def check_even_arrivals(self, op, barrier) -> None:
        """An mbarrier that ``cta = "even"`` arrivals complete is the even CTA's: every
        arrival on it (by tcgen05.mbarrier_arrive) must go there, and no commit may
        signal it, or the CTAs would count different phases on it and the waits on it
        (which run in the even CTA only) would not see them (docs/cta-pairs.md). Once
        per mbarrier, so that the check stays linear in the kernel's ops."""
        checked = self.even_mbarriers_checked
        if op.operands[0] in checked:
            return
        checked.add(op.operands[0])
        for use in op.operands[0].uses:
            owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            mixed = (MbarrierArriveOp.matches(owner) and MbarrierArriveOp(owner).cta
                     != "even") or d.op_name(owner) in ("commit", "mbarrier_expect_tx",
                                                        "tma_load")
            if mixed:
                self.error(op, f"the mbarrier (line {_line(barrier)}) is the even CTA's "
                               f"for this cta = \"even\" arrival, but tcgen05."
                               f"{d.op_name(owner)} at line {_line(owner)} signals it "
                               f"otherwise: one mbarrier's signals must all reach the "
                               f"same CTAs (docs/cta-pairs.md)")
                return

    def check_grid(self, kernel, info) -> None:
        """The form of the grid entry (tcgen05_lower.launch). Which names are integer
        arguments only the source text says (parsed block arguments have no names): the
        driver checks that when it writes the launch manifest."""
        try:
            grid_arguments(info.grid)
        except GridError as exc:
            self.error(kernel, f"{d.KERNEL_ATTR}.grid: {exc}")

    def check_argument_alignment(self, kernel) -> bool:
        """The ``llvm.align`` of a kernel argument (the alignment the caller promises,
        which store_fragment's 16-byte stores rely on) is a power of two
        (kernel_ir.misaligned_arguments)."""
        found = misaligned_arguments(kernel)
        for _number, message in found:
            self.error(kernel, message)
        return not found

    def check_other_functions(self, module) -> None:
        """The argument alignments of the module's functions that are not kernels (or
        whose ``tcgen05.kernel`` is misspelled): LLVM aborts on them just the same."""
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name in ("func.func", "llvm.func") and not d.is_kernel(op):
                for _number, message in misaligned_arguments(op):
                    self.error(op, message)

    # ------------------------------------------------------------------ collectors

    def check_collectors(self, block, *, entry: bool) -> None:
        """9.7.16.10.9.1: ``::use`` "requires a previous fill to the collector buffer to be
        still valid", ``::lastuse`` one "valid till the collector buffer is read", and an
        MMA without a collector qualifier is ``::discard``. A use must also read the matrix
        that was filled: reuse is opportunistic (9.7.16.10: "the TensorCore may reload a
        matrix even when it has permission to reuse that matrix"), so a use of another
        matrix reads either. Checked in program order within each block, where the state
        at the block's start is known only for the kernel's entry block (nothing filled);
        after a nested loop or branch it is unknown again. One walk, linear."""
        default = _RELEASED if entry else None
        state: dict = {}
        for op in block.operations:
            op = op.operation
            if len(op.regions) and d.op_name(op) is None:
                for region in op.regions:
                    for inner in region.blocks:
                        self.check_collectors(inner, entry=False)
                state, default = {}, None
                continue
            if not MmaOp.matches(op):
                continue
            name, action, key = _collector_usage(op)
            held = state.get(name, default)
            if action in ("use", "lastuse") and held is not None:
                problem = None
                if held == _RELEASED or held[0] == _RELEASED:
                    problem = ("nothing fills it earlier in the kernel" if held == _RELEASED
                               else f"the MMA at line {_line(held[1])} released it "
                                    f"({held[2]})")
                elif held[0] != key:
                    problem = (f"it holds the {_collected(name)} filled at line "
                               f"{_line(held[1])} ({_describe(held[0], key)}), which "
                               f"is not the matrix this MMA reads; reuse is opportunistic "
                               f"(9.7.16.10), so the result would depend on whether the "
                               f"tensor core reloads it")
                if problem:
                    self.error(op, f"collector::{name}::{action} needs a previous "
                                   f"collector::{name}::fill still valid (9.7.16.10.9.1), "
                                   f"but {problem}")
            if action == "fill":
                state[name] = (key, op, "fill")
            elif action in ("lastuse", "discard"):
                how = (f"collector::{name}::{action}" if action == "lastuse"
                       or _collector_written(op) else
                       f"no collector qualifier means collector::{name}::discard")
                state[name] = (_RELEASED, op, how)

    def check_type_parameters(self, ops) -> bool:
        """Every tcgen05 type an op uses has parameters of the dialect's form (a shape of
        the type's rank, positive integers; a known major-ness and swizzle), so that no
        rule reads a malformed one. Each bad type is reported once, at the first op that
        uses it (normally the buffer that defines it)."""
        ok = True
        reported = set()
        for op in ops:
            for value in [*op.operands, *op.results]:
                try:
                    d.type_info(value.type)
                except d.TypeParameterError as exc:
                    text = str(value.type)
                    if text not in reported:
                        reported.add(text)
                        self.error(op, f"type {text}: {exc}")
                    ok = False
        return ok

    def check_attribute_types(self, op) -> bool:
        """Every attribute of the op is one the dialect lists for it (a name it does not
        know is a misspelling, which would otherwise be ignored), of the kind it gives
        (dialect/attributes.py); names with a dot belong to other dialects."""
        known = d.ATTRIBUTES[d.op_name(op)]
        ok = True
        for i in range(len(op.attributes)):
            named = op.attributes[i]
            if "." in named.name:
                continue
            if named.name == SEGMENT_ATTR and MmaOp.matches(op):
                continue  # the MMA's operand groups, checked by IRDL (segments.py)
            if named.name not in known:
                self.error(op, f"tcgen05.{d.op_name(op)} has no attribute {named.name!r}; "
                               f"its attributes: {', '.join(sorted(known)) or 'none'}"
                               + did_you_mean(named.name, sorted(known)))
                ok = False
                continue
            problem = d.wrong_kind(named.name, named.attr, known[named.name])
            if problem:
                self.error(op, problem)
                ok = False
        return ok

    def collect_roles(self, op) -> None:
        try:
            MmaOp(op).sparse
        except d.InvalidAttribute:
            return  # reported by check_attribute_types
        operands = mma_operands(op)
        for role, value in (("a", operands.a if operands.a_tmem else None),
                            ("scale_a", operands.scale_a), ("scale_b", operands.scale_b),
                            ("metadata", operands.metadata)):
            owner = defining_op(value) if value is not None else None
            if owner is not None and TmemStageOp.matches(owner):
                owner = defining_op(owner.operands[0])  # the multi-buffered buffer
            if owner is not None:
                self.roles.setdefault(owner, role)

    def check_tmem_stage(self, op, info) -> None:
        """A stage of a [stages, rows, columns] buffer is a [rows, columns] buffer of the
        same element type."""
        whole = d.type_info(op.operands[0].type)
        view = d.type_info(op.results[0].type)
        if len(whole.shape) != 3:
            self.error(op, f"tcgen05.tmem_stage takes a multi-buffered [stages, rows, "
                           f"columns] buffer, not {whole.text()}")
        elif view.shape != whole.shape[1:] or view.element != whole.element:
            self.error(op, f"a stage of {whole.text()} is "
                           f"{d.TmemType(whole.shape[1:], whole.element).text()}, not "
                           f"{view.text()}")
        else:
            self.check_stage_index(op, whole)

    def check_smem_stage(self, op, info) -> None:
        """A stage of a multi-stage [stages, rows, K] shared-memory tile is a [rows, K]
        tile of the same element type, major-ness and swizzle; a constant stage index
        lies in 0 .. stages - 1 (a run-time one is the kernel's to keep in range)."""
        whole = d.type_info(op.operands[0].type)
        view = d.type_info(op.results[0].type)
        if not whole.staged:
            self.error(op, f"tcgen05.smem_stage takes a multi-stage [stages, rows, K] "
                           f"shared-memory tile, not {whole.text()}")
        elif view != whole.stage():
            self.error(op, f"a stage of {whole.text()} is {whole.stage().text()}, not "
                           f"{view.text()}")
        else:
            self.check_stage_index(op, whole)

    def check_stage_index(self, op, whole) -> None:
        """A constant stage index (operand 1 of a stage view) names a stage of `whole`."""
        stage = constant_int(op.operands[1])
        if stage is not None and not 0 <= stage < whole.stages:
            self.error(op, f"stage {stage} of {whole.text()}, which has stages 0 to "
                           f"{whole.stages - 1}")

    def check_single_stage(self, op) -> bool:
        """Every op but smem_buffer and smem_stage uses single [rows, K] shared-memory
        tiles: a stage of a multi-stage tile is picked with tcgen05.smem_stage."""
        for value in list(op.operands) + list(op.results):
            t = d.type_info(value.type)
            if isinstance(t, d.SmemType) and t.staged:
                self.error(op, f"{t.text()} has {t.stages} stages: pick one with "
                               f"tcgen05.smem_stage")
                return False
        return True

    def check_two_dimensional(self, op) -> bool:
        """The TMEM operands of an instruction are [rows, columns] buffers: a stage of a
        multi-buffered buffer is picked with tcgen05.tmem_stage."""
        for value in list(op.operands) + list(op.results):
            t = d.type_info(value.type)
            if isinstance(t, d.TmemType) and len(t.shape) != 2:
                self.error(op, f"{t.text()} is multi-buffered: pick a stage with "
                               f"tcgen05.tmem_stage")
                return False
        return True

    def check_cta_group(self, op, info) -> None:
        group = wrap(op).cta_group
        if group is not None and group != info.cta_group:
            self.error(op, f"cta_group = {group} differs from the kernel's cta_group = "
                           f"{info.cta_group}: all tcgen05 instructions of a kernel use the "
                           f"same .cta_group (9.7.16.7.1)")

    def check_feature(self, op, feature: str, info) -> bool:
        try:
            targets.check_feature(feature, info.target)
        except IsaRuleError as exc:
            self.rule(op, exc)
            return False
        return True

    # ------------------------------------------------------------------ buffers

    def check_tmem_buffer(self, op, info) -> None:
        t = d.type_info(op.results[0].type)
        if len(op.operands):
            problem = planned_buffer_problem(op)
            if problem:
                self.error(op, problem)
                return
        # Its shape is [rows, columns] or [stages, rows, columns] (dialect.type_info).
        # Buffers that an MMA reads as A, scale factors or metadata are checked there;
        # the others hold accumulators or data moved by ld/st/cp.
        if op not in self.roles and t.element not in ACCUMULATOR_TYPES:
            self.error(op, f"TMEM accumulator element type {isa_type(t.element)} is not f32, "
                           f"f16 or i32 (Table 39 dtype column)")

    def check_smem_buffer(self, op, info) -> None:
        """A tile holds elements of a type some tcgen05 operand can have (Tables 39 and
        42-44): anything else has no layout or descriptor (its rank, major-ness and
        swizzle are the type's own rules, checked by check_type_parameters)."""
        t = d.type_info(op.results[0].type)
        if _element_bits(t.element) is None:
            self.error(op, f"shared-memory tile element type {t.element} is not a tcgen05 "
                           f"operand type (Tables 39, 42-44: "
                           f"{', '.join(sorted(set(MLIR_TO_ISA.values())))})")

    def check_global_matrix(self, op) -> int | None:
        """The dims of an op that addresses a global matrix (kernel_ir.global_matrix); its
        leading dimension when it is a constant, else None."""
        matrix = global_matrix(op)
        for problem in matrix.problems:
            self.error(op, problem)
        ld_name = DIMS[wrap(op).NAME][0]
        ld = matrix.ld if isinstance(matrix.ld, int) or matrix.ld is None \
            else constant_int(matrix.ld)
        if ld is not None and ld <= 0:
            self.error(op, f"{ld_name} = {ld} must be positive")
            return None
        return None if matrix.problems else ld

    def check_smem_fill(self, op, info) -> None:
        fill = SmemFillOp(op)
        tile = d.type_info(fill.tile.type)
        layout = fill.src_layout
        if layout not in ("mn_k", "k_mn"):
            self.error(op, f"src_layout = \"{layout}\" is not \"mn_k\" or \"k_mn\""
                           + did_you_mean(layout, ("mn_k", "k_mn")))
        matrix_ok = not global_matrix(op).problems
        self.check_global_matrix(op)
        if tile.swizzle == "128B_base32B":
            self.error(op, "filling a tile with 128B swizzle of 32B atomicity is not "
                           "supported yet")
        elif _element_bits(tile.element) not in (8, 16, 32):
            self.error(op, f"filling a tile of {isa_type(tile.element)} is not supported yet "
                           f"(8-, 16- and 32-bit elements only)")
        elif not self.check_fill_chunks(op, tile, layout):
            pass
        elif tile.major == "K" and layout == "mn_k" and matrix_ok:
            self.check_fill_alignment(op, tile)
        elif tile.major == "MN" and layout == "k_mn" and matrix_ok:
            self.check_fill_alignment(op, tile, along_mn=True)
        if info.cta_group == 2:
            self.check_pair_tile(op, SmemFillOp(op).tile, "filled")

    def check_fill_chunks(self, op, tile, layout: str) -> bool:
        """A fill along the tile's contiguous dimension (mn_k into a K-major tile, k_mn
        into an MN-major one) copies 16-byte chunks, the units the swizzle permutes (Table
        41): the tile's extent along that dimension must be whole chunks, or the chunks of
        one row would run into the next."""
        along_k = tile.major == "K" and layout == "mn_k"
        if not along_k and not (tile.major == "MN" and layout == "k_mn"):
            return True
        element_bytes = _element_bits(tile.element) // 8
        if along_k:
            value = SmemFillOp(op).tile
            if value not in self.stored_k_memo:
                self.stored_k_memo[value] = stored_k(value)
            extent = self.stored_k_memo[value]
        else:
            extent = tile.rows
        if extent * element_bytes % FILL_VECTOR_BYTES == 0:
            return True
        what = "K" if along_k else "M/N"
        self.error(op, f"the tile's {what} extent of {extent} {isa_type(tile.element)} "
                       f"elements is {extent * element_bytes} bytes, not a multiple of the "
                       f"{FILL_VECTOR_BYTES}-byte chunks src_layout = \"{layout}\" copies")
        return False

    def check_pair_tile(self, op, tile, how: str) -> bool:
        """In a CTA pair, a tile is the CTA's slice of an MMA operand (M/2 rows of A, N/2
        of B), and each CTA fills (or TMA-loads) its own rows (docs/cta-pairs.md). A tile
        no MMA reads as A or B has no such split: a tcgen05.cp.cta_group::2 reads the
        issuing CTA's tile only and writes the same data into both CTAs (9.7.16.9.2)."""
        if _read_by_mma(tile):
            return True
        # A stage of a ring (tcgen05.smem_stage): the ring is an MMA operand when an MMA
        # reads any stage of it (the load role's and the MMA role's stage views are
        # different values); the split is the stage's rows either way. Memoized per ring,
        # so that the kernel's fills and loads walk each ring's uses once.
        view = defining_op(tile)
        if view is not None and SmemStageOp.matches(view):
            ring = view.operands[0]
            memo = self.ring_read_by_mma
            if ring not in memo:
                memo[ring] = any(
                    SmemStageOp.matches(owner) and _read_by_mma(owner.results[0])
                    for owner in (u.owner.operation if hasattr(u.owner, "operation")
                                  else u.owner for u in ring.uses))
            if memo[ring]:
                return True
        self.error(op, f"in a cta_group::2 kernel a shared-memory tile is {how} as this "
                       f"CTA's slice of an MMA operand (rows rank * R .., docs/cta-pairs.md), "
                       f"but no tcgen05.mma reads this tile as A or B, so how the pair "
                       f"splits it is not defined (a tcgen05.cp.cta_group::2 copies the "
                       f"issuing CTA's tile into both CTAs, 9.7.16.9.2)")
        return False

    def check_fill_alignment(self, op, tile, along_mn: bool = False) -> None:
        """A fill that reads global memory in 16-byte vectors (ld.global.v4.b32) needs
        16-byte aligned addresses: every source row start (src_ld elements apart) and the
        offset along the contiguous dimension must be whole multiples of 16 bytes (each
        vector is one of the 16-byte units the swizzle permutes, Table 41). That dimension
        is K for a K-contiguous (mn_k) fill of a K-major tile, and M/N (the row offset)
        for an MN-contiguous (k_mn) fill of an MN-major tile (`along_mn`). A value known
        only at run time is checked when its residue modulo 16 bytes is known
        (kernel_ir.known_residue: e.g. a loop over K offsets 8, 72, 136, ...); otherwise
        the lowering tests it, with the source pointer, at run time and copies element
        by element where the vectors would be misaligned (lowering.smem._vector_alignment)."""
        fill = SmemFillOp(op)
        matrix = global_matrix(op)
        element = isa_type(tile.element)
        element_bytes = _element_bits(tile.element) // 8
        per_vector = FILL_VECTOR_BYTES // element_bytes   # elements in one vector
        source = "k_mn" if along_mn else "mn_k"
        ld = matrix.ld if isinstance(matrix.ld, int) else constant_int(matrix.ld)
        if ld is not None:
            row_bytes = ld * element_bytes
            if row_bytes % FILL_VECTOR_BYTES:
                self.error(op, f"src_ld = {ld} {element} elements is {row_bytes} bytes, not "
                               f"a multiple of the {FILL_VECTOR_BYTES}-byte vector loads of "
                               f"src_layout = \"{source}\": every other row would start "
                               f"misaligned")
                return
        else:
            residue = known_residue(matrix.ld, per_vector)
            if residue:
                self.error(op, f"src_ld is {residue} modulo {per_vector} {element} elements "
                               f"({residue * element_bytes} bytes past a multiple of "
                               f"{FILL_VECTOR_BYTES}) for every value it takes: the "
                               f"{FILL_VECTOR_BYTES}-byte vector loads of src_layout = "
                               f"\"{source}\" would start every other row misaligned")
                return
        offset_value = matrix.row_offset if along_mn else fill.k_offset
        what = "row offset" if along_mn else "K offset"
        if offset_value is None:
            return  # no row offset: the tile starts at the matrix's first row
        offset = constant_int(offset_value)
        if offset is not None:
            if offset * element_bytes % FILL_VECTOR_BYTES:
                self.error(op, f"{what} {offset} {element} elements is "
                               f"{offset * element_bytes} bytes, not a multiple of the "
                               f"{FILL_VECTOR_BYTES}-byte vector loads of src_layout = "
                               f"\"{source}\"")
            return
        residue = known_residue(offset_value, per_vector)
        if residue:
            self.error(op, f"the {what} is {residue} modulo {per_vector} {element} "
                           f"elements ({residue * element_bytes} bytes past a multiple of "
                           f"{FILL_VECTOR_BYTES}) for every value it takes: not aligned to "
                           f"the {FILL_VECTOR_BYTES}-byte vector loads of src_layout = "
                           f"\"{source}\" (the 16-byte units the {tile.swizzle} swizzle "
                           f"permutes, Table 41)")

    # ------------------------------------------------------------------ mma

    def check_mma(self, op, info) -> None:
        mma = MmaOp(op)
        kind = mma.kind
        if kind not in shapes.KINDS:
            self.error(op, f"kind::{kind} is not an MMA kind (one of "
                           f"{', '.join(shapes.KINDS)}; 9.7.16.10.9.1)"
                           + did_you_mean(kind, shapes.KINDS))
            return
        operands = mma_operands(op)
        if operands.a_smem is None and operands.a_tmem is None:
            self.error(op, f"operand A has type {op.operands[1].type}; expected a TMEM "
                           f"buffer or a shared-memory tile")
            return
        if not self.check_mma_operand_roles(op, kind, operands):
            return
        sparse, ws = bool(mma.sparse), bool(mma.ws)
        if sparse and operands.a_smem is not None:
            owner = defining_op(operands.a)
            if owner is not None and SmemStageOp.matches(owner):
                # A fill stores K/2 elements per row in a tile a sparse MMA reads as A
                # (kernel_ir.stored_k), which it sees through the tile's own uses only.
                self.error(op, "a sparse MMA reading A from a stage of a multi-stage "
                               "tile (tcgen05.smem_stage) is not supported yet: give the "
                               "compressed A (M x K/2, 9.7.16.10.8) its own [rows, K] tile")
                return
        k_attr = mma.k
        k96 = k_attr == 96
        dt, at, bt = operands.d_type, operands.a_type, operands.b_type
        m, n = dt.rows, dt.cols
        try:
            if k_attr is not None and not k96 and k_attr != shapes.mma_k(kind, sparse=sparse):
                raise IsaRuleError("Table 39", f"k = {k_attr} is neither the K = "
                                   f"{shapes.mma_k(kind, sparse=sparse)} of kind::{kind}"
                                   f"{' sparse' if sparse else ''} nor K1 = 96")
            shapes.check_mma_shape(kind=kind, m=m, n=n, cta_group=info.cta_group,
                                   sparse=sparse, ws=ws, k96=k96,
                                   d_type=isa_type(dt.element), a_type=isa_type(at.element),
                                   b_type=isa_type(bt.element))
            k = shapes.mma_k(kind, sparse=sparse, k96=k96)
        except IsaRuleError as exc:
            self.rule(op, exc)
            return
        features = targets.mma_features(kind, sparse=sparse, ws=ws, k96=k96,
                                        scale_input_d=mma.has(MmaOp.scale_input_d))
        for feature in features:
            if not self.check_feature(op, feature.key, info):
                return
        if not self.check_mma_tiles(op, kind, operands, info, k, k96):
            return
        checks = (self.check_mma_sparsity, self.check_mma_block_scale, self.check_mma_ws,
                  self.check_mma_qualifiers)
        before = self.failed
        self.failed = False
        for check in checks:
            check(op, kind, operands, info, k96)
        if not self.failed:
            self.check_instr_desc(op, kind, operands, k96)
        self.failed = self.failed or before

    def check_mma_operand_roles(self, op, kind, operands) -> bool:
        """The trailing TMEM operands match the attributes that name them."""
        block_scaled = kind in shapes.BLOCK_SCALED_KINDS
        if block_scaled and effective_scale_vec(op) is None:
            self.error(op, f"kind::{kind} needs an explicit scale_vec (9.7.16.10.9.1: \"For "
                           f".kind::mxf4nvf4, the qualifier .scale_vectorsize must be "
                           f"explicitly specified\"; mxf4 and mxf8f6f4 default to .block32)")
            return False
        if not block_scaled and MmaOp(op).has(MmaOp.scale_vec):
            self.error(op, f"scale_vec needs .block_scale, which kind::{kind} does not take "
                           f"(block-scaled kinds: {', '.join(shapes.BLOCK_SCALED_KINDS)}; "
                           f"9.7.16.10.9.1)")
            return False
        if block_scaled and (operands.scale_a is None or operands.scale_b is None):
            self.error(op, "a block-scaled MMA takes the scale_A and scale_B TMEM operands "
                           "after enable_input_d")
            return False
        if MmaOp(op).sparse and operands.metadata is None:
            self.error(op, "a sparse MMA (.sp) takes the sparsity metadata TMEM operand "
                           "after the scale operands (9.7.16.10.9.2)")
            return False
        if operands.unexpected:
            self.error(op, f"{len(operands.unexpected)} trailing TMEM operand(s) that no "
                           f"attribute accounts for: scale_a and scale_b come with "
                           f"scale_vec, the metadata with sparse")
            return False
        return True

    @staticmethod
    def zero_column_shift(op) -> int:
        """The Column Shift field (bits 56-61) of a .ws MMA's zero-column mask (Table 45):
        "Shifts column by specified amount. Thus allows MMA on non-0 starting column" --
        the MMA reads B's rows (its N columns) from that row of the tile on."""
        mma = MmaOp(op)
        if not mma.ws or not mma.has(MmaOp.zero_column_mask):
            return 0
        mask = mma.zero_column_mask & 0xFFFFFFFFFFFFFFFF
        operands = mma_operands(op)
        try:
            descriptors.zero_column_masks(mask, m=operands.d_type.rows,
                                          n=operands.d_type.cols)
            return descriptors.decode_zero_column_mask(mask)["column_shift"]
        except IsaRuleError:
            return 0   # a malformed mask: check_mma_ws reports it

    def check_mma_tiles(self, op, kind, operands, info, k, k96) -> bool:
        """Operand shapes (per CTA for tiles), the K block, Tables 49, 50 and 52."""
        dt, bt, cta = operands.d_type, operands.b_type, info.cta_group
        m, n = dt.rows, dt.cols
        ok = True
        if operands.a_smem is not None and operands.a_smem.rows != m // cta:
            self.error(op, f"A tile has {operands.a_smem.rows} rows but the accumulator has "
                           f"M = {m}" + (f" (each CTA of the pair holds M/2 = {m // 2})"
                                         if cta == 2 else ""))
            ok = False
        if operands.a_tmem is not None:
            a = operands.a_tmem
            if len(a.shape) != 2 or a.rows != m:
                self.error(op, f"A in tensor memory has shape {list(a.shape)}; expected "
                               f"[{m}, K] (M = {m} rows, 9.7.16.10.5)")
                ok = False
        shift = self.zero_column_shift(op)
        if (bt.rows != n // cta) if not shift else (bt.rows < n // cta + shift):
            self.error(op, f"B tile has {bt.rows} rows but the accumulator has N = {n}"
                           + (f" (each CTA of the pair holds N/2 = {n // 2})"
                              if cta == 2 else "")
                           + (f" and the zero-column mask shifts B's columns by {shift} "
                              f"(Table 45: the MMA reads B columns {shift} to "
                              f"{n // cta + shift - 1}, so the tile needs at least "
                              f"{n // cta + shift} rows)" if shift else ""))
            ok = False
        a_k = operands.a_type.shape[-1]
        if a_k != bt.k:
            what = "tile" if operands.a_smem is not None else "buffer"
            self.error(op, f"A {what} has K = {a_k} but B tile has K = {bt.k}")
            ok = False
        if not ok:
            return False
        k_offset = MmaOp(op).k_offset
        if k_offset % k != 0 or k_offset < 0 or k_offset + k > bt.k:
            self.error(op, f"k_offset = {k_offset} does not select a K = {k} block of the "
                           f"{bt.k}-wide tiles (kind::{kind}, Table 39)")
            return False
        sparse = bool(MmaOp(op).sparse)
        for which, tile in (("A", operands.a_smem), ("B", bt)):
            stored = tile.k // 2 if tile is not None and sparse and which == "A" \
                else (tile.k if tile is not None else 0)
            if tile is not None and not self.check_tile(op, kind, which, tile, n, cta, stored):
                ok = False
            elif tile is not None and k96 and tile.major == "K":
                ok = self.check_k96_block(op, which, tile, kind, k_offset) and ok
            elif tile is not None and tile.major == "K":
                ok = self.check_k_block_in_swizzle_row(
                    op, which, tile, kind, k=k, k_offset=k_offset,
                    compressed=sparse and which == "A") and ok
        return ok

    def check_tile(self, op, kind, which, tile, n, cta, stored_k) -> bool:
        """Tables 49, 50 and 52 for one shared-memory operand tile, and its canonical
        layout (9.7.16.3.3); `stored_k` is the K extent in memory (K/2 for a sparse A)."""
        elt = isa_type(tile.element)
        bits = _element_bits(tile.element)
        if tile.swizzle == "128B_base32B" and not (tile.major == "MN" and bits == 32):
            self.error(op, f"{which} tile: 128B swizzle with 32B atomicity is only for "
                           f"MN-major 32-bit operands (Table 52)")
            return False
        if tile.major == "MN" and bits == 32 and tile.swizzle != "128B_base32B":
            self.error(op, f"{which} tile: MN-major {elt} requires 128B swizzle with 32B "
                           f"atomicity, got \"{tile.swizzle}\" (Table 52)")
            return False
        if tile.major != "MN":
            # K-major canonical layouts (9.7.16.3.3) are made of 8-row core matrices whose
            # rows are one swizzle width W long (16 bytes without swizzle).
            width = SWIZZLE_BYTES[tile.swizzle]
            row_bytes = stored_k * container_bits(tile.element, kind=kind) // 8 \
                if bits is not None else 0
            if tile.rows % 8 or row_bytes % width:
                stored = f" (stored as K/2 = {stored_k})" if stored_k != tile.k else ""
                self.error(op, f"{which} tile {list(tile.shape)} of {elt}{stored} is not a "
                               f"whole number of K-major \"{tile.swizzle}\" atoms: 8 rows "
                               f"of {width} bytes (9.7.16.3.3)")
                return False
            return True
        # MN-major is the transposed operand: Table 49 per kind, Table 52 per type size.
        if kind in ("mxf4", "mxf4nvf4"):
            self.error(op, f"{which} tile is MN-major (transposed), which kind::{kind} does "
                           f"not support (Table 49)")
            return False
        if bits is not None and bits < 8:
            self.error(op, f"{which} tile: {bits}-bit {elt} must be K-major (Table 52)")
            return False
        if which == "B" and bits == 8:
            step, low = (16, 16) if cta == 1 else (32, 32)
            if not (low <= n <= 256 and n % step == 0):
                self.error(op, f"N = {n} is not allowed for an 8-bit transposed (MN-major) B "
                               f"with cta_group::{cta}: {low} <= N <= 256, step {step} "
                               f"(Table 50)")
                return False
        try:
            descriptors.canonical_smem_strides(dtype=elt, major="MN", swizzle=tile.swizzle,
                                               tile_mn=tile.rows, tile_k=stored_k)
        except IsaRuleError as exc:
            self.error(op, f"{which} tile: {exc}")
            return False
        return True

    def check_k96_block(self, op, which, tile, kind, k_offset) -> bool:
        """A K = 96 block of 4-bit elements is 48 bytes (9.7.16.3.1.2): within a swizzle
        row it must not cross the row's end, which would need the absolute LBO mode."""
        bits = container_bits(tile.element, kind=kind)
        # K = 96 exists only for dense MMAs (Table 39), so A is not compressed.
        start, size = k_offset * bits // 8, 96 * bits // 8
        width = SWIZZLE_BYTES[tile.swizzle]
        if tile.swizzle != "none" and start % width + size > width:
            self.error(op, f"{which} tile: the K = 96 block at byte {start} of each row "
                           f"crosses the {width}-byte swizzle row; that needs the leading-"
                           f"dimension absolute address mode (9.7.16.3.1.2), which is not "
                           f"supported yet")
            return False
        return True

    def check_k_block_in_swizzle_row(self, op, which, tile, kind, *, k: int, k_offset: int,
                                     compressed: bool) -> bool:
        """The bytes of one row that this MMA's K block reads must lie inside one swizzle
        row of a swizzled K-major tile: the descriptor's start address selects the block,
        and with a swizzle the leading-dimension byte offset is not used for K-major
        layouts (9.7.16.3.1, 9.7.16.3.3), so nothing steps to the next swizzle atom along
        K. A sparse MMA reads a dense 64-byte block of B per row (9.7.16.10.8), which a
        32-byte row cannot hold. `compressed`: A of a sparse MMA, stored as K/2."""
        if tile.swizzle == "none":
            return True  # core matrices along K are LBO apart: any K block is reachable
        bits = container_bits(tile.element, kind=kind)
        stored_k, stored_offset = (k // 2, k_offset // 2) if compressed else (k, k_offset)
        start, size = stored_offset * bits // 8, stored_k * bits // 8
        width = SWIZZLE_BYTES[tile.swizzle]
        if start % width + size <= width:
            return True
        stored = " (stored compressed, K/2)" if compressed else ""
        self.error(op, f"{which} tile: the K = {k} block{stored} at k_offset = {k_offset} "
                       f"reads bytes [{start % width}, {start % width + size}) of each "
                       f"row, but a K-major \"{tile.swizzle}\" row holds {width} bytes and "
                       f"the leading-dimension offset is unused with swizzling (9.7.16.3.1, "
                       f"9.7.16.3.3): use a swizzle of at least {size} bytes")
        return False

    def check_mma_sparsity(self, op, kind, operands, info, k96) -> None:
        mma = MmaOp(op)
        selector = mma.sparsity_selector
        if not mma.sparse:
            if mma.has(MmaOp.sparsity_selector):
                self.error(op, "sparsity_selector is only meaningful with sparse "
                               "(Table 42: \"if Sparsity is enabled\")")
            return
        if kind in ("f16", "tf32"):
            allowed = (0, 1)  # picks a column of the 2-column granule (tmem-facts 3)
        else:
            allowed = (0,)  # "must be 0" / "is assumed to be 0" (9.7.16.10.8.4.5/6)
        if selector not in allowed:
            self.error(op, f"sparsity_selector = {selector} is not allowed for kind::{kind} "
                           f"(allowed: {', '.join(map(str, allowed))}; 9.7.16.10.8.4)")
        meta = d.type_info(operands.metadata.type)
        m = operands.d_type.rows
        if len(meta.shape) != 2 or meta.rows != m:
            self.error(op, f"sparsity metadata buffer {meta.text()} must have the M = {m} "
                           f"rows of the MMA (9.7.16.10.8.4)")
        if meta.element not in METADATA_ELEMENTS:
            scaled = " (a sparse block-scaled MMA too: the scale factors keep their own " \
                     "type)" if operands.scale_a is not None else ""
            self.error(op, f"sparsity metadata buffer {meta.text()} must have element type "
                           f"i32, not {meta.element}: metadata is 2- and 4-bit indices "
                           f"packed in 32-bit TMEM cells (9.7.16.10.8.1-9.7.16.10.8.4; "
                           f"docs/tmem-operands.md){scaled}")

    def check_mma_block_scale(self, op, kind, operands, info, k96) -> None:
        if kind not in shapes.BLOCK_SCALED_KINDS:
            for attr in (MmaOp.scale_a_id, MmaOp.scale_b_id):
                if MmaOp(op).has(attr):
                    self.error(op, f"{attr.name} needs block scaling, which kind::{kind} does not "
                                   f"have (9.7.16.10.7)")
            return
        value = effective_scale_vec(op)
        if value not in SCALE_VEC_QUALIFIERS:
            self.error(op, f"scale_vec = \"{value}\" is not one of "
                           f"{', '.join(SCALE_VEC_QUALIFIERS)} (9.7.16.10.9.1)"
                           + did_you_mean(value, SCALE_VEC_QUALIFIERS))
            return
        sa = d.type_info(operands.scale_a.type)
        sb = d.type_info(operands.scale_b.type)
        scale = isa_type(sa.element)
        if sb.element != sa.element:
            self.error(op, f"scale_B buffer {sb.text()} has element type {sb.element} but "
                           f"scale_A {sa.text()} has {sa.element}: the instruction "
                           f"descriptor has one Scale Matrix Type for both (Tables 43 and 44, "
                           f"bit 23)")
            return
        try:
            # One scale type serves both (Tables 43 and 44, bit 23), checked above.
            shapes.check_scale_type(kind, scale)
            qualifier = SCALE_VEC_QUALIFIERS[value]
            shapes.check_scale_vectorsize(kind, qualifier, scale_type=scale, k96=k96)
            spellings = shapes.scale_vectorsize_aliases(kind, qualifier, k96=k96)
            targets.choose_scale_vectorsize(spellings, info.target)
        except IsaRuleError as exc:
            self.rule(op, exc)
            return
        if k96 and qualifier == "block16":
            self.error(op, ".block16 with K = 96 (6 scale factors per row) is not supported "
                           "yet: its scale-factor layout (9.7.16.10.7.2.5) is given only as "
                           "a figure")
        elif k96:
            self.error(op, ".block32 with K = 96 (3 scale factors per row) is not supported "
                           "yet: its scale-factor layout (9.7.16.10.7.2.4, 9.7.16.10.7.3.4) "
                           "is given only as figures")
        else:
            self.check_scale_factor_ids(op, info)

    def check_scale_factor_ids(self, op, info) -> None:
        """Without scale_a_id / scale_b_id, the IDs follow k_offset: K block j of the
        tiles uses scale factors j * count.. of each row (9.7.16.10.7.2); blocks past the
        four bytes of a cell cannot be selected by an ID."""
        mma = MmaOp(op)
        if mma.has(MmaOp.scale_a_id) and mma.has(MmaOp.scale_b_id):
            return  # both as written (their allowed values: check_instr_desc)
        try:
            scale_factor_ids(op, mma_form(op, info.cta_group))
        except IsaRuleError as exc:
            self.error(op, f"{exc.message}: give the K blocks their own scale buffers, or "
                           f"scale_a_id and scale_b_id ({exc.rule})")

    def check_mma_ws(self, op, kind, operands, info, k96) -> None:
        mma = MmaOp(op)
        ws = bool(mma.ws)
        ws_only = (MmaOp.collector_b, MmaOp.collector_b_op, MmaOp.zero_column_mask,
                   MmaOp.max_shift)
        if not ws:
            for attr in ws_only:
                if mma.has(attr):
                    self.error(op, f"{attr.name} belongs to tcgen05.mma.ws (9.7.16.10.9.3); "
                                   f"this MMA is not .ws")
            return
        try:
            buffer = mma.collector_b
            usage = mma.collector_b_op
            shapes.check_collector_usage(f"{buffer}::{usage}", ws=True)
            shapes.check_max_shift(mma.max_shift, kind=kind)
            if mma.has(MmaOp.zero_column_mask):
                mask = mma.zero_column_mask & 0xFFFFFFFFFFFFFFFF
                descriptors.zero_column_masks(mask, m=operands.d_type.rows,
                                              n=operands.d_type.cols)
        except IsaRuleError as exc:
            self.rule(op, exc)
        if mma.has(MmaOp.collector_a):
            self.error(op, "tcgen05.mma.ws keeps B in its collector buffers ::b0-::b3; "
                           "collector_a is for tcgen05.mma (9.7.16.10.9.3)")

    def check_mma_qualifiers(self, op, kind, operands, info, k96) -> None:
        mma = MmaOp(op)
        ws = bool(mma.ws)
        collector = None
        try:
            if mma.has(MmaOp.collector_a):
                collector = f"a::{mma.collector_a}"
                shapes.check_collector_usage(collector, ws=False)
            if mma.ashift:
                shapes.check_ashift(m=operands.d_type.rows, a_in_tmem=operands.a_tmem is not None,
                                    collector=collector, kind=kind, ws=ws)
            if mma.has(MmaOp.disable_output_lane):
                words = list(mma.disable_output_lane)
                shapes.check_disable_output_lane(info.cta_group, len(words), kind=kind, ws=ws)
            if mma.has(MmaOp.scale_input_d):
                shapes.check_scale_input_d(kind, mma.scale_input_d, ws=ws)
        except IsaRuleError as exc:  # (the dialect has already made it an array<i32>)
            self.rule(op, exc)

    def check_instr_desc(self, op, kind, operands, k96) -> None:
        """The remaining per-kind fields of Tables 42-44 (negate, saturate, scale-factor
        IDs), as the encoder the lowering uses sees them."""
        mma = MmaOp(op)
        dt, at, bt = operands.d_type, operands.a_type, operands.b_type
        if mma.negate_a and kind == "i8" or mma.negate_b and kind == "i8":
            self.error(op, "negate is not supported for kind::i8 (Table 49)")
            return
        scale = None
        if operands.scale_a is not None:
            scale = isa_type(d.type_info(operands.scale_a.type).element)
        try:
            descriptors.encode_instr_desc(
                kind=kind, a_type=isa_type(at.element), b_type=isa_type(bt.element),
                d_type=isa_type(dt.element), m=dt.rows, n=dt.cols,
                transpose_a=operands.a_smem is not None and operands.a_smem.major == "MN",
                transpose_b=bt.major == "MN", negate_a=bool(mma.negate_a),
                negate_b=bool(mma.negate_b), sparse=bool(mma.sparse),
                sparsity_selector=mma.sparsity_selector,
                saturate=bool(mma.saturate), max_shift=mma.max_shift,
                scale_type=scale, scale_a_id=_or_zero(mma.scale_a_id),
                scale_b_id=_or_zero(mma.scale_b_id), k=96 if k96 else None)
        except IsaRuleError as exc:
            self.rule(op, exc)

    # ------------------------------------------------------------------ data movement

    def check_cp(self, op, info) -> None:
        if not self.check_feature(op, "cp", info):
            return
        cp = CpOp(op)
        shape = cp.shape
        if shape not in CP_SHAPES:
            self.error(op, f"tcgen05.cp shape .{shape} is not one of "
                           f"{', '.join(CP_SHAPES)} (9.7.16.9.2)" + did_you_mean(shape, CP_SHAPES))
            return
        multicast = cp.multicast
        allowed = CP_MULTICAST.get(shape, ())
        if multicast not in (allowed or (None,)):
            wanted = " or ".join("." + x for x in allowed) if allowed else "no .multicast"
            self.error(op, f".{shape} requires {wanted}, got "
                           f"{'.' + multicast if multicast else 'none'} (9.7.16.9.2)")
        source = d.type_info(cp.source.type)
        if isinstance(source, d.SmemType) and source.swizzle == "128B_base32B":
            self.error(op, "tcgen05.cp from a tile with 128-byte swizzling of 32-byte "
                           "atomicity is not supported yet (its address pattern is given only "
                           "as a figure, 9.7.16.10.6; Table 53)")
        decompress = cp.decompress
        if decompress is not None and decompress not in CP_DECOMPRESS:
            self.error(op, f"decompress = \"{decompress}\" is not one of "
                           f"{', '.join(CP_DECOMPRESS)} (9.7.16.9.1)"
                           + did_you_mean(decompress, CP_DECOMPRESS))
        column = cp.column
        if column < 0:
            self.error(op, f"column = {column} must not be negative")
        self.check_cp_column_in_buffer(op, column)
        tile = d.type_info(cp.source.type)
        lanes, bits = CP_SHAPES[shape]
        if tile.major != "K":
            self.error(op, "the source tile of tcgen05.cp must be K-major: its rows are the "
                           "TMEM lanes the copy writes (9.7.16.9.2)")
            return
        try:
            row_bits = tile.k * container_bits(tile.element)
        except KeyError:
            self.error(op, f"source tile element type {tile.element} has no ISA width")
            return
        if tile.rows != lanes or row_bits != bits:
            self.error(op, f"source tile {list(tile.shape)} of {isa_type(tile.element)} holds "
                           f"{tile.rows} rows of {row_bits} bits; .{shape} copies {lanes} rows "
                           f"of {bits} bits (9.7.16.2.3)")

    def check_cp_column_in_buffer(self, op, column: int) -> None:
        """The copy's first column (its taddr, 9.7.16.9.2) must lie inside the destination
        buffer. Whether all the columns the copy writes fit is checked by
        tcgen05-select-layouts, which knows the buffer's footprint (a folded layout holds
        fewer columns than it declares; a scale-factor or metadata buffer grows to the
        copies that fill it)."""
        dst = d.type_info(CpOp(op).dest.type)
        try:
            columns = -(-dst.shape[-1] * container_bits(dst.element) // 32)
        except KeyError:
            return  # the buffer's element type is reported where the buffer is checked
        if column >= columns:
            self.error(op, f"tcgen05.cp column = {column} starts outside its destination "
                           f"buffer, which has {columns} columns (9.7.16.9.2: the taddr "
                           "operand is the first column written)")

    def check_shift(self, op, info) -> None:
        self.check_feature(op, "shift", info)

    # ------------------------------------------------------------------ ld / st

    def check_fragment_access(self, op, info, buffer_index: int, frag) -> None:
        """Shared by ld, st and ld.red: fragment vs buffer, and Tables 47/48 when the
        message shape is given."""
        src = d.type_info(op.operands[buffer_index].type)
        if frag.shape[0] != src.rows:
            self.error(op, f"fragment has {frag.shape[0]} rows but the buffer has "
                           f"{src.rows}: a warpgroup load reads whole columns")
        if frag.shape[1] > src.cols:
            self.error(op, f"fragment of {frag.shape[1]} columns is wider than the buffer "
                           f"({src.cols} columns)")
        if frag.element != src.element:
            self.error(op, f"fragment element type {frag.element} differs from the "
                           f"buffer's {src.element}")
        access = wrap(op)
        if access.shape is None:
            return
        shape, num = access.shape, access.num
        table = "Table 48" if StOp.matches(op) else "Table 47"
        if num is None:
            # A shape-only request: tcgen05-select-layouts chooses .num (and
            # immHalfSplitoff) for it, so only the shape's name can be checked here.
            try:
                fragments.valid_nums(shape)
            except IsaRuleError as exc:
                self.rule(op, exc)
            return
        try:
            fragments.registers_per_thread(shape, num)
        except IsaRuleError as exc:
            self.error(op, f"{exc.message} ({table})")
            return
        if (shape == "16x32bx2") != access.has(type(access).half_split):
            self.error(op, "immHalfSplitoff (half_split) is given exactly with .16x32bx2 "
                           "(9.7.16.8.3)")

    def check_ld(self, op, info) -> None:
        if self.check_feature(op, "ld", info):
            self.check_fragment_access(op, info, 0, d.type_info(op.results[0].type))

    def check_st(self, op, info) -> None:
        if self.check_feature(op, "st", info):
            self.check_fragment_access(op, info, 0, d.type_info(op.operands[2].type))

    def check_ld_red(self, op, info) -> None:
        if not self.check_feature(op, "ld.red", info):
            return
        frag = d.type_info(op.results[0].type)
        self.check_fragment_access(op, info, 0, frag)
        red_op = LdRedOp(op)
        red = red_op.op
        if red not in ("min", "max"):
            self.error(op, f"op = \"{red}\" is not \"min\" or \"max\" (.redOp, 9.7.16.8.3)"
                           + did_you_mean(red, ("min", "max")))
        elt = {"i32": "s32", "si32": "s32", "ui32": "u32", "f32": "f32"}.get(frag.element)
        if elt not in LD_RED_TYPES:
            self.error(op, f"tcgen05.ld.red reduces f32, u32 or s32, not "
                           f"{isa_type(frag.element)} (9.7.16.8.3)")
        elif elt != "f32" and (red_op.abs or red_op.nan):
            self.error(op, f".abs and .NaN are only for f32 reductions, not {elt} "
                           f"(9.7.16.8.3)")
        if red_op.shape is not None:
            shape, num = red_op.shape, red_op.num
            if shape not in ("32x32b", "16x32bx2"):
                self.error(op, f"tcgen05.ld.red takes .32x32b or .16x32bx2, not .{shape} "
                               f"(9.7.16.8.3)")
            elif num is not None and num < 2:
                self.error(op, f"with .red, .num must be at least .x2, got .x{num} "
                               f"(9.7.16.8.3)")

    def check_frag_map(self, op, info) -> None:
        for where, message in frag_map_problems(op, self.row_memo):
            self.error(where, message)

    def check_frag_reduce(self, op, info) -> None:
        for message in frag_reduce_problems(op, self.row_memo):
            self.error(op, message)

    def check_frag_broadcast(self, op, info) -> None:
        for message in frag_broadcast_problems(op, self.row_memo):
            self.error(op, message)

    def check_store_fragment(self, op, info) -> None:
        self.check_global_matrix(op)

    def check_load_fragment(self, op, info) -> None:
        self.check_global_matrix(op)

    # ------------------------------------------------------------------ sync, allocation

    def check_alloc_mbarrier(self, op, info) -> None:
        count = AllocMbarrierOp(op).count
        if not 1 <= count < MBARRIER_MAX_COUNT:
            self.error(op, mbarrier_count_error(count))
        stages = AllocMbarrierOp(op).stages
        if stages is not None and not 1 <= stages <= MBARRIER_RING_MAX_STAGES:
            self.error(op, f"alloc_mbarrier stages = {stages} is outside [1, "
                           f"{MBARRIER_RING_MAX_STAGES}]: a ring has at least one stage, and "
                           f"every stage is an 8-byte object initialized at kernel entry "
                           f"(PTX ISA 9.7.13.15.1), which this compiler bounds at "
                           f"{MBARRIER_RING_MAX_STAGES} per ring")
        if stages is None:
            return
        for use in op.results[0].uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if not MbarrierStageOp.matches(user) or use.operand_number != 0:
                self.error(user, f"the mbarrier ring of line {_line(op)} ({stages} stages) "
                                 f"is used as a single mbarrier by {user.name}: pick a stage "
                                 f"with tcgen05.mbarrier_stage")

    def check_mbarrier_stage(self, op, info) -> None:
        """A stage of an mbarrier ring: operand 0 is a ring (an alloc_mbarrier with
        stages), a constant index lies in 0 .. stages - 1."""
        ring = defining_op(op.operands[0])
        stages = AllocMbarrierOp(ring).stages \
            if ring is not None and AllocMbarrierOp.matches(ring) else None
        if stages is None:
            self.error(op, "tcgen05.mbarrier_stage takes an mbarrier ring (a "
                           "tcgen05.alloc_mbarrier with stages = S, defined in the kernel), "
                           "and its operand 0 is not one")
            return
        stage = constant_int(op.operands[1])
        if stage is not None and not 0 <= stage < stages:
            self.error(op, f"stage {stage} of an mbarrier ring of {stages} stages (line "
                           f"{_line(ring)}), which has stages 0 to {stages - 1}")

    def check_mbarrier_wait(self, op, info) -> None:
        """A wait on a stage of a ring names its phase: the run-time phase counter of a
        phase-less wait counts the commits to one mbarrier value (lowering.sync), and a
        computed stage is a different mbarrier at each execution."""
        barrier = defining_op(op.operands[0])
        if len(op.operands) < 2 and barrier is not None and \
                MbarrierStageOp.matches(barrier):
            self.error(op, "an mbarrier_wait on a stage of an mbarrier ring needs its phase "
                           "operand (the parity of the stage's round): the phase of a "
                           "phase-less wait is counted per mbarrier value, not per stage")

    def check_wait(self, op, info) -> None:
        kind = WaitOp(op).kind
        if kind not in ("ld", "st"):
            self.error(op, f"wait kind \"{kind}\" is not \"ld\" or \"st\" (9.7.16.8.5)"
                           + did_you_mean(kind, ("ld", "st")))

    def check_fence(self, op, info) -> None:
        kind = FenceOp(op).kind
        if kind not in ("before_thread_sync", "after_thread_sync"):
            self.error(op, f"fence kind \"{kind}\" is not \"before_thread_sync\" or "
                           f"\"after_thread_sync\" (9.7.16.11.1)"
                           + did_you_mean(kind, ("before_thread_sync", "after_thread_sync")))

    def check_commit(self, op, info) -> None:
        commit = CommitOp(op)
        self.check_commit_agreement(op, info)
        if not commit.has(CommitOp.multicast_mask):
            return
        mask = commit.multicast_mask
        # The kernel's cluster (a pair by default in a cta_group::2 kernel, else a CTA).
        cluster = info.cluster_ctas
        if not 0 < mask < (1 << 16):
            self.error(op, f"multicast_mask = {mask:#x} is not a non-zero 16-bit ctaMask "
                           f"(9.7.16.12.1)")
        elif mask >> cluster:
            self.error(op, f"multicast_mask = {mask:#x} names CTAs beyond this kernel's "
                           f"cluster of {cluster} (bit i is %cluster_ctarank i, 9.7.16.12.1)")

    @staticmethod
    def _signalled(commit) -> str:
        mask = CommitOp(commit).multicast_mask
        return "the issuing CTA's only (no multicast_mask)" if mask is None else \
            f"multicast_mask = {mask:#b}"

    def check_commit_agreement(self, op, info) -> None:
        """A wait runs in the CTAs whose mbarrier the commits to it signal (lowering.sync),
        so in a pair kernel every commit to one mbarrier must signal the same CTAs."""
        if info.cta_group != 2:
            return
        for use in op.operands[0].uses:
            other = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if (CommitOp(op).multicast_mask or 1) != 1 and (
                    d.op_name(other) in ("tma_load", "mbarrier_expect_tx")):
                # A pair's TMA loads and expect_tx signal the even CTA's mbarrier only,
                # so waits on it run there (docs/cta-pairs.md).
                self.error(op, f"this tcgen05.commit signals {self._signalled(op)}, but "
                               f"the tcgen05.{d.op_name(other)} at line {_line(other)} "
                               f"signals the same mbarrier in the even CTA only (a CTA "
                               f"pair's TMA loads complete there, docs/cta-pairs.md): the "
                               f"CTAs waiting on one mbarrier must be those every signal "
                               f"reaches (9.7.16.12.1)")
                return
            if not CommitOp.matches(other) or other == op:
                continue
            if (CommitOp(other).multicast_mask or 1) != (CommitOp(op).multicast_mask or 1):
                self.error(op, f"this tcgen05.commit signals {self._signalled(op)}, but the "
                               f"commit at line {_line(other)} to the same mbarrier signals "
                               f"{self._signalled(other)}: the CTAs waiting on one mbarrier "
                               f"must be those every commit to it signals (9.7.16.12.1)")
                return

    def check_alloc(self, op, info) -> None:
        self.check_cta_group(op, info)
        if DeallocOp.matches(op):
            owner = defining_op(op.operands[0])
            if owner is None or not AllocOp.matches(owner):
                self.error(op, "tcgen05.dealloc frees the address a tcgen05.alloc returned "
                               "(9.7.16.7.1); its operand is not a tcgen05.alloc result")
        columns = wrap(op).columns
        if not (ALLOC_MIN <= columns <= ALLOC_MAX and columns & (columns - 1) == 0):
            self.error(op, f"nCols = {columns} is not a power of two in [{ALLOC_MIN}, "
                           f"{ALLOC_MAX}] (9.7.16.7.1)")


#: The ops that take or make a multi-stage shared-memory tile.
_RING_OPS = ("smem_buffer", "smem_stage")

#: Ops whose TMEM operands must be single [rows, columns] buffers.
_INSTRUCTIONS = tuple(cls.NAME for cls in (MmaOp, CpOp, ShiftOp, LdOp, StOp, LdRedOp))

_CHECKS = MappingProxyType({cls.NAME: check for cls, check in (
    (TmemBufferOp, Tcgen05Verify.check_tmem_buffer),
    (SmemBufferOp, Tcgen05Verify.check_smem_buffer),
    (TmemStageOp, Tcgen05Verify.check_tmem_stage),
    (SmemStageOp, Tcgen05Verify.check_smem_stage),
    (SmemFillOp, Tcgen05Verify.check_smem_fill),
    (MmaOp, Tcgen05Verify.check_mma),
    (CpOp, Tcgen05Verify.check_cp),
    (ShiftOp, Tcgen05Verify.check_shift),
    (LdOp, Tcgen05Verify.check_ld),
    (StOp, Tcgen05Verify.check_st),
    (LdRedOp, Tcgen05Verify.check_ld_red),
    (StoreFragmentOp, Tcgen05Verify.check_store_fragment),
    (LoadFragmentOp, Tcgen05Verify.check_load_fragment),
    (FragMapOp, Tcgen05Verify.check_frag_map),
    (FragReduceOp, Tcgen05Verify.check_frag_reduce),
    (FragBroadcastOp, Tcgen05Verify.check_frag_broadcast),
    (WaitOp, Tcgen05Verify.check_wait),
    (AllocMbarrierOp, Tcgen05Verify.check_alloc_mbarrier),
    (MbarrierStageOp, Tcgen05Verify.check_mbarrier_stage),
    (MbarrierWaitOp, Tcgen05Verify.check_mbarrier_wait),
    (FenceOp, Tcgen05Verify.check_fence),
    (CommitOp, Tcgen05Verify.check_commit),
    (MbarrierArriveOp, Tcgen05Verify.check_mbarrier_arrive),
    (AllocOp, Tcgen05Verify.check_alloc),
    (DeallocOp, Tcgen05Verify.check_alloc),
    (RelinquishAllocPermitOp, Tcgen05Verify.check_cta_group),
)})
