"""PTX text of every instruction the lowering emits (pure Python, no MLIR).

Each builder returns one instruction (or a brace-scoped block) with the operand
placeholders it is given (``$0``, ``$1``, ... as ``nvvm.inline_ptx`` numbers them:
results first, then inputs). Qualifier order follows the syntax blocks of PTX ISA 9.7.16.
"""

from __future__ import annotations

from tcgen05_lower.isa.errors import IsaRuleError


def _cta(cta_group: int) -> str:
    if cta_group not in (1, 2):
        raise IsaRuleError("9.7.16.5", f"cta_group = {cta_group} is not 1 or 2")
    return f".cta_group::{cta_group}"


# 9.7.16.7.1 ------------------------------------------------------------- allocation

def alloc(cta_group: int, dst: str, ncols: str) -> str:
    return f"tcgen05.alloc{_cta(cta_group)}.sync.aligned.shared::cta.b32 [{dst}], {ncols};"


def dealloc(cta_group: int, taddr: str, ncols: str) -> str:
    return f"tcgen05.dealloc{_cta(cta_group)}.sync.aligned.b32 {taddr}, {ncols};"


def relinquish_alloc_permit(cta_group: int) -> str:
    return f"tcgen05.relinquish_alloc_permit{_cta(cta_group)}.sync.aligned;"


# 9.7.16.10.9.1 ----------------------------------------------------------------- mma

def mma(cta_group: int, kind: str, d: str, a: str, b: str, idesc: str, enable_input_d: str,
        *, a_in_tmem: bool = False) -> str:
    a_operand = f"[{a}]" if a_in_tmem else a
    return (f"tcgen05.mma{_cta(cta_group)}.kind::{kind} [{d}], {a_operand}, {b}, {idesc}, "
            f"{enable_input_d};")


# 9.7.16.8.3 / 9.7.16.8.5 ---------------------------------------------------- ld, wait

def ld(shape: str, num: int, dests: list[str], taddr: str, *, half_split: int | None = None,
       pack16: bool = False) -> str:
    pack = ".pack::16b" if pack16 else ""
    regs = "{" + ", ".join(dests) + "}"
    tail = f", {half_split}" if half_split is not None else ""
    return f"tcgen05.ld.sync.aligned.{shape}.x{num}{pack}.b32 {regs}, [{taddr}]{tail};"


def wait(kind: str) -> str:
    if kind not in ("ld", "st"):
        raise IsaRuleError("9.7.16.8.5", f"wait kind '{kind}' is not ld or st")
    return f"tcgen05.wait::{kind}.sync.aligned;"


# 9.7.16.11.1 / 9.7.16.12.1 ------------------------------------------- fence, commit

def fence(kind: str) -> str:
    if kind not in ("before_thread_sync", "after_thread_sync"):
        raise IsaRuleError("9.7.16.11.1", f"fence kind '{kind}' is not before_thread_sync "
                                          f"or after_thread_sync")
    return f"tcgen05.fence::{kind};"


def commit(cta_group: int, mbar: str) -> str:
    # .shared::cluster: a shared::cta address of the executing CTA is a valid
    # shared::cluster address (9.7.16.12.1).
    return f"tcgen05.commit{_cta(cta_group)}.mbarrier::arrive::one.shared::cluster.b64 [{mbar}];"


# mbarriers, proxy fence and barriers (used around tcgen05, outside 9.7.16) ------------

def mbarrier_init(mbar: str, count: str) -> str:
    return f"mbarrier.init.shared::cta.b64 [{mbar}], {count};"


def fence_mbarrier_init() -> str:
    return "fence.mbarrier_init.release.cluster;"


def mbarrier_try_wait_parity(done: str, mbar: str, parity: str) -> str:
    """One try of an mbarrier wait; writes 1 to `done` when the phase with `parity`
    has completed. The caller loops (9.7.16.6.4.2 example 2)."""
    return ("{ .reg .pred tcgen05_done; "
            f"mbarrier.try_wait.parity.shared::cta.b64 tcgen05_done, [{mbar}], {parity}; "
            f"selp.u32 {done}, 1, 0, tcgen05_done; }}")


def fence_proxy_async() -> str:
    return "fence.proxy.async.shared::cta;"


def barrier_sync(barrier_id: int = 0) -> str:
    return f"barrier.sync {barrier_id};"
