"""Root-motion animation from real motion capture: clips, loaders, root motion, contacts, blend space,
animator and foot-skate metrics. World Z-up, metres, seconds, radians; character frame x forward, y left,
z up; quaternions xyzw.
"""

from . import kernels
from .animator import ActionState, Animator, AnimatorSettings, AnimState, LocomotionState, Transition
from .batch import AnimatorBatch, GaitChanges
from .blend_space import BlendResult, BlendSpace1D
from .bvh import load_bvh, parse_bvh
from .cleanup import CleanupSettings, clean_clip, lock_feet, two_bone_ik
from .clip import Clip, ClipSample, Pose, blend_poses, compose_world
from .contacts import ContactSettings, FootContacts, detect_contacts
from .deepmimic import URDF_SCALE, builtin_motion_path, load_deepmimic, load_urdf_skeleton, parse_deepmimic
from .errors import AnimationError, AnimationSettingsError, ClipFormatError
from .feet import CONTACT_POINT_MODELS, ContactPoint, contact_points_world, foot_contact_points, leg_chain
from .foot_lock import FootLock, FootLockResult, FootLockSettings, leg_points_world, two_bone_positions
from .library import BUILTIN_NAMES, clip_info, load_clip, plot_clip
from .locomotion import (
    Gait,
    GaitSettings,
    LocomotionClip,
    LocomotionSet,
    default_locomotion_set,
    hold_pose,
    make_locomotion_clip,
    select_gait,
)
from .metrics import (
    SkateMetrics,
    clip_feet_world,
    clip_root_trajectory,
    clip_skate_metrics,
    contact_foot_speed,
    foot_skate_ratio,
    skate_metrics,
)
from .root_motion import (
    RootMotion,
    extract_root_motion,
    has_root_motion,
    integrate_root_motion,
    root_motion_deltas,
)
from .skeleton import Skeleton, forward_kinematics
from .sliding import (
    SlideMetrics,
    blend_planted,
    clip_planted_mask,
    gmd_skate_ratio,
    planted_at,
    planted_share_of_skating,
    planted_slide_steps,
    planted_sliding,
    resample_feet,
)

__all__ = [
    "BUILTIN_NAMES",
    "CONTACT_POINT_MODELS",
    "URDF_SCALE",
    "ActionState",
    "AnimState",
    "AnimationError",
    "AnimationSettingsError",
    "Animator",
    "AnimatorBatch",
    "AnimatorSettings",
    "BlendResult",
    "BlendSpace1D",
    "CleanupSettings",
    "Clip",
    "ClipFormatError",
    "ClipSample",
    "ContactPoint",
    "ContactSettings",
    "FootContacts",
    "FootLock",
    "FootLockResult",
    "FootLockSettings",
    "Gait",
    "GaitChanges",
    "GaitSettings",
    "LocomotionClip",
    "LocomotionSet",
    "LocomotionState",
    "Pose",
    "RootMotion",
    "SkateMetrics",
    "Skeleton",
    "SlideMetrics",
    "Transition",
    "blend_planted",
    "blend_poses",
    "builtin_motion_path",
    "clean_clip",
    "clip_feet_world",
    "clip_info",
    "clip_planted_mask",
    "clip_root_trajectory",
    "clip_skate_metrics",
    "compose_world",
    "contact_foot_speed",
    "contact_points_world",
    "default_locomotion_set",
    "detect_contacts",
    "extract_root_motion",
    "foot_contact_points",
    "foot_skate_ratio",
    "forward_kinematics",
    "gmd_skate_ratio",
    "has_root_motion",
    "hold_pose",
    "integrate_root_motion",
    "kernels",
    "leg_chain",
    "leg_points_world",
    "load_bvh",
    "load_clip",
    "load_deepmimic",
    "load_urdf_skeleton",
    "lock_feet",
    "make_locomotion_clip",
    "parse_bvh",
    "parse_deepmimic",
    "planted_at",
    "planted_share_of_skating",
    "planted_slide_steps",
    "planted_sliding",
    "plot_clip",
    "resample_feet",
    "root_motion_deltas",
    "select_gait",
    "skate_metrics",
    "two_bone_ik",
    "two_bone_positions",
]
