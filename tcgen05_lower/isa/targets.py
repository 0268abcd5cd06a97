"""Compilation targets, PTX ISA versions and the target gating of tcgen05 features.

Every "PTX ISA Notes" and "Target ISA Notes" paragraph of section 9.7.16 is encoded as
data in ``FEATURES``: a ``Feature`` lists the PTX ISA version that introduced it and the
targets that support it, each with the PTX ISA version from which that support holds.

Target kinds (PTX ISA, "Target ISA Notes" throughout 9.7.16):

* Arch-specific targets ("a", e.g. ``sm_100a``) carry every feature of their exact
  architecture. Code for them runs only on that architecture.
* Family-specific targets ("f", e.g. ``sm_100f``) carry the features shared by a family;
  code for ``sm_100f`` runs on ``sm_100`` and on later members of the same family
  (``sm_103``). A note reading "``sm_100f`` or higher in the same family" therefore
  covers ``sm_100f``, ``sm_103f``, ``sm_100a`` and ``sm_103a``: an arch-specific target
  includes the family features of its architecture.
* Plain targets (``sm_100``) follow the onion model and support no tcgen05 instruction at
  all: every Target ISA Note of 9.7.16 lists only "a" or "f" targets.

``sm_101a``/``sm_101f`` were renamed ``sm_110a``/``sm_110f`` from PTX ISA 9.0 (the
notes say so next to every ``sm_101`` entry). They are modelled as older names of the
same architecture: a note that lists ``sm_101a`` also covers ``sm_110a``, and the
``sm_101`` names are accepted only before PTX ISA 9.0.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Iterable, Mapping, Optional, Union

from tcgen05_lower.text import did_you_mean

from .errors import IsaRuleError

__all__ = [
    "PtxVersion",
    "Target",
    "TARGETS",
    "TCGEN05_TARGETS",
    "get_target",
    "target_in_family",
    "code_runs_on",
    "Support",
    "Feature",
    "FEATURES",
    "get_feature",
    "feature_supported",
    "check_feature",
    "check_target",
    "min_ptx_version",
    "mma_features",
    "scale_vectorsize_feature",
    "choose_scale_vectorsize",
    "PTX_VERSIONS",
    "ptx_version_string",
    "parse_ptx_version",
    "llvm_ptx_feature",
    "LLVM_PTX_FEATURES",
]

PtxVersion = tuple[int, int]

# --------------------------------------------------------------------------------------
# PTX ISA versions
# --------------------------------------------------------------------------------------

#: The PTX ISA versions that matter for tcgen05, oldest first: 8.6 introduced tcgen05,
#: 8.7 kind::mxf4nvf4, 8.8 family targets, .block16/.block32 and tcgen05.ld.red, 9.0 the
#: sm_110 names. (There is no PTX ISA 8.9.)
PTX_VERSIONS: tuple[PtxVersion, ...] = ((8, 6), (8, 7), (8, 8), (9, 0))

#: LLVM NVPTX subtarget feature for each PTX ISA version (LLVM names them "ptxMN";
#: LLVM 22 knows up to ptx90).
LLVM_PTX_FEATURES = MappingProxyType({v: f"+ptx{v[0]}{v[1]}" for v in PTX_VERSIONS})


def ptx_version_string(version: PtxVersion) -> str:
    """``(8, 8) -> "8.8"``, as written after ``.version``."""
    major, minor = version
    return f"{major}.{minor}"


def parse_ptx_version(text: str) -> PtxVersion:
    """``"8.8" -> (8, 8)``."""
    major, _, minor = str(text).strip().partition(".")
    if not major.isdigit() or not minor.isdigit():
        raise ValueError(f"{text!r} is not a PTX ISA version such as '8.8'")
    return int(major), int(minor)


def llvm_ptx_feature(version: PtxVersion) -> str:
    """The LLVM NVPTX feature string for a PTX ISA version: ``(8, 8) -> "+ptx88"``."""
    try:
        return LLVM_PTX_FEATURES[tuple(version)]
    except KeyError:
        known = ", ".join(ptx_version_string(v) for v in PTX_VERSIONS)
        raise ValueError(
            f"PTX ISA {ptx_version_string(version)} has no LLVM feature here (known: {known})"
        ) from None


# --------------------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One ``.target`` name.

    ``arch`` is the architecture number the name carries (101 for ``sm_101a``);
    ``canonical_arch`` the number it has from PTX ISA 9.0 (110 for ``sm_101a``), used to
    compare members of a family. ``family`` names the family's first member. ``min_ptx``
    is the first PTX ISA version that knows the name and ``min_ptx_source`` says where
    that number comes from; ``max_ptx`` (exclusive) is set for names that a later
    version renamed.
    """

    name: str
    arch: int
    suffix: str  # "a", "f" or ""
    family: str
    canonical_arch: int
    min_ptx: PtxVersion
    min_ptx_source: str
    max_ptx: Optional[PtxVersion] = None
    renamed_to: Optional[str] = None

    @property
    def arch_specific(self) -> bool:
        """True for "a" targets."""
        return self.suffix == "a"

    @property
    def family_specific(self) -> bool:
        """True for "f" targets."""
        return self.suffix == "f"

    @property
    def has_family_features(self) -> bool:
        """True for targets that carry family features ("a" and "f" targets)."""
        return self.suffix in ("a", "f")

    def __str__(self) -> str:
        return self.name


_SPEC_86 = "9.7.16 PTX ISA Notes: tcgen05 introduced in PTX ISA 8.6 on sm_100a / sm_101a"
_SPEC_88_F = "9.7.16 Target ISA Notes: family-specific targets from PTX ISA 8.8"
_SPEC_90 = "9.7.16 Target ISA Notes: sm_101 renamed sm_110 from PTX ISA 9.0"
_OUTSIDE = "PTX ISA release notes (outside section 9.7.16); ptxas and LLVM NVPTX agree"

# fmt: off
TARGETS: Mapping[str, Target] = MappingProxyType({t.name: t for t in (
    Target("sm_100",  100, "",  "sm_100", 100, (8, 6), _OUTSIDE),
    Target("sm_100a", 100, "a", "sm_100", 100, (8, 6), _SPEC_86),
    Target("sm_100f", 100, "f", "sm_100", 100, (8, 8), _SPEC_88_F),
    # sm_101 is the pre-9.0 name of sm_110: its family is sm_110's, not sm_100's (the
    # notes list "sm_101f or higher in the same family" apart from sm_100f's family).
    Target("sm_101",  101, "",  "sm_110", 110, (8, 6), _OUTSIDE, (9, 0), "sm_110"),
    Target("sm_101a", 101, "a", "sm_110", 110, (8, 6), _SPEC_86, (9, 0), "sm_110a"),
    Target("sm_101f", 101, "f", "sm_110", 110, (8, 8), _SPEC_88_F, (9, 0), "sm_110f"),
    Target("sm_103",  103, "",  "sm_100", 103, (8, 8), _OUTSIDE),
    # The spec names sm_103a (K = 96, absolute LBO mode, tcgen05.shift) but not the PTX
    # ISA version that introduced it; 8.8 is from the release notes.
    Target("sm_103a", 103, "a", "sm_100", 103, (8, 8), _OUTSIDE),
    Target("sm_103f", 103, "f", "sm_100", 103, (8, 8), _SPEC_88_F),
    Target("sm_110",  110, "",  "sm_110", 110, (9, 0), _SPEC_90),
    Target("sm_110a", 110, "a", "sm_110", 110, (9, 0), _SPEC_90),
    Target("sm_110f", 110, "f", "sm_110", 110, (9, 0), _SPEC_90),
)})
# fmt: on

TargetLike = Union[str, Target]


def get_target(target: TargetLike) -> Target:
    """Look up a target by name (``"sm_100a"``); unknown names raise ``IsaRuleError``."""
    if isinstance(target, Target):
        return target
    name = str(target).strip().lower()
    if name not in TARGETS:
        raise IsaRuleError(
            "9.7.16 Target ISA Notes",
            f"target {target} is not a tcgen05 target (known: {', '.join(TARGETS)})"
            + did_you_mean(name, TCGEN05_TARGETS),
        )
    return TARGETS[name]


def target_in_family(target: TargetLike, base: TargetLike) -> bool:
    """Does a note "``base`` or higher in the same family" cover ``target``?

    True when ``target`` carries family features ("a" or "f"), belongs to the family of
    ``base`` and is ``base``'s architecture or a later one. ``base`` may be written
    ``"sm_100f"`` or ``"sm_100"``. Examples: ``sm_103a`` and ``sm_103f`` are in the
    ``sm_100f`` family, ``sm_100f`` is not in the ``sm_103f`` family, ``sm_110f`` is not
    in the ``sm_100f`` family, and plain ``sm_100`` carries no family features.
    """
    t, b = get_target(target), get_target(base)
    return t.has_family_features and t.family == b.family and t.canonical_arch >= b.canonical_arch


def code_runs_on(target: TargetLike, device: TargetLike) -> bool:
    """Can code compiled for ``target`` run on a device of architecture ``device``?

    "a" code runs on its own architecture only; "f" code on its architecture and later
    members of its family; plain code on its architecture and every later one.
    ``device`` is an architecture name such as ``"sm_103"`` (a suffix is ignored).
    """
    t, d = get_target(target), get_target(device)
    if t.arch_specific:
        return d.canonical_arch == t.canonical_arch
    if t.family_specific:
        return d.family == t.family and d.canonical_arch >= t.canonical_arch
    return d.canonical_arch >= t.canonical_arch


#: Targets on which the base tcgen05 instructions exist (derived below).
TCGEN05_TARGETS: tuple[str, ...]

# --------------------------------------------------------------------------------------
# Features and their Target ISA Notes
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Support:
    """One entry of a Target ISA Notes list.

    ``target`` ending in "a" means exactly that architecture-specific target (or its
    renamed form); ending in "f" means "that target or higher in the same family".
    ``since`` is the PTX ISA version from which the entry holds.
    """

    target: str
    since: PtxVersion = (8, 6)

    def covers(self, target: TargetLike) -> bool:
        """Does this entry cover ``target``?"""
        t, listed = get_target(target), get_target(self.target)
        if listed.arch_specific:
            return t.arch_specific and t.canonical_arch == listed.canonical_arch
        return target_in_family(t, listed)

    def describe(self) -> str:
        listed = get_target(self.target)
        text = self.target if listed.arch_specific else f"{self.target} or higher in the same family"
        if listed.renamed_to:
            text += f" (renamed {listed.renamed_to} from PTX ISA 9.0)"
        if self.since > (8, 6):
            text += f" from PTX ISA {ptx_version_string(self.since)}"
        return text


@dataclass(frozen=True)
class Feature:
    """A tcgen05 instruction, qualifier or mode that the spec gates by target or PTX
    ISA version. ``section`` is where its notes are; ``introduced`` the PTX ISA version
    of its "PTX ISA Notes"; ``supported_on`` its "Target ISA Notes"."""

    key: str
    title: str
    section: str
    introduced: PtxVersion
    supported_on: tuple[Support, ...]

    def support_for(self, target: TargetLike) -> Optional[Support]:
        """The entry covering ``target`` that holds from the earliest PTX ISA version."""
        entries = [s for s in self.supported_on if s.covers(target)]
        return min(entries, key=lambda s: s.since) if entries else None

    def required_ptx(self, target: TargetLike) -> Optional[PtxVersion]:
        """The PTX ISA version this feature needs on ``target`` (None if unsupported)."""
        entry = self.support_for(target)
        return None if entry is None else max(self.introduced, entry.since)


# The list every base tcgen05 instruction repeats in its Target ISA Notes
# (9.7.16.7.1, 9.7.16.8.3-5, 9.7.16.9.2, 9.7.16.10.9.1-4, 9.7.16.11.1, 9.7.16.12.1):
#   * sm_100a
#   * sm_101a (Renamed to sm_110a from PTX ISA version 9.0)
#   * And is supported on following family-specific architectures from PTX ISA 8.8:
#     + sm_100f or higher in the same family
#     + sm_101f or higher in the same family (Renamed to sm_110f from PTX ISA 9.0)
#   * sm_110f or higher in the same family
_BASE = (
    Support("sm_100a", (8, 6)),
    Support("sm_101a", (8, 6)),
    Support("sm_100f", (8, 8)),
    Support("sm_101f", (8, 8)),
    Support("sm_110f", (8, 8)),
)

_PTX_86, _PTX_87, _PTX_88 = (8, 6), (8, 7), (8, 8)
_MMA_ALL = "9.7.16.10.9.1-4"


def _feature(key, title, section, introduced, supported_on):
    return Feature(key, title, section, introduced, tuple(supported_on))


# fmt: off
FEATURES: Mapping[str, Feature] = MappingProxyType({f.key: f for f in (
    # Base instructions: "Introduced in PTX ISA version 8.6" and the list above.
    _feature("alloc",  "tcgen05.alloc / dealloc / relinquish_alloc_permit", "9.7.16.7.1", _PTX_86, _BASE),
    _feature("ld",     "tcgen05.ld",     "9.7.16.8.3",     _PTX_86, _BASE),
    _feature("st",     "tcgen05.st",     "9.7.16.8.4",     _PTX_86, _BASE),
    _feature("wait",   "tcgen05.wait",   "9.7.16.8.5",     _PTX_86, _BASE),
    _feature("cp",     "tcgen05.cp",     "9.7.16.9.2",     _PTX_86, _BASE),
    _feature("mma",    "tcgen05.mma",    "9.7.16.10.9.1",  _PTX_86, _BASE),
    _feature("mma.sp", "tcgen05.mma.sp", "9.7.16.10.9.2",  _PTX_86, _BASE),
    _feature("mma.ws", "tcgen05.mma.ws", "9.7.16.10.9.3",  _PTX_86, _BASE),
    _feature("mma.ws.sp", "tcgen05.mma.ws.sp", "9.7.16.10.9.4", _PTX_86, _BASE),
    _feature("fence",  "tcgen05.fence",  "9.7.16.11.1",    _PTX_86, _BASE),
    _feature("commit", "tcgen05.commit", "9.7.16.12.1",    _PTX_86, _BASE),

    # The .kind qualifiers with no note of their own follow the base list of
    # tcgen05.mma (9.7.16.10.9.1), so that every kind can be checked by name.
    *(_feature(f"kind::{kind}", f"kind::{kind}", "9.7.16.10.9.1", _PTX_86, _BASE)
      for kind in ("f16", "tf32", "f8f6f4", "mxf8f6f4", "mxf4")),

    # 9.7.16.8.3: "tcgen05.ld.red is introduced in PTX ISA version 8.8", supported on
    # sm_101a (sm_110a from 9.0); from PTX 8.8 on sm_101f (sm_110f) or higher in the same
    # family and sm_103f or higher in the same family; sm_110f or higher in the family.
    _feature("ld.red", "tcgen05.ld.red", "9.7.16.8.3", _PTX_88, (
        Support("sm_101a"), Support("sm_101f", _PTX_88),
        Support("sm_103f", _PTX_88), Support("sm_110f", _PTX_88))),

    # 9.7.16.9.3: tcgen05.shift "Supported on following architectures: sm_100a, sm_101a
    # (Renamed to sm_110a from PTX ISA version 9.0), sm_103a, sm_110a" - no family target.
    _feature("shift", "tcgen05.shift", "9.7.16.9.3", _PTX_86, (
        Support("sm_100a"), Support("sm_101a"), Support("sm_103a"), Support("sm_110a"))),

    # 9.7.16.10.9.1-4: family targets "except .kind::i8"; "Qualifier .kind::i8 is
    # supported on following architectures: sm_100a, sm_101a (sm_110a from 9.0), sm_110a".
    _feature("kind::i8", "kind::i8", _MMA_ALL, _PTX_86, (
        Support("sm_100a"), Support("sm_101a"), Support("sm_110a"))),

    # 9.7.16.10.9.1/2: "Qualifier .kind::mxf4nvf4 introduced in PTX ISA version 8.7";
    # dense MMA with it follows the base list.
    _feature("kind::mxf4nvf4", "kind::mxf4nvf4", "9.7.16.10.9.1", _PTX_87, _BASE),

    # 9.7.16.10.9.2: tcgen05.mma.sp is on family targets "except .kind::i8 /
    # .kind::mxf4nvf4 / .kind::mxf4"; "Qualifiers .kind::mxf4nvf4 and .kind::mxf4 are
    # supported on following architectures: sm_100a, sm_101a (sm_110a), sm_103a, sm_110a".
    _feature("mma.sp:mxf4", "tcgen05.mma.sp with kind::mxf4 / kind::mxf4nvf4", "9.7.16.10.9.2", _PTX_86, (
        Support("sm_100a"), Support("sm_101a"), Support("sm_103a"), Support("sm_110a"))),

    # 9.7.16.2.1.1: "K = 96 is only supported for target architecture sm_103a". No PTX ISA
    # note of its own; sm_103a itself needs PTX ISA 8.8.
    _feature("k96", "K = 96 (kind::mxf4 / kind::mxf4nvf4)", "9.7.16.2.1.1", _PTX_86, (
        Support("sm_103a"),)),

    # 9.7.16.4.1.1: "The byte address mode for the leading dimension stride is supported
    # on sm_103a" (Table 40 bit 52 = 1, 9.7.16.3.1.2).
    _feature("lbo-absolute", "leading dimension byte address (absolute) mode", "9.7.16.4.1.1", _PTX_86, (
        Support("sm_103a"),)),

    # 9.7.16.10.9.1/2: "Argument scale-input-d requires sm_100a and is supported on
    # sm_100f or higher in the same family from PTX ISA version 8.8."
    _feature("scale-input-d", "scale-input-d", "9.7.16.10.9.1", _PTX_86, (
        Support("sm_100a", _PTX_86), Support("sm_100f", _PTX_88))),

    # 9.7.16.10.9.1/2: ".scale_vec::1X, .scale_vec::2X, .scale_vec::4X requires sm_100a."
    # Read literally: sm_100a only. (ptxas 13.5 also takes them on sm_103a and sm_110a;
    # there the equivalent .block16/.block32 spelling is always available.)
    _feature("scale_vec::NX", ".scale_vec::1X / .scale_vec::2X / .scale_vec::4X", "9.7.16.10.9.1", _PTX_86, (
        Support("sm_100a"),)),

    # 9.7.16.10.9.1/2: "Qualifiers .block16 and .block32 introduced in PTX ISA version
    # 8.8"; ".block16, .block32 requires sm_100f or sm_110f" - read as the two families.
    _feature("blockN", ".block16 / .block32", "9.7.16.10.9.1", _PTX_88, (
        Support("sm_100f", _PTX_88), Support("sm_110f", _PTX_88))),
)})
# fmt: on

FeatureLike = Union[str, Feature]

TCGEN05_TARGETS = tuple(name for name in TARGETS if FEATURES["mma"].support_for(name) is not None)


def get_feature(feature: FeatureLike) -> Feature:
    """Look up a feature by key (``"kind::i8"``, ``"ld.red"``, ...)."""
    if isinstance(feature, Feature):
        return feature
    if feature not in FEATURES:
        raise KeyError(f"unknown tcgen05 feature {feature!r} (known: {', '.join(FEATURES)})")
    return FEATURES[feature]


def _rule(feature: Feature) -> str:
    return f"{feature.section} Target ISA Notes"


def _explain_feature(
    feature: Feature, target: Target, ptx_version: Optional[PtxVersion]
) -> Optional[IsaRuleError]:
    required = feature.required_ptx(target)
    if required is None:
        where = "; ".join(s.describe() for s in feature.supported_on)
        hint = ""
        if not target.has_family_features:
            hint = " (tcgen05 needs an arch-specific 'a' or family-specific 'f' target)"
        return IsaRuleError(
            _rule(feature),
            f"{feature.title} is not supported on {target.name}{hint}; supported on: {where}"
            # A target without tcgen05 at all: the tcgen05 target it most likely meant.
            + (did_you_mean(target.name, TCGEN05_TARGETS) if hint else ""),
        )
    if ptx_version is not None and tuple(ptx_version) < required:
        return IsaRuleError(
            f"{feature.section} PTX ISA Notes",
            f"{feature.title} on {target.name} needs PTX ISA {ptx_version_string(required)} "
            f"or later (got {ptx_version_string(ptx_version)})",
        )
    return None


def feature_supported(
    feature: FeatureLike, target: TargetLike, ptx_version: Optional[PtxVersion] = None
) -> bool:
    """Whether ``target`` (and, if given, ``ptx_version``) supports ``feature``."""
    return _explain_feature(get_feature(feature), get_target(target), ptx_version) is None


def check_feature(
    feature: FeatureLike, target: TargetLike, ptx_version: Optional[PtxVersion] = None
) -> None:
    """Raise ``IsaRuleError`` naming the feature, the target and the section unless
    ``target`` supports ``feature`` (from ``ptx_version``, if given)."""
    error = _explain_feature(get_feature(feature), get_target(target), ptx_version)
    if error is not None:
        raise error


def check_target(target: TargetLike, ptx_version: Optional[PtxVersion] = None) -> Target:
    """Return the ``Target`` after checking that the name exists in ``ptx_version``
    (when given) and that tcgen05 is available on it at all."""
    t = get_target(target)
    if ptx_version is not None:
        v = tuple(ptx_version)
        if v < t.min_ptx:
            raise IsaRuleError(
                "9.7.16 Target ISA Notes",
                f"target {t.name} needs PTX ISA {ptx_version_string(t.min_ptx)} or later "
                f"(got {ptx_version_string(v)}; source: {t.min_ptx_source})",
            )
        if t.max_ptx is not None and v >= t.max_ptx:
            raise IsaRuleError(
                "9.7.16 Target ISA Notes",
                f"target {t.name} is called {t.renamed_to} from PTX ISA "
                f"{ptx_version_string(t.max_ptx)} (got {ptx_version_string(v)})",
            )
    check_feature("mma", t, ptx_version)
    return t


def min_ptx_version(
    target: TargetLike, features: Iterable[FeatureLike] = ()
) -> tuple[PtxVersion, str]:
    """The lowest PTX ISA version that knows ``target`` and all ``features`` on it, and
    the reason: ``"target sm_100f"`` or the feature (with its section) that forced it.

    Raises ``IsaRuleError`` when a feature is not supported on the target, or when the
    required version no longer knows the target's name (the ``sm_101`` names).
    """
    t = get_target(target)
    best: PtxVersion = t.min_ptx
    reason = f"target {t.name}"
    for item in features:
        feature = get_feature(item)
        error = _explain_feature(feature, t, None)
        if error is not None:
            raise error
        entry = feature.support_for(t)
        required = feature.required_ptx(t)
        if required > best:
            best = required
            if feature.introduced >= entry.since:
                why = f"introduced in PTX ISA {ptx_version_string(required)}"
            else:
                why = f"supported on {t.name} via {entry.describe()}"
            reason = f"{feature.title}: {why} ({feature.section})"
    if t.max_ptx is not None and best >= t.max_ptx:
        raise IsaRuleError(
            "9.7.16 Target ISA Notes",
            f"{reason} needs PTX ISA {ptx_version_string(best)}, but from PTX ISA "
            f"{ptx_version_string(t.max_ptx)} target {t.name} is called {t.renamed_to}",
        )
    return best, reason


def scale_vectorsize_feature(scale_vectorsize: str) -> Feature:
    """The feature gating a ``.scale_vectorsize`` spelling (9.7.16.10.9.1 Target ISA Notes):
    ``scale_vec::NX`` or ``blockN``."""
    size = str(scale_vectorsize).strip().lstrip(".").lower()
    return FEATURES["blockN" if size.startswith("block") else "scale_vec::NX"]


def default_scale_vectorsize_spelling(spellings: Iterable[str],
                                      target: TargetLike) -> Optional[str]:
    """The qualifier to print for a ``.scale_vectorsize`` the IR leaves to its default
    (``spellings``: the default's equivalent spellings, ``shapes.scale_vectorsize_aliases``),
    or None to print none.

    Left out, the qualifier needs what a written ``.block32`` needs: ptxas 13.0 refuses a
    ``.block_scale`` without one below ``.version 8.8`` ("Feature '.block32' requires PTX
    ISA .version 8.8 or later"), for kind::mxf8f6f4 too. An equivalent spelling that
    ``target`` takes from an older version is printed instead: ``.scale_vec::NX`` on
    sm_100a, 8.6 (9.7.16.10.9.1 PTX ISA Notes: "Introduced in PTX ISA version 8.6",
    "Qualifiers .block16 and .block32 introduced in PTX ISA version 8.8"; Target ISA Notes:
    ".scale_vec::1X, .scale_vec::2X, .scale_vec::4X requires sm_100a")."""
    implicit = FEATURES["blockN"].required_ptx(target)
    best: Optional[tuple[PtxVersion, str]] = None
    for spelling in spellings:
        need = scale_vectorsize_feature(spelling).required_ptx(target)
        if need is None or (implicit is not None and need >= implicit):
            continue  # not on this target, or no older than leaving it out
        if best is None or need < best[0]:
            best = (need, spelling)
    return None if best is None else best[1]


def choose_scale_vectorsize(spellings: Iterable[str], target: TargetLike) -> str:
    """The first of equivalent ``.scale_vectorsize`` spellings (see
    ``shapes.scale_vectorsize_aliases``) that ``target`` supports; raises the
    ``IsaRuleError`` of the first spelling when none is supported."""
    spellings = tuple(spellings)
    for spelling in spellings:
        if feature_supported(scale_vectorsize_feature(spelling), target):
            return spelling
    names = " or ".join("." + s for s in spellings)
    error = _explain_feature(scale_vectorsize_feature(spellings[0]), get_target(target), None)
    raise IsaRuleError(error.rule, f"{names}: {error.message}")


def mma_features(
    kind: str,
    *,
    sparse: bool = False,
    ws: bool = False,
    k96: bool = False,
    scale_vectorsize: Optional[str] = None,
    scale_input_d: bool = False,
    lbo_absolute: bool = False,
) -> tuple[Feature, ...]:
    """The gated features a tcgen05.mma with these attributes uses, ready for
    ``check_feature`` or ``min_ptx_version``. ``kind`` is "f16" or "kind::f16"; an
    unknown kind raises ``KeyError``."""
    kind = str(kind).strip().lstrip(".").lower()
    if kind.startswith("kind::"):
        kind = kind[len("kind::"):]
    instruction = {(False, False): "mma", (True, False): "mma.sp",
                   (False, True): "mma.ws", (True, True): "mma.ws.sp"}[(bool(sparse), bool(ws))]
    if f"kind::{kind}" not in FEATURES:
        raise KeyError(f"unknown tcgen05.mma kind {kind!r}")
    keys = [instruction, f"kind::{kind}"]
    if sparse and kind in ("mxf4", "mxf4nvf4"):
        keys.append("mma.sp:mxf4")
    if k96:
        keys.append("k96")
    if lbo_absolute:
        keys.append("lbo-absolute")
    if scale_input_d:
        keys.append("scale-input-d")
    # A .scale_vectorsize left out (kind::mxf4 then defaults to .block32, 9.7.16.10.9.1)
    # is not spelled in the PTX, so only an explicit qualifier is gated.
    if scale_vectorsize is not None:
        size = str(scale_vectorsize).strip().lstrip(".").lower()
        keys.append("blockN" if size.startswith("block") else "scale_vec::NX")
    return tuple(FEATURES[k] for k in keys)
