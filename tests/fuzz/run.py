"""The fuzzer's parent side: workers, outcome classes, failure signatures, campaigns,
a line-deletion minimiser and the Markdown report.

Mutants are compiled to PTX by long-lived child processes (``worker.py``) fed one JSON
line per mutant; a worker that dies (a signal, or an exit in the middle of a mutant) or
that takes longer than the time limit is recorded against the mutant in flight and
replaced. Every outcome falls into one class:

========== ================================================================ ======
class      meaning                                                          a bug?
========== ================================================================ ======
ok         compiled to PTX, and ptxas (``-arch`` = the result's target)
           accepts it
located    ``CompileFailed``, every diagnostic with a line
flag       a flag of the mutant's ``// fuzz-flags:`` line (``--arch``,
           ``--pass-option``) refused by a message naming it (the --arch
           value, or the pass), every other diagnostic with a line
unlocated  ``CompileFailed`` with a diagnostic that has no line (or none)   yes
internal   a diagnostic saying "internal error", or any other exception     yes
           escaping ``compile_source``
signal     the worker died while compiling: killed by a signal (SIGSEGV,    yes
           SIGABRT, ...) or exited (LLVM's fatal errors call ``exit``)
hang       no answer within the time limit                                  yes
ptxas      PTX that ptxas rejects                                           yes
========== ================================================================ ======

A non-good outcome has a signature: its class and its message normalised (numbers,
SSA and symbol names, quoted strings and element types stripped; for exceptions, crashes
and hangs the innermost frame of the project's code), so that one bug found through many
mutants is one signature.
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .corpus import ROOT, load_seeds
from .mutate import Mutant, Mutator, statements

WORKER = Path(__file__).resolve().parent / "worker.py"

CLASSES = ("ok", "located", "flag", "unlocated", "internal", "signal", "hang", "ptxas")
#: The classes that are bugs.
BAD = frozenset(("unlocated", "internal", "signal", "hang", "ptxas"))
CLASS_TITLES = {
    "ok": "compiled, ptxas accepts the PTX",
    "located": "diagnostic with a location",
    "flag": "a command-line flag refused, named",
    "unlocated": "diagnostic without a location",
    "internal": "internal error",
    "signal": "worker died (signal or exit)",
    "hang": "hang (time limit)",
    "ptxas": "PTX that ptxas rejects",
}

DEFAULT_TIMEOUT = 20.0


# -- signatures ----------------------------------------------------------------------------

_ELEMENT = re.compile(r"\b(f32|f16|bf16|tf32|f8E4M3FN|f8E5M2|f6E2M3FN|f6E3M2FN|f4E2M1FN"
                      r"|f8E8M0FNU|f64|i1|i8|i16|i32|i64|si\d+|ui\d+|index)\b")
_FRAME = re.compile(r'File "([^"]+)", line \d+ in (\S+)')


def normalise(message: str) -> str:
    """One line of `message` with the particulars stripped: quoted strings, SSA values,
    symbols and block names, element types, numbers; whitespace collapsed."""
    lines = [x for x in (message or "").strip().splitlines() if x.strip()]
    text = lines[0] if lines else ""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '"_"', text)
    text = re.sub(r"'[^'\n]*'", "'_'", text)
    text = re.sub(r"(?<![\w])[%@^#][\w$.-]+", lambda m: m.group(0)[0] + "_", text)
    text = _ELEMENT.sub("T", text)
    text = re.sub(r"0x[0-9a-fA-F]+", "N", text)
    text = re.sub(r"\d+", "N", text.replace("tcgen05", "\0")).replace("\0", "tcgen05")
    text = re.sub(r"\s+", " ", text).strip()
    return text[:160]


def _project_frame(frames: list[tuple[str, str]]) -> str:
    """``file:function`` of the innermost frame in the project's code (not the fuzzer's),
    from innermost-first frames; else of the innermost frame."""
    for path, func in frames:
        p = Path(path)
        inside = str(p).startswith(str(ROOT)) and "tests/fuzz" not in p.as_posix() \
            and ".venv" not in p.parts
        if inside:
            return f"{p.name}:{func}"
    return f"{Path(frames[0][0]).name}:{frames[0][1]}" if frames else "?"


def _stderr_frames(stderr: str) -> list[tuple[str, str]]:
    """The frames of the first (current) thread in faulthandler's output, innermost
    first."""
    block = stderr
    marker = re.search(r"(Current thread|Thread) 0x[0-9a-f]+[^\n]*\n", stderr)
    if marker:
        block = stderr[marker.end():]
        end = re.search(r"\n\s*\n|\nThread 0x", block)
        block = block[:end.start()] if end else block
    return _FRAME.findall(block)


def _last_words(stderr: str) -> str:
    """LLVM's or MLIR's own account of a crash, if stderr has one."""
    lines = [x for x in stderr.splitlines() if not x.startswith("Fatal Python error")]
    for pattern in (r"Assertion [`'].*", r"LLVM ERROR:.*", r"UNREACHABLE executed.*",
                    r"terminate called.*", r"\berror:.*"):
        for line in lines:
            m = re.search(pattern, line)
            if m:
                return m.group(0)
    return ""


def signature_of(cls: str, answer: dict, bad: frozenset = BAD) -> str | None:
    """The failure signature of an outcome; None for the good classes (those not in
    `bad`: the simulator's fuzzer has classes of its own)."""
    if cls not in bad:
        return None
    message = answer.get("message", "")
    if cls == "internal":
        sig = f"internal: {normalise(message)}"
        if answer.get("frames"):
            sig += f" @ {_project_frame([tuple(f) for f in reversed(answer['frames'])])}"
        return sig
    if cls == "ptxas":
        lines = message.splitlines()
        errors = [x for x in lines if re.search(r"error|fatal", x, re.I)] or lines or [""]
        first = re.sub(r"^ptxas\s+([^,]*,\s*line\s+\d+;\s*)?", "", errors[0].strip())
        return f"ptxas: {normalise(first)}"
    if cls in ("signal", "hang"):
        stderr = answer.get("stderr", "")
        frames = _stderr_frames(stderr)
        where = _project_frame(frames) if frames else "?"
        if cls == "hang":
            return f"hang: in {where}"
        sig = f"signal: {answer.get('signal_name', '?')} in {where}"
        words = _last_words(stderr)
        if words:
            sig += f" | {normalise(words)}"
        return sig
    return f"{cls}: {normalise(message)}"


@dataclass
class Outcome:
    cls: str
    message: str
    signature: str | None
    seconds: float
    answer: dict = field(default_factory=dict)

    @property
    def bad(self) -> bool:
        return self.cls in BAD


def outcome_from_answer(answer: dict) -> Outcome:
    cls = answer["cls"]
    return Outcome(cls, answer.get("message", ""), signature_of(cls, answer),
                   float(answer.get("seconds", 0.0)), answer)


# -- workers -------------------------------------------------------------------------------

class _Child:
    """One worker process; `job` is the key and text in flight, if any."""

    def __init__(self, start_timeout: float = 180.0, worker: Path = WORKER):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, str(worker)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.err, start_new_session=True)
        self.fd = self.proc.stdout.fileno()
        self.buf = b""
        self.job = None
        self.deadline = 0.0
        self.started = 0.0
        self.done = 0
        deadline = time.monotonic() + start_timeout
        line = None
        while line is None and time.monotonic() < deadline:
            ready, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            if ready:
                line = self.read_line()
                if line == b"":
                    break
        if not line:
            self.kill()
            raise RuntimeError(f"fuzz worker did not start: {self.stderr()[-2000:]}")
        hello = json.loads(line)
        self.ptxas = hello.get("ptxas")

    def read_line(self) -> bytes | None:
        """A complete line if one has arrived (after a select), b"" at end of file, None
        if the line is not complete yet."""
        if b"\n" not in self.buf:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return b""
            self.buf += chunk
        if b"\n" in self.buf:
            line, _, self.buf = self.buf.partition(b"\n")
            return line
        return None

    def send(self, key, text: str | dict, *, name: str, timeout: float,
             ptxas: bool) -> None:
        """Sends one mutant's text (or a dict of job fields, e.g. a worker self-test)."""
        self.job = (key, text)
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        job = {"text": "", "name": name, "timeout": timeout, "ptxas": ptxas}
        job.update(text if isinstance(text, dict) else {"text": text})
        payload = json.dumps(job)
        self.proc.stdin.write(payload.encode() + b"\n")
        self.proc.stdin.flush()

    def stderr(self) -> str:
        try:
            self.err.seek(0)
            return self.err.read()[-20000:].decode(errors="replace")
        except (OSError, ValueError):
            return ""

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the worker and its ptxas
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()
        self.err.close()


class Pool:
    """`jobs` workers with a time limit per mutant. ``run(items)`` takes (key, text)
    pairs and yields (key, Outcome) as they finish (not in order). `worker` is the child
    script (``sim_worker.py`` for the simulator's fuzzer) and `classify` makes an Outcome
    of its answer."""

    def __init__(self, jobs: int = 1, timeout: float = DEFAULT_TIMEOUT, ptxas: bool = True,
                 recycle: int = 2000, name: str = "mutant.mlir", worker: Path = WORKER,
                 classify: Callable[[dict], Outcome] | None = None):
        self.jobs, self.timeout, self.ptxas = max(1, jobs), timeout, ptxas
        self.recycle, self.name = recycle, name
        self.worker, self.classify = worker, classify or outcome_from_answer
        self.children: list[_Child] = []
        self.restarts = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        for child in self.children:
            child.close()
        self.children = []

    def _ensure(self) -> None:
        while len(self.children) < self.jobs:
            self.children.append(_Child(worker=self.worker))

    def _replace(self, child: _Child) -> None:
        child.kill()
        child.close()
        self.children[self.children.index(child)] = _Child(worker=self.worker)
        self.restarts += 1

    def ptxas_path(self) -> str | None:
        self._ensure()
        return self.children[0].ptxas

    def run(self, items: Iterable[tuple[object, str]]) -> Iterator[tuple[object, Outcome]]:
        self._ensure()
        pending = iter(items)
        exhausted = False
        while True:
            for child in list(self.children):
                if child.job is None and not exhausted:
                    item = next(pending, None)
                    if item is None:
                        exhausted = True
                        break
                    child.send(item[0], item[1], name=self.name, timeout=self.timeout,
                               ptxas=self.ptxas)
            busy = [c for c in self.children if c.job is not None]
            if not busy:
                return
            wait = max(0.0, min(c.deadline for c in busy) - time.monotonic())
            ready, _, _ = select.select([c.fd for c in busy], [], [], wait)
            for child in busy:
                if child.fd in ready:
                    line = child.read_line()
                    while line is None:  # a partial line: the rest follows at once
                        select.select([child.fd], [], [], 1.0)
                        line = child.read_line()
                    key = child.job[0]
                    if line == b"":
                        yield key, self._died(child)
                        continue
                    outcome = self.classify(json.loads(line))
                    child.job = None
                    child.done += 1
                    if child.done >= self.recycle:
                        self._replace(child)
                    yield key, outcome
                elif time.monotonic() >= child.deadline:
                    yield child.job[0], self._hung(child)

    def _died(self, child: _Child) -> Outcome:
        try:
            code = child.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        stderr = child.stderr()
        elapsed = time.monotonic() - child.started
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
        else:
            name = f"exit {code}"
        answer = {"cls": "signal", "message": f"worker died: {name}; "
                  + (_last_words(stderr) or stderr.strip()[-300:]),
                  "signal_name": name, "stderr": stderr, "seconds": elapsed}
        child.job = None
        self._replace(child)
        return self.classify(answer)

    def _hung(self, child: _Child) -> Outcome:
        stderr = child.stderr()
        where = _stderr_frames(stderr)
        answer = {"cls": "hang",
                  "message": f"no answer within {self.timeout:g} s"
                  + (f"; stuck in {_project_frame(where)}" if where else ""),
                  "stderr": stderr, "seconds": self.timeout}
        child.job = None
        self._replace(child)
        return self.classify(answer)


# -- campaigns -----------------------------------------------------------------------------

@dataclass
class Finding:
    """One failure signature: how often it was seen and its shortest reproducer."""
    signature: str
    cls: str
    count: int
    index: int  # the mutant whose text is kept
    seed_name: str
    mutations: list[str]
    text: str
    message: str
    detail: dict = field(default_factory=dict)
    minimised: bool = False

    def better(self, text: str, index: int) -> bool:
        return (len(text), index) < (len(self.text), self.index)


@dataclass
class Campaign:
    seed: int
    mutants: int
    jobs: int
    timeout: float
    counts: Counter = field(default_factory=Counter)
    by_operator: dict[str, Counter] = field(default_factory=dict)
    findings: dict[str, Finding] = field(default_factory=dict)
    seconds: float = 0.0
    slowest: list[tuple[float, int, str, str]] = field(default_factory=list)
    seeds: int = 0
    ptxas: str | None = None
    restarts: int = 0

    @property
    def bad_signatures(self) -> set[str]:
        return set(self.findings)

    def record(self, mutant: Mutant, outcome: Outcome) -> None:
        self.counts[outcome.cls] += 1
        for mutation in mutant.mutations:
            self.by_operator.setdefault(operator_of(mutation), Counter())[outcome.cls] += 1
        self.slowest.append((outcome.seconds, mutant.index, mutant.seed_name, outcome.cls))
        self.slowest = sorted(self.slowest, reverse=True)[:5]
        if outcome.signature is None:
            return
        found = self.findings.get(outcome.signature)
        if found is None:
            self.findings[outcome.signature] = Finding(
                outcome.signature, outcome.cls, 1, mutant.index, mutant.seed_name,
                mutant.mutations, mutant.text, outcome.message, _detail(outcome))
            return
        found.count += 1
        if found.better(mutant.text, mutant.index):
            found.index, found.seed_name, found.mutations = (mutant.index, mutant.seed_name,
                                                             mutant.mutations)
            found.text, found.message, found.detail = (mutant.text, outcome.message,
                                                       _detail(outcome))


def _detail(outcome: Outcome) -> dict:
    keep = ("diagnostics", "frames", "ptx_lines", "target", "stderr")
    detail = {k: outcome.answer[k] for k in keep if outcome.answer.get(k)}
    if "stderr" in detail:
        detail["stderr"] = detail["stderr"][-3000:]
    return detail


def operator_of(description: str) -> str:
    """The operator a mutation description came from (its first words)."""
    for prefix, name in (("integer type", "integer type"), ("integer", "integer literal"),
                         ("constant", "arith.constant"), ("tile shape", "tile shape"),
                         ("element type", "element type"), ("tile major", "string enum"),
                         ("tile swizzle", "string enum"), ("target", "target"),
                         ("tcgen05.kernel", "kernel dictionary"),
                         ("deleted line", "op deleted"), ("duplicated line", "op duplicated"),
                         ("swapped lines", "ops swapped"), ("loop at", "loop bounds"),
                         ("use of", "use replaced"),
                         ("deleted", "raw characters"), ("inserted", "raw characters"),
                         ("replaced", "raw characters"), ("duplicated", "raw characters"),
                         ("transposed", "raw characters"),
                         ("flag --arch", "--arch flag"),
                         ("flag --pass-option", "--pass-option flag")):
        if description.startswith(prefix):
            return name
    if description.startswith("attribute"):
        if " -> " in description and "=" in description.split(" -> ")[0]:
            return "attribute kind"
        return "attribute name"
    return "string enum"


def run_campaign(mutants: int, seed: int, *, jobs: int = 1, timeout: float = DEFAULT_TIMEOUT,
                 ptxas: bool = True, minimise_budget: float = 0.0,
                 progress: Callable[[int, Campaign], None] | None = None,
                 mutator: Mutator | None = None) -> Campaign:
    """Mutants 0 .. mutants-1 of campaign `seed`, compiled and classified; with a
    `minimise_budget` (seconds per signature), each signature's shortest reproducer is
    then shrunk by deleting lines."""
    mutator = mutator or Mutator(load_seeds())
    campaign = Campaign(seed, mutants, jobs, timeout, seeds=len(mutator.seeds))
    start = time.monotonic()
    made: dict[int, Mutant] = {}

    def items():
        for index in range(mutants):
            mutant = mutator.mutant(seed, index)
            made[index] = mutant
            yield index, mutant.text

    with Pool(jobs, timeout, ptxas) as pool:
        campaign.ptxas = pool.ptxas_path() if ptxas else None
        for n, (index, outcome) in enumerate(pool.run(items()), 1):
            campaign.record(made.pop(index), outcome)
            if progress is not None:
                progress(n, campaign)
        campaign.seconds = time.monotonic() - start
        if minimise_budget > 0:
            for finding in sorted(campaign.findings.values(), key=lambda f: f.signature):
                shrunk, outcome = minimise(pool, finding.text, finding.signature,
                                           minimise_budget)
                if outcome is not None:
                    finding.text, finding.minimised = shrunk, True
                    finding.message, finding.detail = outcome.message, _detail(outcome)
        campaign.restarts = pool.restarts
    return campaign


def _first_hit(pool: Pool, candidates: list[str], signature: str,
               deadline: float) -> tuple[int | None, Outcome | None]:
    """The first candidate (in order) with `signature`, tried a few at a time."""
    step = 2 * pool.jobs
    for base in range(0, len(candidates), step):
        if time.monotonic() >= deadline:
            break
        chunk = candidates[base:base + step]
        results = dict(pool.run(enumerate(chunk)))
        for k in range(len(chunk)):
            if results[k].signature == signature:
                return base + k, results[k]
    return None, None


def minimise(pool: Pool, text: str, signature: str,
             budget: float) -> tuple[str, Outcome | None]:
    """Shrinks `text` while its signature stays the same, for at most `budget` seconds:
    first chunks of lines (halves, quarters, ... single lines), then whole statements
    (an op with its continuation lines or its regions) and single lines until none can
    go. The first success in text order wins, so the result does not depend on the
    number of workers. Returns the text and its outcome (None if nothing could go)."""
    lines = text.split("\n")
    kept = None
    deadline = time.monotonic() + budget
    parts = 2
    while len(lines) > 1 and time.monotonic() < deadline:
        size = math.ceil(len(lines) / parts)
        candidates = ["\n".join(lines[:k] + lines[k + size:])
                      for k in range(0, len(lines), size)]
        hit, outcome = _first_hit(pool, candidates, signature, deadline)
        if hit is not None:
            lines = candidates[hit].split("\n")
            kept = outcome
            parts = max(parts - 1, 2)
        elif size == 1:
            break
        else:
            parts = min(parts * 2, len(lines))
    while len(lines) > 1 and time.monotonic() < deadline:
        current = "\n".join(lines)
        spans = sorted({(s.start, s.end) for s in statements(current) if s.end - s.start > 1}
                       | {(k, k + 1) for k in range(len(lines))})
        candidates = ["\n".join(lines[:a] + lines[b:]) for a, b in spans]
        hit, outcome = _first_hit(pool, candidates, signature, deadline)
        if hit is None:
            break
        lines = candidates[hit].split("\n")
        kept = outcome
    return "\n".join(lines), kept


# -- the report ----------------------------------------------------------------------------

def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def report_markdown(campaign: Campaign, command: str = "", commit: str = "") -> str:
    total = sum(campaign.counts.values()) or 1
    rate = total / campaign.seconds if campaign.seconds else 0.0
    out = ["# Fuzzing report", ""]
    if command:
        out += [f"`{command}`", ""]
    out += [f"{total:,} mutants of {campaign.seeds} seeds (every `.mlir` the project ships; "
            f"lit files split at `// -----`), campaign seed {campaign.seed}, "
            f"{campaign.jobs} worker(s), time limit {campaign.timeout:g} s per mutant"
            + (f", compiler at `{commit}`" if commit else "") + ".",
            f"{campaign.seconds:,.0f} s, {rate:.1f} mutants/s; workers restarted "
            f"{campaign.restarts} times (after a crash, a hang or every 2,000 mutants). "
            f"ptxas: `{campaign.ptxas or 'not found: PTX not assembled'}`.", "",
            "## Outcomes", "", "| class | meaning | mutants | share |", "| --- | --- | ---: | ---: |"]
    for cls in CLASSES:
        n = campaign.counts.get(cls, 0)
        out.append(f"| {cls} | {CLASS_TITLES[cls]} | {n:,} | {100 * n / total:.1f}% |")
    out += ["", f"Distinct failure signatures: {len(campaign.findings)}.", ""]
    out += ["## Mutations", "", "Outcomes of the mutants each operator took part in (a mutant "
            "has 1 to 3 mutations).", "",
            "| operator | " + " | ".join(CLASSES) + " |",
            "| --- |" + " ---: |" * len(CLASSES)]
    for op in sorted(campaign.by_operator):
        row = campaign.by_operator[op]
        out.append(f"| {op} | " + " | ".join(f"{row.get(c, 0):,}" for c in CLASSES) + " |")
    out += ["", "Slowest mutants: " + "; ".join(
        f"#{i} ({name}, {cls}) {s:.2f} s" for s, i, name, cls in campaign.slowest) + ".", ""]
    out += ["## Failure signatures", ""]
    if not campaign.findings:
        out += ["None.", ""]
    order = sorted(campaign.findings.values(),
                   key=lambda f: (CLASSES.index(f.cls), -f.count, f.signature))
    for k, f in enumerate(order, 1):
        out += [f"### {k}. {f.cls}: {f.count:,} mutant(s)", "",
                f"Signature: `{f.signature}`", "",
                f"Reproducer: mutant #{f.index} of `{f.seed_name}` ("
                + "; ".join(f"`{m}`" for m in f.mutations) + ")"
                + (", then minimised by deleting lines" if f.minimised else "") + ":", "",
                _fence(f.text, "mlir"), "", "Message:", "", _fence(f.message), ""]
        if f.detail.get("diagnostics") and len(f.detail["diagnostics"]) > 1:
            out += ["All diagnostics:", "", _fence("\n".join(f.detail["diagnostics"])), ""]
        if f.detail.get("frames"):
            out += ["Traceback, innermost first: " + " <- ".join(
                f"`{Path(path).name}:{func}`" for path, func in reversed(f.detail["frames"])),
                ""]
        if f.detail.get("ptx_lines"):
            out += ["PTX lines ptxas cites:", "", _fence("\n".join(f.detail["ptx_lines"]),
                                                        "ptx"), ""]
        if f.cls in ("signal", "hang") and f.detail.get("stderr"):
            out += ["Worker's stderr (tail):", "", _fence(f.detail["stderr"][-1500:]), ""]
    return "\n".join(out).rstrip() + "\n"


def commit_of(root: Path, mark_changes: bool = False) -> str:
    """The short hash of the checkout at `root` ("" outside git), for a report's header;
    with `mark_changes`, followed by "+changes" when tracked files differ from it."""
    def git(*words) -> str:
        done = subprocess.run(["git", "-C", str(root), *words], capture_output=True,
                              text=True, timeout=30)
        return done.stdout.strip() if done.returncode == 0 else ""

    try:
        head = git("rev-parse", "--short", "HEAD")
        if head and mark_changes and git("status", "--porcelain", "--untracked-files=no"):
            head += "+changes"
        return head
    except (OSError, subprocess.TimeoutExpired):
        return ""
