"""Clusters and TMA multicast: the rules a kernel's cluster shape and its multicast loads
must follow, and which CTAs share a multicast tile (docs/tma.md, "Multicast across a
cluster"). Pure Python: no MLIR import; tcgen05-verify calls the rules (one hook each)
and reports their messages at the kernel or the op.

A kernel's ``cluster = array<i32: x, y>`` (``tcgen05.kernel``) launches its CTAs in
clusters of x by y; %cluster_ctarank counts x fastest, ``rank = x + nx * y`` (PTX ISA,
special registers %cluster_ctaid / %cluster_ctarank). In a cta_group::2 kernel the CTA
pairs are ranks ``2p, 2p + 1`` (9.7.16.5.1), so x counts CTAs, two per pair.

A ``tcgen05.tma_load`` with ``multicast = "x"`` loads a tile that every CTA along x
(same y; in a pair kernel, the same CTA of each pair along x) needs; ``"y"``, every CTA
along y (same x). The CTAs at the first position along that dimension issue it with
``.multicast::cluster`` (PTX ISA 9.7.9.25.5.1, cp.async.bulk.tensor: the box lands at
the same CTA-relative offset in each CTA of the 16-bit ctaMask, and each one's
complete_tx goes to the mbarrier at the same offset there); the others issue nothing
and receive it. L2 is read once per group instead of once per CTA.
"""

from __future__ import annotations

#: CUDA's portable cluster size: "a maximum of 8 thread blocks in a cluster is supported
#: as a portable cluster size in CUDA" (CUDA C++ Programming Guide, "Thread Block
#: Clusters"); more needs cudaFuncAttributeNonPortableClusterSizeAllowed, which the
#: launch manifest does not ask for.
PORTABLE_CLUSTER_CTAS = 8
#: ctaMask is a 16-bit operand (PTX ISA 9.7.9.25.5.1, 9.7.16.12.1).
CTA_MASK_BITS = 16
#: The dimensions a tile may be shared along.
DIMENSIONS = ("x", "y")


def cluster_problem(cluster: tuple, cta_group: int) -> str | None:
    """Why a written ``cluster`` entry cannot be launched, or None: two positive
    extents (x, y), at most PORTABLE_CLUSTER_CTAS CTAs, and in a cta_group::2 kernel an
    even x (each pair is two CTAs along x whose %cluster_ctarank differs in bit 0,
    9.7.16.5.1)."""
    if len(cluster) != 2 or min(cluster) < 1:
        return (f"cluster = {list(cluster)} is not two positive extents [x, y] (the "
                f"cluster's CTAs along x and y)")
    x, y = cluster
    if x * y > PORTABLE_CLUSTER_CTAS:
        return (f"cluster = {list(cluster)} has {x * y} CTAs, more than the portable "
                f"maximum of {PORTABLE_CLUSTER_CTAS} (CUDA C++ Programming Guide, \"Thread "
                f"Block Clusters\")")
    if cta_group == 2 and x % 2:
        return (f"cluster = {list(cluster)}: a cta_group::2 kernel runs CTA pairs, two CTAs "
                f"along x whose %cluster_ctarank differs in bit 0 (9.7.16.5.1), so x must be "
                f"even, not {x}")
    return None


def grid_problem(grid_constants: list, cluster_dims: tuple) -> str | None:
    """Why a grid cannot be launched in clusters of `cluster_dims`, or None: every grid
    dimension known at compile time (`grid_constants`, None where computed at launch)
    must be a multiple of the cluster's along it (CUDA C++ Programming Guide, "Thread
    Block Clusters": the grid is launched as whole clusters; the simulator and the CUDA
    backend check computed ones at launch)."""
    for axis, n, c in zip("xyz", grid_constants, cluster_dims):
        if n is not None and n % c:
            return (f"the grid's {axis} dimension {n} is not a multiple of the cluster's "
                    f"{c} CTAs along {axis}: a grid is launched as whole clusters")
    return None


def multicast_problem(dim: str, cluster_dims: tuple, cta_group: int) -> str | None:
    """Why a tma_load's ``multicast`` cannot be lowered, or None: "x" or "y", along a
    dimension of the cluster where more than one CTA (pair) shares the tile."""
    if dim not in DIMENSIONS:
        return (f"multicast = \"{dim}\" is not \"x\" or \"y\" (the cluster dimension the "
                f"tile is shared along)")
    sharing = group_size(dim, cluster_dims, cta_group)
    if sharing < 2:
        nx, ny, _ = cluster_dims
        return (f"multicast = \"{dim}\": the cluster [{nx}, {ny}] has no other "
                f"{'CTA pair' if cta_group == 2 else 'CTA'} along {dim} to share the tile "
                f"with (write the kernel's cluster = array<i32: x, y>)")
    return None


def commit_mask_problem(mask: int, cluster_ctas: int) -> str | None:
    """Why a commit's ``multicast_mask`` names CTAs it cannot signal, or None: a
    non-zero 16-bit ctaMask whose bits name CTAs of the cluster (bit i is
    %cluster_ctarank i, 9.7.16.12.1)."""
    if not 0 < mask < (1 << CTA_MASK_BITS):
        return f"multicast_mask = {mask:#x} is not a non-zero 16-bit ctaMask (9.7.16.12.1)"
    if mask >> cluster_ctas:
        outside = (mask >> cluster_ctas).bit_length() + cluster_ctas - 1
        return (f"multicast_mask = {mask:#x} names CTA {outside}, outside this kernel's "
                f"cluster of {cluster_ctas} (bit i is %cluster_ctarank i, 9.7.16.12.1)")
    return None


def group_size(dim: str, cluster_dims: tuple, cta_group: int) -> int:
    """The CTAs (pairs, in a pair kernel: one CTA of each) that share a tile multicast
    along `dim`."""
    nx, ny, _ = cluster_dims
    return nx // cta_group if dim == "x" else ny


def cta_mask_terms(dim: str, nx: int, ny: int, cta_group: int):
    """(base, shift(x, y), first(x, y)) of a load shared along `dim`: the ctaMask of the
    CTA at cluster position (x, y) is ``base << shift(x, y)``, and it issues the load
    where ``first(x, y)`` is 0. Along x the sharers are the CTAs of the row y at the same
    place in their pair (ranks ``x mod g + g i + nx y``); along y the CTAs of the column
    x (ranks ``x + nx j``). `x` and `y` may be ints or emit.Sym values."""
    if dim == "x":
        base = sum(1 << i for i in range(0, nx, cta_group))
        if cta_group == 1:
            return base, (lambda x, y: y * nx), (lambda x, y: x)
        return base, (lambda x, y: x % cta_group + y * nx), (lambda x, y: x // cta_group)
    base = sum(1 << (j * nx) for j in range(ny))
    return base, (lambda x, y: x), (lambda x, y: y)


def sharers(dim: str, rank: int, cluster_dims: tuple, cta_group: int) -> list[int]:
    """The ranks that receive a load shared along `dim` with the CTA of `rank` (itself
    included): the bits of its ctaMask."""
    nx, ny, _ = cluster_dims
    base, shift, _ = cta_mask_terms(dim, nx, ny, cta_group)
    mask = base << shift(rank % nx, rank // nx)
    return [r for r in range(nx * ny) if mask >> r & 1]


def consumers_mask(cluster_ctas: int) -> int:
    """The ctaMask of the commit that releases a ring stage in a kernel whose loads are
    multicast: every CTA of the cluster. Each CTA's load thread refills its own copy of
    the stage and, as issuer of a multicast, its sharers' copies, so it must wait until
    every CTA that reads what it writes has released the stage; signalling the whole
    cluster covers both dimensions' sharers with one constant mask (in a 2x2 cluster of
    single CTAs it also waits for the diagonal CTA, one arrival more than needed)."""
    return (1 << cluster_ctas) - 1


def consumer_arrivals(cluster_ctas: int, cta_group: int) -> int:
    """The arrivals of a ring stage's empty mbarrier in a multicast kernel: one commit of
    each MMA-issuing CTA of the cluster (the even CTA of each pair, 9.7.16.5.1)."""
    return cluster_ctas // cta_group


def per_cta_count(count: int, mask: int | None) -> tuple[int, str | None]:
    """``per_pair_count`` for a cta_group::1 kernel, whose every CTA commits: (the arrival
    count of an mbarrier that commits with `mask` signal, as one CTA's program sees it;
    why that count is wrong, or None). Each copy the commit reaches gets one arrival from
    each of the n CTAs the mask names in a round, so a count of n k is k for the CTA's
    own commits."""
    ctas = 1 if mask is None else bin(mask).count("1")
    if ctas <= 1:
        return count, None
    if count % ctas:
        return count, (f"the commits to this mbarrier signal {ctas} CTAs (multicast_mask "
                       f"= {mask:#b}), one arrival from each per round, but it counts "
                       f"{count} arrivals a phase: a phase would complete before every "
                       f"CTA's MMAs have released it (its count must be a multiple of "
                       f"{ctas})")
    return count // ctas, None


def pairs_named(mask: int | None) -> int:
    """The CTA pairs a commit's ctaMask names (pair p: ranks 2p, 2p + 1; 1 for the plain
    commit)."""
    if mask is None:
        return 1
    return sum(1 for p in range(CTA_MASK_BITS // 2) if mask >> (2 * p) & 0b11)


def per_pair_count(count: int, mask: int | None) -> tuple[int, str | None]:
    """(the arrival count of an mbarrier that commits with `mask` signal, as one pair's
    program sees it; why that count is wrong, or None). tcgen05-verify-sync checks one
    pair (sync_check/pairs.py); in a cluster of pairs every pair runs the same
    program, so each copy the commit reaches gets one arrival from each of the n pairs
    the mask names in the same round: a count of n k there is a count of k for the
    pair's own commits. A count that n does not divide lets a phase complete on some
    pairs' commits only, before the others' MMAs have released the stage: reported. The
    cross-pair writes of the multicast loads are the simulator's to check."""
    pairs = pairs_named(mask)
    if pairs <= 1:
        return count, None
    if count % pairs:
        return count, (f"the commits to this mbarrier signal {pairs} CTA pairs (multicast_"
                       f"mask = {mask:#b}), one arrival from each pair per round, but it "
                       f"counts {count} arrivals a phase: a phase would complete before "
                       f"every pair's MMAs have released it (its count must be a multiple "
                       f"of {pairs})")
    return count // pairs, None
