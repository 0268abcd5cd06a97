"""A parser for the PTX the pipeline emits: one module, its ``.entry`` kernels, their
parameters, registers, shared variables, labels and instructions.

The grammar followed is the PTX ISA's (chapter 4 syntax, chapter 5 state spaces, chapter 11
directives). Inline-asm blocks ``{ .reg .pred x; label: ...; }`` open a scope: their ``.reg``
declarations and labels are local to the braces, so each block's names are renamed
``name#N`` (N the block's number) and several copies of one block never collide.

Every instruction keeps its 1-based PTX line for error messages.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

# the text-level helpers, read through this module too (api.py, tests)
# the operands and their reader (sim/ptx_operands.py), read through this module too
from tcgen05_lower.sim.ptx_operands import (Addr, DestPair, Imm, Reg, Sym,  # noqa: F401
                                            TensorAddr, Vec, _address, _operand,
                                            _operand_any)
from tcgen05_lower.sim.ptx_text import (_split_top_nested, parse_int, split_top,  # noqa: F401
                                        strip_comments)
from tcgen05_lower.sim.state import SimError


@dataclass
class Instr:
    """One instruction: ``@guard opcode operands;`` at PTX line ``line``."""
    opcode: str
    operands: list
    line: int
    text: str
    guard: str | None = None       # predicate register name
    guard_negated: bool = False

    def __post_init__(self):
        #: The opcode's dot-separated words, split once (the decoders ask many times;
        #: read the list, do not change it). A plain attribute, not a field: equality,
        #: repr and dataclasses.replace see the six fields only.
        self.parts: list[str] = self.opcode.split(".")


@dataclass
class SharedVar:
    name: str
    align: int
    size: int | None  # None: the extern (dynamic) segment


@dataclass
class Param:
    name: str
    ptx_type: str  # ".u64", ".b32", ...
    is_pointer: bool = False
    #: bytes of a by-value array parameter (``.param .align 64 .b8 name[128]``, a
    #: ``__grid_constant__`` CUtensorMap), else None
    size: int | None = None


@dataclass
class Entry:
    name: str
    params: list[Param] = field(default_factory=list)
    regs: dict[str, str] = field(default_factory=dict)  # register name -> type (".b32")
    reg_prefixes: dict[str, tuple[str, int]] = field(default_factory=dict)  # "%r" -> (type, n)
    shared: list[SharedVar] = field(default_factory=list)
    instructions: list[Instr] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> instruction index
    #: ``tlist: .branchtargets l0, l1, ...;`` -> [l0, l1, ...] (the target lists of brx.idx)
    branch_targets: dict[str, list[str]] = field(default_factory=dict)
    directives: dict[str, tuple[int, ...]] = field(default_factory=dict)
    end_line: int = 0

    def reg_type(self, name: str) -> str | None:
        """The declared type of a register (``%r12`` through ``.reg .b32 %r<53>``)."""
        if name in self.regs:
            return self.regs[name]
        m = _NUMBERED.fullmatch(name)
        if m and m.group(1) in self.reg_prefixes:
            ty, n = self.reg_prefixes[m.group(1)]
            if int(m.group(2)) < n:
                return ty
        return None


@dataclass
class Module:
    version: str = ""
    target: str = ""
    address_size: int = 64
    shared: list[SharedVar] = field(default_factory=list)  # module-scope .shared variables
    entries: list[Entry] = field(default_factory=list)

    def entry(self, name: str | None = None) -> Entry:
        """The entry named ``name`` (or the only one)."""
        if name is None:
            if len(self.entries) != 1:
                raise SimError(f"the PTX has {len(self.entries)} entries; name one")
            return self.entries[0]
        for e in self.entries:
            if e.name == name:
                return e
        raise SimError(f"no .entry named {name} in the PTX")


class PtxParseError(SimError):
    """The PTX text is not in the subset this parser reads."""


# -- lexical helpers (strip_comments, parse_int, split_top: sim/ptx_text.py) ---------------
class _Lines:
    def __init__(self, text: str):
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.text_lines = text.split("\n")

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def text(self, line: int) -> str:
        return self.text_lines[line - 1] if 0 < line <= len(self.text_lines) else ""


_NEWLINE = re.compile(r"\n")
_ENTRY = re.compile(r"(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)\s*\(")
# compiled once (not looked up in re's cache at every use)
_NUMBERED = re.compile(r"(%[A-Za-z_$]+)(\d+)")               # %r12 of .reg .b32 %r<53>
_REG_DECL = re.compile(r"\.reg\s+(?:\.v\d\s+)?(\.\w+)\s+(.*)$")
_REG_RANGE = re.compile(r"([%\w$]+)<(\d+)>")


# -- the parser ---------------------------------------------------------------------------------
_LINE_DIRECTIVE = re.compile(r"\.(loc|file)\b")
_SPACES = re.compile(r"\s*")
_BRACES = re.compile(r"[{}]")
_BRACES_OR_SEMI = re.compile(r"[{};]")
_LABEL = re.compile(r"([\w$]+)\s*:(?!:)")
_GUARD = re.compile(r"@(!?)([%\w$]+)\s+")

def parse(text: str) -> Module:
    """Parses PTX text into a Module. Raises PtxParseError naming the line."""
    clean = strip_comments(text)
    lines = _Lines(text)
    module = Module()
    pos = 0
    n = len(clean)
    while pos < n:
        m = _SPACES.match(clean, pos)
        pos = m.end()
        if pos >= n:
            break
        entry_m = _ENTRY.match(clean, pos)
        if entry_m:
            name = entry_m.group(1)
            entry, pos = _parse_entry(clean, entry_m.end(), name, lines)
            module.entries.append(entry)
            continue
        section = _SECTION.match(clean, pos)
        if section:
            pos = _skip_section(clean, section.end(), lines)
            continue
        semi = clean.find(";", pos)
        nl = clean.find("\n", pos)
        stmt_end = semi if semi != -1 and (nl == -1 or semi < nl) else (nl if nl != -1 else n)
        stmt = clean[pos:stmt_end].strip()
        _module_directive(module, stmt, lines.line_of(pos), lines)
        pos = stmt_end + 1
    return module


_SECTION = re.compile(r"\.section\s+[\w.$]+\s*\{")


def _skip_section(clean: str, pos: int, lines: _Lines) -> int:
    """The offset after a module-scope ``.section name { ... }`` (PTX ISA 11.5.2,
    debugging directives: the DWARF sections a compiler emits with -g). Its ``.b8`` /
    ``.b32`` / ``.b64`` data and labels are debug information only: nothing runs them."""
    close = clean.find("}", pos)
    if close == -1:
        raise PtxParseError(".section without a closing brace", lines.line_of(pos),
                            lines.text(lines.line_of(pos)))
    return close + 1


def _module_directive(module: Module, stmt: str, line: int, lines: _Lines) -> None:
    if not stmt:
        return
    words = stmt.split()
    if words[0] == ".version":
        module.version = words[1]
    elif words[0] == ".target":
        module.target = words[1].rstrip(",")
    elif words[0] == ".address_size":
        module.address_size = int(words[1])
    elif ".shared" in words:
        module.shared.append(_shared_var(stmt, line, lines))
    elif words[0] in (".file", ".loc", ".section", ".global", ".const", ".extern",
                      ".visible", ".func") and ".shared" not in words:
        if words[0] in (".func",) or ".func" in words:
            raise PtxParseError(".func bodies are not supported by the simulator", line,
                                lines.text(line))
    else:
        raise PtxParseError(f"unexpected module-scope statement '{stmt[:60]}'", line,
                            lines.text(line))


def _shared_var(stmt: str, line: int, lines: _Lines) -> SharedVar:
    m = re.search(r"(?:\.align\s+(\d+)\s+)?\.(?:b|u|s|f)(\d+)\s+([\w$]+)\s*\[(\d*)\]", stmt)
    if not m:
        m2 = re.search(r"(?:\.align\s+(\d+)\s+)?\.(?:b|u|s|f)(\d+)\s+([\w$]+)\s*$", stmt)
        if not m2:
            raise PtxParseError(f"cannot read shared variable '{stmt}'", line, lines.text(line))
        align = int(m2.group(1) or int(m2.group(2)) // 8)
        return SharedVar(m2.group(3), align, int(m2.group(2)) // 8)
    elem = int(m.group(2)) // 8
    align = int(m.group(1) or elem)
    size = int(m.group(4)) * elem if m.group(4) else None
    if ".extern" not in stmt.split() and size is None:
        raise PtxParseError(f"shared array '{m.group(3)}' without a size", line,
                            lines.text(line))
    return SharedVar(m.group(3), align, size)


def _parse_entry(clean: str, pos: int, name: str, lines: _Lines) -> tuple[Entry, int]:
    entry = Entry(name)
    close = clean.find(")", pos)
    for p in split_top(clean[pos:close]):
        if not p:
            continue
        words = p.split()
        ptype = next((w for w in words if re.fullmatch(r"\.[bsuf]\d+|\.pred", w)), None)
        array = re.fullmatch(r"([\w$]+)\s*\[(\d+)\]", words[-1])
        if array:  # a by-value array (PTX ISA 5.1.6.1, kernel parameters)
            elem = int(ptype[2:]) // 8 if ptype else 1
            entry.params.append(Param(array.group(1), ptype or ".b8", False,
                                      int(array.group(2)) * elem))
            continue
        entry.params.append(Param(words[-1], ptype or ".b64", ".ptr" in words))
    pos = close + 1
    body = clean.find("{", pos)
    for d in re.findall(r"\.(\w+)([^.{]*)", clean[pos:body]):
        nums = tuple(int(x) for x in re.findall(r"\d+", d[1]))
        entry.directives[d[0]] = nums
    end = _EntryBody(entry, clean, lines).run(body + 1)
    return entry, end


class _EntryBody:
    """Reads the statements of an entry body, tracking brace scopes."""

    def __init__(self, entry: Entry, clean: str, lines: _Lines):
        self.entry, self.clean, self.lines = entry, clean, lines
        self.scope_stack = [0]
        self.scopes = (0,)   # scope_stack as a tuple (each statement keeps it)
        self.next_scope = 1
        self.local_names: dict[tuple[int, str], str] = {}  # (scope, name) -> renamed
        self.pending: list[tuple[tuple[int, ...], str, int]] = []  # (scopes, stmt, offset)
        self.last_label: str | None = None

    def run(self, pos: int) -> int:
        clean, n = self.clean, len(self.clean)
        while pos < n:
            pos = _SPACES.match(clean, pos).end()   # \s is str.isspace's set
            if pos >= n:
                break
            c = clean[pos]
            if c == "{":
                self.scope_stack.append(self.next_scope)
                self.scopes = tuple(self.scope_stack)
                self.next_scope += 1
                pos += 1
                continue
            if c == "}":
                if len(self.scope_stack) == 1:
                    self.entry.end_line = self.lines.line_of(pos)
                    self._finish()
                    return pos + 1
                self.scope_stack.pop()
                self.scopes = tuple(self.scope_stack)
                pos += 1
                continue
            if c == "." and _LINE_DIRECTIVE.match(clean, pos):   # (it starts with '.')
                # .loc / .file end at the line's end, not at a ';' (debugging directives):
                # read up to the ';' they would swallow the next statement
                newline = clean.find("\n", pos)
                pos = n if newline == -1 else newline + 1
                continue
            label = _LABEL.match(clean, pos)
            if label:
                self._declare(label.group(1))
                self.entry.labels[self._local(label.group(1))] = len(self.pending)
                self.last_label = self._local(label.group(1))
                pos = label.end()
                continue
            # (``_statement_end`` and ``_statement``'s first case, inline: most statements
            # are instructions without braces)
            end = clean.find(";", pos)
            if end == -1 or _BRACES.search(clean, pos, end) is not None:
                end = self._statement_end_nested(pos)
            stmt = clean[pos:end].strip()
            if stmt[:1] not in (".", ""):   # an instruction (or a guard): no directive
                self.pending.append((self.scopes, stmt, pos))
            else:
                self._statement(stmt, pos)
            pos = end + 1
        raise PtxParseError(f"entry {self.entry.name} has no closing brace")

    def _statement_end(self, pos: int) -> int:
        semi = self.clean.find(";", pos)
        if semi != -1 and _BRACES.search(self.clean, pos, semi) is None:
            return semi   # no brace before it: the first ';' is at depth 0
        return self._statement_end_nested(pos)

    def _statement_end_nested(self, pos: int) -> int:
        """The offset of the first ';' after `pos` outside braces, visiting only the
        braces and the ';'s (``_statement_end_by_char`` character by character)."""
        depth = 0
        for m in _BRACES_OR_SEMI.finditer(self.clean, pos):
            c = m.group()
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif depth == 0:
                return m.start()
        raise PtxParseError("statement without ';'", self.lines.line_of(pos),
                            self.lines.text(self.lines.line_of(pos)))

    def _statement_end_by_char(self, pos: int) -> int:
        """``_statement_end_nested`` character by character (tests compare them)."""
        depth = 0
        for i in range(pos, len(self.clean)):
            c = self.clean[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == ";" and depth == 0:
                return i
        raise PtxParseError("statement without ';'", self.lines.line_of(pos),
                            self.lines.text(self.lines.line_of(pos)))

    def _declare(self, name: str) -> None:
        scope = self.scope_stack[-1]
        if scope:
            self.local_names[(scope, name)] = f"{name}#{scope}"

    def _local(self, name: str) -> str:
        for scope in reversed(self.scope_stack):
            if (scope, name) in self.local_names:
                return self.local_names[(scope, name)]
        return name

    def _statement(self, stmt: str, offset: int) -> None:
        if stmt[:1] not in (".", ""):   # an instruction (or a guard): no directive
            self.pending.append((self.scopes, stmt, offset))
            return
        line = self.lines.line_of(offset)
        words = stmt.split()
        if not words:   # ';' with nothing before it: ptxas stops with a syntax error
            raise PtxParseError("an empty statement (a ';' with nothing before it)", line,
                                self.lines.text(line))
        if words[0] == ".reg":
            self._reg_decl(stmt, line)
            return
        if words[0] in (".shared",) or (words[0] == ".extern" and ".shared" in words):
            self.entry.shared.append(_shared_var(stmt, line, self.lines))
            return
        if words[0] == ".branchtargets":
            self._branch_targets(stmt, line)
            return
        if words[0].startswith(".") and words[0] not in (".pragma",):
            if words[0] in (".local", ".param", ".global"):
                raise PtxParseError(f"{words[0]} variables are not supported", line,
                                    self.lines.text(line))
            return  # .loc and similar annotations
        if words[0] == ".pragma":
            return
        self.pending.append((self.scopes, stmt, offset))

    def _branch_targets(self, stmt: str, line: int) -> None:
        """``tlist: .branchtargets l0, l1, ...;`` (PTX ISA 11.3.1, .branchtargets): the
        labels brx.idx may jump to, named by the label in front of the directive."""
        if self.last_label is None:
            raise PtxParseError(".branchtargets without a label naming it", line,
                                self.lines.text(line))
        targets = [t for t in split_top(stmt[len(".branchtargets"):]) if t]
        if not targets or not all(re.fullmatch(r"[\w$]+", t) for t in targets):
            raise PtxParseError(f"cannot read the target list '{stmt}'", line,
                                self.lines.text(line))
        self.entry.branch_targets[self.last_label] = targets

    def _reg_decl(self, stmt: str, line: int) -> None:
        m = _REG_DECL.match(stmt)
        if not m:
            raise PtxParseError(f"cannot read '{stmt}'", line, self.lines.text(line))
        ty = m.group(1)
        for item in split_top(m.group(2)):
            rng = _REG_RANGE.fullmatch(item)
            if rng:
                if self.scope_stack[-1]:
                    raise PtxParseError("register ranges inside blocks are not supported",
                                        line, self.lines.text(line))
                self.entry.reg_prefixes[rng.group(1)] = (ty, int(rng.group(2)))
                continue
            self._declare(item)
            self.entry.regs[self._local_at(item)] = ty

    def _local_at(self, name: str) -> str:
        return self.local_names.get((self.scope_stack[-1], name), name)

    def _finish(self) -> None:
        # an operand's text read once per name resolution (a scope's, or the one of every
        # scope whose blocks declare nothing, ``_same_name``): operands are immutable, so
        # equal texts share their object; a block's text that contains none of the names
        # its blocks declare reads as the entry's does, and shares the entry's object
        # (``_instruction``'s `entry`)
        operands: dict[object, dict] = {}
        resolvers: dict[tuple, object] = {}   # scopes -> its name resolution, made once
        declared: dict[int, dict[str, str]] = {}   # scope -> its local names, renamed
        for (scope, name), renamed in self.local_names.items():
            declared.setdefault(scope, {})[name] = renamed
        line_of, text_of = self.lines.line_of, self.lines.text
        words: dict[str, list[str]] = {}   # opcode text -> its words, shared (this parse)
        entry_known = operands[_same_name] = {}
        for scopes, stmt, offset in self.pending:
            line = line_of(offset)
            resolve = resolvers.get(scopes)
            if resolve is None:
                resolve = resolvers[scopes] = _resolver(scopes, declared)
            known = operands.get(resolve)
            if known is None:
                known = operands[resolve] = {}
            self.entry.instructions.append(
                _instruction(stmt, line, text_of(line), resolve, known, words,
                             entry_known))


def _resolver(scopes: tuple[int, ...], declared: dict[int, dict[str, str]]):
    """``resolve(name)`` in the nest of `scopes` (outermost first): the name an
    enclosing block declared, the innermost one's first, renamed ``name#N``; else the
    name itself. Its ``names``: those the blocks declare."""
    visible: dict[str, str] = {}
    for scope in scopes:   # inner declarations replace outer ones
        visible.update(declared.get(scope, ()))
    if not visible:
        return _same_name

    def resolve(name: str) -> str:
        return visible.get(name, name)
    resolve.names = tuple(visible)
    return resolve


def _same_name(name: str) -> str:
    """The resolution where no enclosing block declares a name."""
    return name


def _instruction(stmt: str, line: int, text: str, resolve, known: dict | None = None,
                 words: dict | None = None, entry: dict | None = None) -> Instr:
    """The instruction `stmt`; `known`: operands already read in its scope, by text;
    `words`: the opcode texts' ``parts`` lists already made, shared by the instructions
    of one opcode text (``Instr.parts`` is read, never changed); `entry`: the operands
    read where no block declares a name (``_same_name``'s `known`), with which a block's
    resolution (``resolve.names``: the names its blocks declare) shares the texts that
    contain none of its names (every name looked up while reading an operand is part of
    its text: none of them is a block's, so the text reads as the entry reads it)."""
    guard, negated = None, False
    m = _GUARD.match(stmt) if stmt[:1] == "@" else None
    if m:
        negated = bool(m.group(1))
        guard = resolve(m.group(2))
        stmt = stmt[m.end():]
    parts = stmt.split(None, 1)
    opcode = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    known = {} if known is None else known
    names = () if entry is None or resolve is _same_name else resolve.names
    try:
        operands = []
        for item in (split_top(rest) if rest.strip() else ()):
            home = known
            if names:
                home = entry
                for name in names:
                    if name in item:
                        home = known
                        break
            operand = home.get(item)
            if operand is None:
                operand = home[item] = _operand(item, resolve)
            operands.append(operand)
    except ValueError as exc:
        raise PtxParseError(str(exc), line, text) from None
    if words is None:
        return Instr(opcode, operands, line, text, guard, negated)
    parts = words.get(opcode)
    if parts is None:
        parts = words[opcode] = opcode.split(".")
    return _with_parts(opcode, operands, line, text, guard, negated, parts)


def _with_parts(opcode: str, operands: list, line: int, text: str, guard: str | None,
                negated: bool, parts: list[str]) -> Instr:
    """``Instr(opcode, operands, line, text, guard, negated)`` with ``parts`` (equal to
    ``opcode.split(".")``) given: its attributes set in the dataclass's order, without
    its ``__init__`` and ``__post_init__``."""
    ins = object.__new__(Instr)
    ins.opcode, ins.operands, ins.line, ins.text = opcode, operands, line, text
    ins.guard, ins.guard_negated, ins.parts = guard, negated, parts
    return ins
