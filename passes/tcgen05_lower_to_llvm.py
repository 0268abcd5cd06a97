"""tcgen05-lower-to-llvm: planned tcgen05 ops -> NVVM inline PTX, arith, scf and llvm.

Issue granularity (Table 46) becomes predication: single-thread ops (mma, commit) run on
thread 0 of the CTA; allocation ops on warp 0 (warp-uniform, as ``.sync.aligned``
requires); loads and waits on every warp of the warpgroup, each at its own lane quarter.
Descriptors are built from the IR: the instruction descriptor is a constant
(``encode_instr_desc``), the shared-memory descriptor a constant part
(``encode_smem_desc``) ORed with the run-time start-address field.

Shared memory: operand tiles live in one dynamic shared-memory array, placed in program
order, each aligned to 1024 bytes so that every swizzle pattern starts on its boundary
(Table 41); the kernel records the size as ``tcgen05.dynamic_smem_bytes``. The TMEM
address slot that tcgen05.alloc writes and the mbarriers live in a static per-kernel
array.

The kernel stays a ``func.func``; ``tcgen05-finalize-kernels`` marks it for NVPTX after the
upstream conversions. ``convert-nvvm-to-llvm`` must run before arith is lowered: operands
defined by LLVM constants would become PTX immediates, which tcgen05.mma rejects for its
address and descriptor operands.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import emit, ptx
from tcgen05_lower.bindings import ir, llvm, nvvm
from tcgen05_lower.emit import Sym, as_value, cast, i1, i32, i64, index
from tcgen05_lower.isa import addressing, descriptors
from tcgen05_lower.kernel_ir import defining_op, mma_operands
from tcgen05_lower.pass_infra import ModulePass

#: Bits per element of the element types the dialect accepts (MLIR spelling).
ELEMENT_BITS = {"f32": 32, "tf32": 32, "i32": 32, "f16": 16, "bf16": 16, "i8": 8,
                "f8E4M3FN": 8, "f8E5M2": 8}
#: Alignment of every operand tile in dynamic shared memory: the 128B swizzle pattern
#: repeats every 1024 bytes (Table 41), so base offset 0 holds for every mode.
TILE_ALIGNMENT = 1024
#: The dynamic shared-memory array every kernel of a module shares.
DYNAMIC_SMEM_SYMBOL = "__tcgen05_dynamic_smem"
KERNEL_ISA_TYPES = {"f32": "f32", "f16": "f16", "bf16": "bf16", "tf32": "tf32", "i32": "s32"}


def element_bits(element: str) -> int:
    try:
        return ELEMENT_BITS[element]
    except KeyError:
        raise NotImplementedError(f"element type {element} is not supported by the lowering yet")


class KernelLowering:
    """Lowers one kernel. Values of tcgen05 types are mapped to what they become:
    TMEM buffers -> i32 TMEM address, tiles -> (shared pointer, byte offset),
    fragments -> list of i32 registers, mbarriers -> shared pointer."""

    def __init__(self, pass_, kernel, module):
        self.pass_ = pass_
        self.kernel = kernel
        self.module = module
        self.info = d.kernel_info(kernel)
        self.values: dict = {}
        self.lowered: list = []
        self.smem_bytes = 0
        self.mbarrier_count = 0

    # ------------------------------------------------------------------ driver

    def run(self) -> None:
        entry = self.kernel.regions[0].blocks[0]
        ops = list(d.walk_ops(self.kernel))
        barriers = [op for op in ops if d.op_name(op) == "alloc_mbarrier"]
        slots_symbol = f"__tcgen05_slots_{self.info.name}"
        with ir.InsertionPoint(self.module.regions[0].blocks[0].operations[0]), \
                self.kernel.location:
            # Slot 0: the TMEM address written by tcgen05.alloc; slots 1..: mbarriers.
            llvm.GlobalOp(ir.Type.parse(f"!llvm.array<{1 + len(barriers)} x i64>"),
                          slots_symbol, ir.Attribute.parse("#llvm.linkage<internal>"),
                          addr_space=3, alignment=8)
        with ir.InsertionPoint(entry.operations[0]), self.kernel.location:
            self.setup_entry(slots_symbol, barriers)
        for op in ops:
            name = d.op_name(op)
            if name is None or name == "alloc_mbarrier":
                continue
            handler = getattr(self, "lower_" + name, None)
            if handler is None:
                self.pass_.fail(op, f"tcgen05.{name} cannot be lowered yet")
            with ir.InsertionPoint(op), op.location:
                handler(op)
            self.lowered.append(op)
        for op in reversed(barriers + self.lowered):
            op.erase()
        d.set_int(self.kernel, "tcgen05.dynamic_smem_bytes", self.smem_bytes)

    def setup_entry(self, slots_symbol: str, barriers) -> None:
        tid = nvvm.ThreadIdXOp(i32()).result
        self.tid = Sym(tid)
        self.warp = self.tid >> 5
        self.lane = self.tid & 31
        zero = emit.constant(0, i32())
        self.is_leader = emit.cmp_eq(tid, zero)
        self.is_warp0 = emit.cmp_eq(self.warp.value, zero)
        self.warp_in_group = self.warp & 3
        slots = emit.address_of(slots_symbol, 3)
        self.tmem_slot = slots
        for i, op in enumerate(barriers, start=1):
            self.values[op.results[0]] = emit.gep_bytes(slots, emit.constant(8 * i, i64()))
        if barriers:
            # One thread initializes every mbarrier, then makes the initialization visible
            # to the async proxy and the other threads before anyone uses them.
            for op in barriers:
                count = emit.constant(d.get_int(op, "count", 1), i32())
                emit.ptx(ptx.mbarrier_init("$0", "$1"), [self.values[op.results[0]], count],
                         predicate=self.is_leader)
            emit.ptx(ptx.fence_mbarrier_init(), predicate=self.is_leader)
            emit.ptx(ptx.barrier_sync())

    # ------------------------------------------------------------------ allocation

    def lower_alloc(self, op) -> None:
        group = d.get_int(op, "cta_group")
        columns = emit.constant(d.get_int(op, "columns"), i32())
        emit.ptx(ptx.alloc(group, "$0", "$1"), [self.tmem_slot, columns],
                 predicate=self.is_warp0)
        # The address is written to shared memory by warp 0; every thread reads it after
        # the barrier (fenced on both sides, 9.7.16.6.4.4).
        emit.ptx(ptx.fence("before_thread_sync"))
        emit.ptx(ptx.barrier_sync())
        emit.ptx(ptx.fence("after_thread_sync"))
        address = llvm.LoadOp(i32(), self.tmem_slot, alignment=8).result
        self.values[op.results[0]] = address

    def lower_relinquish_alloc_permit(self, op) -> None:
        emit.ptx(ptx.relinquish_alloc_permit(d.get_int(op, "cta_group")),
                 predicate=self.is_warp0)

    def lower_dealloc(self, op) -> None:
        columns = emit.constant(d.get_int(op, "columns"), i32())
        emit.ptx(ptx.dealloc(d.get_int(op, "cta_group"), "$0", "$1"),
                 [self.values[op.operands[0]], columns], predicate=self.is_warp0)

    def lower_tmem_buffer(self, op) -> None:
        if len(op.operands) == 0:
            self.pass_.fail(op, "TMEM buffer is not planned: run tcgen05-plan-tmem first")
        base = Sym(self.values[op.operands[0]])
        offset = (d.get_int(op, "lane_offset") << 16) | d.get_int(op, "column_offset")
        self.values[op.results[0]] = as_value(base + offset, i32())

    # ------------------------------------------------------------------ shared memory

    def lower_smem_buffer(self, op) -> None:
        t = d.type_info(op.results[0].type)
        size = t.rows * t.k * element_bits(t.element) // 8
        offset = -(-self.smem_bytes // TILE_ALIGNMENT) * TILE_ALIGNMENT
        self.smem_bytes = offset + size
        self.ensure_dynamic_smem()
        base = emit.address_of(DYNAMIC_SMEM_SYMBOL, 3)
        pointer = emit.gep_bytes(base, emit.constant(offset, i64()))
        self.values[op.results[0]] = pointer

    def ensure_dynamic_smem(self) -> None:
        body = self.module.regions[0].blocks[0]
        for existing in body.operations:
            if existing.operation.name == "llvm.mlir.global" and \
                    ir.StringAttr(existing.operation.attributes["sym_name"]).value == \
                    DYNAMIC_SMEM_SYMBOL:
                return
        with ir.InsertionPoint(body.operations[0]), self.kernel.location:
            llvm.GlobalOp(ir.Type.parse("!llvm.array<0 x i8>"), DYNAMIC_SMEM_SYMBOL,
                          ir.Attribute.parse("#llvm.linkage<external>"),
                          addr_space=3, alignment=TILE_ALIGNMENT)

    def lower_smem_fill(self, op) -> None:
        """A cooperative copy: the CTA's threads stride over the tile."""
        source, tile_value, k_offset = (op.operands[i] for i in range(3))
        tile = d.type_info(tile_value.type)
        bits = element_bits(tile.element)
        layout = d.get_str(op, "src_layout")
        ld = d.get_int(op, "src_ld")
        tile_ptr = self.values[tile_value]
        k0 = Sym(cast(k_offset, i64()))
        # K-contiguous sources copy 16-byte chunks (the swizzle permutes 16-byte units, so
        # a chunk stays contiguous); transposed sources copy element by element, with
        # consecutive threads reading consecutive global addresses.
        chunk_bytes = 16 if layout == "mn_k" else bits // 8
        row_bytes = tile.k * bits // 8
        per_row = row_bytes // chunk_bytes
        total = tile.rows * per_row
        loop = _for_loop(cast(self.tid.value, index()), emit.constant(total, index()),
                         emit.constant(self.info.threads, index()))
        with ir.InsertionPoint(loop.body):
            c = Sym(cast(loop.induction_variable, i64()))
            if layout == "mn_k":
                row, kchunk = c // per_row, c % per_row
                kbyte = kchunk * chunk_bytes
                global_byte = (row * ld + k0) * (bits // 8) + kbyte
            else:
                row, kidx = c % tile.rows, c // tile.rows
                kbyte = kidx * (bits // 8)
                global_byte = ((k0 + kidx) * ld + row) * (bits // 8)
            smem_byte = addressing.kmajor_offset(row, kbyte, rows=tile.rows,
                                                 swizzle=tile.swizzle)
            chunk_type = (ir.VectorType.get([4], i32()) if chunk_bytes == 16
                          else ir.IntegerType.get_signless(8 * chunk_bytes))
            src = emit.gep_bytes(source, as_value(global_byte, i64()))
            value = llvm.LoadOp(chunk_type, src, alignment=chunk_bytes).result
            dst = emit.gep_bytes(tile_ptr, as_value(smem_byte, i64()))
            llvm.StoreOp(value, dst, alignment=chunk_bytes)
            ir.Operation.create("scf.yield")

    # ------------------------------------------------------------------ mma

    def smem_descriptor(self, tile_value, kbyte: int) -> "ir.Value":
        tile = d.type_info(tile_value.type)
        lbo, sbo = addressing.kmajor_strides(rows=tile.rows, swizzle=tile.swizzle)
        constant_part = descriptors.encode_smem_desc(start_address=0, lbo=lbo, sbo=sbo,
                                                     swizzle=tile.swizzle)
        start = addressing.kmajor_block_start(kbyte, rows=tile.rows, swizzle=tile.swizzle)
        pointer = emit.gep_bytes(self.values[tile_value], emit.constant(start, i64()))
        address = Sym(llvm.PtrToIntOp(i64(), pointer).result)
        # matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 (Table 40), bits 0-13.
        field = (address & 0x3FFFF) >> 4
        return as_value(field | constant_part, i64())

    def lower_mma(self, op) -> None:
        operands = mma_operands(op)
        kind = d.get_str(op, "kind")
        dt, at, bt = operands.d_type, operands.a_smem, operands.b_type
        idesc = descriptors.encode_instr_desc(
            kind=kind, a_type=KERNEL_ISA_TYPES[at.element], b_type=KERNEL_ISA_TYPES[bt.element],
            d_type=KERNEL_ISA_TYPES[dt.element], m=dt.rows, n=dt.cols,
            transpose_a=at.major == "MN", transpose_b=bt.major == "MN")
        kbyte = d.get_int(op, "k_offset", 0) * element_bits(at.element) // 8
        a_desc = self.smem_descriptor(operands.a, kbyte)
        b_desc = self.smem_descriptor(operands.b, kbyte)
        emit.ptx(ptx.mma(self.info.cta_group, kind, "$0", "$1", "$2", "$3", "$4"),
                 [self.values[operands.d], a_desc, b_desc, emit.constant(idesc, i32()),
                  operands.enable_input_d],
                 predicate=self.is_leader)

    # ------------------------------------------------------------------ ld / store

    def lower_ld(self, op) -> None:
        if "shape" not in op.attributes:
            self.pass_.fail(op, "load has no message shape: run tcgen05-select-layouts first")
        source = defining_op(op.operands[0])
        layout = d.get_str(source, "layout")
        shape, num = d.get_str(op, "shape"), d.get_int(op, "num")
        half_split = d.get_int(op, "half_split")
        registers = num  # .32x32b and .16x32bx2 hold num registers per thread (Table 47)
        column = Sym(cast(op.operands[1], i32()))
        base = Sym(self.values[op.operands[0]])
        lane = addressing.ld_warp_lane_base(layout, self.warp_in_group)
        taddr = as_value(base + (lane << 16) + column, i32())
        dests = [f"${i}" for i in range(registers)]
        text = ptx.ld(shape, num, dests, f"${registers}", half_split=half_split)
        self.values[op.results[0]] = (emit.ptx(text, [taddr], [i32()] * registers),
                                      layout, shape, num, half_split)

    def lower_store_fragment(self, op) -> None:
        registers, layout, shape, num, half_split = self.values[op.operands[0]]
        dest = op.operands[1]
        column = Sym(cast(op.operands[2], i64()))
        ld = d.get_int(op, "ld")
        warp = Sym(cast(self.warp_in_group.value, i64()))
        thread = Sym(cast(self.lane.value, i64()))
        for reg, value in enumerate(registers):
            row, col = addressing.ld_element(layout, shape, num, warp=warp, thread=thread,
                                             reg=reg, half_split=half_split)
            element = (row * ld + column + col) * 4
            llvm.StoreOp(value, emit.gep_bytes(dest, as_value(element, i64())), alignment=4)

    # ------------------------------------------------------------------ sync

    def lower_commit(self, op) -> None:
        emit.ptx(ptx.commit(self.info.cta_group, "$0"), [self.values[op.operands[0]]],
                 predicate=self.is_leader)

    def lower_mbarrier_wait(self, op) -> None:
        barrier, phase = self.values[op.operands[0]], op.operands[1]
        # while (!try_wait(barrier, phase)) {}
        loop = ir.Operation.create("scf.while", results=[], operands=[], regions=2)
        before = loop.regions[0].blocks.append()
        with ir.InsertionPoint(before):
            done = emit.ptx(ptx.mbarrier_try_wait_parity("$0", "$1", "$2"),
                            [barrier, phase], [i32()])[0]
            pending = emit.cmp_eq(done, emit.constant(0, i32()))
            ir.Operation.create("scf.condition", operands=[pending])
        after = loop.regions[1].blocks.append()
        with ir.InsertionPoint(after):
            ir.Operation.create("scf.yield")

    def lower_wait(self, op) -> None:
        emit.ptx(ptx.wait(d.get_str(op, "kind")))

    def lower_fence(self, op) -> None:
        emit.ptx(ptx.fence(d.get_str(op, "kind")))

    def lower_fence_proxy_async(self, op) -> None:
        emit.ptx(ptx.fence_proxy_async())

    def lower_barrier(self, op) -> None:
        emit.ptx(ptx.barrier_sync())


class _Loop:
    def __init__(self, op):
        self.op = op
        self.body = op.regions[0].blocks[0]
        self.induction_variable = self.body.arguments[0]


def _for_loop(lower, upper, step) -> _Loop:
    """An empty ``scf.for`` (the caller fills the body, including its scf.yield)."""
    op = ir.Operation.create("scf.for", results=[], operands=[lower, upper, step], regions=1)
    op.regions[0].blocks.append(index())
    return _Loop(op)


class Tcgen05LowerToLlvm(ModulePass):
    name = "tcgen05-lower-to-llvm"
    description = "Lower planned tcgen05 ops to NVVM inline PTX and the arith/scf/llvm dialects"

    def apply(self, module) -> None:
        for kernel in d.kernels(module):
            KernelLowering(self, kernel, module).run()


class Tcgen05FinalizeKernels(ModulePass):
    name = "tcgen05-finalize-kernels"
    description = "Mark converted kernels (llvm.func) as NVPTX kernels with their thread count"

    def apply(self, module) -> None:
        for op in module.regions[0].blocks[0].operations:
            op = op.operation
            if op.name != "llvm.func" or d.KERNEL_ATTR not in op.attributes:
                continue
            info = d.kernel_info(op)
            op.attributes["nvvm.kernel"] = ir.UnitAttr.get()
            op.attributes["nvvm.maxntid"] = ir.Attribute.parse(
                f"array<i32: {info.threads}, 1, 1>")
