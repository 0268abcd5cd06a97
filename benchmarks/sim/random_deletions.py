"""Which random schedules catch each deleted synchronization op of the persistent
warp-specialized GEMM (examples/ws_persistent_gemm_bf16.mlir): every op
tcgen05-insert-sync adds, deleted in turn (tests/test_sync_common.deletion_mutants, as
tests/test_ws_persistent_gemm.py makes them), run under the late schedule and under
``schedule="random"`` with seeds 0 to K-1 on the check file's seed-0 inputs.

    PYTHONPATH=$PWD python benchmarks/sim/random_deletions.py --seeds 8 \\
        --out benchmarks/sim/RANDOM_SCHEDULES.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from sim_checks import judge  # noqa: E402
from test_ws_persistent_gemm import (AFTER_SYNC, CHECK, EXAMPLE, _mutants,  # noqa: E402
                                     named_parameters)
from tcgen05_lower.driver import compile_source  # noqa: E402


def kind(verdict: str | None) -> str:
    """The verdict's first word: race, error (a deadlock, ...), at exit, wrong; - if none."""
    if verdict is None:
        return "-"
    return verdict.split(":")[0]


def short(description: str) -> str:
    """The op and the start of insert-sync's reason, for the table."""
    return description if len(description) <= 100 else description[:99] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0..K-1")
    parser.add_argument("--out", default=None, help="write the Markdown table here")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = []
    for description, text in _mutants():
        result = compile_source(named_parameters(text), EXAMPLE.name, pipeline=AFTER_SYNC)
        late = judge(result, CHECK, "late")
        caught = {}
        for seed in range(args.seeds):
            verdict = judge(result, CHECK, "random", seed=seed)
            if verdict is not None:
                caught[seed] = kind(verdict)
        rows.append((description, kind(late), caught))
        print(description, kind(late), caught, flush=True)
    seconds = time.perf_counter() - start
    lines = [
        "# Deleted synchronization ops under random schedules",
        "",
        f"`PYTHONPATH=$PWD python benchmarks/sim/random_deletions.py --seeds {args.seeds}` "
        f"({seconds:.0f} s): each op tcgen05-insert-sync adds to "
        f"`{EXAMPLE.relative_to(ROOT)}` deleted in turn, run under `schedule=\"late\"` and "
        f"under `schedule=\"random\"` with seeds 0-{args.seeds - 1} (inputs: the check "
        "file's seed 0). A seed catches the mutant when the simulator reports a race, an "
        "error (deadlock, over-arrival), a problem at exit or a wrong output. "
        "tests/test_sim_random_schedule.py checks that some seed among the first "
        f"{args.seeds} catches each.",
        "",
        f"{sum(len(c) == args.seeds for _, _, c in rows)} of {len(rows)} deletions are "
        f"caught by every seed, {sum(not c for _, _, c in rows)} by none.",
        "",
        "| deleted op | late | seeds that catch it | how |",
        "|---|---|---|---|",
    ]
    for description, late, caught in rows:
        seeds = ", ".join(map(str, caught)) or "none"
        how = ", ".join(sorted(set(caught.values()))) or "-"
        lines.append(f"| `{short(description)}` | {late} | {seeds} | {how} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
