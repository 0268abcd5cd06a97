"""CuTe DSL's Blackwell GEMM, compiled for sm_100a in the test run without a GPU
(``CUTE_DSL_ARCH=sm_100a``, ``cute.compile`` of fake tensors), simulated as emitted: a
dense fp16 GEMM in the style of CUTLASS's tutorial (examples/python/CuTeDSL/cute/
blackwell/tutorial/tutorial_gemm/fp16_gemm_0.py: one warp issues the TMA loads of a
2-stage PipelineTmaUmma ring and the tcgen05.mma, a PipelineUmmaAsync hands the
accumulator to the 4 warps' tcgen05.ld epilogue), 128x128x64 tiles, 2 x 1 CTAs.

The kernel takes its tiled MMA's runtime state and the output tensor as by-value
parameter structs and its TMA atoms as by-value tensor maps; compiled for run-time
extents (as the tutorial's from_dlpack tensors with dynamic layouts), C's struct also
holds its extents and row stride, and A's and B's coordinate tensors theirs. The
manifest is built from what cute.compile tells: the PTX's parameters and the offsets it
reads them at, the host IR's launch operand types, MMA-atom operands, TMA boxes and
swizzle. Expected C: NumPy's matmul of the inputs (small integers, exact in fp16 and
fp32).

Needs ``nvidia-cutlass-dsl`` (the ``peer`` extra, part of ``.[test]``; skipped without
it)."""

import functools
import importlib.util
import json
import os
import re
import shutil
import tempfile

import numpy as np
import pytest

if importlib.util.find_spec("cutlass") is None:
    pytest.skip("CuTe DSL is not installed: pip install nvidia-cutlass-dsl to compile its "
                "Blackwell GEMM", allow_module_level=True)

# read when cutlass is imported: the target, and keep the PTX and IR of each compile
_DUMP = tempfile.mkdtemp(prefix="cute-dsl-")
for _key, _value in (("CUTE_DSL_ARCH", "sm_100a"), ("CUTE_DSL_KEEP", "ptx,ir"),
                     ("CUTE_DSL_DUMP_DIR", _DUMP)):
    os.environ.setdefault(_key, _value)

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
import cutlass.memory  # noqa: E402
import cutlass.pipeline as pipeline  # noqa: E402
import cutlass.utils.blackwell_helpers as sm100_utils  # noqa: E402
from cutlass.cute.nvgpu import cpasync, tcgen05  # noqa: E402
from cutlass.cute.runtime import make_fake_compact_tensor  # noqa: E402

from tcgen05_lower.sim.api import simulate  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def dump_dir():
    yield
    shutil.rmtree(_DUMP, ignore_errors=True)


AB, ACC = cutlass.Float16, cutlass.Float32
TILE = (128, 128, 64)
STAGES = 2
THREADS = 128


@cute.struct
class Barriers:
    loads: cute.struct.MemRange[cutlass.Int64, STAGES * 2]
    accumulated: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_address: cutlass.Int32


@cute.kernel
def gemm_kernel(mma: cute.TiledMma, atom_a: cute.CopyAtom, gmem_a: cute.Tensor,
                atom_b: cute.CopyAtom, gmem_b: cute.Tensor, gmem_c: cute.Tensor,
                smem_a_layout: cute.ComposedLayout, smem_b_layout: cute.ComposedLayout):
    tid, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    tile_coord = (bx, by, None)

    alloc = cutlass.memory.SmemAllocator()
    bars = alloc.allocate(Barriers)
    smem_a = alloc.allocate_tensor(element_type=AB, layout=smem_a_layout.outer,
                                   byte_alignment=128, swizzle=smem_a_layout.inner)
    smem_b = alloc.allocate_tensor(element_type=AB, layout=smem_b_layout.outer,
                                   byte_alignment=128, swizzle=smem_b_layout.inner)
    tmem = cutlass.memory.TmemAllocator(
        bars.tmem_address.ptr,
        barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1, num_threads=THREADS))
    tmem.allocate(128)
    if warp == 0:
        cpasync.prefetch_descriptor(atom_a)
        cpasync.prefetch_descriptor(atom_b)
    stage_bytes = (cute.size_in_bytes(AB, cute.select(smem_a_layout, mode=[0, 1, 2]))
                   + cute.size_in_bytes(AB, cute.select(smem_b_layout, mode=[0, 1, 2])))
    one_thread = pipeline.CooperativeGroup(pipeline.Agent.Thread)
    load_producer, load_consumer = pipeline.PipelineTmaUmma.create(
        num_stages=STAGES, producer_group=one_thread, consumer_group=one_thread,
        tx_count=stage_bytes, barrier_storage=bars.loads.data_ptr()).make_participants()
    acc_producer, acc_consumer = pipeline.PipelineUmmaAsync.create(
        num_stages=1, producer_group=one_thread,
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, THREADS),
        barrier_storage=bars.accumulated.data_ptr()).make_participants()

    tile_a = cute.local_tile(gmem_a, TILE, tile_coord, proj=(1, None, 1))
    tile_b = cute.local_tile(gmem_b, TILE, tile_coord, proj=(None, 1, 1))
    tile_c = cute.local_tile(gmem_c, TILE, tile_coord, proj=(1, 1, None))
    part = mma.get_slice(0)
    frag_a, frag_b = mma.make_fragment_A(smem_a), mma.make_fragment_B(smem_b)
    acc = mma.make_fragment_C(mma.partition_shape_C(TILE[:2]))
    tma_sa, tma_ga = cpasync.tma_partition(atom_a, 0, cute.make_layout(1),
                                           cute.group_modes(smem_a, 0, 3),
                                           cute.group_modes(part.partition_A(tile_a), 0, 3))
    tma_sb, tma_gb = cpasync.tma_partition(atom_b, 0, cute.make_layout(1),
                                           cute.group_modes(smem_b, 0, 3),
                                           cute.group_modes(part.partition_B(tile_b), 0, 3))
    tmem.wait_for_alloc()
    acc = cute.make_tensor(tmem.retrieve_ptr(ACC), acc.layout)

    # epilogue: each thread reads its TMEM lane in two halves of 64 columns
    halves = ((cute.size(acc, mode=[0, 0]), cute.size(acc, mode=[0, 1]) // 2),)
    acc_halves = cute.zipped_divide(acc, halves)
    c_halves = cute.zipped_divide(part.partition_C(tile_c), halves)
    tmem_copy = tcgen05.make_tmem_copy(
        cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x64), ACC),
        acc_halves[None, 0])
    thread_copy = tmem_copy.get_slice(tid)
    from_tmem = thread_copy.partition_S(acc_halves)
    to_gmem = thread_copy.partition_D(c_halves)
    regs_acc = cute.make_rmem_tensor(to_gmem[None, None, 0].shape, ACC)
    regs_c = cute.make_rmem_tensor(to_gmem[None, None, 0].shape, AB)

    if warp == 0:
        acc_slot = acc_producer.acquire_and_advance()
        for _ in cutlass.range(cute.size(tile_a, mode=[2]), prefetch_stages=STAGES - 1):
            empty = load_producer.acquire_and_advance()
            cute.copy(atom_a, tma_ga[(None, empty.count)], tma_sa[(None, empty.index)],
                      tma_bar_ptr=empty.barrier)
            cute.copy(atom_b, tma_gb[(None, empty.count)], tma_sb[(None, empty.index)],
                      tma_bar_ptr=empty.barrier)
            full = load_consumer.wait_and_advance()
            for kb in cutlass.range_constexpr(cute.size(frag_a, mode=[2])):
                cute.gemm(mma, acc, frag_a[(None, None, kb, full.index)],
                          frag_b[(None, None, kb, full.index)], acc)
                mma.set(tcgen05.Field.ACCUMULATE, True)
            full.release()
        acc_slot.commit()
    tmem.relinquish_alloc_permit()
    ready = acc_consumer.wait_and_advance()
    for h in cutlass.range(cute.size(from_tmem, mode=[2])):
        cute.copy(tmem_copy, from_tmem[None, None, h], regs_acc)
        regs_c.store(regs_acc.load().to(AB))
        cute.autovec_copy(regs_c, to_gmem[None, None, h])
    ready.release()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


@cute.jit
def gemm(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):
    mma = cute.make_tiled_mma(tcgen05.MmaF16BF16Op(
        AB, ACC, (128, 128, 16), tcgen05.CtaGroup.ONE, tcgen05.OperandSource.SMEM,
        cute.nvgpu.OperandMajorMode.K, cute.nvgpu.OperandMajorMode.K))
    layout_a = sm100_utils.make_smem_layout_a(mma, TILE, a.element_type, STAGES)
    layout_b = sm100_utils.make_smem_layout_b(mma, TILE, b.element_type, STAGES)
    op = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    atom_a, tma_a = cute.nvgpu.make_tiled_tma_atom_A(
        op, a, cute.select(layout_a, mode=[0, 1, 2]), TILE, mma)
    atom_b, tma_b = cute.nvgpu.make_tiled_tma_atom_B(
        op, b, cute.select(layout_b, mode=[0, 1, 2]), TILE, mma)
    gemm_kernel(mma, atom_a, tma_a, atom_b, tma_b, c, layout_a, layout_b).launch(
        grid=cute.ceil_div((*c.layout.shape, 1), TILE[:2]), block=(THREADS, 1, 1))


M, N, K = 256, 128, 192  # 2 x 1 CTAs, 3 K blocks through the 2-stage ring


@functools.lru_cache(maxsize=None)  # one compile of each variant for the module's tests
def compile_gemm(dynamic: bool):
    """(PTX, host MLIR) of the GEMM for row-major (K-major) A (M x K), B (N x K) and
    C (M x N) fp16 tensors; `dynamic`: their extents are run-time values (as the
    tutorial's from_dlpack tensors with dynamic layouts), else compile-time ones."""
    def tensor(rows, cols):
        shape = (cute.sym_int32(), cute.sym_int32(divisibility=cols)) if dynamic \
            else (rows, cols)
        return make_fake_compact_tensor(AB, shape, stride_order=(1, 0), assumed_align=32)
    compiled = cute.compile(gemm, tensor(M, K), tensor(N, K), tensor(M, N))
    return compiled.artifacts.PTX, compiled.artifacts.MLIR


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside <>, () and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "<(":
            depth += 1
        elif not quoted and ch in ">)":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            parts.append(text[start:i].strip())
            start = i + 1
    return parts + [text[start:].strip()]


def launch_types(mlir: str) -> list[str]:
    """The types of the kernel launch's operands in the host IR (aliases resolved)."""
    line = next(x for x in mlir.splitlines() if "cuda.launch_ex" in x)
    signature = line[line.index("} : !cuda.launch_cfg"):]
    inner = signature[signature.index(", (") + 3:signature.rindex(") -> ")]
    aliases = dict(re.findall(r"^(![\w.]+) = (.*)$", mlir, re.M))
    return [aliases.get(t, t) for t in split_top_level(inner)]


def param_reads(ptx: str, param: str) -> list[tuple[int, str]]:
    """(byte offset, .bN type) of every element the PTX's ld.param reads of `param`."""
    reads = set()
    for vec, bits, offset in re.findall(
            rf"ld\.param(?:\.v(\d))?\.[bsu](\d+)\s+[^\n]*\[{param}(?:\+(\d+))?\]", ptx):
        for i in range(int(vec or 1)):
            reads.add((int(offset or 0) + i * int(bits) // 8, f"b{bits}"))
    return sorted(reads)


def mma_state_values(mlir: str) -> list[int]:
    """The runtime operands of the host's cute.make_atom of the MMA, flattened in order:
    i1 constants (%false / %true) and the elements of a dense vector constant."""
    operands = re.search(r"cute\.make_atom\(([^)]+)\) : \([^)]*\) -> !cute_nvgpu\.sm100\.mma",
                         mlir).group(1).split(", ")
    values = []
    for name in operands:
        if name in ("%false", "%true"):
            values.append(int(name == "%true"))
            continue
        dense = re.search(rf"{re.escape(name)} = arith\.constant dense<(-?\d+)> : "
                          rf"vector<(\d+)xi32>", mlir)
        values += [int(dense.group(1))] * int(dense.group(2))
    return values


def dynamic_fields(layout: str, array: np.ndarray, offset: int) -> list[dict]:
    """The run-time extents and strides of a CuTe layout "(s0,s1):(d0,d1)" as struct
    fields from byte `offset` on, each at its natural alignment: a "?" extent an i32, a
    "?{i64 ...}" stride an i64 (their values the array's, strides in elements)."""
    shape, stride = (split_top_level(part.strip("()")) for part in layout.split(":"))
    values = [(s, n) for s, n in zip(shape, array.shape)] + \
        [(d, n // array.itemsize) for d, n in zip(stride, array.strides)]
    fields = []
    for spec, value in values:
        if not spec.startswith("?"):
            continue
        ty, size = ("s64", 8) if "i64" in spec else ("s32", 4)
        offset = -(-offset // size) * size
        fields.append({"offset": offset, "type": ty, "value": int(value)})
        offset += size
    return fields


#: CuTe's swizzle S<B,4,3> of 16-byte units -> the TMA swizzle (2^B units of 16 bytes)
SWIZZLES = {"1": "32B", "2": "64B", "3": "128B"}


def build_manifest(ptx: str, mlir: str, arrays: dict) -> dict:
    """The launch manifest, from the launch's operand types in the host IR: the tiled
    MMA's runtime state (the fields its PTX reads, in offset order, hold the make_atom
    operands in order), each TMA atom a by-value tensor map (box: tma_gbasis's shape,
    innermost first) of the next of A and B, a coordinate tensor or a global tensor its
    run-time layout values (a global tensor's address first), static layouts nothing.
    Each struct's size is checked against the PTX parameter it fills."""
    entry = re.search(r"\.entry (\w+)\(", ptx).group(1)
    ptx_params = re.findall(r"\.param \.align \d+ \.b8 (\w+)\[(\d+)\]", ptx)
    swizzle = SWIZZLES[re.search(r"S<(\d),4,3>", mlir).group(1)]
    params, maps, last_map = [], iter("ab"), None
    for ty in launch_types(mlir):
        layout = re.findall(r'"([^"]*)"', ty)[-1] if '"' in ty else ""
        if "sm100.mma" in ty:
            name, entry_param = "tiled_mma", {"fields": [
                {"offset": off, "type": "u8" if kind == "b8" else kind, "value": v}
                for (off, kind), v in zip(param_reads(ptx, ptx_params[len(params)][0]),
                                          mma_state_values(mlir), strict=True)]}
        elif "non_exec_tiled_tma_load" in ty:
            last_map = next(maps)
            box = re.search(r"tma_gbasis = <\"\((\d+),(\d+)\):", ty).groups()
            name, entry_param = f"tma_{last_map}", {"tensor_map": {
                "tensor": last_map, "box": [int(x) for x in box], "swizzle": swizzle}}
        elif "coord_tensor" in ty and "?" in layout:
            name, entry_param = f"{last_map}_shape", {
                "fields": dynamic_fields(layout, arrays[last_map], 0)}
        elif "memref" in ty and "gmem" in ty:
            name, entry_param = "c_tensor", {"fields": [{"offset": 0, "array": "c"}]
                                             + dynamic_fields(layout, arrays["c"], 8)}
        else:
            assert "?" not in ty, ty  # a static layout passes nothing
            continue
        params.append({"name": name, "pointer": False, **entry_param})
    assert len(params) == len(ptx_params), (params, ptx_params)
    for param, (_, size) in zip(params, ptx_params):
        if "fields" in param:
            last = max(f["offset"] + (8 if "array" in f else int(f["type"][1:]) // 8)
                       for f in param["fields"])
            assert last <= int(size) < last + 16, (param, size)
    return {"entry": entry, "threads": THREADS, "cluster": [1, 1, 1],
            "grid": [-(-M // TILE[0]), -(-N // TILE[1]), 1],
            # barriers (56 bytes, padded to the tiles' 128-byte alignment), then the A
            # and B stages: 2 x (128 x 64 + 128 x 64) fp16
            "dynamic_smem_bytes": 128 + STAGES * 2 * 128 * 64 * 2, "params": params}


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_cute_dsl_blackwell_gemm(dynamic):
    ptx, mlir = compile_gemm(dynamic)
    # what this kernel brings the simulator: by-value structs and maps, prefetch.tensormap,
    # TMA loads with a cache policy
    for form in ("tcgen05.mma.cta_group::1.kind::f16", ".param .align 16 .b8",
                 "prefetch.tensormap", "mbarrier::complete_tx::bytes.L2::cache_hint",
                 "cvta.param.u64"):
        assert form in ptx, form
    rng = np.random.default_rng(40)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (N, K)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    manifest = build_manifest(ptx, mlir, {"a": a, "b": b, "c": c})
    # by value: the MMA state, 2 tensor maps, C (with run-time extents: A's and B's too)
    assert len(manifest["params"]) == (6 if dynamic else 4)
    expected = a.astype(np.float32) @ b.astype(np.float32).T  # NumPy

    canonical = simulate(ptx, manifest, {"a": a, "b": b, "c": np.zeros((M, N), np.float16)})
    assert np.array_equal(canonical.outputs["c"].astype(np.float32), expected)
    # CuTe emits no tcgen05.fence::before/after_thread_sync here: the epilogue's
    # tcgen05.ld after the accumulator wait, and the dealloc after the barrier, race
    assert "tcgen05.fence" not in ptx
    pairs = [(r.ptx_line, r.other_line) for r in canonical.races]
    assert len(pairs) == len(set(pairs))
    lines = ptx.splitlines()
    kinds = {(lines[r.ptx_line - 1].split()[0].split(".")[1],
              lines[r.other_line - 1].split()[0].split(".")[1]) for r in canonical.races}
    assert ("ld", "mma") in kinds and ("dealloc", "mma") in kinds, kinds
    assert all(k[0] in ("ld", "dealloc") and k[1] in ("mma", "ld", "alloc") for k in kinds)

    acquire = simulate(ptx, manifest, {"a": a, "b": b, "c": np.zeros((M, N), np.float16)},
                       fences="acquire")
    assert np.array_equal(acquire.outputs["c"].astype(np.float32), expected)
    # under the acquire reading one race is left: no tcgen05.wait::ld orders the
    # epilogue's tcgen05.ld before the tcgen05.dealloc (PTX ISA 9.7.16.6.4.5: the
    # register dependency orders the values' use, not the load's TMEM access)
    assert "tcgen05.wait::ld" not in ptx
    assert len(acquire.races) == 1, acquire.races
    race = acquire.races[0]
    assert "tcgen05.dealloc" in lines[race.ptx_line - 1]
    assert "tcgen05.ld" in lines[race.other_line - 1]
    # either reading: the load ring's last stage releases (tcgen05.commit onto its
    # "empty" mbarriers) are never waited for before the CTA exits (no producer tail)
    for result in (canonical, acquire):
        assert result.problems and all("is observed by no wait" in p and "tcgen05.commit"
                                       in p for p in result.problems), result.problems


# -- the same kernel through tcgen05-sim: its structs described by a check file -----------
# The manifest gives the PTX's parameters, the tiled MMA's state (what the compile tells)
# and the tensor maps; the check file gives the shapes and, as STRUCTS, the run-time
# layouts CuTe passes by value (docs/simulator.md): C's global address, extents (i32) and
# row stride (i64, in elements), and A's and B's extents. Expected C: NumPy's product of
# the fp16 inputs; the bound, derived by hand: the fp32 sum of K exact products is off by
# at most K * 2^-24 * sum |a b| (the standard bound on recursive summation), and rounding
# to fp16 adds half an ulp, at most 2^-11 of the value (the bound takes twice both).
CUTE_CHECK = """
import numpy as np

SCALARS = {"M": 256, "N": 128, "K": 192}


def BUFFERS(s):
    return {"a": ("float16", (s["M"], s["K"])), "b": ("float16", (s["N"], s["K"])),
            "c": ("float16", (s["M"], s["N"]))}


def STRUCTS(s):
    return {"a_shape": [{"offset": 0, "type": "s32", "value": s["M"]},
                        {"offset": 4, "type": "s32", "value": s["K"]}],
            "b_shape": [{"offset": 0, "type": "s32", "value": s["N"]},
                        {"offset": 4, "type": "s32", "value": s["K"]}],
            "c_tensor": [{"offset": 0, "array": "c"},
                         {"offset": 8, "type": "s32", "value": s["M"]},
                         {"offset": 12, "type": "s32", "value": s["N"]},
                         {"offset": 16, "type": "s64", "value": s["N"]}]}


def reference(inputs):
    a, b = (inputs[x].astype(np.float64) for x in "ab")
    return {"c": a @ b.T}


def bound(name, inputs):
    a, b = (np.abs(inputs[x].astype(np.float64)) for x in "ab")
    k = a.shape[1]
    exact = np.abs(reference(inputs)["c"])
    return (2 * k * 2.0 ** -24 * (a @ b.T) + 2 * 2.0 ** -11 * exact,
            "2 (K 2^-24 sum|ab| + 2^-11 |ref|)")
"""


def test_cute_dsl_gemm_through_a_check_file(tmp_path, tool):
    import runpy

    ptx, mlir = compile_gemm(True)
    (tmp_path / "gemm_check.py").write_text(CUTE_CHECK)
    check = runpy.run_path(str(tmp_path / "gemm_check.py"))
    arrays = {"a": np.zeros((M, K), np.float16), "b": np.zeros((N, K), np.float16),
              "c": np.zeros((M, N), np.float16)}
    manifest = build_manifest(ptx, mlir, arrays)
    # the check file's structs are the ones the compile tells (build_manifest, from the
    # PTX's ld.param offsets and the host IR's layouts)
    structs = check["STRUCTS"](check["SCALARS"])
    described = {p["name"]: p.pop("fields") for p in manifest["params"]
                 if p["name"] in structs}
    assert described == structs
    (tmp_path / "gemm.ptx").write_text(ptx)
    (tmp_path / "gemm.json").write_text(json.dumps(manifest))
    proc = tool("tcgen05-sim", tmp_path / "gemm.ptx", "--manifest", tmp_path / "gemm.json",
                "--check", tmp_path / "gemm_check.py", "--fences", "acquire")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert re.search(r"^  c \(256x128 float16\): max abs error \S+, max rel error \S+ "
                     r"\(bound .*\): OK$", proc.stdout, re.M), proc.stdout
    # what test_cute_dsl_blackwell_gemm shows of the same run: one race under acquire
    # (no tcgen05.wait::ld before the dealloc) and the unobserved commits at exit
    assert proc.returncode == 1
    assert len(re.findall(r"^  race: ", proc.stdout, re.M)) == 1, proc.stdout
