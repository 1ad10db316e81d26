"""BVH motion capture files: any channel order and rotation order per joint, End Sites, unit scale,
converted from the file's Y-up frame to the Z-up world.

Rotation channels listed as ``Zrotation Yrotation Xrotation`` compose as intrinsic rotations in that
order (R = Rz @ Ry @ Rx), in degrees. Position channels are supported on the root joint only (they give
the root translation, added to its OFFSET). End Sites become joints named ``<parent>_end`` with no
channels. ``scale`` converts file units to metres (1.0 for files already in metres, 0.01 for cm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from . import quat
from .clip import Clip
from .errors import AnimationError, AnimationSettingsError, ClipFormatError
from .skeleton import Skeleton

_ROT = {"Xrotation": "X", "Yrotation": "Y", "Zrotation": "Z"}
_POS = {"Xposition": 0, "Yposition": 1, "Zposition": 2}
_FOOT_WORDS = ("toe", "foot", "ankle")


@dataclass
class _Joint:
    name: str
    parent: int
    offset: np.ndarray
    channels: list[str] = field(default_factory=list)
    line: int = 0


class _Tokens:
    """Whitespace tokens with their 1-based line numbers."""

    def __init__(self, lines: list[str], source: str) -> None:
        self.items = [(n + 1, tok) for n, line in enumerate(lines) for tok in line.split()]
        self.pos = 0
        self.source = source
        self.last_line = len(lines)

    def peek(self) -> tuple[int, str | None]:
        if self.pos < len(self.items):
            return self.items[self.pos]
        return self.last_line, None

    def next(self, what: str) -> tuple[int, str]:
        line, tok = self.peek()
        if tok is None:
            raise ClipFormatError(
                self.source, f"line {line}", f"file ends where {what} was expected (truncated?)"
            )
        self.pos += 1
        return line, tok

    def expect(self, word: str) -> int:
        line, tok = self.next(repr(word))
        if tok != word:
            raise ClipFormatError(self.source, f"line {line}", f"expected {word!r}, got {tok!r}")
        return line

    def number(self, what: str) -> float:
        line, tok = self.next(what)
        try:
            value = float(tok)
        except ValueError:
            raise ClipFormatError(
                self.source, f"line {line}", f"expected a number for {what}, got {tok!r}"
            ) from None
        if not math.isfinite(value):
            raise ClipFormatError(self.source, f"line {line}", f"{what} must be finite, got {tok!r}")
        return value


def _parse_joint(toks: _Tokens, joints: list[_Joint], parent: int, line: int, name: str) -> None:
    src = toks.source
    toks.expect("{")
    toks.expect("OFFSET")
    offset = np.array([toks.number("OFFSET x"), toks.number("OFFSET y"), toks.number("OFFSET z")])
    index = len(joints)
    joint = _Joint(name=name, parent=parent, offset=offset, line=line)
    joints.append(joint)
    cl, tok = toks.next("CHANNELS")
    if tok != "CHANNELS":
        raise ClipFormatError(src, f"line {cl}", f"expected CHANNELS for joint {name!r}, got {tok!r}")
    count_f = toks.number("the channel count")
    if count_f != int(count_f) or not 0 <= count_f <= 6:
        raise ClipFormatError(src, f"line {cl}", f"channel count must be an integer 0..6, got {count_f:g}")
    for _ in range(int(count_f)):
        cline, ch = toks.next("a channel name")
        if ch not in _ROT and ch not in _POS:
            raise ClipFormatError(src, f"line {cline}", f"unknown channel {ch!r} for joint {name!r}")
        if ch in _POS and parent != -1:
            raise ClipFormatError(src, f"line {cline}", f"position channel {ch!r} on non-root joint {name!r}")
        if ch in joint.channels:
            raise ClipFormatError(src, f"line {cline}", f"channel {ch!r} repeated for joint {name!r}")
        joint.channels.append(ch)
    while True:
        kline, key = toks.next("JOINT, End Site or '}'")
        if key == "}":
            return
        if key == "JOINT":
            _, child = toks.next("a joint name")
            _parse_joint(toks, joints, index, kline, child)
        elif key == "End":
            toks.expect("Site")
            toks.expect("{")
            toks.expect("OFFSET")
            end = np.array([toks.number("OFFSET x"), toks.number("OFFSET y"), toks.number("OFFSET z")])
            toks.expect("}")
            joints.append(_Joint(name=f"{name}_end", parent=index, offset=end, line=kline))
        else:
            raise ClipFormatError(src, f"line {kline}", f"expected JOINT, End Site or '}}', got {key!r}")


def _find_feet(names: tuple[str, ...]) -> tuple[str, str] | None:
    for word in _FOOT_WORDS:
        left = [
            n for n in names if word in n.lower() and not n.endswith("_end") and n.lower().startswith("l")
        ]
        right = [
            n for n in names if word in n.lower() and not n.endswith("_end") and n.lower().startswith("r")
        ]
        if left and right:
            return left[0], right[0]
    return None


def parse_bvh(
    text: str,
    source: str = "<string>",
    name: str = "bvh",
    scale: float = 1.0,
    loop: bool = False,
    feet: tuple[str, str] | None = None,
    smoothing_s: float = 0.4,
) -> Clip:
    """Parse BVH text into a clip (Z-up world, metres after ``scale``).

    Args:
        text: The file contents.
        source: Name used in error messages.
        scale: Metres per file unit [> 0].
        loop: Whether the clip cycles.
        feet: (left, right) foot joint names; found by name (toe, then foot, then ankle) if None.
        smoothing_s: Trajectory smoothing for one-shot clips [s] (see ``Clip.from_root_track``).
    Raises:
        ClipFormatError: naming the line (hierarchy, header, motion data) and the frame for motion rows.
    """
    if not (math.isfinite(scale) and scale > 0):
        raise AnimationSettingsError(f"BVH scale must be a positive number of metres per unit, got {scale!r}")
    lines = text.splitlines()
    motion_at = next((n for n, line in enumerate(lines) if line.strip() == "MOTION"), None)
    if motion_at is None:
        raise ClipFormatError(source, f"line {len(lines)}", "no MOTION section (truncated?)")
    toks = _Tokens(lines[:motion_at], source)
    toks.expect("HIERARCHY")
    rline, tok = toks.next("ROOT")
    if tok != "ROOT":
        raise ClipFormatError(source, f"line {rline}", f"expected ROOT, got {tok!r}")
    _, root_name = toks.next("the root name")
    joints: list[_Joint] = []
    _parse_joint(toks, joints, -1, rline, root_name)
    extra_line, extra = toks.peek()
    if extra is not None:
        raise ClipFormatError(source, f"line {extra_line}", f"unexpected {extra!r} after the hierarchy")
    n_frames, frame_time, first = _motion_header(lines, motion_at, source)
    n_channels = sum(len(j.channels) for j in joints)
    rows = [(n + 1, line) for n, line in enumerate(lines[first:], start=first) if line.strip()]
    if len(rows) < n_frames:
        raise ClipFormatError(
            source, f"line {len(lines)} (frame {len(rows)})", f"truncated: {len(rows)} of {n_frames} frames"
        )
    if len(rows) > n_frames:
        raise ClipFormatError(
            source, f"line {rows[n_frames][0]}", f"more than the {n_frames} declared frames"
        )
    data = np.empty((n_frames, n_channels))
    for k, (line_no, line) in enumerate(rows):
        parts = line.split()
        if len(parts) != n_channels:
            raise ClipFormatError(
                source,
                f"line {line_no} (frame {k})",
                f"expected {n_channels} channel values, got {len(parts)}",
            )
        try:
            data[k] = [float(v) for v in parts]
        except ValueError:
            raise ClipFormatError(
                source, f"line {line_no} (frame {k})", "channel value is not a number"
            ) from None
        if not np.all(np.isfinite(data[k])):
            raise ClipFormatError(source, f"line {line_no} (frame {k})", "channel value is not finite")
    if n_frames < 2:
        raise ClipFormatError(source, f"line {motion_at + 2}", "a clip needs at least 2 frames")
    return _build(joints, data, frame_time, source, name, scale, loop, feet, smoothing_s)


def _motion_header(lines: list[str], motion_at: int, source: str) -> tuple[int, float, int]:
    def field_value(offset: int, key: str) -> str:
        n = motion_at + offset
        if n >= len(lines):
            raise ClipFormatError(
                source, f"line {n + 1}", f"file ends where '{key}' was expected (truncated?)"
            )
        line = lines[n].strip()
        if not line.startswith(key):
            raise ClipFormatError(source, f"line {n + 1}", f"expected '{key} <value>', got {line!r}")
        return line[len(key) :].strip()

    frames_text = field_value(1, "Frames:")
    time_text = field_value(2, "Frame Time:")
    try:
        n_frames = int(frames_text)
    except ValueError:
        raise ClipFormatError(
            source, f"line {motion_at + 2}", f"frame count {frames_text!r} is not an integer"
        ) from None
    try:
        frame_time = float(time_text)
    except ValueError:
        raise ClipFormatError(
            source, f"line {motion_at + 3}", f"frame time {time_text!r} is not a number"
        ) from None
    if n_frames < 0:
        raise ClipFormatError(source, f"line {motion_at + 2}", f"frame count must be >= 0, got {n_frames}")
    if not (math.isfinite(frame_time) and frame_time > 0):
        raise ClipFormatError(source, f"line {motion_at + 3}", f"frame time must be > 0 s, got {time_text!r}")
    return n_frames, frame_time, motion_at + 3


def _build(
    joints: list[_Joint],
    data: np.ndarray,
    frame_time: float,
    source: str,
    name: str,
    scale: float,
    loop: bool,
    feet: tuple[str, str] | None,
    smoothing_s: float,
) -> Clip:
    names = tuple(j.name for j in joints)
    if len(set(names)) != len(names):
        dup = next(j for j in joints if names.count(j.name) > 1 and j is not joints[names.index(j.name)])
        raise ClipFormatError(source, f"line {dup.line}", f"joint name {dup.name!r} is used twice")
    offsets = quat.y_up_to_z_up_vector(np.array([j.offset for j in joints]) * scale)
    skeleton = Skeleton(names=names, parents=np.array([j.parent for j in joints]), offsets=offsets)
    n = data.shape[0]
    local = np.empty((n, len(joints), 4))
    local[:] = quat.IDENTITY
    root_pos = np.broadcast_to(joints[0].offset, (n, 3)).copy()
    col = 0
    for index, joint in enumerate(joints):
        rot_cols = [(col + c, _ROT[ch]) for c, ch in enumerate(joint.channels) if ch in _ROT]
        for c, ch in enumerate(joint.channels):
            if ch in _POS:
                root_pos[:, _POS[ch]] += data[:, col + c]
        if rot_cols:
            order = "".join(axis for _, axis in rot_cols)
            angles = data[:, [c for c, _ in rot_cols]]
            q = Rotation.from_euler(order, angles, degrees=True).as_quat()
            local[:, index] = quat.y_up_to_z_up_rotation(q)
        col += len(joint.channels)
    found = feet if feet is not None else _find_feet(names)
    if found is None:
        raise AnimationError(f"{source}: cannot find left/right foot joints by name; pass feet=(left, right)")
    return Clip.from_root_track(
        name=name,
        skeleton=skeleton,
        fps=1.0 / frame_time,
        root_world_positions=quat.y_up_to_z_up_vector(root_pos * scale),
        root_world_rotations=local[:, 0],
        local_rotations=local,
        loop=loop,
        feet=found,
        source=source,
        smoothing_s=smoothing_s,
    )


def load_bvh(
    path: str | Path,
    scale: float = 1.0,
    loop: bool = False,
    feet: tuple[str, str] | None = None,
    name: str | None = None,
    smoothing_s: float = 0.4,
) -> Clip:
    """Load a BVH file (see ``parse_bvh``); ClipFormatError names the file and line on malformed input."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ClipFormatError(str(path), "file", f"cannot read: {exc}") from None
    return parse_bvh(
        text,
        source=str(path),
        name=name or path.stem,
        scale=scale,
        loop=loop,
        feet=feet,
        smoothing_s=smoothing_s,
    )
