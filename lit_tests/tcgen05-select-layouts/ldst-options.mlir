// tcgen05-select-layouts options: the ld/st strategy (max-width | register-budget=R), a
// pass-wide message shape, and their errors.
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts{strategy=register-budget=16}' | FileCheck %s --check-prefix=B16
// RUN: tcgen05-opt %s -p 'tcgen05-select-layouts{shape=16x256b}' | FileCheck %s --check-prefix=SHAPE
// RUN: not tcgen05-opt %s -p 'tcgen05-select-layouts{strategy=bogus}' 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not tcgen05-opt %s -p 'tcgen05-select-layouts{strategy=register-budget}' 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// RUN: not tcgen05-opt %s -p 'tcgen05-select-layouts{layout-c=X}' 2>&1 | FileCheck %s --check-prefix=LAYOUTC
// RUN: not tcgen05-opt %s -p 'tcgen05-select-layouts{strategy=register-budget=2 shape=16x256b}' 2>&1 | FileCheck %s --check-prefix=TOOSMALL

// 64 f32 columns of Layout D, 64 registers per thread: a budget of 16 makes four pairs.
// B16-LABEL: func.func @epilogue
// B16-COUNT-4: "tcgen05.ld"{{.*}} {num = 16 : i64, shape = "32x32b"} {{.*}} -> !tcgen05.frag<[128, 16], f32>
// B16-NOT: "tcgen05.ld"

// .16x256b on a full-datapath layout: two messages per warp (lanes 32w and 32w + 16);
// 64 columns in 32-register messages (.x8) under the default budget of 32 registers:
// two pairs of 32 columns, each .16x256b.x4 x 2 lane halves.
// SHAPE-LABEL: func.func @epilogue
// SHAPE-COUNT-2: "tcgen05.ld"{{.*}} {num = 4 : i64, shape = "16x256b"} {{.*}} -> !tcgen05.frag<[128, 32], f32>

// BOGUS: tcgen05-opt: error: pass 'tcgen05-select-layouts' option 'strategy' expects max-width or register-budget=R (R registers per thread), got 'bogus': unknown ld/st strategy 'bogus'; the strategies are max-width and register-budget=R
// BOGUS-NOT: Traceback
// NOBUDGET: tcgen05-opt: error: pass 'tcgen05-select-layouts' option 'strategy' expects max-width or register-budget=R (R registers per thread), got 'register-budget': register-budget needs a register count, as in register-budget=32{{$}}
// LAYOUTC: tcgen05-opt: error: pass 'tcgen05-select-layouts' option 'layout-c' expects one of F, B, got 'X'
// TOOSMALL: error: register-budget=2: no chunk of this 64-column slice fits in 2 registers per thread with .16x256b messages (Table 47)
func.func @epilogue(%dst: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %acc = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %f = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 64], f32>, index) -> !tcgen05.frag<[128, 64], f32>
  "tcgen05.store_fragment"(%f, %dst, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
  return
}
