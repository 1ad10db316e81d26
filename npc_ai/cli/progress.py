"""Progress of long work on stderr, so stdout stays parseable.

A `StderrProgress` is the `progress(stage, done, total)` callable that `navigation.bake_from_rays`,
`npc_ai.levels.navmesh.scene_navmesh` and the benchmarks accept:

- on a terminal: one tqdm bar per stage, cleared when the stage ends;
- anywhere else (a pipe, a file, CI logs): one plain line per stage (`npc-ai: WHAT: STAGE`), no carriage
  returns;
- `quiet`: nothing.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO


class StderrProgress:
    """Reports `progress(stage, done, total)` calls on stderr (see the module doc).

    Args:
        what: what the work is ("baking the navmesh of monastery"), the prefix of every line.
        quiet: report nothing.
        stream: where to write (default `sys.stderr`, looked up when called).
        tty: force the terminal (True) or the plain-line (False) style; default: `stream.isatty()`.
    """

    def __init__(
        self, what: str, *, quiet: bool = False, stream: TextIO | None = None, tty: bool | None = None
    ) -> None:
        self.what = what
        self.quiet = quiet
        self._stream = stream
        self._tty = tty
        self._stage: str | None = None
        self._bar: Any = None

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    def _is_tty(self) -> bool:
        if self._tty is not None:
            return self._tty
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        """`done` of `total` units of `stage` are done (`total` None: unknown)."""
        if self.quiet:
            return
        if stage != self._stage:
            self._end_stage()
            self._stage = stage
            if self._is_tty():
                from tqdm import tqdm

                self._bar = tqdm(
                    total=total,
                    desc=f"{self.what}: {stage}",
                    unit="",
                    unit_scale=total is None,  # counts of rays: 1.2M
                    leave=False,
                    file=self.stream,
                )
            else:
                print(f"npc-ai: {self.what}: {stage}", file=self.stream, flush=True)
        if self._bar is not None:
            if total is not None and self._bar.total != total:
                self._bar.total = total
            self._bar.update(max(done - self._bar.n, 0))

    def _end_stage(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        """End the current stage (clears a terminal bar)."""
        self._end_stage()
        self._stage = None

    def __enter__(self) -> StderrProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
