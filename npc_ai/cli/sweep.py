"""`npc-ai sweep SPEC.toml`: a task over a grid of parameters and seeds (`npc_ai.sweep`, docs/sweeps.md).

Results go to `--out` (default: `<spec name>_sweep` in the current folder); stdout gets the summary and the
files written, stderr the progress. A bad spec, a folder holding another sweep, or Ray missing is one line
on stderr and exit status 2, before any trial runs and without touching the folder's results.
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path
from types import FrameType

from npc_ai.cli import types as cli_types


def add_sweep_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of `npc-ai sweep`."""
    p.add_argument("spec", help="the sweep spec, a .toml file (docs/sweeps.md)")
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local: a process pool on this machine (default); ray: Ray tasks (the ray extra; "
        "connects to RAY_ADDRESS when set, else starts a local Ray)",
    )
    p.add_argument(
        "--workers",
        type=cli_types.positive_int,
        help="processes (local) or CPUs of a local Ray (default: one per core); 1 runs in this process",
    )
    p.add_argument("--out", help="the output folder (default: ./<spec name>_sweep)")
    p.add_argument("--resume", action="store_true", help="finish the sweep in --out, skipping done trials")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def cmd_sweep(args: argparse.Namespace) -> int:
    """`npc-ai sweep SPEC.toml ...`"""
    from npc_ai.sweep import load_spec, run_sweep
    from npc_ai.sweep.runner import SweepProgress

    spec = load_spec(args.spec)
    out = args.out if args.out is not None else f"{Path(args.spec).stem}_sweep"
    folder = cli_types.writable_folder(out, "--out") or Path(out)
    if args.backend == "ray":
        from npc_ai.sweep.backends import import_ray

        import_ray()  # refused before the folder is touched
    progress = SweepProgress(quiet=args.quiet)
    previous = signal.signal(signal.SIGTERM, _interrupt)  # `kill` ends the sweep as Ctrl-C does
    try:
        result = run_sweep(
            spec,
            folder,
            backend=args.backend,
            workers=args.workers,
            resume=args.resume,
            spec_text=Path(args.spec).read_text(encoding="utf-8"),
            progress=progress,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
        progress.close()
    print(
        f"sweep {spec.task}: {result.trials} trials ({result.skipped} already done, {result.ran} run now, "
        f"{result.failed} failed) in {result.seconds:.1f} s on {args.backend}"
    )
    for path in result.written:
        print(f"wrote {path}")
    return 0  # failed trials are results (error rows in results.csv), not a failure of the sweep
