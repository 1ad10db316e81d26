"""Searches that cover ground: where to look around a last known position, and how searchers split it.

An archetype with `search_points > 0` does not only look around where the player was last known: on
entering Search it gets a route of navmesh points chosen to see the most of the area around that position,
and walks it, looking left, right and behind at each point, until the route is done or
`search_duration_s` (the search's time budget) runs out.

Choosing the points (`choose_points`, one ray batch): `TARGETS` area-uniform navmesh samples within
`search_radius` of the last known position stand for the area to see; `CANDIDATES` navmesh points there
(and the position itself) are the places to look from. A candidate sees a target within its
`sight_radius` when the line between its eye and the target (`TARGET_HEIGHT` above the floor) is clear of
static geometry. Greedy set cover: the next point is the candidate that sees the most targets not yet
seen, until `search_points` are chosen, no candidate adds anything, or `ENOUGH` of the targets are seen.

Several searchers (`SearchBoard`): an NPC that starts a search within `SHARE_RADIUS` of another searcher's
last known position joins its plan. The points nobody has visited or is heading to are dealt out again
among all of them, each in turn taking the free point nearest to where it will be, so no point is visited
twice; every searcher then walks its share nearest-first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from scenes import groups

if TYPE_CHECKING:
    from npc_ai.behaviour.batch import BehaviourBatch

MAX_POINTS = 16  # the most points a search route holds (the `search_points` setting's upper limit)
TARGETS = 400  # area samples that stand for the area to see
CANDIDATES = 40  # navmesh points a plan considers looking from (besides the last known position)
TARGET_HEIGHT = 1.0  # [m] a target is seen when this point above its floor is
ENOUGH = 0.95  # a plan stops adding points once this share of the targets is seen
SHARE_RADIUS = 3.0  # [m] searches whose last known positions are this close share one plan


@dataclass
class SearchPlan:
    """One search area's points and who searches them.

    Attributes:
        centre: the last known position [m]. points: (m, 3) the chosen points [m].
        expected: the share of the area samples the points see together [0..1].
        routes: searcher row -> the ids (into `points`) of its route, in walking order.
        visited: the ids of the points searched so far (as of the last deal).
    """

    centre: np.ndarray
    points: np.ndarray
    expected: float
    routes: dict[int, list[int]] = field(default_factory=dict)
    visited: set[int] = field(default_factory=set)


def area_samples(b: BehaviourBatch, i: int, centre: np.ndarray, radius: float) -> np.ndarray:
    """(k, 3) navmesh samples [m], area-uniform, within `radius` [m] of `centre` on its island (row i's
    Generator draws them)."""
    query = b.locomotion.query
    here = query.polygon_at(centre)
    island = int(query.mesh.islands[here]) if here >= 0 else query.mesh.main_island
    area = float(query.mesh.island_areas[island])
    share = min(1.0, np.pi * radius * radius / max(area, 1e-9))
    pts, _ = query.random_points(b.rngs[i], int(np.ceil(TARGETS / share)), islands=island)
    near = np.hypot(*(pts[:, :2] - centre[:2]).T) <= radius
    return pts[near][:TARGETS]


def choose_points(b: BehaviourBatch, i: int, centre: np.ndarray) -> tuple[np.ndarray, float]:
    """Row i's search points around `centre` [m] (see the module docstring) and the share of the area
    samples they see."""
    s = b.settings[i]
    targets = area_samples(b, i, centre, s.search_radius)
    candidates = np.vstack([centre[None], area_samples(b, i, centre, s.search_radius)[:CANDIDATES]])
    if len(targets) == 0:
        return centre[None].copy(), 1.0
    c = np.repeat(np.arange(len(candidates)), len(targets))  # every (candidate, target) pair
    t = np.tile(np.arange(len(targets)), len(candidates))
    gap = targets[t, :2] - candidates[c, :2]
    close = np.hypot(gap[:, 0], gap[:, 1]) <= s.sight_radius
    c, t = c[close], t[close]
    sees = np.zeros((len(candidates), len(targets)), dtype=bool)
    if len(c):
        eye = np.array([0.0, 0.0, s.eye_height])
        aim = np.array([0.0, 0.0, TARGET_HEIGHT])
        hits = b.locomotion.world.ray_test(candidates[c] + eye, targets[t] + aim, mask=groups.STATIC)
        sees[c[~hits.hit], t[~hits.hit]] = True
    chosen: list[int] = []
    seen = np.zeros(len(targets), dtype=bool)
    while len(chosen) < int(s.search_points) and seen.mean() < ENOUGH:
        gain = (sees & ~seen).sum(axis=1)
        best = int(np.argmax(gain))
        if gain[best] == 0:
            break
        chosen.append(best)
        seen |= sees[best]
    if not chosen:
        chosen = [0]
    return candidates[chosen], float(seen.mean())


def nearest_first(start: np.ndarray, points: np.ndarray, ids: list[int]) -> list[int]:
    """`ids` (into `points`) in nearest-neighbour order from `start` [m] (straight-line distances)."""
    left, out, here = list(ids), [], np.asarray(start, dtype=np.float64)[:2]
    while left:
        d = [float(np.hypot(*(points[k, :2] - here))) for k in left]
        k = left.pop(int(np.argmin(d)))
        out.append(k)
        here = points[k, :2]
    return out


class SearchBoard:
    """The search plans of one simulation's NPCs (see the module docstring)."""

    def __init__(self) -> None:
        self.plans: list[SearchPlan] = []

    def start(self, b: BehaviourBatch, i: int, centre: np.ndarray) -> SearchPlan:
        """Row i starts searching around `centre` [m]: join a nearby plan or make one; write the routes of
        every searcher of the plan into the batch's arrays (`search_route`, `search_count`, ...)."""
        self.leave(b, i)
        plan = next((p for p in self.plans if np.hypot(*(p.centre[:2] - centre[:2])) <= SHARE_RADIUS), None)
        if plan is None:
            points, expected = choose_points(b, i, np.asarray(centre, dtype=np.float64))
            plan = SearchPlan(np.asarray(centre, dtype=np.float64).copy(), points, expected)
            self.plans.append(plan)
        self._deal(b, plan, i)
        return plan

    def leave(self, b: BehaviourBatch, i: int) -> None:
        """Row i stops searching (it gave up, or something else took over): drop it from its plan, and the
        plan once nobody searches it."""
        for plan in self.plans:
            plan.routes.pop(i, None)
        self.plans = [p for p in self.plans if p.routes]

    def _deal(self, b: BehaviourBatch, plan: SearchPlan, joining: int) -> None:
        """Deal the plan's free points out among its searchers and `joining` (see the module docstring)."""
        heading: dict[int, int] = {}  # searcher -> the point it is walking to or looking around at
        for row, ids in plan.routes.items():
            k = int(b.search_index[row])
            plan.visited.update(ids[:k])
            if k < len(ids):
                heading[row] = ids[k]
        taken = plan.visited | set(heading.values())
        free = [k for k in range(len(plan.points)) if k not in taken]
        members = [*plan.routes, joining]
        here = {row: plan.points[heading[row]] if row in heading else b.positions()[row] for row in members}
        shares: dict[int, list[int]] = {row: [] for row in members}
        while free:
            for row in members:
                if not free:
                    break
                d = [float(np.hypot(*(plan.points[k, :2] - here[row][:2]))) for k in free]
                k = free.pop(int(np.argmin(d)))
                shares[row].append(k)
                here[row] = plan.points[k]
        for row in members:
            start = plan.points[heading[row]] if row in heading else b.positions()[row]
            route = ([heading[row]] if row in heading else []) + nearest_first(
                start, plan.points, shares[row]
            )
            looking = bool(b.search_looking[row]) and row in heading
            plan.routes[row] = route
            b.search_route[row, : len(route)] = plan.points[route]
            b.search_count[row] = len(route)
            b.search_index[row] = 0
            b.search_looking[row] = looking
