"""The ISA's semantic rules that the dialect's IRDL types cannot express, checked by the
tcgen05-verify pass (passes/tcgen05_verify.py, a thin driver over this package).

Runs first in the pipeline so that every later pass may assume well-formed input. Each
rule reports at the offending op with the rule's source (a table or section of PTX ISA
9.7.16) and the bad value, e.g. ``N = 250 is not a multiple of 8 for kind::f16,
cta_group::1 (Table 39)``.

Rules, by op:

- kernel: a tcgen05 target (9.7.16 Target ISA Notes), cta_group 1 or 2 and one
  warpgroup per CTA; every op that carries a cta_group carries the kernel's (one
  .cta_group per kernel, 9.7.16.7.1 and every instruction's description).
- mma: Table 39 (kind x .ws x cta_group x sparsity x types -> M, N, K, and K = 96);
  operand tiles (rows, K, k_offset); Table 52 (major-ness x type size x swizzle); Table 49
  (transpose / negate per kind) and Table 50 (N of an 8-bit transposed B); sparsity
  (metadata operand, selector 9.7.16.10.8.4); block scaling (Tables 54 and 55, scale types
  of Table 39, scale-factor IDs of Tables 43/44); .ws (collector ::b0-::b3, zero-column
  mask of Table 45, maximum shift of Table 42); collector ::a, .ashift, disable-output-lane,
  scale-input-d (9.7.16.10.9.1); and the Target ISA Notes of all of them (kind::i8, K = 96,
  .sp with mxf4 kinds, scale-input-d, .scale_vec::NX / .blockN).
- kernel cluster entry, its grid, tma_load multicast and commit masks in the cluster
  (clusters.py over tcgen05_lower/multicast.py).
- cp: shape x multicast and decompression formats (9.7.16.9.2), source tile shape.
- shift, commit (16-bit CTA mask within the cluster), ld / st / ld.red (Tables 47/48, the
  .red rules and targets of 9.7.16.8.3), alloc / dealloc (nCols a power of two in
  [32, 512], 9.7.16.7.1), wait, fence.

Forms the lowering does not emit yet are rejected with "not supported yet".

Operand conventions: TMEM buffers have the logical shape of the matrix they hold for the
whole CTA pair (D is M x N, A in TMEM is M x K); scale-factor and metadata buffers have
the MMA's M rows and the element type of their contents (the scale type of Table 39 for
scale_A and scale_B; the dialect's trailing operands share one type). Shared-memory tiles
are per CTA: with cta_group::2 each CTA holds M/2 rows of A and N/2 rows of B (9.7.16.10,
"B ... in Shared Memory of the current CTA and optionally in peer CTA"). A of a sparse MMA
is described by its logical K; it is stored compressed as M x K/2 (9.7.16.10.8).

The package owns these rules, one module per concern, each a mixin of the run of the pass
(which supplies ``error(where, message)`` and ``failed``); ``verifier.Verifier`` composes
them and walks each kernel once:

- ``verifier``: the walk, and which rule each op gets;
- ``target_features``: a feature against the kernel's target, the kernel's cta_group;
- ``buffers``: type parameters, attribute kinds, stages, buffer element types;
- ``roles``: threads, tcgen05.partitions and roles, mbarrier arrivals;
- ``runtime_shapes``: grid, argument alignment, global matrices, smem_fill;
- ``fragments``: ld / st / ld.red and the register-fragment ops;
- ``mma`` and ``mma_qualifiers``: Table 39 shapes and operand tiles; sparsity, block
  scaling, .ws and the other qualifiers, the instruction descriptor;
- ``collectors``: collector buffers along every path;
- ``copies``: tcgen05.cp and tcgen05.shift;
- ``barriers``: alloc / dealloc, wait, fence, commit, mbarriers;
- ``tma_loads``: TMA loads and their expected bytes;
- ``common``: constants and helpers shared by several of them.
"""

from tcgen05_lower.verification.verifier import Verifier

__all__ = ["Verifier"]
