"""Tests for tcgen05_lower.isa.targets: targets, PTX ISA versions and target gating.

Expected values come from the "PTX ISA Notes" and "Target ISA Notes" paragraphs of
section 9.7.16 (quoted next to each case). The few numbers the section does not state
(the PTX ISA version of the plain targets and of sm_103a) are marked as such.
"""

import pytest

from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.isa.shapes import KINDS
from tcgen05_lower.isa.targets import (
    FEATURES,
    TARGETS,
    TCGEN05_TARGETS,
    check_feature,
    check_target,
    code_runs_on,
    feature_supported,
    get_target,
    llvm_ptx_feature,
    min_ptx_version,
    mma_features,
    parse_ptx_version,
    ptx_version_string,
    target_in_family,
)

A_TARGETS = ["sm_100a", "sm_101a", "sm_103a", "sm_110a"]
F_TARGETS = ["sm_100f", "sm_101f", "sm_103f", "sm_110f"]
PLAIN_TARGETS = ["sm_100", "sm_101", "sm_103", "sm_110"]

# ---------------------------------------------------------------------------------------
# The target table
# ---------------------------------------------------------------------------------------

# fmt: off
@pytest.mark.parametrize("name,min_ptx,suffix", [
    # "Introduced in PTX ISA version 8.6" with "Supported on ... sm_100a, sm_101a"
    ("sm_100a", (8, 6), "a"),
    ("sm_101a", (8, 6), "a"),
    # "supported on following family-specific architectures from PTX ISA version 8.8"
    ("sm_100f", (8, 8), "f"),
    ("sm_101f", (8, 8), "f"),
    ("sm_103f", (8, 8), "f"),
    # sm_103a: PTX ISA 8.8 per the release notes (not stated in 9.7.16)
    ("sm_103a", (8, 8), "a"),
    # "Renamed to sm_110a from PTX ISA version 9.0"
    ("sm_110a", (9, 0), "a"),
    ("sm_110f", (9, 0), "f"),
    # plain targets: release notes (not stated in 9.7.16)
    ("sm_100", (8, 6), ""),
    ("sm_103", (8, 8), ""),
    ("sm_110", (9, 0), ""),
])
# fmt: on
def test_target_table(name, min_ptx, suffix):
    target = get_target(name)
    assert target.min_ptx == min_ptx
    assert target.suffix == suffix
    assert target.min_ptx_source


def test_sm_101_is_renamed_sm_110():
    # "sm_101a (Renamed to sm_110a from PTX ISA version 9.0)"
    assert get_target("sm_101a").renamed_to == "sm_110a"
    assert get_target("sm_101f").renamed_to == "sm_110f"
    check_target("sm_101a", (8, 8))
    with pytest.raises(IsaRuleError, match="sm_110a"):
        check_target("sm_101a", (9, 0))
    with pytest.raises(IsaRuleError, match="8.6"):
        check_target("sm_100a", (8, 5))
    with pytest.raises(IsaRuleError, match="9.0"):
        check_target("sm_110a", (8, 8))
    with pytest.raises(IsaRuleError, match="8.8"):
        check_target("sm_100f", (8, 7))


def test_tcgen05_needs_a_or_f_target():
    # Every Target ISA Note of 9.7.16 lists only "a" and "f" targets.
    assert set(TCGEN05_TARGETS) == set(A_TARGETS + F_TARGETS)
    for name in PLAIN_TARGETS:
        with pytest.raises(IsaRuleError, match="arch-specific"):
            check_target(name)
    with pytest.raises(IsaRuleError, match="sm_90a"):
        get_target("sm_90a")


@pytest.mark.parametrize("name, suggestion", [
    ("sm100a", "sm_100a"),     # underscore dropped
    ("sm_100", "sm_100a"),     # a plain target: its 'a' target, listed before its 'f' one
    ("sm_103f ", None),        # a known target (spaces and case are ignored)
    ("sm_110x", "sm_110a"),    # suffix mistyped: the first listed of the equally close
    ("gfx942", None),          # nothing like a tcgen05 target
])
def test_a_misspelled_target_gets_the_closest_tcgen05_target(name, suggestion):
    try:
        check_target(name)
    except IsaRuleError as error:
        message = str(error)
    else:
        message = ""
    if suggestion is None:
        assert "did you mean" not in message
    else:
        assert f"; did you mean '{suggestion}'? (9.7.16" in message


def test_known_targets():
    assert set(TARGETS) == set(A_TARGETS + F_TARGETS + PLAIN_TARGETS)


# ---------------------------------------------------------------------------------------
# Family semantics
# ---------------------------------------------------------------------------------------

# fmt: off
@pytest.mark.parametrize("target,base,expected", [
    # "sm_100f or higher in the same family": sm_100f, sm_103f and the "a" targets of
    # those architectures.
    ("sm_100f", "sm_100f", True),
    ("sm_103f", "sm_100f", True),
    ("sm_100a", "sm_100f", True),
    ("sm_103a", "sm_100f", True),
    ("sm_103a", "sm_100", True),     # base may be written without the "f"
    # lower members and other families are not covered
    ("sm_100f", "sm_103f", False),
    ("sm_100a", "sm_103f", False),
    ("sm_103f", "sm_103f", True),
    ("sm_110f", "sm_100f", False),
    ("sm_110a", "sm_100f", False),
    ("sm_100f", "sm_110f", False),
    # plain targets have no family features
    ("sm_100", "sm_100f", False),
    ("sm_103", "sm_100f", False),
    # "sm_101f or higher in the same family (Renamed to sm_110f from PTX ISA 9.0)"
    ("sm_110f", "sm_101f", True),
    ("sm_101a", "sm_110f", True),
    ("sm_101f", "sm_100f", False),
])
# fmt: on
def test_target_in_family(target, base, expected):
    assert target_in_family(target, base) is expected


# fmt: off
@pytest.mark.parametrize("code,device,expected", [
    ("sm_100f", "sm_100", True),
    ("sm_100f", "sm_103", True),    # family code runs on later members
    ("sm_103f", "sm_100", False),
    ("sm_100f", "sm_110", False),
    ("sm_100a", "sm_100", True),    # arch-specific code runs on its own architecture only
    ("sm_100a", "sm_103", False),
    ("sm_100", "sm_110", True),     # plain code: onion model
])
# fmt: on
def test_code_runs_on(code, device, expected):
    assert code_runs_on(code, device) is expected


# ---------------------------------------------------------------------------------------
# Target gating: one allowed list per Target ISA Notes paragraph
# ---------------------------------------------------------------------------------------

BASE_ALLOWED = A_TARGETS + F_TARGETS

# (feature key, allowed targets, rejected targets)
# fmt: off
GATING = [
    # Base list of 9.7.16.7.1, 9.7.16.8.3-5, 9.7.16.9.2, 9.7.16.10.9.1-4, 9.7.16.11.1,
    # 9.7.16.12.1: sm_100a; sm_101a; sm_100f / sm_101f or higher in the same family from
    # 8.8; sm_110f or higher in the same family.
    *[(key, BASE_ALLOWED, PLAIN_TARGETS) for key in (
        "alloc", "ld", "st", "wait", "cp", "mma", "mma.sp", "mma.ws", "mma.ws.sp",
        "fence", "commit")],
    # 9.7.16.8.3 "tcgen05.ld.red is supported on ... sm_101a; sm_101f or higher in the same
    # family; sm_103f or higher in the same family; sm_110f or higher in the same family"
    ("ld.red", ["sm_101a", "sm_101f", "sm_103a", "sm_103f", "sm_110a", "sm_110f"],
               ["sm_100a", "sm_100f", "sm_100", "sm_103"]),
    # 9.7.16.9.3 shift: "sm_100a, sm_101a, sm_103a, sm_110a"
    ("shift", A_TARGETS, F_TARGETS + PLAIN_TARGETS),
    # "Qualifier .kind::i8 is supported on following architectures: sm_100a, sm_101a,
    # sm_110a" (and family targets are listed "except .kind::i8")
    ("kind::i8", ["sm_100a", "sm_101a", "sm_110a"], ["sm_103a"] + F_TARGETS + PLAIN_TARGETS),
    # kind::mxf4nvf4 in dense tcgen05.mma follows the base list, like the kinds that have
    # no note of their own
    ("kind::mxf4nvf4", BASE_ALLOWED, PLAIN_TARGETS),
    *[(f"kind::{kind}", BASE_ALLOWED, PLAIN_TARGETS)
      for kind in ("f16", "tf32", "f8f6f4", "mxf8f6f4", "mxf4")],
    # 9.7.16.10.9.2 "Qualifiers .kind::mxf4nvf4 and .kind::mxf4 are supported on following
    # architectures: sm_100a, sm_101a, sm_103a, sm_110a"
    ("mma.sp:mxf4", A_TARGETS, F_TARGETS + PLAIN_TARGETS),
    # 9.7.16.2.1.1 "K = 96 is only supported for target architecture sm_103a"
    ("k96", ["sm_103a"], ["sm_100a", "sm_101a", "sm_110a", "sm_103f", "sm_100f"]),
    # 9.7.16.4.1.1 "The byte address mode for the leading dimension stride is supported on
    # sm_103a"
    ("lbo-absolute", ["sm_103a"], ["sm_100a", "sm_110a", "sm_103f", "sm_100f"]),
    # "Argument scale-input-d requires sm_100a and is supported on sm_100f or higher in
    # the same family from PTX ISA version 8.8"
    ("scale-input-d", ["sm_100a", "sm_100f", "sm_103a", "sm_103f"],
                      ["sm_101a", "sm_101f", "sm_110a", "sm_110f", "sm_100"]),
    # ".scale_vec::1X, .scale_vec::2X, .scale_vec::4X requires sm_100a"
    ("scale_vec::NX", ["sm_100a"], ["sm_100f", "sm_103a", "sm_103f", "sm_110a", "sm_110f"]),
    # ".block16, .block32 requires sm_100f or sm_110f" (families)
    ("blockN", BASE_ALLOWED, PLAIN_TARGETS),
]
# fmt: on


@pytest.mark.parametrize("key,allowed,rejected", GATING, ids=[g[0] for g in GATING])
def test_gating(key, allowed, rejected):
    feature = FEATURES[key]
    for target in allowed:
        check_feature(key, target)
        assert feature_supported(key, target)
    for target in rejected:
        assert not feature_supported(key, target), target
        with pytest.raises(IsaRuleError) as info:
            check_feature(key, target)
        # The diagnostic names the feature, the target and the section.
        assert feature.title in info.value.message
        assert target in info.value.message
        assert feature.section in info.value.rule
        assert feature.section in str(info.value)


def test_every_feature_is_gated_in_a_test():
    assert {g[0] for g in GATING} == set(FEATURES)


def test_every_kind_has_a_feature():
    for kind in KINDS:
        assert f"kind::{kind}" in FEATURES


# fmt: off
@pytest.mark.parametrize("key,target,too_old,new_enough", [
    # "Introduced in PTX ISA version 8.6."
    ("mma", "sm_100a", (8, 5), (8, 6)),
    # "Qualifier .kind::mxf4nvf4 introduced in PTX ISA version 8.7."
    ("kind::mxf4nvf4", "sm_100a", (8, 6), (8, 7)),
    # "Qualifiers .block16 and .block32 introduced in PTX ISA version 8.8."
    ("blockN", "sm_100a", (8, 7), (8, 8)),
    # "tcgen05.ld.red is introduced in PTX ISA version 8.8."
    ("ld.red", "sm_101a", (8, 7), (8, 8)),
    # family targets "from PTX ISA version 8.8"
    ("mma", "sm_100f", (8, 7), (8, 8)),
    ("scale-input-d", "sm_103f", (8, 7), (8, 8)),
])
# fmt: on
def test_ptx_version_gating(key, target, too_old, new_enough):
    check_feature(key, target, new_enough)
    assert not feature_supported(key, target, too_old)
    with pytest.raises(IsaRuleError, match=ptx_version_string(new_enough)) as info:
        check_feature(key, target, too_old)
    assert "PTX ISA Notes" in info.value.rule


def test_scale_input_d_on_sm_100a_from_86():
    # "requires sm_100a" carries no version of its own: tcgen05's 8.6 applies.
    check_feature("scale-input-d", "sm_100a", (8, 6))


# ---------------------------------------------------------------------------------------
# min_ptx_version
# ---------------------------------------------------------------------------------------

# fmt: off
@pytest.mark.parametrize("target,features,version,reason_part", [
    ("sm_100a", [], (8, 6), "target sm_100a"),
    ("sm_100a", ["mma", "alloc"], (8, 6), "target sm_100a"),
    ("sm_100f", ["mma"], (8, 8), "target sm_100f"),
    ("sm_110a", ["mma", "kind::i8"], (9, 0), "target sm_110a"),
    # kind::mxf4nvf4 introduced in 8.7
    ("sm_100a", ["mma", "kind::mxf4nvf4"], (8, 7), "kind::mxf4nvf4"),
    # .block16/.block32 introduced in 8.8 beat mxf4nvf4's 8.7
    ("sm_100a", ["kind::mxf4nvf4", "blockN"], (8, 8), ".block16"),
    # tcgen05.ld.red introduced in 8.8
    ("sm_101a", ["ld", "ld.red"], (8, 8), "tcgen05.ld.red"),
    # the target already needs 8.8
    ("sm_103a", ["k96", "lbo-absolute", "scale-input-d"], (8, 8), "target sm_103a"),
    ("sm_100a", ["scale_vec::NX", "scale-input-d"], (8, 6), "target sm_100a"),
])
# fmt: on
def test_min_ptx_version(target, features, version, reason_part):
    got, reason = min_ptx_version(target, features)
    assert got == version
    assert reason_part in reason


def test_min_ptx_version_reason_names_section():
    _, reason = min_ptx_version("sm_100a", ["kind::mxf4nvf4"])
    assert "8.7" in reason and "9.7.16.10.9.1" in reason


def test_min_ptx_version_rejects_unsupported():
    with pytest.raises(IsaRuleError, match="kind::i8"):
        min_ptx_version("sm_100f", ["mma", "kind::i8"])
    with pytest.raises(IsaRuleError, match="tcgen05.ld.red"):
        min_ptx_version("sm_100a", ["ld.red"])
    # no target supports both: scale_vec::NX is sm_100a-only, K = 96 sm_103a-only
    for target in ("sm_100a", "sm_103a"):
        with pytest.raises(IsaRuleError):
            min_ptx_version(target, ["k96", "scale_vec::NX"])


def test_min_ptx_version_accepts_feature_objects():
    assert min_ptx_version("sm_100a", [FEATURES["blockN"]])[0] == (8, 8)


# ---------------------------------------------------------------------------------------
# PTX version strings and LLVM features
# ---------------------------------------------------------------------------------------


def test_ptx_version_strings():
    assert ptx_version_string((8, 8)) == "8.8"
    assert ptx_version_string((9, 0)) == "9.0"
    assert parse_ptx_version("8.6") == (8, 6)
    with pytest.raises(ValueError):
        parse_ptx_version("eight")


def test_llvm_ptx_feature():
    assert llvm_ptx_feature((8, 6)) == "+ptx86"
    assert llvm_ptx_feature((8, 7)) == "+ptx87"
    assert llvm_ptx_feature((8, 8)) == "+ptx88"
    assert llvm_ptx_feature((9, 0)) == "+ptx90"
    with pytest.raises(ValueError):
        llvm_ptx_feature((8, 9))


# ---------------------------------------------------------------------------------------
# mma_features
# ---------------------------------------------------------------------------------------


def _keys(features):
    return {f.key for f in features}


def test_mma_features():
    assert _keys(mma_features("f16")) == {"mma", "kind::f16"}
    assert _keys(mma_features("tf32", scale_input_d=True)) == {"mma", "kind::tf32", "scale-input-d"}
    assert _keys(mma_features("i8", sparse=True, ws=True)) == {"mma.ws.sp", "kind::i8"}
    assert _keys(mma_features("mxf4nvf4", sparse=True, scale_vectorsize="block16")) == {
        "mma.sp", "kind::mxf4nvf4", "mma.sp:mxf4", "blockN",
    }
    assert _keys(mma_features("kind::mxf4", k96=True, scale_vectorsize=".scale_vec::2X")) == {
        "mma", "kind::mxf4", "k96", "scale_vec::NX",
    }
    assert _keys(mma_features("f8f6f4", lbo_absolute=True)) == {"mma", "kind::f8f6f4", "lbo-absolute"}
    with pytest.raises(KeyError):
        mma_features("f64")


def test_mma_features_end_to_end():
    # dense mxf4nvf4 with .block16 on sm_100f: base list from 8.8, block16 from 8.8
    assert min_ptx_version("sm_100f", mma_features("mxf4nvf4", scale_vectorsize="block16"))[0] == (8, 8)
    # sparse mxf4 is not on family targets (9.7.16.10.9.2)
    with pytest.raises(IsaRuleError, match="sp"):
        min_ptx_version("sm_103f", mma_features("mxf4", sparse=True))
    assert min_ptx_version("sm_103a", mma_features("mxf4", sparse=True))[0] == (8, 8)
