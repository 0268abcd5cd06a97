"""Kernels over the feature lattice, their inputs and their NumPy reference (issue 33).

A ``Spec`` names one point of the lattice: the MMA kind and element types (block-scaled
ones too: mxf8f6f4, mxf4, mxf4nvf4), the tile (M, N) and where B is stored, A in shared
memory, copied to tensor memory or stored there from registers, a uniform program or
warp roles, fills or TMA, the ring's stages, the accumulator's stages, one CTA or a pair,
clusters of pairs with TMA multicast, static or run-time shapes, and the epilogue (output
type, per-column and per-row broadcasts, an activation, a per-tensor scale, a row
reduction, the tcgen05.ld shape), a chained GEMM (P = f(S) stored into tensor memory,
apart or over S by a TMEM alias, and read as the A operand of a second MMA) and
tcgen05-insert-sync{strategy=handoffs}. ``problems(spec)`` lists why the compiler
would not take it (each reason is a documented limitation: docs/partitions.md "Not
planned yet", docs/element-types.md, docs/cta-pairs.md); ``random_spec`` draws only specs
without problems. ``render`` writes the kernel in the forms the shipped examples use.

The reference (``reference``) is computed here in float64 from the generated inputs and
never from the compiler or the simulator; ``tolerance`` bounds the error per element from
the element types (see its docstring for the derivation).
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, fields, replace

import numpy as np

# -- The lattice ------------------------------------------------------------------------

#: Element types of A and B: (MMA kind, MLIR type, NumPy dtype name, bytes, K per MMA
#: (Table 39), accumulator type). "mx_*" are kind::mxf8f6f4 with UE8M0 block scales.
DTYPES = {
    "bf16": ("f16", "bf16", "bfloat16", 2, 16, "f32"),
    "f16": ("f16", "f16", "float16", 2, 16, "f32"),
    "tf32": ("tf32", "tf32", "float32", 4, 8, "f32"),
    "e4m3": ("f8f6f4", "f8E4M3FN", "float8_e4m3fn", 1, 32, "f32"),
    "e5m2": ("f8f6f4", "f8E5M2", "float8_e5m2", 1, 32, "f32"),
    "i8": ("i8", "i8", "int8", 1, 32, "i32"),
    "mx_e4m3": ("mxf8f6f4", "f8E4M3FN", "float8_e4m3fn", 1, 32, "f32"),
    "mx_e5m2": ("mxf8f6f4", "f8E5M2", "float8_e5m2", 1, 32, "f32"),
    # kind::mxf4: e2m1 packed two per byte (element 2j of a row in the low nibble of
    # byte j, 9.7.16.10.4.6), .block32 UE8M0 factors (Tables 44 and 54); K blocks of 128
    # elements (64-byte rows, 64B swizzle), as examples/ws_gemm_mxf4_blockscaled.mlir
    "mx_e2m1": ("mxf4", "f4E2M1FN", "float4_e2m1fn", 1, 64, "f32"),
    # kind::mxf4nvf4: the same elements with UE4M3 factors, one per 16 K elements
    # (scale_vec::4X = .block16, Tables 44, 54, 55): each K = 64 MMA of a K block reads
    # four factors per row from a scale buffer of its own (scale_*_id 0), as
    # examples/ws_gemm_nvf4_blockscaled.mlir
    "nv_e2m1": ("mxf4nvf4", "f4E2M1FN", "float4_e2m1fn", 1, 64, "f32"),
}
#: Output types of C: (MLIR type, NumPy dtype name, unit roundoff, half the smallest
#: subnormal spacing, largest finite value (satfinite conversions clamp to it)).
OUTPUTS = {
    "f32": ("f32", "float32", 0.0, 0.0, None),
    "i32": ("i32", "int32", 0.0, 0.0, None),
    "bf16": ("bf16", "bfloat16", 2.0 ** -8, 2.0 ** -134, None),
    "f16": ("f16", "float16", 2.0 ** -11, 2.0 ** -25, None),
    "e4m3": ("f8E4M3FN", "float8_e4m3fn", 2.0 ** -4, 2.0 ** -10, 448.0),
    "e5m2": ("f8E5M2", "float8_e5m2", 2.0 ** -3, 2.0 ** -17, 57344.0),
}

#: The f32 magnitude from which round-to-nearest to f16 gives +-inf (65504 + 16).
F16_OVERFLOW = 65520.0

#: Each feature with its values; the first is the base a failing spec shrinks towards.
FEATURES = {
    "dtype": list(DTYPES),
    "m": [128, 64, 256],
    "n": [64, 32, 16, 48, 96, 128, 256],
    "b_major": ["nk", "kn"],
    "a_src": ["smem", "tmem", "regs"],
    "program": ["uniform", "roles"],
    "load": ["fill", "tma"],
    "ring": [1, 2],
    "acc_stages": [1, 2],
    "ctas": [1, 2],
    "shapes": ["static", "runtime"],
    "out": list(OUTPUTS),
    "bias": ["none", "col", "row"],
    "act": ["none", "relu", "gelu"],
    "scale": [False, True],
    "kblocks": [1, 2],
    "tiles": [1, 2],
    "cluster": ["none", "2x2", "4x1"],
    "rowred": ["none", "max", "sum"],
    "ld_shape": ["auto", "16x32bx2"],
    "chain": ["none", "sep", "alias"],
    "sync": ["auto", "handoffs"],
}

#: The element types a chained GEMM's P takes (A's; an mxf8f6f4 first MMA's P is fp8,
#: read by an unscaled kind::f8f6f4 second MMA) and the OUTPUTS entry that rounds to it.
P_TYPES = {"bf16": "bf16", "f16": "f16", "e4m3": "e4m3", "e5m2": "e5m2",
           "mx_e4m3": "e4m3", "mx_e5m2": "e5m2"}
#: The chained GEMM's second MMA (``chain``): O = P V^T with N2 = CHAIN_N2 columns, P
#: [M, n] the A operand in tensor memory and V [N2, n tiles] in global memory (K-major).
CHAIN_N2 = 64

#: Clusters of CTA pairs with TMA multicast (docs/tma.md "Multicast across a cluster"):
#: (cluster x, cluster y, the operand multicast, its dimension, pair tiles along M and N
#: that one cluster computes).
CLUSTERS = {"2x2": (2, 2, "A", "y", 1, 2), "4x1": (4, 1, "B", "x", 2, 1)}
#: The same for clusters of single CTAs (cta_group::1, tests/test_multicast_cta1.py): the
#: CTAs along x hold M tiles, those along y N tiles; 2 x 2 multicasts A along y (the CTAs
#: of an M tile), 4 x 1 B along x (the CTAs of an N tile).
CLUSTERS_1CTA = {"2x2": (2, 2, "A", "y", 2, 2), "4x1": (4, 1, "B", "x", 4, 1)}


@dataclass(frozen=True)
class Spec:
    """One kernel of the lattice (see FEATURES) and the seed of its inputs and sizes."""
    dtype: str = "bf16"
    m: int = 128            # the MMA's M (the pair's M when ctas == 2)
    n: int = 64             # the MMA's N (one tile)
    b_major: str = "nk"     # B stored N x K ("nk", K contiguous) or K x N ("kn")
    a_src: str = "smem"
    program: str = "uniform"
    load: str = "fill"
    ring: int = 1           # shared-memory stages of A and B
    acc_stages: int = 1     # accumulator stages in tensor memory
    ctas: int = 1           # 1, or 2: a CTA pair (cta_group = 2)
    shapes: str = "static"  # "runtime": M, N, K kernel arguments, a grid, edge tiles
    out: str = "f32"
    bias: str = "none"      # per-column ("col") or per-row ("row") f32 vector added
    act: str = "none"
    scale: bool = False     # multiply by a per-tensor f32 scale
    kblocks: int = 1        # K blocks of 128 bytes per row
    tiles: int = 1          # N tiles per CTA (a loop over tiles)
    cluster: str = "none"   # "2x2": two pairs along y share A (multicast "y"); "4x1":
    #                         two pairs along x share B (multicast "x")
    rowred: str = "none"    # "max" / "sum": the epilogue subtracts each row's maximum /
    #                         sum over the loaded columns (frag_reduce, frag_broadcast)
    ld_shape: str = "auto"  # "16x32bx2": tcgen05.ld with that shape (a row split over
    #                         two threads: row reductions shuffle, isa/row_slots.py)
    chain: str = "none"     # "sep" / "alias": a chained GEMM O = f(A B^T) V^T: the epilogue
    #                         loads S = A B^T, transforms it (bias, scale, activation, row
    #                         reduction), rounds it to A's element type and stores it
    #                         (tcgen05.st) as P into a TMEM buffer of its own ("sep") or
    #                         over S's first columns (an alias of the accumulator, "alias"),
    #                         and an MMA reads P as its A operand from tensor memory (an
    #                         unscaled kind::f8f6f4 one after a block-scaled first MMA); N's
    #                         tiles are K blocks of the second GEMM (O accumulates over them,
    #                         in one CTA: run-time shapes have one N tile of the grid)
    sync: str = "auto"      # "handoffs": tcgen05-insert-sync{strategy=handoffs} plans the
    #                         roles' TMA loads and TMEM handoffs (docs/partitions.md)
    seed: int = 0

    def key(self) -> str:
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))

    @property
    def kind(self) -> str:
        return DTYPES[self.dtype][0]

    @property
    def scaled(self) -> bool:
        return self.kind.startswith("mx")     # mxf8f6f4, mxf4, mxf4nvf4

    @property
    def elem(self) -> str:
        return DTYPES[self.dtype][1]

    @property
    def packed4(self) -> bool:
        """4-bit elements, two per byte (the arrays hold bytes)."""
        return self.dtype in ("mx_e2m1", "nv_e2m1")

    @property
    def nvf4(self) -> bool:
        """UE4M3 factors per 16 elements: two scale buffers per operand and K block."""
        return self.dtype == "nv_e2m1"

    @property
    def swizzle(self) -> str:
        """A K block's row is one swizzle span: 128 bytes, or 64 for 4-bit elements."""
        return "64B" if self.packed4 else "128B"

    @property
    def row_bytes(self) -> int:
        """The bytes of a K block's row in shared memory (TMA counts a 4-bit row's
        coordinates in bytes)."""
        return 64 if self.packed4 else 128

    @property
    def ebytes(self) -> int:
        return DTYPES[self.dtype][3]

    @property
    def kb(self) -> int:
        """K elements of one block: a 128-byte row, the 128B swizzle's span."""
        return 128 if self.packed4 else 128 // self.ebytes

    @property
    def k_mma(self) -> int:
        return DTYPES[self.dtype][4]

    @property
    def acc_t(self) -> str:
        return DTYPES[self.dtype][5]

    @property
    def m_cta(self) -> int:
        """A's rows in one CTA's tile (docs/cta-pairs.md: M/2 in a pair)."""
        return self.m // self.ctas

    @property
    def n_cta(self) -> int:
        return self.n // self.ctas

    @property
    def d_rows(self) -> int:
        """Rows of D a CTA holds: 128 for M = 256, 64 for a pair's M = 128, else M."""
        return self.m // self.ctas

    @property
    def mapped(self) -> bool:
        """Does the epilogue compute (a frag_map), or store what it loads?"""
        plain = "f32" if self.acc_t == "f32" else "i32"
        return (self.out != plain or self.bias != "none" or self.act != "none"
                or self.scale or self.rowred != "none")

    @property
    def a_in_tmem(self) -> bool:
        """A in tensor memory: copied there (tcgen05.cp) or stored from registers."""
        return self.a_src != "smem"

    @property
    def cl(self):
        """The cluster's (x, y, operand, dimension, pair tiles along M, along N), or None."""
        return (CLUSTERS if self.ctas == 2 else CLUSTERS_1CTA).get(self.cluster)

    @property
    def shuffled(self) -> bool:
        """Is a row of the epilogue's fragments split over two threads (.16x32bx2:
        Layout F always, Layout D when asked)?"""
        return self.ld_shape == "16x32bx2" or self.d_rows == 64

    def features(self) -> dict:
        """The feature values the report counts pairs of (the seed is not one)."""
        out = asdict(self)
        out.pop("seed")
        out["block_scale"] = self.scaled
        out["row_shuffle"] = self.rowred != "none" and self.shuffled
        return out


def problems(spec: Spec) -> list[str]:
    """Why the compiler does not take `spec` (empty: it must compile, run and match)."""
    s, why = spec, []
    if s.out == "i32" and s.acc_t != "i32":
        why.append("an i32 output only of kind::i8")
    if s.acc_t == "i32" and s.out == "i32" and s.mapped:
        why.append("the epilogue computes in f32: an i32 output is only stored as loaded")
    if s.ctas == 2 and s.m not in (128, 256):
        why.append("a pair's M is 128 or 256 (Table 41 / 9.7.16.10.5)")
    if s.ctas == 1 and s.m == 256:
        why.append("M = 256 needs a CTA pair")
    if s.n % (16 * s.ctas) or s.n_cta % 8:
        why.append("N must be a multiple of 16 (of 32 in a pair: each CTA's B tile has N/2 "
                   "rows, a multiple of 16)")
    sf_stages = s.ring if (s.scaled and s.program == "roles") else 1
    columns = (s.acc_stages * s.n + (32 if s.a_in_tmem else 0)
               + (8 * sf_stages * (2 if s.nvf4 else 1) if s.scaled else 0)
               + (CHAIN_N2 + (32 if s.chain == "sep" else 0) if s.chain != "none" else 0))
    if columns > 512:
        why.append(f"the buffers need {columns} TMEM columns, more than 512 (9.7.16.1)")
    if s.acc_stages > s.tiles:
        why.append("two accumulator stages need two tiles")
    if s.scaled and (s.m, s.ctas) not in ((128, 1), (256, 2)):
        why.append("block scaling: generated for M = 128 on one CTA and a pair's M = 256 "
                   "(not M = 64's half lanes, not Layout B's)")
    if s.scaled and s.ctas == 2 and (s.nvf4 or s.program != "roles"):
        why.append("block scaling in a CTA pair: generated for one scale buffer per operand "
                   "in warp roles, as examples/ws_gemm_mxf8_blockscaled_2cta.mlir")
    if s.scaled and s.n > 128:
        why.append("block scaling: N <= 128 (one [128, 4] scale buffer holds 128 entries)")
    if s.scaled and s.a_src != "smem":
        why.append("block scaling with A in tensor memory: not generated")
    if s.packed4 and s.program != "roles":
        why.append("kind::mxf4 (4-bit A and B): generated in warp roles with TMA only (the "
                   "fills of 4-bit tiles are not generated)")
    if s.scaled and s.program == "roles" and s.load != "tma":
        why.append("block scaling in warp roles: generated with TMA rings only (the scale "
                   "factors' tiles come by TMA, as examples/ws_gemm_mxf8_blockscaled.mlir)")
    if s.scaled and s.n < 32:
        why.append("block scaling with N = 16: the scale_b operand sits on half lanes, which "
                   "tcgen05.cp cannot fill (tcgen05-select-layouts)")
    if s.load == "tma" and s.b_major != "nk":
        why.append("TMA loads K-major tiles of a K-contiguous B here")
    if s.a_src == "regs" and s.program != "uniform":
        why.append("A stored from registers in warp roles: the generator's roles have no "
                   "warpgroup that loads A (the epilogue role holds the only one)")
    if s.a_src == "regs" and (s.ctas != 1 or s.m not in (64, 128)):
        why.append("A stored from registers: one CTA, M = 64 (Layout F) or 128 (Layout D); "
                   "the compiler refuses Layouts A and B (a pair's M = 256, 128: \"not "
                   "supported yet\", docs/epilogues.md), which the ISA allows "
                   "(docs/fuzzing.md, Findings)")
    if s.a_src == "regs" and s.dtype == "tf32":
        why.append("A stored from registers for tf32: the compiler refuses it (\"tf32 "
                   "elements are not supported yet\", isa/a_store.py), which the ISA allows "
                   "(docs/fuzzing.md, Findings)")
    if s.a_src == "regs" and s.dtype == "i8":
        why.append("A in tensor memory for kind::i8 is not modelled by the simulator")
    if s.a_src == "tmem" and s.program != "uniform":
        why.append("A in tensor memory in warp roles: tcgen05.cp is refused in a role "
                   "(docs/partitions.md, Not planned yet), and so is tcgen05.st (which "
                   "fills A from registers in a uniform program)")
    if s.a_src == "tmem" and (s.ctas != 1 or s.m != 128):
        why.append("A in tensor memory: generated for M = 128 on one CTA only (the copy "
                   "to 128 lanes by tcgen05.cp.128x256b)")
    if s.a_src == "tmem" and s.dtype == "i8":
        why.append("A in tensor memory for kind::i8 is not modelled by the simulator")
    if s.program == "roles" and s.load == "fill":
        if s.ctas == 2:
            why.append("a pair with warp roles is planned only with TMA loads")
        if s.tiles > 1 or s.acc_stages > 1:
            why.append("warp roles with fills: one tile, one accumulator (roles.py)")
        if s.kblocks % s.ring:
            why.append("warp roles with fills: K blocks a multiple of the ring's stages")
    if s.cluster != "none" and (s.program != "roles" or s.load != "tma"):
        why.append("TMA multicast across a cluster: generated with TMA in warp roles only "
                   "(fills have nothing to multicast)")
    if s.rowred != "none" and s.ctas == 2 and s.m == 128:
        why.append("a row reduction in Layout B (a pair's M = 128): the columns of a row "
                   "past the first N/2 lie on the other warps' lanes, which frag_reduce "
                   "refuses (isa/row_slots.py; it would need shared memory)")
    if s.rowred != "none" and s.acc_t != "f32":
        why.append("a row reduction of an s32 accumulator: frag_reduce takes f32 fragments")
    if s.program == "uniform" and s.load == "tma" and s.ctas == 2:
        why.append("TMA in a uniform pair kernel: tcgen05-verify-sync does not check it "
                   "(docs/cta-pairs.md); a pair takes TMA in warp roles")
    why += _chain_problems(s)
    return why


def _chain_problems(s: Spec) -> list[str]:
    """Why the chained GEMM (``chain``) or strategy=handoffs (``sync``) does not take `s`."""
    why = []
    if s.sync == "handoffs" and s.program != "roles":
        why.append("strategy=handoffs plans the handoffs between warp roles (\"this kernel "
                   "has no tcgen05.partitions\", handoffs-diagnostics.mlir)")
    if s.sync == "handoffs" and s.chain == "none":
        why.append("strategy=handoffs with the plain GEMM's roles: the epilogue's column "
                   "loop (step 32) would be its turn loop, which must count from 0 by 1 "
                   "(handoffs-diagnostics.mlir); the chained GEMM has the handoffs' form")
    if s.sync == "handoffs" and s.load != "tma":
        why.append("strategy=handoffs: the generator's handoffs form loads by TMA "
                   "(pipelined_loads.py plans TMA rings); fills in roles are not generated "
                   "with it")
    if s.chain == "none":
        return why
    if s.program == "roles" and s.sync != "handoffs":
        why.append("a chained GEMM in warp roles: strategy=auto refuses tcgen05.st in a "
                   "role (\"tcgen05.st in role 'epilogue' (warps 4-7) is not planned in a "
                   "kernel whose roles issue TMA loads yet\", docs/partitions.md, Not planned "
                   "yet); strategy=handoffs plans it")
    if s.dtype not in P_TYPES:
        why.append("a chained GEMM's P (A from tensor memory, stored by tcgen05.st): not "
                   "for tf32 (P's frag_map is refused: \"a computed fragment of tf32 is not "
                   "supported\"), kind::i8 (A in tensor memory not modelled by the "
                   "simulator) or 4-bit elements (P would be stored as e2m1: not "
                   "generated)")
    if s.scaled and s.program == "roles":
        why.append("a block-scaled chained GEMM in warp roles: the scale factors' "
                   "tcgen05.cp in the MMA role is refused by strategy=handoffs (\"tcgen05.cp "
                   "in a role is not planned yet (the handoffs cover tcgen05.mma, tcgen05.ld "
                   "and tcgen05.st)\", synchronization/role_turns.py)")
    if s.n != s.kb:
        why.append("a chained GEMM: n is one K block of the second MMA (128 bytes of A's "
                   "elements: k_offset moves A and B together, so P's [M, n] and V's "
                   "[N2, n] tile span the same K)")
    if s.a_src != "smem":
        why.append("a chained GEMM: the first MMA's A in shared memory (A in tensor memory "
                   "beside P: not generated)")
    if s.acc_stages != 1:
        why.append("a chained GEMM: one stage of S (an alias has its parent's stage count, "
                   "planning/aliases.py; strategy=handoffs refuses tmem_stage rings, "
                   "handoffs-diagnostics.mlir)")
    if s.ctas != 1:
        why.append("a chained GEMM in a CTA pair: tcgen05.st into an A operand of Layouts A "
                   "and B is refused (\"not supported yet: only Layout D (M = 128, "
                   "cta_group::1) ... and Layout F (M = 64)\", docs/epilogues.md)")
    if s.cluster != "none":
        why.append("a chained GEMM in a cluster: not generated (V's loads would need a "
                   "multicast plan of their own)")
    if s.ld_shape == "16x32bx2" and s.m == 128:
        why.append("a chained GEMM's P from .16x32bx2 fragments: the compiler refuses "
                   "tcgen05.st of them into an A operand (\"packs the K elements each "
                   "thread holds of its row, so the fragment must be held one row per "
                   "thread\", layout_selection/a_stores.py: a row split over two threads)")
    return why


def random_spec(rng: random.Random, seed: int | None = None, tries: int = 10_000,
                fixed: dict | None = None) -> Spec:
    """A spec without problems, every feature drawn uniformly (then rejected if invalid);
    `fixed` pins features (for covering a pair)."""
    fixed = fixed or {}
    for _ in range(tries):
        values = {name: fixed.get(name, rng.choice(choices))
                  for name, choices in FEATURES.items()}
        spec = Spec(**values, seed=rng.randrange(1 << 30) if seed is None else seed)
        if not problems(spec):
            return spec
    raise ValueError(f"no valid spec with {fixed}")


# -- Sizes -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sizes:
    """The problem: M x N x K and the leading dimensions (elements) of A, B and C."""
    M: int
    N: int
    K: int
    lda: int
    ldb: int
    ldc: int
    grid_m: int
    grid_n: int


def sizes(spec: Spec) -> Sizes:
    """Static: one tile (the pair's M, the CTA's tiles of N, the K blocks). Run-time: M, N
    and K that are not multiples of the tile, on one or two tiles of the grid, leading
    dimensions padded past them (A's and B's rows kept 16-byte aligned, the precondition
    of examples/gemm_bf16_grid.mlir)."""
    nt, kp = spec.n * spec.tiles, spec.kb * spec.kblocks
    cm, cn = spec.cl[4:6] if spec.cl else (1, 1)   # a cluster's pair tiles
    if spec.shapes == "static":
        k = kp
        ldc = CHAIN_N2 if spec.chain != "none" else cn * nt   # C: O's N2 columns
        return Sizes(cm * spec.m, cn * nt, k, k, cn * nt if spec.b_major == "kn" else k,
                     ldc, cm, cn)
    rng = random.Random(spec.seed ^ 0x5EED)
    gm, gn = rng.choice([(1, 1), (1, 1), (2, 1), (1, 2)])
    if spec.scaled and spec.program == "uniform":
        gm, gn = 1, 1   # one tile: every CTA would read the same scale factors
    if spec.chain != "none":
        gn = 1          # the chained GEMM's O sums over every N tile in one CTA
    if spec.cl:         # whole clusters: along M and N as many tiles as a cluster has
        gm = gm if spec.cl[4] == 1 else spec.cl[4]
        gn = gn if spec.cl[5] == 1 else spec.cl[5]
    M = gm * spec.m - rng.randrange(1, spec.m // 2)
    N = gn * nt - rng.randrange(1, min(nt, 24) if nt > 1 else 2)
    if spec.packed4:    # K a multiple of 32 (a row's bytes a multiple of TMA's 16)
        K = kp - 32 * rng.randrange(1, spec.kb // 32)
        align = 32
    else:
        K = kp - rng.randrange(1, spec.kb // 2)
        align = 16 // spec.ebytes
    pad = align * rng.randrange(0, 3)
    lda = -(-K // align) * align + pad
    ldb = (-(-N // align) * align + pad) if spec.b_major == "kn" else lda
    ldc = (CHAIN_N2 if spec.chain != "none" else N) + rng.randrange(0, 5)
    return Sizes(M, N, K, lda, ldb, ldc, gm, gn)


# -- MLIR text ---------------------------------------------------------------------------

def _smem(rows: int, k: int, elem: str, stages: int = 0, swizzle: str = "128B") -> str:
    shape = f"[{stages}, {rows}, {k}]" if stages else f"[{rows}, {k}]"
    return f'!tcgen05.smem<{shape}, {elem}, "K", "{swizzle}">'


class _Text:
    def __init__(self):
        self.lines: list[str] = []
        self.consts: dict[int, str] = {}

    def __call__(self, line: str, indent: int = 1):
        self.lines.append("  " * indent + line)

    def c(self, value: int) -> str:
        self.consts.setdefault(value, f"%c{value}")
        return self.consts[value]


def render(spec: Spec) -> str:
    """The kernel's MLIR text (function name gen_kernel)."""
    s, sz = spec, sizes(spec)
    runtime = s.shapes == "runtime"
    t = _Text()
    kb, kp = s.kb, s.kb * s.kblocks
    nt = s.n * s.tiles
    elem = s.elem
    sw = s.swizzle
    tile_a, tile_b = _smem(s.m_cta, kb, elem, 0, sw), _smem(s.n_cta, kb, elem, 0, sw)
    ring_form = s.ring > 1 or (s.load == "tma" and s.program == "roles")
    ring_a = _smem(s.m_cta, kb, elem, s.ring, sw) if ring_form else tile_a
    ring_b = _smem(s.n_cta, kb, elem, s.ring, sw) if ring_form else tile_b
    explicit = s.program == "roles" and s.load == "fill"   # roles.py: explicit stage tiles
    acc1 = f"!tcgen05.tmem<[{s.m}, {s.n}], {s.acc_t}>"
    acc_ty = f"!tcgen05.tmem<[2, {s.m}, {s.n}], {s.acc_t}>" if s.acc_stages == 2 else acc1
    a_tmem = f"!tcgen05.tmem<[{s.m}, {kb}], {elem}>"
    staging = '!tcgen05.smem<[128, 32], i8, "K", "none">'
    sf_elem = "f8E4M3" if s.nvf4 else "f8E8M0FNU"
    sf_t = f"!tcgen05.tmem<[128, 4], {sf_elem}>"
    sf_s = '!tcgen05.smem<[128, 16], i8, "K", "none">'
    # Block scaling in warp roles: the factors' [32, 16] tiles come by TMA into a ring
    # beside A's and B's, and tcgen05.cp.32x128b.warpx4 copies each into a stage of a TMEM
    # ring (examples/ws_gemm_mxf8_blockscaled.mlir's blocked layout, make_inputs).
    ws_scaled = s.scaled and s.program == "roles"
    sf_ts = '!tcgen05.smem<[32, 16], i8, "K", "none">'
    sf_ring_s = f'!tcgen05.smem<[{s.ring}, 32, 16], i8, "K", "none">'
    sf_ring_t = f"!tcgen05.tmem<[{s.ring}, 128, 4], {sf_elem}>"
    # the scale buffers of an operand: one, or (nvf4) one per MMA of a K block
    halves = ["0", "1"] if s.nvf4 else [""]
    located = runtime or s.cl is not None   # m0, n0 from the CTA's place in the grid
    # Layout B (a pair's M = 128) keeps blocks of N/2 columns apart: a slice divides them.
    ch = epilogue_chunk(s)
    acc_frag = f"!tcgen05.frag<[{s.m}, {ch}], {s.acc_t}>"
    row_frag = f"!tcgen05.frag<[{s.m}, 1], f32>"
    ld_attr = ' {shape = "16x32bx2"}' if s.ld_shape == "16x32bx2" else ""
    out_t = OUTPUTS[s.out][0]
    out_frag = f"!tcgen05.frag<[{s.m}, {ch}], {out_t}>"
    # the chained GEMM: P [M, n] (A's element type) in tensor memory, its own or over S's
    # first columns; O [M, N2] f32; V's [N2, n] K-major tiles (one per tile of N)
    chain = s.chain != "none"
    p_ty = f"!tcgen05.tmem<[{s.m}, {s.n}], {elem}>"
    p_frag = f"!tcgen05.frag<[{s.m}, {ch}], {elem}>"
    o_ty = f"!tcgen05.tmem<[{s.m}, {CHAIN_N2}], f32>"
    tile_v = _smem(CHAIN_N2 // s.ctas, kb, elem, 0, sw)
    ring_v = _smem(CHAIN_N2 // s.ctas, kb, elem, s.ring, sw)

    params = ["%A: !llvm.ptr<1>", "%B: !llvm.ptr<1>"]
    if s.scaled:
        params += ["%SFA: !llvm.ptr<1>", "%SFB: !llvm.ptr<1>"]
    if s.bias == "col":
        params.append("%bias: !llvm.ptr<1>")
    if s.bias == "row":
        params.append("%rbias: !llvm.ptr<1>")
    if s.scale:
        params.append("%scale: !llvm.ptr<1>")
    if chain:
        params.append("%V: !llvm.ptr<1>")
    params.append("%C: !llvm.ptr<1>")
    if runtime:
        params += [f"%{x}: i32" for x in ("M", "N", "K", "lda", "ldb", "ldc")]
    if s.load == "tma":
        # the box's inner extent in the array's elements (bytes for 4-bit elements)
        inner = s.row_bytes if s.packed4 else kb
        params.append(f'%tmA: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "A", box = '
                      f'array<i64: {inner}, {s.m_cta}>, swizzle = "{sw}"}}}}')
        params.append(f'%tmB: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "B", box = '
                      f'array<i64: {inner}, {s.n_cta}>, swizzle = "{sw}"}}}}')
    if chain and s.load == "tma":
        params.append(f'%tmV: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "V", box = '
                      f'array<i64: {kb}, {CHAIN_N2 // s.ctas}>, swizzle = "{sw}"}}}}')
    if ws_scaled:
        for x in ("SFA", "SFB"):
            params.append(f'%tm{x}: !llvm.ptr<1> {{tcgen05.tensor_map = {{tensor = "{x}", '
                          f'box = array<i64: 16, 32>, swizzle = "none"}}}}')
    threads = 256 if s.program == "roles" else 128
    grid = ""
    if s.cl:
        # x: the CTAs of the cluster's pairs along M; y: along N (2 x 2: two N tiles);
        # z: the clusters along M (4 x 1: two pair tiles each) or 1 (static)
        cx, cy = s.cl[:2]
        z = f"ceildiv(M, {s.m * s.cl[4]})" if runtime else "1"
        y = f"ceildiv(N, {nt})" if runtime and cy == 1 else str(cy)
        grid = f', cluster = array<i32: {cx}, {cy}>, grid = ["{cx}", "{y}", "{z}"]'
    elif runtime:
        if s.ctas == 1:
            grid = f', grid = ["ceildiv(N, {nt})", "ceildiv(M, {s.m})"]'
        else:
            grid = f', grid = ["2", "ceildiv(M, {s.m})", "ceildiv(N, {nt})"]'
    head = [f"func.func @gen_kernel({', '.join(params)})",
            f'    attributes {{tcgen05.kernel = {{target = "sm_100a", threads = {threads} : '
            f'i64, cta_group = {s.ctas} : i64{grid}}}}} {{']
    body = _Text()
    body.consts = t.consts
    # shapes and this CTA's tile
    if runtime:
        for x, y in (("M", "m_sz"), ("N", "n_sz"), ("K", "k_sz"), ("lda", "a_ld"),
                     ("ldb", "b_ld"), ("ldc", "c_ld")):
            body(f"%{y} = arith.index_castui %{x} : i32 to index")
    if s.cl:
        # pair tile (x / 2 + (pairs along x) z, y): the pairs of a cluster along y share
        # their M tile (A), those along x their N tile (B)
        body("%bx = gpu.block_id x")
        body("%bz = gpu.block_id z")
        body(f"%px = arith.divui %bx, {t.c(s.ctas)} : index")
        body(f"%pz = arith.muli %bz, {t.c(s.cl[4])} : index")
        body("%tile_m = arith.addi %pz, %px : index")
        body("%tile_n = gpu.block_id y")
    elif runtime:
        tm, tn = ("y", "x") if s.ctas == 1 else ("y", "z")
        body(f"%tile_m = gpu.block_id {tm}")
        body(f"%tile_n = gpu.block_id {tn}")
    if located:
        body(f"%m0 = arith.muli %tile_m, {t.c(s.m)} : index")
        body(f"%n0 = arith.muli %tile_n, {t.c(nt)} : index")
    body("%true = arith.constant true")
    if chain:
        body("%false = arith.constant false")
    # buffers
    if chain and s.program == "roles":
        # A loaded once (a tile per K block), B and V through rings (one per K block of B)
        for i in range(s.kblocks):
            body(f'%a{i} = "tcgen05.smem_buffer"() : () -> {tile_a}')
            body(f'%b{i} = "tcgen05.smem_buffer"() : () -> {ring_b}')
        body(f'%v = "tcgen05.smem_buffer"() : () -> {ring_v}')
    elif explicit:
        for i in range(s.ring):
            body(f'%a{i} = "tcgen05.smem_buffer"() : () -> {tile_a}')
            body(f'%b{i} = "tcgen05.smem_buffer"() : () -> {tile_b}')
    else:
        if s.a_src == "smem":
            body(f'%a = "tcgen05.smem_buffer"() : () -> {ring_a}')
        body(f'%b = "tcgen05.smem_buffer"() : () -> {ring_b}')
    if s.a_in_tmem:
        body(f'%at = "tcgen05.tmem_buffer"() {{name = "a"}} : () -> {a_tmem}')
    if s.a_src == "tmem":
        for q in range(4):
            body(f'%stage{q} = "tcgen05.smem_buffer"() : () -> {staging}')
    body(f'%acc = "tcgen05.tmem_buffer"() {{name = "acc"}} : () -> {acc_ty}')
    if chain:
        alias = ', alias = "acc", alias_column = 0 : i64' if s.chain == "alias" else ""
        body(f'%p = "tcgen05.tmem_buffer"() {{name = "p"{alias}}} : () -> {p_ty}')
        body(f'%o = "tcgen05.tmem_buffer"() {{name = "o"}} : () -> {o_ty}')
        if s.program == "uniform":
            body(f'%v = "tcgen05.smem_buffer"() : () -> {tile_v}')
    if ws_scaled:
        for x in ("A", "B"):
            for h in halves:
                body(f'%sf{x}{h} = "tcgen05.tmem_buffer"() {{name = "sf{x.lower()}{h}"}} : () '
                     f'-> {sf_ring_t}')
                body(f'%ss{x}{h} = "tcgen05.smem_buffer"() : () -> {sf_ring_s}')
    elif s.scaled:
        for x in ("A", "B"):
            body(f'%sf{x} = "tcgen05.tmem_buffer"() {{name = "sf{x.lower()}"}} : () -> {sf_t}')
            body(f'%ss{x} = "tcgen05.smem_buffer"() : () -> {sf_s}')

    def scale_factors(ind, tv):
        """This K block's scale factors (and this tile's, for B) into their buffers:
        SFA holds [128, 16 kblocks] bytes (block j at bytes 16 j..), SFB [128 tiles, 16
        kblocks] (tile t at rows 128 t..); each fill copies one [128, 16] block, then
        tcgen05.cp.128x128b (9.7.16.9.2) puts it in the buffer's four columns."""
        body(f"%kidx = arith.divui %k, {t.c(kb)} : index", ind)
        body(f"%sfk = arith.muli %kidx, {t.c(16)} : index", ind)
        ld = 16 * s.kblocks
        body(f'"tcgen05.smem_fill"(%SFA, %ssA, %sfk) {{src_layout = "mn_k", src_ld = {ld} : '
             f'i64}} : (!llvm.ptr<1>, {sf_s}, index) -> ()', ind)
        if s.tiles > 1:
            body(f"%sfrow = arith.muli {tv}, {t.c(128)} : index", ind)
            body(f'"tcgen05.smem_fill"(%SFB, %ssB, %sfk, %sfrow) {{src_layout = "mn_k", '
                 f'src_ld = {ld} : i64, dims = ["row_offset"]}} : (!llvm.ptr<1>, {sf_s}, '
                 f'index, index) -> ()', ind)
        else:
            body(f'"tcgen05.smem_fill"(%SFB, %ssB, %sfk) {{src_layout = "mn_k", src_ld = {ld} '
                 f': i64}} : (!llvm.ptr<1>, {sf_s}, index) -> ()', ind)
        for x in ("A", "B"):
            body(f'"tcgen05.cp"(%sf{x}, %ss{x}) {{shape = "128x128b"}} : ({sf_t}, {sf_s}) -> ()',
                 ind)
    if s.load == "tma" and s.program == "uniform":
        body('%full = "tcgen05.alloc_mbarrier"() : () -> !tcgen05.mbarrier')

    def fill(ind, src, tile_v, tile_ty, k_v, which):
        """A fill of A (`which` "A") or B at K offset k_v."""
        if which == "A":
            layout, ld_static, off, ext, ld_v = "mn_k", sz.lda, "%m0", "%m_sz", "%a_ld"
        else:
            layout = "mn_k" if s.b_major == "nk" else "k_mn"
            ld_static, off, ext, ld_v = sz.ldb, "%nt", "%n_sz", "%b_ld"
        if runtime:
            body(f'"tcgen05.smem_fill"({src}, {tile_v}, {k_v}, {ld_v}, {off}, {ext}, %k_sz) '
                 f'{{src_layout = "{layout}", dims = ["src_ld", "row_offset", "rows", '
                 f'"k_size"]}} : (!llvm.ptr<1>, {tile_ty}, index, index, index, index, '
                 f'index) -> ()', ind)
        elif which == "B" and s.tiles > 1:
            body(f'"tcgen05.smem_fill"({src}, {tile_v}, {k_v}, %nt) {{src_layout = '
                 f'"{layout}", src_ld = {ld_static} : i64, dims = ["row_offset"]}} : '
                 f'(!llvm.ptr<1>, {tile_ty}, index, index) -> ()', ind)
        else:
            body(f'"tcgen05.smem_fill"({src}, {tile_v}, {k_v}) {{src_layout = "{layout}", '
                 f'src_ld = {ld_static} : i64}} : (!llvm.ptr<1>, {tile_ty}, index) -> ()', ind)

    def a_to_tmem(ind, k_v):
        """A's K block into tensor memory: four 32-byte column groups of each row, each
        filled into an i8 staging tile (A's bytes) and copied by tcgen05.cp.128x256b to
        8 columns (9.7.16.9.2), as tests/test_sim_forms_block_scale.py does; or (a_src
        "regs") A's K block read from global memory into registers (load_fragment) and
        stored with tcgen05.st (Layout D .32x32b, Layout F .16x32bx2: docs/epilogues.md),
        as tests/test_a_operand_store_forms.py does."""
        if s.a_src == "regs":
            a_frag = f"!tcgen05.frag<[{s.m}, {kb}], {elem}>"
            if runtime:
                body(f'%af = "tcgen05.load_fragment"(%A, {k_v}, %a_ld, %m0, %m_sz, %k_sz) '
                     f'{{dims = ["ld", "row_offset", "rows", "columns"]}} : (!llvm.ptr<1>, '
                     f'index, index, index, index, index) -> {a_frag}', ind)
            else:
                body(f'%af = "tcgen05.load_fragment"(%A, {k_v}) {{ld = {sz.lda} : i64}} : '
                     f'(!llvm.ptr<1>, index) -> {a_frag}', ind)
            body(f'"tcgen05.st"(%at, {t.c(0)}, %af) : ({a_tmem}, index, {a_frag}) -> ()', ind)
            return
        eb = s.ebytes
        body(f"%kbyte = arith.muli {k_v}, {t.c(eb)} : index", ind)
        if runtime:
            body(f"%a_ldb = arith.muli %a_ld, {t.c(eb)} : index", ind)
            body(f"%k_szb = arith.muli %k_sz, {t.c(eb)} : index", ind)
        for q in range(4):
            body(f"%kq{q} = arith.addi %kbyte, {t.c(32 * q)} : index", ind)
            if runtime:
                body(f'"tcgen05.smem_fill"(%A, %stage{q}, %kq{q}, %a_ldb, %m0, %m_sz, %k_szb) '
                     f'{{src_layout = "mn_k", dims = ["src_ld", "row_offset", "rows", '
                     f'"k_size"]}} : (!llvm.ptr<1>, {staging}, index, index, index, index, '
                     f'index) -> ()', ind)
            else:
                body(f'"tcgen05.smem_fill"(%A, %stage{q}, %kq{q}) {{src_layout = "mn_k", '
                     f'src_ld = {sz.lda * eb} : i64}} : (!llvm.ptr<1>, {staging}, index) -> ()',
                     ind)
            body(f'"tcgen05.cp"(%at, %stage{q}) {{shape = "128x256b", column = {8 * q} : i64}}'
                 f' : ({a_tmem}, {staging}) -> ()', ind)

    def tma(ind, tm_v, tile_v, tile_ty, k_v, row_v, barrier):
        bar, bar_ty = (f", {barrier}", ", !tcgen05.mbarrier") if barrier else ("", "")
        mc = ""
        if s.cl and tm_v == f"%tm{s.cl[2]}":
            mc = f' {{multicast = "{s.cl[3]}"}}'
        body(f'"tcgen05.tma_load"({tm_v}, {tile_v}{bar}, {k_v}, {row_v}){mc} : (!llvm.ptr<1>, '
             f'{tile_ty}{bar_ty}, index, index) -> ()', ind)

    def sf_rows(ind, tv):
        """The rows of SFA's and SFB's blocked layout for this tile and K block (%kb):
        32 rows per (tile, K block) and scale buffer (two for nvf4, the second at %ra_1,
        %rb_1), tiles of 128 rows of A and of N rows of B."""
        per = 32 * len(halves)
        tile_m = "%tile_m" if located else t.c(0)   # a cluster's CTAs: tiles of their own
        body(f"%ra0 = arith.muli {tile_m}, {t.c(s.kblocks)} : index", ind)
        body("%ra1 = arith.addi %ra0, %kb : index", ind)
        # a pair: 32 rows per CTA, the odd CTA's after the even's (the lowering adds
        # rank * 32 to the row of a tile copied into scale_A, docs/cta-pairs.md)
        body(f"%ra = arith.muli %ra1, {t.c(per * s.ctas)} : index", ind)
        tile_n = "%tile_n" if located else t.c(0)
        body(f"%tb0 = arith.muli {tile_n}, {t.c(s.tiles)} : index", ind)
        body(f"%tb1 = arith.addi %tb0, {tv} : index", ind)
        body(f"%rb0 = arith.muli %tb1, {t.c(s.kblocks)} : index", ind)
        body("%rb1 = arith.addi %rb0, %kb : index", ind)
        body(f"%rb = arith.muli %rb1, {t.c(per)} : index", ind)
        if s.nvf4:
            body(f"%ra_1 = arith.addi %ra, {t.c(32)} : index", ind)
            body(f"%rb_1 = arith.addi %rb, {t.c(32)} : index", ind)

    def mmas(ind, d_v, a_v, b_v, a_ty, first_pred, d_ty=None, b_ty=None, plain=False):
        """The MMAs of one K block; `plain`: the chained GEMM's second MMA, unscaled
        (kind::f8f6f4 for the mxf8f6f4 kinds' fp8 elements)."""
        kind = "f8f6f4" if plain and s.scaled else s.kind
        for j in range(kb // s.k_mma):
            pred = first_pred if j == 0 else "%true"
            ops = f"{d_v}, {a_v}, {b_v}, {pred}"
            tys = f"{d_ty or acc1}, {a_ty}, {b_ty or tile_b}, i1"
            if s.scaled and not plain:
                h = str(j) if s.nvf4 else ""
                ops += f", %tsA{h}, %tsB{h}" if ws_scaled else ", %sfA, %sfB"
                tys += f", {sf_t}, {sf_t}"
            vec = ', scale_vec = "block32"' if s.packed4 else ""
            if s.nvf4:
                vec = ', scale_vec = "4X", scale_a_id = 0 : i64, scale_b_id = 0 : i64'
            body(f'"tcgen05.mma"({ops}) {{kind = "{kind}"{vec}, k_offset = {j * s.k_mma} : '
                 f'i64}} : ({tys}) -> ()', ind)

    def tile_values(ind, tv):
        """%nt: the tile's first column of C (and row of B)."""
        base = "%n0" if located else t.c(0)
        if s.tiles > 1:
            body(f"%tn = arith.muli {tv}, {t.c(s.n)} : index", ind)
            body(f"%nt = arith.addi {base}, %tn : index", ind)
        elif located:
            body("%nt = arith.addi %n0, " + t.c(0) + " : index", ind)
        else:
            body(f"%nt = arith.addi {t.c(0)}, {t.c(0)} : index", ind)

    def acc_view(ind, tv):
        if s.acc_stages == 2:
            body(f"%j = arith.remui {tv}, {t.c(2)} : index", ind)
            body(f'%d = "tcgen05.tmem_stage"(%acc, %j) : ({acc_ty}, index) -> {acc1}', ind)
            return "%d"
        return "%acc"

    def epilogue(ind, d_v, target="C"):
        """The accumulator's epilogue: to C, or (`target` "P", the chained GEMM) rounded to
        A's element type and stored into P with tcgen05.st."""
        to_p = target == "P"
        body(f"scf.for %col = {t.c(0)} to {t.c(s.n)} step {t.c(ch)} {{", ind)
        i = ind + 1
        body(f'%frag = "tcgen05.ld"({d_v}, %col){ld_attr} : ({acc1}, index) -> {acc_frag}', i)
        value, vty = "%frag", acc_frag
        if s.rowred != "none":
            # each row's maximum over the loaded columns, broadcast beside the fragment
            # (a .16x32bx2 fragment splits a row over two threads: a shuffle combines them)
            body(f'%rmax = "tcgen05.frag_reduce"(%frag) {{kind = "{s.rowred}"}} : '
                 f'({acc_frag}) -> {row_frag}', i)
            body(f'%rbc = "tcgen05.frag_broadcast"(%rmax, %frag) : ({row_frag}, {acc_frag}) -> '
                 f'{acc_frag}', i)
        if s.mapped or to_p:
            if s.rowred != "none":
                body('%out = "tcgen05.frag_map"(%frag, %rbc) ({', i)
                body(f"^bb0(%x0: {s.acc_t}, %xm: f32, %row: index, %c: index):", i)
                body("%x = arith.subf %x0, %xm : f32", i + 1)
            else:
                body('%out = "tcgen05.frag_map"(%frag) ({', i)
                body(f"^bb0(%x: {s.acc_t}, %row: index, %c: index):", i)
            j = i + 1
            h = "%x"
            if s.acc_t == "i32":
                body("%xf = arith.sitofp %x : i32 to f32", j)
                h = "%xf"
            if s.bias == "col":
                body("%cc = arith.addi %col, %c : index", j)
                body("%gc = arith.addi %nt, %cc : index", j)
                body("%gc64 = arith.index_cast %gc : index to i64", j)
                body("%bp = llvm.getelementptr %bias[%gc64] : (!llvm.ptr<1>, i64) -> "
                     "!llvm.ptr<1>, f32", j)
                body("%bv = llvm.load %bp : !llvm.ptr<1> -> f32", j)
                body(f"%hb = arith.addf {h}, %bv : f32", j)
                h = "%hb"
            if s.bias == "row":
                row = "%row"
                if located:
                    body("%gr = arith.addi %m0, %row : index", j)
                    row = "%gr"
                body(f"%gr64 = arith.index_cast {row} : index to i64", j)
                body("%rp = llvm.getelementptr %rbias[%gr64] : (!llvm.ptr<1>, i64) -> "
                     "!llvm.ptr<1>, f32", j)
                body("%rv = llvm.load %rp : !llvm.ptr<1> -> f32", j)
                body(f"%hr = arith.addf {h}, %rv : f32", j)
                h = "%hr"
            if s.scale:
                body("%sv = llvm.load %scale : !llvm.ptr<1> -> f32", j)
                body(f"%hs = arith.mulf {h}, %sv : f32", j)
                h = "%hs"
            if s.act == "relu":
                body("%zero = arith.constant 0.0 : f32", j)
                body(f"%ha = arith.maximumf {h}, %zero : f32", j)
                h = "%ha"
            elif s.act == "gelu":
                body(f"%g2 = arith.mulf {h}, {h} : f32", j)
                body(f"%g3 = arith.mulf %g2, {h} : f32", j)
                body("%gk1 = arith.constant 0.044715 : f32", j)
                body("%g4 = arith.mulf %g3, %gk1 : f32", j)
                body(f"%g5 = arith.addf {h}, %g4 : f32", j)
                body("%gk0 = arith.constant 0.7978845608028654 : f32", j)
                body("%g6 = arith.mulf %g5, %gk0 : f32", j)
                body("%g7 = math.tanh %g6 : f32", j)
                body("%gone = arith.constant 1.0 : f32", j)
                body("%g8 = arith.addf %g7, %gone : f32", j)
                body("%ghalf = arith.constant 0.5 : f32", j)
                body(f"%g9 = arith.mulf {h}, %ghalf : f32", j)
                body("%ha = arith.mulf %g9, %g8 : f32", j)
                h = "%ha"
            yt, yfrag = (elem, p_frag) if to_p else (out_t, out_frag)
            if yt != "f32":
                body(f"%y = arith.truncf {h} : f32 to {yt}", j)
                h = "%y"
            body(f"gpu.yield {h} : {yt}", j)
            ins = f"{acc_frag}, {acc_frag}" if s.rowred != "none" else acc_frag
            body(f"}}) : ({ins}) -> {yfrag}", i)
            value, vty = "%out", yfrag
        if to_p:
            body(f'"tcgen05.st"(%p, %col, {value}) : ({p_ty}, index, {vty}) -> ()', i)
        elif runtime:
            body(f'"tcgen05.store_fragment"({value}, %C, %col, %c_ld, %m0, %nt, %m_sz, %n_sz) '
                 f'{{dims = ["ld", "row_offset", "column_offset", "rows", "columns"]}} : '
                 f'({vty}, !llvm.ptr<1>, index, index, index, index, index, index) -> ()', i)
        elif located:
            body(f'"tcgen05.store_fragment"({value}, %C, %col, %m0, %nt) {{ld = {sz.ldc} : '
                 f'i64, dims = ["row_offset", "column_offset"]}} : ({vty}, !llvm.ptr<1>, '
                 f'index, index, index) -> ()', i)
        else:
            body("%dest = arith.addi %nt, %col : index", i)
            body(f'"tcgen05.store_fragment"({value}, %C, %dest) {{ld = {sz.ldc} : i64}} : '
                 f'({vty}, !llvm.ptr<1>, index) -> ()', i)
        body("}", ind)

    def chain_out(ind):
        """The chained GEMM's epilogue: O to C (converted to C's type)."""
        o_frag = f"!tcgen05.frag<[{s.m}, 32], f32>"
        c_frag = f"!tcgen05.frag<[{s.m}, 32], {out_t}>"
        body(f"scf.for %ocol = {t.c(0)} to {t.c(CHAIN_N2)} step {t.c(32)} {{", ind)
        i = ind + 1
        body(f'%of = "tcgen05.ld"(%o, %ocol){ld_attr} : ({o_ty}, index) -> {o_frag}', i)
        value, vty = "%of", o_frag
        if s.out != "f32":
            body('%oc = "tcgen05.frag_map"(%of) ({', i)
            body("^bb0(%ox: f32, %orow: index, %oc_: index):", i)
            body(f"%oy = arith.truncf %ox : f32 to {out_t}", i + 1)
            body(f"gpu.yield %oy : {out_t}", i + 1)
            body(f"}}) : ({o_frag}) -> {c_frag}", i)
            value, vty = "%oc", c_frag
        if runtime:   # this CTA's M tile, rows past M not stored
            body(f'"tcgen05.store_fragment"({value}, %C, %ocol, %c_ld, %m0, {t.c(0)}, %m_sz, '
                 f'{t.c(CHAIN_N2)}) {{dims = ["ld", "row_offset", "column_offset", "rows", '
                 f'"columns"]}} : ({vty}, !llvm.ptr<1>, index, index, index, index, index, '
                 f'index) -> ()', i)
        else:
            body(f'"tcgen05.store_fragment"({value}, %C, %ocol) {{ld = {sz.ldc} : i64}} : '
                 f'({vty}, !llvm.ptr<1>, index) -> ()', i)
        body("}", ind)

    def chain_roles():
        """The chained GEMM in warp roles, the attention kernel's form without softmax
        (examples/ws_attention_fwd_bf16.mlir), for strategy=handoffs: the load role loads
        A once and B's and V's tiles of N tile j through rings; the MMA role computes S of
        tile 0, then per j < tiles - 1 O += P V_j and S of tile j + 1, then O += P V_last;
        the epilogue role turns S into P per tile, then stores O."""
        def role(name, first, warps):
            body('"tcgen05.role"() ({', 2)
            yield 3
            body('"gpu.yield"() : () -> ()', 3)
            body(f'}}) {{name = "{name}", first_warp = {first} : i64, warps = {warps} : i64}}'
                 f' : () -> ()', 2)

        def s_mmas(ind, stage, tag):
            for i in range(s.kblocks):
                body(f'%bb{i}{tag} = "tcgen05.smem_stage"(%b{i}, {stage}) : ({ring_b}, '
                     f'index) -> {tile_b}', ind)
                mmas(ind, "%acc", f"%a{i}", f"%bb{i}{tag}", tile_a,
                     "%false" if i == 0 else "%true")

        def o_mmas(ind, use, tag):
            body(f"%sv{tag} = arith.remui {use}, {t.c(s.ring)} : index", ind)
            body(f'%vv{tag} = "tcgen05.smem_stage"(%v, %sv{tag}) : ({ring_v}, index) -> '
                 f'{tile_v}', ind)
            body(f"%oacc{tag} = arith.cmpi ne, {use}, {t.c(0)} : index", ind)
            mmas(ind, "%o", "%p", f"%vv{tag}", p_ty, f"%oacc{tag}", o_ty, tile_v, plain=True)

        body('"tcgen05.partitions"() ({', 1)
        for ind in role("load", 0, 1):
            for i in range(s.kblocks):
                tma(ind, "%tmA", f"%a{i}", tile_a, t.c(i * kb), a_row, None)
            body(f"scf.for %j = {t.c(0)} to {t.c(s.tiles)} step {t.c(1)} {{", ind)
            i = ind + 1
            body(f"%st = arith.remui %j, {t.c(s.ring)} : index", i)
            body(f"%nt = arith.muli %j, {t.c(s.n)} : index", i)
            for q in range(s.kblocks):
                body(f'%bs{q} = "tcgen05.smem_stage"(%b{q}, %st) : ({ring_b}, index) -> '
                     f'{tile_b}', i)
                tma(i, "%tmB", f"%bs{q}", tile_b, t.c(q * kb), "%nt", None)
            body(f'%vs = "tcgen05.smem_stage"(%v, %st) : ({ring_v}, index) -> {tile_v}', i)
            tma(i, "%tmV", "%vs", tile_v, "%nt", t.c(0), None)
            body("}", ind)
        for ind in role("mma", 1, 1):
            body(f"%s0 = arith.remui {t.c(0)}, {t.c(s.ring)} : index", ind)
            s_mmas(ind, "%s0", "_0")
            body(f"%last = arith.subi {t.c(s.tiles)}, {t.c(1)} : index", ind)
            body(f"scf.for %j = {t.c(0)} to %last step {t.c(1)} {{", ind)
            i = ind + 1
            body(f"%j1 = arith.addi %j, {t.c(1)} : index", i)
            o_mmas(i, "%j", "_l")
            body(f"%sn = arith.remui %j1, {t.c(s.ring)} : index", i)
            s_mmas(i, "%sn", "_n")
            body("}", ind)
            o_mmas(ind, "%last", "_e")
        for ind in role("epilogue", 4, 4):
            body(f"scf.for %j = {t.c(0)} to {t.c(s.tiles)} step {t.c(1)} {{", ind)
            body(f"%nt = arith.muli %j, {t.c(s.n)} : index", ind + 1)
            epilogue(ind + 1, "%acc", "P")
            body("}", ind)
            chain_out(ind)
        body('"gpu.yield"() : () -> ()', 2)
        body("}) : () -> ()", 1)

    a_ty = a_tmem if s.a_in_tmem else tile_a
    a_row = "%m0" if located else t.c(0)
    if chain and s.program == "roles":
        chain_roles()
    elif s.program == "uniform":
        # One program: for each tile, the K loop (loads, MMAs), then the epilogue.
        ind = 1
        if s.tiles > 1:
            body(f"scf.for %t = {t.c(0)} to {t.c(s.tiles)} step {t.c(1)} {{", ind)
            ind += 1
            tile_values(ind, "%t")
            d_v = acc_view(ind, "%t")
        else:
            tile_values(ind, t.c(0))
            d_v = "%acc"
        k_hi = "%k_sz" if runtime else t.c(kp)
        body(f"scf.for %k = {t.c(0)} to {k_hi} step {t.c(kb)} {{", ind)
        i = ind + 1
        a_v, b_v = "%a", "%b"
        if s.ring > 1:
            body(f"%kq = arith.divui %k, {t.c(kb)} : index", i)
            body(f"%s = arith.remui %kq, {t.c(s.ring)} : index", i)
            if s.a_src == "smem":
                body(f'%as = "tcgen05.smem_stage"(%a, %s) : ({ring_a}, index) -> {tile_a}', i)
            body(f'%bs = "tcgen05.smem_stage"(%b, %s) : ({ring_b}, index) -> {tile_b}', i)
            a_v, b_v = "%as", "%bs"
        if s.a_in_tmem:
            a_to_tmem(i, "%k")
            a_v = "%at"
        if s.load == "fill":
            if s.a_src == "smem":
                fill(i, "%A", a_v, tile_a, "%k", "A")
            fill(i, "%B", b_v, tile_b, "%k", "B")
        else:
            body('"tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()', i)
            if s.a_src == "smem":
                tma(i, "%tmA", a_v, tile_a, "%k", a_row, "%full")
            tma(i, "%tmB", b_v, tile_b, "%k", "%nt", "%full")
            body('"tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()', i)
            body('"tcgen05.barrier"() : () -> ()', i)
        if s.scaled:
            scale_factors(i, "%t" if s.tiles > 1 else t.c(0))
        body(f"%not_first = arith.cmpi ne, %k, {t.c(0)} : index", i)
        mmas(i, d_v, a_v, b_v, a_ty, "%not_first")
        body("}", ind)
        if chain:
            # P = f(S) into tensor memory, V's tile of this N tile, O += P V^T
            epilogue(ind, d_v, "P")
            vk = "%nt"
            if s.load == "fill" and runtime:   # V's columns past N zero-filled
                body(f'"tcgen05.smem_fill"(%V, %v, {vk}, {t.c(CHAIN_N2)}, %n_sz) {{src_layout = '
                     f'"mn_k", src_ld = {s.n * s.tiles} : i64, dims = ["rows", "k_size"]}} : '
                     f'(!llvm.ptr<1>, {tile_v}, index, index, index) -> ()', ind)
            elif s.load == "fill":
                body(f'"tcgen05.smem_fill"(%V, %v, {vk}) {{src_layout = "mn_k", src_ld = '
                     f'{s.n * s.tiles} : i64}} : (!llvm.ptr<1>, {tile_v}, index) -> ()', ind)
            else:
                body('"tcgen05.mbarrier_expect_tx"(%full) : (!tcgen05.mbarrier) -> ()', ind)
                tma(ind, "%tmV", "%v", tile_v, vk, t.c(0), "%full")
                body('"tcgen05.mbarrier_wait"(%full) : (!tcgen05.mbarrier) -> ()', ind)
                body('"tcgen05.barrier"() : () -> ()', ind)
            o_first = "%false"
            if s.tiles > 1:
                body(f"%o_acc = arith.cmpi ne, %t, {t.c(0)} : index", ind)
                o_first = "%o_acc"
            mmas(ind, "%o", "%p", "%v", p_ty, o_first, o_ty, tile_v, plain=True)
        else:
            epilogue(ind, d_v)
        if s.tiles > 1:
            body("}", 1)
        if chain:
            chain_out(1)
    else:
        body('"tcgen05.partitions"() ({', 1)
        roles = [("load", 0, 1), ("mma", 1, 1), ("epilogue", 4, 4)]
        for name, first, warps in roles:
            body('"tcgen05.role"() ({', 2)
            ind = 3
            if s.tiles > 1:
                body(f"scf.for %t = {t.c(0)} to {t.c(s.tiles)} step {t.c(1)} {{", ind)
                ind += 1
                tv = "%t"
            else:
                tv = t.c(0)
            if name in ("load", "epilogue"):
                tile_values(ind, tv)
            if name == "epilogue":
                epilogue(ind, acc_view(ind, tv))
            elif explicit:
                step = s.ring * kb
                body(f"scf.for %k = {t.c(0)} to {t.c(kp)} step {t.c(step)} {{", ind)
                i = ind + 1
                for r in range(s.ring):
                    k_v = "%k"
                    if r:
                        body(f"%k{r} = arith.addi %k, {t.c(r * kb)} : index", i)
                        k_v = f"%k{r}"
                    if name == "load":
                        fill(i, "%A", f"%a{r}", tile_a, k_v, "A")
                        fill(i, "%B", f"%b{r}", tile_b, k_v, "B")
                    else:
                        if r == 0:
                            body(f"%not_first = arith.cmpi ne, %k, {t.c(0)} : index", i)
                        mmas(i, "%acc", f"%a{r}", f"%b{r}", tile_a,
                             "%not_first" if r == 0 else "%true")
                body("}", ind)
            else:
                d_v = acc_view(ind, tv) if name == "mma" else None
                if s.tiles > 1:
                    body(f"%base = arith.muli %t, {t.c(s.kblocks)} : index", ind)
                body(f"scf.for %kb = {t.c(0)} to {t.c(s.kblocks)} step {t.c(1)} {{", ind)
                i = ind + 1
                it = "%kb"
                if s.tiles > 1:
                    body("%it = arith.addi %base, %kb : index", i)
                    it = "%it"
                st = "%s"
                if s.ring > 1:
                    body(f"%s = arith.remui {it}, {t.c(s.ring)} : index", i)
                else:   # a single stage is stage 0 (tcgen05-insert-sync wants a constant)
                    st = t.c(0)
                body(f'%as = "tcgen05.smem_stage"(%a, {st}) : ({ring_a}, index) -> {tile_a}', i)
                body(f'%bs = "tcgen05.smem_stage"(%b, {st}) : ({ring_b}, index) -> {tile_b}', i)
                if ws_scaled:
                    for x in ("A", "B"):
                        for h in halves:
                            body(f'%ss{x}{h}s = "tcgen05.smem_stage"(%ss{x}{h}, {st}) : '
                                 f'({sf_ring_s}, index) -> {sf_ts}', i)
                if name == "load":
                    # the K block's first element (byte, for 4-bit elements)
                    body(f"%k = arith.muli %kb, {t.c(s.row_bytes if s.packed4 else kb)} : "
                         f"index", i)
                    tma(i, "%tmA", "%as", tile_a, "%k", a_row, None)
                    tma(i, "%tmB", "%bs", tile_b, "%k", "%nt", None)
                    if ws_scaled:
                        sf_rows(i, tv)
                        for h in halves:
                            row = "_1" if h == "1" else ""
                            tma(i, "%tmSFA", f"%ssA{h}s", sf_ts, t.c(0), f"%ra{row}", None)
                            tma(i, "%tmSFB", f"%ssB{h}s", sf_ts, t.c(0), f"%rb{row}", None)
                else:
                    if ws_scaled:
                        for x in ("A", "B"):
                            for h in halves:
                                body(f'%ts{x}{h} = "tcgen05.tmem_stage"(%sf{x}{h}, {st}) : '
                                     f'({sf_ring_t}, index) -> {sf_t}', i)
                                body(f'"tcgen05.cp"(%ts{x}{h}, %ss{x}{h}s) {{shape = '
                                     f'"32x128b", multicast = "warpx4"}} : ({sf_t}, {sf_ts}) '
                                     f'-> ()', i)
                    body(f"%not_first = arith.cmpi ne, %kb, {t.c(0)} : index", i)
                    mmas(i, d_v, "%as", "%bs", tile_a, "%not_first")
                body("}", ind)
            if s.tiles > 1:
                body("}", 3)
            body('"gpu.yield"() : () -> ()', 3)
            body(f'}}) {{name = "{name}", first_warp = {first} : i64, warps = {warps} : i64}}'
                 f' : () -> ()', 2)
        body('"gpu.yield"() : () -> ()', 2)
        body("}) : () -> ()", 1)
    body("return", 1)
    consts = [f"  {name} = arith.constant {value} : index"
              for value, name in sorted(t.consts.items())]
    return "\n".join(head + consts + body.lines + ["}"]) + "\n"


# -- Inputs and the reference ------------------------------------------------------------

def _dtype(name: str) -> np.dtype:
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def _operand(rng: np.random.Generator, dtype: str, shape, wide: bool = True) -> np.ndarray:
    """Random values exactly representable in the element type (so the reference needs
    no rounding of its own): bf16 / f16 in [-1, 1); tf32 as f32 with the low 13 mantissa
    bits zero (the MMA reads the top 19 bits, docs/element-types.md); fp8 in [-2, 2);
    i8 the whole range for an i32 output, else [-8, 8) (so that a 16-bit output stays
    finite)."""
    if dtype == "i8":
        top = 128 if wide else 8
        return rng.integers(-top, top, shape).astype(np.int8)
    x = rng.uniform(-1, 1, shape)
    if dtype == "tf32":
        bits = x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)
        return bits.view(np.float32)
    if dtype in ("bf16", "f16"):
        return x.astype(_dtype(DTYPES[dtype][2]))
    if dtype in ("mx_e2m1", "nv_e2m1"):
        # every 4-bit code is a finite e2m1 value (+-0, 0.5, 1, 1.5, 2, 3, 4, 6): two per
        # byte, element 2j in the low nibble of byte j (shape: rows x elements / 2)
        codes = rng.integers(0, 16, shape).astype(np.uint8)
        return codes[:, 0::2] | (codes[:, 1::2] << 4)
    return (2 * x).astype(_dtype(DTYPES[dtype][2]))


def _sf_bytes(factors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The [128, 16] bytes tcgen05.cp.128x128b copies into a [128, 4] scale buffer: lane
    L, column c, byte b holds factor b of entry 32 c + L mod 32 (tmem-facts section 3, as
    tests/test_sim_forms_block_scale.py lays them out by hand); other bytes random."""
    out = rng.integers(0, 256, (128, 16), dtype=np.uint8)
    entries = factors.shape[0]
    for lane in range(128):
        for c in range(4):
            entry = 32 * c + lane % 32
            if entry < entries:
                out[lane, 4 * c:4 * c + 4] = factors[entry]
    return out


def make_inputs(spec: Spec) -> dict:
    """The kernel's arguments (arrays and integers), seeded by spec.seed. A is M x lda,
    B is N x ldb ("nk") or K x ldb ("kn"); what lies past M, N, K is random (fills zero
    it) except for TMA, whose tensor map spans the whole array (padding zero). C starts
    as NaN (-1 for i32) so that an element never written is a mismatch."""
    sz = sizes(spec)
    rng = np.random.default_rng(spec.seed)
    wide = spec.out == "i32"
    a = _operand(rng, spec.dtype, (sz.M, sz.lda), wide)
    b = _operand(rng, spec.dtype, (sz.N, sz.ldb) if spec.b_major == "nk" else (sz.K, sz.ldb),
                 wide)
    if spec.load == "tma":
        zero = np.zeros((), a.dtype)
        kk = sz.K // 2 if spec.packed4 else sz.K
        a[:, kk:] = zero
        b[:, kk:] = zero
    args = {"A": a, "B": b}
    if spec.chain != "none":
        # V: N2 x (n tiles), K-major (the second MMA's K runs over the first's N)
        # (the columns past N zero: TMA reads them, and P's columns there are f(0))
        args["V"] = _operand(rng, spec.dtype, (CHAIN_N2, spec.n * spec.tiles), wide)
        args["V"][:, sz.N:] = np.zeros((), args["V"].dtype)
    if spec.scaled and spec.program == "roles":
        # The blocked layout of examples/ws_gemm_mxf8_blockscaled.mlir: 32 rows of 16
        # bytes per (tile, K block) (A's tiles of 128 rows, B's of N rows), every byte a
        # UE8M0 factor 2^-3 .. 2^3 (those of rows past M or N too).
        # nvf4: UE4M3 codes 0x30 .. 0x3f (factors 1 .. 1.875, sign clear), 64 rows
        # per (tile, K block): one 32 for each of its two MMAs.
        kbs, per = spec.kblocks, 64 if spec.nvf4 else 32
        lo, hi = (0x30, 0x40) if spec.nvf4 else (124, 131)
        args["SFA"] = rng.integers(lo, hi, (sz.grid_m * kbs * per * spec.ctas, 16)
                                   ).astype(np.uint8)
        args["SFB"] = rng.integers(lo, hi, (sz.grid_n * spec.tiles * kbs * per, 16)
                                   ).astype(np.uint8)
    elif spec.scaled:
        # UE8M0 factors 2^-3 .. 2^3, one per row and 32 K elements (scale_vec::1X).
        # Factors for all 128 entries of each buffer (those past M or N too: the copies
        # in the four lane quarters must agree, 9.7.16.10.7).
        # SFA: [128, 16 kblocks] bytes, K block j's at columns 16 j..; SFB: [128 tiles,
        # 16 kblocks], tile t's entries at rows 128 t.. (see render's scale_factors).
        kbs, tiles = spec.kblocks, spec.tiles
        args["sfa_codes"] = rng.integers(124, 131, (128, 4 * kbs)).astype(np.uint8)
        args["sfb_codes"] = rng.integers(124, 131, (128 * tiles, 4 * kbs)).astype(np.uint8)
        args["SFA"] = np.hstack([_sf_bytes(args["sfa_codes"][:, 4 * j:4 * j + 4], rng)
                                 for j in range(kbs)])
        args["SFB"] = np.vstack([np.hstack([_sf_bytes(
            args["sfb_codes"][128 * t:128 * t + 128, 4 * j:4 * j + 4], rng)
            for j in range(kbs)]) for t in range(tiles)])
    m_cov, n_cov = sz.grid_m * spec.m, sz.grid_n * spec.n * spec.tiles
    if spec.bias == "col":
        args["bias"] = rng.uniform(-1, 1, n_cov).astype(np.float32)
    if spec.bias == "row":
        args["rbias"] = rng.uniform(-1, 1, m_cov).astype(np.float32)
    if spec.scale:
        args["scale"] = np.array([rng.uniform(0.25, 2.0)], np.float32)
    out_dtype = _dtype(OUTPUTS[spec.out][1])
    fill = -1 if spec.out == "i32" else np.nan
    args["C"] = np.full((sz.M, sz.ldc), fill).astype(out_dtype)
    if spec.shapes == "runtime":
        args.update(M=sz.M, N=sz.N, K=sz.K, lda=sz.lda, ldb=sz.ldb, ldc=sz.ldc)
    return args


def kernel_args(args: dict) -> dict:
    """The arguments the kernel takes (without the scale codes kept for the reference)."""
    return {k: v for k, v in args.items() if not k.endswith("_codes")}


def _gelu(h):
    return 0.5 * h * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (h + 0.044715 * h ** 3)))


def _elements(spec: Spec, array: np.ndarray) -> np.ndarray:
    """The matrix's elements in float64: 4-bit ones decoded from their nibbles (low
    nibble first) with ml_dtypes."""
    if not spec.packed4:
        return array.astype(np.float64)
    import ml_dtypes
    codes = np.empty((array.shape[0], 2 * array.shape[1]), np.uint8)
    codes[:, 0::2] = array & 0xF
    codes[:, 1::2] = array >> 4
    return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float64)


def epilogue_chunk(spec: Spec) -> int:
    """The columns of C one tcgen05.ld of the epilogue reads: 32, or 16 where a block of
    the accumulator (N, or N / 2 in Layout B, a pair's M = 128) is no multiple of 32."""
    block = spec.n // 2 if (spec.ctas == 2 and spec.m == 128) else spec.n
    return 32 if block % 32 == 0 else 16


def reference(spec: Spec, args: dict) -> tuple[np.ndarray, np.ndarray]:
    """(expected C[:M, :N] in float64, the largest error allowed per element).

    Error bound, in order of the epilogue (u = 2^-24, f32's unit roundoff):
    - the accumulator: K products, each exact in f32 (bf16/f16/tf32/fp8 significands
      multiply exactly in 24 bits; UE8M0 scales are powers of two), summed in f32 in any
      order: |e| <= K u (|A| @ |B|) (recursive summation); kind::i8 sums exactly in s32;
    - each f32 add or multiply of the epilogue adds u of its result's magnitude, and a
      multiply by the scale multiplies the error so far by |scale|;
    - ReLU is 1-Lipschitz and exact; GELU's slope is below 1.13 and its f32 evaluation
      (tanh through ex2.approx.f32, relative error < 2^-22, and a correctly rounded
      division, tcgen05_lower/lowering/compute.py) adds at most |h| 2^-18 (1 + |z|)
      with z its tanh argument: a factor > 4 above the sum of the terms;
    - the conversion to the output type (round to nearest, satfinite for fp8) moves the
      value by at most its unit roundoff times its magnitude plus half the smallest
      subnormal spacing; values past the largest finite saturate (the reference clamps).
    """
    sz = sizes(spec)
    M, N, K = sz.M, sz.N, sz.K
    a = _elements(spec, args["A"])[:, :K]
    b = _elements(spec, args["B"])
    b = b[:, :K] if spec.b_major == "nk" else b[:K, :N].T
    if spec.scaled and spec.program == "roles":
        # factor of (row r, element k): line (tile kblocks + K block) 32 + r mod 32,
        # byte 4 (r' div 32) + (k mod kb) div 32, r' the row within its tile (entry r' of
        # the scale buffer at lane r' mod 32, column r' div 32: tmem-facts section 3)
        kk = np.arange(K)[None, :]
        kbs, kbk = spec.kblocks, spec.kb

        def factors(table, rows, tile):
            r = np.arange(rows)[:, None]
            rr = r % tile
            if spec.nvf4:   # line ((tile kblocks + K block) 2 + MMA) 32 + r' mod 32, one
                #             factor per 16 elements of the MMA's 64, UE4M3 (ml_dtypes)
                import ml_dtypes
                line = (((r // tile) * kbs + kk // kbk) * 2 + (kk % kbk) // 64) * 32 + rr % 32
                byte = 4 * (rr // 32) + (kk % 64) // 16
                codes = np.ascontiguousarray(table[line, byte]).astype(np.uint8)
                return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
            line = ((r // tile) * kbs + kk // kbk) * 32 + rr % 32
            if tile == 256:   # a pair's A: line (((tile kblocks + K block) 2 + CTA) 32
                #               + r' mod 32, CTA = r' div 128 (render's sf_rows)
                line = (((r // tile) * kbs + kk // kbk) * 2 + rr // 128) * 32 + rr % 32
            byte = 4 * (rr % 128 // 32) + (kk % kbk) // 32
            return 2.0 ** (table[line, byte].astype(np.float64) - 127)
        a, b = a * factors(args["SFA"], M, spec.m), b * factors(args["SFB"], N, spec.n)
    elif spec.scaled:
        sa = np.repeat(2.0 ** (args["sfa_codes"].astype(np.float64) - 127), 32, axis=1)
        sb = np.repeat(2.0 ** (args["sfb_codes"].astype(np.float64) - 127), 32, axis=1)
        cols = np.arange(N)       # column g of C is row g % n of tile g // n's B
        sb = sb[(cols // spec.n) * 128 + cols % spec.n]
        a, b = a * sa[:M, :K], b * sb[:, :K]
    acc = a @ b.T
    u = 2.0 ** -24
    err = np.zeros_like(acc) if spec.acc_t == "i32" else K * u * (np.abs(a) @ np.abs(b).T)
    h = acc
    if spec.rowred != "none":
        # minus each row's maximum (sum) over the epilogue's chunk of `chunk` columns (the
        # columns of a tile past N hold 0: their B rows are zero-filled); the maximum is
        # off by at most the largest error in its chunk, the sum by the sum of the errors
        # plus its f32 summation in any order, chunk u (sum of |x| + error); the f32
        # subtraction adds u |h|
        chunk, cov = epilogue_chunk(spec), sz.grid_n * spec.n * spec.tiles
        full = np.zeros((M, cov))
        full[:, :N] = acc
        efull = np.zeros((M, cov))
        efull[:, :N] = err
        full = full.reshape(M, cov // chunk, chunk)
        efull = efull.reshape(M, cov // chunk, chunk)
        if spec.rowred == "max":
            agg, eagg = full.max(axis=2), efull.max(axis=2)
        else:
            agg = full.sum(axis=2)
            eagg = efull.sum(axis=2) + chunk * u * (np.abs(full) + efull).sum(axis=2)
        cols = np.arange(N) // chunk
        h = acc - agg[:, cols]
        err = err + eagg[:, cols] + u * np.abs(h)
    if spec.bias == "col":
        v = args["bias"][:N].astype(np.float64)[None, :]
        h = h + v
        err = err + u * np.abs(h)
    if spec.bias == "row":
        v = args["rbias"][:M].astype(np.float64)[:, None]
        h = h + v
        err = err + u * np.abs(h)
    if spec.acc_t == "i32" and spec.mapped:
        err = err + u * np.abs(acc)          # the s32 -> f32 conversion
    if spec.scale:
        sc = float(args["scale"][0])
        h = h * sc
        err = err * abs(sc) + u * np.abs(h)
    if spec.act == "relu":
        h = np.maximum(h, 0.0)
    elif spec.act == "gelu":
        z = np.sqrt(2.0 / np.pi) * (h + 0.044715 * h ** 3)
        err = 1.13 * err + np.abs(h) * 2.0 ** -18 * (1 + np.abs(z))
        h = _gelu(h)
    if spec.chain != "none":
        h, err = _chained(spec, args, h, err)
    _, _, unit, half_sub, top = OUTPUTS[spec.out]
    if top is not None:
        h = np.clip(h, -top, top)
    if spec.out == "f16":
        # round to nearest without satfinite: from 65520 (half a unit in the last place
        # past 65504, the largest finite f16) the value is +-inf (IEEE 754): inf where
        # every value within the bound overflows, either where some does
        certain = np.abs(h) - err >= F16_OVERFLOW
        maybe = ~certain & (np.abs(h) + err >= F16_OVERFLOW)
        h = np.where(certain, np.copysign(np.inf, h), h)
        err = np.where(maybe, np.inf, np.where(certain, 0.0, err))
        finite = np.isfinite(h)
        err = np.where(finite, err + unit * (np.abs(np.where(finite, h, 0.0)) + err)
                       + half_sub, err)
        return h, err
    err = err + unit * (np.abs(h) + err) + half_sub
    return h, err


def _chained(spec: Spec, args: dict, h: np.ndarray, err: np.ndarray):
    """The chained GEMM's O = P V^T (float64) and its error bound, from the first
    epilogue's values `h` (within `err` of what the kernel computes in f32).

    P is h rounded to A's element type, as the kernel's arith.truncf does (round to
    nearest from f32; satfinite for fp8, which clamps to the largest finite value). The
    kernel rounds its own f32 value h' with |h' - h| <= err; rounding (to f32, then to
    P's type) is monotone, so its P' lies between rnd(h - err) and rnd(h + err), as does
    the reference's P = rnd(h): |P' - P| <= ep = rnd(h + err) - rnd(h - err) (zero where
    no rounding boundary lies within err of h). The second MMA sums K2 = n tiles products
    of P' and V, each exact in f32, in any order: |O' - O| <= ep |V|^T + K2 u (|P| + ep)
    |V|^T."""
    dt = _dtype(DTYPES[spec.dtype][2])
    top = OUTPUTS[P_TYPES[spec.dtype]][4]

    def rnd(x):
        x = x.astype(np.float32)
        if top is not None:
            x = np.clip(x, -top, top)
        return x.astype(dt).astype(np.float64)

    p = rnd(h)
    ep = rnd(h + err) - rnd(h - err)
    v = _elements(spec, args["V"])[:, :h.shape[1]]
    av = np.abs(v)
    k2 = v.shape[1]
    u = 2.0 ** -24
    return p @ v.T, ep @ av.T + k2 * u * ((np.abs(p) + ep) @ av.T)


def out_columns(spec: Spec, sz: Sizes) -> int:
    """C's columns the kernel writes: N, or the chained GEMM's N2."""
    return CHAIN_N2 if spec.chain != "none" else sz.N


def compare(spec: Spec, args: dict, got: np.ndarray) -> str | None:
    """None if C[:M, :N] is within the bound of the reference and C's padding columns
    (ldc past N) are untouched; else what is wrong."""
    sz = sizes(spec)
    want, bound = reference(spec, args)
    ncols = out_columns(spec, sz)
    region = got[:sz.M, :ncols].astype(np.float64)
    with np.errstate(invalid="ignore"):     # inf - inf where an f16 output overflowed
        bad = ~((region == want) | (np.abs(region - want) <= bound))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        return (f"wrong C: {int(bad.sum())} of {bad.size} elements, first at ({r}, {c}): "
                f"got {region[r, c]!r}, want {want[r, c]!r} +- {bound[r, c]:.3g}")
    pad = got[:, ncols:]
    if pad.size:
        untouched = (pad == -1) if spec.out == "i32" else np.isnan(pad.astype(np.float64))
        if not untouched.all():
            r, c = np.argwhere(~untouched)[0]
            return f"C written past N: ({r}, {ncols + c})"
    return None


def shrink_candidates(spec: Spec):
    """Specs one step simpler than `spec`: one feature moved to its base value (FEATURES'
    first), or a size halved; only those without problems."""
    for name, choices in FEATURES.items():
        value = getattr(spec, name)
        if value != choices[0]:
            cand = replace(spec, **{name: choices[0]})
            if not problems(cand):
                yield cand
    for name, smaller in (("n", spec.n // 2), ("kblocks", spec.kblocks - 1),
                          ("tiles", spec.tiles - 1)):
        if smaller >= 1 and smaller != getattr(spec, name):
            cand = replace(spec, **{name: smaller})
            if not problems(cand):
                yield cand


def pairs(spec: Spec):
    """Every pair ((feature, value), (feature, value)) of the spec's features."""
    items = sorted((k, str(v)) for k, v in spec.features().items())
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            yield items[i], items[j]


if __name__ == "__main__":  # pragma: no cover - a quick look at one kernel
    import sys
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    spec = random_spec(rng)
    print("//", spec.key())
    print(render(spec))
