"""The one-program model of a kernel without concurrent roles: ``Run`` runs the kernel's
control skeleton op by op (the package docstring says how) and collects every unordered
dependence as a problem at the later op."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import FragMapOp
from tcgen05_lower.kernel_ir import OpDict
from tcgen05_lower.sync_check.cta_checks import OrderChecks
from tcgen05_lower.sync_check.cta_control_flow import ControlFlow
from tcgen05_lower.sync_check.cta_effects import Effects
from tcgen05_lower.sync_check.cta_footprints import Footprints
from tcgen05_lower.sync_check.model import Evaluator, Instance, STEP_BUDGET, Unsupported


class Run(ControlFlow, Effects, Footprints, OrderChecks):
    """One simulated run of a kernel."""

    def __init__(self, pass_, kernel):
        self.pass_ = pass_
        self.kernel = kernel
        self.eval = Evaluator()
        self.live: list[Instance] = []
        self.mbarriers: dict = {}
        # The mbarriers whose last_wait may be set (of self.mbarriers' states): what a
        # barrier clears, without scanning every mbarrier of the kernel at each one.
        self.waited: dict = {}
        self.problems: dict = {}  # (op, key) -> (op, message), first occurrence first
        self.steps = 0
        self.checked = 0
        self.executions = 0  # serial numbers of instances
        self.truncated = False
        self.block_ops: dict = {}
        # op -> (the ld ops whose registers it reads, its operands bound at run time)
        # Tables keyed by ops are OpDicts (kernel_ir: a dict keyed by ops is quadratic).
        self.loads_read = OpDict()
        self.static = OpDict()  # op -> what instance() needs that does not change
        self.varying = OpDict()  # op -> whether an operand is bound at run time
        self.aliases: dict = {}  # region result / block argument -> what it may be now
        self.opaque = OpDict()  # region op not run -> whether tcgen05 ops are inside
        self.kernel_args = set(kernel.regions[0].blocks[0].arguments)
        self.pair = d.kernel_info(kernel).cta_group == 2

    def run(self) -> None:
        """Runs the kernel's body."""
        if len(self.kernel.regions[0].blocks) > 1:
            raise Unsupported(self.kernel, "tcgen05-verify-sync cannot check a kernel with "
                                           "several blocks (cf branches): run "
                                           "lift-cf-to-scf first (the default pipeline runs "
                                           "it before planning)")
        self.block(self.kernel.regions[0].blocks[0])

    def ops(self, block) -> list:
        """The ops of `block`, built once (making the Python views of MLIR ops is the
        costly part of a run, and the same blocks run many times)."""
        ops = self.block_ops.get(block)
        if ops is None:
            ops = self.block_ops[block] = [op.operation for op in block.operations]
        return ops

    def block(self, block) -> None:
        """Runs the ops of `block` in order."""
        for op in self.ops(block):
            self.execute(op)

    def region(self, block) -> list:
        """Runs `block` (None: an absent else region) and returns the meaning of what its
        terminator yields."""
        if block is None:
            return []
        self.block(block)
        return [self.meaning(v) for v in self.ops(block)[-1].operands]

    def execute(self, op) -> None:
        """Runs one op."""
        self.steps += 1
        if self.steps > STEP_BUDGET:
            raise Unsupported(self.kernel, f"the kernel runs more than {STEP_BUDGET} ops; "
                                           f"tcgen05-verify-sync cannot check it")
        name = op.name
        if name == "scf.for":
            self.loop(op)
        elif name == "scf.if":
            self.branch(op)
        elif name == "scf.index_switch":
            self.switch(op)
        elif name == "scf.while":
            self.while_loop(op)
        elif len(op.regions) and not FragMapOp.matches(op):  # frag_map: arithmetic only
            inside = self.opaque.get(op)
            if inside is None:
                inside = self.opaque[op] = any(d.op_name(inner) is not None
                                               for inner in d.walk_ops(op))
            if inside:
                raise Unsupported(op, f"tcgen05-verify-sync cannot check tcgen05 ops inside "
                                      f"'{name}' yet")
        else:
            self.tcgen05(op)
            self.register_reads(op)
