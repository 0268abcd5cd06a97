"""The simulator's float instructions for computed epilogues (tcgen05.frag_map): cvt to
bf16 and to packed fp8, ex2.approx, copysign, fma and sqrt, on hand-written PTX.

Expected values are derived by hand from the PTX ISA's definitions (cvt: .rn rounds to
nearest even; .satfinite clamps beyond MAX_NORM and keeps NaN; of .f8x2type, the value
converted from a goes into the upper byte and b into the lower; copysign d, a, b is b
with a's sign), and checked against ml_dtypes, an independent implementation of the
formats."""

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sim_standins import PlainOrdering  # noqa: E402

from tcgen05_lower.sim.api import simulate  # noqa: E402
from tcgen05_lower.sim.ops_convert import bf16_round, f8_satfinite  # noqa: E402

HEADER = ".version 8.7\n.target sm_100a\n.address_size 64\n"


def run_one(body: str, a: np.ndarray, b: np.ndarray | None = None, out_dtype=np.uint32):
    """Thread i reads a[i] (and b[i]) as .b32, runs `body` (%r1, %r2 -> %r3 or %rs3) and
    stores %r3 (b32) or %rs3 (b16) to out[i]."""
    n = len(a)
    b = np.zeros(n, np.float32) if b is None else b
    wide = np.dtype(out_dtype).itemsize == 4
    text = HEADER + f""".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1,
    .param .u64 k_param_2)
.reqntid {n}, 1, 1
{{
	.reg .b16 %rs<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.b64 %rd1, [k_param_0];
	ld.param.b64 %rd2, [k_param_1];
	ld.param.b64 %rd3, [k_param_2];
	mov.u32 %r6, %tid.x;
	mul.wide.u32 %rd4, %r6, 4;
	add.s64 %rd5, %rd1, %rd4;
	add.s64 %rd6, %rd2, %rd4;
	ld.global.b32 %r1, [%rd5];
	ld.global.b32 %r2, [%rd6];
	{body}
	mul.wide.u32 %rd7, %r6, {4 if wide else 2};
	add.s64 %rd8, %rd3, %rd7;
	{"st.global.b32 [%rd8], %r3;" if wide else "st.global.b16 [%rd8], %rs3;"}
	ret;
}}
"""
    out = np.zeros(n, out_dtype)
    args = {"k_param_0": a.astype(np.float32), "k_param_1": b.astype(np.float32),
            "k_param_2": out}
    result = simulate(text, {}, args, ordering_factory=PlainOrdering, tensor_core=object())
    return result.outputs["k_param_2"] if "k_param_2" in result.outputs else out


def f32_bits(values):
    return np.asarray(values, np.float32).view(np.uint32).astype(np.uint64)


# -- helper functions (hand-derived bit patterns) -------------------------------------------

def test_bf16_round_to_nearest_even():
    one = 1.0
    cases = {
        one: 0x3F80,
        one + 2.0 ** -8: 0x3F80,          # halfway between 1 and 1 + 2^-7: to even (1)
        one + 3 * 2.0 ** -8: 0x3F82,      # halfway between 1 + 2^-7 and 1 + 2^-6: to even
        one + 2.0 ** -8 + 2.0 ** -20: 0x3F81,  # above halfway: up
        -2.5: 0xC020,
        3.4028234663852886e38: 0x7F80,    # f32 max rounds up to +inf
        float("inf"): 0x7F80,
    }
    for value, bits in cases.items():
        assert int(bf16_round(f32_bits([value]))[0]) == bits, value
    nan = int(bf16_round(np.array([0xFFC00001], np.uint64))[0])
    assert nan & 0x7F80 == 0x7F80 and nan & 0x7F and nan & 0x8000  # a NaN, sign kept


def test_bf16_round_agrees_with_ml_dtypes():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(5000).astype(np.float32),
                        rng.uniform(-1e-38, 1e-38, 500).astype(np.float32)])
    want = x.astype(ml_dtypes.bfloat16).view(np.uint16)
    assert np.array_equal(bf16_round(f32_bits(x)).astype(np.uint16), want)


def test_fp8_satfinite():
    e4m3 = f8_satfinite(np.array([1.0, 448.0, 500.0, 1e9, -np.inf, 0.0625, np.nan],
                                 np.float32), "e4m3x2")
    # 1.0 = 0 0111 000; 448 = 0 1111 110 (MAX_NORM); beyond and -inf clamp to +-448;
    # 2^-4 = exponent 3 -> 0 0011 000; NaN = 0 1111 111.
    assert list(e4m3) == [0x38, 0x7E, 0x7E, 0x7E, 0xFE, 0x18, 0x7F]
    e5m2 = f8_satfinite(np.array([1.0, 57344.0, 1e6, -1e6], np.float32), "e5m2x2")
    # 1.0 = 0 01111 00; 57344 = 0 11110 11 (MAX_NORM), and clamped.
    assert list(e5m2) == [0x3C, 0x7B, 0x7B, 0xFB]
    x = np.random.default_rng(2).uniform(-400, 400, 4000).astype(np.float32)
    assert np.array_equal(f8_satfinite(x, "e4m3x2").astype(np.uint8),
                          x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8))


# -- the instructions, executed ---------------------------------------------------------------

def test_cvt_rn_bf16_f32():
    a = np.array([1.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, -2.5], np.float32)
    out = run_one("cvt.rn.bf16.f32 %rs3, %r1;", a, out_dtype=np.uint16)
    assert list(out) == [0x3F80, 0x3F80, 0x3F82, 0xC020]


def test_cvt_rn_satfinite_e4m3x2_packs_a_high_b_low():
    a = np.array([1.0, 500.0], np.float32)
    b = np.array([448.0, 0.0625], np.float32)
    out = run_one("cvt.rn.satfinite.e4m3x2.f32 %rs3, %r1, %r2;", a, b, out_dtype=np.uint16)
    assert list(out) == [0x387E, 0x7E18]


def test_cvt_rn_satfinite_e5m2x2():
    out = run_one("cvt.rn.satfinite.e5m2x2.f32 %rs3, %r1, %r2;",
                  np.array([1.0], np.float32), np.array([-1e6], np.float32),
                  out_dtype=np.uint16)
    assert list(out) == [0x3CFB]


def test_ex2_approx():
    a = np.array([0.0, 1.0, -1.0, 10.0, 0.5, -200.0, 200.0], np.float32)
    out = run_one("ex2.approx.f32 %r3, %r1;", a).view(np.float32)
    # 2^-200 underflows f32 to 0 and 2^200 overflows to +inf; the rest are in range.
    with np.errstate(over="ignore"):
        want = np.exp2(a.astype(np.float64)).astype(np.float32)
    assert np.array_equal(out, want)
    assert out[0] == 1.0 and out[1] == 2.0 and out[2] == 0.5 and out[6] == np.inf


def test_copysign_takes_the_sign_of_a():
    a = np.array([-1.0, 2.0, -0.0], np.float32)
    b = np.array([3.0, -4.0, 5.0], np.float32)
    out = run_one("copysign.f32 %r3, %r1, %r2;", a, b).view(np.float32)
    assert list(out) == [-3.0, 4.0, -5.0]


def test_fma_rounds_once():
    # (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: a separate multiply would round the product to
    # 1 + 2^-11 (losing 2^-24); fma keeps it.
    x = np.float32(1.0 + 2.0 ** -12)
    out = run_one("fma.rn.f32 %r3, %r1, %r1, %r2;", np.array([x], np.float32),
                  np.array([-1.0], np.float32)).view(np.float32)
    assert out[0] == np.float32(2.0 ** -11 + 2.0 ** -24)


def test_sqrt_rn():
    out = run_one("sqrt.rn.f32 %r3, %r1;", np.array([4.0, 2.0], np.float32)).view(np.float32)
    assert out[0] == 2.0 and out[1] == np.float32(np.sqrt(np.float64(2.0)))


@pytest.mark.parametrize("text", ["ex2.f32 %r3, %r1;", "cvt.rz.bf16.f32 %rs3, %r1;",
                                  "cvt.rn.e4m3x2.f32 %rs3, %r1, %r2;"])
def test_unmodelled_forms_are_errors(text):
    from tcgen05_lower.sim.state import SimError
    with pytest.raises(SimError, match="does not implement"):
        run_one(text, np.array([1.0], np.float32), out_dtype=np.uint16)


# -- three-input min / max (sim/minmax3.py) -------------------------------------------------

def test_three_input_max_and_min():
    """max.f32 / min.f32 d, a, b, c (PTX ISA 9.7.3, three inputs from PTX 8.8 on sm_100,
    which LLVM forms from a chain of two-input ones): by hand, with c = 1.0, a NaN input
    ignored and two NaNs leaving the third; .NaN makes any NaN input the canonical NaN."""
    nan = float("nan")
    a = np.array([0.5, 2.0, nan, -3.0, nan, 7.0], np.float32)
    b = np.array([0.25, 3.0, 5.0, nan, nan, -7.0], np.float32)
    got = run_one("max.f32 %r3, %r1, %r2, 0f3F800000;", a, b)
    assert list(got) == list(f32_bits([1.0, 3.0, 5.0, 1.0, 1.0, 7.0]))
    got = run_one("min.f32 %r3, %r1, %r2, 0f3F800000;", a, b)
    assert list(got) == list(f32_bits([0.25, 1.0, 1.0, -3.0, 1.0, -7.0]))
    got = run_one("max.NaN.f32 %r3, %r1, %r2, 0f3F800000;", a, b)
    assert list(got) == [int(x) for x in f32_bits([1.0, 3.0])] + [0x7FFFFFFF] * 3 + \
        [int(f32_bits([7.0])[0])]
