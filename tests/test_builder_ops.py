"""The builder's calls for the tcgen05 ops no example uses (tcgen05.cp in every form,
tcgen05.shift, tcgen05.ld_red, load_fragment) give the PTX of the same kernel written as
MLIR text: the text of lit_tests/forms/cp.mlir and lit_tests/ldst/ld-red.mlir (plus a
shift), compiled as it is."""

from tcgen05_lower.builder import KernelBuilder
from tcgen05_lower.driver import compile_source

CP_FORMS = """
!t = !tcgen05.tmem<[128, 64], f32>
!s256 = !tcgen05.smem<[128, 32], i8, "K", "none">
!s4 = !tcgen05.smem<[4, 32], i8, "K", "none">
!s128 = !tcgen05.smem<[128, 16], f8E4M3FN, "K", "none">
!s6 = !tcgen05.smem<[128, 16], f6E2M3FN, "K", "none">
!s64 = !tcgen05.smem<[64, 4], f32, "K", "none">
!s32 = !tcgen05.smem<[32, 16], f4E2M1FN, "K", "none">
func.func @cp_forms() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %t = "tcgen05.tmem_buffer"() : () -> !t
  %a = "tcgen05.smem_buffer"() : () -> !s256
  %b = "tcgen05.smem_buffer"() : () -> !s4
  %c = "tcgen05.smem_buffer"() : () -> !s128
  %e = "tcgen05.smem_buffer"() : () -> !s6
  %f = "tcgen05.smem_buffer"() : () -> !s64
  %g = "tcgen05.smem_buffer"() : () -> !s32
  "tcgen05.cp"(%t, %a) {shape = "128x256b"} : (!t, !s256) -> ()
  "tcgen05.cp"(%t, %b) {shape = "4x256b", column = 8 : i64} : (!t, !s4) -> ()
  "tcgen05.cp"(%t, %c) {shape = "128x128b", column = 16 : i64} : (!t, !s128) -> ()
  "tcgen05.cp"(%t, %e) {shape = "128x128b", decompress = "b6x16_p32", column = 20 : i64} : (!t, !s6) -> ()
  "tcgen05.cp"(%t, %f) {shape = "64x128b", multicast = "warpx2::02_13", column = 24 : i64} : (!t, !s64) -> ()
  "tcgen05.cp"(%t, %f) {shape = "64x128b", multicast = "warpx2::01_23", column = 28 : i64} : (!t, !s64) -> ()
  "tcgen05.cp"(%t, %g) {shape = "32x128b", multicast = "warpx4", column = 32 : i64} : (!t, !s32) -> ()
  "tcgen05.cp"(%t, %g) {shape = "32x128b", multicast = "warpx4", decompress = "b4x16_p64", column = 36 : i64} : (!t, !s32) -> ()
  "tcgen05.shift"(%t) : (!t) -> ()
  return
}
"""

ROW_MAX_ABS = """
func.func @row_max_abs(%src: !llvm.ptr<1>, %rowmax: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %buf = "tcgen05.tmem_buffer"() {name = "buf"} : () -> !tcgen05.tmem<[128, 256], f32>
  %in = "tcgen05.load_fragment"(%src, %c0) {ld = 256 : i64} : (!llvm.ptr<1>, index) -> !tcgen05.frag<[128, 256], f32>
  "tcgen05.st"(%buf, %c0, %in) : (!tcgen05.tmem<[128, 256], f32>, index, !tcgen05.frag<[128, 256], f32>) -> ()
  %frag, %red = "tcgen05.ld_red"(%buf, %c0) {op = "max", abs = true, nan = true}
      : (!tcgen05.tmem<[128, 256], f32>, index) -> (!tcgen05.frag<[128, 256], f32>, !tcgen05.frag<[128, 1], f32>)
  "tcgen05.store_fragment"(%red, %rowmax, %c0) {ld = 1 : i64} : (!tcgen05.frag<[128, 1], f32>, !llvm.ptr<1>, index) -> ()
  return
}
"""


def test_cp_in_every_form_and_shift_give_the_ptx_of_the_text():
    k = KernelBuilder("cp_forms")
    t = k.tmem([128, 64], "f32")
    a = k.smem([128, 32], "i8", swizzle="none")
    b = k.smem([4, 32], "i8", swizzle="none")
    c = k.smem([128, 16], "f8E4M3FN", swizzle="none")
    e = k.smem([128, 16], "f6E2M3FN", swizzle="none")
    f = k.smem([64, 4], "f32", swizzle="none")
    g = k.smem([32, 16], "f4E2M1FN", swizzle="none")
    k.cp(t, a, shape="128x256b")
    k.cp(t, b, shape="4x256b", column=8)
    k.cp(t, c, shape="128x128b", column=16)
    k.cp(t, e, shape="128x128b", decompress="b6x16_p32", column=20)
    k.cp(t, f, shape="64x128b", multicast="warpx2::02_13", column=24)
    k.cp(t, f, shape="64x128b", multicast="warpx2::01_23", column=28)
    k.cp(t, g, shape="32x128b", multicast="warpx4", column=32)
    k.cp(t, g, shape="32x128b", multicast="warpx4", decompress="b4x16_p64", column=36)
    k.shift(t)
    built = k.compile(arch="sm_100a").ptx
    assert built.count("tcgen05.cp.") == 8 and "tcgen05.shift" in built
    assert built == compile_source(CP_FORMS, "cp_forms.mlir", arch="sm_100a").ptx


def test_ld_red_and_load_fragment_give_the_ptx_of_the_text():
    k = KernelBuilder("row_max_abs", target="sm_103a",
                      params={"src": "!llvm.ptr<1>", "rowmax": "!llvm.ptr<1>"})
    buf = k.tmem([128, 256], "f32", name="buf")
    k.st(buf, 0, k.load_fragment("src", 0, [128, 256], "f32", ld=256))
    _, row_max = k.ld_red(buf, 0, 256, op="max", abs=True, nan=True)
    k.store_fragment(row_max, "rowmax", 0, ld=1)
    built = k.compile(arch="sm_103a").ptx
    assert "tcgen05.ld.red" in built
    assert built == compile_source(ROW_MAX_ABS, "ld-red.mlir", arch="sm_103a").ptx
