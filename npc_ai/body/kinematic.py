"""Kinematic character bodies: root motion moves them, the navmesh holds them, they keep apart.

The default character body is a dynamic capsule whose velocity code sets and whose contacts physics
solves. With many characters that is most of the tick (warehouse, 100 NPCs: stepping, reading back and
depenetrating 100 capsules is about 3 ms of a 6-8 ms tick; 1,000 capsules step in about 38 ms), so the
batched locomotion can instead move mass-0 capsules itself, as game character controllers do:

1. each body's root-motion displacement for the tick is its target;
2. `separate` pushes overlapping targets apart (circles of the body radius), and away from fixed circles
   such as the player, in a few Gauss-Seidel sweeps over neighbours found on a spatial hash;
3. `navigation.raycasts.slide_many` walks each body from where it stands toward its target on the navmesh
   surface, stopping at walls and ledges and sliding along them: the mesh is eroded by the agent radius,
   so a body on it never touches a wall, never leaves a floor or a bridge, and takes the floor's height
   from its polygon (on ramps and stairs too);
4. `World.place_kinematic` teleports the capsules there and writes the pose cache: nothing is read back.

Dynamic bodies (the player, props) collide with the capsules as with walls that move. Separation runs
before the navmesh walk, so a push never takes a body off the mesh; against a wall the walk wins and two
bodies may stay slightly closer than their radii until the next sweep.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from navigation.errors import NavMeshError
from navigation.kernel_cache import forget_stale_kernels
from navigation.mesh_kernels import SLID_OFF_MESH, SLID_WALL, surface_slides
from navigation.query import NavMeshQuery
from navigation.raycasts import SLIDE_BACK

# compiled into `place_rows`: the surface walks of navigation.mesh_kernels (and what they call)
forget_stale_kernels(
    __file__, ("navigation.mesh_kernels", "navigation.agent_kernels", "navigation.arguments")
)

GOLDEN = 2.399963229728653  # [rad] the golden angle: directions that coincident circles part along
ROUNDS = 3  # separate-then-walk rounds per tick at most (later rounds pin the bodies a wall stopped)
PAIR_MARGIN = 0.1  # [m] `separate` lists the pairs closer than two radii plus this
SIDESTEP = 0.5  # share of a move blocked by a touching body that `block` turns to the right of it
CONTACT = 0.01  # [m] circles closer than two radii plus this touch (`block`)
SWEEPS = 8  # Gauss-Seidel sweeps of `separate` per tick at most (Detour's crowd runs 4 Jacobi ones)


@njit(cache=True)
def _bucket(cx: int, cy: int, mask: int) -> int:
    """The spatial-hash bucket of grid cell (cx, cy) in a table of `mask + 1` (a power of two) buckets."""
    return ((cx * 73856093) ^ (cy * 19349663)) & mask


@njit(cache=True)
def _hash(
    xy: np.ndarray, size: float, start: np.ndarray, items: np.ndarray, cells: np.ndarray, mask: int
) -> None:
    """Fill the spatial hash: bucket q holds the points `items[start[q]:start[q + 1]]` (cells `size` [m]
    wide); `cells` (n, 2) gets each point's cell, so a bucket's points of other cells can be told apart."""
    start[:] = 0
    n = xy.shape[0]
    bucket = np.empty(n, dtype=np.int64)
    for i in range(n):
        cx, cy = math.floor(xy[i, 0] / size), math.floor(xy[i, 1] / size)
        cells[i, 0], cells[i, 1] = cx, cy
        q = _bucket(cx, cy, mask)
        bucket[i] = q
        start[q + 1] += 1
    for q in range(mask + 1):
        start[q + 1] += start[q]
    fill = start[:-1].copy()
    for i in range(n):
        items[fill[bucket[i]]] = i
        fill[bucket[i]] += 1


@njit(cache=True)
def block(
    xy: np.ndarray, target: np.ndarray, radius: float, others: np.ndarray, other_radii: np.ndarray
) -> int:
    """Stop each circle's move from `xy` (n, 2) toward `target` (n, 2) [m] (changed in place) from going
    into circles it touches (closer than two radii plus `CONTACT` [m]) or into the fixed circles `others`:
    the part of the move along each such contact's normal, toward the other circle, is removed (a contact
    as a physics solver keeps it: the crowd stops a body that pushes into it; moving apart or sideways
    stays free). Returns the contacts that removed something."""
    n = xy.shape[0]
    move = target - xy
    pi, pj = pair_list(xy, 2.0 * radius + CONTACT)
    stopped = 0
    for k in range(pi.shape[0]):
        for i, j in ((pi[k], pj[k]), (pj[k], pi[k])):
            ex, ey = xy[j, 0] - xy[i, 0], xy[j, 1] - xy[i, 1]
            d = math.hypot(ex, ey)
            into = (move[i, 0] * ex + move[i, 1] * ey) / max(d, 1e-9)
            if d >= 1e-9 and into > 0.0:
                # keep the part along the contact, and turn a share of the blocked part to the right of
                # the other body (both of a head-on pair step to their right and pass, as people do)
                move[i, 0] += into * (-ex + SIDESTEP * ey) / d
                move[i, 1] += into * (-ey - SIDESTEP * ex) / d
                stopped += 1
    for i in range(n):
        for k in range(others.shape[0]):
            ex, ey = others[k, 0] - xy[i, 0], others[k, 1] - xy[i, 1]
            d = math.hypot(ex, ey)
            if d >= radius + other_radii[k] + CONTACT or d < 1e-9:
                continue
            into = (move[i, 0] * ex + move[i, 1] * ey) / d
            if into > 0.0:
                move[i, 0] -= into * ex / d
                move[i, 1] -= into * ey / d
                stopped += 1
        target[i, 0], target[i, 1] = xy[i, 0] + move[i, 0], xy[i, 1] + move[i, 1]
    return stopped


# a point's own cell and the 4 cells after it (a half stencil): each pair of neighbouring cells is looked at
# from one side only, so no pair is found twice and no bucket needs de-duplicating
_STENCIL = ((0, 0), (1, 0), (-1, 1), (0, 1), (1, 1))


@njit(cache=True)
def _near_pairs(xy: np.ndarray, reach: float, room: int, pi: np.ndarray, pj: np.ndarray) -> int:
    """The pairs i < j of points (n, 2) [m] closer than `reach` [m], found on a spatial hash of cells
    `reach` wide, in a fixed order; the first `room` written to `pi`, `pj`. Returns how many there are."""
    n = xy.shape[0]
    table = 1
    while table < 2 * n:
        table *= 2
    mask = table - 1
    start = np.zeros(table + 1, dtype=np.int64)
    items = np.empty(n, dtype=np.int64)
    cells = np.empty((n, 2), dtype=np.int64)
    _hash(xy, reach, start, items, cells, mask)
    count, reach2 = 0, reach * reach
    for i in range(n):
        cx, cy = cells[i, 0], cells[i, 1]
        for dx, dy in _STENCIL:
            x, y = cx + dx, cy + dy
            q = _bucket(x, y, mask)
            own = dx == 0 and dy == 0
            for b in range(start[q], start[q + 1]):
                j = items[b]
                if cells[j, 0] != x or cells[j, 1] != y or (own and j <= i):
                    continue  # another cell in this bucket, or a pair of this cell seen from its other end
                ex, ey = xy[j, 0] - xy[i, 0], xy[j, 1] - xy[i, 1]
                if ex * ex + ey * ey < reach2:
                    if count < room:
                        pi[count], pj[count] = min(i, j), max(i, j)
                    count += 1
    return count


@njit(cache=True)
def pair_list(xy: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """`_near_pairs` as two arrays (i, j): one pass, into room for 8 pairs a point (circles that do not
    overlap have about 6 neighbours within two radii at most); a tighter pack takes a second pass."""
    room = 8 * xy.shape[0]
    pi, pj = np.empty(room, dtype=np.int64), np.empty(room, dtype=np.int64)
    m = _near_pairs(xy, reach, room, pi, pj)
    if m > room:
        pi, pj = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
        _near_pairs(xy, reach, m, pi, pj)
    return pi[:m], pj[:m]


@njit(cache=True)
def separate(
    xy: np.ndarray,
    radius: float,
    others: np.ndarray,
    other_radii: np.ndarray,
    sweeps: int,
    pinned: np.ndarray,
) -> int:
    """Push the circles (n, 2) [m] of `radius` [m] apart in place, and out of the fixed circles `others`
    (m, 2) with `other_radii` (m,) [m]: each sweep moves both circles of an overlapping pair apart by
    half the overlap, or the free one by all of it when the other is `pinned` (n,) bool (against a wall),
    and a free circle out of a fixed one by all of it, each push applied at once (Gauss-Seidel).
    The sweeps run over a list of the pairs closer than two radii plus `PAIR_MARGIN` (a spatial hash
    finds them), made again when a circle has moved half the margin since (so no pair is missed: a
    Verlet list). Coincident circles part along a direction fixed by their indices. Returns the
    overlaps (deeper than 1 mm) the last sweep found."""
    n = xy.shape[0]
    size = 2.0 * radius
    anchor = xy.copy()
    pi, pj = pair_list(xy, size + PAIR_MARGIN)
    left = 0
    rebuild = (0.5 * PAIR_MARGIN) ** 2  # a circle that moved this far (squared) [m^2] may have new pairs
    for _ in range(sweeps):
        for i in range(n):
            dx, dy = xy[i, 0] - anchor[i, 0], xy[i, 1] - anchor[i, 1]
            if dx * dx + dy * dy > rebuild:
                anchor[:] = xy
                pi, pj = pair_list(xy, size + PAIR_MARGIN)
                break
        left = 0
        for k in range(pi.shape[0]):
            i, j = pi[k], pj[k]
            ex, ey = xy[j, 0] - xy[i, 0], xy[j, 1] - xy[i, 1]
            d2 = ex * ex + ey * ey
            if d2 >= size * size:  # most listed pairs do not touch: no square root for them
                continue
            d = math.sqrt(d2)
            gap = size - d
            if gap > 1e-3:
                left += 1
            if d < 1e-9:
                angle = GOLDEN * (i + 1) + 0.5 * j
                ex, ey, d = math.cos(angle), math.sin(angle), 1.0
            if pinned[i] and pinned[j]:
                continue
            share = 0.0 if pinned[i] else (1.0 if pinned[j] else 0.5)
            xy[i, 0] -= ex * share * gap / d
            xy[i, 1] -= ey * share * gap / d
            xy[j, 0] += ex * (1.0 - share) * gap / d
            xy[j, 1] += ey * (1.0 - share) * gap / d
        for i in range(n if others.shape[0] else 0):
            if pinned[i]:
                continue
            for k in range(others.shape[0]):
                ex, ey = xy[i, 0] - others[k, 0], xy[i, 1] - others[k, 1]
                reach = radius + other_radii[k]
                d2 = ex * ex + ey * ey
                if d2 >= reach * reach:
                    continue
                d = math.sqrt(d2)
                gap = reach - d
                if gap > 1e-3:
                    left += 1
                if d < 1e-9:
                    ex, ey, d = math.cos(GOLDEN * (i + 1)), math.sin(GOLDEN * (i + 1)), 1.0
                xy[i, 0] += ex * gap / d
                xy[i, 1] += ey * gap / d
        if left == 0:
            break
    return left


@njit(cache=True)
def place_rows(
    feet: np.ndarray,
    target: np.ndarray,
    radius: float,
    others: np.ndarray,
    other_radii: np.ndarray,
    sweeps: int,
    rounds: int,
    grid: np.ndarray,
    cells: np.ndarray,
    items: np.ndarray,
    origin_x: float,
    origin_y: float,
    size: float,
    edges: np.ndarray,
    planes: np.ndarray,
    neighbors: np.ndarray,
    eps: float,
    tolerance: float,
    back: float,
    found: np.ndarray,
    gaps: np.ndarray,
    visited: np.ndarray,
    out: np.ndarray,
    on_mesh: np.ndarray,
) -> int:
    """Where each body ends this tick (the module doc's steps 2 and 3, in one call): `target` (n, 2) [m],
    pushed apart in place (`separate`), walked to on the surface from `feet` (n, 3) [m] (`surface_slides`);
    while a wall stopped some and others still overlap (at most `rounds` rounds), the bodies a wall
    stopped are pinned and the rest are separated and walked again. Writes `out` (n, 3) [m] and
    `on_mesh` (n,) (False: the start was on no polygon; out = the start). Returns `surface_slides`' code
    (-1: done)."""
    n = feet.shape[0]
    flat = np.empty((n, 2))
    for i in range(n):
        flat[i, 0], flat[i, 1] = feet[i, 0], feet[i, 1]
    block(flat, target, radius, others, other_radii)
    pinned = np.zeros(n, dtype=np.bool_)
    flags = np.zeros(n, dtype=np.int64)
    start = feet.copy()
    ends = np.empty((n, 3))
    on_mesh[:] = True
    for r in range(rounds):
        if r > 0:
            walled = False
            for i in range(n):
                if flags[i] == SLID_WALL:
                    pinned[i] = True
                    walled = True
            if not walled:
                break
            for i in range(n):
                target[i, 0], target[i, 1] = out[i, 0], out[i, 1]
            start[:] = out
        if separate(target, radius, others, other_radii, sweeps, pinned) == 0 and r > 0:
            break
        for i in range(n):
            ends[i, 0], ends[i, 1], ends[i, 2] = target[i, 0], target[i, 1], start[i, 2]
        code = surface_slides(
            grid,
            cells,
            items,
            origin_x,
            origin_y,
            size,
            edges,
            planes,
            neighbors,
            eps,
            tolerance,
            start,
            ends,
            back,
            found,
            gaps,
            visited,
            out,
            flags,
        )
        if code != -1:
            return code
        for i in range(n):
            if flags[i] == SLID_OFF_MESH:
                on_mesh[i] = False
    return -1


def place(
    query: NavMeshQuery,
    feet: np.ndarray,
    target: np.ndarray,
    radius: float,
    others: np.ndarray,
    other_radii: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """`place_rows` on `query`'s mesh with `SWEEPS` and `ROUNDS`: ((n, 3) where the bodies end [m], (n,)
    bool: the start was on the mesh). `target` (n, 2) is overwritten."""
    n = len(feet)
    out, on_mesh = np.empty((n, 3)), np.empty(n, dtype=np.bool_)
    grid, cells, items = query._grid
    code = place_rows(
        feet, target, radius, others, other_radii, SWEEPS, ROUNDS, grid, cells, items,
        float(query._origin[0]), float(query._origin[1]), query._bucket, query._edges, query._plane_rows,
        query._neighbors, query._eps, query.height_tolerance, SLIDE_BACK, query._found, query._gaps,
        query._visited, out, on_mesh,
    )  # fmt: skip
    if code != -1:
        raise NavMeshError(
            "kinematic bodies need finite positions within the coordinate limit"
            if code < -1
            else "surface walk did not terminate: the mesh adjacency is inconsistent"
        )
    return out, on_mesh


def warm_up(query: NavMeshQuery) -> None:
    """Compile `separate` and `place_rows` now for `query`'s array types (or load them from the disk
    cache), not in the first tick."""
    xy = np.array([[0.0, 0.0], [0.1, 0.0]])
    separate(xy, 0.3, np.zeros((1, 2)), np.ones(1), 1, np.zeros(2, dtype=np.bool_))
    place(query, np.zeros((0, 3)), np.zeros((0, 2)), 0.3, np.zeros((1, 2)), np.ones(1))
