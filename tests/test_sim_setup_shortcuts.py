"""The short cuts of a run's set-up, each against the general code it stands in for:
the PTX parser's comma split that looks only at the characters that nest, its name
resolution made once per nest of blocks, and ``ops.decoder``, which looks the decoder of
an opcode up once per opcode text. Each test feeds both the same input and compares;
the inputs include what the short cut's guard sends to the general code, so that a test
fails when a guard is removed."""

from __future__ import annotations

import random

import numpy as np
import pytest

import example_runs
from tcgen05_lower.sim import ops
from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ptx_text import _split_commas_nested
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.executor import Machine


# -- the comma split ------------------------------------------------------------------------
def test_comma_split_agrees_with_the_nested_loop_on_random_text():
    rng = random.Random(7)
    alphabet = "[]{}(),, a%r1+"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
        assert _split_commas_nested(text) == P._split_top_nested(text, ","), text
        assert P.split_top(text) == P._split_top_nested(text, ","), text


@pytest.mark.parametrize("text", ["a*(b*c)", "[x*y]*z", "f(a)*2"])
def test_other_separators_keep_the_general_loop(text):
    # the guard: only ',' takes the comma split; by hand, '*' inside brackets stays
    want = {"a*(b*c)": ["a", "(b*c)"], "[x*y]*z": ["[x*y]", "z"],
            "f(a)*2": ["f(a)", "2"]}[text]
    assert P.split_top(text, "*") == want == P._split_top_nested(text, "*")


def test_comma_split_by_hand():
    assert _split_commas_nested("[%rd1, 8], {%r1, %r2}, %r3") == \
        ["[%rd1, 8]", "{%r1, %r2}", "%r3"]
    # depth -1 after "a]": the comma there does not split, "[" brings it back to 0
    assert _split_commas_nested("a], b, [c") == ["a], b, [c"]


def test_bracket_split_agrees_with_the_nested_loop_on_random_text():
    # texts whose only nesting characters are brackets (ptx_text._split_commas_brackets),
    # balanced or not piece by piece: against the character loop
    rng = random.Random(11)
    alphabet = "[],, a%r1+"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
        assert P.split_top(text) == P._split_top_nested(text, ","), text


def test_bracket_split_by_hand():
    # every piece balanced: each comma splits; a comma inside brackets does not (the
    # pieces "[%rd1" and " 8]" are not balanced: the general loop)
    assert P.split_top("[%r9], %r10") == ["[%r9]", "%r10"]
    assert P.split_top("%r1, [%rd2+8], ") == ["%r1", "[%rd2+8]"]
    assert P.split_top("[%rd1, 8], %r2") == ["[%rd1, 8]", "%r2"]
    assert P.split_top("a], b, [c") == ["a], b, [c"]


# -- names in nested blocks ----------------------------------------------------------------
NESTED = """
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    .reg .pred p;
    setp.eq.u32 p, %r1, 0;
    { .reg .pred p; .reg .b32 q;
      setp.eq.u32 p, %r1, 1;
      { .reg .pred p; setp.eq.u32 p, q, 2; }
      { .reg .b32 r; setp.eq.u32 p, r, q; }
      @p bra done;
      done: }
    @p bra done;
done:
    ret;
}
"""


def _resolve_by_rule(local_names: dict, scopes: tuple, name: str) -> str:
    """The rule: the innermost enclosing block that declares the name renames it."""
    for scope in reversed(scopes):
        if (scope, name) in local_names:
            return local_names[(scope, name)]
    return name


def test_names_resolve_in_the_innermost_declaring_block():
    entry = P.parse(NESTED).entry()
    setps = [ins.operands[:2] for ins in entry.instructions if ins.parts[0] == "setp"]
    # by hand: blocks are numbered 1 (outer), 2 and 3 (inner) in text order; a name a
    # block renames reads as the register of its new name, the entry's own p as a symbol
    assert setps == [[P.Sym("p"), P.Reg("%r1")], [P.Reg("p#1"), P.Reg("%r1")],
                     [P.Reg("p#2"), P.Reg("q#1")], [P.Reg("p#1"), P.Reg("r#3")]]
    bras = [ins for ins in entry.instructions if ins.parts[0] == "bra"]
    assert [(b.guard, b.operands[0]) for b in bras] == [("p#1", P.Reg("done#1")),
                                                       ("p", P.Sym("done"))]


def test_resolver_agrees_with_the_rule():
    local_names = {(1, "p"): "p#1", (1, "q"): "q#1", (2, "p"): "p#2", (3, "r"): "r#3",
                   (2, "x"): "x#2"}
    declared: dict = {}
    for (scope, name), renamed in local_names.items():
        declared.setdefault(scope, {})[name] = renamed
    for scopes in [(0,), (0, 1), (0, 1, 2), (0, 1, 3), (0, 2), (0, 4)]:
        resolve = P._resolver(scopes, declared)
        for name in ["p", "q", "r", "x", "%r1", "done"]:
            assert resolve(name) == _resolve_by_rule(local_names, scopes, name), \
                (scopes, name)


# -- decoders looked up once per opcode text --------------------------------------------------
EXAMPLES = ["ws_persistent_gemm_bf16.mlir", "gemm_bf16_kloop.mlir", "ws_gemm_2cta_bf16.mlir"]


def _same_cells(f, g) -> bool:
    """Two closures of one code whose cells hold equal values (functions: the same code
    and, recursively, equal cells)."""
    if f.__code__ is not g.__code__:
        return False
    for a, b in zip(f.__closure__ or (), g.__closure__ or ()):
        x, y = a.cell_contents, b.cell_contents
        if callable(x) and hasattr(x, "__code__"):
            if not (callable(y) and hasattr(y, "__code__") and _same_cells(x, y)):
                return False
        elif type(x) is not type(y) or not (x is y or x == y):
            return False
    return True


@pytest.mark.parametrize("example", EXAMPLES)
def test_decoders_of_by_opcode_depend_on_the_opcode_alone(example):
    """What BY_OPCODE claims, instruction by instruction: every instruction of an opcode
    text gets a decoder of the same code holding the same values."""
    ptx, manifest, _, _ = example_runs.prepared(example)
    first: dict = {}
    checked = 0
    for ins in P.parse(ptx).entry(manifest.get("entry")).instructions:
        if ins.parts[0] not in ops.BY_OPCODE:
            continue
        make = ops._handler_for(ins)
        if ins.opcode in first:
            assert _same_cells(first[ins.opcode], make), ins.text
            checked += 1
        first.setdefault(ins.opcode, make)
    assert checked > 20


@pytest.mark.parametrize("example", EXAMPLES)
def test_a_run_decoded_once_per_opcode_is_the_general_run(example, monkeypatch):
    ptx, manifest, _, inputs = example_runs.prepared(example)

    def run():
        args = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
        result = simulate(ptx, manifest, args)
        return result.outputs, result.counts, result.warp_instructions, \
            [str(r) for r in result.races], result.problems

    fast = run()
    monkeypatch.setattr(ops, "decoder", lambda: ops.decode)   # the general decode
    general = run()
    assert fast[1:] == general[1:]
    assert fast[0].keys() == general[0].keys()
    for name in fast[0]:
        assert np.array_equal(fast[0][name], general[0][name]), name


@pytest.mark.parametrize("example", EXAMPLES)
def test_decoder_flags_are_those_decode_gives(example, monkeypatch):
    """The decoder keeps each opcode's flags with its make (``ops.decoder``): for every
    instruction, the same ``straight`` and ``local`` as the general ``ops.decode``."""
    machines = []
    decoded = Machine._decoded

    def keep(self, instructions, decode):
        machines.append(self)
        return decoded(self, instructions, decode)
    monkeypatch.setattr(Machine, "_decoded", keep)
    ptx, manifest, _, inputs = example_runs.prepared(example)
    simulate(ptx, manifest, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                             for k, v in inputs.items()})
    m = machines[0]
    fast = ops.decoder()
    for ins in m.entry.instructions:
        a, b = fast(m, ins), ops.decode(m, ins)
        assert (a.straight, a.local) == (b.straight, b.local), ins.text


def test_an_unknown_instruction_names_its_line():
    """Machine._decoded's one ``try``: the SimError of an unknown form names the PTX line
    of that instruction (by hand: line 11), as a try around each instruction did."""
    text = KEEPS.replace("mov.u32 %r3, 2;", "mov.q99 %r3, 2;")
    entry = P.parse(text).entry()
    machine = Machine.__new__(Machine)
    machine.entry = entry
    with pytest.raises(P.SimError) as err:
        machine._decoded(entry.instructions, ops.decoder())
    assert err.value.ptx_line == 11 and err.value.ptx_text.strip() == "mov.q99 %r3, 2;"


KEEPS = """
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    prmt.b32 %r1, %r2, %r3, 0x3210;
    prmt.b32 %r2, %r1, %r3, 0x0123;
    mov.u32 %r3, 1;
    mov.u32 %r3, 2;
    ret;
}
"""


def test_opcodes_outside_by_opcode_are_decoded_each_time(monkeypatch):
    """The guard: a decoder outside BY_OPCODE may keep its instruction (a stand-in that
    does), so each instruction gets its own; those of BY_OPCODE are looked up once."""
    calls = []
    general = ops._handler_for

    def recording(ins):
        calls.append(ins.line)
        make = general(ins)
        if ins.parts[0] != "prmt":
            return make
        return lambda m, _ins: (lambda run: run)(make(m, ins))   # keeps `ins`
    monkeypatch.setattr(ops, "_handler_for", recording)
    module = P.parse(KEEPS)
    entry = module.entry()
    decode = ops.decoder()
    machine = Machine.__new__(Machine)
    machine.entry = entry
    handlers = [decode(machine, ins) for ins in entry.instructions]
    # by hand (the text's first line is empty): each prmt (lines 8, 9), the first mov
    # (10; the second, line 11, reuses its decoder), the ret (12)
    assert calls == [8, 9, 10, 12]
    assert len({id(h) for h in handlers}) == len(handlers)


# -- integer literals ------------------------------------------------------------------------
INTEGERS = ["0", "7", "42", "123456789012345678901234567890", " 5 ", "-5", "+5", "0x1F",
            "0X1f", "0b101", "0B1", "017", "08", "00", "0U", "5U", "1.5", "", " ", "x1",
            "٣", "1_000", "0f3F800000", "-0", "1e3"]


@pytest.mark.parametrize("text", INTEGERS)
def test_plain_decimals_read_as_the_general_reading(text):
    """The short cut for plain decimal digits against the general reading; the guard
    sends a sign, a U, a leading 0 (octal: "08" is no octal number and raises in both),
    other digits than ASCII ones and anything else to the general reading."""
    from tcgen05_lower.sim.ptx_text import _parse_int_general

    def outcome(read):
        try:
            return read(text.strip())
        except ValueError as err:
            return str(err)
    assert outcome(P.parse_int) == outcome(_parse_int_general)


def test_integers_by_hand():
    assert [P.parse_int(t) for t in ("42", "017", "0x1F", "-5", "0b101", "1.5")] == \
        [42, 15, 31, -5, 5, None]


# -- statement ends past braces ----------------------------------------------------------------
def _end_or_error(body, pos: int, end):
    try:
        return end(pos)
    except P.PtxParseError as err:
        return str(err)


def test_statement_end_past_braces_agrees_with_the_character_loop():
    """The end of a statement whose text holds braces, from the braces and ';'s only,
    against the loop over every character, on random text (unbalanced, without any ';'
    at depth 0: the error)."""
    rng = random.Random(11)
    alphabet = "{};; a%r1,\n"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 30)))
        body = P._EntryBody(P.Entry("k"), text, P._Lines(text))
        for pos in range(len(text)):
            assert _end_or_error(body, pos, body._statement_end_nested) == \
                _end_or_error(body, pos, body._statement_end_by_char), (text, pos)


def test_a_statement_with_braces_ends_after_them():
    """The run loop's own end of a statement (its first ';' when no brace comes before
    it, else ``_statement_end_nested``): a ';' inside braces does not end it. By hand,
    the operand read is then "l0; l1" (no reader takes it); without the nested end the
    statement would stop at "{l0", an unbalanced vector."""
    text = KEEPS.replace("ret;", "brx.idx %r1, {l0; l1};\n    ret;")
    with pytest.raises(P.PtxParseError, match="cannot read operand 'l0; l1'"):
        P.parse(text)


def test_statement_end_by_hand():
    text = "st.v2 [%r1], {%r2, %r3}; { mov.b32 %r1, 1; }; x"
    body = P._EntryBody(P.Entry("k"), text, P._Lines(text))
    assert body._statement_end(0) == text.index(";")
    # the ';' inside the braces is skipped: the one after the closing brace ends it
    assert body._statement_end(25) == len(text) - 3
    with pytest.raises(P.PtxParseError, match="statement without ';'"):
        body._statement_end(len(text) - 1)


# -- instructions made with their opcode's shared words ---------------------------------------
@pytest.mark.parametrize("example", EXAMPLES)
def test_parsed_instructions_are_those_instr_makes(example):
    """The parser's instructions (``_with_parts``: one ``parts`` list per opcode text)
    against ``Instr(...)`` of the same fields: equal, the same attributes in the same
    order, ``parts`` the opcode's split."""
    ptx, manifest, _, _ = example_runs.prepared(example)
    instructions = P.parse(ptx).entry(manifest.get("entry")).instructions
    shared: dict = {}
    for ins in instructions:
        general = P.Instr(ins.opcode, ins.operands, ins.line, ins.text, ins.guard,
                          ins.guard_negated)
        assert ins == general and repr(ins) == repr(general)
        assert list(vars(ins).items()) == list(vars(general).items())
        assert shared.setdefault(ins.opcode, ins.parts) is ins.parts
    assert len(shared) < len(instructions)


def test_instruction_without_shared_words_splits_its_own():
    # the general path (no `words` dict): Instr's own split, by hand
    ins = P._instruction("@!%p1 add.s32 %r1, %r2, 4", 3, "text", P._same_name)
    assert ins.parts == ["add", "s32"] and ins.guard == "%p1" and ins.guard_negated
    words: dict = {}
    a = P._instruction("add.s32 %r1, %r2, 4", 3, "text", P._same_name, {}, words)
    b = P._instruction("add.s32 %r3, %r2, 4", 4, "text", P._same_name, {}, words)
    assert a.parts is b.parts == ["add", "s32"] and words == {"add.s32": a.parts}
    assert a == P.Instr("add.s32", [P.Reg("%r1"), P.Reg("%r2"), P.Imm(4)], 3, "text")


SCOPES = """
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    add.s32 %r1, %r2, 1;
    { add.s32 %r1, %r2, 1; }
    { .reg .b32 %r2; add.s32 %r1, %r2, 1; }
    ret;
}
"""


def test_operands_shared_across_blocks_of_one_name_resolution():
    """Operands are read once per name resolution: the entry's and a block declaring
    nothing share theirs (the same objects); a block declaring %r2 reads its own %r2, as
    its rule says (%r2 there is the block's, renamed %r2#2; by hand), and shares the
    entry's reading of the texts that name nothing it declares (%r1, 1)."""
    adds = [ins for ins in P.parse(SCOPES).entry().instructions if ins.parts[0] == "add"]
    assert [ins.operands for ins in adds] == [
        [P.Reg("%r1"), P.Reg("%r2"), P.Imm(1)], [P.Reg("%r1"), P.Reg("%r2"), P.Imm(1)],
        [P.Reg("%r1"), P.Reg("%r2#2"), P.Imm(1)]]
    assert all(x is y for x, y in zip(adds[0].operands, adds[1].operands))
    assert adds[2].operands[0] is adds[0].operands[0]
    assert adds[2].operands[2] is adds[0].operands[2]
    assert adds[2].operands[1] is not adds[0].operands[1]


SHADOWS = """
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    mov.u64 %rd1, p;
    ld.shared.u32 %r1, [p+4];
    setp.eq.u32 %p1, %r1, 0;
    { .reg .pred p; .reg .b32 r; setp.eq.u32 p, %r1, 0; ld.shared.u32 r, [p+4];
      mov.u64 %rd1, p; @p add.u32 %r2, r, 1; @%p1 mov.u32 %r3, %r2; }
    mov.u64 %rd2, p;
}
"""


def test_a_block_reads_the_names_it_declares_as_its_own():
    """A block's operand text that contains a name the block declares is read in the
    block, not taken from the entry's readings of the same text: ``p`` is the entry's
    symbol outside the block and the block's predicate ``p#1`` inside, ``[p+4]`` the
    same (by hand, ptx.py's renaming rule); a text that merely contains a declared name
    (``%p1`` contains ``p``, ``%r1`` contains ``r``) reads as the entry reads it. Fails
    when a block takes every text from the entry's readings."""
    ins = P.parse(SHADOWS).entry().instructions
    outside = [i.operands for i in ins if i.line not in (13, 14)]
    inside = [(i.operands, i.guard) for i in ins if i.line in (13, 14)]
    assert outside == [
        [P.Reg("%rd1"), P.Sym("p")], [P.Reg("%r1"), P.Addr(P.Sym("p"), 4)],
        [P.Reg("%p1"), P.Reg("%r1"), P.Imm(0)], [P.Reg("%rd2"), P.Sym("p")]]
    assert inside == [
        ([P.Reg("p#1"), P.Reg("%r1"), P.Imm(0)], None),
        ([P.Reg("r#1"), P.Addr(P.Reg("p#1"), 4)], None),
        ([P.Reg("%rd1"), P.Reg("p#1")], None),
        ([P.Reg("%r2"), P.Reg("r#1"), P.Imm(1)], "p#1"),
        ([P.Reg("%r3"), P.Reg("%r2")], "%p1")]
