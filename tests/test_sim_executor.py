"""The simulator's PTX executor on small hand-written kernels: control flow, predicates,
every ALU operation the pipeline emits (against NumPy or hand-derived values from the PTX
ISA's definitions), memories and their bounds, synchronization, and errors.

The ordering model is a stand-in here (tests/sim_standins.py): these kernels issue no
asynchronous tcgen05 operation."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sim_standins import PlainOrdering  # noqa: E402

from tcgen05_lower.sim import ptx as P  # noqa: E402
from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.executor import SMEM_BASE  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402

HEADER = """.version 8.6
.target sm_100a
.address_size 64
"""


def kernel(body: str, params=(".u64 .ptr .global .align 1 k_param_0",), threads=64,
           extra="") -> str:
    plist = ",\n".join(f"\t.param {p}" for p in params)
    return (HEADER + extra + f".visible .entry k(\n{plist}\n)\n.reqntid {threads}, 1, 1\n{{\n"
            "\t.reg .pred %p<9>;\n\t.reg .b16 %rs<9>;\n\t.reg .b32 %r<40>;\n"
            "\t.reg .b64 %rd<40>;\n" + body + "\n}\n")


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line containing ``needle``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def run(text, args, threads=None, **kw):
    return simulate(text, {}, args, ordering_factory=PlainOrdering, tensor_core=object(), **kw)


# -- control flow ---------------------------------------------------------------------------
DIVERGE = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r2, %tid.x;
	and.b32 	%r3, %r2, 1;
	setp.eq.b32 	%p1, %r3, 0;
	@%p1 bra 	$EVEN;
	mul.lo.s32 	%r4, %r2, 7;
	bra.uni 	$JOIN;
$EVEN:
	add.s32 	%r4, %r2, 1000;
$JOIN:
	mul.wide.u32 	%rd2, %r2, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r4;
	ret;
"""


def test_divergent_branches_reconverge():
    out = np.zeros(64, np.int32)
    result = run(kernel(DIVERGE), {"k_param_0": out})
    tid = np.arange(64)
    # hand-derived: even threads tid + 1000, odd threads 7 * tid
    assert np.array_equal(out, np.where(tid % 2 == 0, tid + 1000, 7 * tid))
    # the store after the join runs once per warp: both halves reconverged before it
    assert result.counts["st.global.b32"] == 2
    assert result.counts["mul.lo.s32"] == 2 and result.counts["add.s32"] == 2


LOOP = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mov.b32 	%r2, 0;
	mov.b32 	%r3, 0;
$LOOP:
	setp.ge.u32 	%p1, %r3, %r1;
	@%p1 bra 	$DONE;
	add.s32 	%r2, %r2, %r3;
	add.s32 	%r3, %r3, 1;
	bra.uni 	$LOOP;
$DONE:
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r2;
	ret;
"""


def test_loop_with_per_thread_trip_count():
    out = np.zeros(64, np.uint32)
    run(kernel(LOOP), {"k_param_0": out})
    tid = np.arange(64)
    assert np.array_equal(out, tid * (tid - 1) // 2)  # sum of 0 .. tid-1


def test_guarded_store_and_negated_guard():
    body = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	setp.lt.u32 	%p1, %r1, 10;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	@%p1 st.global.b32 	[%rd3], %r1;
	mov.b32 	%r2, 99;
	@!%p1 st.global.b32 	[%rd3], %r2;
	ret;
"""
    out = np.zeros(64, np.uint32)
    run(kernel(body), {"k_param_0": out})
    tid = np.arange(64)
    assert np.array_equal(out, np.where(tid < 10, tid, 99))


# -- ALU semantics ----------------------------------------------------------------------------
def alu_kernel(op: str, dtype_bits: int, nsrc: int = 2, dst_bits: int | None = None) -> str:
    """out[tid] = OP(a[tid], b[tid]) for three arrays of the given width."""
    dst_bits = dst_bits or dtype_bits
    reg = {32: "%r", 64: "%rd", 16: "%rs"}
    s = reg[dtype_bits]
    d = reg[dst_bits]
    loads = "".join(
        f"\tld.param.b64 %rd{10 + i}, [k_param_{i}];\n"
        f"\tmul.wide.u32 %rd{20 + i}, %r1, {dtype_bits // 8};\n"
        f"\tadd.s64 %rd{10 + i}, %rd{10 + i}, %rd{20 + i};\n"
        f"\tld.global.b{dtype_bits} {s}{30 + i}, [%rd{10 + i}];\n" for i in range(nsrc))
    srcs = ", ".join(f"{s}{30 + i}" for i in range(nsrc))
    return kernel(
        "\tmov.u32 %r1, %tid.x;\n" + loads +
        f"\t{op} {d}{35}, {srcs};\n"
        f"\tld.param.b64 %rd5, [k_param_{nsrc}];\n"
        f"\tmul.wide.u32 %rd6, %r1, {dst_bits // 8};\n"
        "\tadd.s64 %rd5, %rd5, %rd6;\n"
        f"\tst.global.b{dst_bits} [%rd5], {d}35;\n\tret;",
        params=[f".u64 k_param_{i}" for i in range(nsrc + 1)])


RNG = np.random.default_rng(7)
U32 = np.concatenate([RNG.integers(0, 2**32, 56, dtype=np.uint64),
                      [0, 1, 2**31 - 1, 2**31, 2**32 - 1, 5, 31, 32]]).astype(np.uint32)
V32 = np.concatenate([RNG.integers(0, 2**32, 56, dtype=np.uint64),
                      [0, 3, 2**31, 1, 2**32 - 1, 33, 32, 31]]).astype(np.uint32)
U64 = np.concatenate([RNG.integers(0, 2**63, 56, dtype=np.uint64) * np.uint64(2) + np.uint64(1),
                      np.array([0, 1, 2**63, 2**64 - 1, 63, 64, 7, 2**32], np.uint64)])
V64 = np.concatenate([RNG.integers(0, 2**63, 56, dtype=np.uint64) * np.uint64(3),
                      np.array([5, 2**64 - 1, 2**63, 2**64 - 1, 1, 0, 64, 65], np.uint64)])

CASES_32 = {
    "add.s32": lambda a, b: a + b,
    "sub.s32": lambda a, b: a - b,
    "mul.lo.s32": lambda a, b: a * b,
    "and.b32": lambda a, b: a & b,
    "or.b32": lambda a, b: a | b,
    "xor.b32": lambda a, b: a ^ b,
    "min.s32": lambda a, b: np.minimum(a.view(np.int32), b.view(np.int32)).view(np.uint32),
    "max.u32": np.maximum,
    # shifts clamp amounts larger than the width (9.7.8.x): shl gives 0, shr.u 0
    "shl.b32": lambda a, b: np.where(b >= 32, 0, a.astype(np.uint64) << np.minimum(b, 31)
                                     ).astype(np.uint32),
    "shr.u32": lambda a, b: np.where(b >= 32, 0, a >> np.minimum(b, 31)).astype(np.uint32),
    "shr.s32": lambda a, b: (a.view(np.int32) >> np.minimum(b, 31).astype(np.int32)
                             ).view(np.uint32),
}


@pytest.mark.parametrize("op", sorted(CASES_32))
def test_alu_32_bit_against_numpy(op):
    out = np.zeros(64, np.uint32)
    b = V32 % 40 if op.startswith("sh") else V32
    run(alu_kernel(op, 32), {"k_param_0": U32.copy(), "k_param_1": b.copy(), "k_param_2": out})
    with np.errstate(over="ignore"):
        expect = CASES_32[op](U32, b).astype(np.uint32)
    assert np.array_equal(out, expect)


CASES_64 = {
    "add.s64": lambda a, b: a + b,
    "and.b64": lambda a, b: a & b,
    "or.b64": lambda a, b: a | b,
    "xor.b64": lambda a, b: a ^ b,
    "mul.lo.s64": lambda a, b: a * b,
    "mul.hi.u64": lambda a, b: np.array([(int(x) * int(y)) >> 64 for x, y in zip(a, b)],
                                        np.uint64),
    "mul.hi.s64": lambda a, b: np.array(
        [((int(x.view(np.int64)) * int(y.view(np.int64))) >> 64) & (2**64 - 1)
         for x, y in zip(a, b)], np.uint64),
    "shl.b64": lambda a, b: np.where(b >= 64, 0, a << np.minimum(b, 63)),
    "shr.u64": lambda a, b: np.where(b >= 64, 0, a >> np.minimum(b, 63)),
}


@pytest.mark.parametrize("op", sorted(CASES_64))
def test_alu_64_bit_against_numpy_and_python_integers(op):
    out = np.zeros(64, np.uint64)
    b = V64 % 70 if op.startswith("sh") else V64
    if op.startswith("sh"):  # the shift amount is a .u32 register
        text = alu_kernel(op, 64).replace(f"{op} %rd35, %rd30, %rd31",
                                          f"cvt.u32.u64 %r9, %rd31;\n\t{op} %rd35, %rd30, %r9")
    else:
        text = alu_kernel(op, 64)
    run(text, {"k_param_0": U64.copy(), "k_param_1": b.copy(), "k_param_2": out})
    with np.errstate(over="ignore"):
        assert np.array_equal(out, CASES_64[op](U64, b).astype(np.uint64))


def test_mul_wide_and_mad_lo():
    out = np.zeros(64, np.uint64)
    run(alu_kernel("mul.wide.u32", 32, dst_bits=64),
        {"k_param_0": U32.copy(), "k_param_1": V32.copy(), "k_param_2": out})
    assert np.array_equal(out, U32.astype(np.uint64) * V32.astype(np.uint64))
    out = np.zeros(64, np.uint64)
    run(alu_kernel("mul.wide.s32", 32, dst_bits=64),
        {"k_param_0": U32.copy(), "k_param_1": V32.copy(), "k_param_2": out})
    expect = (U32.view(np.int32).astype(np.int64) * V32.view(np.int32)).view(np.uint64)
    assert np.array_equal(out, expect)
    out = np.zeros(64, np.uint64)
    run(alu_kernel("mad.lo.s64", 64, nsrc=3),
        {"k_param_0": U64.copy(), "k_param_1": V64.copy(), "k_param_2": U64[::-1].copy(),
         "k_param_3": out})
    with np.errstate(over="ignore"):
        assert np.array_equal(out, U64 * V64 + U64[::-1])


@pytest.mark.parametrize("op,bits", [("bfe.u32", 32), ("bfe.s32", 32), ("bfe.u64", 64),
                                     ("bfe.s64", 64)])
def test_bfe_against_the_isa_definition(op, bits):
    """bfe (9.7.2): d[i] = a[pos + i] for i < len and pos + i <= msb, else the sign bit
    a[min(pos + len - 1, msb)] (.s) or 0 (.u); written bit by bit in Python here."""
    a = (U32 if bits == 32 else U64).copy()
    pos = (np.arange(64) * 7 % (bits + 4)).astype(np.uint32)
    length = (np.arange(64) * 5 % (bits + 3)).astype(np.uint32)
    reg = "%r" if bits == 32 else "%rd"
    body = (
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd20, %r1, 4;\n"
        f"\tmul.wide.u32 %rd21, %r1, {bits // 8};\n"
        "\tld.param.b64 %rd10, [k_param_0];\n\tadd.s64 %rd10, %rd10, %rd21;\n"
        f"\tld.global.b{bits} {reg}30, [%rd10];\n"
        "\tld.param.b64 %rd11, [k_param_1];\n\tadd.s64 %rd11, %rd11, %rd20;\n"
        "\tld.global.b32 %r31, [%rd11];\n"
        "\tld.param.b64 %rd12, [k_param_2];\n\tadd.s64 %rd12, %rd12, %rd20;\n"
        "\tld.global.b32 %r32, [%rd12];\n"
        f"\t{op} {reg}35, {reg}30, %r31, %r32;\n"
        "\tld.param.b64 %rd13, [k_param_3];\n\tadd.s64 %rd13, %rd13, %rd21;\n"
        f"\tst.global.b{bits} [%rd13], {reg}35;\n\tret;")
    text = kernel(body, params=[f".u64 k_param_{i}" for i in range(4)])
    out = np.zeros(64, a.dtype)
    run(text, {"k_param_0": a, "k_param_1": pos, "k_param_2": length, "k_param_3": out})
    signed = op.startswith("bfe.s")
    for t in range(64):
        x, p, n = int(a[t]), int(pos[t]), int(length[t])
        sbit = 0 if not signed or n == 0 else (x >> min(p + n - 1, bits - 1)) & 1
        d = 0
        for i in range(bits):
            bit = (x >> (p + i)) & 1 if i < n and p + i <= bits - 1 else sbit
            d |= bit << i
        assert int(out[t]) == d, (t, x, p, n)


def test_setp_selp_cvt_and_predicate_logic():
    body = """
	mov.u32 	%r1, %tid.x;
	ld.param.b64 	%rd1, [k_param_0];
	mul.wide.u32 	%rd2, %r1, 8;
	add.s64 	%rd3, %rd1, %rd2;
	cvt.u64.u32 	%rd4, %r1;
	sub.s32 	%r2, %r1, 32;
	cvt.s64.s32 	%rd5, %r2;
	setp.gt.s64 	%p1, %rd5, -5;
	setp.ne.b64 	%p2, %rd4, 40;
	and.pred 	%p3, %p1, %p2;
	not.pred 	%p4, %p3;
	selp.b64 	%rd6, %rd5, 777, %p4;
	st.global.b64 	[%rd3], %rd6;
	ret;
"""
    out = np.zeros(64, np.int64)
    run(kernel(body), {"k_param_0": out})
    tid = np.arange(64)
    s = tid - 32
    cond = (s > -5) & (tid != 40)
    assert np.array_equal(out, np.where(~cond, s, 777))


def test_max_nan_f32_and_float_immediates():
    body = """
	mov.u32 	%r1, %tid.x;
	ld.param.b64 	%rd1, [k_param_0];
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	ld.global.b32 	%r2, [%rd3];
	max.NaN.f32 	%r3, %r2, 0f3F800000;
	st.global.b32 	[%rd3], %r3;
	ret;
"""
    data = np.linspace(-3, 3, 64).astype(np.float32)
    data[5] = np.nan
    expect = np.maximum(data, np.float32(1.0))  # NaN propagates (.NaN)
    run(kernel(body), {"k_param_0": data})
    assert np.array_equal(np.isnan(data), np.isnan(expect))
    assert np.array_equal(data[~np.isnan(data)], expect[~np.isnan(expect)])


def test_shfl_sync_bfly():
    body = """
	mov.u32 	%r1, %tid.x;
	mul.lo.s32 	%r2, %r1, 3;
	shfl.sync.bfly.b32 	%r3, %r2, 5, 31, -1;
	ld.param.b64 	%rd1, [k_param_0];
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r3;
	ret;
"""
    out = np.zeros(64, np.uint32)
    run(kernel(body), {"k_param_0": out})
    tid = np.arange(64)
    src = (tid // 32) * 32 + ((tid % 32) ^ 5)  # butterfly within each warp
    assert np.array_equal(out, 3 * src)


# -- memories -------------------------------------------------------------------------------
def test_out_of_bounds_global_store_names_line_and_address():
    body = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3+4], %r1;
	ret;
"""
    with pytest.raises(SimError) as err:
        run(kernel(body), {"k_param_0": np.zeros(64, np.uint32)})
    text = str(err.value)
    assert f"PTX line {line_of(kernel(body), 'st.global')}:" in text and "out-of-bounds global store" in text
    assert "st.global.b32" in text
    # thread 63 writes 4 bytes at base + 256: one past the 256-byte array
    assert hex(0x7F00_0000_0000 + 256) in text


def test_misaligned_global_load_is_an_error():
    body = """
	ld.param.b64 	%rd1, [k_param_0];
	ld.global.b32 	%r1, [%rd1+2];
	ret;
"""
    with pytest.raises(SimError, match="misaligned load"):
        run(kernel(body), {"k_param_0": np.zeros(64, np.uint32)})


SHARED = """
	.shared .align 8 .b8 small[12];
	.shared .align 16 .b8 vec[32];
	mov.u32 	%r1, %tid.x;
	mov.b64 	%rd1, small;
	mov.b64 	%rd2, vec;
	mov.b64 	%rd3, dyn;
	ld.param.b64 	%rd10, [k_param_0];
	setp.eq.b32 	%p1, %r1, 0;
	@%p1 st.global.b64 	[%rd10], %rd1;
	@%p1 st.global.b64 	[%rd10+8], %rd2;
	@%p1 st.global.b64 	[%rd10+16], %rd3;
	cvt.u32.u64 	%r2, %rd3;
	shl.b32 	%r3, %r1, 2;
	add.s32 	%r4, %r2, %r3;
	st.shared.b32 	[%r4], %r1;
	barrier.sync 	0;
	xor.b32 	%r5, %r1, 1;
	shl.b32 	%r6, %r5, 2;
	add.s32 	%r7, %r2, %r6;
	ld.shared.b32 	%r8, [%r7];
	mul.wide.u32 	%rd4, %r1, 4;
	add.s64 	%rd5, %rd10, %rd4;
	st.global.b32 	[%rd5+24], %r8;
	ret;
"""


def test_shared_layout_alignment_and_a_barrier_exchange():
    text = kernel(SHARED, extra=".extern .shared .align 1024 .b8 dyn[];\n")
    out = np.zeros(6 + 64, np.uint32)
    result = simulate(text, {"dynamic_smem_bytes": 256}, {"k_param_0": out},
                      ordering_factory=PlainOrdering, tensor_core=object())
    addrs = out[:6].view(np.uint64)
    # static variables in order at their alignment from SMEM_BASE, then the dynamic
    # segment at its own (1024) alignment
    assert list(addrs) == [SMEM_BASE, SMEM_BASE + 16, 2 * 1024]
    tid = np.arange(64)
    assert np.array_equal(out[6:], tid ^ 1)  # each thread read its neighbour's store
    assert result.counts["barrier.sync"] == 2


def test_shared_access_past_the_dynamic_segment_is_an_error():
    body = """
	mov.b64 	%rd3, dyn;
	cvt.u32.u64 	%r2, %rd3;
	ld.shared.b32 	%r8, [%r2+256];
	ret;
"""
    text = kernel(body, extra=".extern .shared .align 1024 .b8 dyn[];\n")
    with pytest.raises(SimError, match="out-of-bounds shared-memory load"):
        simulate(text, {"dynamic_smem_bytes": 256}, {"k_param_0": np.zeros(1)},
                 ordering_factory=PlainOrdering, tensor_core=object())


# -- synchronization and errors ---------------------------------------------------------------
MBARRIER = """
	.shared .align 8 .b8 bar[8];
	mov.u32 	%r1, %tid.x;
	mov.b64 	%rd1, bar;
	cvt.u32.u64 	%r2, %rd1;
	setp.eq.b32 	%p1, %r1, 0;
	setp.eq.b32 	%p2, %r1, 63;
	mov.b32 	%r3, 1;
	@%p1 mbarrier.init.shared::cta.b64 [%r2], %r3;
	barrier.sync 0;
	mov.b32 	%r4, 0;
	{ .reg .pred done; wait: mbarrier.try_wait.parity.shared::cta.b64 done, [%r2], %r4; @!done bra wait; }
	@%p2 mbarrier.arrive.shared::cta.b64 %rd5, [%r2];
	ret;
"""


def test_mbarrier_wait_that_nobody_completes_is_a_deadlock():
    # thread 63 arrives only after its own wait: every thread waits forever
    with pytest.raises(SimError) as err:
        run(kernel(MBARRIER), {"k_param_0": np.zeros(1)})
    line = line_of(kernel(MBARRIER), "try_wait")
    assert "deadlock" in str(err.value) and f"waits at line {line} " in str(err.value)


def test_block_local_labels_and_mbarrier_phases():
    body = MBARRIER.replace(
        "\tmov.b32 \t%r4, 0;\n",
        "\t@%p2 mbarrier.arrive.shared::cta.b64 %rd6, [%r2];\n\tmov.b32 \t%r4, 0;\n"
    ).replace("\t@%p2 mbarrier.arrive.shared::cta.b64 %rd5, [%r2];\n", "")
    # the same inline block twice: its label and .reg are renamed per block
    twice = body.replace("\tret;", "\t{ .reg .pred done; wait: mbarrier.try_wait.parity"
                                   ".shared::cta.b64 done, [%r2], %r4; @!done bra wait; }\n"
                                   "\tret;")
    module = P.parse(kernel(twice))
    names = [i.operands[0].name for i in module.entry().instructions if i.opcode == "bra"]
    assert len(set(names)) == 2
    result = run(kernel(twice), {"k_param_0": np.zeros(1)})
    assert result.counts["mbarrier.try_wait.parity.shared::cta.b64"] == 4  # 2 warps x 2


def test_unknown_instruction_names_the_line():
    body = "\tmov.u32 %r1, %tid.x;\n\tpopc.b32 %r2, %r1;\n\tret;"
    with pytest.raises(SimError) as err:
        run(kernel(body), {"k_param_0": np.zeros(1)})
    assert f"PTX line {line_of(kernel(body), 'popc')}:" in str(err.value)
    assert "popc.b32" in str(err.value)


def test_unknown_modifier_is_an_error():
    body = "\tmov.u32 %r1, %tid.x;\n\tadd.sat.s32 %r2, %r1, %r1;\n\tret;"
    with pytest.raises(SimError, match="does not implement 'add.sat.s32'"):
        run(kernel(body), {"k_param_0": np.zeros(1)})


def test_warp_collective_op_in_divergent_code_is_an_error():
    body = """
	mov.u32 	%r1, %tid.x;
	setp.lt.u32 	%p1, %r1, 5;
	@%p1 bra 	$SKIP;
	shfl.sync.bfly.b32 	%r3, %r1, 1, 31, -1;
$SKIP:
	ret;
"""
    with pytest.raises(SimError, match="warp-collective"):
        run(kernel(body), {"k_param_0": np.zeros(1)})


def test_special_registers_of_a_cta_pair():
    body = """
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %cluster_ctarank;
	mov.u32 	%r3, %laneid;
	mov.u32 	%r4, %warpid;
	mov.u32 	%r5, %cluster_nctarank;
	mad.lo.s32 	%r6, %r2, 100000, %r1;
	mad.lo.s32 	%r7, %r4, 1000, %r3;
	mad.lo.s32 	%r6, %r5, 10000000, %r6;
	add.s32 	%r6, %r6, %r7;
	shl.b32 	%r8, %r2, 6;
	add.s32 	%r8, %r8, %r1;
	ld.param.b64 	%rd1, [k_param_0];
	mul.wide.u32 	%rd2, %r8, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r6;
	ret;
"""
    text = kernel(body).replace(".reqntid 64, 1, 1", ".reqntid 64, 1, 1\n"
                                ".reqnctapercluster 2, 1, 1\n.explicitcluster")
    out = np.zeros(128, np.uint32)
    run(text, {"k_param_0": out})
    g = np.arange(128)
    rank, tid = g // 64, g % 64
    assert np.array_equal(out, 2 * 10000000 + rank * 100000 + tid + (tid // 32) * 1000
                          + tid % 32)


# -- vector global stores (st.global.v4.b32, what store_fragment emits under llvm.align) -----
V4_STORE = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mul.lo.s32 	%r2, %r1, 10;
	add.s32 	%r3, %r2, 1;
	add.s32 	%r4, %r2, 2;
	add.s32 	%r5, %r2, 3;
	mul.wide.u32 	%rd2, %r1, {stride};
	add.s64 	%rd3, %rd1, %rd2;
	st.global.v4.b32 	[%rd3+16], {{%r2, %r3, %r4, %r5}};
	ret;
"""


def test_vector_store_writes_four_words_in_order():
    """PTX ISA 9.7.9.9 (st): .v4 stores the four registers at consecutive element
    addresses, the first at the address. Hand-derived: thread t writes 10t, 10t + 1,
    10t + 2, 10t + 3 to words 8t + 4 .. 8t + 7 (32-byte stride, 16-byte offset)."""
    out = np.zeros(64 * 8, np.uint32)
    result = run(kernel(V4_STORE.format(stride=32)), {"k_param_0": out})
    want = np.zeros(64 * 8, np.uint32)
    for t in range(64):
        want[8 * t + 4: 8 * t + 8] = [10 * t, 10 * t + 1, 10 * t + 2, 10 * t + 3]
    assert np.array_equal(out, want)
    assert result.counts["st.global.v4.b32"] == 2


def test_misaligned_vector_store_is_an_error():
    """A vector access must be aligned to its whole size (9.7.9.9): with an 8-byte
    stride every odd thread's 16-byte store is misaligned."""
    out = np.zeros(64 * 8, np.uint32)
    with pytest.raises(SimError, match="misaligned store of 16 bytes"):
        run(kernel(V4_STORE.format(stride=8)), {"k_param_0": out})


MOV_VECTOR = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	mul.lo.s32 	%r2, %r1, 65537;
	add.s32 	%r2, %r2, 65536;
	mov.b32 	{%rs1, %rs2}, %r2;
	mov.b32 	%r3, {%rs2, %rs1};
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r3;
	ret;
"""


def test_mov_unpacks_and_packs_low_part_first():
    """mov's vector forms (PTX ISA, mov): ``mov.b32 {a, b}, r`` puts r's low 16 bits in a
    and its high 16 bits in b; ``mov.b32 r, {a, b}`` puts a low. Hand-derived: thread t
    builds r = 65537 t + 65536 (low half t, high half t + 1), unpacks it and packs the
    halves swapped: low half t + 1, high half t, i.e. 65536 t + t + 1."""
    out = np.zeros(64, np.uint32)
    run(kernel(MOV_VECTOR), {"k_param_0": out})
    tid = np.arange(64, dtype=np.uint32)
    assert np.array_equal(out, (tid << 16) + tid + 1)
