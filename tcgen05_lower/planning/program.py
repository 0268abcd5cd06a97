"""A kernel as a flat control-flow graph of ops, with the TMEM accesses of each op.

:func:`build_program` reads a kernel (a ``func.func`` with the ``tcgen05.kernel``
attribute) once and returns a :class:`Program`: one :class:`Node` per op in program order
(see the package docstring), each with the nodes control may reach next and the TMEM
buffers it reads or writes. Everything after this module is plain Python.

Control flow
------------
Node 0 is the kernel (the ``func.func``) and flows to its first op. Straight-line code
flows to the next op of the block. ``scf.for`` flows into its body, and past it unless its
bounds and step are constants that make it run at least once; the body's ``scf.yield``
flows back to the body (the next iteration) and past the loop. ``scf.if`` flows into each
branch (or past the op when the else region is empty), and each branch's ``scf.yield``
flows past the op. ``scf.while``
flows into its before region, whose ``scf.condition`` flows into the after region and past
the loop; the after region's ``scf.yield`` flows back to the before region. ``cf``
branches flow to their successor blocks. ``func.return`` ends the kernel. Any other op
with regions is treated as possibly running each of its regions any number of times in
any order (conservative).

Which buffers a value names
---------------------------
A TMEM value names one or more *root* buffers (``tcgen05.tmem_buffer`` results): itself
for a root; the whole multi-buffered root for a ``tcgen05.tmem_stage`` view (the stage
index is dynamic); both operands for ``arith.select``; every incoming value for block
arguments, ``scf.for`` iteration arguments and results, ``scf.if`` / ``scf.while``
results. A value produced by any other op is assumed to name every root. An access is
*certain* when its value names exactly one root, and not through a stage view: only
certain accesses can prove that two ops touch the same cells (see ``liveness``). A
``tcgen05.tmem_buffer`` with ``alias`` (``planning.aliases``) is no root: it names its
parent's root, as a view.

Accesses (PTX ISA 9.7.16.6.1 lists which instructions are asynchronous)
------------------------------------------------------------------------
``tcgen05.mma`` writes D (and reads it unless enable-input-d is the constant false), and
reads A in TMEM, scale_a, scale_b and the sparse metadata. ``cp`` writes its destination,
``shift`` reads and writes its buffer, ``ld`` / ``ld_red`` read, ``st`` writes. All of
these are asynchronous. A ``tcgen05.tmem_buffer`` *defines* its root: a fresh buffer
whose contents are undefined. Any other op that takes a TMEM value and is not one of the
value-forwarding ops above is taken to read and write it synchronously.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import int_value, ir
from tcgen05_lower.dialect.ops import (CpOp, LdOp, LdRedOp, MmaOp, ShiftOp, StOp, TmemBufferOp,
                                       WaitOp)
from tcgen05_lower.kernel_ir import mma_operands
from tcgen05_lower.planning.aliases import parents as aliases_of

#: Completion class of each asynchronous tcgen05 op: "M" is observed through
#: commit -> mbarrier (9.7.16.6.2.1.1), "L" through wait::ld and "S" through wait::st
#: (9.7.16.6.2.1.2).
ASYNC_CLASS = MappingProxyType({MmaOp.NAME: "M", CpOp.NAME: "M", ShiftOp.NAME: "M",
                                LdOp.NAME: "L", LdRedOp.NAME: "L", StOp.NAME: "S"})
ALL_CLASSES = frozenset("MLS")

#: Ops that only pass TMEM values on (their TMEM operands are not accesses).
_FORWARDING = frozenset({"arith.select", "scf.yield", "scf.condition", "scf.for", "scf.while",
                         "scf.if", "cf.br", "cf.cond_br", "cf.switch", "tcgen05.tmem_stage"})


@dataclass(frozen=True)
class Access:
    """One TMEM operand of an op.

    ``roots`` is the bit mask of root buffers the value may name; ``certain`` is the one
    root it certainly names (see the module docstring), or -1.
    """

    roots: int
    certain: int
    reads: bool
    writes: bool
    role: str = ""


@dataclass
class Node:
    """One op of the kernel, in program order."""

    index: int
    name: str
    succ: list[int] = field(default_factory=list)
    accesses: tuple[Access, ...] = ()
    #: Bit mask of the roots this op defines (a ``tcgen05.tmem_buffer``).
    defines: int = 0
    #: The asynchronous kind ("mma", "cp", "shift", "ld", "ld_red", "st") or None.
    async_kind: str | None = None
    #: ``tcgen05.cp`` message shape (pipelining shift -> cp.4x256b, 9.7.16.6.2).
    cp_shape: str | None = None
    #: Nodes of the loads whose result fragments this op uses (9.7.16.6.4.5).
    fragment_sources: tuple[int, ...] = ()
    #: Completion classes this op completes entirely (wait::ld, wait::st, dealloc, exit).
    completes: frozenset = frozenset()
    exit: bool = False


@dataclass
class Root:
    """A ``tcgen05.tmem_buffer``: something to place."""

    index: int
    label: str
    definition: int
    op: object = None


@dataclass
class Program:
    """The flat graph of a kernel: ``nodes[i]`` is the op of program-order index i
    (``ops[0]`` is the kernel itself)."""

    nodes: list[Node]
    roots: list[Root]
    ops: list = field(default_factory=list)


def _constant(producer: dict, value):
    """The integer (or bool) value of an ``arith.constant``, or None."""
    op = producer.get(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.BoolAttr):
        return int(attr.value)
    try:
        return int_value(attr)
    except ValueError:
        return None


def _runs_at_least_once(producer: dict, for_op) -> bool:
    """Whether an ``scf.for`` has constant bounds and step with lower < upper (so its
    body runs at least once and control cannot skip it)."""
    lower, upper, step = (_constant(producer, for_op.operands[i]) for i in range(3))
    return None not in (lower, upper, step) and step > 0 and lower < upper


class _Builder:
    """Numbers a kernel's ops and finds its control flow.

    Ops come from ``Operation.walk`` in pre-order (index 0 is the kernel itself); going
    through ``Block.operations`` instead would build a typed view of every op, which
    for the tcgen05 dialect (no Python op classes) costs an import lookup per op."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.ops: list = []
        #: TMEM-ness of each value asked about (see is_tmem).
        self.tmem_values: dict = {}

        def collect(op):
            self.ops.append(op)
            return ir.WalkResult.ADVANCE

        kernel.walk(collect, ir.WalkOrder.PRE_ORDER)
        self.index: dict = {op: i for i, op in enumerate(self.ops)}
        self.next_in_block: dict[int, int | None] = {i: None for i in range(len(self.ops))}
        self.block_entry: dict = {}
        self.block_last: dict = {}
        #: SSA value -> the op that defines it.
        self.producer: dict = {}
        for i, op in enumerate(self.ops):
            for result in op.results:
                self.producer[result] = op
            if i == 0:
                continue
            # In pre-order, the ops of one block come in order, with nested ops between.
            block = op.block
            if block in self.block_last:
                self.next_in_block[self.block_last[block]] = i
            else:
                self.block_entry[block] = i
            self.block_last[block] = i

    def entry_of(self, block) -> int:
        """The index of the first op of `block`."""
        return self.block_entry[block]

    def is_tmem(self, value) -> bool:
        """Whether `value` is a TMEM buffer value. Reading a value's type prints it, so
        the answer is kept per value while this program is built."""
        known = self.tmem_values.get(value)
        if known is None:
            known = self.tmem_values[value] = isinstance(d.type_info(value.type), d.TmemType)
        return known

    def last_of(self, block):
        """The last op of `block`."""
        return self.ops[self.block_last[block]]

    # ------------------------------------------------------------------ control flow

    def successors(self) -> list[list[int]]:
        """The successor lists of every op (see the module docstring)."""
        succ: list[list[int]] = []
        for i, op in enumerate(self.ops):
            nxt = self.next_in_block[i]
            succ.append([nxt] if nxt is not None else [])
        succ[0] = [self.entry_of(self.kernel.regions[0].blocks[0])]
        for i, op in enumerate(self.ops):
            if i == 0:
                continue
            if op.name == "func.return":
                succ[i] = []
            elif len(op.successors):
                succ[i] = [self.entry_of(b) for b in op.successors]
            if len(op.regions):
                self.region_flow(i, op, succ)
        return succ

    def region_flow(self, i: int, op, succ) -> None:
        """Control flow into, within and out of the regions of op `i`."""
        after = self.next_in_block[i]
        after_list = [after] if after is not None else []
        regions = [r for r in op.regions if len(r.blocks)]
        entries = [self.entry_of(r.blocks[0]) for r in regions]
        if not regions:
            return

        def returning(region):
            for block in region.blocks:
                if block in self.block_last and not len(self.last_of(block).successors):
                    yield self.block_last[block]

        if op.name == "scf.for":
            body = entries[0]
            succ[i] = [body] + ([] if _runs_at_least_once(self.producer, op) else after_list)
            for t in returning(op.regions[0]):
                succ[t] = [body] + after_list
        elif op.name == "scf.if":
            then_entry = entries[0]
            has_else = len(op.regions) > 1 and len(op.regions[1].blocks)
            succ[i] = [then_entry] + ([self.entry_of(op.regions[1].blocks[0])] if has_else
                                      else after_list)
            for region in regions:
                for t in returning(region):
                    succ[t] = list(after_list)
        elif op.name == "scf.while" and len(regions) == 2:
            before, after_region = entries
            succ[i] = [before]
            for t in returning(op.regions[0]):
                succ[t] = [after_region] + after_list
            for t in returning(op.regions[1]):
                succ[t] = [before]
        else:
            succ[i] = entries + after_list
            for region in regions:
                for t in returning(region):
                    succ[t] = entries + after_list


def _points_to(builder: _Builder, roots: dict, aliases: dict) -> tuple[dict, dict]:
    """Root bit masks and view flags of every TMEM value (see the module docstring); an
    alias buffer (`aliases`: alias op -> parent op, planning.aliases) names its parent's
    root, as a view (it covers part of the parent's cells)."""
    everything = (1 << len(roots)) - 1
    masks: dict = {}
    views: dict = {}
    edges: list = []  # (destination value, source value)

    def seed(value, mask: int, view: bool) -> None:
        masks[value] = masks.get(value, 0) | mask
        views[value] = views.get(value, False) or view

    def flow(dst, src) -> None:
        if builder.is_tmem(dst):
            edges.append((dst, src))

    for op in builder.ops[1:]:
        name = op.name
        if name == "tcgen05.tmem_buffer":
            if op in aliases:
                seed(op.results[0], 1 << roots[aliases[op]], True)
            else:
                seed(op.results[0], 1 << roots[op], False)
            continue
        if name == "tcgen05.tmem_stage":
            seed(op.results[0], 0, True)
            flow(op.results[0], op.operands[0])
            continue
        if name == "arith.select":
            flow(op.results[0], op.operands[1])
            flow(op.results[0], op.operands[2])
            continue
        if name == "scf.for":
            body = op.regions[0].blocks[0]
            inits = [op.operands[j] for j in range(3, len(op.operands))]
            yields = builder.last_of(body).operands
            for j, init in enumerate(inits):
                for dst in (body.arguments[1 + j], op.results[j]):
                    flow(dst, init)
                    flow(dst, yields[j])
            continue
        if name == "scf.if":
            for region in op.regions:
                if len(region.blocks):
                    yields = builder.last_of(region.blocks[0]).operands
                    for j, result in enumerate(op.results):
                        flow(result, yields[j])
            continue
        if name == "scf.while" and len(op.regions) == 2:
            before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
            condition = builder.last_of(before)
            after_yield = builder.last_of(after)
            for j in range(len(op.operands)):
                flow(before.arguments[j], op.operands[j])
                flow(before.arguments[j], after_yield.operands[j])
            for j in range(len(after.arguments)):
                flow(after.arguments[j], condition.operands[1 + j])
                flow(op.results[j], condition.operands[1 + j])
            continue
        if len(op.successors):
            _branch_flow(op, flow, builder.is_tmem)
            continue
        for result in op.results:
            if builder.is_tmem(result):
                # An op we do not know (with or without regions) may return any buffer.
                seed(result, everything, True)
    # Block arguments of the kernel itself (not expected, but be safe).
    for argument in builder.kernel.regions[0].blocks[0].arguments:
        if builder.is_tmem(argument):
            seed(argument, everything, True)
    changed = True
    while changed:
        changed = False
        for dst, src in edges:
            mask = masks.get(src, 0)
            view = views.get(src, False)
            old = masks.get(dst, 0)
            if (old | mask) != old or (view and not views.get(dst)):
                masks[dst] = old | mask
                views[dst] = views.get(dst, False) or view
                changed = True
    return masks, views


def _branch_flow(op, flow, is_tmem) -> None:
    """Values a cf branch passes to its successors' block arguments."""
    successors = list(op.successors)
    operands = list(op.operands)
    if op.name == "cf.br":
        for j, argument in enumerate(successors[0].arguments):
            flow(argument, operands[j])
        return
    if op.name == "cf.cond_br":
        n_true = len(successors[0].arguments)
        for j, argument in enumerate(successors[0].arguments):
            flow(argument, operands[1 + j])
        for j, argument in enumerate(successors[1].arguments):
            flow(argument, operands[1 + n_true + j])
        return
    # Another branch op: any TMEM operand may reach any TMEM block argument.
    for block in successors:
        for argument in block.arguments:
            for value in operands:
                if is_tmem(value):
                    flow(argument, value)


def buffer_label(op, asm_state=None) -> str:
    """How reports and diagnostics name a buffer: ``%`` + its ``name`` attribute, else
    its SSA name in the IR as printed before planning."""
    name = TmemBufferOp(op).name
    if name:
        return "%" + name
    if asm_state is not None:
        return op.results[0].get_name(asm_state)
    return op.results[0].get_name()


def build_program(kernel) -> Program:
    """The flat graph of `kernel` (see the module docstring)."""
    return _build(kernel)


def _build(kernel) -> Program:
    builder = _Builder(kernel)
    succ = builder.successors()
    buffer_ops = [op for op in builder.ops[1:] if TmemBufferOp.matches(op)]
    # An alias has no cells of its own (planning.aliases): not a root. One whose parent
    # is missing (tcgen05-verify reports it) stays a root of its own.
    aliases = aliases_of(buffer_ops)
    root_ops = [op for op in buffer_ops if op not in aliases]
    root_index = {op: i for i, op in enumerate(root_ops)}
    masks, views = _points_to(builder, root_index, aliases)
    asm_state = ir.AsmState(kernel) if any(not TmemBufferOp(op).name for op in root_ops) \
        else None
    roots = [Root(i, buffer_label(op, asm_state), builder.index[op], op)
             for i, op in enumerate(root_ops)]

    def access(value, *, reads: bool, writes: bool, role: str = "") -> Access | None:
        mask = masks.get(value, 0)
        if not mask:
            return None
        certain = mask.bit_length() - 1 if (mask & (mask - 1)) == 0 \
            and not views.get(value, False) else -1
        return Access(mask, certain, reads, writes, role)

    nodes = []
    load_nodes = {}
    for i, op in enumerate(builder.ops):
        node = Node(i, op.name, succ[i])
        if i == 0:
            nodes.append(node)
            continue
        name = d.op_name(op)
        accesses: list = []
        if name == "mma":
            operands = mma_operands(op)
            overwrite = _constant(builder.producer, operands.enable_input_d) == 0
            accesses.append(access(operands.d, reads=not overwrite, writes=True, role="d"))
            if operands.a_tmem is not None:
                accesses.append(access(operands.a, reads=True, writes=False, role="a"))
            for role in ("scale_a", "scale_b", "metadata"):
                value = getattr(operands, role)
                if value is not None:
                    accesses.append(access(value, reads=True, writes=False, role=role))
        elif name == "cp":
            accesses.append(access(op.operands[0], reads=False, writes=True, role="dest"))
            node.cp_shape = CpOp(op).shape
        elif name == "shift":
            accesses.append(access(op.operands[0], reads=True, writes=True, role="buffer"))
        elif name in (LdOp.NAME, LdRedOp.NAME):
            accesses.append(access(op.operands[0], reads=True, writes=False, role="source"))
            load_nodes[op] = i
        elif name == "st":
            accesses.append(access(op.operands[0], reads=False, writes=True, role="dest"))
        elif name == "wait":
            kind = WaitOp(op).kind
            node.completes = frozenset({"L"} if kind == "ld" else
                                       {"S"} if kind == "st" else set())
        elif name == "dealloc":
            node.completes = ALL_CLASSES
        elif op.name == "func.return":
            node.completes = ALL_CLASSES
            node.exit = True
        elif op.name not in _FORWARDING and name not in ("tmem_buffer", "alloc"):
            for value in op.operands:
                if builder.is_tmem(value):
                    accesses.append(access(value, reads=True, writes=True, role="other"))
        if name == "tmem_buffer" and op in root_index:
            node.defines = 1 << root_index[op]   # (an alias defines nothing: its parent's cells)
        if name in ASYNC_CLASS:
            node.async_kind = name
        node.accesses = tuple(a for a in accesses if a is not None)
        if op.name not in _FORWARDING:
            # Passing a fragment on (yield, branch) is not a use of its registers.
            sources = []
            for value in op.operands:
                owner = builder.producer.get(value)
                if owner is not None and owner in load_nodes:
                    sources.append(load_nodes[owner])
            node.fragment_sources = tuple(sources)
        nodes.append(node)
    return Program(nodes, roots, builder.ops)
