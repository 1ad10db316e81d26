"""One-way gates: narrow passages of a navmesh that a crowd takes one direction at a time.

Two streams that meet in a doorway only one agent wide deadlock whatever their local avoidance does: each
side fills the doorway's mouth, the agent in the passage faces a wall of others, and ORCA's answer for all
of them is to stand (`npc-ai bench crowd` doorway, before gates: 15 agents within 2 m of each doorway of
the warehouse, all still after 20 s, 3 of 40 through). Real crowds, and single-lane bridges, take such a
passage in turns; so do these agents.

A gate is a set of parallel portals of the mesh (edges between two polygons) narrower than `width` whose
both ends lie on the mesh's boundary (a passage between two walls, not an edge inside an open floor), the
portals of one passage merged (midpoints within `MERGE` of each other). Each tick (`gate_rows`, compiled):

- an agent whose path corridor crosses one of a gate's portals, within `reach` of its centre, is queued on
  that gate in the direction it crosses; an agent in the passage (between its outermost portals), or in
  its mouth (`DEPTH_MARGIN` beyond them) on its way through, within the passage's width plus its radius,
  is in the gate, in the direction its preferred velocity goes (an agent that came out and walks along
  the wall past the mouth is not);
- the gate belongs to one direction at a time: to the side of the nearest queued agent when it was free;
  it passes to the other side when no agent of its direction is queued or inside short of the passage's
  middle, or, while the other side waits, after `max_green` seconds once the agents already inside are
  past the middle (no new ones enter then), or as soon as none of its queued agents is within `hold` +
  `GAP_MARGIN` of the centre (a traffic light's gap-out: an agent still walking up, or pushed back along
  the approach, kept the gate from those waiting at the hold circle; `npc-ai bench crowd` doorway, the
  issue's layout: one held the west doorway 3.4 s with nobody crossing; 40.5 -> 36.1 s). One past the
  middle is on its way out and pushes through (below) while the other side starts in: waiting until it
  had left the passage's zone made each change of direction take 3.6-5.2 s from the last crossing to the
  next (`npc-ai bench crowd` doorway), now 2.3-3.7 s. `MAX_GREEN` is long (30 s), so that a side
  whose agents keep coming (within the gap-out distance) takes them all in one turn: every change of
  direction costs those seconds, and the doorway's agents that walked up from far away came just after
  an 8 s turn ended and waited a whole turn of the other side (the west doorway took five turns instead
  of two);
- of the agents queued on the side the gate is for, one farther than `hold` from the centre whose way left
  after the gate (from its centre straight to its destination) is more than `TAIL_SLACK` shorter than
  another's waits (held, as below): the longest ways go first. Who crosses last sets the finish: with the
  doorway's 40 walking on at their speed, one agent a second through each doorway and 2.3 s per change of
  direction, first come first served cannot finish before 33.9 s in two to five turns, longest first
  can by 25.9 s in two (the bar is 33.4 s); the shortest ways are the first to arrive (the agents that
  start near a doorway are bound for the points just beyond it);
- the agents inside a gate, and the queued agent nearest it that the gate is for (the next one in), get
  priority `go_priority`: agents converging on a one-agent-wide mouth from both sides of it otherwise
  stop each other symmetrically;
- an agent that came through a gate (its corridor behind it crosses a portal) keeps `go_priority` until it
  is `OUT_MARGIN` beyond the hold circle: the agents waiting there for their turn make way for it (they
  stood on its way, and on its goal, and it could not get out);
- an agent queued against the gate's direction is held: its preferred velocity keeps it `hold` metres
  from the gate's centre (it walks up to that circle, or backs off to it), clear of the passage's mouth,
  and it yields (priority `yield_priority`) so that the agents coming out push through the waiting ones.
  `HOLD` is 5 m: ten agents waiting on a 3 m half circle (9.4 m round) stood shoulder to shoulder and
  walled the mouth in, and those that came out stood in it for up to 15 s (`npc-ai bench crowd` doorway
  with long turns, 41 layouts: median time 1.74 -> 1.54 x the ideal, worst 63.8 -> 40.7 s). Held agents
  also stand at least `HOLD_DEPTH` out from the line of the gate's portals: on the hold circle's flanks
  they stood along the wall, where the goals nearest it lie (1.05-1.15 m from the doorway's wall) and
  where those coming out walk to them, and six of them knotted there for good (`npc-ai bench crowd`
  doorway, 81 layouts: all arrive 79 -> 81; median 1.548 -> 1.539 x the ideal).

Everything is arrays; `navigation` stays free of the simulation (the caller, `npc_ai.body.crowd`, runs
`gate_rows` inside its compiled tick). No fastmath: the same input gives the same output bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from navigation.navmesh import NavMesh

MERGE = 2.0  # [m] portals of one passage: their midpoints are this close, and they are parallel
PARALLEL = 0.95  # |cos| between two portals of one passage at least this
DEPTH_MARGIN = 0.5  # [m] the zone of a gate reaches this far beyond its outermost portals
REACH = 6.0  # [m] agents this close to a gate's centre whose path crosses it are queued on it
HOLD = 5.0  # [m] held agents wait this far from the gate's centre, clear of those coming out
HOLD_DEPTH = 2.0  # [m] ... and at least this far out from the line of its portals (off the wall beside it)
MAX_GREEN = 30.0  # [s] a side keeps a gate at most this long while the other side waits
TAIL_SLACK = 4.0  # [m] one of the side a gate is for waits while another has this much longer a way left
GAP_MARGIN = 0.5  # [m] ... and only while one of its queued agents is within the hold circle plus this
OUT_MARGIN = 1.0  # [m] an agent through a gate pushes (`GO_PRIORITY`) until this far beyond the hold circle
YIELD_PRIORITY = 0.25  # held agents' priority (movers: 1): those coming out push through them
GO_PRIORITY = 4.0  # the priority of the agents inside a gate and of the next one in: they push through


@dataclass(frozen=True, eq=False)
class Gates:
    """The one-way gates of a mesh (see the module docstring).

    Attributes:
        centre: (G, 2) [m]. axis: (G, 2) unit normal across the passage (from one side to the other).
        half: (G, 2) half its width along the passage's portals and half its zone's depth across them [m].
        pairs: (P, 3) int64 rows (gate, polygon a, polygon b): the portals of every gate.
    """

    centre: np.ndarray
    axis: np.ndarray
    half: np.ndarray
    pairs: np.ndarray

    @property
    def count(self) -> int:
        return int(self.centre.shape[0])

    @classmethod
    def none(cls) -> Gates:
        return cls(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros((0, 3), np.int64))


def find_gates(mesh: NavMesh, width: float) -> Gates:
    """The gates of `mesh`: its passages narrower than `width` [m] between two stretches of its boundary
    (the mesh is eroded by the agent radius: `width` is measured between agent centres). 0: none."""
    if width <= 0.0 or mesh.polygon_count == 0:
        return Gates.none()
    off, verts, nbs, v = mesh.poly_offsets, mesh.poly_verts, mesh.poly_neighbors, mesh.vertices
    sizes = np.diff(off)
    poly_of = np.repeat(np.arange(mesh.polygon_count), sizes)
    nxt = off[poly_of] + (np.arange(verts.shape[0]) - off[poly_of] + 1) % sizes[poly_of]
    wall = nbs < 0
    on_boundary = np.zeros(v.shape[0], dtype=bool)
    on_boundary[verts[wall]] = True
    on_boundary[verts[nxt[wall]]] = True
    a, b = verts, verts[nxt]
    length = np.hypot(*(v[a, :2] - v[b, :2]).T)
    portal = (nbs > poly_of) & on_boundary[a] & on_boundary[b] & (length < width) & (length > 0.0)
    found = np.flatnonzero(portal)
    groups: list[list[int]] = []  # edge indices of each gate's portals
    mid = 0.5 * (v[a, :2] + v[b, :2])
    for e in found.tolist():
        d = (v[b[e], :2] - v[a[e], :2]) / length[e]
        for group in groups:
            f = group[0]
            g = (v[b[f], :2] - v[a[f], :2]) / length[f]
            if np.hypot(*(mid[e] - mid[f])) <= MERGE and abs(float(d @ g)) >= PARALLEL:
                group.append(e)
                break
        else:
            groups.append([e])
    centre: list[np.ndarray] = []
    axis: list[np.ndarray] = []
    half: list[tuple[float, float]] = []
    pairs: list[tuple[int, int, int]] = []
    for k, group in enumerate(groups):
        f = group[0]
        along = (v[b[f], :2] - v[a[f], :2]) / length[f]
        normal = np.array([-along[1], along[0]])
        c = mid[group].mean(axis=0)
        spread = np.abs((mid[group] - c) @ normal).max()
        centre.append(c)
        axis.append(normal)
        half.append((0.5 * float(length[group].max()), float(spread) + DEPTH_MARGIN))
        pairs.extend((k, int(poly_of[e]), int(nbs[e])) for e in group)
    return Gates(
        np.array(centre, dtype=np.float64).reshape(-1, 2),
        np.array(axis, dtype=np.float64).reshape(-1, 2),
        np.array(half, dtype=np.float64).reshape(-1, 2),
        np.array(pairs, dtype=np.int64).reshape(-1, 3),
    )


@njit(cache=True)
def _crossing(i: int, g: int, pairs: np.ndarray, corridors: np.ndarray, first: int, length: int) -> bool:
    """Agent i's corridor, from its polygon `first` on, steps through one of gate g's portals."""
    for c in range(first, length - 1):
        p, q = corridors[i, c], corridors[i, c + 1]
        for k in range(pairs.shape[0]):
            if pairs[k, 0] == g and (
                (pairs[k, 1] == p and pairs[k, 2] == q) or (pairs[k, 1] == q and pairs[k, 2] == p)
            ):
                return True
    return False


@njit(cache=True)
def _way_after(i: int, g: int, centre: np.ndarray, destination: np.ndarray) -> float:
    """Agent i's way left after gate g: from the gate's centre straight to its destination [m]."""
    return math.hypot(destination[i, 0] - centre[g, 0], destination[i, 1] - centre[g, 1])


@njit(cache=True)
def _at_least(pref: np.ndarray, i: int, ux: float, uy: float, need: float) -> None:
    """Raise row i's preferred velocity along the unit vector (ux, uy) to `need` [m/s] if it is less."""
    along = pref[i, 0] * ux + pref[i, 1] * uy
    if need > along:
        pref[i, 0] += (need - along) * ux
        pref[i, 1] += (need - along) * uy


@njit(cache=True)
def gate_rows(
    dt: float,
    positions: np.ndarray,
    pref: np.ndarray,
    radii: np.ndarray,
    top: np.ndarray,
    moving: np.ndarray,
    on_path: np.ndarray,
    corridors: np.ndarray,
    corridor_len: np.ndarray,
    poly: np.ndarray,
    centre: np.ndarray,
    axis: np.ndarray,
    half: np.ndarray,
    pairs: np.ndarray,
    owner: np.ndarray,
    green: np.ndarray,
    reach: float,
    hold: float,
    max_green: float,
    yield_priority: float,
    go_priority: float,
    prio: np.ndarray,
    held: np.ndarray,
    row_gate: np.ndarray,
    row_dir: np.ndarray,
    row_inside: np.ndarray,
    destination: np.ndarray,
) -> None:
    """One tick of the gates for the n = held.shape[0] rows (module docstring).

    Args: positions (N, 3) [m], pref (N, 2) [m/s] (rewritten for held rows), radii, top (N,) [m, m/s]:
    the avoidance's rows; moving, on_path (n,) bool; corridors (n, C), corridor_len, poly (n,): the agents'
    path corridors and where they are in them; centre, axis, half, pairs: `Gates`; owner (G,) int64 the
    direction each gate belongs to (+1 along its axis, -1, 0 free) and green (G,) how long it has [s]
    (both updated); reach, hold, max_green, yield_priority: as in the module docstring; prio (N,): held
    rows get `yield_priority`; destination (n, 3): the agents' destinations [m]. Written: held (n,) bool;
    scratch row_gate, row_dir (n,) int64, row_inside (n,) bool."""
    n = held.shape[0]
    n_gates = centre.shape[0]
    for i in range(n):
        held[i] = False
        row_gate[i] = -1
    if n_gates == 0:
        return
    queued = np.zeros((n_gates, 2), np.int64)  # [g, 0]: direction -1, [g, 1]: +1
    inside = np.zeros((n_gates, 2), np.int64)
    nearest = np.full(n_gates, np.inf)
    nearest_dir = np.zeros(n_gates, np.int64)
    nearest_side = np.full((n_gates, 2), np.inf)  # [g, side]: its nearest queued agent's distance [m]
    for i in range(n):
        if not (moving[i] and on_path[i]):
            continue
        best = reach
        for g in range(n_gates):
            rx, ry = positions[i, 0] - centre[g, 0], positions[i, 1] - centre[g, 1]
            dist = math.hypot(rx, ry)
            if dist >= best:
                continue
            s = rx * axis[g, 0] + ry * axis[g, 1]  # across the passage
            lateral = abs(rx * axis[g, 1] - ry * axis[g, 0])
            going = pref[i, 0] * axis[g, 0] + pref[i, 1] * axis[g, 1]
            zone = abs(s) < half[g, 1] and lateral < half[g, 0] + radii[i]
            if zone and going != 0.0:
                d = 1 if going > 0.0 else -1
            elif _crossing(i, g, pairs, corridors, poly[i], corridor_len[i]):
                d = 1 if s < 0.0 else -1
                zone = False
            elif dist < hold + OUT_MARGIN and _crossing(i, g, pairs, corridors, 0, poly[i] + 1):
                d = 2 if s > 0.0 else -2  # through it, on its way out past those waiting
                zone = False
            else:
                continue
            best = dist
            row_gate[i], row_dir[i], row_inside[i] = g, d, zone
        g = row_gate[i]
        if g < 0 or abs(row_dir[i]) == 2:  # those on their way out neither hold the gate nor wait
            continue
        side = 1 if row_dir[i] > 0 else 0
        if row_inside[i]:
            rx, ry = positions[i, 0] - centre[g, 0], positions[i, 1] - centre[g, 1]
            if (rx * axis[g, 0] + ry * axis[g, 1]) * row_dir[i] < 0.0:  # not yet past the middle: holds it
                inside[g, side] += 1
        else:
            queued[g, side] += 1
            nearest_side[g, side] = min(nearest_side[g, side], best)
            if best < nearest[g]:
                nearest[g], nearest_dir[g] = best, row_dir[i]
    for g in range(n_gates):  # who has each gate
        d = owner[g]
        mine, theirs = (1, 0) if d > 0 else (0, 1)
        gap = queued[g, theirs] > 0 and nearest_side[g, mine] > hold + GAP_MARGIN
        if d != 0 and inside[g, mine] == 0 and (queued[g, mine] == 0 or green[g] > max_green or gap):
            d = 0  # its side is through (or has had its turn, or none of it is near while others wait): free
        if d == 0 and nearest[g] < np.inf:
            d = nearest_dir[g] if owner[g] == 0 or queued[g, theirs] == 0 else -owner[g]
        if d != owner[g]:
            green[g] = 0.0
        else:
            green[g] += dt
        owner[g] = d
    lead = np.full(n_gates, -1)  # the next agent in: the nearest queued one the gate is for
    lead_d = np.full(n_gates, np.inf)
    longest = np.full(n_gates, -1.0)  # [m] the longest way left after the gate of those queued it is for
    for i in range(n):
        g = row_gate[i]
        if g >= 0 and not row_inside[i] and row_dir[i] == owner[g]:
            longest[g] = max(longest[g], _way_after(i, g, centre, destination))
    for i in range(n):  # the queued agents the gate is not for hold
        g = row_gate[i]
        if g < 0:
            continue
        if row_inside[i] or abs(row_dir[i]) == 2:  # in the passage, or out past those waiting: pushing
            prio[i] = go_priority
            continue
        d = owner[g]
        mine = 1 if d > 0 else 0
        closing = green[g] > max_green and queued[g, 1 - mine] > 0 and d != 0
        if row_dir[i] == d and not closing:
            dist = math.hypot(positions[i, 0] - centre[g, 0], positions[i, 1] - centre[g, 1])
            later = dist >= hold and _way_after(i, g, centre, destination) < longest[g] - TAIL_SLACK
            if not later:
                if dist < lead_d[g]:
                    lead[g], lead_d[g] = i, dist
                continue
        held[i] = True
        prio[i] = yield_priority
        rx, ry = positions[i, 0] - centre[g, 0], positions[i, 1] - centre[g, 1]
        dist = math.hypot(rx, ry)
        if dist > 0.0:  # away from the gate's centre
            ox, oy = rx / dist, ry / dist
        else:
            ox, oy = -row_dir[i] * axis[g, 0], -row_dir[i] * axis[g, 1]
        # reach the hold circle in half a second, or back off to it
        _at_least(pref, i, ox, oy, (hold - dist) / 0.5)
        out = -row_dir[i]  # the side it waits on, as a sign along the axis
        ax, ay = out * axis[g, 0], out * axis[g, 1]
        depth = rx * ax + ry * ay  # [m] how far out from the line of the gate's portals
        _at_least(pref, i, ax, ay, (HOLD_DEPTH - depth) / 0.5)  # out to HOLD_DEPTH in half a second
        speed = math.hypot(pref[i, 0], pref[i, 1])
        if speed > top[i] > 0.0:
            pref[i, 0] *= top[i] / speed
            pref[i, 1] *= top[i] / speed
    for g in range(n_gates):
        if lead[g] >= 0:
            prio[lead[g]] = go_priority
