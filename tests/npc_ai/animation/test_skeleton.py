import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from npc_ai.animation import AnimationError, Skeleton, forward_kinematics, quat


@st.composite
def skeletons(draw):
    n = draw(st.integers(1, 12))
    parents = [-1] + [draw(st.integers(0, j - 1)) for j in range(1, n)]
    offsets = draw(arrays(float, (n, 3), elements=st.floats(-1, 1)))
    return Skeleton(names=tuple(f"j{i}" for i in range(n)), parents=np.array(parents), offsets=offsets)


@settings(max_examples=100, deadline=None)
@given(skeletons(), arrays(float, (3,), elements=st.floats(-5, 5)))
def test_fk_identity_pose_accumulates_offsets(skeleton, root):
    rots = np.broadcast_to(quat.IDENTITY, (2, skeleton.n_joints, 4))
    pos, _ = forward_kinematics(skeleton, np.stack([root, root]), rots)
    expected = np.zeros((skeleton.n_joints, 3))
    expected[0] = root
    for j in range(1, skeleton.n_joints):
        expected[j] = expected[skeleton.parents[j]] + skeleton.offsets[j]
    assert np.allclose(pos[0], expected) and np.allclose(pos[1], expected)


def test_fk_rotated_chain():
    sk = Skeleton(
        names=("a", "b", "c"),
        parents=np.array([-1, 0, 1]),
        offsets=np.array([[0, 0, 0], [1, 0, 0], [1, 0, 0]]),
    )
    rots = np.stack([quat.IDENTITY, quat.from_yaw(np.pi / 2), quat.IDENTITY])
    pos, _ = forward_kinematics(sk, np.zeros(3), rots)
    assert np.allclose(pos, [[0, 0, 0], [1, 0, 0], [1, 1, 0]])


@pytest.mark.parametrize(
    "names, parents, match",
    [
        (("a", "a"), [-1, 0], "unique"),
        (("a", "b"), [0, 0], "parents"),
        (("a", "b"), [-1, 1], "parents"),
    ],
)
def test_bad_skeletons(names, parents, match):
    with pytest.raises(AnimationError, match=match):
        Skeleton(names=names, parents=np.array(parents), offsets=np.zeros((len(names), 3)))
