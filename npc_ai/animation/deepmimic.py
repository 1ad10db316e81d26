"""DeepMimic motion files (pybullet_data/data/motions/humanoid3d_*.txt) on the humanoid.urdf skeleton.

File format: JSON ``{"Loop": "wrap" | "none" | "clamp", "Frames": [[...], ...]}``; each frame is the time
to the next frame [s], the root position xyz (Y-up) [m], the root rotation (wxyz), then the joints chest,
neck, right hip, right knee, right ankle, right shoulder, right elbow, left hip, left knee, left ankle,
left shoulder, left elbow: spherical joints as wxyz quaternions, knees and elbows as one angle [rad] about
the joint axis in the URDF.

Units: root positions in the motion files are metres (the walk's root sits 0.85 m above the floor); the
URDF joint origins are in the humanoid's model units, which pybullet's DeepMimic examples load with
``globalScaling=0.25``, so offsets are multiplied by ``URDF_SCALE`` = 0.25 to get metres (leg length
0.83 m for a 0.85 m hip height). The walk loop then advances 1.24 m in 1.27 s (0.98 m/s).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import quat
from .clip import Clip
from .errors import ClipFormatError
from .skeleton import Skeleton

URDF_SCALE = 0.25
"""Metres per humanoid.urdf unit (pybullet's DeepMimic examples load the URDF with globalScaling=0.25)."""

MOTION_JOINTS: tuple[tuple[str, int], ...] = (
    ("chest", 4),
    ("neck", 4),
    ("right_hip", 4),
    ("right_knee", 1),
    ("right_ankle", 4),
    ("right_shoulder", 4),
    ("right_elbow", 1),
    ("left_hip", 4),
    ("left_knee", 1),
    ("left_ankle", 4),
    ("left_shoulder", 4),
    ("left_elbow", 1),
)
"""Joint order and values per joint (4 = wxyz quaternion, 1 = revolute angle) after the root."""

FRAME_WIDTH = 1 + 3 + 4 + sum(n for _, n in MOTION_JOINTS)
FEET = ("left_ankle", "right_ankle")


def pybullet_data_path() -> Path:
    """The pybullet_data directory (imported lazily; pybullet_data is a pure-data package)."""
    import pybullet_data

    return Path(pybullet_data.getDataPath())


def _floats(text: str | None, count: int, source: str, where: str) -> np.ndarray:
    try:
        values = np.array([float(v) for v in (text or "").split()])
    except ValueError:
        raise ClipFormatError(source, where, f"expected {count} numbers, got {text!r}") from None
    if values.shape != (count,):
        raise ClipFormatError(source, where, f"expected {count} numbers, got {text!r}")
    return values


def load_urdf_skeleton(path: str | Path | None = None, scale: float = URDF_SCALE) -> tuple[Skeleton, dict]:
    """Skeleton of a URDF (joint origins as offsets, Y-up model converted to the Z-up world).

    Returns:
        The skeleton (root link first, then one joint per child link named after the link) and a dict of
        joint name -> revolute axis (3,) in the Z-up frame for revolute joints.
    """
    path = Path(path) if path is not None else pybullet_data_path() / "humanoid" / "humanoid.urdf"
    source = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ClipFormatError(source, "file", f"cannot read URDF: {exc}") from None
    try:  # pybullet_data's humanoid.urdf ends with a stray NUL byte: strip trailing padding
        root = ET.fromstring(raw.rstrip(b"\x00 \t\r\n"))
    except ET.ParseError as exc:
        raise ClipFormatError(source, f"line {exc.position[0]}", f"invalid URDF XML: {exc}") from None
    joints = root.findall("joint")

    def linked(joint: ET.Element, tag: str) -> str:
        """The link named by a joint's <parent>/<child> element (ClipFormatError when it is missing)."""
        element = joint.find(tag)
        name = element.get("link") if element is not None else None
        if not name:
            raise ClipFormatError(source, f"joint {joint.get('name')!r}", f"has no <{tag} link=...>")
        return name

    children = {linked(j, "child") for j in joints}
    links = [link.get("name") or "" for link in root.findall("link")]
    # The skeleton root is the first link whose parent is a fixed joint to a root-less "base" (or any
    # link that is never a child).
    names: list[str] = []
    parents: list[int] = []
    offsets: list[np.ndarray] = []
    axes: dict[str, np.ndarray] = {}
    base = [name for name in links if name not in children]
    if len(base) != 1:
        raise ClipFormatError(source, "robot", f"expected one root link, found {base}")
    start = base[0]
    fixed_to_base = [j for j in joints if linked(j, "parent") == start and j.get("type") == "fixed"]
    if len(fixed_to_base) == 1:  # base -> root fixed joint (the DeepMimic humanoid)
        start = linked(fixed_to_base[0], "child")
    names.append(start)
    parents.append(-1)
    offsets.append(np.zeros(3))
    pending = [j for j in joints if linked(j, "child") != start]
    while pending:
        progressed = False
        for j in list(pending):
            parent = linked(j, "parent")
            if parent not in names:
                continue
            child = linked(j, "child")
            origin = j.find("origin")
            where = f"joint {j.get('name')!r}"
            xyz = _floats(origin.get("xyz") if origin is not None else "0 0 0", 3, source, where)
            rpy = _floats(origin.get("rpy") if origin is not None else "0 0 0", 3, source, where)
            if np.any(np.abs(rpy) > 1e-9):
                raise ClipFormatError(source, where, "joint origins with rotations (rpy) are not supported")
            names.append(child)
            parents.append(names.index(parent))
            offsets.append(quat.y_up_to_z_up_vector(xyz * scale))
            if j.get("type") == "revolute":
                axis_el = j.find("axis")
                axis = _floats(axis_el.get("xyz") if axis_el is not None else "1 0 0", 3, source, where)
                axes[child] = quat.y_up_to_z_up_vector(axis / np.linalg.norm(axis))
            pending.remove(j)
            progressed = True
        if not progressed:
            raise ClipFormatError(source, "robot", "joints whose parent link is not connected to the root")
    return Skeleton(names=tuple(names), parents=np.array(parents), offsets=np.array(offsets)), axes


@lru_cache(maxsize=4)
def _humanoid() -> tuple[Skeleton, dict]:
    return load_urdf_skeleton()


def _frame_error(source: str, text: str, index: int, problem: str) -> ClipFormatError:
    return ClipFormatError(source, f"frame {index}", problem)


def parse_deepmimic(
    text: str, source: str = "<string>", name: str = "motion", smoothing_s: float = 0.4
) -> Clip:
    """Parse DeepMimic motion JSON text into a clip on the humanoid.urdf skeleton.

    Raises:
        ClipFormatError: naming the line (JSON syntax) or the frame (wrong count, non-numeric, bad duration).
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClipFormatError(
            source, f"line {exc.lineno} column {exc.colno}", f"invalid JSON: {exc.msg}"
        ) from None
    if not isinstance(doc, dict) or "Frames" not in doc:
        raise ClipFormatError(source, "line 1", "expected a JSON object with 'Loop' and 'Frames'")
    loop_mode = doc.get("Loop", "none")
    if loop_mode not in ("wrap", "none", "clamp"):
        raise ClipFormatError(source, "Loop", f"expected 'wrap', 'none' or 'clamp', got {loop_mode!r}")
    frames = doc["Frames"]
    if not isinstance(frames, list) or len(frames) < 2:
        raise ClipFormatError(source, "Frames", "expected a list of at least 2 frames")
    data = np.empty((len(frames), FRAME_WIDTH))
    for k, frame in enumerate(frames):
        if not isinstance(frame, list) or len(frame) != FRAME_WIDTH:
            got = len(frame) if isinstance(frame, list) else type(frame).__name__
            raise _frame_error(source, text, k, f"expected {FRAME_WIDTH} numbers, got {got}")
        try:
            row = np.array(frame, dtype=float)
        except (TypeError, ValueError):
            raise _frame_error(source, text, k, "contains a value that is not a number") from None
        if not np.all(np.isfinite(row)) or any(isinstance(v, bool) for v in frame):
            raise _frame_error(source, text, k, "contains a non-finite or non-numeric value")
        data[k] = row
    durations = data[:-1, 0]
    bad = np.flatnonzero(~(durations > 0))
    if bad.size:
        raise _frame_error(
            source, text, int(bad[0]), f"frame duration must be > 0 s, got {durations[bad[0]]}"
        )
    quats = _joint_quaternions(data, source)
    times = np.concatenate([[0.0], np.cumsum(durations)])
    step = float(np.median(durations))
    if np.max(np.abs(durations - step)) > 1e-3 * step:
        data, quats, step = _resample(times, data, quats, step)
    skeleton, _ = _humanoid()
    root_pos = quat.y_up_to_z_up_vector(data[:, 1:4])
    root_rot = quat.y_up_to_z_up_rotation(quats[:, 0])
    local = np.empty((data.shape[0], skeleton.n_joints, 4))
    local[:] = quat.IDENTITY
    for m, (joint, _) in enumerate(MOTION_JOINTS):
        local[:, skeleton.index(joint)] = quat.y_up_to_z_up_rotation(quats[:, m + 1])
    return Clip.from_root_track(
        name=name,
        skeleton=skeleton,
        fps=1.0 / step,
        root_world_positions=root_pos,
        root_world_rotations=root_rot,
        local_rotations=local,
        loop=loop_mode == "wrap",
        feet=FEET,
        source=source,
        smoothing_s=smoothing_s,
    )


def _joint_quaternions(data: np.ndarray, source: str) -> np.ndarray:
    """(F, 13, 4) xyzw quaternions in the Y-up model frame: root then the motion joints."""
    _, axes = _humanoid()
    out = np.empty((data.shape[0], len(MOTION_JOINTS) + 1, 4))
    col = 4
    wxyz = data[:, col : col + 4]
    out[:, 0] = wxyz[:, [1, 2, 3, 0]]
    col += 4
    for m, (joint, width) in enumerate(MOTION_JOINTS):
        if width == 4:
            wxyz = data[:, col : col + 4]
            out[:, m + 1] = wxyz[:, [1, 2, 3, 0]]
        else:
            axis_y_up = quat.Y_UP_TO_Z_UP.T @ axes[joint]
            out[:, m + 1] = quat.from_axis_angle(axis_y_up, data[:, col])
        col += width
    norms = np.linalg.norm(out, axis=-1)
    bad = np.argwhere(norms < 1e-6)
    if bad.size:
        raise ClipFormatError(source, f"frame {int(bad[0, 0])}", "zero-length rotation quaternion")
    return quat.normalize(out)


def _resample(
    times: np.ndarray, data: np.ndarray, quats: np.ndarray, step: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """Resample non-uniform frames onto a uniform grid of about ``step`` [s] (lerp / slerp)."""
    total = float(times[-1])
    n = max(round(total / step), 1) + 1
    step = total / (n - 1)
    t = np.linspace(0.0, total, n)
    i = np.clip(np.searchsorted(times, t, side="right") - 1, 0, len(times) - 2)
    a = np.clip((t - times[i]) / (times[i + 1] - times[i]), 0.0, 1.0)
    new = np.empty((n, data.shape[1]))
    new[:, 0] = step
    new[:, 1:4] = (1 - a[:, None]) * data[i, 1:4] + a[:, None] * data[i + 1, 1:4]
    q = quat.slerp(quats[i], quats[i + 1], np.broadcast_to(a[:, None], quats[i].shape[:-1]))
    return new, q, step


def load_deepmimic(path: str | Path, name: str | None = None, smoothing_s: float = 0.4) -> Clip:
    """Load a DeepMimic motion file (see the module docstring); ClipFormatError on malformed files."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ClipFormatError(str(path), "file", f"cannot read: {exc}") from None
    return parse_deepmimic(text, source=str(path), name=name or path.stem, smoothing_s=smoothing_s)


def builtin_motion_path(name: str) -> Path:
    """Path of pybullet_data's ``humanoid3d_<name>.txt``."""
    return pybullet_data_path() / "data" / "motions" / f"humanoid3d_{name}.txt"


def revolute_axis(joint: str) -> np.ndarray:
    """Z-up revolute axis (3,) of a humanoid.urdf knee or elbow."""
    return _humanoid()[1][joint]


__all__ = [
    "FEET",
    "URDF_SCALE",
    "builtin_motion_path",
    "load_deepmimic",
    "load_urdf_skeleton",
    "parse_deepmimic",
    "revolute_axis",
]
