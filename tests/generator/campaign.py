"""A campaign of generated kernels: the seeded sequence of specs that covers every pair of
feature values the compiler accepts, and the per-pair tallies of a run (issue 33).

Kernel i of campaign `seed` depends only on (seed, i): the sequence is built greedily,
each kernel pinning the first pair of feature values not yet covered (in a seeded order)
and drawing the other features at random, until every feasible pair is covered; after
that the draws are free. A pair no draw can satisfy (``random_spec`` finds no spec
without problems) is infeasible: the report lists it with the reason.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict

from . import kernelgen as kg


def value_pairs() -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Every pair of (feature, value) of two different features, sorted."""
    values = [(name, str(v)) for name, choices in kg.FEATURES.items() for v in choices]
    values += [(name, v) for name in DERIVED for v in ("False", "True")]
    values.sort()
    return [(a, b) for a, b in itertools.combinations(values, 2) if a[0] != b[0]]


#: Features a spec has by the values of others (kernelgen.Spec.features): block scaling
#: by the element type, a row reduction that shuffles by rowred and the fragment's shape.
DERIVED = ("block_scale", "row_shuffle")


def _typed(name: str, text: str):
    if name in DERIVED:
        return None
    for v in kg.FEATURES[name]:
        if str(v) == text:
            return v
    raise KeyError((name, text))


def pinned(pair) -> dict:
    """The spec fields a pair of feature values fixes (the DERIVED ones by others)."""
    fixed = {}
    for name, text in pair:
        if name not in DERIVED:
            fixed[name] = _typed(name, text)
    # What a rare value needs, so that a draw finds it (a value the pair pins wins):
    # a cluster multicasts only with TMA in warp roles (between CTA pairs or single CTAs:
    # pinning a pair would make M = 64 or N = 16 with a cluster look infeasible), and a
    # row reduction shuffles with .16x32bx2 fragments.
    if fixed.get("cluster", "none") != "none":
        fixed.update({"program": "roles", "load": "tma", **fixed})
    if dict(pair).get("row_shuffle") == "True":
        fixed.update({"rowred": "max", "ld_shape": "16x32bx2", **fixed})
    # an i32 output is kind::i8's (a draw that leaves the type free finds it too rarely
    # beside a pair's M = 256)
    if fixed.get("out") == "i32":
        fixed.update({"dtype": "i8", **fixed})
    # strategy=handoffs plans the chained GEMM in warp roles with TMA loads
    if fixed.get("sync") == "handoffs":
        fixed.update({"program": "roles", "load": "tma", "chain": "alias", **fixed})
    if fixed.get("chain", "none") != "none" and fixed.get("program") == "roles":
        fixed.update({"sync": "handoffs", "load": "tma", **fixed})
    return fixed


def _matches(spec: kg.Spec, pair) -> bool:
    f = spec.features()
    return all(str(f[name]) == text for name, text in pair)


def draw(rng: random.Random, pair=None, tries: int = 3000,
         pin: dict | None = None) -> kg.Spec | None:
    """A spec without problems that has the pair's values (None if no draw found one).
    Each free feature takes its base value with probability 1/2, else a uniform choice,
    so that the restrictive features (block scaling, pairs, A in TMEM) meet often
    enough; a feature in `pin` (name -> the values allowed) takes one of its values."""
    fixed = pinned(pair) if pair else {}
    for _ in range(tries):
        values = {}
        if pin:   # the pinned values, with what they need (pinned's rules)
            chosen = tuple((name, str(rng.choice(v))) for name, v in pin.items())
            fixed = {**pinned(chosen), **(pinned(pair) if pair else {})}
        for name, choices in kg.FEATURES.items():
            if name in fixed:
                values[name] = fixed[name]
            else:
                values[name] = choices[0] if rng.random() < 0.5 else rng.choice(choices)
        spec = kg.Spec(**values, seed=rng.randrange(1 << 30))
        if kg.problems(spec) or (pair and not _matches(spec, pair)):
            continue
        return spec
    return None


def specs(seed: int, count: int, pin: dict | None = None):
    """The first `count` specs of campaign `seed`, and the pairs found infeasible. With
    `pin` (name -> the values allowed, a focused campaign) every spec is a free draw with
    those features among their values: no pair covering, no pair infeasible."""
    rng = random.Random(seed)
    if pin:
        return [draw(rng, pin=pin, tries=30_000) for _ in range(count)], []
    pending = value_pairs()
    rng.shuffle(pending)
    covered: set = set()
    infeasible: list = []
    out = []
    while len(out) < count:
        spec = None
        while pending and spec is None:
            pair = pending[0]
            if pair in covered:
                pending.pop(0)
                continue
            spec = draw(rng, pair)
            if spec is None:
                infeasible.append(pair)
                pending.pop(0)
        if spec is None:
            spec = draw(rng)
        out.append(spec)
        covered.update(kg.pairs(spec))
    return out, infeasible


def infeasible_reason(pair) -> str:
    """Why no spec has both values: the problems of the specs nearest the base that have
    the pair (the base, and the base with one more feature changed) that have the fewest
    problems; several such specs give several reasons, each of which blocks some
    way out."""
    fixed = pinned(pair)
    if dict(pair).get("block_scale") == "True" and "dtype" not in fixed:
        fixed["dtype"] = "mx_e4m3"
    if dict(pair).get("row_shuffle") == "True":
        fixed.setdefault("rowred", "max")
        fixed.setdefault("ld_shape", "16x32bx2")
    base = kg.Spec(**fixed)
    candidates = [base] + [kg.Spec(**{**fixed, name: v})
                           for name, choices in kg.FEATURES.items() if name not in fixed
                           for v in choices[1:]]
    scored = []
    for spec in candidates:
        why = kg.problems(spec)
        if not _matches(spec, pair):
            why = why + [f"block_scale is the element type's ({spec.dtype}), row_shuffle "
                         f"a row reduction's of .16x32bx2 fragments ({spec.rowred}, "
                         f"{spec.ld_shape}, M = {spec.m})"]
        scored.append(why)
    fewest = min(len(w) for w in scored)
    reasons = []
    for why in scored:
        if len(why) == fewest and "; ".join(why) not in reasons:
            reasons.append("; ".join(why))
    return " / ".join(reasons[:3])


def tally(records):
    """Per pair of features: per pair of their values: [generated, passed]."""
    table = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for spec, ok in records:
        for (fa, va), (fb, vb) in kg.pairs(spec):
            cell = table[(fa, fb)][(va, vb)]
            cell[0] += 1
            cell[1] += int(ok)
    return table
