"""Off-mesh links: jumps, drops, climbs and doors between two points of the navmesh (Detour's off-mesh
connections, Unity's NavMeshLinks), and exact shortest paths that use them.

A link is an edge between two points: walking to its start, crossing it (its `cost`, by default the
straight distance between its ends), walking on from its end. `LinkedQuery.find_path` is exact among
every path that uses links: each walking leg is an exact shortest path (Polyanya) between its ends, and a
Dijkstra over the start, the goal and the links' ends, with those exact leg lengths as edge weights
(exit-to-entry legs computed once per `LinkedQuery`), picks the cheapest sequence of links, or none. The
answer is a `LinkedPath`: its walking legs and the links between them, for an agent to walk a leg and
traverse a link with an animation (`npc_ai` does that part).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from navigation import arguments
from navigation.errors import NavMeshError
from navigation.protocols import RaySource
from navigation.query import NavMeshQuery
from navigation.results import PathResult, QueryReason, QueryStatus

LINK_KINDS = ("jump", "drop", "climb", "door")


@dataclass(frozen=True)
class OffMeshLink:
    """A crossing the navmesh does not walk: from `start` to `end` [m].

    Attributes:
        start, end: its ends [m], each within the query's snap distance of the mesh.
        bidirectional: it can be crossed end -> start too (a gap to jump both ways; a drop is one-way).
        width: how wide the crossing is [m, >= 0] (0: at the point; a wide one may be crossed anywhere
            along it, which agents may use; paths use its centre line).
        cost: what crossing it costs, in metres of walking [>= 0]; None: the straight 3-D distance between
            its ends.
        kind: "jump", "drop", "climb" or "door": which traversal animation it asks for.
        name: a label for events and logs.
    """

    start: tuple[float, float, float]
    end: tuple[float, float, float]
    bidirectional: bool = False
    width: float = 0.0
    cost: float | None = None
    kind: str = "jump"
    name: str = ""

    def __post_init__(self) -> None:
        for field in ("start", "end"):
            x, y, z = arguments.xyz(getattr(self, field), f"link {field}")
            if math.isnan(z):
                raise NavMeshError(
                    f"link {field} needs a height: 3 numbers [m], got {getattr(self, field)!r}"
                )
            object.__setattr__(self, field, (x, y, z))
        if not isinstance(self.bidirectional, bool):
            raise NavMeshError(f"bidirectional must be True or False, got {self.bidirectional!r}")
        object.__setattr__(
            self, "width", arguments.distance(self.width, "link width", zero_ok=True, inf_ok=False)
        )
        if self.cost is not None:
            object.__setattr__(
                self, "cost", arguments.distance(self.cost, "link cost", zero_ok=True, inf_ok=False)
            )
        if self.kind not in LINK_KINDS:
            raise NavMeshError(f"link kind must be one of {', '.join(LINK_KINDS)}, got {self.kind!r}")
        if not isinstance(self.name, str):
            raise NavMeshError(f"link name must be a string, got {self.name!r}")
        if self.start == self.end:
            raise NavMeshError("a link's start and end must differ")

    @property
    def distance(self) -> float:
        """Straight 3-D distance between its ends [m]."""
        return math.dist(self.start, self.end)

    @property
    def traversal_cost(self) -> float:
        """`cost`, or the straight distance when it has none [m]."""
        return self.cost if self.cost is not None else self.distance


@dataclass(frozen=True)
class LinkedPath:
    """A path that may cross links: walking legs with a link between each two.

    Attributes:
        status: SUCCESS; PARTIAL (goal unreachable even with links: the walking path to the reachable
            point nearest it); INVALID (the start is off the mesh).
        legs: the walking paths (exact shortest between their ends), one more than `links`.
        links: the index (into `LinkedQuery.links`) of each link crossed, in order.
        reverse: per link crossed, True when it is crossed end -> start.
        cost: walking length plus the links' traversal costs [m].
        reason: as `PathResult.reason`.
    """

    status: QueryStatus
    legs: tuple[PathResult, ...]
    links: tuple[int, ...]
    reverse: tuple[bool, ...]
    cost: float
    reason: QueryReason = QueryReason.NONE

    @property
    def ok(self) -> bool:
        return self.status is QueryStatus.SUCCESS

    @property
    def walking_length(self) -> float:
        """Length of the walking legs [m]."""
        return float(sum(leg.length for leg in self.legs))

    @property
    def points(self) -> np.ndarray:
        """(k, 3) every leg's points, one after another (a link joins the end of a leg to the start of
        the next) [m]."""
        parts = [leg.points for leg in self.legs if len(leg.points)]
        return np.vstack(parts) if parts else np.zeros((0, 3))


class LinkedQuery:
    """Exact paths over a navmesh plus off-mesh links.

    Args:
        query: the mesh's query object (shared, not copied).
        links: the links; their ends are snapped onto the mesh (within `snap_distance`).
        snap_distance: how far a link end may be from the mesh [m, >= 0].
    Raises:
        NavMeshError: a link that is not an `OffMeshLink`, or an end farther than `snap_distance` from
            the mesh.
    """

    def __init__(
        self, query: NavMeshQuery, links: Sequence[OffMeshLink], *, snap_distance: float = 0.5
    ) -> None:
        if not isinstance(query, NavMeshQuery):
            raise NavMeshError(f"query must be a NavMeshQuery, got {type(query).__name__}")
        snap = arguments.distance(snap_distance, "snap_distance", zero_ok=True, inf_ok=False)
        self.query = query
        self.links = tuple(links)
        ends: list[tuple[np.ndarray, np.ndarray]] = []
        for k, link in enumerate(self.links):
            if not isinstance(link, OffMeshLink):
                raise NavMeshError(f"links[{k}] must be an OffMeshLink, got {type(link).__name__}")
            pair = []
            for field in ("start", "end"):
                found = query.nearest_point(getattr(link, field), snap)
                if not found.found:
                    raise NavMeshError(
                        f"links[{k}] {field} {getattr(link, field)} is not within {snap:g} m of the navmesh"
                    )
                pair.append(found.point.copy())
            ends.append((pair[0], pair[1]))
        self.ends = tuple(ends)
        # directed crossings: (entry, exit, cost, link index, reversed)
        self._edges: list[tuple[np.ndarray, np.ndarray, float, int, bool]] = []
        for k, (link, (a, b)) in enumerate(zip(self.links, self.ends, strict=True)):
            self._edges.append((a, b, link.traversal_cost, k, False))
            if link.bidirectional:
                self._edges.append((b, a, link.traversal_cost, k, True))
        n = len(self._edges)
        islands = query.mesh.islands

        def island(p: np.ndarray) -> int:
            found = query.polygons_at(_xyz(p))
            return int(islands[found[0]]) if found else -1

        # the island of each crossing's entry and exit: a walk can only reach an entry on its own island
        self._entry_island = [island(entry) for entry, *_ in self._edges]
        self._exit_island = [island(out) for _, out, *_ in self._edges]
        self._between: list[list[PathResult | None]] = [[None] * n for _ in range(n)]
        for i, (_, out, *_) in enumerate(self._edges):  # from a crossing's exit to another's entry
            for j, (entry, *_) in enumerate(self._edges):
                if i != j and self._exit_island[i] == self._entry_island[j]:
                    path = query.find_path(_xyz(out), _xyz(entry))
                    self._between[i][j] = path if path.ok else None

    def find_path(self, start: object, goal: object) -> LinkedPath:
        """The cheapest path from start to goal [m] walking the mesh and crossing links (see the module)."""
        s = arguments.xyz(start, "start", any_height=True)
        g = arguments.xyz(goal, "goal", any_height=True)
        q = self.query
        direct = q.find_path(s, g)
        if direct.status is QueryStatus.INVALID:
            return LinkedPath(direct.status, (direct,), (), (), math.inf, direct.reason)
        islands = q.mesh.islands
        here = int(islands[direct.corridor[0]])  # walks from the start stay on its island
        there = {int(islands[p]) for p in q.polygons_at(g)} or None  # None: the goal is off the mesh
        best, last = (direct.length if direct.ok else math.inf), -1
        # best-first over the crossings (Dijkstra; a key is the cost of standing at a crossing's exit).
        # A crossing first enters with a lower bound, the straight line to its entry plus its cost, and
        # its walk is measured only if that could still beat the best path found: links far off a short
        # direct path cost no search. Path lengths are never shorter than the straight line, so the
        # bounds hold and the answer is exact.
        sx, sy = s[0], s[1]
        heap: list[tuple[float, int, int, int]] = []  # (key, crossing, exact?, previous crossing)
        for i, (entry, _, cost, _, _) in enumerate(self._edges):
            if self._entry_island[i] == here:
                bound = math.hypot(float(entry[0]) - sx, float(entry[1]) - sy) + cost
                heapq.heappush(heap, (bound, i, 0, -1))
        to_entry: dict[int, PathResult] = {}
        from_exit: dict[int, PathResult] = {}
        prev: dict[int, int] = {}
        done: set[int] = set()
        while heap:
            key, i, exact, before = heapq.heappop(heap)
            if key >= best:
                break  # nothing left can beat the best path
            if i in done:
                continue
            entry, out, cost, _, _ = self._edges[i]
            if not exact:  # from the start: measure the walk to its entry now
                walk = q.find_path(s, _xyz(entry))
                if walk.ok:
                    to_entry[i] = walk
                    heapq.heappush(heap, (walk.length + cost, i, 1, -1))
                continue
            done.add(i)
            prev[i] = before
            reaches = there is None or self._exit_island[i] in there
            if reaches and key + math.hypot(float(out[0]) - g[0], float(out[1]) - g[1]) < best:  # the goal
                walk = from_exit[i] = q.find_path(_xyz(out), g)
                if walk.ok and key + walk.length < best:
                    best, last = key + walk.length, i
            for j, leg in enumerate(self._between[i]):  # or on to another crossing
                if leg is not None and j not in done:
                    nd = key + leg.length + self._edges[j][2]
                    if nd < best:
                        heapq.heappush(heap, (nd, j, 1, i))
        if last < 0:
            return LinkedPath(
                direct.status, (direct,), (), (), best if direct.ok else math.inf, direct.reason
            )
        chain = [last]
        while prev[chain[-1]] >= 0:
            chain.append(prev[chain[-1]])
        chain.reverse()
        legs = [to_entry[chain[0]]]
        for a, b in itertools.pairwise(chain):
            leg = self._between[a][b]
            if leg is None:  # cannot happen: Dijkstra only follows legs that exist
                raise NavMeshError("internal: a link chain without a walking leg")
            legs.append(leg)
        legs.append(from_exit[last])
        return LinkedPath(
            QueryStatus.SUCCESS,
            tuple(legs),
            tuple(self._edges[i][3] for i in chain),
            tuple(self._edges[i][4] for i in chain),
            best,
        )


def _xyz(p: np.ndarray) -> tuple[float, float, float]:
    return float(p[0]), float(p[1]), float(p[2])


@dataclass(frozen=True)
class LinkSearch:
    """Limits for finding links automatically (`find_links`).

    Attributes:
        max_gap: widest gap a jump crosses, edge to edge [m, > 0].
        max_jump_rise: largest height difference of a jump's two ends [m, >= 0] (a jump up or down a
            little; more is a drop, or a climb nobody declared).
        max_drop: highest drop from a mesh edge down onto a floor below [m, >= 0; 0: no drops]. A drop
            lands on the first floor below found straight out from the edge, within `max_gap` of it.
        spacing: one candidate every this many metres along each mesh edge [m, > 0].
        min_gain: a link is kept only where walking round is at least this much longer than the link,
            or impossible [m, >= 0].
        separation: two links closer than this at both ends are one (the shorter kept) [m, >= 0].
    """

    max_gap: float = 2.0
    max_jump_rise: float = 0.5
    max_drop: float = 2.0
    spacing: float = 0.5
    min_gain: float = 3.0
    separation: float = 2.0

    def __post_init__(self) -> None:
        for name, zero_ok in (
            ("max_gap", False), ("max_jump_rise", True), ("max_drop", True),
            ("spacing", False), ("min_gain", True), ("separation", True),
        ):  # fmt: skip
            object.__setattr__(
                self, name, arguments.distance(getattr(self, name), name, zero_ok=zero_ok, inf_ok=False)
            )


def find_links(
    query: NavMeshQuery, search: LinkSearch | None = None, source: RaySource | None = None
) -> tuple[OffMeshLink, ...]:
    """Jumps across gaps and drops off edges, found along the mesh's wall edges (Recast's and Unity's
    auto-generated links): a jump joins two facing edges of about one height across at most `max_gap`
    (both ways); a drop joins an edge to the first floor straight out from it, within `max_gap` and at
    most `max_drop` below (one way). Only links that save at least `min_gain` of walking (or reach what
    walking cannot) are kept, and of links that start and end within `separation` of each other (either
    way round for a two-way one) the shortest.

    The mesh alone cannot tell a chasm from a wall (neither has floor between its edges): with the
    level's `source` (the RaySource it was baked from), a link is kept only where rays along it at
    `CLEAR_HEIGHTS` above its higher end meet nothing. Without one, a wall thinner than `max_gap` may get a
    jump over it."""
    s = search if search is not None else LinkSearch()
    mesh = query.mesh
    off, pv, nb, v = mesh.poly_offsets, mesh.poly_verts, mesh.poly_neighbors, mesh.vertices
    nxt = np.arange(len(pv)) + 1
    nxt[off[1:] - 1] = off[:-1]
    wall = np.flatnonzero(nb < 0)
    poly_of = np.repeat(np.arange(mesh.polygon_count), np.diff(off))[wall]
    a, b = v[pv[wall]], v[pv[nxt[wall]]]
    length = np.hypot(*(b - a)[:, :2].T)
    count = np.maximum(1, np.floor(length / s.spacing)).astype(np.int64)
    edge = np.repeat(np.arange(len(wall)), count)
    t = (np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count) + 0.5) / count[edge]
    pts = a[edge] + (b - a)[edge] * t[:, None]
    d = (b - a)[edge, :2] / length[edge, None]
    normal = np.column_stack([d[:, 1], -d[:, 0]])  # out of the polygon (its inside is on the left)
    polys = poly_of[edge]
    pts[:, 2] = [
        mesh.height_at(int(p), float(x), float(y)) for p, (x, y) in zip(polys, pts[:, :2], strict=True)
    ]
    found: list[tuple[float, OffMeshLink]] = []
    if len(pts) > 1:  # jumps: facing edge points across a gap
        from scipy.spatial import cKDTree

        pairs = cKDTree(pts[:, :2]).query_pairs(s.max_gap, output_type="ndarray")
        i, j = pairs[:, 0], pairs[:, 1]
        u = pts[j, :2] - pts[i, :2]
        dist = np.hypot(u[:, 0], u[:, 1])
        ok = dist > 1e-6
        u = u / np.where(ok, dist, 1.0)[:, None]
        facing = (np.einsum("ij,ij->i", u, normal[i]) > 0.87) & (np.einsum("ij,ij->i", -u, normal[j]) > 0.87)
        level = np.abs(pts[j, 2] - pts[i, 2]) <= s.max_jump_rise
        for k in np.flatnonzero(ok & facing & level).tolist():
            p, q = pts[i[k]], pts[j[k]]
            mid = (p + q) / 2
            if query.polygons_at((float(mid[0]), float(mid[1]), float(mid[2]))):
                continue  # walkable floor between them: not a gap
            link = OffMeshLink(_xyz(p), _xyz(q), bidirectional=True, kind="jump")
            if _saves(query, p, q, float(dist[k]), s.min_gain):
                found.append((float(dist[k]), link))
    if s.max_drop > 0:  # drops: from an edge point out to the first floor below
        reach = np.arange(1, int(s.max_gap / (s.spacing / 2)) + 1) * (s.spacing / 2)
        for k in range(len(pts)):
            p = pts[k]
            for r in reach.tolist():
                x, y = (float(c) for c in p[:2] + normal[k] * r)
                below = [(mesh.height_at(q, x, y), q) for q in query.polygons_at((x, y), math.inf)]
                below = [(z, q) for z, q in below if p[2] - z > s.max_jump_rise]
                if below:
                    break
            if not below or p[2] - max(below)[0] > s.max_drop:
                continue
            land = np.array([x, y, max(below)[0]])  # the highest floor below: where one lands
            link = OffMeshLink(_xyz(p), _xyz(land), kind="drop")
            if _saves(query, p, land, link.distance, s.min_gain):
                found.append((link.distance, link))
    if source is not None and found:
        found = [
            item for item, clear in zip(found, _clear(source, [k for _, k in found]), strict=True) if clear
        ]
    kept: list[OffMeshLink] = []
    for _, link in sorted(found, key=lambda item: item[0]):
        near = any(
            (
                math.dist(link.start, other.start) < s.separation
                and math.dist(link.end, other.end) < s.separation
            )
            or (
                other.bidirectional
                and math.dist(link.start, other.end) < s.separation
                and math.dist(link.end, other.start) < s.separation
            )
            for other in kept
        )
        if not near:
            kept.append(link)
    return tuple(kept)


CLEAR_HEIGHTS = (0.5, 1.5)  # a link's path must be clear this far above its higher end [m]


def _clear(source: RaySource, links: list[OffMeshLink]) -> np.ndarray:
    """(n,) bool: nothing in `source` blocks the straight lines between each link's ends, raised by each of
    CLEAR_HEIGHTS above the higher end (one ray batch, both directions)."""
    starts, ends = [], []
    for link in links:
        top = max(link.start[2], link.end[2])
        for h in CLEAR_HEIGHTS:
            a = (link.start[0], link.start[1], top + h)
            b = (link.end[0], link.end[1], top + h)
            starts += [a, b]
            ends += [b, a]
    hits = source.ray_test(np.array(starts, dtype=np.float64), np.array(ends, dtype=np.float64))
    blocked = (np.asarray(hits.body) >= 0).reshape(len(links), -1)
    return np.logical_not(blocked.any(axis=1))


def _saves(query: NavMeshQuery, p: np.ndarray, q: np.ndarray, direct: float, gain: float) -> bool:
    """Walking from p to q is impossible, or at least `gain` [m] longer than `direct`."""
    walk = query.find_path(_xyz(p), _xyz(q))
    return not walk.ok or walk.length >= direct + gain
