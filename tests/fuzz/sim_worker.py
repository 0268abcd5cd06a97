"""The simulator fuzzer's child process: runs tcgen05-sim on the inputs it is sent.

Run as ``python sim_worker.py``. The protocol is worker.py's: ``{"ready": true}`` once
``tcgen05_lower`` is imported, then one JSON job per line on stdin, ``{"files": {name:
text}, "argv": [...], "timeout"}``, each answered with one JSON line on the original
stdout (fd 1 is pointed at stderr, which the parent keeps in a file for a crash's last
words). The files are written to a fresh directory and ``{dir}`` in the arguments names
it; the tool's body (``tcgen05_lower.cli.sim.run``) runs in this process with its
stdout and stderr captured. An answer is the outcome's class and its message
(sim_fuzz.py lists the classes); an exception escaping ``run`` is an internal error,
with its frames.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import tempfile
import traceback


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # our sibling modules must not shadow anything
    sys.path.append(os.path.dirname(here))  # the fuzz package (worker.py's protocol)
    from fuzz.worker import open_answers, serve

    answers = open_answers()
    from tcgen05_lower.cli.sim import run

    return serve(answers, lambda job: run_one(job, run), {"ready": True, "ptxas": None})


def run_one(job: dict, run) -> dict:
    with tempfile.TemporaryDirectory(prefix="simfuzz") as where:
        for name, text in job.get("files", {}).items():
            with open(os.path.join(where, name), "w", encoding="utf-8") as f:
                f.write(text)
        argv = [a.replace("{dir}", where) for a in job["argv"]]
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = run(argv)
        except SystemExit as exc:   # argparse: a malformed command line
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # anything escaping the tool's body is a bug
            frames = [[f.filename, f.name] for f in traceback.extract_tb(exc.__traceback__)]
            return {"cls": "internal", "message": f"{type(exc).__name__}: {exc}",
                    "frames": frames[-6:], "stderr_text": err.getvalue()[-2000:]}
        stdout = out.getvalue().replace(where, "{dir}")
        stderr = err.getvalue().replace(where, "{dir}")
    return classify(code, stdout, stderr)


#: The simulator's progress line (executor.Machine.run), not a message.
_PROGRESS = re.compile(r"tcgen05-sim: \d+ warp instructions, [\d.]+ s")


def classify(code, stdout: str, stderr: str) -> dict:
    """The class of a run that returned `code` having printed `stdout` and `stderr`."""
    lines = [x for x in stderr.splitlines() if x.strip()]
    said = [x for x in lines if x.startswith("tcgen05-sim: ") and not _PROGRESS.match(x)]
    tail = {"stdout_text": stdout[-1500:], "stderr_text": stderr[-2000:]}
    if "Traceback (most recent call last)" in stderr or "internal error" in stderr:
        first = next((x for x in lines if "internal error" in x), lines[-1] if lines else "")
        return {"cls": "internal", "message": first, **tail}
    if code == 0:
        return {"cls": "ok", "message": "", **tail}
    if code == 2 and "usage:" in stderr:
        return {"cls": "error", "message": lines[-1] if lines else "", **tail}
    if code != 1:
        return {"cls": "internal", "message": f"exit status {code}: "
                + (lines[-1] if lines else "(nothing on stderr)"), **tail}
    if any("LimitExceeded" in x for x in said):
        return {"cls": "limit", "message": said[-1], **tail}
    if said:
        return {"cls": "error", "message": said[-1], **tail}
    if "MISMATCH" in stdout or "  race: " in stdout or "  at exit: " in stdout:
        return {"cls": "ok", "message": "a reported mismatch, race or problem at exit",
                **tail}
    return {"cls": "silent", "message": "exit status 1 with no message", **tail}


if __name__ == "__main__":
    sys.exit(main())
