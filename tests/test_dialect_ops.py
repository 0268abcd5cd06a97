"""The typed op classes (tcgen05_lower.dialect.ops, generated from the IRDL file): one per
op, their attributes those of the dialect's table, and building an op from keyword
arguments gives the operation the parser makes from its text."""

import glob
import re
from pathlib import Path

import pytest

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import capture_diagnostics, ir
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.dialect import generate, ops
from tcgen05_lower.dialect.attributes import ATTRIBUTES, DEFAULTS

ROOT = Path(__file__).resolve().parent.parent


def test_ops_py_is_what_the_generator_writes_from_the_irdl_file():
    assert generate.main(["--check"]) == 0


def test_one_class_per_irdl_op_with_the_verifiers_attributes():
    irdl_ops = [entry["name"] for entry in generate.read_definitions()]
    assert sorted(irdl_ops) == sorted(ops.OPS) == sorted(ATTRIBUTES)
    for name, cls in ops.OPS.items():
        declared = {n for n, v in vars(cls).items() if isinstance(v, ops.Attribute)}
        assert declared == set(ATTRIBUTES[name]), name
        assert set(cls.REQUIRED) <= set(ATTRIBUTES[name]), name


def _instances():
    """One parsed instance of every op (the first one met), from the shipped examples,
    corpus and lit inputs, in its context."""
    found = {}
    paths = sorted(glob.glob(str(ROOT / "examples/*.mlir"))
                   + glob.glob(str(ROOT / "benchmarks/tmem/corpus/*.mlir"))
                   + glob.glob(str(ROOT / "lit_tests/**/*.mlir"), recursive=True))
    for path in paths:
        for chunk in Path(path).read_text().split("// -----"):
            context = d.make_context()
            with context, capture_diagnostics(context):
                try:
                    module = parse_module(chunk, path)
                except Exception:
                    continue
                for op in d.walk_ops(module):
                    if d.op_name(op) in ops.OPS and d.op_name(op) not in found:
                        found[d.op_name(op)] = (chunk, path)
    return found


INSTANCES = _instances()


@pytest.mark.parametrize("name", sorted(ops.OPS))
def test_build_from_keywords_gives_the_parsed_operation(name):
    """The op is read through its class (operands by IRDL name, written attributes as
    Python values) and built again beside the original: same name, operands, result
    types and attributes, the same generic text."""
    assert name in INSTANCES, f"no shipped input uses tcgen05.{name}"
    chunk, path = INSTANCES[name]
    cls = ops.OPS[name]
    context = d.make_context()
    with context, capture_diagnostics(context):
        module = parse_module(chunk, path)
        original = next(op for op in d.walk_ops(module) if d.op_name(op) == name)
        typed = cls(original)
        fields = {group: getattr(typed, group) for group, _ in cls.OPERANDS}
        fields.update({attr: typed.get(attr) for attr in ATTRIBUTES[name] if typed.has(attr)})
        with ir.InsertionPoint(original), original.location:
            built = cls.build(result_types=[r.type for r in original.results],
                              regions=len(original.regions), **fields)
        assert built.name == original.name
        assert list(built.operands) == list(original.operands)
        assert [r.type for r in built.results] == [r.type for r in original.results]
        attrs = {a.name: str(a.attr) for a in (original.attributes[i]
                                               for i in range(len(original.attributes)))}
        built_attrs = {a.name: str(a.attr) for a in (built.attributes[i]
                                                     for i in range(len(built.attributes)))}
        assert built_attrs == attrs
        generic = original.get_asm(print_generic_op_form=True)
        text = built.get_asm(print_generic_op_form=True)
        if len(original.regions):  # the built op's regions are empty: compare the rest
            assert len(built.regions) == len(original.regions)
            generic, text = (re.sub(r"\(\{.*\}\)", "({})", t, flags=re.S)
                             for t in (generic, text))
        # The result names differ (the rest, after the region's own "=" are gone, not).
        assert text.split("=", 1)[-1] == generic.split("=", 1)[-1]


def test_attributes_read_with_their_defaults():
    text = (ROOT / "examples/gemm_bf16_128x256.mlir").read_text()
    context = d.make_context()
    with context, capture_diagnostics(context):
        module = parse_module(text, "gemm.mlir")
        mmas = [ops.MmaOp(op) for op in d.walk_ops(module) if ops.MmaOp.matches(op)]
        assert [m.k_offset for m in mmas] == [0, 16, 32, 48]
        first = mmas[0]
        assert first.kind == "f16" and first.d == first.operation.operands[0]
        # absent: the defaults of attributes.DEFAULTS (9.7.16.10.9), or None
        assert (first.sparse, first.collector_a, first.scale_vec) == (0, "discard", None)
        assert not first.has("collector_a")
        assert DEFAULTS["mma"]["collector_a"] == "discard"
        with pytest.raises(LookupError, match="tcgen05.mma has no attribute 'colector_a'"):
            first.get("colector_a")
        with pytest.raises(TypeError, match="wraps tcgen05.cp, not tcgen05.mma"):
            ops.CpOp(first.operation)


def test_build_refuses_what_the_dialect_does_not_have():
    context = d.make_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            with pytest.raises(TypeError, match="has no operand or attribute 'colector_a'"):
                ops.WaitOp.build(kind="ld", colector_a="use")
            with pytest.raises(TypeError, match="needs attribute kind"):
                ops.WaitOp.build()
            with pytest.raises(TypeError, match="attribute count = 'two' must be an integer"):
                ops.AllocMbarrierOp.build(count="two",
                                          result_types=[d.mbarrier_type()])
            wait = ops.WaitOp.build(kind="st", reason="st -> ld")
            assert str(wait) == '"tcgen05.wait"() {kind = "st", reason = "st -> ld"} : () -> ()'


def test_the_op_reference_lists_every_op_with_every_attribute():
    """docs/ops.md (generated; the --check above keeps it current) has a section per op of
    the IRDL file, and in it every attribute the verifier knows."""
    text = (ROOT / "docs" / "ops.md").read_text()
    sections = {s.split("`", 2)[1]: s for s in text.split("\n## ")[1:]}
    assert set(sections) == {f"tcgen05.{name}" for name in ATTRIBUTES}
    for name, kinds in ATTRIBUTES.items():
        for attr in kinds:
            assert f"| `{attr}` |" in sections[f"tcgen05.{name}"], (name, attr)


def test_writes_of_the_tables_kind_and_reads_by_class_member():
    """Writing through a class gives what the dialect's old set_int / set_str / BoolAttr
    writes gave; has / get / set / remove take a class member as well as a name."""
    text = (ROOT / "examples/gemm_bf16_128x256.mlir").read_text()
    context = d.make_context()
    with context, capture_diagnostics(context):
        module = parse_module(text, "gemm.mlir")
        buffer = next(ops.TmemBufferOp(op) for op in d.walk_ops(module)
                      if ops.TmemBufferOp.matches(op))
        mma = next(ops.MmaOp(op) for op in d.walk_ops(module) if ops.MmaOp.matches(op))
        buffer.layout = "D"
        buffer.columns = 256
        buffer.half_lanes = False
        attrs = buffer.operation.attributes
        assert str(attrs["layout"]) == '"D"'
        assert str(attrs["columns"]) == "256 : i64"
        assert str(attrs["half_lanes"]) == "false"
        assert (buffer.layout, buffer.columns, buffer.half_lanes) == ("D", 256, 0)
        buffer.set(ops.TmemBufferOp.role, "d")
        assert buffer.has(ops.TmemBufferOp.role) and buffer.get("role") == "d"
        # A flag written as true reads as 1 through its property, True through get().
        mma.sparse = True
        assert str(mma.operation.attributes["sparse"]) == "true"
        assert mma.sparse == 1 and type(mma.sparse) is int and mma.get("sparse") is True
        del mma.sparse
        assert not mma.has(ops.MmaOp.sparse) and mma.sparse == 0
        mma.remove(ops.MmaOp.sparse)   # absent: nothing to do
        # An attribute of the wrong kind is a located error, as get_int's was.
        mma.operation.attributes["k_offset"] = ir.StringAttr.get("sixteen")
        with pytest.raises(d.InvalidAttribute, match="k_offset .* must be an integer"):
            mma.k_offset
        with pytest.raises(TypeError, match="attribute columns = 'many' must be an integer"):
            buffer.columns = "many"
        with pytest.raises(LookupError, match="has no attribute 'colums'"):
            buffer.set("colums", 1)
        # An MLIR attribute is written as it is (copied from another op).
        buffer.set(ops.TmemBufferOp.columns, ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 8))
        assert str(attrs["columns"]) == "8 : i32"
        assert ops.WaitOp.declares(ops.MmaOp.kind) and not ops.BarrierOp.declares("kind")
        assert isinstance(ops.wrap(mma.operation), ops.MmaOp)
        assert ops.wrap(d.kernels(module)[0]) is None


def test_build_writes_copied_attributes_as_they_are():
    context = d.make_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            copied = {"kind": ir.StringAttr.get("ld"),
                      "other.note": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 3)}
            wait = ops.WaitOp.build(attributes=copied, reason="r")
            assert str(wait) == ('"tcgen05.wait"() {kind = "ld", other.note = 3 : i32, '
                                 'reason = "r"} : () -> ()')


def test_a_load_fragment_without_pack16_reads_the_isa_default():
    """tcgen05.ld without .pack::16b moves each 32-bit cell unpacked (PTX ISA 9.7.16.8.3):
    an absent pack16 on tcgen05.load_fragment, as on tcgen05.ld, means 0; and its absent
    dims means no dims operands. Both defaults once sat in two "load_fragment" entries of
    attributes.py's table, the second replacing the first."""
    text = (ROOT / "lit_tests/ldst/layout-a.mlir").read_text().split("// -----")[0]
    context = d.make_context()
    with context, capture_diagnostics(context):
        module = parse_module(text, "layout-a.mlir")
        loads = [ops.LoadFragmentOp(op) for op in d.walk_ops(module)
                 if ops.LoadFragmentOp.matches(op)]
        assert loads and not any(load.has("pack16") or load.has("dims") for load in loads)
        assert [(load.pack16, load.dims) for load in loads] == [(0, ())] * len(loads)
        lds = [ops.LdOp(op) for op in d.walk_ops(module) if ops.LdOp.matches(op)]
        assert lds and [ld.pack16 for ld in lds] == [0] * len(lds)   # the same reading


def test_the_defaults_table_names_each_op_once():
    """A repeated key in a dict display silently replaces the earlier entry (Python keeps
    the last): read attributes.py's source and count the keys of _DEFAULTS and _OPS."""
    import ast

    source = (ROOT / "dialect/attributes.py").read_text()
    tables = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    tables[target.id] = [k.value for k in node.value.keys
                                         if isinstance(k, ast.Constant)]
    assert {"_DEFAULTS", "_OPS"} <= set(tables)
    for name, keys in tables.items():
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        assert repeated == [], (name, repeated)
