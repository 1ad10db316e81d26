"""Built-in clips by name, clip summaries and plots: the functions the CLI calls."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from .bvh import load_bvh
from .clip import Clip
from .contacts import detect_contacts
from .deepmimic import builtin_motion_path, load_deepmimic
from .errors import AnimationError
from .root_motion import has_root_motion

BUILTIN_NAMES = (
    "idle",
    "walk",
    "run",
    "jump",
    "roll",
    "kick",
    "punch",
    "spin",
    "spinkick",
    "backflip",
    "cartwheel",
    "crawl",
    "dance_a",
    "dance_b",
    "getup_facedown",
    "getup_faceup",
)


@lru_cache(maxsize=64)
def _builtin(name: str, clean: bool = False) -> Clip:
    if clean:
        from .cleanup import clean_clip

        return clean_clip(_builtin(name))
    if name == "idle":
        from .locomotion import hold_pose

        getup = _builtin("getup_facedown")
        return hold_pose(getup, getup.duration, 1.0, name="idle")
    return load_deepmimic(builtin_motion_path(name), name=name)


def load_clip(name_or_path: str | Path, clean: bool = False) -> Clip:
    """A clip by built-in name ('idle', 'walk', 'run', ... from pybullet_data) or from a DeepMimic .txt
    or .bvh file path. ``clean=True`` applies the cleanup step (``cleanup.clean_clip``: resampling to the
    60 Hz playback rate, then foot locking with two-bone IK); the default returns the raw capture. Raises
    AnimationError for unknown names, ClipFormatError for malformed files."""
    text = str(name_or_path)
    if text in BUILTIN_NAMES:
        return _builtin(text, bool(clean))
    path = Path(text)
    clip = None
    if path.suffix.lower() == ".bvh":
        clip = load_bvh(path)
    elif path.suffix.lower() in (".txt", ".json"):
        clip = load_deepmimic(path)
    if clip is not None:
        if clean:
            from .cleanup import clean_clip

            clip = clean_clip(clip)
        return clip
    raise AnimationError(
        f"unknown clip {text!r}: use one of {', '.join(BUILTIN_NAMES)} or a .txt / .bvh path"
    )


def clip_info(clip: Clip) -> dict:
    """JSON-serialisable summary: frames, fps, duration_s, loop, root_speed_mps, has_root_motion,
    joints, feet and contacts (per foot: intervals [[start_s, end_s], ...] and count)."""
    contacts = detect_contacts(clip)
    return {
        "name": clip.name,
        "source": clip.source,
        "frames": clip.n_frames,
        "fps": round(clip.fps, 4),
        "duration_s": round(clip.duration, 4),
        "loop": clip.loop,
        "root_speed_mps": round(clip.root_speed(), 4),
        "root_distance_m": round(float(np.linalg.norm(clip.cycle_displacement[:2])), 4),
        "has_root_motion": has_root_motion(clip),
        "joints": clip.skeleton.n_joints,
        "feet": list(clip.feet),
        "contacts": contacts.to_json(),
    }


def plot_clip(clip: Clip, out_path: str | Path) -> Path:
    """Write a figure: root path and feet (top view, world x/y) and foot heights over time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_path = Path(out_path)
    world = clip.world_positions()
    feet = world[:, list(clip.foot_indices)]
    t = clip.frame_times
    fig, (top, side) = plt.subplots(1, 2, figsize=(11, 4.5))
    top.plot(clip.positions[:, 0], clip.positions[:, 1], "k-", label="trajectory")
    top.plot(world[:, 0, 0], world[:, 0, 1], "k:", lw=0.8, label=clip.skeleton.names[0])
    for f, (name, colour) in enumerate(zip(clip.feet, ("tab:blue", "tab:red"), strict=True)):
        top.plot(feet[:, f, 0], feet[:, f, 1], ".", ms=2, color=colour, label=name)
        side.plot(t, feet[:, f, 2], color=colour, label=name)
    contacts = detect_contacts(clip)
    for f, colour in enumerate(("tab:blue", "tab:red")):
        for a, b in contacts.intervals[f]:
            side.axvspan(a, min(b, clip.duration), ymax=0.05 + 0.05 * f, color=colour, alpha=0.4)
    top.set_aspect("equal", adjustable="datalim")
    top.set(title=f"{clip.name}: top view", xlabel="x [m]", ylabel="y [m]")
    side.set(title="foot heights (bars: contacts)", xlabel="time [s]", ylabel="height [m]")
    top.legend(fontsize=7)
    side.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_path, dpi=100)
    plt.close(fig)
    return out_path
