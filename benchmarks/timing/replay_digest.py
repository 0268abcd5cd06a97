"""Records every example at its sidecar check's sizes and prints, per example, the replay's
cycles, tensor-pipe utilisation and a digest of its stalls, stall lines and event counts,
under the shipped parameters and with l2_sm_bytes_per_cycle = 64: run it on two commits
and diff the outputs to show a change to the timing model's code is a pure refactor.

    python benchmarks/timing/replay_digest.py > after.txt

(With --save DIR it also pickles each Recording there; --load DIR replays those instead
of simulating, to compare replays of the same recordings.) Examples that need pass
options to compile (hand-synchronized warp roles) are skipped and say so.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def recordings(load: str | None, save: str | None):
    """(name, Recording) of every example, simulated (or loaded from ``load``)."""
    from tcgen05_lower.cli.sim import default_check, prepare
    from tcgen05_lower.sim.api import simulate

    for path in sorted(glob.glob(str(ROOT / "examples" / "*.mlir"))):
        name = Path(path).stem
        if load:
            file = Path(load) / f"rec_{name}.pkl"
            if file.exists():
                yield name, pickle.loads(file.read_bytes())
            continue
        try:
            ptx, manifest, _, inputs = prepare(path, default_check(path), 0)
            result = simulate(ptx, manifest, inputs, timing=True, functional_only=True,
                              max_instructions=3_000_000, timeout=300)
        except Exception as exc:   # a kernel that needs pass options: skipped, said so
            print(f"{name} skipped: {type(exc).__name__}", file=sys.stderr)
            continue
        if save:
            os.makedirs(save, exist_ok=True)
            (Path(save) / f"rec_{name}.pkl").write_bytes(pickle.dumps(result.timing.recording))
        yield name, result.timing.recording


def digest(result) -> str:
    data = json.dumps([result.cycles, result.utilisation, result.stalls,
                       [sorted(map(str, c.stall_lines.items())) for c in result.clusters[:2]],
                       [len(c.events) for c in result.clusters[:2]]],
                      sort_keys=True, default=str)
    return hashlib.md5(data.encode()).hexdigest()[:12]


def main(argv: list[str]) -> None:
    load = argv[argv.index("--load") + 1] if "--load" in argv else None
    save = argv[argv.index("--save") + 1] if "--save" in argv else None
    for name, rec in recordings(load, save):
        for overrides in (None, {"l2_sm_bytes_per_cycle": 64}):
            r = rec.replay(overrides)
            print(f"{name} {'shipped' if overrides is None else 'l2_sm=64'} "
                  f"{r.cycles:.1f} cycles, tensor pipe {r.utilisation['tensor pipe']:.4f}, "
                  f"digest {digest(r)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
