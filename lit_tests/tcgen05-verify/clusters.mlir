// tcgen05-verify's rules for a kernel's cluster and its TMA multicast loads
// (tcgen05_lower/multicast.py, docs/tma.md "Multicast across a cluster"): the cluster a
// launch can have (CUDA's portable maximum of 8 CTAs, CUDA C++ Programming Guide "Thread
// Block Clusters"; pairs along x, 9.7.16.5.1), a grid of whole clusters, a multicast
// along a dimension where the tile has sharers, and commit masks inside the cluster.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// 16 CTAs: twice the portable maximum.
// expected-error @+1 {{tcgen05.kernel.cluster = [4, 4] has 16 CTAs, more than the portable maximum of 8 (CUDA C++ Programming Guide, "Thread Block Clusters")}}
func.func @cluster_too_large() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 4, 4>}} {
  return
}

// -----

// A CTA pair is two CTAs along x (ranks 2p, 2p + 1): x = 3 splits a pair.
// expected-error @+1 {{tcgen05.kernel.cluster = [3, 2]: a cta_group::2 kernel runs CTA pairs, two CTAs along x whose %cluster_ctarank differs in bit 0 (9.7.16.5.1), so x must be even, not 3}}
func.func @cluster_splits_a_pair() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 3, 2>}} {
  return
}

// -----

// expected-error @+1 {{tcgen05.kernel.cluster = [2, 0, 1] is not two positive extents [x, y] (the cluster's CTAs along x and y)}}
func.func @cluster_malformed() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 2, 0, 1>}} {
  return
}

// -----

// A grid of 6 x 3 CTAs is not whole 4 x 2 clusters (3 along y).
// expected-error @+1 {{tcgen05.kernel.grid: the grid's y dimension 3 is not a multiple of the cluster's 2 CTAs along y: a grid is launched as whole clusters}}
func.func @grid_not_whole_clusters() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 4, 2>, grid = ["8", "3"]}} {
  return
}

// -----

func.func @multicast_without_sharers(%tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 4, 1>}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  // A 4 x 1 cluster has one pair along y: nothing to share A with there.
  // expected-error @+1 {{multicast = "y": the cluster [4, 1] has no other CTA pair along y to share the tile with (write the kernel's cluster = array<i32: x, y>)}}
  "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) {multicast = "y"}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @multicast_dimension(%tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 2, 2>}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  // expected-error @+1 {{multicast = "z" is not "x" or "y" (the cluster dimension the tile is shared along)}}
  "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) {multicast = "z"}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

func.func @multicast_single_cta(%tmA: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "A", box = array<i64: 64, 128>, swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64, cluster = array<i32: 2, 1>}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  "tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()
  // A cluster of single CTAs multicasts along a dimension of more than one CTA: along x
  // here (accepted), not along y, where the 2 x 1 cluster has one CTA.
  "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) {multicast = "x"}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  // expected-error @+1 {{multicast = "y": the cluster [2, 1] has no other CTA along y to share the tile with (write the kernel's cluster = array<i32: x, y>)}}
  "tcgen05.tma_load"(%tmA, %a, %full, %c0, %c0) {multicast = "y"}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, !tcgen05.mbarrier, index, index) -> ()
  return
}

// -----

// 9.7.16.12.1: bit i of the 16-bit ctaMask is %cluster_ctarank i; the cluster is 2 x 2.
func.func @commit_mask_outside_cluster() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 2 : i64, cluster = array<i32: 2, 2>}} {
  %bar = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier
  // expected-error @+1 {{multicast_mask = 0x13 names CTAs beyond this kernel's cluster of 4 (bit i is %cluster_ctarank i, 9.7.16.12.1)}}
  "tcgen05.commit"(%bar) {multicast_mask = 0x13 : i64} : (!tcgen05.mbarrier) -> ()
  return
}
