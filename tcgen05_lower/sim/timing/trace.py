"""The recorded run as the timing model replays it: per warp, its steps (Step), what each
instruction is to the model (classify), and the names the Chrome trace gives them."""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.timing_parameters import _LDST_BYTES

# -- the trace --------------------------------------------------------------------------------

#: Bytes of a sector, the unit in which global memory accesses move between the SM and
#: the L2 (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory": "memory
#: accesses ... are serviced in 32-byte sectors" on devices of compute capability 6.0+).
SECTOR_BYTES = 32


@dataclass
class Step:
    """One warp instruction as the replay sees it."""
    kind: str                       # see _classify
    line: int = 0
    text: str = ""
    srcs: tuple = ()
    dsts: tuple = ()
    nbytes: int = 0                 # memory bytes the warp moves
    asyncs: list = field(default_factory=list)   # [(thread, rank, "mma"|"cp"|"shift", MmaCost|None)]
    commits: list = field(default_factory=list)  # [(thread, [(rank, addr, generation, phase)])]
    arrivals: list = field(default_factory=list)  # [(rank, addr, generation, phase)]
    #: TMA loads the step issued: [(thread, rank, bytes, [(rank, addr, generation, phase)])],
    #: the tag list being the mbarrier phase its complete_tx counted towards
    tmas: list = field(default_factory=list)
    wait: tuple | None = None       # (rank, addr, generation, phase) of an mbarrier wait
    barrier: int = -1               # the instance of barrier.sync (or cluster barrier)
    rank: int = 0
    #: ld.global: the 128-byte lines the warp's access touches (the L2's unit of reuse);
    #: st.global: the 32-byte sectors it writes (the unit it moves through the L2 port)
    lines: tuple = ()
    #: the PTX opcode with its qualifiers ("tcgen05.mma.cta_group::1.kind::f16"), for names
    opcode: str = ""


@dataclass
class ClusterTrace:
    """The recorded run of one CTA or CTA pair: per warp, its steps."""
    warps_per_cta: int
    ctas: int
    warps: list = field(default_factory=list)  # list[list[Step]]
    #: warp index within its CTA -> the name of its role (tcgen05.partitions), if known
    roles: dict = field(default_factory=dict)



_BLOCKING_ALWAYS = frozenset({"st", "bra", "ret", "exit", "barrier", "bar", "fence"})


def _regs_of(op) -> list[str]:
    if isinstance(op, P.Reg):
        return [op.name]
    if isinstance(op, P.Vec):
        return [r for item in op.items for r in _regs_of(item)]
    if isinstance(op, P.Addr) and isinstance(op.base, P.Reg):
        return [op.base.name]
    return []


def classify(ins: P.Instr) -> tuple[str, tuple, tuple, int]:
    """(kind, source registers, destination registers, bytes per active thread)."""
    parts = ins.parts
    base = parts[0]
    ops = list(ins.operands)
    has_dest = not (base in _BLOCKING_ALWAYS or
                    (base == "tcgen05" and parts[1] not in ("ld",)) or
                    (base == "mbarrier" and parts[1] in ("init", "expect_tx")))
    dsts = tuple(_regs_of(ops[0])) if has_dest and ops and \
        isinstance(ops[0], (P.Reg, P.Vec)) else ()
    rest = ops[1:] if dsts else ops
    srcs = tuple(r for op in rest for r in _regs_of(op))
    if ins.guard:
        srcs += (ins.guard,)
    width = 0
    for p in parts:
        if p[:1] in "busf" and p[1:].isdigit():
            width = int(p[1:]) // 8
    vec = next((int(p[1:]) for p in parts if p in ("v2", "v4", "v8")), 1)
    nbytes = width * vec
    if base in ("ld", "st"):
        space = "global" if "global" in parts else "shared" if any(
            p.startswith("shared") for p in parts) else "param" if "param" in parts else "local"
        if base == "ld":
            kind = {"global": "ld_global", "shared": "ld_shared"}.get(space, "ld_param")
        else:
            kind = {"global": "st_global", "shared": "st_shared"}.get(space, "alu")
        return kind, srcs, dsts, nbytes
    if base == "tcgen05":
        op = parts[1]
        if op in ("ld", "st"):
            shape = next(p for p in parts if p in _LDST_BYTES)
            num = int(next(p for p in parts if p[:1] == "x" and p[1:].isdigit())[1:])
            return ("tmem_" + op), srcs, dsts, _LDST_BYTES[shape] * num
        if op in ("mma", "cp", "shift"):
            return "async", srcs, dsts, 0
        if op == "commit":
            return "commit", srcs, dsts, 0
        if op in ("wait::ld", "wait::st"):
            return "wait_" + op[-2:], srcs, dsts, 0
        if op in ("alloc", "dealloc"):
            return "alloc", srcs, dsts, 0
        return "alu", srcs, dsts, 0   # fences, relinquish: ordering only
    if base == "cp" and parts[1:4] == ["async", "bulk", "tensor"]:
        return "tma", srcs, dsts, 0
    if base in ("barrier", "bar"):
        if parts[1] == "cluster":
            return ("cluster_" + parts[2]), srcs, dsts, 0
        return "barrier", srcs, dsts, 0
    if base == "mbarrier":
        if parts[1] == "try_wait":
            return "mbar_wait", srcs, dsts, 0
        if parts[1].startswith("arrive"):
            return "mbar_arrive", srcs, dsts, 0
        return "alu", srcs, dsts, 0
    if base == "fence" and "proxy" in ".".join(parts):
        return "fence_proxy", srcs, dsts, 0
    if base in ("ex2", "sqrt", "rcp", "div", "lg2", "sin", "cos", "rsqrt", "tanh"):
        return "mufu", srcs, dsts, 0
    if base in ("ret", "exit"):
        return "exit", srcs, dsts, 0
    return "alu", srcs, dsts, 0




def opcode_of(step: Step) -> str:
    """The step's PTX opcode with its qualifiers (the recorded one; else the first word
    of its text that is not part of a `{ .reg ...;` preamble), for trace names."""
    if step.opcode:
        return step.opcode
    for part in step.text.replace("{", ";").replace("}", ";").split(";"):
        words = part.split()
        while words and (words[0].startswith("@") or words[0].startswith(".")):
            words = words[1:]
        if words:
            return words[0]
    return step.kind


def role_of(steps: list) -> str:
    """What a warp does, from its instructions (the PTX has no role names): "TMA loads",
    "MMA" (issues tcgen05.mma), "epilogue" (tcgen05.ld), several joined, or ""."""
    does = []
    if any(s.tmas for s in steps):
        does.append("TMA loads")
    if any(a[2] == "mma" for s in steps for a in s.asyncs):
        does.append("MMA")
    if any(s.kind == "tmem_ld" for s in steps):
        does.append("epilogue")
    return ", ".join(does)


def step_args(step: Step, role: str) -> dict:
    """Chrome trace args of a warp's step: its PTX line and text, the warp's role, the
    mbarrier phase (and parity) it waited for, the bytes it moved or loaded by TMA. The
    PTX carries no MLIR locations, so none are given."""
    args = {"PTX line": step.line, "PTX": step.text[:200]}
    if role:
        args["role"] = role
    if step.wait is not None:
        args["mbarrier"] = f"CTA {step.wait[0]} {step.wait[1]:#x}"
        args["phase"] = step.wait[3]
        args["parity"] = step.wait[3] & 1
    tma_bytes = sum(t[2] for t in step.tmas)
    if tma_bytes or step.nbytes:
        args["bytes"] = tma_bytes or step.nbytes
    keys = [t[4] for t in step.tmas if len(t) > 4 and t[4] is not None]
    if keys:
        args["tile"] = ", ".join(f"{k[0]}[{k[1]}, {k[2]}]" for k in keys)
    return args
