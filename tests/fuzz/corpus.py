"""The fuzzer's seeds: every ``.mlir`` the project ships, and the fuzzer's own.

``examples/*.mlir``, ``benchmarks/tmem/corpus/*.mlir``, ``lit_tests/**/*.mlir`` and
``tests/fuzz/seeds/*.mlir`` (inputs that once crashed the compiler, and kernels compiled
with command-line flags), each file split at ``// -----`` (as ``--split-input-file``
does). Whole-line comments (RUN and CHECK lines, expected-error annotations, prose) are
dropped: they only lengthen the reproducers and waste raw-character mutations. A chunk's
``// fuzz-flags:`` line (FLAGS_PREFIX: the flags it is compiled with) is kept, first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: The seed files, as globs relative to the repository root, in a fixed order.
SEED_GLOBS = ("examples/*.mlir", "benchmarks/tmem/corpus/*.mlir", "lit_tests/**/*.mlir",
              "tests/fuzz/seeds/*.mlir")

#: The first line of a seed or mutant that carries the flags it is compiled with
#: (mutate.split_flags, worker.py).
FLAGS_PREFIX = "// fuzz-flags:"

_SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
_COMMENT_LINE = re.compile(r"^\s*//.*$")


@dataclass(frozen=True)
class Seed:
    name: str  # path relative to the root, with "#k" for the k-th split chunk
    text: str


def strip_comments(text: str) -> str:
    """The text without whole-line comments and runs of blank lines."""
    lines = []
    flags = []
    for line in text.splitlines():
        if line.startswith(FLAGS_PREFIX):
            flags = [line.rstrip()]
            continue
        if _COMMENT_LINE.match(line):
            continue
        if not line.strip() and (not lines or not lines[-1].strip()):
            continue
        lines.append(line.rstrip())
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return "\n"
    return "\n".join(flags + lines) + "\n"


def seed_files(root: Path = ROOT) -> list[Path]:
    found: list[Path] = []
    for pattern in SEED_GLOBS:
        found.extend(sorted(root.glob(pattern)))
    return found


def load_seeds(root: Path = ROOT) -> list[Seed]:
    """Every seed, in a fixed order (file order, then chunk order); empty chunks dropped."""
    seeds = []
    for path in seed_files(root):
        rel = path.relative_to(root).as_posix()
        chunks = _SPLIT.split(path.read_text())
        for k, chunk in enumerate(chunks):
            text = strip_comments(chunk)
            if not text.strip():
                continue
            seeds.append(Seed(rel if len(chunks) == 1 else f"{rel}#{k}", text))
    return seeds
