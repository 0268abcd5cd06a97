"""Warp roles (docs/partitions.md): a ``tcgen05.partitions`` becomes one ``scf.if`` per
role, on the role's warp range, then a barrier of the CTA that joins them.

Each role's ops move, unchanged, into its ``scf.if``; the driver (``core``) lowers them
afterwards with the role's threads: single-thread ops issued by the role's first thread,
``smem_fill`` strided over the role's threads, ``tcgen05.barrier`` as the role's named
barrier (``barrier.sync id, threads``, id = 1 + the role's index, 9.7.13.1). The
warpgroup-relative warp index of ld / st stays ``warp % 4``: a role of whole aligned
warpgroups has warp w access TMEM lanes 32 (w % 4) .. 32 (w % 4) + 31 (9.7.16.8.1). The
role predicates are built once, at the kernel's entry (``RoleThreads``), and each op is
moved once: the lowering stays linear.

The joining barrier (``barrier.sync 0``) is reached by every thread of the CTA: the
warps of each role when their role ends, the warps of no role at once.
"""

from __future__ import annotations

from tcgen05_lower import emit
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import PartitionsOp, RoleOp
from tcgen05_lower.emit import i32
from tcgen05_lower.kernel_ir import partition_roles
from tcgen05_lower.lowering.core import lowers
from tcgen05_lower.lowering.sync import cta_barrier
from tcgen05_lower.lowering.threads import RoleThreads, role_threads  # noqa: F401

#: setmaxnreg's register counts: multiples of 8 in 24..256 (PTX ISA, setmaxnreg).
NREG_MIN, NREG_MAX, NREG_STEP = 24, 256, 8
#: The threads of a warpgroup: "The same setmaxnreg instruction must be executed by all
#: warps in a warpgroup" (PTX ISA, setmaxnreg).
WARPGROUP_THREADS = 128


#: 32-bit registers of an SM's register file on compute capability 10.x (CUDA C++
#: Programming Guide, technical specifications): the budgets of all warpgroups must fit.
SM_REGISTERS = 64 * 1024


def register_budgets(lowering, op) -> list[int] | None:
    """The budget per warpgroup of the pass's maxnreg option, or None without one; a
    located error if the budgets do not fit the kernel."""
    text = lowering.pass_.option("maxnreg").strip()
    if not text:
        return None
    try:
        budgets = [int(x) for x in text.split(",")]
    except ValueError:
        lowering.fail(op, f"maxnreg={text}: budgets are integers, one per warpgroup")
    groups = lowering.info.threads / WARPGROUP_THREADS
    if len(budgets) != groups:
        lowering.fail(op, f"maxnreg={text}: setmaxnreg is executed by whole warpgroups "
                          f"(PTX ISA, setmaxnreg): one budget per warpgroup, and this kernel "
                          f"of {lowering.info.threads} threads has {groups:g}")
    for budget in budgets:
        if not NREG_MIN <= budget <= NREG_MAX or budget % NREG_STEP:
            lowering.fail(op, f"maxnreg={text}: budget {budget} is not a multiple of "
                              f"{NREG_STEP} in {NREG_MIN}..{NREG_MAX} (PTX ISA, setmaxnreg)")
    if sum(budgets) * WARPGROUP_THREADS > SM_REGISTERS:
        lowering.fail(op, f"maxnreg={text}: the budgets hold {sum(budgets)} x "
                          f"{WARPGROUP_THREADS} registers, over the {SM_REGISTERS} of an SM")
    return budgets


def _set_max_registers(budget: int, top: int) -> None:
    """setmaxnreg to `budget`: .dec below the largest budget `top` (the count ptxas gives
    the kernel at launch, measured: benchmarks/codegen), .inc at it."""
    action = "dec" if budget < top else "inc"
    emit.ptx(f"setmaxnreg.{action}.sync.aligned.u32 {budget};")


def _whole_groups(role) -> range | None:
    """The warpgroups a role covers exactly, or None if it shares one with other warps."""
    if role.first_warp % 4 or role.warps % 4:
        return None
    return range(role.first_warp // 4, (role.first_warp + role.warps) // 4)


def set_register_budgets(lowering, op, budgets: list[int]) -> dict:
    """The setmaxnreg of every warpgroup. A warpgroup that is one role's (or part of one
    role of whole warpgroups of one budget) gets it at the top of the role's branch, where
    ptxas allocates the role's code within it; a warpgroup shared by several roles or
    warps of none gets it before the roles, under ``warp / 4 == g``: the same instruction
    for its four warps, as setmaxnreg requires. Returns {role op: budget} of the first."""
    top = max(budgets)
    inside: dict = {}
    placed: set = set()
    for role_op in partition_roles(op):
        groups = _whole_groups(lowering.role_threads[role_op].role)
        if groups and len({budgets[g] for g in groups}) == 1:
            inside[role_op] = budgets[groups[0]]
            placed.update(groups)
    group = lowering.warp >> 2
    for index, budget in enumerate(budgets):
        if index in placed:
            continue
        branch = ir.Operation.create(
            "scf.if", results=[], regions=2,
            operands=[emit.cmp_eq(group.value, emit.constant(index, i32()))])
        then = branch.regions[0].blocks.append()
        with ir.InsertionPoint(then):
            _set_max_registers(budget, top)
            ir.Operation.create("scf.yield")
    return {role_op: (budget, top) for role_op, budget in inside.items()}


@lowers(PartitionsOp)
def lower_partitions(lowering, op) -> None:
    """One ``scf.if`` per role on its warps, holding the role's ops (lowered later by the
    driver with the role's threads), then the joining barrier of the CTA; before them the
    setmaxnreg of each warpgroup's register budget (the maxnreg option)."""
    budgets = register_budgets(lowering, op)
    inside = set_register_budgets(lowering, op, budgets) if budgets else {}
    for role_op in partition_roles(op):
        threads = lowering.role_threads[role_op]
        branch = ir.Operation.create("scf.if", results=[], operands=[threads.member],
                                     regions=2)
        then = branch.regions[0].blocks.append()
        if role_op in inside:
            with ir.InsertionPoint(then):
                _set_max_registers(*inside[role_op])
        body = role_op.regions[0].blocks[0]
        moving = [inner.operation for inner in body.operations]
        for inner in moving[:-1]:  # all but the role's gpu.yield
            then.append(inner)
        with ir.InsertionPoint(then):
            ir.Operation.create("scf.yield")
    cta_barrier(lowering)


@lowers(RoleOp)
def lower_role(lowering, op) -> None:
    """Nothing: lower_partitions moved the role's ops into its scf.if."""
