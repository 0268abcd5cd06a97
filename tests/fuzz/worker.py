"""The fuzzer's child process: compiles the mutants it is sent, one at a time.

Run as ``python worker.py``. It prints ``{"ready": true}`` once ``tcgen05_lower`` is
imported, then reads one JSON job per line on stdin (``{"text", "name", "ptxas",
"timeout"}``) and answers each with one JSON line on its original stdout (MLIR and LLVM
may print on file descriptor 1, so the answers go out on a private duplicate and fd 1 is
pointed at stderr). The parent gives stderr a file: before each job it is emptied, so
after a crash or a hang it holds that job's last words: a fault handler's Python
traceback (``faulthandler`` on SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL), LLVM's
assertion or fatal-error text, or, shortly before the parent's time limit, the traceback
of where the compile is stuck.

An answer is the outcome's class and its raw message; ``run.py`` names and normalises it.
"""

from __future__ import annotations

import faulthandler
import json
import os
import re
import signal
import sys
import time
import traceback


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # our sibling modules must not shadow anything
    sys.path.append(os.path.dirname(here))  # the fuzz package itself (mutate's flags)
    answers = open_answers()

    from tcgen05_lower.backend import find_ptxas, run_ptxas
    from tcgen05_lower.driver import CompileFailed, compile_source
    _record_pass_tracebacks()

    def handle(job: dict) -> dict:
        if job.get("selftest"):
            selftest(job["selftest"])
        return compile_one(job, compile_source, CompileFailed, run_ptxas)

    return serve(answers, handle, {"ready": True, "ptxas": find_ptxas()})


def open_answers():
    """The stream the answers go out on: a private duplicate of fd 1, which is then
    pointed at stderr (MLIR, LLVM and the tools may print on it); a fault handler writes
    a crash's traceback to stderr."""
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable(file=sys.stderr, all_threads=True)
    return answers


def serve(answers, handle, ready: dict) -> int:
    """Announces `ready`, then answers each JSON job of stdin with ``handle(job)`` (a
    dict, given its ``seconds``), one JSON line each. Before each job stderr is emptied,
    so that after a crash or a hang it holds that job's last words, and shortly before
    the job's time limit the fault handler writes where it is stuck."""
    answers.write(json.dumps(ready) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        sys.stderr.flush()
        try:
            os.ftruncate(2, 0)
            os.lseek(2, 0, os.SEEK_SET)
        except OSError:
            pass
        timeout = float(job.get("timeout") or 0)
        if timeout > 2:
            faulthandler.dump_traceback_later(timeout - 1.5, exit=False, file=sys.stderr)
        start = time.perf_counter()
        answer = handle(job)
        faulthandler.cancel_dump_traceback_later()
        answer["seconds"] = round(time.perf_counter() - start, 4)
        answers.write(json.dumps(answer) + "\n")
    return 0


#: [file, function] frames of the last exception that escaped a tcgen05 pass (which
#: pass_infra turns into an "internal error" diagnostic, without its traceback).
PASS_EXCEPTION: list[list[str]] = []


def _record_pass_tracebacks() -> None:
    """Wraps ModulePass.run_on so that an exception escaping a pass leaves its frames in
    PASS_EXCEPTION on its way to pass_infra's handler (which still reports it)."""
    from tcgen05_lower import pass_infra

    run_on = pass_infra.ModulePass.run_on

    def recording_run_on(self, *args, **kwargs):
        try:
            return run_on(self, *args, **kwargs)
        except Exception as exc:
            PASS_EXCEPTION[:] = _frames(exc)
            raise

    pass_infra.ModulePass.run_on = recording_run_on


def selftest(what: str) -> None:
    """Misbehaves on request, so that the parent's handling of crashes and hangs can be
    tested without a compiler bug: "segv", "abort", "exit" or "hang"."""
    if what == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif what == "abort":
        os.abort()
    elif what == "exit":
        os._exit(3)
    elif what == "hang":
        while True:
            time.sleep(0.05)


def _frames(exc: BaseException) -> list[list[str]]:
    """[file, function] of the traceback's frames, innermost last."""
    return [[f.filename, f.name] for f in traceback.extract_tb(exc.__traceback__)]


def flag_error(message: str, arch: str | None, options: list[str]) -> bool:
    """Whether an error without a line is about a command-line flag and names it: the
    --arch value, or the pass of a --pass-option (a bad option has no source line)."""
    if arch is not None and message.startswith(f"--arch {arch}:"):
        return True
    return any(option.split("{", 1)[0].strip() in message for option in options)


def compile_one(job: dict, compile_source, CompileFailed, run_ptxas) -> dict:
    from fuzz.mutate import flag_values, split_flags
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options, parse_pipeline

    text, name = job["text"], job.get("name", "mutant.mlir")
    arch, options = flag_values(split_flags(text)[0])
    PASS_EXCEPTION.clear()
    pipeline = DEFAULT_PIPELINE
    if options:  # checked as tcgen05-lower checks --pass-option, before the compile
        try:
            pipeline = override_options(DEFAULT_PIPELINE, options)
            parse_pipeline(pipeline)
        except ValueError as exc:
            cls = "flag" if flag_error(str(exc), arch, options) else "unlocated"
            return {"cls": cls, "message": str(exc), "diagnostics": [str(exc)]}
    try:
        result = compile_source(text, name, emit="ptx", arch=arch, pipeline=pipeline)
    except CompileFailed as exc:
        diags = list(exc.diagnostics)
        formatted = [x.format() for x in diags]
        internal = [x for x in diags if "internal error" in x.message
                    or any("internal error" in n.message for n in x.notes)]
        if internal:
            return {"cls": "internal", "message": internal[0].message,
                    "diagnostics": formatted, "frames": PASS_EXCEPTION[-6:]}
        unlocated = [x for x in diags if x.line is None]
        if not diags:
            return {"cls": "unlocated", "message": "CompileFailed without a diagnostic: "
                    + str(exc), "diagnostics": []}
        if unlocated and all(flag_error(x.message, arch, options) for x in unlocated):
            return {"cls": "flag", "message": unlocated[0].message, "diagnostics": formatted}
        if unlocated:
            return {"cls": "unlocated", "message": unlocated[0].message,
                    "diagnostics": formatted}
        return {"cls": "located", "message": diags[0].message, "diagnostics": formatted}
    except BaseException as exc:  # anything else escaping compile_source is a bug
        frames = _frames(exc)
        return {"cls": "internal", "message": f"{type(exc).__name__}: {exc}",
                "exception": type(exc).__name__, "frames": frames[-6:],
                "diagnostics": []}
    if not result.ptx:
        return {"cls": "internal", "message": "compile_source returned no PTX",
                "diagnostics": [], "target": result.target}
    if not job.get("ptxas", True):
        return {"cls": "ok", "message": "", "target": result.target, "ptxas": False}
    try:
        assembled = run_ptxas(result.ptx, arch=result.target)
    except FileNotFoundError as exc:
        return {"cls": "ok", "message": str(exc), "target": result.target, "ptxas": False}
    if not assembled.ok:
        message = (assembled.stderr or assembled.stdout).strip() \
            or f"ptxas exited with status {assembled.returncode}"
        ptx_lines = result.ptx.split("\n")
        cited = sorted({int(n) for n in re.findall(r"line (\d+)", message)})[:5]
        return {"cls": "ptxas", "message": message, "target": result.target,
                "ptx_lines": [f"{n}: {ptx_lines[n - 1].strip()}" for n in cited
                              if 0 < n <= len(ptx_lines)]}
    return {"cls": "ok", "message": "", "target": result.target, "ptxas": True}


if __name__ == "__main__":
    sys.exit(main())
