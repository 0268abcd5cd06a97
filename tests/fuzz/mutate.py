"""Structure-aware, seeded mutations of tcgen05 MLIR text.

Every operator takes the text and a ``random.Random`` and returns the mutated text and a
one-line description, or ``None`` when the text offers it nothing to mutate. The
operators know the shape of the project's inputs (generic-form ops, ``!tcgen05.*`` types,
attribute dictionaries, the ``tcgen05.kernel`` dictionary, ``scf.for`` loops) but work on
text, so a mutant may be anything from a one-character parse error to a valid kernel the
compiler has never seen. Pure Python: no MLIR, no ``tcgen05_lower``.

``Mutator(seeds).mutant(seed, index)`` is deterministic: it depends only on the seeds, the
campaign seed and the mutant's index (``random.Random(f"{seed}:{index}")``).
"""

from __future__ import annotations

import random
import re
import shlex
from dataclasses import dataclass, field

from .corpus import FLAGS_PREFIX, Seed

# -- values ------------------------------------------------------------------------------

ELEMENT_TYPES = ("f32", "f16", "bf16", "tf32", "f8E4M3FN", "f8E5M2", "f6E2M3FN", "f6E3M2FN",
                 "f4E2M1FN", "f8E8M0FNU", "i8", "i32", "f64", "i1")

#: Integers at the edges: zero, signs, 32- and 64-bit limits and just past them.
BOUNDARY_INTS = (0, -1, 1, 2, 3, 7, 255, 256, 65535, 65536, 2**31 - 1, 2**31, -2**31,
                 2**32, 2**32 + 1, 2**63 - 1, -2**63, 2**64)
#: Sizes a tile dimension plausibly has, and some it must not.
TILE_SIZES = (0, 1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 4096,
              3, 17, 127, 129, 255, 257, -1, -128, 2**31, 2**63 - 1)

TARGETS = ("sm_100a", "sm_100f", "sm_100", "sm_101a", "sm_101f", "sm_101", "sm_103a",
           "sm_103f", "sm_103", "sm_110a", "sm_110f", "sm_110", "sm_90a", "sm_120a", "sm_121a",
           "sm_80", "SM_100A", " sm_100a ", "sm_100a\\0A", "", "sm_", "sm_100b",
           "sm_99999999999999999999a", "sm_-100a", "compute_100a", "sm_1000a", "sm_100aa")

#: Known values of string attributes (the corpus adds what it uses).
ENUM_EXTRAS = {
    "kind": ("f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4", "ld", "st",
             "before_thread_sync", "after_thread_sync"),
    "shape": ("16x64b", "16x128b", "16x256b", "32x32b", "16x32bx2", "128x256b", "4x256b",
              "128x128b", "64x128b", "32x128b"),
    "scale_vec": ("1X", "2X", "4X", "block16", "block32"),
    "collector_a": ("fill", "use", "lastuse", "discard"),
    "collector_b": ("fill", "use", "lastuse", "discard"),
    "collector_b_op": ("b0", "b1", "b2", "b3"),
    "layout": ("A", "B", "C", "D", "E", "F", "G", "H"),
    "layout_c": ("F", "B", "C"),
    "role": ("d", "a", "scale_a", "scale_b", "metadata"),
    "src_layout": ("mn_k", "k_mn"),
    "multicast": ("warpx2::02_13", "warpx2::01_23", "warpx4"),
    "op": ("min", "max", "add"),
    "stage_layout": ("columns", "lanes"),
    "major": ("K", "MN"),
    "swizzle": ("none", "32B", "64B", "128B", "128B_base32B"),
}

#: Values of every kind, for an attribute given a value of the wrong kind.
ODD_VALUES = ('"1"', '"f16"', '""', "1 : i64", "-1 : i64", "0 : i32", "1 : i1", "true",
              "false", "unit", "1.5 : f32", "0x7FC00000 : f32", "array<i32: 1, 2>",
              "array<i32>", "array<i64: 3>", "[1, 2]", "[]", "{}", "{a = 1 : i64}", "@k",
              "i32", "dense<1> : tensor<2xi32>", "2147483648 : i64", "1 : si8", "1 : ui64",
              "1 : index", "affine_map<(d0) -> (d0)>", "9223372036854775807 : i64",
              "-9223372036854775808 : i64")

INT_TYPES = ("i64", "i32", "i16", "i8", "i1", "si64", "ui64", "si32", "ui8", "index")

RAW_ALPHABET = '{}()[]<>,:=%@!"#^-+.x0123456789aAfiz_ \n'

# The first line of a mutant may carry the command-line flags it is compiled with, as
# tcgen05-lower takes them (corpus.FLAGS_PREFIX; worker.py reads the line, seeds may have
# one): ``// fuzz-flags: --arch sm_103a --pass-option 'tcgen05-plan-tmem{node-limit=abc}'``.

#: --arch values: the targets, valid and not.
ARCH_VALUES = TARGETS + ("sm_100a", "sm_103a", "sm_110a", "sm_100f")

#: The options of the tcgen05 passes (without plan-tmem's json= and svg=, which write
#: files), and an option none of them has.
PASS_OPTIONS = {
    "tcgen05-select-layouts": ("strategy", "shape", "layout-c", "report"),
    "tcgen05-plan-tmem": ("strategy", "report", "node-limit"),
    "tcgen05-insert-sync": ("strategy", "report", "ring-stages"),
    "tcgen05-verify-sync": ("report", "partitions"),
    "tcgen05-verify": (),
    "tcgen05-lower-to-llvm": (),
    "tcgen05-bogus": ("x",),
}
#: Option values, good and bad, per option; every option also gets OPTION_GARBAGE.
#: node-limit stays small: a valid limit of millions is a long search on request.
OPTION_VALUES = {
    "strategy": ("first-fit", "optimal", "no-reuse", "minimal", "conservative", "none",
                 "max-width", "register-budget=16", "register-budget", "register-budget=2",
                 "register-budget=-1"),
    "shape": ("auto", "32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2", "64x64b"),
    "layout-c": ("F", "B", "C"),
    "report": ("true", "false", "1", "0", "maybe"),
    "node-limit": ("1", "2", "100", "0", "-1", "1.5", "abc", "2147483648", "1e3"),
    "ring-stages": ("kernel", "auto", "1", "2", "3", "4", "256", "257", "0", "-1"),
    "partitions": ("check", "refuse", "skip", "maybe"),
}
OPTION_GARBAGE = ("", "abc", "1.5", "-1", "{", "}", "a=b", "true")


def split_flags(text: str) -> tuple[list[str], str]:
    """The flags of `text`'s FLAGS_PREFIX line (shell words), and the text without it;
    no flags if the first line is not one or does not split (an unbalanced quote)."""
    first, newline, rest = text.partition("\n")
    if not first.startswith(FLAGS_PREFIX):
        return [], text
    try:
        return shlex.split(first[len(FLAGS_PREFIX):]), rest
    except ValueError:
        return [], text


def with_flags(text: str, flags: list[str]) -> str:
    """`text` (without a flags line) with a FLAGS_PREFIX line for `flags`, if any."""
    if not flags:
        return text
    return f"{FLAGS_PREFIX} {' '.join(shlex.quote(f) for f in flags)}\n{text}"


def flag_values(flags: list[str]) -> tuple[str | None, list[str]]:
    """(--arch value or None, --pass-option values) of `flags`; other words are ignored."""
    arch, options = None, []
    for k, word in enumerate(flags[:-1]):
        if word == "--arch":
            arch = flags[k + 1]
        elif word == "--pass-option":
            options.append(flags[k + 1])
    return arch, options


# -- lexical helpers -----------------------------------------------------------------------

_INT = re.compile(r"(?<![\w%@#$.])-?\d+(?![\w.])")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_TCGEN05_TYPE = re.compile(r"!tcgen05\.(tmem|smem|frag)<\[([^\]]*)\]([^>]*)>")
_ATTR_DICT = re.compile(r"\)\s*(\{[^{}\n]*\})")
_KERNEL_DICT = re.compile(r"tcgen05\.kernel\s*=\s*(\{[^{}]*\})")
_ENUM = re.compile(r'(?<![%\w.$])([A-Za-z_][\w]*)\s*=\s*"((?:[^"\\\n]|\\.)*)"')
_KEY = re.compile(r"(?<![\w.$%@#!])([A-Za-z_][\w$]*)\s*=")
_CONSTANT = re.compile(
    r"(%[\w$.-]+)\s*=\s*arith\.constant\s+(-?\d+|true|false|-?\d+\.\d*(?:e[+-]?\d+)?"
    r"|0x[0-9A-Fa-f]+)\s*(?::\s*([\w]+))?")
_INT_SUFFIX = re.compile(r"(?<=\d) : (i64|i32|i16|i8|si\d+|ui\d+)\b")
_FOR = re.compile(r"scf\.for\s+(%[\w$.-]+)\s*=\s*(%[\w$.-]+)\s+to\s+(%[\w$.-]+)\s+step\s+"
                  r"(%[\w$.-]+)(?:\s*:\s*(\w+))?")
_RESULTS = re.compile(r"^\s*(%[\w$.-]+(?::\d+)?(?:\s*,\s*%[\w$.-]+(?::\d+)?)*)\s*=")
_CONTINUATION_START = (":", "->", "!", ")", "]", ",", "attributes", "(", "[", "{", "=",
                       "iter_args", "do")
_CONTINUATION_END = (",", "(", "[", "=", "->", ":", "<")
#: A type alias definition (``!smem_128x64xbf16 = !tcgen05.smem<...>``, examples/).
_TYPE_ALIAS = re.compile(r"![\w.]+ = ")


def _code(line: str) -> str:
    """The line without strings and a trailing comment (for brace counting)."""
    line = _STRING.sub('""', line)
    cut = line.find("//")
    return line if cut < 0 else line[:cut]


def _brace_delta(line: str) -> int:
    code = _code(line)
    return code.count("{") - code.count("}")


@dataclass
class Statement:
    """Lines [start, end) of one op (with its regions, if any), inside `parent`."""
    start: int
    end: int
    parent: int  # index of the enclosing statement in the list, -1 at top level
    region: bool
    results: list[str] = field(default_factory=list)


def statements(text: str) -> list[Statement]:
    """The op statements of `text`, nested ones included (a region op's statement spans
    its regions). Structural lines (``}``, ``} else {``, block labels) belong to none."""
    lines = text.split("\n")
    found: list[Statement] = []

    def is_continuation(k: int, lo: int) -> bool:
        if _TYPE_ALIAS.match(lines[k]):   # `!name = type` at the top: a statement of its own
            return False
        stripped = lines[k].strip()
        if stripped.startswith(_CONTINUATION_START):
            return True
        prev = k - 1
        while prev >= lo and not _code(lines[prev]).strip():
            prev -= 1
        return prev >= lo and _code(lines[prev]).rstrip().endswith(_CONTINUATION_END)

    def scan(lo: int, hi: int, parent: int) -> None:
        k = lo
        while k < hi:
            stripped = _code(lines[k]).strip()
            if not stripped or stripped.startswith(("}", "^", ")")):
                k += 1
                continue
            start = k
            depth = _brace_delta(lines[k])
            k += 1
            while k < hi and depth == 0 and _code(lines[k]).strip() \
                    and is_continuation(k, start):
                depth += _brace_delta(lines[k])
                k += 1
            region = depth > 0
            header_end = k
            while k < hi and depth > 0:
                depth += _brace_delta(lines[k])
                k += 1
            if region and depth > 0:  # unbalanced: give up on this one
                return
            match = _RESULTS.match(lines[start])
            results = [r.strip().split(":")[0] for r in match.group(1).split(",")] \
                if match else []
            found.append(Statement(start, k, parent, region, results))
            if region:
                scan(header_end, k - 1, len(found) - 1)

    scan(0, len(lines), -1)
    return found


def _split_entries(body: str) -> list[str]:
    """The comma-separated entries of a dictionary body, brackets and strings respected."""
    entries, depth, current, k = [], 0, "", 0
    while k < len(body):
        ch = body[k]
        if ch == '"':
            match = _STRING.match(body, k)
            if match:
                current += match.group(0)
                k = match.end()
                continue
        if ch in "<[({":
            depth += 1
        elif ch in ">])}" and depth > 0 and not (ch == ">" and body[k - 1] == "-"):
            depth -= 1
        if ch == "," and depth == 0:
            entries.append(current.strip())
            current = ""
        else:
            current += ch
        k += 1
    if current.strip():
        entries.append(current.strip())
    return entries


def _misspell(name: str, rng: random.Random, known: list[str]) -> str:
    choice = rng.randrange(8)
    if choice == 0 and len(name) > 1:
        k = rng.randrange(len(name))
        return name[:k] + name[k + 1:]
    if choice == 1 and len(name) > 1:
        k = rng.randrange(len(name) - 1)
        return name[:k] + name[k + 1] + name[k] + name[k + 2:]
    if choice == 2:
        k = rng.randrange(len(name))
        return name[:k] + name[k] + name[k:]
    if choice == 3:
        return name[0].upper() + name[1:]
    if choice == 4:
        return name + "s"
    if choice == 5 and "_" in name:
        return name.replace("_", "", 1)
    if choice == 6 and known:
        return rng.choice(known)
    return name + "_"


def _pick_int(rng: random.Random, original: int | None, pool=BOUNDARY_INTS) -> int:
    choice = rng.randrange(10)
    if choice < 5 or original is None:
        return rng.choice(pool)
    if choice == 5:
        k = rng.randrange(1, 64)
        return 2**k + rng.choice((-1, 1))
    if choice == 6:
        return rng.randrange(1, 1 << rng.randrange(2, 33), 2)  # odd
    if choice == 7:
        return original + rng.choice((-1, 1, -8, 8, 16))
    if choice == 8:
        return rng.choice((original * 2, original // 2, original * 3, -original))
    return 2**rng.randrange(0, 64)


def _swap_group(text, rng, matches, group, choices, what):
    """Replaces group `group` of one of `matches` by another of `choices`: the mutant and
    its description (`what` with {old} and {new}), or None without a match."""
    if not matches:
        return None
    m = rng.choice(matches)
    new = rng.choice([c for c in choices if c != m.group(group)])
    start, end = m.span(group)
    return (_replace_span(text, start, end, new),
            what.format(old=m.group(group), new=new) + f" (line {_line_of(text, start)})")


def _replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


# -- the mutator ---------------------------------------------------------------------------

@dataclass
class Mutant:
    index: int
    seed_name: str
    text: str
    mutations: list[str]


class Mutator:
    """Mutation operators, with value pools gathered from the seeds."""

    def __init__(self, seeds: list[Seed]):
        if not seeds:
            raise ValueError("no seeds")
        self.seeds = list(seeds)
        self.enums: dict[str, set[str]] = {k: set(v) for k, v in ENUM_EXTRAS.items()}
        self.attr_names: set[str] = set()
        for seed in self.seeds:
            for match in _ENUM.finditer(seed.text):
                key, value = match.groups()
                if not value.startswith("tcgen05.") and key not in ("reason",):
                    self.enums.setdefault(key, set()).add(value)
            for match in _ATTR_DICT.finditer(seed.text):
                for key in _KEY.findall(match.group(1)):
                    self.attr_names.add(key)
        self.enum_pools = {k: sorted(v) for k, v in self.enums.items()}
        self.attr_name_list = sorted(self.attr_names)
        self.operators = [
            (self.op_int_literal, 14), (self.op_constant, 8), (self.op_shape, 10),
            (self.op_element_type, 8), (self.op_string_enum, 12), (self.op_target, 4),
            (self.op_kernel_dict, 6), (self.op_delete_stmt, 8), (self.op_duplicate_stmt, 6),
            (self.op_swap_stmt, 6), (self.op_loop_bounds, 8), (self.op_attr_name, 8),
            (self.op_attr_kind, 6), (self.op_raw_chars, 6), (self.op_int_suffix, 3), (self.op_replace_use, 6),
            (self.op_arch_flag, 2), (self.op_pass_option_flag, 3),
        ]
        self.weights = [w for _, w in self.operators]

    # -- driving ---------------------------------------------------------------------------

    def mutate(self, text: str, rng: random.Random, count: int) -> tuple[str, list[str]]:
        done: list[str] = []
        for _ in range(count):
            for _attempt in range(30):
                op = rng.choices([o for o, _ in self.operators], self.weights)[0]
                out = op(text, rng)
                if out is not None and out[0] != text:
                    text = out[0]
                    done.append(out[1])
                    break
        return text, done

    def mutant(self, seed: int, index: int) -> Mutant:
        rng = random.Random(f"{seed}:{index}")
        origin = rng.choice(self.seeds)
        count = rng.choices((1, 2, 3), (60, 25, 15))[0]
        text, done = self.mutate(origin.text, rng, count)
        return Mutant(index, origin.name, text, done)

    # -- command-line flags -----------------------------------------------------------------

    def op_arch_flag(self, text, rng):
        """Sets --arch (replacing one given before)."""
        flags, body = split_flags(text)
        arch = rng.choice(ARCH_VALUES)
        kept = []
        k = 0
        while k < len(flags):
            if flags[k] == "--arch":
                k += 2
                continue
            kept.append(flags[k])
            k += 1
        return with_flags(body, kept + ["--arch", arch]), f"flag --arch {arch!r}"

    def op_pass_option_flag(self, text, rng):
        """Adds a --pass-option: a pass's option set to a value, good or bad."""
        flags, body = split_flags(text)
        name = rng.choice(sorted(PASS_OPTIONS))
        options = PASS_OPTIONS[name] + ("bogus",)
        option = rng.choice(options)
        value = rng.choice(OPTION_VALUES.get(option, ()) + OPTION_GARBAGE)
        element = f"{name}{{{option}={value}}}"
        return (with_flags(body, flags + ["--pass-option", element]),
                f"flag --pass-option {element!r}")

    # -- numbers ---------------------------------------------------------------------------

    def op_int_literal(self, text, rng):
        matches = list(_INT.finditer(text))
        if rng.random() < 0.85:  # a type's dimensions: op_shape changes every occurrence
            in_types = [range(*m.span()) for m in re.finditer(r"![\w.]+<[^>]*>", text)]
            matches = [m for m in matches if not any(m.start() in r for r in in_types)]
        if not matches:
            return None
        m = rng.choice(matches)
        new = _pick_int(rng, int(m.group(0)))
        return (_replace_span(text, m.start(), m.end(), str(new)),
                f"integer {m.group(0)} -> {new} (line {_line_of(text, m.start())})")

    def op_constant(self, text, rng):
        matches = list(_CONSTANT.finditer(text))
        if not matches:
            return None
        m = rng.choice(matches)
        value, ty = m.group(2), m.group(3)
        if value in ("true", "false"):
            new = {"true": "false", "false": "true"}[value]
        elif "." in value or (ty or "").startswith(("f", "bf", "tf")):
            new = rng.choice(("0.0", "-0.0", "1.0e+38", "-1.5", "0x7FC00000", "0x7F800000"))
        else:
            new = str(_pick_int(rng, int(value, 0)))
        start, end = m.span(2)
        return (_replace_span(text, start, end, new),
                f"constant {m.group(1)} = {value} -> {new} (line {_line_of(text, start)})")

    def op_int_suffix(self, text, rng):
        return _swap_group(text, rng, list(_INT_SUFFIX.finditer(text)), 1, INT_TYPES,
                           "integer type {old} -> {new}")

    # -- types -----------------------------------------------------------------------------

    def _retype(self, text, rng, old: str, new: str, what: str):
        positions = [m.start() for m in re.finditer(re.escape(old), text)]
        if rng.random() < 0.9:
            out = text.replace(old, new)
            where = "everywhere"
        else:
            pos = rng.choice(positions)
            out = _replace_span(text, pos, pos + len(old), new)
            where = f"line {_line_of(text, pos)} only"
        return out, f"{what}: {old} -> {new} ({where})"

    def op_shape(self, text, rng):
        types = sorted({m.group(0) for m in _TCGEN05_TYPE.finditer(text)})
        if not types:
            return None
        old = rng.choice(types)
        m = _TCGEN05_TYPE.fullmatch(old)
        dims = [x.strip() for x in m.group(2).split(",") if x.strip()]
        choice = rng.randrange(10)
        if choice < 6 and dims:
            k = rng.randrange(len(dims))
            try:
                original = int(dims[k])
            except ValueError:
                original = None
            dims[k] = str(_pick_int(rng, original, TILE_SIZES))
        elif choice == 6:
            dims.insert(0, str(rng.choice((1, 2, 3, 4, 0))))
        elif choice == 7 and dims:
            del dims[rng.randrange(len(dims))]
        elif choice == 8 and len(dims) > 1:
            k = rng.randrange(len(dims) - 1)
            dims[k], dims[k + 1] = dims[k + 1], dims[k]
        else:
            dims.append(str(rng.choice(TILE_SIZES)))
        new = f"!tcgen05.{m.group(1)}<[{', '.join(dims)}]{m.group(3)}>"
        return self._retype(text, rng, old, new, "tile shape")

    def op_element_type(self, text, rng):
        types = sorted({m.group(0) for m in _TCGEN05_TYPE.finditer(text)})
        if not types:
            return None
        old = rng.choice(types)
        m = _TCGEN05_TYPE.fullmatch(old)
        params = _split_entries(m.group(3).lstrip(","))
        if not params:
            return None
        params[0] = rng.choice([t for t in ELEMENT_TYPES if t != params[0]])
        new = f"!tcgen05.{m.group(1)}<[{m.group(2)}], {', '.join(params)}>"
        return self._retype(text, rng, old, new, "element type")

    # -- strings ---------------------------------------------------------------------------

    def _new_string(self, rng, key: str, value: str) -> str:
        pool = [v for v in self.enum_pools.get(key, ()) if v != value]
        if pool and rng.random() < 0.8:
            return rng.choice(pool)
        junk = ["", " ", value.upper(), value.lower(), value[:-1], value + "x", value * 2,
                "none", "?", value + "\\00"]
        return rng.choice([j for j in junk if j != value] or ["x"])

    def op_string_enum(self, text, rng):
        candidates = []
        for m in _ENUM.finditer(text):
            if m.group(1) not in ("target",) and not m.group(2).startswith("tcgen05."):
                candidates.append(("attr", m))
        for m in _TCGEN05_TYPE.finditer(text):
            if m.group(1) == "smem":
                candidates.append(("type", m))
        if not candidates:
            return None
        kind, m = rng.choice(candidates)
        if kind == "attr":
            key, value = m.groups()
            new = self._new_string(rng, key, value)
            start, end = m.span(2)
            return (_replace_span(text, start, end, new),
                    f'{key} = "{value}" -> "{new}" (line {_line_of(text, start)})')
        old = m.group(0)
        params = _split_entries(m.group(3).lstrip(","))
        slots = [k for k, p in enumerate(params) if p.startswith('"')]
        if not slots:
            return None
        k = rng.choice(slots)
        key = "major" if k == slots[0] else "swizzle"
        params[k] = '"' + self._new_string(rng, key, params[k].strip('"')) + '"'
        new = f"!tcgen05.smem<[{m.group(2)}], {', '.join(params)}>"
        return self._retype(text, rng, old, new, f"tile {key}")

    def op_target(self, text, rng):
        targets = [m for m in _ENUM.finditer(text) if m.group(1) == "target"]
        return _swap_group(text, rng, targets, 2, TARGETS, 'target "{old}" -> "{new}"')

    # -- the kernel dictionary -------------------------------------------------------------

    def op_kernel_dict(self, text, rng):
        matches = list(_KERNEL_DICT.finditer(text))
        if not matches:
            return None
        m = rng.choice(matches)
        entries = _split_entries(m.group(1)[1:-1])
        choice = rng.choices(range(9), (3, 3, 3, 2, 1, 1, 1, 1, 3))[0]
        what = ""
        if choice == 0 and entries:
            gone = entries.pop(rng.randrange(len(entries)))
            what = f"entry {gone!r} removed"
        elif choice == 1 and entries:
            k = rng.randrange(len(entries))
            key, _, value = entries[k].partition("=")
            key = key.strip()
            new = rng.choice(ODD_VALUES + ("128 : i32", "0 : i64", "-1 : i64", "2 : i64",
                                           "3 : i64", "256 : i64", "96 : i64", '"128"'))
            entries[k] = f"{key} = {new}"
            what = f"entry {key} = {value.strip()} -> {new}"
        elif choice == 2 and entries:
            k = rng.randrange(len(entries))
            key, _, value = entries[k].partition("=")
            new = _misspell(key.strip(), rng, ["target", "threads", "cta_group", "cluster",
                                               "warps", "arch"])
            entries[k] = f"{new} ={value}"
            what = f"key {key.strip()} -> {new}"
        elif choice == 3:
            key = rng.choice(("cluster", "warps", "arch", "smem", "threads_per_block"))
            entries.insert(rng.randrange(len(entries) + 1), f"{key} = {rng.choice(ODD_VALUES)}")
            what = f"unknown entry {key} added"
        elif choice == 4 and entries:
            k = rng.randrange(len(entries))
            entries.insert(k, entries[k])
            what = f"entry {entries[k]!r} duplicated"
        elif choice == 5 and len(entries) > 1:
            rng.shuffle(entries)
            what = "entries reordered"
        elif choice == 6:
            new = rng.choice(("unit", '"sm_100a"', "{}", "[1]", "1 : i64", "true"))
            return (_replace_span(text, m.start(1), m.end(1), new),
                    f"tcgen05.kernel dictionary -> {new}")
        elif choice == 7:
            # the whole attribute goes (with its comma, if it has company)
            start, end = m.span()
            before = text[:start].rstrip()
            if before.endswith(","):
                start = len(before) - 1
            elif text[end:].lstrip().startswith(","):
                end = end + text[end:].index(",") + 1
            return _replace_span(text, start, end, ""), "tcgen05.kernel attribute removed"
        else:
            key = rng.choice(("threads", "cta_group"))
            value = _pick_int(rng, 128 if key == "threads" else 1)
            entries = [e for e in entries if not e.startswith(key)] + [f"{key} = {value} : i64"]
            what = f"{key} = {value}"
        new = "{" + ", ".join(entries) + "}"
        return (_replace_span(text, m.start(1), m.end(1), new),
                f"tcgen05.kernel: {what} (line {_line_of(text, m.start())})")

    # -- op lines --------------------------------------------------------------------------

    def op_delete_stmt(self, text, rng):
        stmts = statements(text)
        if not stmts:
            return None
        s = rng.choice(stmts)
        lines = text.split("\n")
        gone = lines[s.start].strip()
        del lines[s.start:s.end]
        return "\n".join(lines), f"deleted line {s.start + 1}: {gone[:80]}"

    def op_duplicate_stmt(self, text, rng):
        stmts = [s for s in statements(text) if s.parent >= 0]
        if not stmts:
            return None
        s = rng.choice(stmts)
        lines = text.split("\n")
        copy = lines[s.start:s.end]
        for name in s.results:
            copy[0] = re.sub(re.escape(name) + r"(?![\w$.-])", name + "_dup", copy[0], count=1)
        at = s.end if rng.random() < 0.7 else s.start
        lines[at:at] = copy
        return "\n".join(lines), f"duplicated line {s.start + 1}: {lines[at].strip()[:80]}"

    def op_swap_stmt(self, text, rng):
        stmts = statements(text)
        pairs = []
        by_parent: dict[int, list[Statement]] = {}
        for s in stmts:
            by_parent.setdefault(s.parent, []).append(s)
        lines = text.split("\n")
        terminators = ("return", "scf.yield", "scf.condition", "cf.br", "cf.cond_br",
                       "func.return")
        for siblings in by_parent.values():
            pairs.extend((a, b) for a, b in zip(siblings, siblings[1:])
                         if not lines[b.start].strip().startswith(terminators)
                         or rng.random() < 0.1)
        if not pairs:
            return None
        first, second = rng.choice(pairs)
        a, between, b = (lines[first.start:first.end], lines[first.end:second.start],
                         lines[second.start:second.end])
        lines[first.start:second.end] = b + between + a
        return ("\n".join(lines),
                f"swapped lines {first.start + 1} and {second.start + 1}: "
                f"{a[0].strip()[:50]} / {b[0].strip()[:50]}")

    def op_loop_bounds(self, text, rng):
        matches = list(_FOR.finditer(text))
        if not matches:
            return None
        m = rng.choice(matches)
        iv, lb, ub, step, ty = m.groups()
        ty = ty or "index"
        choice = rng.randrange(4)
        line = _line_of(text, m.start())
        if choice == 0:
            new = f"scf.for {iv} = {ub} to {lb} step {step}"
            what = "bounds swapped"
        elif choice == 1:
            new = f"scf.for {iv} = {lb} to {ub} step {lb}"
            what = f"step {step} -> {lb}"
        elif choice == 2:
            names = sorted({c.group(1) for c in _CONSTANT.finditer(text)
                            if (c.group(3) or "") == ty})
            if not names:
                return None
            slot = rng.randrange(3)
            parts = [lb, ub, step]
            parts[slot] = rng.choice(names)
            new = f"scf.for {iv} = {parts[0]} to {parts[1]} step {parts[2]}"
            what = f"{('lower bound', 'upper bound', 'step')[slot]} -> {parts[slot]}"
        else:
            value = _pick_int(rng, None, (0, 1, -1, 2, 3, 7, 31, 33, 63, 65, 4096, 1 << 20,
                                          2**31 - 1, 2**31, 2**63 - 1, -2**63))
            slot = rng.randrange(3)
            parts = [lb, ub, step]
            parts[slot] = "%fz"
            new = f"scf.for {iv} = {parts[0]} to {parts[1]} step {parts[2]}"
            line_start = text.rfind("\n", 0, m.start()) + 1
            indent = re.match(r"\s*", text[line_start:]).group(0)
            definition = f"{indent}%fz = arith.constant {value} : {ty}\n"
            if ty != "index":
                new += f" : {ty}"
            out = _replace_span(text, m.start(), m.end(), new)
            out = out[:line_start] + definition + out[line_start:]
            what = f"{('lower bound', 'upper bound', 'step')[slot]} -> {value}"
            return out, f"loop at line {line}: {what}"
        if m.group(5):
            new += f" : {ty}"
        return _replace_span(text, m.start(), m.end(), new), f"loop at line {line}: {what}"

    def op_replace_use(self, text, rng):
        """One use of an SSA value replaced by another value defined in the text (most
        type-check only when the two share a type: two buffers of one tile type, two
        index constants)."""
        lines = text.split("\n")
        type_of: dict[str, str] = {}
        for s in statements(text):
            if len(s.results) == 1 and not s.region:
                body = " ".join(x.strip() for x in lines[s.start:s.end])
                cut = max(body.rfind("->"), body.rfind(":"))
                type_of[s.results[0]] = body[cut:].lstrip("->: ").strip() if cut >= 0 else ""
        defined = sorted({name for s in statements(text) for name in s.results})
        if len(defined) < 2:
            return None
        uses = [m for m in re.finditer(r"%[\w$.-]+", text)
                if m.group(0) in defined and not re.match(r"\s*(,\s*%[\w$.-]+\s*)*[=:]",
                                                          text[m.end():m.end() + 40])]
        if not uses:
            return None
        m = rng.choice(uses)
        alike = [d for d in defined if d != m.group(0) and d in type_of
                 and type_of[d] == type_of.get(m.group(0))]
        new = rng.choice(alike if alike and rng.random() < 0.8
                         else [d for d in defined if d != m.group(0)])
        return (_replace_span(text, m.start(), m.end(), new),
                f"use of {m.group(0)} -> {new} (line {_line_of(text, m.start())})")

    # -- attributes ------------------------------------------------------------------------

    def _attr_dicts(self, text):
        return [m for m in _ATTR_DICT.finditer(text) if "=" in m.group(1)]

    def op_attr_name(self, text, rng):
        dicts = self._attr_dicts(text)
        choice = rng.choices(range(4), (4, 3, 1, 3))[0]
        if choice == 3 or not dicts:
            # an attribute added to an op, with a dictionary or without one
            ops = list(re.finditer(r'"tcgen05\.\w+"\([^()]*\)(\s*\{[^{}\n]*\})?', text))
            if not ops or not self.attr_name_list:
                return None
            m = rng.choice(ops)
            key = rng.choice(self.attr_name_list + ["bogus", "k", "num", "columns"])
            value = rng.choice(ODD_VALUES + ("0 : i64", "1 : i64", "16 : i64", '"f16"'))
            if m.group(1):
                start, end = m.span(1)
                body = m.group(1).strip()[1:-1].strip()
                new = " {" + (body + ", " if body else "") + f"{key} = {value}" + "}"
            else:
                start = end = m.end()
                new = f" {{{key} = {value}}}"
            return (_replace_span(text, start, end, new),
                    f"attribute {key} = {value} added (line {_line_of(text, start)})")
        m = rng.choice(dicts)
        entries = _split_entries(m.group(1)[1:-1])
        if not entries:
            return None
        k = rng.randrange(len(entries))
        key, _, value = entries[k].partition("=")
        key = key.strip()
        if choice == 0:
            new_key = _misspell(key, rng, self.attr_name_list)
            entries[k] = f"{new_key} ={value}"
            what = f"attribute {key} -> {new_key}"
        elif choice == 1:
            del entries[k]
            what = f"attribute {key} removed"
        else:
            entries.insert(k, entries[k])
            what = f"attribute {key} duplicated"
        new = "{" + ", ".join(entries) + "}"
        start, end = m.span(1)
        return _replace_span(text, start, end, new), f"{what} (line {_line_of(text, start)})"

    def op_attr_kind(self, text, rng):
        dicts = self._attr_dicts(text)
        if not dicts:
            return None
        m = rng.choice(dicts)
        entries = _split_entries(m.group(1)[1:-1])
        if not entries:
            return None
        k = rng.randrange(len(entries))
        key, _, value = entries[k].partition("=")
        new_value = rng.choice(ODD_VALUES)
        entries[k] = f"{key.strip()} = {new_value}"
        new = "{" + ", ".join(entries) + "}"
        start, end = m.span(1)
        return (_replace_span(text, start, end, new),
                f"attribute {key.strip()} = {value.strip()} -> {new_value} "
                f"(line {_line_of(text, start)})")

    # -- raw characters --------------------------------------------------------------------

    def op_raw_chars(self, text, rng):
        if not text:
            return None
        pos = rng.randrange(len(text))
        choice = rng.randrange(5)
        line = _line_of(text, pos)
        if choice == 0:
            n = rng.randint(1, 3)
            return _replace_span(text, pos, pos + n, ""), f"deleted {text[pos:pos + n]!r} (line {line})"
        if choice == 1:
            ch = rng.choice(RAW_ALPHABET)
            return _replace_span(text, pos, pos, ch), f"inserted {ch!r} (line {line})"
        if choice == 2:
            ch = rng.choice(RAW_ALPHABET)
            return (_replace_span(text, pos, pos + 1, ch),
                    f"replaced {text[pos]!r} by {ch!r} (line {line})")
        if choice == 3:
            n = rng.randint(1, 12)
            piece = text[pos:pos + n]
            return _replace_span(text, pos, pos, piece), f"duplicated {piece!r} (line {line})"
        if pos + 1 < len(text):
            return (_replace_span(text, pos, pos + 2, text[pos + 1] + text[pos]),
                    f"transposed {text[pos:pos + 2]!r} (line {line})")
        return None
