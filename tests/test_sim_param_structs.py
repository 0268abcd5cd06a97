"""The PTX forms CuTe DSL's Blackwell GEMM brings around tcgen05, on small hand-written
kernels: kernel parameters passed by value as structs (``.param .align N .b8 p[size]``
holding a global address and integers, described in the manifest field by field),
``cvta.to.global``, ``prefetch.tensormap`` and TMA loads with ``.L2::cache_hint``.
Expected values are derived by hand from the PTX ISA sections each test names."""

import numpy as np
import pytest

from tcgen05_lower.sim.api import LaunchError, simulate
from tcgen05_lower.sim.state import SimError

HEADER = """.version 8.8
.target sm_100a
.address_size 64
"""


def kernel(body: str, params: tuple, threads: int = 32) -> str:
    plist = ",\n".join(f"\t.param {p}" for p in params)
    return (HEADER + f".visible .entry k(\n{plist}\n)\n.reqntid {threads}\n{{\n"
            "\t.reg .pred %p<9>;\n\t.reg .b16 %rs<9>;\n\t.reg .b32 %r<60>;\n"
            "\t.reg .b64 %rd<40>;\n" + body + "\n}\n")


# -- a by-value struct (PTX ISA 5.1.6.1: ld.param reads a kernel parameter's bytes) --------
# The 32-byte struct k_param_0 holds the address of `out` at byte 0, a .u32 at 8, a .u8 at
# 12 and a .s16 at 14; bytes 16-31 no field covers. Thread 0 converts the address to a
# global one (cvta.to.global) and stores the u32, the u8, the s16 (sign-extended) and the
# 32-bit word at byte 16 into out[0..3].
STRUCT = """
	ld.param.b64 	%rd1, [k_param_0];
	ld.param.b32 	%r1, [k_param_0+8];
	ld.param.u8 	%rs1, [k_param_0+12];
	ld.param.s16 	%rs2, [k_param_0+14];
	ld.param.b32 	%r4, [k_param_0+16];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r5, %tid.x;
	setp.ne.u32 	%p1, %r5, 0;
	@%p1 bra 	$DONE;
	cvt.u32.u16 	%r2, %rs1;
	cvt.s32.s16 	%r3, %rs2;
	st.global.b32 	[%rd2], %r1;
	st.global.b32 	[%rd2+4], %r2;
	st.global.b32 	[%rd2+8], %r3;
	st.global.b32 	[%rd2+12], %r4;
$DONE:
	ret;
"""
STRUCT_PARAMS = (".align 16 .b8 k_param_0[32]",)


def struct_manifest(fields):
    return {"entry": "k", "threads": 32,
            "params": [{"name": "args", "pointer": False, "fields": fields}]}


FIELDS = [{"offset": 0, "array": "out"}, {"offset": 8, "type": "u32", "value": 123456789},
          {"offset": 12, "type": "u8", "value": 200},
          {"offset": 14, "type": "s16", "value": -5}]


def test_struct_fields_are_the_bytes_ld_param_reads():
    out = np.full(4, 99, np.int32)
    result = simulate(kernel(STRUCT, STRUCT_PARAMS), struct_manifest(FIELDS), {"out": out})
    assert result.ok, (result.races, result.problems)
    # each field's value at its offset; byte 16 on: no field, zero
    assert out.tolist() == [123456789, 200, -5, 0]
    assert result.outputs["out"].tolist() == [123456789, 200, -5, 0]


@pytest.mark.parametrize("fields, message", [
    ([{"offset": 28, "array": "out"}], "not aligned to its width inside the 32-byte"),
    ([{"offset": 4, "array": "out"}], "not aligned"),
    ([{"offset": 0, "array": "out"}, {"offset": 4, "type": "u32", "value": 1}], "overlap"),
    ([{"offset": 8, "type": "u8", "value": 256}], "does not fit .u8"),
    ([{"offset": 8, "type": "s8", "value": -129}], "does not fit .s8"),
    ([{"offset": 8, "type": "f32", "value": 1}], "has the type 'f32'"),
    ([{"offset": 8, "type": "u32"}], "needs either \"array\""),
    ([{"type": "u32", "value": 1}], "no byte offset"),
    ({"offset": 0}, "not a list of objects"),
])
def test_bad_struct_fields_are_refused(fields, message):
    with pytest.raises(LaunchError, match=message):
        simulate(kernel(STRUCT, STRUCT_PARAMS), struct_manifest(fields),
                 {"out": np.zeros(4, np.int32)})


def test_struct_field_naming_no_array_is_refused():
    with pytest.raises(SimError, match="holds the address of c, which is not an array"):
        simulate(kernel(STRUCT, STRUCT_PARAMS),
                 struct_manifest([{"offset": 0, "array": "c"}]), {"out": np.zeros(4)})


def test_fields_on_a_scalar_parameter_are_refused():
    with pytest.raises(LaunchError, match="has fields but the PTX's k_param_0 is no by-value"):
        simulate(kernel("\tret;", (".u64 k_param_0",)),
                 struct_manifest([{"offset": 0, "type": "u8", "value": 1}]), {})


def test_struct_and_tensor_map_together_are_refused():
    man = struct_manifest(FIELDS)
    man["params"][0]["tensor_map"] = {"tensor": "out", "box": [4], "swizzle": "none"}
    with pytest.raises(LaunchError, match="must be a tensor_map or a struct's fields"):
        simulate(kernel(STRUCT, STRUCT_PARAMS), man, {"out": np.zeros(4, np.int32)})


# -- prefetch.tensormap and a TMA load with .L2::cache_hint --------------------------------
# Thread 0 prefetches the by-value map k_param_0 (PTX ISA, prefetch: no
# architectural effect), initializes the mbarrier, expects 1024 bytes and loads the 32 x 16
# box (innermost first; 16-bit elements, no swizzle) at coordinates (8, 2) of the 16 x 64
# array `src` (through the map's generic address, cvta.param), with or without
# .L2::cache_hint and its 64-bit cache policy (9.7.9.25.5.1: a hint only). Every thread
# waits for phase 0; thread 0 copies the 1024 bytes to out.
TMA_LOAD = """
	.shared .align 1024 .b8 tile[1024];
	.shared .align 8 .b8 bar[8];
	mov.b32 	%r20, k_param_0;
	cvt.u64.u32 	%rd20, %r20;
	cvta.param.u64 	%rd21, %rd20;
	{PREFETCH}
	mov.u32 	%r1, %tid.x;
	setp.eq.u32 	%p1, %r1, 0;
	mov.b32 	%r3, bar;
	mov.b32 	%r10, tile;
	mov.b32 	%r5, 1;
	@%p1 mbarrier.init.shared::cta.b64 [%r3], %r5;
	bar.sync 	0;
	mov.b32 	%r9, 1024;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], %r9;
	mov.b32 	%r11, 8;
	mov.b32 	%r12, 2;
	mov.b64 	%rd9, 1152921504606846976;
	@%p1 cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes{HINT} [%r10], [%rd21, {%r11, %r12}], [%r3]{POLICY};
	mov.b32 	%r7, 0;
	{ .reg .pred done; wait: mbarrier.try_wait.parity.shared::cta.b64 done, [%r3], %r7; @!done bra wait; }
	@!%p1 bra 	$DONE;
	ld.param.b64 	%rd6, [k_param_1];
	mov.b32 	%r14, 0;
$COPY:
	add.s32 	%r15, %r10, %r14;
	ld.shared.b32 	%r16, [%r15];
	cvt.u64.u32 	%rd7, %r14;
	add.s64 	%rd8, %rd6, %rd7;
	st.global.b32 	[%rd8], %r16;
	add.s32 	%r14, %r14, 4;
	setp.lt.u32 	%p8, %r14, 1024;
	@%p8 bra 	$COPY;
$DONE:
	ret;
"""
TMA_PARAMS = (".align 64 .b8 k_param_0[128]", ".u64 .ptr .global .align 1 k_param_1")


def tma_load(hint: bool, prefetch: str = "prefetch.tensormap [%rd21];"):
    body = TMA_LOAD.replace("{PREFETCH}", prefetch) \
        .replace("{HINT}", ".L2::cache_hint" if hint else "") \
        .replace("{POLICY}", ", %rd9" if hint else "")
    man = {"entry": "k", "threads": 32, "params": [
        {"name": "src_map", "pointer": False,
         "tensor_map": {"tensor": "src", "box": [32, 16], "swizzle": "none"}},
        {"name": "out", "pointer": True}]}
    src = (np.arange(16 * 64, dtype=np.uint32) * 40503 % 65521).astype(np.uint16)
    src = src.reshape(16, 64)
    out = np.zeros(512, np.uint16)
    return simulate(kernel(body, TMA_PARAMS), man, {"src": src, "out": out}), src, out


@pytest.mark.parametrize("hint", [False, True])
def test_tma_load_with_and_without_cache_hint(hint):
    result, src, out = tma_load(hint)
    assert result.ok, (result.races, result.problems)
    # the box: rows c1 = 2..17 clipped to the 16 rows (rows past the array read as zero,
    # 9.7.9.25.5.1 out-of-bound fill), columns c0 = 8..39
    expected = np.zeros((16, 32), np.uint16)
    expected[:14] = src[2:16, 8:40]
    assert np.array_equal(out.reshape(16, 32), expected)


def test_cache_hint_needs_its_policy_operand():
    body_hint = TMA_LOAD.replace("{PREFETCH}", "").replace("{HINT}", ".L2::cache_hint") \
        .replace("{POLICY}", "")
    man = {"entry": "k", "threads": 32, "params": [
        {"name": "src_map", "pointer": False,
         "tensor_map": {"tensor": "src", "box": [32, 16], "swizzle": "none"}},
        {"name": "out", "pointer": True}]}
    with pytest.raises(SimError, match="L2::cache_hint takes 4 operands"):
        simulate(kernel(body_hint, TMA_PARAMS), man,
                 {"src": np.zeros((16, 64), np.uint16), "out": np.zeros(512, np.uint16)})


def test_prefetch_tensormap_of_no_map_is_reported():
    with pytest.raises(SimError, match="prefetch.tensormap of 0x1000, which is not the "
                                       "address of a tensor map"):
        tma_load(False, "mov.b64 	%rd22, 4096;\n\tprefetch.tensormap [%rd22];")


def test_other_prefetches_are_not_simulated():
    with pytest.raises(SimError, match="only prefetch.tensormap"):
        tma_load(False, "prefetch.global.L2 [%rd21];")


# -- mov.pred between predicate registers (PTX ISA, mov: .pred is one of its types) ------
def test_mov_pred_copies_a_predicate_register():
    body = """
	ld.param.b64 	%rd1, [k_param_0];
	mov.u32 	%r1, %tid.x;
	setp.lt.u32 	%p1, %r1, 5;
	mov.pred 	%p2, %p1;
	selp.b32 	%r2, 1, 0, %p2;
	mul.wide.u32 	%rd2, %r1, 4;
	add.s64 	%rd3, %rd1, %rd2;
	st.global.b32 	[%rd3], %r2;
	ret;
"""
    out = np.full(32, 7, np.int32)
    man = {"entry": "k", "threads": 32, "params": [{"name": "out", "pointer": True}]}
    result = simulate(kernel(body, (".u64 .ptr .global .align 1 k_param_0",)), man,
                      {"out": out})
    assert result.ok
    assert out.tolist() == [1] * 5 + [0] * 27  # lanes 0-4 have %p1, so %p2


# -- a by-value struct through tcgen05-sim's check file (STRUCTS) -------------------------
# The manifest says only that k_param_0 is passed by value; the check file gives its fields
# (as a function of the scalars) and the shape of `out`, an array no parameter passes but
# the struct holds the address of. Expected: the same hand derivation as above (each
# field's value at its offset, byte 16 on zero).
STRUCT_CHECK = """
import numpy as np

SCALARS = {"n": 123456789, "small": 200}
BUFFERS = {"out": ("int32", (4,))}
TOLERANCE = (0, 0)


def STRUCTS(s):
    return {"args": [{"offset": 0, "array": "out"},
                     {"offset": 8, "type": "u32", "value": s["n"]},
                     {"offset": 12, "type": "u8", "value": s["small"]},
                     {"offset": 14, "type": "s16", "value": -5}]}


def reference(inputs):
    return {"out": np.array([SCALARS["n"], SCALARS["small"], -5, 0])}
"""


def struct_cli(tmp_path, tool, check_text: str, *extra):
    import json

    (tmp_path / "k.ptx").write_text(kernel(STRUCT, STRUCT_PARAMS))
    (tmp_path / "m.json").write_text(json.dumps(
        {"entry": "k", "threads": 32, "params": [{"name": "args", "pointer": False}]}))
    (tmp_path / "k_check.py").write_text(check_text)
    return tool("tcgen05-sim", tmp_path / "k.ptx", "--manifest", tmp_path / "m.json",
                "--check", tmp_path / "k_check.py", *extra)


def test_check_file_structs_describe_a_by_value_parameter(tmp_path, tool):
    proc = struct_cli(tmp_path, tool, STRUCT_CHECK)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "out (4 int32): max abs error 0" in proc.stdout and "OK" in proc.stdout
    # SCALARS name no argument of this kernel: --set refuses them
    proc = struct_cli(tmp_path, tool, STRUCT_CHECK, "--set", "small=7")
    assert proc.returncode == 1 and "--set small" in proc.stderr
    # a field that disagrees with the reference is a mismatch
    wrong = STRUCT_CHECK.replace('"value": -5}', '"value": -6}')
    proc = struct_cli(tmp_path, tool, wrong)
    assert proc.returncode == 1 and "MISMATCH" in proc.stdout, proc.stdout


def _bad_struct_check(old: str, new: str) -> str:
    assert old in STRUCT_CHECK
    return STRUCT_CHECK.replace(old, new)


@pytest.mark.parametrize("old, new, message", [
    ('"type": "u8"', '"type": "f8"',
     "STRUCTS['args']: field 2 of the parameter args has the type 'f8', not one of"),
    ('{"offset": 12, "type": "u8", "value": s["small"]}', '{"offset": 12, "type": "u8"}',
     "STRUCTS['args']: field 2 of the parameter args needs either \"array\""),
    ('"offset": 14, "type": "s16"', '"offset": 30, "type": "s32"',
     "STRUCTS['args']: field 3 of the parameter args (4 bytes at offset 30) is not aligned"),
    ('"value": -5}', '"value": -40000}',
     "STRUCTS['args']: field 3 of the parameter args: -40000 does not fit .s16"),
    ('"array": "out"', '"array": "c"',
     "STRUCTS['args']: field 0 holds the address of 'c', an array BUFFERS gives no shape"),
    ('return {"args": [', 'return {"argz": [',
     "STRUCTS['argz']: the kernel has no by-value parameter argz (by-value parameters: args)"),
    ('return {"args": [', 'return {"args": (',
     "STRUCTS must be a dict {parameter name: [field, ...]}"),
])
def test_bad_check_file_structs_are_located(tmp_path, tool, old, new, message):
    text = _bad_struct_check(old, new)
    if new.endswith("("):
        text = text.replace("-5}]}", "-5})}")
    proc = struct_cli(tmp_path, tool, text)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    line = STRUCT_CHECK[:STRUCT_CHECK.index("def STRUCTS")].count("\n") + 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"tcgen05-sim: error: {tmp_path / 'k_check.py'}:{line}: "
                               f"{message}"), proc.stderr


def test_a_struct_no_one_describes_is_refused(tmp_path, tool):
    proc = struct_cli(tmp_path, tool, STRUCT_CHECK.replace("def STRUCTS", "def _unused"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "the PTX's k_param_0 is a by-value array of 32 bytes" in proc.stderr
    assert "STRUCTS" in proc.stderr
