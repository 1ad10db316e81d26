"""Sight timers that fill batches: which NPCs look on which tick.

Each NPC looks once every `period` ticks (its archetype's `perception_period_s` over the tick length). A
sight tick costs a fixed overhead (the call, the candidate test, the ray batch and its bookkeeping, about
0.1 ms) plus little per NPC, so the phases are chosen to fill batches: the NPCs are dealt into
``k = clamp(ceil(n / batch), 1, longest period)`` groups, and NPC i of group ``g = i mod k`` is on
phase on the ticks where ``(tick + g * period_i // k) % period_i == 0``. A
small crowd works in a few large batches; a crowd of ``batch x period`` NPCs or more works in one batch
every tick, and when every NPC has the same period (the built-in scenes), NPC i looks when
``(tick + i) % period == 0``, the rule before these groups (the work spread evenly).

Each NPC looks exactly once per period, on its phase, so how late it can notice something does not
depend on the grouping. (The obstacle probes need no such rule: a probe is due a probe interval after the
last, so the wanderers that entered Wander together keep probing together.)
"""

from __future__ import annotations

import math

import numpy as np

CYCLE_LIMIT = 600
"""Longest timer cycle [ticks] whose due rows are listed once up front (longer cycles compute each tick's)."""


class SightTimers:
    """The sight phases of n NPCs.

    Args:
        periods: (n,) each NPC's sight period [ticks, >= 1].
        batch: how many NPCs a sight batch should hold before the batches spread over more ticks [>= 1].
    """

    def __init__(self, periods: np.ndarray, batch: int) -> None:
        p = np.asarray(periods, dtype=np.int64)
        n = len(p)
        self.periods = p
        self.groups = max(1, min(int(p.max(initial=1)), math.ceil(n / batch)))  # phase groups
        self._rows = np.arange(n)
        self.phases = ((self._rows % self.groups) * p) // self.groups  # [ticks]
        cycle = math.lcm(*p.tolist()) if n else 1
        # the timers repeat every lcm(periods) ticks: each tick's due rows, listed once
        self._cycle = [self._due(t) for t in range(cycle)] if cycle <= CYCLE_LIMIT else None

    def due(self, tick: int) -> np.ndarray:
        """The rows (increasing) that look on world tick `tick`."""
        return self._cycle[tick % len(self._cycle)] if self._cycle is not None else self._due(tick)

    def _due(self, tick: int) -> np.ndarray:
        return self._rows[(tick + self.phases) % self.periods == 0]
