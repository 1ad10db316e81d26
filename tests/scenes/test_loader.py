"""The scene loader: valid files, every class of bad input, and fuzzed malformed scenes."""

from __future__ import annotations

import contextlib
import math
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scenes import BUILTIN_SCENES, SceneError, load_builtin, load_scene, parse_scene
from scenes.loader import scene_from_dict

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

MINIMAL = '[scene]\nname = "t"\n'


def test_builtin_scenes_parse_with_spawns_and_navmesh_settings() -> None:
    for name in BUILTIN_SCENES:
        scene = load_builtin(name)
        assert scene.name == name
        assert len(scene.npcs) >= 2
        assert scene.player is not None
        assert scene.navmesh.agent_radius > 0
        assert len(scene.content_hash) == 64


def test_archetype_tables_are_kept_for_the_behaviour_layer() -> None:
    text = MINIMAL + "[archetype.guard]\nsight_radius = 12.0\nalert = true\n"
    text += '[[npc]]\nposition = [0, 0, 0]\narchetype = "guard"\n'
    scene = parse_scene(text)
    assert scene.npcs[0].archetype == "guard"
    assert scene.archetype("guard") == {"sight_radius": 12.0, "alert": True}
    assert scene.archetype("default") == {}


def test_box_size_and_half_extents_are_equivalent() -> None:
    a = parse_scene(MINIMAL + "[[box]]\ncenter = [0, 0, 1]\nsize = [2, 4, 2]\n")
    b = parse_scene(MINIMAL + "[[box]]\ncenter = [0, 0, 1]\nhalf_extents = [1, 2, 1]\n")
    assert a.boxes[0].half_extents == b.boxes[0].half_extents == (1.0, 2.0, 1.0)


def test_relative_mesh_path_resolves_against_the_scene_file(tmp_path: Path) -> None:
    (tmp_path / "rock.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    f = tmp_path / "s.toml"
    f.write_text(MINIMAL + '[[mesh]]\npath = "rock.obj"\nscale = 2.0\n')
    scene = load_scene(f)
    assert scene.assets[0].path == (tmp_path / "rock.obj").resolve()
    assert scene.assets[0].scale == 2.0


def test_pybullet_data_prefix_finds_the_monastery() -> None:
    scene = load_builtin("monastery")
    assert scene.assets[0].path.name == "samurai.urdf"
    assert scene.assets[0].path.is_file()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[scene\n", r"malformed TOML"),
        ('[scene]\nname = "t"\nbogus = 1\n', r"scene\.bogus: unknown key"),
        ('[scene]\nname = "t"\n[wat]\n', r"wat: unknown key"),
        ("[floor]\nsize = [1, 1]\n", r"scene: is required but missing"),
        ('[scene]\nname = ""\n', r"scene\.name: must not be empty"),
        ("[scene]\nname = 3\n", r"scene\.name: must be a string"),
        (MINIMAL + "[floor]\nsize = [10, -1]\n", r"floor\.size\[1\]: must be greater than 0"),
        (MINIMAL + "[floor]\nsize = [10, 0]\n", r"floor\.size\[1\]: must be greater than 0"),
        (MINIMAL + "[floor]\nsize = [10, nan]\n", r"floor\.size\[1\]: must be a finite number"),
        (MINIMAL + "[floor]\nsize = [10, inf]\n", r"floor\.size\[1\]: must be a finite number"),
        (MINIMAL + '[floor]\nsize = [10, "a"]\n', r"floor\.size\[1\]: must be a number, got str"),
        (MINIMAL + "[floor]\nsize = [10]\n", r"floor\.size: must be a list of 2 numbers"),
        (MINIMAL + "[floor]\nsize = [true, 1]\n", r"floor\.size\[0\]: must be a number, got bool"),
        (MINIMAL + "[[box]]\ncenter = [0, 0, 0]\n", r"box\[0\]: give exactly one of"),
        (MINIMAL + "[[box]]\ncenter = [0,0,0]\nsize = [1,1,1]\nhalf_extents = [1,1,1]\n", r"exactly one"),
        (
            MINIMAL + "[[box]]\ncenter = [0,0,0]\nsize = [1,1,1]\n[[box]]\ncenter = [0,0]\nsize = [1,1,1]\n",
            r"box\[1\]\.center: must be a list of 3 numbers",
        ),
        (
            MINIMAL + "[[box]]\ncenter = [0,0,0]\nsize = [1,1,1]\ncolour = [1,0,0]\n",
            r"box\[0\]\.colour: unknown",
        ),
        (MINIMAL + "[[box]]\ncenter = [0,0,0]\nsize = [1,1,1]\ncolor = [2,0,0]\n", r"box\[0\]\.color"),
        ("box = 3\n" + MINIMAL, r"box: must be an array of tables"),
        (MINIMAL + "[[ramp]]\nstart = [0,0,0]\nend = [0,0,2]\nwidth = 2\n", r"ramp\[0\]: .*horizontally"),
        (MINIMAL + "[[ramp]]\nstart = [0,0,0]\nend = [3,0,2]\n", r"ramp\[0\]\.width: is required"),
        (
            MINIMAL + "[[stairs]]\nstart = [0,0,0]\nsteps = 0\nrise = 0.2\nrun = 0.3\nwidth = 1\n",
            r"stairs\[0\]\.steps: must be at least 1",
        ),
        (
            MINIMAL + "[[stairs]]\nstart = [0,0,0]\nsteps = 2.5\nrise = 0.2\nrun = 0.3\nwidth = 1\n",
            r"stairs\[0\]\.steps: must be an integer",
        ),
        (
            MINIMAL + "[[platform]]\ncenter = [0,0]\nsize = [1,1]\nheight = 2\nlegs = 1\n",
            r"platform\[0\]\.legs: must be true or false",
        ),
        (MINIMAL + '[[mesh]]\npath = "nope.obj"\n', r"mesh\[0\]\.path: relative path"),
        (MINIMAL + '[[urdf]]\npath = "/definitely/not/here.urdf"\n', r"urdf\[0\]\.path: file does not exist"),
        (MINIMAL + '[[urdf]]\npath = "pybullet_data:plane.obj"\n', r"urdf\[0\]\.path: a urdf must be"),
        (MINIMAL + "[[npc]]\nyaw_deg = 3\n", r"npc\[0\]\.position: is required"),
        (MINIMAL + "[[npc]]\nposition = [0,0,0]\npatrol = [[0,0]]\n", r"npc\[0\]\.patrol\[0\]"),
        (MINIMAL + "[player]\nposition = [0,0,0]\nroute = 5\n", r"player\.route: must be a list"),
        (MINIMAL + "[navmesh]\nagent_radius = -0.1\n", r"navmesh\.agent_radius: must be at least 0"),
        (MINIMAL + "[navmesh]\ncell_size = 0\n", r"navmesh\.cell_size: must be greater than 0"),
        (MINIMAL + "[navmesh]\nmax_slope_deg = 90\n", r"navmesh\.max_slope_deg: must be below 90"),
        (MINIMAL + "[navmesh]\nradius = 1\n", r"navmesh\.radius: unknown key"),
        (
            MINIMAL + '[[npc]]\nposition = [0,0,0]\narchetype = "ninja"\n',
            r"npc\[0\]\.archetype: no \[archetype\.ninja\]",
        ),
        (MINIMAL + "[archetype.g]\nsight = [1]\n", r"archetype\.g\.sight: must be a number"),
        (MINIMAL + "[archetype.g]\nsight = nan\n", r"archetype\.g\.sight: must be a finite number"),
        ("archetype = 3\n" + MINIMAL, r"archetype: must be a table"),
        # physical ranges (issue 10)
        (
            MINIMAL + "[floor]\nsize = [1e300, 10]\n",
            r"floor\.size\[0\]: must lie within \+-100000 .*got 1e\+300$",
        ),
        (MINIMAL + "[[npc]]\nposition = [2e5, 0, 0]\n", r"npc\[0\]\.position\[0\]: must lie within"),
        (
            MINIMAL + "[[stairs]]\nstart = [0,0,0]\nsteps = 100000000\nrise = 0.2\nrun = 0.3\nwidth = 1\n",
            r"stairs\[0\]\.steps: must be at most 1000, got 1e\+08$",
        ),
        ('[scene]\nname = "t"\ngravity = 50\n', r"scene\.gravity: must lie in \[-100, 0\] m/s\^2"),
        ('[scene]\nname = "t"\ngravity = -1000\n', r"scene\.gravity: must lie in"),
        (
            MINIMAL + '[[npc]]\nposition = [0,0,0]\nname = "a"\n[[npc]]\nposition = [2,0,0]\nname = "a"\n',
            r"npc\[1\]\.name: 'a' is already npc\[0\]'s name; names must be unique",
        ),
    ],
)
def test_bad_scene_text_names_the_key_and_the_problem(text: str, message: str) -> None:
    with pytest.raises(SceneError, match=message) as info:
        parse_scene(text, source="bad.toml")
    assert str(info.value).startswith("bad.toml")


def test_missing_file_and_unknown_builtin() -> None:
    with pytest.raises(SceneError, match=r"no such scene file"):
        load_scene("/no/such/scene.toml")
    with pytest.raises(SceneError, match=r"not a built-in scene"):
        load_scene("atlantis")


def test_mesh_that_does_not_exist_is_named_with_its_resolved_path(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_text(MINIMAL + '[[mesh]]\npath = "meshes/gone.obj"\n')
    with pytest.raises(
        SceneError, match=r"s\.toml: mesh\[0\]\.path: file does not exist: .*meshes/gone\.obj"
    ):
        load_scene(f)


def test_non_utf8_file_is_a_scene_error(tmp_path: Path) -> None:
    f = tmp_path / "s.toml"
    f.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SceneError, match=r"cannot read the file|malformed TOML"):
        load_scene(f)


# --- property-based: malformed documents never escape as anything but SceneError ----------------------
_scalars = st.one_of(
    st.integers(-5, 5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=5),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=4),
    st.lists(st.integers(-3, 3), max_size=4),
)
_keys = st.sampled_from(
    [
        "center",
        "size",
        "half_extents",
        "yaw_deg",
        "start",
        "end",
        "width",
        "steps",
        "rise",
        "run",
        "height",
        "position",
        "patrol",
        "route",
        "path",
        "agent_radius",
        "cell_size",
        "name",
        "legs",
        "color",
        "zzz",
    ]
)
_tables = st.dictionaries(_keys, _scalars, max_size=5)
_documents = st.fixed_dictionaries(
    {
        "scene": st.one_of(
            st.just({"name": "fuzz"}),
            st.dictionaries(st.sampled_from(["name", "gravity", "x"]), _scalars, max_size=2),
        )
    },
    optional={
        "floor": _tables,
        "box": st.lists(_tables, max_size=3),
        "ramp": st.lists(_tables, max_size=2),
        "stairs": st.lists(_tables, max_size=2),
        "platform": st.lists(_tables, max_size=2),
        "npc": st.lists(_tables, max_size=2),
        "player": _tables,
        "navmesh": _tables,
        "mesh": st.lists(_tables, max_size=1),
    },
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_documents)
def test_fuzzed_documents_load_or_raise_scene_error(doc: dict) -> None:
    try:
        scene = scene_from_dict(doc, source="fuzz.toml")
    except SceneError as exc:
        assert str(exc).startswith("fuzz.toml")
        return
    # Whatever loads is fully valid: finite, positive sizes.
    for box in scene.boxes:
        assert all(h > 0 and math.isfinite(h) for h in box.half_extents)
    if scene.floor is not None:
        assert all(s > 0 for s in scene.floor.size)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_random_text_loads_or_raises_scene_error(text: str) -> None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        with pytest.raises(SceneError, match="malformed TOML"):
            parse_scene(text, source="x.toml")
        return
    except Exception:  # tomllib may refuse odd text in other ways; only the loader's behaviour matters
        return
    with contextlib.suppress(SceneError):
        parse_scene(text, source="x.toml")


AREA = '[[area]]\nname = "water"\nfootprint = [[0, 0], [4, 0], [4, 2], [0, 2]]\n'


def test_area_tables_keep_their_type_footprint_and_heights() -> None:
    text = (
        MINIMAL
        + AREA
        + '[[area]]\nname = "mud"\nfootprint = [[5, 5], [6, 5], [5, 6]]\nbottom = -1\ntop = 0.5\n'
    )
    scene = parse_scene(text)
    assert [a.name for a in scene.areas] == ["water", "mud"]
    assert scene.areas[0].footprint == ((0.0, 0.0), (4.0, 0.0), (4.0, 2.0), (0.0, 2.0))
    assert scene.areas[0].bottom == -math.inf and scene.areas[0].top == math.inf
    assert (scene.areas[1].bottom, scene.areas[1].top) == (-1.0, 0.5)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (AREA.replace('"water"', '"ground"'), r"area\[0\]\.name: must name an area type other than 'ground'"),
        (AREA.replace('"water"', '""'), r"area\[0\]\.name: must name an area type"),
        (
            AREA.replace("[[0, 0], [4, 0], [4, 2], [0, 2]]", "[[0, 0], [4, 0]]"),
            r"area\[0\]\.footprint: .*at least 3",
        ),
        (
            AREA.replace("[[0, 0], [4, 0], [4, 2], [0, 2]]", "[[0, 0], [4, 2], [4, 0], [0, 2]]"),
            r"simple polygon",
        ),
        (AREA.replace("[[0, 0], [4, 0], [4, 2], [0, 2]]", "[[0, 0], [1, 0], [2, 0]]"), r"non-zero area"),
        (AREA.replace("[4, 0]", '[4, "x"]'), r"area\[0\]\.footprint\[1\]\[1\]: must be a number"),
        (AREA + "bottom = 2\ntop = 1\n", r"area\[0\]\.top: must not be below bottom"),
        (AREA + "cost = 2\n", r"area\[0\]"),
        ("[[area]]\nfootprint = [[0, 0], [1, 0], [0, 1]]\n", r"area\[0\]"),
    ],
)
def test_bad_area_tables_name_the_key(text: str, message: str) -> None:
    with pytest.raises(SceneError, match=message):
        parse_scene(MINIMAL + text if not text.startswith("[scene]") else text, source="bad.toml")


def test_agent_size_tables_keep_their_names_and_unset_sizes() -> None:
    text = (
        MINIMAL
        + '[[agent_size]]\nname = "large"\nagent_radius = 0.8\n'
        + '[[agent_size]]\nname = "tall"\nagent_height = 3\n'
    )
    sizes = parse_scene(text).agent_sizes
    assert [(s.name, s.agent_radius, s.agent_height) for s in sizes] == [
        ("large", 0.8, None),
        ("tall", None, 3.0),
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[agent_size]]\nname = "default"\n',
            r"agent_size\[0\]\.name: must name the size, and not 'default'",
        ),
        (
            '[[agent_size]]\nname = "a"\n[[agent_size]]\nname = "a"\n',
            r"agent_size\[1\]\.name: 'a' is already",
        ),
        (
            '[[agent_size]]\nname = "a"\nagent_radius = -1\n',
            r"agent_size\[0\]\.agent_radius: must be at least 0",
        ),
        (
            '[[agent_size]]\nname = "a"\nagent_height = 0\n',
            r"agent_size\[0\]\.agent_height: must be greater than 0",
        ),
        ("[[agent_size]]\nagent_radius = 1\n", r"agent_size\[0\]"),
        ('[[agent_size]]\nname = "a"\nradius = 1\n', r"agent_size\[0\]"),
    ],
)
def test_bad_agent_size_tables_name_the_key(text: str, message: str) -> None:
    with pytest.raises(SceneError, match=message):
        parse_scene(MINIMAL + text, source="bad.toml")


def test_link_tables_keep_every_key() -> None:
    text = MINIMAL + "[[link]]\nstart = [0, 0, 1]\nend = [2, 0, 0]\n"
    text += "[[link]]\nstart = [5, 0, 0]\nend = [7, 0, 0]\nbidirectional = true\n"
    text += 'width = 1.5\ncost = 4\nkind = "door"\n'
    a, b = parse_scene(text).links
    assert (a.start, a.end, a.bidirectional, a.width, a.cost, a.kind) == (
        (0, 0, 1),
        (2, 0, 0),
        False,
        0.0,
        None,
        "jump",
    )
    assert (b.bidirectional, b.width, b.cost, b.kind) == (True, 1.5, 4.0, "door")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[link]]\nstart = [0, 0, 0]\nend = [0, 0, 0]\n", r"link\[0\]\.end: must differ from start"),
        (
            '[[link]]\nstart = [0, 0, 0]\nend = [1, 0, 0]\nkind = "warp"\n',
            r"link\[0\]\.kind: must be one of jump",
        ),
        ("[[link]]\nstart = [0, 0]\nend = [1, 0, 0]\n", r"link\[0\]\.start: must be a list of 3 numbers"),
        ("[[link]]\nstart = [0, 0, 0]\nend = [1, 0, 0]\ncost = -2\n", r"link\[0\]\.cost: must be at least 0"),
        ("[[link]]\nstart = [0, 0, 0]\nend = [1, 0, 0]\nbidirectional = 1\n", r"link\[0\]\.bidirectional"),
        ("[[link]]\nstart = [0, 0, 0]\n", r"link\[0\]"),
    ],
)
def test_bad_link_tables_name_the_key(text: str, message: str) -> None:
    with pytest.raises(SceneError, match=message):
        parse_scene(MINIMAL + text, source="bad.toml")


def test_a_links_table_asks_for_found_links_with_its_limits() -> None:
    spec = parse_scene(MINIMAL + "[links]\nfind = true\nmax_gap = 3\nmax_drop = 0\n").link_search
    assert (spec.find, spec.max_gap, spec.max_drop, spec.spacing) == (True, 3.0, 0.0, None)
    assert not parse_scene(MINIMAL).link_search.find


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[links]\nfind = 1\n", r"links\.find: must be true or false"),
        ("[links]\nmax_gap = 0\n", r"links\.max_gap: must be greater than 0"),
        ("[links]\nmax_drop = -1\n", r"links\.max_drop: must be at least 0"),
        ("[links]\nreach = 2\n", r"links"),
    ],
)
def test_bad_links_tables_name_the_key(text: str, message: str) -> None:
    with pytest.raises(SceneError, match=message):
        parse_scene(MINIMAL + text, source="bad.toml")
