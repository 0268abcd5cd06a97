// In a cta_group::2 kernel each CTA's shared-memory tile is its slice of the pair's MMA
// operand (docs/cta-pairs.md), which its smem_fill reads from rows rank * R of the source.
// A tile no MMA reads as A or B has no defined split.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// The source of a tcgen05.cp.cta_group::2 into a buffer no MMA reads as a scale: each CTA's
// tile goes into its own tensor memory (9.7.16.9.2), but neither "this CTA's rows" nor "the
// whole tile" is defined for it.
func.func @fill_of_a_copy_source(%S: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %t = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 32], f32>
  %s = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], i8, "K", "none">
  // expected-error @+1 {{in a cta_group::2 kernel a shared-memory tile is filled as this CTA's slice of an MMA operand (rows rank * R .., docs/cta-pairs.md), but no tcgen05.mma reads this tile as A or B, so how the pair splits it is not defined (only a TMA-loaded tile that tcgen05.cp.cta_group::2 copies into MMAs' scale_A buffers only, or scale_B buffers only, has a split: the CTA's rows, or the whole tile in each CTA; 9.7.16.9.2, tmem-facts section 3)}}
  "tcgen05.smem_fill"(%S, %s, %c0) {src_layout = "mn_k", src_ld = 16 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 16], i8, "K", "none">, index) -> ()
  "tcgen05.cp"(%t, %s) {shape = "128x128b"} : (!tcgen05.tmem<[256, 32], f32>, !tcgen05.smem<[128, 16], i8, "K", "none">) -> ()
  return
}

// -----

// The tiles of the pair's MMA: accepted.
func.func @fill_of_mma_tiles(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 128], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 128 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[64, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%d, %a, %b, %p) {kind = "f16"} : (!tcgen05.tmem<[256, 128], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.smem<[64, 64], bf16, "K", "128B">, i1) -> ()
  return
}

// -----

// A wait runs in the CTAs that the commits to its mbarrier signal, so in a pair kernel all
// commits to one mbarrier must signal the same CTAs: a plain commit signals the issuing
// CTA's mbarrier only, mask 0b11 both (9.7.16.12.1).
func.func @commit_masks_disagree() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  // expected-error @below {{this tcgen05.commit signals the issuing CTA's only (no multicast_mask), but the commit at line 44 to the same mbarrier signals multicast_mask = 0b11: the CTAs waiting on one mbarrier must be those every commit to it signals (9.7.16.12.1)}}
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  // expected-error @below {{this tcgen05.commit signals multicast_mask = 0b11, but the commit at line 42 to the same mbarrier signals the issuing CTA's only (no multicast_mask)}}
  "tcgen05.commit"(%bar) {multicast_mask = 3 : i64} : (!tcgen05.mbarrier) -> ()
  return
}

// -----

// A mask naming the issuing CTA alone (bit 0, the even CTA) is the plain commit's.
func.func @commit_masks_agree() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64}} {
  %bar = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.commit"(%bar) : (!tcgen05.mbarrier) -> ()
  "tcgen05.commit"(%bar) {multicast_mask = 1 : i64} : (!tcgen05.mbarrier) -> ()
  return
}
