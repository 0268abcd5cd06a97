"""Instructions Triton's Blackwell tutorials emit around tcgen05 (tests/test_sim_peer_tutorials.py):
``prmt.b32`` (its persistent fp8 matmul packs e4m3 bytes with it), the packed
``add / sub / mul / fma .f32x2`` and ``div.full.f32`` (its fused attention's softmax), and
a float kernel parameter (the attention's ``sm_scale``), on hand-written PTX.

Expected values are derived by hand from the PTX ISA's definitions (9.7.8 prmt: result
byte i is the byte of {b, a} that selector nibble i names, bytes 0-3 a's, 4-7 b's, least
significant first, or with the nibble's top bit set that byte's sign replicated; 9.7.3
.f32x2: the .f32 operation on bits 0-31 and on bits 32-63 independently, rounded to
nearest even; fma rounds once; div.full.f32 is within 2 ulp of the quotient)."""

import struct
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from sim_standins import PlainOrdering  # noqa: E402
from test_sim_float_ops import run_one  # noqa: E402

from tcgen05_lower.sim.api import LaunchError, simulate  # noqa: E402
from tcgen05_lower.sim.state import SimError  # noqa: E402


def words(*values) -> np.ndarray:
    """32-bit patterns as the float32 array run_one passes (bits unchanged)."""
    return np.array(values, np.uint32).view(np.float32)


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


@pytest.mark.parametrize("selector, expected", [
    (0x3340, 0x44445511),  # nibbles 0, 4, 3, 3: a.byte0, b.byte0, a.byte3, a.byte3
    (0x5410, 0x66552211),  # a's low half, then b's: the fp8 packing Triton uses
    (0x7654, 0x88776655),  # all of b
    (0x000F, 0x111111FF),  # nibble 0xF: sign of byte 7 (b's byte 3, 0x88) -> 0xFF
    (0x000B, 0x11111100),  # nibble 0xB: sign of byte 3 (a's byte 3, 0x44) -> 0x00
])
def test_prmt_generic_mode_by_hand(selector, expected):
    out = run_one(f"prmt.b32 %r3, %r1, %r2, {selector:#x};", words(0x44332211),
                  words(0x88776655))
    assert int(out[0]) == expected


def test_prmt_sign_mode_replicates_the_selected_bytes_top_bit():
    # a = 0x000000F0: nibble 8 selects byte 0 (0xF0, top bit 1) -> 0xFF; nibbles 0 copy it
    out = run_one("prmt.b32 %r3, %r1, %r2, 0x0008;", words(0x000000F0), words(0))
    assert int(out[0]) == 0xF0F0F0FF
    out = run_one("prmt.b32 %r3, %r1, %r2, 0x0008;", words(0x00000070), words(0))
    assert int(out[0]) == 0x70707000  # top bit 0 -> 0x00


def test_prmt_other_modes_are_refused_by_name():
    with pytest.raises(SimError, match="prmt.b32.f4e"):
        run_one("prmt.b32.f4e %r3, %r1, %r2, 0;", words(1), words(2))


def packed_body(op: str, half: str) -> str:
    """%rd9 = {r1, r2}, %rd10 = {r2, r1} (first register in bits 0-31); `op` on them; the
    low or high half of the result to %r3."""
    keep = "{%r3, %r4}" if half == "low" else "{%r4, %r3}"
    return ("mov.b64 %rd9, {%r1, %r2};\n\tmov.b64 %rd10, {%r2, %r1};\n\t"
            f"{op}\n\tmov.b64 {keep}, %rd11;")


@pytest.mark.parametrize("op, half, a, b, expected", [
    ("sub.f32x2 %rd11, %rd9, %rd10;", "low", 1.5, 0.25, 1.25),     # r1 - r2
    ("sub.f32x2 %rd11, %rd9, %rd10;", "high", 1.5, 0.25, -1.25),   # r2 - r1
    ("mul.rn.f32x2 %rd11, %rd9, %rd9;", "high", 1.5, 0.25, 0.0625),  # r2 * r2
    # 1 + 2^-24 is a tie between 1 and 1 + 2^-23: to even, 1 (f32, not float64)
    ("add.f32x2 %rd11, %rd9, %rd10;", "low", 1.0, 2.0 ** -24, 1.0),
])
def test_f32x2_each_half_as_the_f32_form(op, half, a, b, expected):
    out = run_one(packed_body(op, half), np.array([a], np.float32), np.array([b], np.float32))
    assert int(out[0]) == f32_bits(expected)


def test_fma_f32x2_rounds_once():
    # (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly; rounding the product first would give
    # 1 + 2^-11 (the 2^-24 bit is a tie, to even) and then 2^-11
    body = ("mov.b64 %rd9, {%r1, %r1};\n\tmov.b64 %rd10, {%r2, %r2};\n\t"
            "fma.rn.f32x2 %rd11, %rd9, %rd9, %rd10;\n\tmov.b64 {%r3, %r4}, %rd11;")
    out = run_one(body, np.array([1 + 2.0 ** -12], np.float32), np.array([-1.0], np.float32))
    assert int(out[0]) == f32_bits(2.0 ** -11 + 2.0 ** -24)


def test_f32x2_ftz_is_refused_by_name():
    with pytest.raises(SimError, match="add.ftz.f32x2"):
        run_one(packed_body("add.ftz.f32x2 %rd11, %rd9, %rd10;", "low"),
                np.ones(1, np.float32), np.ones(1, np.float32))


def test_div_full_f32_is_within_two_ulp():
    a = np.array([1.0, 2.0, -7.0, 1e30], np.float32)
    b = np.array([3.0, 0.5, 9.0, 7e-9], np.float32)
    out = run_one("div.full.f32 %r3, %r1, %r2;", a, b).view(np.float32)
    exact = a.astype(np.float64) / b.astype(np.float64)
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert np.all(np.abs(out.astype(np.float64) - exact) <= 2 * ulp)
    assert out[1] == 4.0  # an exact quotient is exact


FLOAT_PARAM = """.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .f32 k_param_0, .param .u64 k_param_1)
.reqntid 1, 1, 1
{
	.reg .f32 %f<2>;
	.reg .b64 %rd<3>;
	ld.param.f32 %f1, [k_param_0];
	ld.param.u64 %rd1, [k_param_1];
	st.global.f32 [%rd1], %f1;
	ret;
}
"""


def manifest(float_flag):
    scale = {"name": "scale", "pointer": False}
    if float_flag is not None:
        scale["float"] = float_flag
    return {"entry": "k", "threads": 1, "grid": [1, 1, 1],
            "params": [scale, {"name": "out", "pointer": True}]}


def test_a_float_parameter_the_manifest_marks_float_is_passed_as_f32():
    out = np.zeros(1, np.float32)
    result = simulate(FLOAT_PARAM, manifest(True), {"scale": 0.125, "out": out},
                      ordering_factory=PlainOrdering, tensor_core=object())
    assert result.outputs["out"][0] == np.float32(0.125)


@pytest.mark.parametrize("flag, message", [
    (None, r"scale is an integer, the PTX's k_param_0 is \.f32 \(a float parameter says"),
    ("yes", r"scale has \"float\": 'yes', not true or false"),
])
def test_a_float_parameter_without_the_mark_is_bad_input(flag, message):
    with pytest.raises(LaunchError, match=message):
        simulate(FLOAT_PARAM, manifest(flag), {"scale": 0.125, "out": np.zeros(1, np.float32)},
                 ordering_factory=PlainOrdering, tensor_core=object())
