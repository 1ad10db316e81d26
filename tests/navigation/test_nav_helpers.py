"""The tests' own oracle: `nav_helpers.VisibilityGraph` (tangent lines only, corners within a bound) gives
the same lengths as a plain visibility graph over every pair of points, built here with networkx alone."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from nav_helpers import VisibilityGraph, data_file, octile_lengths

from navigation.grid_bake import grid_free_geometry
from navigation.movingai import read_map, read_scenarios


class _PlainGraph:
    """Dijkstra over s, t and every reflex corner, an edge for every pair in sight (no pruning). The
    corner-to-corner edges do not depend on s and t: they are tested for sight once, and each query adds
    the edges of its own two points (the same segments, in the same direction, as one graph over all)."""

    def __init__(self, graph: VisibilityGraph) -> None:
        self.graph = graph
        n = len(graph.corners)
        i, j = np.triu_indices(n, 1)
        seen = graph.visible(graph.corners[i], graph.corners[j])
        d = np.hypot(*(graph.at[i] - graph.at[j]).T)
        self.corner_edges = nx.Graph()
        self.corner_edges.add_nodes_from(range(n + 2))
        self.corner_edges.add_weighted_edges_from(
            zip(i[seen].tolist(), j[seen].tolist(), d[seen].tolist(), strict=True)
        )

    def length(self, s: tuple[float, float], t: tuple[float, float]) -> float:
        corners, at, n = self.graph.corners, self.graph.at, len(self.graph.corners)
        g = self.corner_edges.copy()
        for node, p in ((n, np.asarray(s, float)), (n + 1, np.asarray(t, float))):
            seen = self.graph.visible(corners, p)
            d = np.hypot(*(at - p).T)
            g.add_weighted_edges_from((k, node, d[k]) for k in np.flatnonzero(seen).tolist())
        if self.graph.visible(np.asarray(s, float), np.asarray(t, float)):
            g.add_edge(n, n + 1, weight=float(np.hypot(*(np.subtract(s, t)))))
        try:
            return float(nx.dijkstra_path_length(g, n, n + 1))
        except nx.NetworkXNoPath:
            return math.inf


def test_the_pruned_visibility_graph_matches_a_plain_one() -> None:
    grid = read_map(data_file("den312d.map"))
    scen = read_scenarios(data_file("den312d.map.scen"))[::7]
    graph = VisibilityGraph(grid_free_geometry(grid), snap=1.0)
    octile = octile_lengths(grid.blocked, [(sc.start, sc.goal) for sc in scen])
    oracle = _PlainGraph(graph)
    bent = 0
    for sc, bound in zip(scen, octile, strict=True):
        plain = oracle.length(sc.start_point, sc.goal_point)
        assert graph.length(sc.start_point, sc.goal_point) == pytest.approx(plain, abs=1e-9)
        assert graph.length(sc.start_point, sc.goal_point, bound=bound) == pytest.approx(plain, abs=1e-9)
        bent += plain > math.dist(sc.start_point, sc.goal_point) + 1e-6
    assert bent >= len(scen) // 2  # most of these paths go round corners: the pruning is exercised


def test_a_bound_shorter_than_every_path_finds_none() -> None:
    grid = read_map(data_file("den312d.map"))
    sc = next(s for s in read_scenarios(data_file("den312d.map.scen")) if s.optimal_length > 40)
    graph = VisibilityGraph(grid_free_geometry(grid), snap=1.0)
    exact = graph.length(sc.start_point, sc.goal_point)
    assert math.dist(sc.start_point, sc.goal_point) + 1e-3 < exact < math.inf
    assert graph.length(sc.start_point, sc.goal_point, bound=0.5 * exact) == math.inf
