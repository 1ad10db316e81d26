"""Per-NPC query filters: NPCs whose paths keep out of some areas, or price them (`navigation.QueryFilter`
over the scene's `[[area]]`s; `Simulation.filter_areas`).

A filter is checked against the navmesh when it is set (an unknown area name is refused there, not in a
tick), and the NPC re-plans at once. The NPCs' planner (`AgentBatch.planner`) then asks
`NavMeshQuery.find_path(..., filter=...)` for the rows that have one and the plain search for the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from navigation.errors import NavMeshError
from navigation.filters import QueryFilter
from navigation.results import PathResult
from npc_ai.sim.control import _npc_index

if TYPE_CHECKING:
    from npc_ai.behaviour import Npc
    from npc_ai.sim.simulation import Simulation


class AreaFilters:
    """The NPCs' filters, by row (None: the plain search), and the planner that uses them."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.by_row: dict[int, QueryFilter] = {}

    def set(self, npcs: Sequence[Npc], npc: str | int, f: QueryFilter | None) -> None:
        """Give `npc` (a name or a row) the filter `f`, or take its filter away (None); it re-plans now.

        Raises:
            SimulationError: an unknown NPC, a filter that is not a `QueryFilter`, a filter naming an area
                the navmesh lacks, or a scene with off-mesh links (their planner does not filter yet).
        """
        from npc_ai.sim.simulation import SimulationError

        i = _npc_index(npcs, npc)
        if f is not None:
            if not isinstance(f, QueryFilter):
                raise SimulationError(
                    f"an area filter must be a navigation.QueryFilter, got {type(f).__name__}"
                )
            if self.sim.links is not None:
                raise SimulationError("area filters and off-mesh links together are not supported yet")
            try:
                f.polygon_costs(self.sim.query.mesh)  # unknown area names fail here, not in a tick
            except NavMeshError as exc:
                raise SimulationError(f"area filter of {npcs[i].name!r}: {exc}") from None
            self.by_row[i] = f
        else:
            self.by_row.pop(i, None)
        agents = self.sim.locomotion.agents
        agents.planner = self._plan if self.by_row else None
        if agents.has_destination[i]:  # the path under the new filter, planned afresh
            goal = agents.destination[i].copy()
            agents.reset_path(np.array([i]))
            agents.set_destination(i, goal)

    def _plan(self, i: int, start: np.ndarray, goal: np.ndarray) -> PathResult:
        query = self.sim.query
        s = (float(start[0]), float(start[1]), float(start[2]))
        g = (float(goal[0]), float(goal[1]), float(goal[2]))
        return query.find_path(s, g, filter=self.by_row.get(i))
