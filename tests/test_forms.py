"""The instruction forms of 9.7.16 as text and as lowering decisions: the PTX builders of
tcgen05_lower.ptx against the syntax blocks of the ISA, the MN-major K-block arithmetic
against the canonical-layout examples of 9.7.16.3.3, the .scale_vectorsize aliases of
9.7.16.10.9.1, and the PTX ISA version the driver picks (with the feature that forced
it). Expected strings and numbers are copied or derived by hand from the ISA text cited
next to each."""

from __future__ import annotations

import pytest

from tcgen05_lower import dialect as d
from tcgen05_lower import ptx
from tcgen05_lower.cli import lower as lower_cli
from tcgen05_lower.driver import CompileFailed, compile_source
from tcgen05_lower.isa import shapes, targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.lowering.mma import mn_major_block

# ---------------------------------------------------------------------------- tcgen05.mma


@pytest.mark.parametrize("kwargs, expected", [
    # 9.7.16.10.9.1 form 1: [d-tmem], a-desc, b-desc, idesc, enable-input-d.
    (dict(), "tcgen05.mma.cta_group::1.kind::f16 [d], a, b, idesc, p;"),
    # form 1 with [a-tmem], { disable-output-lane } and scale-input-d (its example:
    # "tcgen05.mma.cta_group::1.kind::tf32 [taddr0], adesc, bdesc, idesc, {m0, m1, m2, m3}, p;").
    (dict(a_in_tmem=True, disable_output_lane=["m0", "m1", "m2", "m3"], scale_input_d=7),
     "tcgen05.mma.cta_group::1.kind::f16 [d], [a], b, idesc, {m0, m1, m2, m3}, p, 7;"),
    # form 3: .kind.ashift{.collector_usage}.
    (dict(a_in_tmem=True, ashift=True, collector=("a", "lastuse")),
     "tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::lastuse [d], [a], b, idesc, p;"),
    # 9.7.16.10.9.2 form 1: [d-tmem], a-desc, b-desc, [sp-meta-tmem], idesc, ...
    (dict(sparse_metadata="m"), "tcgen05.mma.sp.cta_group::1.kind::f16 [d], a, b, [m], idesc, p;"),
    # 9.7.16.10.9.4 example: "tcgen05.mma.ws.sp.cta_group::1.kind::tf32.collector::b1::fill
    # [taddr1], [taddr0], bdesc, [tmem_spmeta0], idesc, p;" (+ zero-column-mask-desc).
    (dict(ws=True, sparse_metadata="m", a_in_tmem=True, collector=("b1", "fill"),
          zero_column_mask="z"),
     "tcgen05.mma.ws.sp.cta_group::1.kind::f16.collector::b1::fill [d], [a], b, [m], idesc, p, z;"),
])
def test_mma_text(kwargs, expected):
    assert ptx.mma(1, "f16", "d", "a", "b", "idesc", "p", **kwargs) == expected


def test_mma_block_scale_text():
    # 9.7.16.10.9.1 form 4: .kind.block_scale{.scale_vectorsize}.collector_usage, then
    # [scale-A-tmem], [scale-B-tmem] between idesc and enable-input-d.
    assert ptx.mma(2, "mxf8f6f4", "d", "a", "b", "i", "p", a_in_tmem=True, scale_a="sa",
                   scale_b="sb", scale_vectorsize="scale_vec::1X", collector=("a", "fill")) == (
        "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X.collector::a::fill "
        "[d], [a], b, i, [sa], [sb], p;")
    # 9.7.16.10.9.2 form 2: the metadata follows b-desc even when scaled.
    assert ptx.mma(1, "mxf4", "d", "a", "b", "i", "p", sparse_metadata="m", scale_a="sa",
                   scale_b="sb") == (
        "tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale [d], a, b, [m], i, [sa], [sb], p;")


@pytest.mark.parametrize("kwargs", [
    dict(ws=True, cta=2),                                     # .ws is cta_group::1 only
    dict(collector=("b0", "fill")),                           # ::b0 belongs to .ws
    dict(ws=True, collector=("a", "fill")),                   # ::a does not
    dict(collector=("a", "keep")),                            # ::op set
    dict(zero_column_mask="z"),                               # .ws operand
    dict(scale_input_d=16),                                   # [0, 15]
    dict(ashift=True),                                        # needs [a-tmem]
    dict(scale_a="sa"),                                       # both scale operands
    dict(scale_a="sa", scale_b="sb", scale_input_d=1),        # not in forms 2 and 4
    dict(scale_vectorsize="block32"),                         # needs .block_scale
])
def test_mma_text_rejects_forms_the_syntax_lacks(kwargs):
    cta = kwargs.pop("cta", 1)
    with pytest.raises(IsaRuleError):
        ptx.mma(cta, "f16", "d", "a", "b", "i", "p", **kwargs)


# ---------------------------------------------------------------------------- cp, shift, commit


@pytest.mark.parametrize("args, kwargs, expected", [
    # The three examples of 9.7.16.9.2.
    ((1, "128x256b", "taddr0", "sdesc0"), {}, "tcgen05.cp.cta_group::1.128x256b [taddr0], sdesc0;"),
    ((2, "128x128b", "taddr1", "sdesc1"), dict(source_format="b6x16_p32"),
     "tcgen05.cp.cta_group::2.128x128b.b8x16.b6x16_p32 [taddr1], sdesc1;"),
    ((1, "64x128b", "taddr2", "sdesc2"), dict(multicast="warpx2::02_13"),
     "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [taddr2], sdesc2;"),
    ((1, "32x128b", "t", "s"), dict(multicast="warpx4", source_format="b4x16_p64"),
     "tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 [t], s;"),
])
def test_cp_text(args, kwargs, expected):
    assert ptx.cp(*args, **kwargs) == expected


@pytest.mark.parametrize("shape, multicast", [
    ("64x128b", None), ("32x128b", "warpx2::01_23"), ("128x256b", "warpx4"), ("16x64b", None),
])
def test_cp_shape_requires_its_multicast(shape, multicast):
    # ".64x128b requires .warpx2::02_13 or .warpx2::01_23", ".32x128b requires .warpx4".
    with pytest.raises(IsaRuleError, match="9.7.16.9.2"):
        ptx.cp(1, shape, "t", "s", multicast=multicast)


def test_shift_and_commit_text():
    # 9.7.16.9.3 syntax: tcgen05.shift.cta_group.down [taddr].
    assert ptx.shift_down(2, "t") == "tcgen05.shift.cta_group::2.down [t];"
    # 9.7.16.12.1 syntax: .completion_mechanism{.shared::cluster}{.multicast}.b64 [mbar] {, ctaMask}.
    assert ptx.commit(1, "m") == \
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [m];"
    assert ptx.commit(2, "m", cta_mask="k") == (
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster"
        ".b64 [m], k;")


# ---------------------------------------------------------------------------- MN-major K blocks


@pytest.mark.parametrize("swizzle, mn, lbo, sbo", [
    # 9.7.16.3.3 examples, bf16 (T = 8): "MN-Major, no-swizzling": exact layout
    # ((8,1,2),(8,2)):((1,8,64),(8,128)), LBO 128*2, SBO 64*2 bytes; "32B Swizzling":
    # ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 128*2, SBO 256*2; "64B Swizzling":
    # ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 256*2, SBO 512*2. Each tile is 16 K deep.
    ("none", 16, 256, 128),
    ("32B", 32, 256, 512),
    ("64B", 64, 512, 1024),
])
def test_mn_major_block_matches_isa_examples(swizzle, mn, lbo, sbo):
    tile = d.SmemType((mn, 16), "bf16", "MN", swizzle)
    assert mn_major_block(tile, 16, 0) == (0, lbo, sbo)
    # K = 8 is the second group of 8 K-rows: the k mode of (8, k) has stride LBO without
    # swizzle and SBO with it (the second entries of the exact layouts above, in bytes).
    assert mn_major_block(tile, 16, 8)[0] == (lbo if swizzle == "none" else sbo)


# ---------------------------------------------------------------------------- .scale_vectorsize


@pytest.mark.parametrize("kind, given, k96, spellings", [
    # 9.7.16.10.9.1 "Aliased .scale_vectorsize variants".
    ("mxf8f6f4", "scale_vec::1X", False, ("scale_vec::1X", "block32")),
    ("mxf8f6f4", "block32", False, ("block32", "scale_vec::1X")),
    ("mxf4", "scale_vec::2X", False, ("scale_vec::2X", "block32")),
    ("mxf4nvf4", "block32", False, ("block32", "scale_vec::2X")),
    ("mxf4nvf4", "block16", False, ("block16", "scale_vec::4X")),
    # K = 96: Table 54 gives M x 3 / M x 6, which no .scale_vec::NX names.
    ("mxf4nvf4", "block16", True, ("block16",)),
    ("mxf4", "block32", True, ("block32",)),
])
def test_scale_vectorsize_aliases(kind, given, k96, spellings):
    assert shapes.scale_vectorsize_aliases(kind, given, k96=k96) == spellings


@pytest.mark.parametrize("target, chosen", [
    # ".scale_vec::1X, .scale_vec::2X, .scale_vec::4X requires sm_100a";
    # ".block16, .block32 requires sm_100f or sm_110f" (families).
    ("sm_100a", "scale_vec::1X"), ("sm_100f", "block32"), ("sm_103a", "block32"),
    ("sm_110a", "block32"),
])
def test_choose_scale_vectorsize(target, chosen):
    assert targets.choose_scale_vectorsize(("scale_vec::1X", "block32"), target) == chosen


def test_choose_scale_vectorsize_without_a_supported_spelling():
    with pytest.raises(IsaRuleError, match="sm_100f"):
        targets.choose_scale_vectorsize(("scale_vec::4X",), "sm_100f")


# ---------------------------------------------------------------------------- PTX version

NVF4 = """func.func @k() attributes {{tcgen05.kernel = {{target = "{target}", threads = 128 : i64, cta_group = 1 : i64}}}} {{
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %sa = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  %sb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {{kind = "mxf4nvf4", scale_vec = "{vec}"}}
      : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">,
         !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>,
         !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
  return
}}
"""


@pytest.mark.parametrize("target, vec, version, reason", [
    # "Qualifier .kind::mxf4nvf4 introduced in PTX ISA version 8.7" (9.7.16.10.9.1).
    ("sm_100a", "4X", (8, 7), "kind::mxf4nvf4: introduced in PTX ISA 8.7 (9.7.16.10.9.1)"),
    # "Qualifiers .block16 and .block32 introduced in PTX ISA version 8.8".
    ("sm_100a", "block16", (8, 8), ".block16 / .block32: introduced in PTX ISA 8.8"),
    # Family targets need PTX ISA 8.8 anyway; 4X is printed as .block16 there.
    ("sm_100f", "4X", (8, 8), "target sm_100f"),
])
def test_ptx_version_names_the_feature_and_its_op(target, vec, version, reason):
    result = compile_source(NVF4.format(target=target, vec=vec), "nvf4.mlir", emit="llvm")
    assert result.ptx_version == version
    assert reason in result.ptx_version_reason
    if version > targets.get_target(target).min_ptx:
        # The op that needs the feature, at its line in the input.
        assert result.ptx_version_reason.endswith("used by tcgen05.mma at nvf4.mlir:8:3")


def test_explain_ptx_version_cli(tmp_path, capsys):
    source = tmp_path / "nvf4.mlir"
    source.write_text(NVF4.format(target="sm_100a", vec="4X"))
    assert lower_cli.run([str(source), "--explain-ptx-version", "-o", str(tmp_path / "k.ptx")]) == 0
    err = capsys.readouterr().err
    assert f"PTX ISA 8.7 for sm_100a: kind::mxf4nvf4: introduced in PTX ISA 8.7 " \
           f"(9.7.16.10.9.1); used by tcgen05.mma at {source}:8:3" in err
    assert ".version 8.7" in (tmp_path / "k.ptx").read_text()


# ---------------------------------------------------------------------------- diagnostics


def test_lowering_without_verify_reports_instead_of_crashing():
    """A pipeline that skips tcgen05-verify still gets a located diagnostic from the
    lowering (here: .scale_vec::4X for kind::mxf4, Table 54), not an internal error."""
    text = NVF4.format(target="sm_100a", vec="4X").replace('"mxf4nvf4"', '"mxf4"') \
        .replace("f8E4M3>", "f8E8M0FNU>")
    pipeline = ("tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync,"
                "tcgen05-lower-to-llvm")
    with pytest.raises(CompileFailed) as failure:
        compile_source(text, "x.mlir", emit="llvm", pipeline=pipeline)
    messages = [x.message for x in failure.value.diagnostics]
    assert any("Table 54" in m for m in messages), messages
    assert not any("internal error" in m for m in messages), messages
