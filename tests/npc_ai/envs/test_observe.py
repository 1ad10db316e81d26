"""The observation builders against a second method: the compiled scan against `World.ray_test` and the
numpy formula it replaced, the plain-float target rows against `sensing.target_rows` (numpy), bit for bit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("gymnasium")

from npc_ai.envs import StealthEnv
from npc_ai.envs.observe import target_rows
from npc_ai.envs.sensing import HIT_GUARD, HIT_LEVEL, HIT_NONE, HIT_PLAYER, RAY_CLEARANCE, scan_rays
from npc_ai.envs.sensing import target_rows as numpy_target_rows
from scenes import groups


def test_the_compiled_scan_reads_what_world_ray_test_reads() -> None:
    env = StealthEnv(guards=8, rays=24, ray_range=12.0)
    env.reset(seed=4)
    env.action_space.seed(4)
    for _ in range(20):
        env.step(env.action_space.sample())
    m = env.match
    sim = m.sim
    feet = np.vstack([sim.locomotion.positions, sim.player.position])
    yaws = np.append(sim.locomotion.yaw, sim.player.yaw)
    radii = np.append(m.guard_radii, m.player_radius)
    distance, kind, first = m.senses.cast(feet, yaws, radii, feet[:2] + [0, 0, 2.5], feet[2:4] + [0, 0, 2.5])
    # the reference: the scan's rays through World.ray_test and the numpy formula the kernels replaced
    clearance = radii + RAY_CLEARANCE
    starts, ends = scan_rays(feet + [0.0, 0.0, 0.6], yaws, 24, 12.0, clearance)
    hits = sim.world.ray_test(starts, ends)
    frac = hits.fraction.reshape(-1, 24)
    expected = np.where(frac < 1.0, clearance[:, None] + frac * (12.0 - clearance[:, None]), 12.0)
    assert distance.dtype == np.float32 and np.array_equal(distance, expected.astype(np.float32))
    kinds = {groups.NPC: HIT_GUARD, groups.PLAYER: HIT_PLAYER}
    body = hits.body.reshape(-1, 24)
    want = [
        [HIT_NONE if b < 0 else kinds.get(sim.world.groups.get(b, -1), HIT_LEVEL) for b in row]
        for row in body
    ]
    assert kind.tolist() == want and (kind == HIT_GUARD).any() and (kind == HIT_LEVEL).any()
    los = sim.world.ray_test(feet[:2] + [0, 0, 2.5], feet[2:4] + [0, 0, 2.5])
    assert first.tolist() == los.body.tolist()
    env.close()


finite = st.floats(-60.0, 60.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    origin=st.tuples(finite, finite),
    yaw=st.floats(-7.0, 7.0),
    slots=st.lists(
        st.one_of(
            st.none(),
            st.tuples(
                finite, finite, st.floats(-1.0, 1e7), st.booleans(), st.floats(-7.0, 7.0), st.booleans()
            ),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_plain_float_target_rows_equal_the_numpy_ones(origin, yaw, slots) -> None:
    agent = (origin[0], origin[1], yaw, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    fast = target_rows([agent], [slots])[0]
    known = np.array([t is not None for t in slots])
    filled = [t if t is not None else (0.0, 0.0, 0.0, False, 0.0, False) for t in slots]
    reference = numpy_target_rows(
        np.array([origin[0], origin[1], 0.0]),
        yaw,
        known,
        np.array([(t[0], t[1], 0.0) for t in filled]),
        np.array([t[2] for t in filled]),
        np.array([t[3] for t in filled]),
        np.array([t[4] for t in filled]),
        np.array([t[5] for t in filled]),
    )
    assert fast.dtype == np.float32 and np.array_equal(fast, reference)
    assert not math.isnan(float(fast.sum()))
