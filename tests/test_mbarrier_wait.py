"""The mbarrier wait of tcgen05.mbarrier_wait: one inline PTX block per wait, holding the
whole try_wait loop, compared with upstream MLIR 22.1's ``nvvm.mbarrier.try_wait.parity``
(which convert-nvvm-to-llvm also lowers to one inline-assembly loop), and assembled by
ptxas with several waits in one kernel (the loop's label is local to its braced block,
so repeating the block is valid PTX).
"""

from __future__ import annotations

import re


from tcgen05_lower import backend
from tcgen05_lower.bindings import PassManager, ir, nvvm
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE

from conftest import requires_ptxas

#: Three waits: two mbarriers, one wait inside a loop whose trip count is an argument (so
#: LLVM cannot unroll it and the PTX holds exactly one block per wait in the IR).
KERNEL = '''!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @three_waits(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant false
  %p0 = arith.constant 0 : i32
  %p1 = arith.constant 1 : i32
  %m0 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %m1 = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"() {name = "acc", role = "d"} : () -> !acc
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%m0) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%m0, %p0) : (!tcgen05.mbarrier, i32) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.commit"(%m1) : (!tcgen05.mbarrier) -> ()
  "tcgen05.mbarrier_wait"(%m1, %p0) : (!tcgen05.mbarrier, i32) -> ()
  scf.for %i = %c0 to %n step %c1 {
    "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    "tcgen05.commit"(%m0) : (!tcgen05.mbarrier) -> ()
    "tcgen05.mbarrier_wait"(%m0, %p1) : (!tcgen05.mbarrier, i32) -> ()
  }
  return
}
'''

#: One wait block as tcgen05-lower prints it: a predicate, a label, one try_wait on the
#: mbarrier's shared address and a parity, and a branch back while the phase is pending.
OURS = re.compile(r"\{ \.reg \.pred (\w+); (\w+): mbarrier\.try_wait\.parity\.shared::cta\.b64 "
                  r"\1, \[(%r\d+)\], (%r\d+); @!\1 bra \2; \}")


def our_ptx() -> str:
    """The kernel through the default pipeline without the sync passes: its
    synchronization is written by hand, and the test counts its waits."""
    pipeline = ",".join(p for p in DEFAULT_PIPELINE.split(",")
                        if p not in ("tcgen05-insert-sync", "tcgen05-verify-sync"))
    return compile_source(KERNEL, "waits.mlir", arch="sm_100a", pipeline=pipeline).ptx


def upstream_ptx(waits: int) -> str:
    """`waits` upstream nvvm.mbarrier.try_wait.parity ops in one kernel, lowered by
    convert-nvvm-to-llvm and printed by the same NVPTX backend as ours."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.parse("llvm.func @k(%bar: !llvm.ptr<3>, %parity: i32, "
                                 "%ticks: i32) attributes {nvvm.kernel} {\n  llvm.return\n}")
        block = module.body.operations[0].regions[0].blocks[0]
        with ir.InsertionPoint.at_block_begin(block):
            for _ in range(waits):
                nvvm.mbarrier_try_wait_parity(*block.arguments)
        PassManager.parse("builtin.module(convert-nvvm-to-llvm,reconcile-unrealized-casts)"
                          ).run(module.operation)
        llvm_ir = backend.translate_to_llvm_ir(module.operation)
    return backend.emit_ptx(llvm_ir, target="sm_100a", ptx_version=(8, 8))


def test_one_ptx_block_per_wait_with_the_loop_inside():
    ptx = our_ptx()
    blocks = OURS.findall(ptx)
    assert len(blocks) == 3, ptx
    # (predicate, label, mbarrier address, parity): the first and the last wait are on
    # %m0, the second on %m1.
    assert blocks[0][2] == blocks[2][2] != blocks[1][2]
    # No other try_wait anywhere (the loop is not also built around the block).
    assert ptx.count("mbarrier.try_wait") == 3


def wait_block(ptx: str) -> list[str]:
    """The statements of the first inline-assembly block of `ptx` that holds a try_wait:
    registers as R, the predicate as P, labels as L0, L1, ... in order of appearance, and
    the spellings that mean the same instruction made equal: ``.shared`` is
    ``.shared::cta`` (the default sub-space, 9.7.13.15.16), ``.uni`` only asserts that
    the branch is not divergent, and the optional suspend-time hint is left out."""
    blocks = re.findall(r"// begin inline asm(.*?)// end inline asm", ptx, re.S)
    body = next(b for b in blocks if "mbarrier.try_wait" in b)
    statements = []
    for part in re.split(r"[;\n{}]", body):
        text = re.sub(r"\s+", " ", part).strip()
        # "LABEL: instruction" is two statements.
        match = re.match(r"(\w+):\s*(.*)", text)
        if match:
            statements.append(match.group(1) + ":")
            text = match.group(2)
        if text and not text.startswith(".reg"):
            statements.append(text)
    labels = [s[:-1] for s in statements if s.endswith(":")]
    predicate = re.search(r"\.reg \.pred\s+(\w+)", body).group(1)
    out = []
    for text in statements:
        for i, label in enumerate(labels):
            text = re.sub(rf"\b{label}\b", f"L{i}", text)
        text = re.sub(rf"\b{predicate}\b", "P", text)
        text = re.sub(r"%(?:rd|r|p)\d+", "R", text)
        text = text.replace(".shared::cta.", ".shared.").replace("bra.uni", "bra")
        text = re.sub(r"(try_wait\.parity\.shared\.b64 P, \[R\], R), R$", r"\1", text)
        out.append(text)
    return out


#: The try_wait both sides issue, normalized by wait_block().
TRY_WAIT = "mbarrier.try_wait.parity.shared.b64 P, [R], R"


def test_same_wait_loop_as_upstream_nvvm():
    # Both retry the same try_wait until it reports the phase complete: ours branches back
    # while the predicate is false; upstream's branches out when it is true and back
    # otherwise.
    assert wait_block(our_ptx()) == ["L0:", TRY_WAIT, "@!P bra L0"]
    assert wait_block(upstream_ptx(1)) == ["L0:", TRY_WAIT, "@P bra L1", "bra L0", "L1:"]


@requires_ptxas
def test_ptxas_accepts_several_wait_blocks_in_one_kernel():
    for ptx in (our_ptx(), upstream_ptx(3)):
        result = backend.run_ptxas(ptx, arch="sm_100a")
        assert result.returncode == 0, result.stderr
