"""What a simulation records about itself: time per phase of the tick, and a bounded trail for replays."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Timings:
    """Wall-clock seconds spent in each phase of the tick (for `bench sim`, which times PyBullet's own share
    call by call in a second run: `npc_ai.bench.sim.timed_pybullet`)."""

    perceive: float = 0.0
    decide: float = 0.0
    locomotion: float = 0.0
    physics: float = 0.0
    record: float = 0.0
    ticks: int = 0

    @property
    def total(self) -> float:
        return self.perceive + self.decide + self.locomotion + self.physics + self.record


@dataclass
class Trace:
    """Sampled history for the replay picture, bounded by decimation.

    The simulation offers a sample every `trail_every` ticks; the trace stores one offer in `stride`. When
    it holds `capacity` samples it drops every other one and doubles `stride`, so it always spans the whole
    run, evenly spaced, in at most `capacity` samples.

    Attributes:
        times: (T,) [s]. positions: (T, n, 3) NPC feet [m]. yaws: (T, n) [rad]. states: (T, n) state codes
        (see STATE_CODES). player: (T, 3) player feet [m] (NaN without a player).
        capacity: most samples held [>= 2]. stride: one offer in `stride` is stored (a power of two).
        offered: samples offered so far.
    """

    names: list[str]
    times: list[float] = field(default_factory=list)
    positions: list[np.ndarray] = field(default_factory=list)
    yaws: list[np.ndarray] = field(default_factory=list)
    states: list[np.ndarray] = field(default_factory=list)
    player: list[np.ndarray] = field(default_factory=list)
    capacity: int = 2048
    stride: int = 1
    offered: int = 0

    def offer(self) -> bool:
        """Count one sampling chance; True when it is to be stored with `add` (one in `stride`)."""
        due = self.offered % self.stride == 0
        self.offered += 1
        return due

    def add(
        self, time: float, positions: np.ndarray, yaws: np.ndarray, states: np.ndarray, player: np.ndarray
    ) -> None:
        """Store one sample; when that fills the trace, drop every other sample and double `stride`."""
        self.times.append(time)
        self.positions.append(positions)
        self.yaws.append(yaws)
        self.states.append(states)
        self.player.append(player)
        if len(self.times) >= self.capacity:
            for samples in (self.times, self.positions, self.yaws, self.states, self.player):
                del samples[1::2]
            self.stride *= 2

    def arrays(self) -> dict[str, np.ndarray]:
        n = len(self.names)
        return {
            "times": np.asarray(self.times),
            "positions": np.asarray(self.positions).reshape(-1, n, 3),
            "yaws": np.asarray(self.yaws).reshape(-1, n),
            "states": np.asarray(self.states, dtype=np.int64).reshape(-1, n),
            "player": np.asarray(self.player).reshape(-1, 3),
        }
