import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.transform import Rotation

from npc_ai.animation import quat

finite = st.floats(-10, 10, allow_nan=False)
quats = arrays(float, (4,), elements=finite).filter(lambda q: np.linalg.norm(q) > 1e-2).map(quat.normalize)


@settings(max_examples=200, deadline=None)
@given(quats, quats, st.floats(0, 1))
def test_slerp_unit_norm_and_endpoints(a, b, t):
    q = quat.slerp(a, b, t)
    assert abs(np.linalg.norm(q) - 1.0) < 1e-9
    assert min(np.linalg.norm(quat.slerp(a, b, 0.0) - a), np.linalg.norm(quat.slerp(a, b, 0.0) + a)) < 1e-9
    end = quat.slerp(a, b, 1.0)
    assert min(np.linalg.norm(end - b), np.linalg.norm(end + b)) < 1e-6


@settings(max_examples=100, deadline=None)
@given(quats, quats, arrays(float, (3,), elements=finite))
def test_multiply_and_rotate_match_scipy(a, b, v):
    ours = quat.multiply(a, b)
    ref = (Rotation.from_quat(a) * Rotation.from_quat(b)).as_quat()
    assert min(np.abs(ours - ref).max(), np.abs(ours + ref).max()) < 1e-9
    assert np.allclose(quat.rotate(a, v), Rotation.from_quat(a).apply(v), atol=1e-9)


def test_slerp_halfway_angle():
    a = quat.IDENTITY
    b = quat.from_yaw(np.pi / 2)
    assert np.isclose(quat.yaw_of(quat.slerp(a, b, 0.5), [1, 0, 0]), np.pi / 4)


def test_y_up_to_z_up_maps_axes():
    assert np.allclose(quat.y_up_to_z_up_vector([0, 1, 0]), [0, 0, 1])
    assert np.allclose(quat.y_up_to_z_up_vector([0, 0, 1]), [0, -1, 0])
    # a yaw about Y-up's y becomes a yaw about the world z
    q = Rotation.from_rotvec([0, 0.3, 0]).as_quat()
    assert np.allclose(Rotation.from_quat(quat.y_up_to_z_up_rotation(q)).as_rotvec(), [0, 0, 0.3])
