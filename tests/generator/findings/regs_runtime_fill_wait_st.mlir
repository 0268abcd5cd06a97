// A finding of the kernel generator, fixed (docs/fuzzing.md, Findings): A read from
// global memory and stored with tcgen05.st, then B filled with run-time extents (K = 41
// straddles a 16-byte vector); tcgen05.wait::st comes after the fill, and tcgen05-sim
// reported it executed by only part of warp 0 while the fill's element copy branched
// (it is warp-uniform now; a-regs-fill-wait-st in tests/test_generated_kernels.py).
// The kernel of the spec below (sizes M = 92, N = 50, K = 41, lda = ldb = 48, ldc = 51);
// reproduce with its inputs: cd tests && python -c "from generator import kernelgen as
// kg, check; print(check.run_spec(kg.Spec(a_src='regs', shapes='runtime', seed=3)))"
// dtype=bf16,m=128,n=64,b_major=nk,a_src=regs,program=uniform,load=fill,ring=1,acc_stages=1,ctas=1,shapes=runtime,out=f32,bias=none,act=none,scale=False,kblocks=1,tiles=1,cluster=none,rowred=none,ld_shape=auto,seed=3
func.func @gen_kernel(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>, %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64, grid = ["ceildiv(N, 64)", "ceildiv(M, 128)"]}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m_sz = arith.index_castui %M : i32 to index
  %n_sz = arith.index_castui %N : i32 to index
  %k_sz = arith.index_castui %K : i32 to index
  %a_ld = arith.index_castui %lda : i32 to index
  %b_ld = arith.index_castui %ldb : i32 to index
  %c_ld = arith.index_castui %ldc : i32 to index
  %tile_m = gpu.block_id y
  %tile_n = gpu.block_id x
  %m0 = arith.muli %tile_m, %c128 : index
  %n0 = arith.muli %tile_n, %c64 : index
  %true = arith.constant true
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %at = "tcgen05.tmem_buffer"() {name = "a"} : () -> !tcgen05.tmem<[128, 64], bf16>
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 64], f32>
  %nt = arith.addi %n0, %c0 : index
  scf.for %k = %c0 to %k_sz step %c64 {
    %af = "tcgen05.load_fragment"(%A, %k, %a_ld, %m0, %m_sz, %k_sz) {dims = ["ld", "row_offset", "rows", "columns"]} : (!llvm.ptr<1>, index, index, index, index, index) -> !tcgen05.frag<[128, 64], bf16>
    "tcgen05.st"(%at, %c0, %af) : (!tcgen05.tmem<[128, 64], bf16>, index, !tcgen05.frag<[128, 64], bf16>) -> ()
    "tcgen05.smem_fill"(%B, %b, %k, %b_ld, %nt, %n_sz, %k_sz) {src_layout = "mn_k", dims = ["src_ld", "row_offset", "rows", "k_size"]} : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index, index, index, index, index) -> ()
    %not_first = arith.cmpi ne, %k, %c0 : index
    "tcgen05.mma"(%acc, %at, %b, %not_first) {kind = "f16", k_offset = 0 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %at, %b, %true) {kind = "f16", k_offset = 16 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %at, %b, %true) {kind = "f16", k_offset = 32 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
    "tcgen05.mma"(%acc, %at, %b, %true) {kind = "f16", k_offset = 48 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.tmem<[128, 64], bf16>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  }
  scf.for %col = %c0 to %c64 step %c32 {
    %frag = "tcgen05.ld"(%acc, %col) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 32], f32>
    "tcgen05.store_fragment"(%frag, %C, %col, %c_ld, %m0, %nt, %m_sz, %n_sz) {dims = ["ld", "row_offset", "column_offset", "rows", "columns"]} : (!tcgen05.frag<[128, 32], f32>, !llvm.ptr<1>, index, index, index, index, index, index) -> ()
  }
  return
}
