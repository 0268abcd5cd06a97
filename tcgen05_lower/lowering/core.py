"""The per-kernel lowering state and driver.

Issue granularity (Table 46) becomes predication: single-thread ops (mma, commit, cp,
shift) run on thread 0 of the CTA; allocation ops on warp 0 (warp-uniform, as
``.sync.aligned`` requires); loads, stores and waits on every warp of the warpgroup, each
at its own lane quarter. Inside a warp role (``tcgen05.role``, lowering.partitions) the
role's first thread issues the single-thread ops and the role's threads share the fills.

Values of tcgen05 types map to what they become: TMEM buffers -> i32 TMEM address,
tiles -> shared pointer, fragments -> ``ldst.LoweredFragment``, mbarriers -> shared pointer.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Callable

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import ir, llvm, nvvm
from tcgen05_lower.dialect.ops import AllocMbarrierOp, MbarrierWaitOp
from tcgen05_lower.emit import Sym, i32, i64
from tcgen05_lower.kernel_ir import (FORWARDING_OPS, PARTITIONS_OP, constant_int,
                                     enclosing_roles, partition_roles, role_info)
from tcgen05_lower.lowering.grid import lower_grid_queries
from tcgen05_lower.lowering.registers import LoweredFragment
from tcgen05_lower.lowering.threads import RoleThreads, role_threads

def lowers(*names):
    """Marks the decorated function as the lowering of the given tcgen05 ops (their
    classes of ``dialect.ops``, or names); the package collects the marked functions of its
    family modules into ``HANDLERS``."""

    def register(function):
        function.lowers_ops = tuple(getattr(name, "NAME", name) for name in names)
        return function

    return register


def handlers(*families) -> "MappingProxyType[str, Callable]":
    """tcgen05 op name -> handler(lowering, op), from the functions of `families` (modules)
    marked with :func:`lowers`; a later family's handler of an op wins."""
    found = {}
    for family in families:
        for function in vars(family).values():
            for name in getattr(function, "lowers_ops", ()):
                found[name] = function
    return MappingProxyType(found)


class KernelLowering:
    """Lowers one kernel (see the module docstring)."""

    def __init__(self, pass_, kernel, module):
        self.pass_ = pass_
        self.kernel = kernel
        self.module = module
        self.info = d.kernel_info(kernel)
        self.values: dict = {}
        self.lowered: list = []
        self.smem_bytes = 0
        #: (tile op, first byte, bytes) of the shared-memory tiles placed so far.
        self.smem_tiles: list = []
        #: The role whose ops are being lowered (None: the whole CTA), see ``enter``.
        self.role = None
        self.threads = self.info.threads

    def fail(self, op, message: str):
        self.pass_.fail(op, message)

    # ------------------------------------------------------------------ driver

    def run(self, handlers: "MappingProxyType[str, Callable]") -> None:
        """Lowers the kernel with `handlers` (op name -> handler; the package's
        ``HANDLERS``, collected from the family modules, which import this one)."""

        entry = self.kernel.regions[0].blocks[0]
        lower_grid_queries(list(d.walk_ops(self.kernel)))
        ops = list(d.walk_ops(self.kernel))
        self.check_values_stay_in_tcgen05_ops(ops)
        forwarding, casts = self.retype_chosen_buffers(ops)
        barriers = [op for op in ops if AllocMbarrierOp.matches(op)]
        from tcgen05_lower.lowering.loops import issuing_loops, narrow_index_loops
        issuing = issuing_loops(ops)    # before the lowering erases the ops (lowering.loops)
        # mbarriers that some wait names without a phase: their phase is counted at run
        # time (see lowering.sync).
        tracked = {op.operands[0] for op in ops
                   if MbarrierWaitOp.matches(op) and len(op.operands) == 1}
        self.phase_counters: dict = {}
        slots_symbol = f"__tcgen05_slots_{self.info.name}"
        with ir.InsertionPoint(self.module.regions[0].blocks[0].operations[0]), \
                self.kernel.location:
            # Slot 0: the TMEM address written by tcgen05.alloc; slots 1..: mbarriers.
            slots = 1 + sum(mbarrier_slots(op) for op in barriers)
            llvm.GlobalOp(ir.Type.parse(f"!llvm.array<{slots} x i64>"),
                          slots_symbol, ir.Attribute.parse("#llvm.linkage<internal>"),
                          addr_space=3, alignment=8)
        role_of = enclosing_roles(self.kernel) if any(
            op.name == PARTITIONS_OP for op in ops) else {}
        with ir.InsertionPoint(entry.operations[0]), self.kernel.location:
            self.setup_entry(slots_symbol, barriers, tracked)
            self.setup_roles(ops)
        whole_cta = self.whole_cta()
        #: (scf.for, index, argument cast, result cast) of each row vector a loop carries.
        self.carried: list = []
        for op in ops:
            name = d.op_name(op)
            if name is None and op.name == "scf.for":
                self.carry_row_vectors(op)
            if name is None or name == AllocMbarrierOp.NAME:
                continue
            handler = handlers.get(name)
            if handler is None:
                self.fail(op, f"tcgen05.{name} cannot be lowered yet")
            owner = role_of.get(op) if role_of else None
            self.enter(self.role_threads[owner] if owner is not None else whole_cta)
            self.current_op = op
            with ir.InsertionPoint(op), op.location:
                try:
                    handler(self, op)
                except emit.ConstantOutOfRange as exc:
                    self.fail(op, out_of_range_message(op, exc))
            self.lowered.append(op)
        self.forward_lowered_buffers(forwarding, casts)
        self.finish_carried_row_vectors()
        # Users before definitions: every use of a tcgen05 value is now a tcgen05 op.
        for op in reversed(barriers + self.lowered):
            op.erase()
        self.end_blocks_after_regions(entry)
        narrow_index_loops(self.kernel, issuing)    # i32 counters (lowering.loops)
        self.kernel.attributes["tcgen05.dynamic_smem_bytes"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64), self.smem_bytes)

    def setup_roles(self, ops) -> None:
        """The threads of every role of the kernel's partitions (lowering.partitions),
        built at the entry so that they dominate every role."""
        self.role_threads: dict = {}
        for op in ops:
            if op.name == PARTITIONS_OP:
                for index, role_op in enumerate(partition_roles(op)):
                    self.role_threads[role_op] = role_threads(self,
                                                              role_info(role_op, index))

    def whole_cta(self):
        """The RoleThreads of the whole CTA: ops outside roles."""
        return RoleThreads(None, self.is_leader, self.tid, self.info.threads)

    def enter(self, threads) -> None:
        """Lowers the next ops as run by `threads` (a RoleThreads): the handlers read
        ``is_leader``, ``tid``, ``threads`` and ``role``."""
        self.role = threads.role
        self.role_member = threads.member
        self.is_leader = threads.leader
        self.tid = threads.tid
        self.threads = threads.threads

    def check_values_stay_in_tcgen05_ops(self, ops) -> None:
        """The lowering replaces each tcgen05 value (a buffer's TMEM address, an mbarrier's
        shared-memory address) where tcgen05 ops use it, then erases its definition. A TMEM
        buffer may also flow through selects, branches and loops (``FORWARDING_OPS``):
        those carry its address instead (see retype_chosen_buffers). Any other tcgen05
        value that flows through another op (a tile or mbarrier through a branch, any
        tcgen05 value through a call) would outlive its definition, which MLIR aborts on:
        such kernels are refused here, at that op, before anything is lowered."""
        for op in ops:
            name = d.op_name(op)
            if name is None or name == "frag_vote":   # an i1: lowering/votes.py replaces it
                continue
            for result in op.results:
                for use in result.uses:
                    owner = use.owner
                    owner = owner.operation if hasattr(owner, "operation") else owner
                    if d.op_name(owner) is not None:
                        continue
                    if owner.name in FORWARDING_OPS and d.is_tmem(result):
                        continue
                    if owner.name in ("scf.for", "scf.yield") and \
                            isinstance(d.type_info(result.type), d.FragType):
                        continue  # a row vector a loop carries (carry_row_vectors)
                    self.fail(owner, f"{owner.name} takes the {result.type} made by "
                                     f"tcgen05.{name}: only TMEM buffers may flow through "
                                     f"selects, branches and loops, and no tcgen05 value "
                                     f"through other ops (calls, unknown ops)")

    def retype_chosen_buffers(self, ops) -> tuple[list, list]:
        """A TMEM buffer chosen at run time (a select, an scf.if / scf.index_switch /
        scf.for / scf.while result, an iteration or block argument) becomes its TMEM
        address, an i32 (9.7.16.1.1). While the tcgen05 ops are lowered (their handlers
        read the buffer types), each such value keeps its type and its users get the
        address through an ``unrealized_conversion_cast`` placed right after the value is
        defined; forward_lowered_buffers then retypes the value and drops the cast.
        Returns (the ops that forward TMEM values, (value, cast) pairs)."""
        forwarding, casts = [], []

        def address_of(value, where) -> None:
            with where, self.kernel.location:
                cast = ir.Operation.create("builtin.unrealized_conversion_cast",
                                           results=[i32()], operands=[value])
            self.values[value] = cast.results[0]
            casts.append((value, cast))

        def arguments(block) -> None:
            for argument in block.arguments:
                if d.is_tmem(argument):
                    address_of(argument, ir.InsertionPoint.at_block_begin(block))

        for op in ops:
            if op.name not in FORWARDING_OPS:
                continue
            passes_tmem = any(d.is_tmem(value) for value in op.operands)
            for result in op.results:
                if d.is_tmem(result):
                    address_of(result, ir.InsertionPoint.after(op))
                    passes_tmem = True
            for region in op.regions:
                for block in region.blocks:
                    arguments(block)
            if passes_tmem:
                forwarding.append(op)
        for block in list(self.kernel.regions[0].blocks)[1:]:
            arguments(block)  # cf blocks of the kernel
        return forwarding, casts

    def carry_row_vectors(self, loop) -> None:
        """An scf.for that carries row vectors (tcgen05-verify admits per-row values only
        as fragment iteration arguments): each such argument and result is its one
        register, an i32 (the thread's row's value), held as the initial value is. While
        the tcgen05 ops are lowered their users read it through an
        ``unrealized_conversion_cast``; finish_carried_row_vectors retypes the argument
        and result, and passes the registers of the initial and yielded values."""
        body = loop.regions[0].blocks[0]
        for i, result in enumerate(loop.results):
            if not isinstance(d.type_info(result.type), d.FragType):
                continue
            initial = self.values[loop.operands[3 + i]]
            if not _held_per_row(initial):
                self.fail(loop, f"scf.for: the initial value of iteration argument #{i} is "
                                f"held as {initial.access.describe()}, not one register per "
                                f"row in the thread of the row")
            argument = body.arguments[1 + i]
            with ir.InsertionPoint.at_block_begin(body), self.kernel.location:
                argument_cast = ir.Operation.create("builtin.unrealized_conversion_cast",
                                                    results=[i32()], operands=[argument])
            with ir.InsertionPoint.after(loop), self.kernel.location:
                result_cast = ir.Operation.create("builtin.unrealized_conversion_cast",
                                                  results=[i32()], operands=[result])
            for value, cast in ((argument, argument_cast), (result, result_cast)):
                self.values[value] = LoweredFragment(
                    [cast.results[0]], initial.access, initial.element, initial.column,
                    initial.active, reduced=True)
            self.carried.append((loop, i, argument_cast, result_cast))

    def finish_carried_row_vectors(self) -> None:
        """The carried row vectors become i32 iteration arguments and results, started
        from the initial value's register and continued with the yielded value's; the
        yielded value must be held as the initial one is (the same row in each thread)."""
        from tcgen05_lower.kernel_ir import terminator

        for loop, i, argument_cast, result_cast in self.carried:
            body = loop.regions[0].blocks[0]
            yield_op = terminator(body)
            initial = self.values[loop.operands[3 + i]]
            yielded = self.values[yield_op.operands[i]]
            if not _held_per_row(yielded) or \
                    _row_key(yielded.access) != _row_key(initial.access):
                self.fail(yield_op, f"scf.yield: iteration argument #{i} starts held as "
                                    f"{initial.access.describe()} (one register per row) "
                                    f"but the value yielded for it is held as "
                                    f"{yielded.access.describe()}"
                                    f"{'' if yielded.reduced else ', one register per element'}:"
                                    f" both must hold the same row in each thread")
            loop.operands[3 + i] = initial.registers[0]
            yield_op.operands[i] = yielded.registers[0]
            for value, cast in ((argument_cast.operands[0], argument_cast),
                                (result_cast.operands[0], result_cast)):
                value.set_type(i32())
                cast.results[0].replace_all_uses_with(value)
                cast.erase()

    def forward_lowered_buffers(self, forwarding, casts) -> None:
        """The chosen values become i32 addresses and replace their casts; then every TMEM
        operand of an op that forwards it becomes the buffer's address."""
        for value, cast in casts:
            value.set_type(i32())
            cast.results[0].replace_all_uses_with(value)
            cast.erase()
        for op in forwarding:
            for i, value in enumerate(op.operands):
                if d.is_tmem(value):
                    op.operands[i] = self.values[value]

    def end_blocks_after_regions(self, entry) -> None:
        """Ends the kernel's block right after each region op (an smem_fill's copy loop,
        the kernel's own loops and branches), the ops after it moving to a block of their
        own. convert-scf-to-cf splits a block at every scf op it lowers, moving the rest
        of the block: with the blocks already cut there, that is the branch alone, not
        the rest of the kernel (which made it quadratic in the number of loops). Cut from
        the last one back, each op moves once."""
        ops = [op.operation for op in entry.operations]
        end, branch = len(ops), []  # the block holds ops[:end], then `branch`
        for i in reversed(range(len(ops) - 1)):
            if not len(ops[i].regions):
                continue
            block = entry.create_after()
            for op in ops[i + 1:end] + branch:
                block.append(op)
            with ir.InsertionPoint(entry), self.kernel.location:
                branch = [ir.Operation.create("cf.br", successors=[block])]
            end = i + 1

    def setup_entry(self, slots_symbol: str, barriers, tracked: set) -> None:
        tid = nvvm.ThreadIdXOp(i32()).result
        self.tid = Sym(tid)
        self.warp = self.tid >> 5
        self.lane = self.tid & 31
        zero = emit.constant(0, i32())
        self.is_leader = emit.cmp_eq(tid, zero)
        self.is_warp0 = emit.cmp_eq(self.warp.value, zero)
        self.warp_in_group = self.warp & 3
        slots = emit.address_of(slots_symbol, 3)
        self.tmem_slot = slots
        slot = 1
        for op in barriers:
            self.values[op.results[0]] = emit.gep_bytes(slots, emit.constant(8 * slot, i64()))
            slot += mbarrier_slots(op)
        if barriers:
            # One thread initializes every mbarrier (every stage of a ring: stage i is the
            # 8-byte object at 8 i bytes after stage 0, lowering.sync), then makes the
            # initialization visible to the async proxy and the other threads before
            # anyone uses them.
            for op in barriers:
                count = emit.constant(AllocMbarrierOp(op).count, i32())
                base = self.values[op.results[0]]
                for stage in range(mbarrier_slots(op)):
                    address = base if stage == 0 else \
                        emit.gep_bytes(base, emit.constant(8 * stage, i64()))
                    emit.ptx(ptx.mbarrier_init("$0", "$1"), [address, count],
                             predicate=self.is_leader)
            emit.ptx(ptx.fence_mbarrier_init(), predicate=self.is_leader)
            # In a cluster of single CTAs the others' multicast loads and commits signal
            # this CTA's mbarriers: a cluster barrier orders the inits before them (a
            # pair's first cluster barrier is the TMEM allocation's, lowering/alloc.py).
            emit.ptx(ptx.cluster_barrier() if self.info.cta_group == 1 and
                     self.info.cluster_ctas > 1 else ptx.barrier_sync())
        for op in barriers:
            if op.results[0] in tracked:
                self.phase_counters[op.results[0]] = emit.counter()


#: A constant operand at least this large in magnitude is named by out_of_range_message:
#: no tile, row or K offset of a real matrix comes near it.
HUGE_OPERAND = 1 << 32


def out_of_range_message(op, exc: "emit.ConstantOutOfRange") -> str:
    """The diagnostic for address arithmetic of `op` that folded to a constant no 64-bit
    integer holds (emit.ConstantOutOfRange): the offset is no valid address, and LLVM's
    wrapping arithmetic would make it another address silently. Names the op's constant
    operands that are that large, which is where such a value comes from."""
    huge = [f"operand #{i} = {value}" for i, value in
            enumerate(constant_int(v) for v in op.operands)
            if value is not None and abs(value) >= HUGE_OPERAND]
    return (f"{op.name}: its address arithmetic, folded at compile time, gives {exc.value}, "
            f"outside the 64-bit range of an address"
            + (f" ({', '.join(huge)})" if huge else "")
            + ": an offset this large addresses no valid memory")


def mbarrier_slots(op) -> int:
    """The 8-byte slots an alloc_mbarrier takes: one, or one per stage of a ring."""
    stages = AllocMbarrierOp(op).stages
    return 1 if stages is None else stages


def _held_per_row(fragment) -> bool:
    """Whether a lowered fragment is a row vector held one register per row, in the
    thread of the row (one slot of an access whose messages hold one row per thread,
    isa.row_slots: .32x32b, or .16x32bx2 of a half-datapath layout)."""
    from tcgen05_lower.isa import row_slots
    return fragment.reduced and len(fragment.registers) == 1 and \
        row_slots.why_not(fragment.access) is None


def _row_key(access) -> tuple:
    """What decides the row each thread holds (isa.row_slots)."""
    from tcgen05_lower.isa import row_slots
    return row_slots.slot_rows(access)


class Loop:
    """An empty ``scf.for`` being built (the caller fills the body and its scf.yield)."""

    def __init__(self, lower, upper, step):
        self.op = ir.Operation.create("scf.for", results=[], operands=[lower, upper, step],
                                      regions=1)
        self.body = self.op.regions[0].blocks.append(emit.index())
        self.induction_variable = self.body.arguments[0]
