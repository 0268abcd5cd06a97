"""Table 39 of the PTX ISA as data: the MMA kinds and the other vocabulary of
tcgen05.mma (cta groups, collector buffers, maximum shifts), one ``ShapeRow`` per (kind,
.ws, cta_group, sparsity) line of Table 39 "Various combinations of .kind and shapes"
(section 9.7.16.2.1, including the lines it marks "Invalid"), the dtype and atype/btype
columns (``TYPE_ROWS``) and the scale types. ``shapes`` explains and checks requests
against these rows (and re-exports them).

Reading Table 39. The table is a markdown rendering of an HTML table with merged cells:
a cell that is empty in the markdown continues the value above it within the same
(kind, .ws, cta_group) block. Each row below records the reconstructed values; where
a row needed a judgement, the comment above it says which merged cell it inherits.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Optional


# --------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------

#: The MMA kinds of section 9.7.16.10 (list of "kinds of MMA operations").
KINDS = ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4")

#: Kinds that take ``.block_scale`` and scale_A / scale_B matrices (section 9.7.16.10.7).
BLOCK_SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")

#: ``.cta_group::1`` and ``.cta_group::2`` (section 9.7.16.10.9.1).
CTA_GROUPS = (1, 2)

#: The atype/btype cell shared by kind::f8f6f4 and kind::mxf8f6f4 in Table 39.
F8F6F4_TYPES = ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1")

#: The `.scale_vectorsize` qualifier values of section 9.7.16.10.9.1 (syntax forms 2 and 4).
SCALE_VECTOR_SIZES = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")

#: Collector buffer operations (``::op``) of 9.7.16.10.9.1 and 9.7.16.10.9.3.
COLLECTOR_OPS = ("fill", "use", "lastuse", "discard")
#: Collector buffers of tcgen05.mma / tcgen05.mma.sp: only matrix A (9.7.16.10.9.1).
COLLECTOR_BUFFERS_MMA = ("a",)
#: Collector buffers of tcgen05.mma.ws / .ws.sp: B buffers #0-#3 (9.7.16.10.9.3).
COLLECTOR_BUFFERS_WS = ("b0", "b1", "b2", "b3")

#: Table 42 bits 30-31: "Maximum shift while attempting B matrix reuse in .ws":
#: no shift = 0, 8 = 1, 16 = 2, 32 = 3. Keyed by the shift amount, valued by the field.
MAX_SHIFT_VALUES = MappingProxyType({0: 0, 8: 1, 16: 2, 32: 3})

_TABLE = "Table 39"
_MMA = "9.7.16.10.9.1"
_MMA_WS = "9.7.16.10.9.3"


# --------------------------------------------------------------------------------------
# Table 39 as data
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NSet:
    """The N values one cell of Table 39 allows.

    ``values`` is the full set; ``step`` is set when the cell reads "N = {s, 2s, ... 256}
    steps of s", so that a message can say "not a multiple of s"; ``hint`` is how a
    diagnostic lists the alternatives.
    """

    values: tuple[int, ...]
    hint: str
    step: Optional[int] = None

    def __contains__(self, n: object) -> bool:
        return n in self.values


def _steps(step: int) -> NSet:
    return NSet(tuple(range(step, 257, step)), f"N is a multiple of {step} from {step} to 256", step)


def _listed(*values: int) -> NSet:
    return NSet(tuple(values), "supported: " + ", ".join(str(v) for v in values))


#: "N = {8, 16, 24, ... 256} steps of 8" (cta_group::1 without .ws).
N_STEP8 = _steps(8)
#: "N = {16, 32, ... 256} steps of 16" (cta_group::2 without .ws).
N_STEP16 = _steps(16)
#: "N = {32, 64, ... 256} steps of 32" (kind::i8, cta_group::2).
N_STEP32 = _steps(32)
#: "N = {8, 16, 24, 32, 48, ... 256} steps of 16 after N > 32" (kind::i8, cta_group::1).
N_I8_CTA1 = NSet(
    (8, 16, 24, 32) + tuple(range(48, 257, 16)),
    "N in 8, 16, 24, 32 or a multiple of 16 up to 256",
)
#: "N = {64, 128, 256}" (.ws dense).
N_WS_DENSE = _listed(64, 128, 256)
#: "N = {64, 128}" (.ws sparse).
N_WS_SPARSE = _listed(64, 128)


@dataclass(frozen=True)
class ShapeRow:
    """One line of Table 39: a (kind, .ws, cta_group, sparsity) combination.

    ``m`` lists the allowed M (empty when the table says "Invalid"), ``n`` the allowed N,
    ``k`` the K that the kind and sparsity imply (9.7.16.2.2), and ``k96_m`` the M values
    for which the alternative shape "256xNxK1, K1 = 96" exists.
    """

    kind: str
    ws: bool
    cta_group: int
    sparse: bool
    m: tuple[int, ...]
    n: Optional[NSet]
    k: Optional[int]
    k96_m: tuple[int, ...] = ()

    @property
    def valid(self) -> bool:
        """False for the combinations Table 39 marks "Invalid"."""
        return bool(self.m)


def _row(kind, ws, cta_group, sparse, m, n, k, k96_m=()):
    return ShapeRow(kind, ws, cta_group, sparse, tuple(m), n, k, tuple(k96_m))


def _invalid(kind, ws, cta_group, sparse):
    return ShapeRow(kind, ws, cta_group, sparse, (), None, None)


WS, NO_WS = True, False
DENSE, SPARSE = False, True

# fmt: off
TABLE_39: tuple[ShapeRow, ...] = (
    # ---- kind::f16 ------------------------------------------------------------------
    # "No .ws | 1 | Dense | ... | 64xNxK 128xNxK | N = {8, 16, 24, ... 256} steps of 8 | K = 16"
    _row("f16", NO_WS, 1, DENSE,  (64, 128),      N_STEP8,     16),
    # "Sparse | ... | K = 32": the shape and N cells are merged with the dense line above.
    _row("f16", NO_WS, 1, SPARSE, (64, 128),      N_STEP8,     32),
    # "2 | Dense | ... | 128xNxK 256xNxK | N = {16, 32, ... 256} steps of 16 | K = 16"
    _row("f16", NO_WS, 2, DENSE,  (128, 256),     N_STEP16,    16),
    _row("f16", NO_WS, 2, SPARSE, (128, 256),     N_STEP16,    32),
    # ".ws | 1 | Dense | ... | 32xNxK 64xNxK 128xNxK | N = {64, 128, 256} | K = 16"
    _row("f16", WS,    1, DENSE,  (32, 64, 128),  N_WS_DENSE,  16),
    # "Sparse | ... | N = {64, 128} | K = 32": the M cell is merged, N is its own.
    _row("f16", WS,    1, SPARSE, (32, 64, 128),  N_WS_SPARSE, 32),
    # "2 | Either | ... | Invalid"
    _invalid("f16", WS, 2, DENSE),
    _invalid("f16", WS, 2, SPARSE),

    # ---- kind::tf32 (same shapes as f16, K halved) -----------------------------------
    _row("tf32", NO_WS, 1, DENSE,  (64, 128),     N_STEP8,     8),
    _row("tf32", NO_WS, 1, SPARSE, (64, 128),     N_STEP8,     16),
    _row("tf32", NO_WS, 2, DENSE,  (128, 256),    N_STEP16,    8),
    _row("tf32", NO_WS, 2, SPARSE, (128, 256),    N_STEP16,    16),
    _row("tf32", WS,    1, DENSE,  (32, 64, 128), N_WS_DENSE,  8),
    _row("tf32", WS,    1, SPARSE, (32, 64, 128), N_WS_SPARSE, 16),
    _invalid("tf32", WS, 2, DENSE),
    _invalid("tf32", WS, 2, SPARSE),

    # ---- kind::f8f6f4 ----------------------------------------------------------------
    _row("f8f6f4", NO_WS, 1, DENSE,  (64, 128),     N_STEP8,     32),
    _row("f8f6f4", NO_WS, 1, SPARSE, (64, 128),     N_STEP8,     64),
    _row("f8f6f4", NO_WS, 2, DENSE,  (128, 256),    N_STEP16,    32),
    _row("f8f6f4", NO_WS, 2, SPARSE, (128, 256),    N_STEP16,    64),
    _row("f8f6f4", WS,    1, DENSE,  (32, 64, 128), N_WS_DENSE,  32),
    _row("f8f6f4", WS,    1, SPARSE, (32, 64, 128), N_WS_SPARSE, 64),
    _invalid("f8f6f4", WS, 2, DENSE),
    _invalid("f8f6f4", WS, 2, SPARSE),

    # ---- kind::mxf8f6f4 --------------------------------------------------------------
    # "No .ws | 1 | Dense | ... | 128xNxK | N = {8, 16, ... 256} steps of 8 | K = 32"
    _row("mxf8f6f4", NO_WS, 1, DENSE,  (128,),      N_STEP8,  32),
    _row("mxf8f6f4", NO_WS, 1, SPARSE, (128,),      N_STEP8,  64),
    # "2 | Dense | 128xNxK 256xNxK | N = {16, ... 256} steps of 16 | K = 32"
    _row("mxf8f6f4", NO_WS, 2, DENSE,  (128, 256),  N_STEP16, 32),
    # "Sparse | 256xNxK | K = 64": the sparse line has its own shape cell (M = 256 only);
    # the N cell is merged with the dense line.
    _row("mxf8f6f4", NO_WS, 2, SPARSE, (256,),      N_STEP16, 64),
    # ".ws | 1 | Dense ... 2 | Sparse | Invalid": all four .ws lines are invalid.
    _invalid("mxf8f6f4", WS, 1, DENSE),
    _invalid("mxf8f6f4", WS, 1, SPARSE),
    _invalid("mxf8f6f4", WS, 2, DENSE),
    _invalid("mxf8f6f4", WS, 2, SPARSE),

    # ---- kind::i8 --------------------------------------------------------------------
    # "No .ws | 1 | Dense | .s32 | .s8, .u8 | 64xNxK 128xNxK |
    #  N = {8, 16, 24, 32, 48, ... 256} steps of 16 after N > 32 | K = 32"
    _row("i8", NO_WS, 1, DENSE,  (64, 128),     N_I8_CTA1,   32),
    _row("i8", NO_WS, 1, SPARSE, (64, 128),     N_I8_CTA1,   64),
    # "2 | Dense | 128xNxK 256xNxK | N = {32, 64, ... 256} steps of 32 | K = 32"
    _row("i8", NO_WS, 2, DENSE,  (128, 256),    N_STEP32,    32),
    _row("i8", NO_WS, 2, SPARSE, (128, 256),    N_STEP32,    64),
    _row("i8", WS,    1, DENSE,  (32, 64, 128), N_WS_DENSE,  32),
    _row("i8", WS,    1, SPARSE, (32, 64, 128), N_WS_SPARSE, 64),
    _invalid("i8", WS, 2, DENSE),
    _invalid("i8", WS, 2, SPARSE),

    # ---- kind::mxf4 ------------------------------------------------------------------
    # "No .ws | 1 | Dense | .f32 | .e2m1 X (Scale) .ue8m0 | 128xNxK | steps of 8 | K = 64"
    _row("mxf4", NO_WS, 1, DENSE,  (128,),     N_STEP8,  64),
    _row("mxf4", NO_WS, 1, SPARSE, (128,),     N_STEP8,  128),
    # "2 | Dense | 128xNxK 256xNxK 256xNxK1 | steps of 16 | K = 64 K1 = 96":
    # K1 = 96 comes with the third shape only, so it needs M = 256.
    _row("mxf4", NO_WS, 2, DENSE,  (128, 256), N_STEP16, 64, k96_m=(256,)),
    # "Sparse | 256xNxK | K = 128"
    _row("mxf4", NO_WS, 2, SPARSE, (256,),     N_STEP16, 128),
    # ".ws | 1 / 2 | Either | Invalid"
    _invalid("mxf4", WS, 1, DENSE),
    _invalid("mxf4", WS, 1, SPARSE),
    _invalid("mxf4", WS, 2, DENSE),
    _invalid("mxf4", WS, 2, SPARSE),

    # ---- kind::mxf4nvf4 (same shapes as mxf4) ----------------------------------------
    _row("mxf4nvf4", NO_WS, 1, DENSE,  (128,),     N_STEP8,  64),
    _row("mxf4nvf4", NO_WS, 1, SPARSE, (128,),     N_STEP8,  128),
    _row("mxf4nvf4", NO_WS, 2, DENSE,  (128, 256), N_STEP16, 64, k96_m=(256,)),
    _row("mxf4nvf4", NO_WS, 2, SPARSE, (256,),     N_STEP16, 128),
    _invalid("mxf4nvf4", WS, 1, DENSE),
    _invalid("mxf4nvf4", WS, 1, SPARSE),
    _invalid("mxf4nvf4", WS, 2, DENSE),
    _invalid("mxf4nvf4", WS, 2, SPARSE),
)
# fmt: on

_ROWS_BY_KEY = MappingProxyType({(r.kind, r.ws, r.cta_group, r.sparse): r for r in TABLE_39})


@dataclass(frozen=True)
class TypeRow:
    """The dtype and atype/btype columns of Table 39 for one D type of a kind.

    A and B are each drawn from ``ab_types`` independently: Table 39 has one
    "atype/btype" column and Table 42 encodes atype and btype in separate fields.
    """

    kind: str
    d_type: str
    ab_types: tuple[str, ...]


# fmt: off
TYPE_ROWS: tuple[TypeRow, ...] = (
    # kind::f16: "dtype .f16 | atype/btype .f16" and "dtype .f32 | atype/btype .f16, .bf16"
    TypeRow("f16", "f16", ("f16",)),
    TypeRow("f16", "f32", ("f16", "bf16")),
    # kind::tf32: ".f32 | .tf32"
    TypeRow("tf32", "f32", ("tf32",)),
    # kind::f8f6f4: ".f32 .f16 | .e4m3, .e5m2, .e2m3, .e3m2, .e2m1" (one cell for both D types)
    TypeRow("f8f6f4", "f32", F8F6F4_TYPES),
    TypeRow("f8f6f4", "f16", F8F6F4_TYPES),
    # kind::i8: ".s32 | .s8, .u8"
    TypeRow("i8", "s32", ("s8", "u8")),
    # kind::mxf8f6f4: ".f32 | .e4m3, .e5m2, .e2m3, .e3m2, .e2m1 X (Scale) .ue8m0"
    TypeRow("mxf8f6f4", "f32", F8F6F4_TYPES),
    # kind::mxf4 / kind::mxf4nvf4: ".f32 | .e2m1 X (Scale) ..."
    TypeRow("mxf4", "f32", ("e2m1",)),
    TypeRow("mxf4nvf4", "f32", ("e2m1",)),
)
# fmt: on

#: The "X (Scale)" part of the atype/btype column of Table 39 (also Table 55).
SCALE_TYPES = MappingProxyType({
    "mxf8f6f4": ("ue8m0",),
    "mxf4": ("ue8m0",),
    "mxf4nvf4": ("ue8m0", "ue4m3"),
})
