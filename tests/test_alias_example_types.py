"""tests/alias_example_types.py, the rewrite of a kernel into the examples' type-alias style:
the text it writes (expected text written by hand from the rules of its docstring) and that
the rewritten kernel compiles to the same PTX as the original (the compiler run on both)."""

from __future__ import annotations

import pytest

from tcgen05_lower.driver import compile_source

from alias_example_types import with_aliases
from conftest import ROOT, example_pipeline

SOURCE = '''\
// A comment that names !tcgen05.smem<[128, 64], bf16, "K", "128B"> stays as written.
func.func @k(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], bf16, "MN", "128B">
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>,
         !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  %f = "tcgen05.ld"(%acc, %col)
      : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 32], f32>
  return
}
'''

#: By hand: the alias block after the comment (pointers, then shared memory in order of
#: first use, tensor memory, fragments); the MN-major tile names its major and swizzle;
#: the fill's two signature lines become one (the op's line plus it would be 117 columns,
#: over 100), the ld's signature joins its op's line (80 columns).
EXPECTED = '''\
// A comment that names !tcgen05.smem<[128, 64], bf16, "K", "128B"> stays as written.

!gptr = !llvm.ptr<1>
!smem_64x128xbf16_mn_128b = !tcgen05.smem<[64, 128], bf16, "MN", "128B">
!smem_128x64xbf16 = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!tmem_128x256xf32 = !tcgen05.tmem<[128, 256], f32>
!frag_128x32xf32 = !tcgen05.frag<[128, 32], f32>

func.func @k(%A: !gptr)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %b = "tcgen05.smem_buffer"() : () -> !smem_64x128xbf16_mn_128b
  %a = "tcgen05.smem_buffer"() : () -> !smem_128x64xbf16
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!gptr, !smem_128x64xbf16, index) -> ()
  %f = "tcgen05.ld"(%acc, %col) : (!tmem_128x256xf32, index) -> !frag_128x32xf32
  return
}
'''


def test_the_rewrite_writes_the_alias_block_and_joins_signatures():
    assert with_aliases(SOURCE) == EXPECTED


def test_a_kernel_without_aliasable_types_is_unchanged():
    text = "func.func @k() {\n  return\n}\n"
    assert with_aliases(text) == text


@pytest.mark.parametrize("kernel", ["gemm_tf32_128x256", "attention_stats_in_tmem",
                                    "ring_tma", "ws_persistent_gemm_bf16_hand"])
def test_a_rewritten_kernel_compiles_to_the_same_ptx(kernel):
    path = ROOT / "tests" / "kernels" / f"{kernel}.mlir"
    text = path.read_text()
    aliased = with_aliases(text)
    assert "!tcgen05.smem<[" in text and aliased.count("!tcgen05.smem<[") < text.count(
        "!tcgen05.smem<[")   # the kernel was written with full types, and now is not
    pipeline = example_pipeline(path)
    before = compile_source(text, path.name, arch="sm_100a", pipeline=pipeline).ptx
    after = compile_source(aliased, path.name, arch="sm_100a", pipeline=pipeline).ptx
    assert after == before
