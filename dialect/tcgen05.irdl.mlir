// The tcgen05 dialect: tensor-memory buffers and the 5th-generation tensor-core operations
// of PTX ISA section 9.7.16, at two levels.
//
// Logical level (what users write): TMEM buffers with a shape and no placement, shared-memory
// operand tiles, MMAs and warpgroup loads that name buffers, and (optionally) sync ops.
// Planned level (what the passes produce): the same ops with their decisions written into
// attributes (layout, lane/column placement, ld shape), plus the physical allocation ops and
// the sync ops that tcgen05-insert-sync adds.
//
// Note on IRDL: a constraint value used twice constrains both uses to the *same*
// attribute or type, so every operand and attribute below has a constraint of its own.
//
// This file is the source of truth for the ops' operands, results and required attributes;
// dialect/__init__.py documents every op for Python users, and tcgen05-verify checks the
// ISA's semantic rules that IRDL cannot express.
irdl.dialect @tcgen05 {
  // ---------------------------------------------------------------- types

  // A logical tensor-memory buffer: !tcgen05.tmem<[128, 256], f32>.
  // A leading third dimension is a stage count (multi-buffered accumulator).
  irdl.type @tmem {
    %shape = irdl.base "#builtin.array"
    %element = irdl.any
    irdl.parameters(shape: %shape, element: %element)
  }

  // A shared-memory operand tile, rows x K with rows = M (for A) or N (for B), with an
  // optional leading stage count ([stages, rows, K], a ring used through smem_stage):
  // !tcgen05.smem<[128, 64], bf16, "K", "128B">. Major-ness is "K" or "MN"; swizzle is
  // one of "none", "32B", "64B", "128B", "128B_base32B" (Table 40).
  irdl.type @smem {
    %shape = irdl.base "#builtin.array"
    %element = irdl.any
    %major = irdl.base "#builtin.string"
    %swizzle = irdl.base "#builtin.string"
    irdl.parameters(shape: %shape, element: %element, major: %major, swizzle: %swizzle)
  }

  // The registers of a warpgroup that hold a rows x columns slice of a TMEM buffer after
  // tcgen05.ld: !tcgen05.frag<[128, 32], f32>. How registers map to elements is decided by
  // tcgen05-select-layouts (the ld shape) and applied by the lowering.
  irdl.type @frag {
    %shape = irdl.base "#builtin.array"
    %element = irdl.any
    irdl.parameters(shape: %shape, element: %element)
  }

  // An mbarrier object in shared memory.
  irdl.type @mbarrier {
  }

  // ---------------------------------------------------------------- logical ops

  // A logical TMEM buffer. After tcgen05-plan-tmem it takes the allocation's base address
  // as operand and carries lane_offset / column_offset attributes.
  // With alias = "X" it has no cells of its own: it names the cells of the buffer whose
  // name is X (declared before it, not itself an alias), with its own element type, shape
  // and role, alias_column 32-bit columns into each stage of X and on X's lanes (so the
  // same rows, stage count and data-path layout as X, and its footprint inside X's).
  // FlashAttention-4's P written as bf16 over the f32 scores S it was computed from.
  // tcgen05-plan-tmem places X only and counts every access to the alias as one to X.
  irdl.operation @tmem_buffer {
    %i32 = irdl.is i32
    %t = irdl.base @tcgen05::@tmem
    irdl.operands(base: optional %i32)
    irdl.results(buffer: %t)
  }

  // One stage of a multi-buffered TMEM buffer: operand 0 has shape [stages, rows, cols],
  // the result is the [rows, cols] buffer of stage `stage` (a dynamic index). Where the
  // stages live is tcgen05-plan-tmem's decision.
  irdl.operation @tmem_stage {
    %t = irdl.base @tcgen05::@tmem
    %index = irdl.is index
    %r = irdl.base @tcgen05::@tmem
    irdl.operands(buffer: %t, stage: %index)
    irdl.results(view: %r)
  }

  // A shared-memory operand tile (placed in dynamic shared memory by the lowering). A
  // multi-stage tile !tcgen05.smem<[stages, rows, K], ...> is a ring of `stages` tiles of
  // [rows, K], each aligned as its swizzle requires; it is used through smem_stage only.
  irdl.operation @smem_buffer {
    %s = irdl.base @tcgen05::@smem
    irdl.results(buffer: %s)
  }

  // One stage of a multi-stage shared-memory tile: operand 0 has shape [stages, rows, K],
  // the result is the [rows, K] tile of stage `stage` (an index, constant or computed at
  // run time), of the same element type, major-ness and swizzle. Its address is the
  // tile's plus stage * the stage's bytes rounded up to where the swizzle's pattern
  // repeats (Table 41: 1024 bytes for 128B, 512 for 64B, 256 for 32B; 16 without), so
  // every stage's descriptors have base offset 0. A TMA load into a stage has a box of
  // one stage. tcgen05-insert-sync and tcgen05-verify-sync count a stage as its whole
  // tile: accesses to different stages are ordered as if they met (never less).
  irdl.operation @smem_stage {
    %t = irdl.base @tcgen05::@smem
    %index = irdl.is index
    %r = irdl.base @tcgen05::@smem
    irdl.operands(tile: %t, stage: %index)
    irdl.results(view: %r)
  }

  // Cooperative copy of a global matrix into a shared-memory tile in the tile's declared
  // layout (major-ness and swizzle), by all threads of the CTA. src_layout says how the
  // global matrix is stored: "mn_k" (rows of the tile contiguous along K) or "k_mn"
  // (the transpose); k_offset is the tile's first K index in the global matrix. The
  // trailing index operands `dim_values` are named, in order, by the attribute dims (any of
  // "src_ld", "row_offset", "rows", "k_size"): src_ld is the matrix's leading dimension
  // in elements (an attribute src_ld when it is a constant, else named in dims);
  // row_offset the tile's first row (M or N index) in the matrix (default 0); rows and
  // k_size the matrix's extents: elements of the tile outside them are zero-filled and
  // never read (by default nothing is outside). A "k_mn" fill of a K-major tile (the
  // transposing one) reads 16-byte chunks along M/N when the source is a kernel argument
  // with llvm.align >= 16, src_ld and row_offset are constants that keep every chunk
  // 16-byte aligned, and no extents are given; otherwise it reads element by element.
  irdl.operation @smem_fill {
    %ptr = irdl.base "!llvm.ptr"
    %s = irdl.base @tcgen05::@smem
    %index = irdl.is index
    %dim = irdl.any
    %str = irdl.base "#builtin.string"
    irdl.operands(source: %ptr, tile: %s, k_offset: %index, dim_values: variadic %dim)
    irdl.attributes { "src_layout" = %str }
  }

  // TMA load: copies a box of a global tensor into a shared-memory tile through the async
  // proxy, issued by one thread: cp.async.bulk.tensor.2d.shared::cluster.global.tile
  // .mbarrier::complete_tx::bytes (PTX ISA 9.7.9.25.5.1). tensor_map is a kernel parameter
  // (!llvm.ptr<1>, the global address of a 64-byte aligned CUtensorMap) that carries the
  // argument attribute tcgen05.tensor_map = {tensor = "<array parameter>", box = array<i64:
  // inner, outer>, swizzle = "128B"|"64B"|"32B"} (docs/tma.md); the box must be the tile
  // ({K, rows} for a K-major tile, {rows, K} for an MN-major one) and the swizzle the
  // tile's. coordinates are the element coordinates of the box's first element, innermost
  // dimension first as PTX orders them ({k, row} for a K-major tile of a K-contiguous
  // matrix, {row, k} for an MN-major tile of an M- or N-contiguous one). The copy signals complete_tx
  // of the tile's bytes on its mbarrier, whose phase must expect them (mbarrier_expect_tx).
  // The operands after the tile are the mbarrier, then the coordinates; the mbarrier may
  // be left out (the coordinates follow the tile) in a kernel with warp roles that writes
  // no synchronization: tcgen05-insert-sync then chooses it (the stage's full mbarrier)
  // and writes it in. Operand 2 (`barrier`) is the mbarrier, or without one the first
  // coordinate: its type says which (tcgen05_lower.tma.load_barrier / load_coordinates),
  // so neither form needs an operandSegmentSizes attribute (an optional group before a
  // variadic one would), and a load with its mbarrier reads as before (operand 2 its
  // mbarrier, operands 3.. its coordinates); tcgen05-verify checks its type (IRDL's
  // any_of takes no dialect type here). A
  // load without an mbarrier is refused where nothing can add one: by tcgen05-verify
  // outside tcgen05.partitions, and by tcgen05-insert-sync{strategy=none},
  // tcgen05-verify-sync and the lowering. Optional multicast ("x" or "y", a kernel
  // with a cluster): the tile is the same in every CTA along that cluster dimension;
  // the CTAs at its first position load it once for all with .multicast::cluster
  // (PTX ISA 9.7.9.25.5.1; tcgen05_lower/multicast.py, docs/tma.md).
  irdl.operation @tma_load {
    %ptr = irdl.base "!llvm.ptr"
    %s = irdl.base @tcgen05::@smem
    %operand = irdl.any
    %index = irdl.is index
    irdl.operands(tensor_map: %ptr, tile: %s, barrier: %operand,
                  coordinates: variadic %index)
  }

  // mbarrier.arrive.expect_tx.shared::cta.b64 by one thread: one arrival on the mbarrier
  // plus the transaction bytes the phase waits for (PTX ISA 9.7.13.15.11 and .13). bytes
  // defaults to the tiles of the tcgen05.tma_load ops that follow it on the same mbarrier
  // in its block, up to the next expect_tx, wait or commit on that mbarrier; written, it
  // must equal them (tcgen05-verify).
  irdl.operation @mbarrier_expect_tx {
    %m = irdl.base @tcgen05::@mbarrier
    irdl.operands(barrier: %m)
  }

  // D (+)= A x B on the tensor core, issued by one thread (Table 46). D is a TMEM buffer,
  // A a shared-memory tile or a TMEM buffer, B a shared-memory tile. M and N come from D's
  // shape, K from the kind (Table 39). Optional TMEM operands, in this order and only when
  // the kind and attributes ask for them: scale_a and scale_b (the block-scaled kinds
  // mxf8f6f4, mxf4 and mxf4nvf4), then the sparsity metadata (attribute sparse), each
  // with a constraint of its own, so that a sparse block-scaled MMA declares its scale
  // factors with their element type and its metadata as i32.
  // Everything else of the instruction is an attribute (docs/ops.md lists them).
  // Three optional groups need IRDL's operandSegmentSizes attribute (one entry per group:
  // 1, 1, 1, 1, then 0 or 1 for scale_a, scale_b and metadata). Nobody has to write it:
  // the project's parser supplies it from the number of operands (4: none, 5: metadata,
  // 6: the scale factors, 7: all three), the op classes' build() supplies it, and the
  // tools leave it out of the IR they print (tcgen05_lower/segments.py).
  irdl.operation @mma {
    %t = irdl.base @tcgen05::@tmem
    %s = irdl.base @tcgen05::@smem
    // A is a TMEM buffer or a shared-memory tile; tcgen05-verify checks which (MLIR 22.1's
    // IRDL loader cannot combine base constraints on dialect types with any_of).
    %a = irdl.any
    %i1 = irdl.is i1
    %scale_a = irdl.base @tcgen05::@tmem
    %scale_b = irdl.base @tcgen05::@tmem
    %metadata = irdl.base @tcgen05::@tmem
    %str = irdl.base "#builtin.string"
    irdl.operands(d: %t, a: %a, b: %s, enable_input_d: %i1, scale_a: optional %scale_a,
                  scale_b: optional %scale_b, metadata: optional %metadata)
    irdl.attributes { "kind" = %str }
  }

  // tcgen05.cp: asynchronous copy of a shared-memory tile into a TMEM buffer by one thread
  // (9.7.16.9.2). Attribute shape ("128x256b", "4x256b", "128x128b", "64x128b",
  // "32x128b"); optional multicast ("warpx2::02_13", "warpx2::01_23", "warpx4") and
  // decompress ("b6x16_p32", "b4x16_p64"); optional column (first column of the buffer).
  irdl.operation @cp {
    %t = irdl.base @tcgen05::@tmem
    %s = irdl.base @tcgen05::@smem
    %str = irdl.base "#builtin.string"
    irdl.operands(dest: %t, source: %s)
    irdl.attributes { "shape" = %str }
  }

  // tcgen05.shift.down: shifts the rows of each 32-lane quarter of a TMEM buffer down by
  // one lane, across all its columns (9.7.16.9.3: one instruction moves one 32-byte
  // element of the 32 lanes from its address; the lowering issues one per quarter and per
  // 8 columns). Row 32q + 31 does not move into the next quarter.
  irdl.operation @shift {
    %t = irdl.base @tcgen05::@tmem
    irdl.operands(buffer: %t)
  }

  // Warpgroup load of columns [column, column + N) of a TMEM buffer into registers.
  // tcgen05-select-layouts adds the message shape and .num.
  irdl.operation @ld {
    %t = irdl.base @tcgen05::@tmem
    %index = irdl.is index
    %f = irdl.base @tcgen05::@frag
    irdl.operands(source: %t, column: %index)
    irdl.results(fragment: %f)
  }

  // Stores a fragment to a row-major global matrix: element (r, c) of the fragment goes to
  // dest[(row_offset + r) * ld + column_offset + column + c]. The trailing index operands
  // `dim_values` are named, in order, by the attribute dims (any of "ld", "row_offset",
  // "column_offset", "rows", "columns"): ld is the row stride in elements (an attribute
  // ld when it is a constant, else named in dims), the offsets default to 0, and rows
  // and columns are the matrix's extents: an element outside them is not stored. When
  // dest is a kernel argument with llvm.align >= 16 (`%C: !llvm.ptr<1> {llvm.align = 16 :
  // i64}`, a promise of the caller), ld is a constant multiple of 4, column and
  // column_offset are multiples of 4 the compiler can prove (constants, or sums and
  // products of them and of loop induction variables with such bounds and steps, as in
  // t * 256 + col), there are no extents and the elements are 32-bit, each thread's 4
  // consecutive columns from a 16-byte boundary go out as one st.global.v4.b32. With
  // extents or a run-time ld, a fragment of consecutive 32-bit columns per thread (layout
  // D) is tested at run time instead: where the pointer, ld * 4 and the column offsets * 4
  // are multiples of 16 bytes (the parts not known to be) and its columns all lie inside
  // `columns`, it goes out as 16-byte stores predicated on the thread's row; otherwise
  // element by element.
  irdl.operation @store_fragment {
    %f = irdl.base @tcgen05::@frag
    %ptr = irdl.base "!llvm.ptr"
    %index = irdl.is index
    %dim = irdl.any
    irdl.operands(fragment: %f, dest: %ptr, column: %index, dim_values: variadic %dim)
  }

  // Warpgroup load with a reduction across the loaded columns of each lane
  // (tcgen05.ld.red, 9.7.16.8.3): the fragment and, per row, the min or max of its columns.
  // Attributes: op ("min" | "max"), optional abs and nan (f32 only).
  irdl.operation @ld_red {
    %t = irdl.base @tcgen05::@tmem
    %index = irdl.is index
    %f = irdl.base @tcgen05::@frag
    %r = irdl.base @tcgen05::@frag
    %str = irdl.base "#builtin.string"
    irdl.operands(source: %t, column: %index)
    irdl.results(fragment: %f, reduced: %r)
    irdl.attributes { "op" = %str }
  }

  // Warpgroup store of a fragment into columns [column, column + N) of a TMEM buffer
  // (tcgen05.st, 9.7.16.8.4). tcgen05-select-layouts adds the message shape and .num.
  irdl.operation @st {
    %t = irdl.base @tcgen05::@tmem
    %index = irdl.is index
    %f = irdl.base @tcgen05::@frag
    irdl.operands(dest: %t, column: %index, fragment: %f)
  }

  // Computes a new fragment element by element (the bridge between fragments and the
  // standard dialects). The body is one block with, for each input fragment, its element
  // (of the fragment's element type), then the element's row and column in the fragment
  // (index); it ends with gpu.yield of the result element (gpu.yield because an
  // IRDL-defined op cannot be a terminator). The body may compute with arith, math and
  // index ops and read global memory (llvm.getelementptr, llvm.load) with values defined
  // above; the lowering applies it to every element each thread holds, whatever message
  // shape tcgen05-select-layouts picked. The inputs have one type (IRDL binds a variadic
  // group to one type); the result has their shape and the yielded element type.
  // A map of [rows, 1] fragments of which the first is a per-row value (frag_reduce's
  // or ld_red's result, or a map of one) computes per row, once per thread, beside
  // per-row values and one-column loads held one row per thread (an online softmax's
  // running max and sum); its result is again a per-row value, of f32 or i32. A map of
  // no input with a [128, 1] result is a per-row value computed from the row alone (its
  // body's arguments are the row and column 0), such as a running max's initial -inf.
  // An scf.for may carry per-row values as iteration arguments.
  irdl.operation @frag_map {
    %f = irdl.base @tcgen05::@frag
    %r = irdl.base @tcgen05::@frag
    %body = irdl.region
    irdl.operands(inputs: variadic %f)
    irdl.results(mapped: %r)
    irdl.regions(body: %body)
  }

  // Reduces each row of a fragment over its columns: kind = "max" (maxNum: a NaN is
  // skipped unless every element is NaN) or "sum" (in column order), f32. The result is a
  // [rows, 1] fragment, held by the threads that hold the rows. Each message of the
  // fragment must hold one row per thread: .32x32b, or .16x32bx2 whose threads l and
  // l xor 16 share a row (combined by a shuffle), of a layout that does not fold its
  // columns onto other warps.
  irdl.operation @frag_reduce {
    %f = irdl.base @tcgen05::@frag
    %r = irdl.base @tcgen05::@frag
    irdl.operands(fragment: %f)
    irdl.results(reduced: %r)
  }

  // A [rows, 1] fragment (a per-row value: frag_reduce's or ld_red's result, a one-column
  // load, or a frag_map of them) repeated along the columns of `like` ([rows, N]), held
  // as `like` is, so that a frag_map can take it beside `like`: the result has like's
  // shape and the row vector's element type. Both must give each thread the same rows,
  // one per message (.32x32b or .16x32bx2).
  irdl.operation @frag_broadcast {
    %v = irdl.base @tcgen05::@frag
    %f = irdl.base @tcgen05::@frag
    %r = irdl.base @tcgen05::@frag
    irdl.operands(rows: %v, like: %f)
    irdl.results(broadcast: %r)
  }

  // The vote of each warp over the rows it holds of a per-row value (a frag_reduce or
  // ld_red result, or a frag_map of them; a row votes for when its value is not zero,
  // for f32 neither +0 nor -0): kind = "any" (some row does) or "all" (every row does). The per-row value
  // must be held one row per thread (.32x32b), so that warp w of the warpgroup holds rows
  // 32 (w % 4) .. 32 (w % 4) + 31 (9.7.16.8.1) and its 32 threads vote together (PTX
  // vote.sync, every lane in the membermask). Every thread of a warp gets the same i1;
  // the warps of a warpgroup may get different ones, so a branch on it is uniform in
  // each warp (the warp-collective tcgen05.ld / st may sit in it): FlashAttention-4's
  // conditional rescaling, which corrects a warp's rows of O only when one of their
  // running maxima grew past a threshold.
  irdl.operation @frag_vote {
    %v = irdl.base @tcgen05::@frag
    %i1 = irdl.is i1
    irdl.operands(rows: %v)
    irdl.results(vote: %i1)
  }

  // Loads a fragment from a row-major global matrix: element (r, c) of the fragment is
  // source[(row_offset + r) * ld + column_offset + column + c] (the inverse of
  // store_fragment, with the same dims: an element outside rows x columns reads as 0 and
  // is not loaded).
  irdl.operation @load_fragment {
    %ptr = irdl.base "!llvm.ptr"
    %index = irdl.is index
    %dim = irdl.any
    %f = irdl.base @tcgen05::@frag
    irdl.operands(source: %ptr, column: %index, dim_values: variadic %dim)
    irdl.results(fragment: %f)
  }

  // ---------------------------------------------------------------- synchronization

  // An mbarrier in shared memory, initialized at kernel entry with the arrival count
  // given by attribute "count" (default 1). With attribute "stages" = S (1 to 64) it is a
  // ring of S mbarriers of that count, stage i at 8 i bytes after stage 0 (an mbarrier is
  // an 8-byte object, PTX ISA 9.7.13.15.1), every stage initialized at entry; a ring is
  // used only through mbarrier_stage (tcgen05-verify), so that a protocol over an S-stage
  // shared-memory or TMEM ring can be written in loops.
  irdl.operation @alloc_mbarrier {
    %m = irdl.base @tcgen05::@mbarrier
    irdl.results(barrier: %m)
  }

  // One stage of an mbarrier ring (an alloc_mbarrier with "stages"): the mbarrier of
  // stage `stage`, an index constant or computed at run time (a constant one must be in
  // [0, stages), tcgen05-verify; a computed one is not range-checked at run time, as for
  // smem_stage). The result is an mbarrier like any other: commit, mbarrier_wait (with
  // its phase operand), mbarrier_arrive, mbarrier_expect_tx and tma_load take it.
  // tcgen05-verify-sync takes a stage whose index evaluates as an mbarrier of its own.
  irdl.operation @mbarrier_stage {
    %m = irdl.base @tcgen05::@mbarrier
    %index = irdl.is index
    %r = irdl.base @tcgen05::@mbarrier
    irdl.operands(ring: %m, stage: %index)
    irdl.results(barrier: %r)
  }

  // tcgen05.commit.mbarrier::arrive::one: the mbarrier tracks completion of all prior
  // async tcgen05 operations of the issuing thread (9.7.16.12.1). With multicast_mask
  // (.multicast::cluster, bit i = %cluster_ctarank i) it signals the mbarrier at the same
  // offset in each CTA the mask names; without it, only the issuing CTA's. An
  // mbarrier_wait runs in the CTAs that the commits to its mbarrier signal.
  irdl.operation @commit {
    %m = irdl.base @tcgen05::@mbarrier
    irdl.operands(barrier: %m)
  }

  // mbarrier.try_wait.parity loop: waits until the phase with the given parity completed.
  // Without the phase operand, the parity is tracked at run time: the wait is for the
  // phase that the most recent commit to the mbarrier (in this thread's program order)
  // completes; before any commit, for the phase before the first, which a fresh
  // mbarrier reports complete.
  irdl.operation @mbarrier_wait {
    %m = irdl.base @tcgen05::@mbarrier
    %i32 = irdl.is i32
    irdl.operands(barrier: %m, phase: optional %i32)
  }

  // tcgen05.wait::ld or tcgen05.wait::st (kind = "ld" | "st").
  irdl.operation @wait {
    %str = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %str }
  }

  // tcgen05.fence::before_thread_sync / ::after_thread_sync
  // (kind = "before_thread_sync" | "after_thread_sync").
  irdl.operation @fence {
    %str = irdl.base "#builtin.string"
    irdl.attributes { "kind" = %str }
  }

  // fence.proxy.async.shared::cta: orders generic-proxy shared-memory writes before
  // async-proxy reads (9.7.16.6.5).
  irdl.operation @fence_proxy_async {
  }

  // A CTA-wide execution barrier (barrier.sync 0). Inside a tcgen05.role it synchronizes
  // the warps of that role only: the named barrier of the role (bar.sync id, threads).
  irdl.operation @barrier {
  }

  // mbarrier.arrive.release.cta by every thread that executes it: in a kernel without
  // partitions every thread of the CTA, in a tcgen05.role every thread of the role (32 x
  // its warps). Each arrival counts once towards the phase, so the mbarrier's
  // alloc_mbarrier count must be the number of arriving threads per phase
  // (9.7.13.15.13); docs/partitions.md gives the rule tcgen05-verify checks. In a
  // cta_group::2 kernel, cta = "even" arrives instead at the mbarrier at the same offset in
  // the even CTA of the pair (mapa, then mbarrier.arrive.release.cluster.shared::cluster),
  // so that both CTAs' threads count towards one phase there (docs/cta-pairs.md).
  irdl.operation @mbarrier_arrive {
    %m = irdl.base @tcgen05::@mbarrier
    irdl.operands(barrier: %m)
  }

  // ---------------------------------------------------------------- warp roles

  // Warp specialization: fork/join of concurrently running warp roles. The body holds one
  // tcgen05.role per role and ends in gpu.yield. Every role's program runs on its own
  // warps, all roles at once; values defined before the op are shared; the op ends when
  // every role has finished (a CTA barrier), so what follows runs after every role. See
  // docs/partitions.md.
  irdl.operation @partitions {
    %body = irdl.region
    irdl.regions(body: %body)
  }

  // One role of a tcgen05.partitions: a sequential program (its region, ending in
  // gpu.yield) run by the warps first_warp .. first_warp + warps - 1 only, under the role's
  // name. Single-thread ops are issued by the role's first thread (in a one-warp role with
  // warp-uniform loops, by the lane elect.sync elects, docs/partitions.md); warpgroup ops
  // (ld, st, ld_red, wait, load_fragment, store_fragment) need the role to be whole
  // aligned warpgroups; tcgen05.barrier is the role's named barrier.
  irdl.operation @role {
    %body = irdl.region
    irdl.regions(body: %body)
  }

  // ---------------------------------------------------------------- physical allocation

  // tcgen05.alloc by one warp: returns the TMEM base address of `columns` columns.
  irdl.operation @alloc {
    %i32 = irdl.is i32
    %columns = irdl.base "#builtin.integer"
    %group = irdl.base "#builtin.integer"
    irdl.results(address: %i32)
    irdl.attributes { "columns" = %columns, "cta_group" = %group }
  }

  // tcgen05.dealloc by the allocating warp.
  irdl.operation @dealloc {
    %i32 = irdl.is i32
    %columns = irdl.base "#builtin.integer"
    %group = irdl.base "#builtin.integer"
    irdl.operands(address: %i32)
    irdl.attributes { "columns" = %columns, "cta_group" = %group }
  }

  // tcgen05.relinquish_alloc_permit by the allocating warp.
  irdl.operation @relinquish_alloc_permit {
    %int = irdl.base "#builtin.integer"
    irdl.attributes { "cta_group" = %int }
  }
}
