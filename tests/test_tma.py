"""TMA loads (docs/tma.md): the simulator's copy of a box against hand derivations from
the PTX ISA (5.5 tensors: tiled mode, zero fill out of bounds; 5.5.6 tensor swizzling
modes), the example run against NumPy, and the simulator catching deleted
synchronization in the example's PTX (a race, a deadlock) and tensor maps it was not
given."""

from __future__ import annotations

import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from conftest import requires_ptxas
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.cli.sim import prepare
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.tma import TensorMap, box_image, destination_addresses
from sim_checks import assert_matches

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "gemm_bf16_tma.mlir"
CHECK = ROOT / "examples" / "gemm_bf16_tma.check.py"


def labelled(rows: int, columns: int) -> np.ndarray:
    """A uint16 matrix whose element (r, c) is r * 256 + c: every element tells where it
    came from."""
    return (np.arange(rows).reshape(-1, 1) * 256 + np.arange(columns)).astype(np.uint16)


def smem_image(tmap: TensorMap, array: np.ndarray, c0: int, c1: int) -> dict:
    """shared-memory byte address -> byte, as the simulator writes the box."""
    raw = array.reshape(-1).view(np.uint8)
    image = box_image(tmap, raw, array.itemsize, c0, c1)
    addresses = destination_addresses(tmap, 0, array.itemsize)
    return dict(zip(addresses.reshape(-1).tolist(), image.reshape(-1).tolist()))


def element_at(memory: dict, address: int) -> int:
    return memory[address] | memory[address + 1] << 8


@pytest.mark.parametrize("swizzle,span", [("128B", 128), ("64B", 64), ("32B", 32)])
def test_swizzled_box_matches_the_isa_pattern(swizzle, span):
    """5.5.6: with a swizzle of `span` bytes, shared memory is seen as 128-byte lines
    (from an address aligned to the pattern) of 16-byte chunks; in line L the chunk at
    position p holds the data of position p XOR (L mod (span / 16)). A box row of `span`
    bytes at row j starts at byte j * span, so element i of row j is at unswizzled byte
    u = j * span + 2 i: line u // 128, chunk (u % 128) // 16. Derived here by hand."""
    inner = span // 2
    array = labelled(16, 96)
    tmap = TensorMap("A", (96, 16), (96 * 2,), (inner, 16), swizzle)
    memory = smem_image(tmap, array, 8, 0)
    for j in range(16):
        for i in range(inner):
            u = j * span + 2 * i
            line, chunk, within = u // 128, (u % 128) // 16, u % 16
            swizzled = line * 128 + (chunk ^ (line % (span // 16))) * 16 + within
            assert element_at(memory, swizzled) == j * 256 + 8 + i, (j, i)


def test_box_outside_the_tensor_is_zero_filled():
    """Tiled mode (5.5.3): box elements whose coordinates lie outside the tensor read as
    zero. Box {64, 8} at (c0, c1) = (40, 12) of a 16 x 96 tensor: columns 96..103 and
    rows 16..19 are outside; also a negative first coordinate."""
    array = labelled(16, 96)
    tmap = TensorMap("A", (96, 16), (96 * 2,), (64, 8), "none")
    image = box_image(tmap, array.reshape(-1).view(np.uint8), 2, 40, 12).view(np.uint16)
    for j in range(8):
        for i in range(64):
            inside = 40 + i < 96 and 12 + j < 16
            assert image[j, i] == ((12 + j) * 256 + 40 + i if inside else 0)
    image = box_image(tmap, array.reshape(-1).view(np.uint8), 2, -16, 0).view(np.uint16)
    assert (image[:, :16] == 0).all()
    assert image[3, 16] == 3 * 256 + 0


def test_box_inside_a_tensor_with_padded_rows_reads_each_row_at_its_stride():
    """A box wholly inside the tensor (read through strides): a map of the first 96
    columns of a 16 x 128 array (rows 256 bytes apart) and the box {32, 4} at (64, 12),
    its last four rows; then the map of all 128 columns and the box at (96, 12), whose
    last byte is the buffer's last. Row j, column i of the box is element (12 + j,
    c0 + i): labelled, by hand."""
    array = labelled(16, 128)
    raw = array.reshape(-1).view(np.uint8)
    for dims, c0 in (((96, 16), 64), ((128, 16), 96)):
        tmap = TensorMap("A", dims, (128 * 2,), (32, 4), "none")
        image = box_image(tmap, raw, 2, c0, 12).view(np.uint16)
        assert image.shape == (4, 32)
        for j in range(4):
            for i in range(32):
                assert image[j, i] == (12 + j) * 256 + c0 + i, (dims, j, i)
        image[0, 0] = 1   # a copy: the tensor is not written through it
        assert array[12, c0] == 12 * 256 + c0


def test_tensor_map_rules():
    """What cuTensorMapEncodeTiled requires of a map the simulator copies with."""
    with pytest.raises(SimError, match="more than the 128B swizzle span"):
        TensorMap("A", (128, 16), (256,), (128, 16), "128B").check(2)
    with pytest.raises(SimError, match="not a multiple of 16 bytes"):
        TensorMap("A", (100, 16), (200,), (64, 16), "128B").check(2)
    with pytest.raises(SimError, match="outside 1..256"):
        TensorMap("A", (64, 512), (128,), (64, 512), "128B").check(2)


@pytest.fixture(scope="module")
def example():
    return prepare(str(EXAMPLE), str(CHECK), 0)


def fresh(inputs: dict) -> dict:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_example_matches_numpy_race_free(example, schedule):
    """The reference is NumPy's float64 A @ B^T (the check file), within the f32
    summation bound."""
    ptx, manifest, problem, inputs = example
    assert [p.get("tensor_map") for p in manifest["params"]][3:] == [
        {"tensor": "A", "box": [64, 128], "swizzle": "128B"},
        {"tensor": "B", "box": [64, 256], "swizzle": "128B"}]
    assert_matches(problem, inputs, simulate(ptx, manifest, fresh(inputs), schedule=schedule))


def test_explicit_tensor_map_gives_the_same_result(example):
    """The Python launch API takes a TensorMap for a tensor-map parameter."""
    ptx, manifest, problem, inputs = example
    args = fresh(inputs)
    args["tmA"] = TensorMap("A", (512, 128), (1024,), (64, 128), "128B")
    args["tmB"] = TensorMap.of_array("B", args["B"], (64, 256), "128B")
    assert_matches(problem, inputs, simulate(ptx, manifest, args))


def delete_lines(ptx: str, pattern: str, expect: int) -> str:
    lines = ptx.splitlines()
    kept = [line for line in lines if not re.search(pattern, line)]
    assert len(lines) - len(kept) == expect, pattern
    return "\n".join(kept) + "\n"


def full_barrier_register(ptx: str) -> str:
    return re.search(r"complete_tx::bytes \[%r\d+\], \[%rd\d+, \{%r\d+, %r\d+\}\], "
                     r"\[(%r\d+)\];", ptx).group(1)


def test_deleting_the_wait_is_a_race(example):
    """Without the wait on the full mbarrier, the MMA reads the tiles while the TMA
    loads may still write them (their completion is only known through that wait)."""
    ptx, manifest, _, inputs = example
    bar = full_barrier_register(ptx)
    mutant = delete_lines(ptx, rf"try_wait\.parity\.shared::cta\.b64 tcgen05_done, "
                               rf"\[{re.escape(bar)}\]", 1)
    run = simulate(mutant, manifest, fresh(inputs))
    assert any("tcgen05.mma by thread 0 reads shared memory" in r.message and
               "a TMA load (cp.async.bulk.tensor of thread 0) writes" in r.message
               for r in run.races), run.races


def test_deleting_the_expect_tx_deadlocks(example):
    """Without expect_tx the full mbarrier's phase never gets its one arrival: the
    wait never returns, which the simulator reports as a deadlock."""
    ptx, manifest, _, inputs = example
    mutant = delete_lines(ptx, r"mbarrier\.arrive\.expect_tx", 1)
    with pytest.raises(SimError, match="(?i)deadlock"):
        simulate(mutant, manifest, fresh(inputs))


def test_too_few_expected_bytes_are_caught(example):
    """expect_tx of only A's 16384 bytes: the phase completes when A's tile lands, and B's
    complete_tx falls into the next phase; the MMA then reads B's tile unordered."""
    ptx, manifest, _, inputs = example
    mutant = re.sub(r"(mov\.b32\s+%r\d+,) 49152;", r"\1 16384;", ptx)
    assert mutant != ptx
    try:
        run = simulate(mutant, manifest, fresh(inputs))
    except SimError as error:   # or the phases never line up again
        assert "deadlock" in error.message.lower()
        return
    assert run.races, "B's load is not ordered before the MMA"


def test_a_descriptor_address_not_given_is_rejected(example):
    """A tensor-map parameter bound to an array (a pointer, not a tensor map given at
    launch): cp.async.bulk.tensor must refuse the address."""
    ptx, manifest, _, inputs = example
    args = fresh(inputs)
    args["tmA"] = np.zeros(16, np.uint64)   # 128 bytes of something, not a tensor map
    with pytest.raises(SimError, match="the tensor map at address 0x[0-9a-f]+ was not "
                                       "given at launch"):
        simulate(ptx, manifest, args)


def test_a_tensor_map_of_an_array_not_given_is_rejected(example):
    ptx, manifest, _, inputs = example
    args = fresh(inputs)
    args["tmA"] = TensorMap("Z", (512, 128), (1024,), (64, 128), "128B")
    with pytest.raises(SimError, match="describes Z, which is not an array argument"):
        simulate(ptx, manifest, args)


def test_uniform_kernels_without_tma_lower_as_before():
    """Nothing of TMA reaches a kernel that does not use it."""
    ptx = compile_source((ROOT / "examples" / "gemm_bf16_kloop.mlir").read_text(),
                         "gemm_bf16_kloop.mlir").ptx
    assert "cp.async" not in ptx and "expect_tx" not in ptx and "cvta" not in ptx


def test_tensor_name_must_be_an_array_parameter():
    text = EXAMPLE.read_text().replace('tensor = "B"', 'tensor = "C2"')
    with pytest.raises(CompileFailed, match='tensor = "C2" is not an array'):
        compile_source(text, "gemm_bf16_tma.mlir")


def test_cli_binds_tensor_maps_from_the_manifest(tool, tmp_path):
    """tcgen05-sim on the PTX and its manifest: the manifest's tensor_map entries name
    the arrays, so the command line needs no more than for any other kernel."""
    ptx, manifest = tmp_path / "k.ptx", tmp_path / "k.json"
    assert tool("tcgen05-lower", str(EXAMPLE), "-o", str(ptx), "--manifest",
                str(manifest)).returncode == 0
    run = tool("tcgen05-sim", str(ptx), "--manifest", str(manifest), "--check", str(CHECK))
    assert run.returncode == 0, run.stderr
    assert "races: none" in run.stdout and "OK" in run.stdout


MN_MAJOR = ROOT / "tests" / "kernels" / "gemm_tma_mn_major_b.mlir"


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_mn_major_tile_by_tma_matches_numpy(schedule):
    """B stored K x N row-major (N contiguous) fills an MN-major tile with the box {N, K}:
    the simulator's MMA reads the tile through its own MN-major operand model
    (tc_descriptors.mn_major_addresses) and must get NumPy's A @ B, within the bound of
    summing K = 128 products in f32."""
    result = compile_source(MN_MAJOR.read_text(), MN_MAJOR.name)
    rng = np.random.default_rng(1)
    bf16 = np.dtype(ml_dtypes.bfloat16)
    a = rng.uniform(-1, 1, (128, 128)).astype(bf16)
    b = rng.uniform(-1, 1, (128, 64)).astype(bf16)
    c = np.full((128, 64), np.nan, np.float32)
    run = simulate(result.ptx, result.manifest, {"A": a, "B": b, "C": c}, schedule=schedule)
    assert not run.races and not run.problems, (run.races, run.problems)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = 128 * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64)) + 1e-30
    assert (np.abs(run.outputs["C"] - a64 @ b64) <= bound).all()


@requires_ptxas
@pytest.mark.parametrize("target", ["sm_100a", "sm_103a", "sm_110a"])
def test_mn_major_kernel_assembles(target):
    result = compile_source(MN_MAJOR.read_text(), MN_MAJOR.name, arch=target)
    assembled = run_ptxas(result.ptx, arch=target)
    assert assembled.ok, assembled.stderr
