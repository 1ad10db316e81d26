"""Your own control of single NPCs (a learning agent, a script) inside a `Simulation`.

A controlled NPC skips its state machine; `Simulation.control` hands it over and gives it back, and the
simulation calls each controller once per tick in its decide phase.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from npc_ai.behaviour import Npc


class NpcController(Protocol):
    """Your own control of one NPC (see `Simulation.control`): called once per tick, in the decide phase,
    instead of the NPC's state machine. Steer with `npc.walk(speed, heading)` [m/s, rad] or
    `npc.go_to(point, speed)`; read `npc.sees`, `npc.memory`, `npc.position`, `npc.yaw`. Never step the
    world from a controller.

    Args:
        npc: the NPC to steer. time: simulated time [s].
    """

    def __call__(self, npc: Npc, time: float) -> None: ...


class Controllers:
    """NPC row -> its controller, with the rows as an array for the tick's masks."""

    def __init__(self) -> None:
        self._by_row: dict[int, NpcController] = {}
        self.rows = np.zeros(0, dtype=np.int64)  # the controlled rows, ascending

    def __len__(self) -> int:
        return len(self._by_row)

    def __contains__(self, row: object) -> bool:
        return row in self._by_row

    def get(self, row: int) -> NpcController | None:
        return self._by_row.get(row)

    def items(self) -> Iterator[tuple[int, NpcController]]:
        """(row, controller) in row order."""
        return iter(sorted(self._by_row.items()))

    def free(self, n: int) -> np.ndarray | None:
        """(n,) bool: the rows that run their own state machine (None when all do)."""
        if not self._by_row:
            return None
        mask = np.ones(n, dtype=bool)
        mask[self.rows] = False
        return mask

    def set(self, npcs: Sequence[Npc], npc: str | int, controller: NpcController | None) -> None:
        """Hand `npc` (a name or a row) to `controller`, or give it back (None).

        Raises:
            SimulationError: an unknown NPC name or index, or a controller that is not callable.
        """
        from npc_ai.sim.simulation import SimulationError

        index = _npc_index(npcs, npc)
        if controller is None:
            self._by_row.pop(index, None)
        elif not callable(controller):
            raise SimulationError(
                f"an NPC controller must be callable as (npc, time), got {type(controller).__name__}"
            )
        else:
            self._by_row[index] = controller
        self.rows = np.array(sorted(self._by_row), dtype=np.int64)


def _npc_index(npcs: Sequence[Npc], npc: str | int) -> int:
    from npc_ai.sim.simulation import SimulationError

    if isinstance(npc, str):
        for n in npcs:
            if n.name == npc:
                return n.index
        raise SimulationError(f"no NPC named {npc!r}; NPCs: {', '.join(n.name for n in npcs)}")
    if isinstance(npc, bool) or not isinstance(npc, int) or not 0 <= npc < len(npcs):
        raise SimulationError(f"NPC index must be an integer in 0..{len(npcs) - 1}, got {npc!r}")
    return npc
