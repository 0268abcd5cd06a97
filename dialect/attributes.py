"""The attributes of every tcgen05 op and of the ``tcgen05.kernel`` dictionary: one table.

IRDL (``tcgen05.irdl.mlir``) declares the attributes an op cannot do without (an MMA's
``kind``, a copy's ``shape``); the optional ones, and those the planning passes write, are
listed here with their kind. ``tcgen05-verify`` checks every op against this table (an
attribute it does not list is a misspelling, one of another kind a located error), the
typed op classes (``ops.py``, generated from the IRDL file and this table) have one
property per name listed here, through which the compiler reads and writes them: reading a
name the table does not list is an error, so a pass cannot silently read a misspelled
attribute's default.

Kinds: ``"int"`` an integer attribute (a ``bool`` flag reads as 0 / 1), ``"str"`` a
string, ``"i32s"`` an ``array<i32: ...>``, ``"strs"`` an array of strings. Attribute names that contain a dot belong to
another dialect (MLIR's discardable attributes) and are left alone.
"""

from __future__ import annotations

from types import MappingProxyType

#: The phrase of each kind in a diagnostic.
KIND_NAMES = MappingProxyType({"int": "an integer", "str": "a string",
                               "i32s": "an array<i32: ...>",
                               "strs": "an array of strings"})

_SYNC = {"reason": "str"}                 # why tcgen05-insert-sync added the op
_ACCESS = {"shape": "str", "num": "int", "half_split": "int"}   # chosen by select-layouts
_PLACED = {"layout": "str", "role": "str", "columns": "int", "half_lanes": "int"}

_OPS = {
    "tmem_buffer": {"name": "str", **_PLACED, "layout_c": "str", "lane_offset": "int",
                    "column_offset": "int", "stage_layout": "str", "stage_stride": "int",
                    "alias": "str", "alias_column": "int"},
    "tmem_stage": dict(_PLACED),
    "smem_buffer": {},
    "smem_stage": {},
    "smem_fill": {"src_layout": "str", "src_ld": "int", "dims": "strs"},
    "tma_load": {"multicast": "str"},
    "mbarrier_expect_tx": {"bytes": "int", **_SYNC},
    "mma": {"kind": "str", "k_offset": "int", "k": "int", "sparse": "int",
            "sparsity_selector": "int", "ws": "int", "collector_a": "str",
            "collector_b": "str", "collector_b_op": "str", "zero_column_mask": "int",
            "max_shift": "int", "scale_vec": "str", "scale_a_id": "int", "scale_b_id": "int",
            "ashift": "int", "negate_a": "int", "negate_b": "int", "saturate": "int",
            "scale_input_d": "int", "disable_output_lane": "i32s", "layout": "str"},
    "cp": {"shape": "str", "multicast": "str", "decompress": "str", "column": "int"},
    "shift": {},
    "ld": {**_ACCESS, "pack16": "int"},
    "ld_red": {**_ACCESS, "op": "str", "abs": "int", "nan": "int"},
    "st": {**_ACCESS, "unpack16": "int"},
    "store_fragment": {"ld": "int", "dims": "strs"},
    "load_fragment": {**_ACCESS, "ld": "int", "pack16": "int", "dims": "strs"},
    "frag_map": {},
    "frag_reduce": {"kind": "str"},
    "frag_broadcast": {},
    "frag_vote": {"kind": "str"},
    "alloc_mbarrier": {"count": "int", "stages": "int", **_SYNC},
    "mbarrier_stage": {},
    "commit": {"multicast_mask": "int", **_SYNC},
    "mbarrier_wait": dict(_SYNC),
    "wait": {"kind": "str", **_SYNC},
    "fence": {"kind": "str", **_SYNC},
    "fence_proxy_async": dict(_SYNC),
    "barrier": dict(_SYNC),
    "mbarrier_arrive": {"cta": "str", **_SYNC},
    "partitions": {},
    "role": {"name": "str", "first_warp": "int", "warps": "int"},
    "alloc": {"columns": "int", "cta_group": "int"},
    "dealloc": {"columns": "int", "cta_group": "int"},
    "relinquish_alloc_permit": {"cta_group": "int"},
}

#: op name (without ``tcgen05.``) -> attribute name -> kind.
ATTRIBUTES = MappingProxyType({op: MappingProxyType(attrs) for op, attrs in _OPS.items()})

_FLAGS_OFF = {"sparse": 0, "ws": 0, "ashift": 0, "negate_a": 0, "negate_b": 0, "saturate": 0}
_DEFAULTS = {
    # 9.7.16.10.9: no qualifier means the first K block, dense, no .ws, collector ::discard
    # (::b0::discard with .ws, 9.7.16.10.9.3), no negation or saturation, no B-reuse shift.
    "mma": {**_FLAGS_OFF, "k_offset": 0, "sparsity_selector": 0, "collector_a": "discard",
            "collector_b": "b0", "collector_b_op": "discard", "max_shift": 0},
    "cp": {"column": 0},
    "ld": {"pack16": 0},
    "load_fragment": {"pack16": 0, "dims": ()},
    "st": {"unpack16": 0},
    "ld_red": {"abs": 0, "nan": 0},
    # No dims operands: the leading dimension is the attribute, the offsets 0 and the
    # matrix unbounded.
    "smem_fill": {"dims": ()},
    "store_fragment": {"dims": ()},
    "alloc_mbarrier": {"count": 1},
    "tmem_buffer": {"half_lanes": 0, "alias_column": 0},
    "tmem_stage": {"half_lanes": 0},
}

#: op name -> attribute name -> the value an absent attribute means (attributes without
#: one read as None when absent: their absence is itself meaningful, e.g. ``scale_vec``).
DEFAULTS = MappingProxyType({op: MappingProxyType(values) for op, values in _DEFAULTS.items()})

#: What the ``dims`` attribute of each op that addresses a global matrix may name, the
#: leading dimension first (its name is also the attribute that gives it as a constant);
#: the op's comment in the IRDL file says what each means, kernel_ir.global_matrix reads
#: them.
DIMS = MappingProxyType({
    "smem_fill": ("src_ld", "row_offset", "rows", "k_size"),
    "store_fragment": ("ld", "row_offset", "column_offset", "rows", "columns"),
    "load_fragment": ("ld", "row_offset", "column_offset", "rows", "columns"),
})

#: The entries of a kernel's ``tcgen05.kernel`` dictionary: name -> (kind, default).
#: ``grid``: how many CTAs a launch has in x, y and z, one string per dimension (at most
#: three, the others 1), each an integer, the name of an integer kernel argument, or
#: ``ceildiv(<argument or integer>, <integer>)``; the launch manifest carries it, and
#: without it a launch is one CTA (or one CTA pair).
#: ``cluster``: the cluster's CTAs along x and y (``array<i32: x, y>``, z is 1; default:
#: one CTA, or the CTA pair of a cta_group::2 kernel); the launch manifest and
#: ``.reqnctapercluster`` carry it (docs/tma.md, "Multicast across a cluster").
KERNEL_ENTRIES = MappingProxyType({"target": ("str", "sm_100a"), "threads": ("int", 128),
                                   "cta_group": ("int", 1), "grid": ("strs", ()),
                                   "cluster": ("i32s", ())})

_SELECT, _PLAN, _SYNC_PASS = "tcgen05-select-layouts", "tcgen05-plan-tmem", "tcgen05-insert-sync"
_ACCESS_PLAN = {"shape": _SELECT, "num": _SELECT, "half_split": _SELECT}

#: The pass that writes each attribute of the planned level, by op (the others are the
#: user's: the logical level). Documentation (docs/ops.md); tcgen05-plan-tmem also adds
#: the alloc / dealloc / relinquish_alloc_permit ops, tcgen05-insert-sync the sync ops.
WRITTEN_BY = MappingProxyType({op: MappingProxyType(attrs) for op, attrs in {
    "tmem_buffer": {"layout": _SELECT, "role": _SELECT, "columns": _SELECT,
                    "half_lanes": _SELECT, "layout_c": _SELECT, "lane_offset": _PLAN,
                    "column_offset": _PLAN, "stage_layout": _PLAN, "stage_stride": _PLAN},
    "tmem_stage": {"layout": _PLAN, "role": _PLAN, "columns": _PLAN, "half_lanes": _PLAN},
    "mma": {"layout": _SELECT},
    "ld": {**_ACCESS_PLAN, "pack16": _SELECT},
    "ld_red": dict(_ACCESS_PLAN),
    "st": {**_ACCESS_PLAN, "unpack16": _SELECT},
    "load_fragment": {**_ACCESS_PLAN, "pack16": _SELECT},
    **{op: {"reason": _SYNC_PASS} for op in ("alloc_mbarrier", "commit", "mbarrier_wait",
                                            "wait", "fence", "fence_proxy_async", "barrier")},
    # On the commits it adds to a cta_group::2 kernel: which CTAs' mbarriers they signal.
    "commit": {"reason": _SYNC_PASS, "multicast_mask": _SYNC_PASS},
    **{op: {name: _PLAN for name in _OPS[op]} for op in ("alloc", "dealloc",
                                                         "relinquish_alloc_permit")},
}.items()})

del _OPS, _SYNC, _ACCESS, _PLACED, _DEFAULTS, _FLAGS_OFF, _SELECT, _PLAN, _SYNC_PASS, _ACCESS_PLAN
