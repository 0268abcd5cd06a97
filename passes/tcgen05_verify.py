"""tcgen05-verify: the ISA's semantic rules that the dialect's IRDL types cannot express.

Runs first in the pipeline so that every later pass may assume well-formed input. Each
rule reports at the offending op with the rule's source (a table or section of PTX ISA
9.7.16) and the bad value, e.g. ``N = 250 is not a multiple of 8 for kind::f16,
cta_group::1 (Table 39)``.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.element_types import isa_type
from tcgen05_lower.isa import shapes, targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.pass_infra import ModulePass
from tcgen05_lower.kernel_ir import mma_operands

SWIZZLES = ("none", "32B", "64B", "128B", "128B_base32B")
MAJORS = ("K", "MN")
#: Threads per warpgroup: ld/st are issued by all four warps of a warpgroup (Table 46).
WARPGROUP_THREADS = 128


class Tcgen05Verify(ModulePass):
    name = "tcgen05-verify"
    description = "Check the PTX ISA's shape, type and target rules on tcgen05 kernels"

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            self.verify_kernel(kernel)

    # ------------------------------------------------------------------ kernel

    def verify_kernel(self, kernel) -> None:
        info = d.kernel_info(kernel)
        try:
            targets.check_target(info.target)
        except IsaRuleError as exc:
            self.error(kernel, str(exc))
            return
        if info.cta_group not in (1, 2):
            self.error(kernel, f"cta_group = {info.cta_group} is not 1 or 2 (9.7.16.5)")
            return
        if info.cta_group == 2:
            self.error(kernel, "cta_group = 2 kernels are not supported yet: this version "
                               "plans and lowers single-CTA (cta_group::1) kernels only")
            return
        if info.threads != WARPGROUP_THREADS:
            self.error(kernel, f"threads = {info.threads}: this version lowers kernels of "
                               f"exactly one warpgroup ({WARPGROUP_THREADS} threads)")
            return
        for op in d.walk_ops(kernel):
            check = _CHECKS.get(d.op_name(op))
            if check is not None:
                check(self, op, info)

    # ------------------------------------------------------------------ ops

    def check_tmem_buffer(self, op, info) -> None:
        t = d.type_info(op.results[0].type)
        if len(t.shape) not in (2, 3):
            self.error(op, f"TMEM buffer shape {list(t.shape)} must be [rows, columns] or "
                           f"[stages, rows, columns]")
            return
        if len(t.shape) == 3:
            self.error(op, "multi-buffered TMEM buffers ([stages, rows, columns]) are not "
                           "supported yet")
            return
        if isa_type(t.element) not in ("f32", "f16", "s32"):
            self.error(op, f"TMEM accumulator element type {t.element} is not f32, f16 or "
                           f"i32 (Table 39 dtype column)")

    def check_smem_buffer(self, op, info) -> None:
        t = d.type_info(op.results[0].type)
        if len(t.shape) != 2:
            self.error(op, f"shared-memory tile shape {list(t.shape)} must be [rows, K]")
        elif t.major not in MAJORS:
            self.error(op, f"major-ness \"{t.major}\" is not \"K\" or \"MN\" (9.7.16.3)")
        elif t.swizzle not in SWIZZLES:
            self.error(op, f"swizzle \"{t.swizzle}\" is not one of "
                           f"{', '.join(SWIZZLES)} (Table 40)")

    def check_smem_fill(self, op, info) -> None:
        tile = d.type_info(op.operands[1].type)
        layout = d.get_str(op, "src_layout")
        if layout not in ("mn_k", "k_mn"):
            self.error(op, f"src_layout = \"{layout}\" is not \"mn_k\" or \"k_mn\"")
        if tile.major != "K":
            self.error(op, "filling an MN-major tile is not supported yet (K-major only)")
        if d.get_int(op, "src_ld") <= 0:
            self.error(op, f"src_ld = {d.get_int(op, 'src_ld')} must be positive")
        if tile.swizzle == "128B_base32B":
            self.error(op, "filling a tile with 128B swizzle of 32B atomicity is not "
                           "supported yet")

    def check_mma(self, op, info) -> None:
        kind = d.get_str(op, "kind")
        if kind not in shapes.KINDS:
            self.error(op, f"kind::{kind} is not an MMA kind (one of "
                           f"{', '.join(shapes.KINDS)}; 9.7.16.10.9.1)")
            return
        operands = mma_operands(op)
        if operands.a_tmem is not None:
            self.error(op, "A in tensor memory is not supported yet (A must be a "
                           "shared-memory tile)")
            return
        if operands.a_smem is None:
            self.error(op, f"operand A has type {op.operands[1].type}; expected a TMEM "
                           f"buffer or a shared-memory tile")
            return
        dt, at, bt = operands.d_type, operands.a_type, operands.b_type
        m, n = dt.rows, dt.cols
        try:
            shapes.check_mma_shape(kind=kind, m=m, n=n, cta_group=info.cta_group,
                                   d_type=isa_type(dt.element), a_type=isa_type(at.element),
                                   b_type=isa_type(bt.element))
            targets.check_feature(f"kind::{kind}", info.target)
        except IsaRuleError as exc:
            self.error(op, str(exc))
            return
        k = shapes.mma_k(kind)
        # The A tile holds the M rows of A, the B tile the N rows of B^T (Table 51: both
        # are described rows x K; their major-ness says how K is laid out).
        if at.rows != m:
            self.error(op, f"A tile has {at.rows} rows but the accumulator has M = {m}")
        if bt.rows != n:
            self.error(op, f"B tile has {bt.rows} rows but the accumulator has N = {n}")
        if at.k != bt.k:
            self.error(op, f"A tile has K = {at.k} but B tile has K = {bt.k}")
        k_offset = d.get_int(op, "k_offset", 0)
        if k_offset % k != 0 or k_offset < 0 or k_offset + k > at.k:
            self.error(op, f"k_offset = {k_offset} does not select a K = {k} block of the "
                           f"{at.k}-wide tiles (kind::{kind}, Table 39)")
        for which, tile in (("A", at), ("B", bt)):
            if tile.swizzle == "128B_base32B" and not (tile.major == "MN"
                                                         and isa_type(tile.element) == "tf32"):
                self.error(op, f"{which} tile: 128B swizzle with 32B atomicity is only for "
                               f"MN-major 32-bit operands (Table 52)")
            if tile.major == "MN" and isa_type(tile.element) == "tf32" \
                    and tile.swizzle != "128B_base32B":
                self.error(op, f"{which} tile: MN-major tf32 requires 128B swizzle with 32B "
                               f"atomicity, got \"{tile.swizzle}\" (Table 52)")

    def check_ld(self, op, info) -> None:
        src = d.type_info(op.operands[0].type)
        frag = d.type_info(op.results[0].type)
        if frag.shape[0] != src.rows:
            self.error(op, f"fragment has {frag.shape[0]} rows but the buffer has "
                           f"{src.rows}: a warpgroup load reads whole columns")
        if frag.shape[1] > src.cols:
            self.error(op, f"fragment of {frag.shape[1]} columns is wider than the buffer "
                           f"({src.cols} columns)")
        if frag.element != src.element:
            self.error(op, f"fragment element type {frag.element} differs from the "
                           f"buffer's {src.element}")

    def check_store_fragment(self, op, info) -> None:
        if d.get_int(op, "ld") <= 0:
            self.error(op, f"ld = {d.get_int(op, 'ld')} must be positive")

    def check_wait(self, op, info) -> None:
        kind = d.get_str(op, "kind")
        if kind not in ("ld", "st"):
            self.error(op, f"wait kind \"{kind}\" is not \"ld\" or \"st\" (9.7.16.8.5)")

    def check_fence(self, op, info) -> None:
        kind = d.get_str(op, "kind")
        if kind not in ("before_thread_sync", "after_thread_sync"):
            self.error(op, f"fence kind \"{kind}\" is not \"before_thread_sync\" or "
                           f"\"after_thread_sync\" (9.7.16.11.1)")


_CHECKS = {
    "tmem_buffer": Tcgen05Verify.check_tmem_buffer,
    "smem_buffer": Tcgen05Verify.check_smem_buffer,
    "smem_fill": Tcgen05Verify.check_smem_fill,
    "mma": Tcgen05Verify.check_mma,
    "ld": Tcgen05Verify.check_ld,
    "store_fragment": Tcgen05Verify.check_store_fragment,
    "wait": Tcgen05Verify.check_wait,
    "fence": Tcgen05Verify.check_fence,
}
