"""The card models of a folder and the settings chosen for them, read from `models.toml`.

A model folder holds the locator, the reader and a `models.toml` saying which file is
which, the classes each must have, and the two reading levels chosen for that pair on
the validation split: `min_read` (locating x reading below it names no card:
`tests/benchmarks/read_floor.py`) and `sure_read` (reads below it are proposed marked
unsure: `tests/benchmarks/scan_eval.py --sweep`). The levels belong to the models they
were chosen for: kept in code, a new model ran with the old model's levels; kept here,
they travel with the files (the shipped folder, a candidate folder, a taught deck's
folder) and `check` refuses a model whose classes are not what the runtime reads.

    [detector]
    file = "cards-detector.onnx"
    classes = ["card", "index"]

    [reader]
    file = "cards-reader.onnx"   # every class an engine card name (CARD_CLASSES)
    ensemble = ["cards-reader-2.onnx"]   # optional: more readers, averaged
    zooms = [0.85]               # optional: central shares also read, averaged

    [reading]
    min_read = 0.40
    sure_read = 0.70
    sure_name = 0.999            # optional
    named_read = 0.999           # optional

`ensemble`, when given, names more readers of the same classes, trained apart (another
seed, data or start). A card is read by the mean of all their probabilities: readers
trained apart rarely share a wrong read, so on an index unlike any they trained on
(a deck in a font no model saw) the mean is unsure where one reader alone would be
wrongly sure (models/MODEL_CARD.md). The first reader (`file`) alone gives the
embedding a taught deck reads by.

`zooms`, when given, are shares of each index crop whose centre is also read, zoomed
back to the crop's size (`crops.zoomed_in`), and averaged with the crop as cut: the
reading (and so the levels below) depends on them, so they belong with the levels.

`[face]`, when given, names the face classifier (`face_kind`): the kind of face
(court, pips, joker, Rook) around each read index. A read whose kind it gives less than
`least` is proposed marked unsure, however sure the reader was. `joker_least`, when
given, checks reads of a joker too: a joker read whose face the classifier gives less
than that against the standard faces (court, pips) is unsure.

    [face]
    file = "cards-face.onnx"
    least = 0.05
    joker_least = 0.005          # optional

`[upright]`, when given, names the upright classifier (`upright`): it tells a Rook 6
from a 9 on the index turned upright by the card's pose, and the scan splits the
reader's probability of the pair by it.

    [upright]
    file = "cards-upright.onnx"
    reader = "cards-upright-reader.onnx"     # optional

`reader` there names the upright reader (`upright_reader`): a reader of every card that
reads each index turned upright the same way, a second witness to the reader's read.

`[stray]`, when given, names the stray classifier (`stray_check`) and its level: a box
located but not read, on no card read, that it gives p(index) under `least` is taken
for card art, not a hidden card's corner, and raises no `corner` warning.

    [stray]
    file = "cards-stray.onnx"
    least = 0.1

`sure_name`, when given, is a third level: a read the reader itself gives at least that
probability is proposed without asking whatever its locating confidence, unless
another card of the photo has the same name (`scan.PhotoScanner.is_sure`).

`named_read`, when given, lowers the read floor for the surest reads: an index the
locator found at all (its own threshold) that the reader gives at least this probability
names a card even where locating x reading is under `min_read`. Such a card is always
proposed marked unsure (`scan.PhotoScanner.is_sure`): the locator doubted it was an
index, and only the person can say whether it was print on something else.
"""

from __future__ import annotations

import importlib.util
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from shanghai.engine.cards import CARD_CLASSES

__all__ = [
    "DETECTOR_CLASSES",
    "DETECTOR_FILE",
    "FACE_FILE",
    "READER_FILE",
    "SETTINGS_FILE",
    "STRAY_FILE",
    "UPRIGHT_FILE",
    "UPRIGHT_READER_FILE",
    "ModelFiles",
    "ModelMissingError",
    "ModelSettingsError",
    "default_models_dir",
    "locator_training_missing",
    "shipped_locator_weights",
    "shipped_reader_weights",
    "write_settings",
]

SETTINGS_FILE = "models.toml"
DETECTOR_FILE = "cards-detector.onnx"
READER_FILE = "cards-reader.onnx"
FACE_FILE = "cards-face.onnx"
UPRIGHT_FILE = "cards-upright.onnx"
UPRIGHT_READER_FILE = "cards-upright-reader.onnx"
STRAY_FILE = "cards-stray.onnx"
DETECTOR_CLASSES = ("card", "index")
"""The locator's classes, by these names (a card's visible extent; a rank+suit corner)."""


class ModelMissingError(FileNotFoundError):
    """The card models are not installed (say which file, so a person can fix it)."""


class ModelSettingsError(ValueError):
    """A model folder's `models.toml` is malformed, or a model's classes are not the
    ones the runtime reads."""


def default_models_dir() -> Path:
    """The `models/` folder that ships with the package (`shanghai.models`)."""
    return Path(str(resources.files("shanghai.models")))


@dataclass(frozen=True, slots=True)
class ModelFiles:
    """One folder's models and their reading levels (see the module docstring)."""

    folder: Path
    detector: Path
    reader: Path
    min_read: float
    sure_read: float
    detector_classes: tuple[str, ...] = DETECTOR_CLASSES
    sure_name: float | None = None
    """Least reader probability that makes a read's name sure on its own (None: only
    `sure_read` decides)."""
    named_read: float | None = None
    """Least reader probability that names a card under `min_read` (proposed unsure;
    None: the floor alone decides)."""
    ensemble: tuple[Path, ...] = ()
    """More readers whose probabilities are averaged with the reader's (see above)."""
    zooms: tuple[float, ...] = ()
    """Central shares of each crop also read and averaged (`[reader] zooms`, above)."""
    face: Path | None = None
    """The face classifier (`[face] file`), None when the folder has none."""
    face_least: float = 0.0
    """A read whose kind the face classifier gives less than this is unsure (`[face] least`)."""
    face_joker_least: float | None = None
    """The same for a joker read (`[face] joker_least`); None: jokers are not checked."""
    upright: Path | None = None
    """The upright 6-or-9 classifier (`[upright] file`), None when the folder has none."""
    upright_reader: Path | None = None
    """The upright reader (`[upright] reader`), None when the folder has none."""
    stray: Path | None = None
    """The stray classifier (`[stray] file`), None when the folder has none."""
    stray_least: float = 0.0
    """A stray box it gives p(index) under this is no card's corner (`[stray] least`)."""

    @classmethod
    def load(cls, folder: str | Path | None = None) -> ModelFiles:
        """Read `folder/models.toml` (default: the shipped models). Raises
        `ModelMissingError` when the settings or a model file is missing and
        `ModelSettingsError` when the settings are malformed."""
        where = Path(folder) if folder is not None else default_models_dir()
        shown = where if folder is not None else Path("models")
        path = where / SETTINGS_FILE
        if not path.is_file():
            # Name the model file when it is missing too: that is what to install.
            missing = SETTINGS_FILE if (where / DETECTOR_FILE).is_file() else DETECTOR_FILE
            raise ModelMissingError(f"the card model is not installed: {shown / missing}")
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            files = cls(
                folder=where,
                detector=where / _text(data, "detector", "file"),
                reader=where / _text(data, "reader", "file"),
                min_read=_level(data, "min_read"),
                sure_read=_level(data, "sure_read"),
                detector_classes=tuple(_classes(data)),
                sure_name=_optional_level(data, "sure_name"),
                named_read=_optional_level(data, "named_read"),
                ensemble=tuple(where / name for name in _names(data, "reader", "ensemble")),
                zooms=_zooms(data),
                **_face(data, where),
                **_upright(data, where),
                **_stray(data, where),
            )
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ModelSettingsError(f"{shown / SETTINGS_FILE}: {exc}") from None
        if not set(DETECTOR_CLASSES) <= set(files.detector_classes):
            raise ModelSettingsError(
                f"{shown / SETTINGS_FILE}: [detector] classes must include "
                + " and ".join(DETECTOR_CLASSES)
            )
        if files.min_read > files.sure_read:
            raise ModelSettingsError(
                f"{shown / SETTINGS_FILE}: min_read {files.min_read} is above sure_read "
                f"{files.sure_read}"
            )
        if files.reader in files.ensemble or len(set(files.ensemble)) < len(files.ensemble):
            raise ModelSettingsError(
                f"{shown / SETTINGS_FILE}: [reader] ensemble names a reader twice"
            )
        extra = tuple(
            f
            for f in (files.face, files.upright, files.upright_reader, files.stray)
            if f is not None
        )
        for model in (files.detector, files.reader, *files.ensemble, *extra):
            if not model.is_file():
                raise ModelMissingError(f"the card model is not installed: {shown / model.name}")
        return files

    @classmethod
    def installed(cls, folder: str | Path | None = None) -> bool:
        try:
            cls.load(folder)
        except (ModelMissingError, ModelSettingsError):
            return False
        return True

    def check(self, detector_names: Sequence[str], reader_names: Sequence[str]) -> None:
        """Refuse models whose classes differ from the settings: the locator's must be
        `detector_classes` (by name, in order), every reader class an engine card name."""
        if tuple(detector_names) != self.detector_classes:
            raise ModelSettingsError(
                f"{self.detector.name}: classes {list(detector_names)}, expected "
                f"{list(self.detector_classes)}"
            )
        known = set(CARD_CLASSES)
        strange = [name for name in reader_names if name not in known]
        if strange or len(reader_names) < 2:
            raise ModelSettingsError(
                f"{self.reader.name}: classes that are not card names: {strange[:5]}"
                if strange
                else f"{self.reader.name}: fewer than two classes"
            )


def write_settings(
    folder: Path,
    *,
    min_read: float,
    sure_read: float,
    sure_name: float | None = None,
    named_read: float | None = None,
    note: str = "",
    detector: str = DETECTOR_FILE,
    reader: str = READER_FILE,
    ensemble: Sequence[str] = (),
    zooms: Sequence[float] = (),
    face: str | None = None,
    face_least: float = 0.0,
    face_joker_least: float | None = None,
    upright: str | None = None,
    upright_reader: str | None = None,
    stray: str | None = None,
    stray_least: float = 0.0,
) -> Path:
    """Write `folder/models.toml` for models just exported there (`shanghai train`)."""
    lines = [f"# {line}" for line in note.splitlines()]
    lines += [
        "[detector]",
        f'file = "{detector}"',
        "classes = [" + ", ".join(f'"{c}"' for c in DETECTOR_CLASSES) + "]",
        "",
        "[reader]",
        f'file = "{reader}"',
        *(["ensemble = [" + ", ".join(f'"{e}"' for e in ensemble) + "]"] if ensemble else []),
        *(["zooms = [" + ", ".join(str(z) for z in zooms) + "]"] if zooms else []),
        "",
        "[reading]",
        f"min_read = {min_read}",
        f"sure_read = {sure_read}",
    ]
    if sure_name is not None:
        lines.append(f"sure_name = {sure_name}")
    if named_read is not None:
        lines.append(f"named_read = {named_read}")
    if face is not None:
        lines += ["", "[face]", f'file = "{face}"', f"least = {face_least}"]
        if face_joker_least is not None:
            lines.append(f"joker_least = {face_joker_least}")
    if upright is not None or upright_reader is not None:
        lines += ["", "[upright]"]
        lines += [f'file = "{upright}"'] if upright is not None else []
        lines += [f'reader = "{upright_reader}"'] if upright_reader is not None else []
    if stray is not None:
        lines += ["", "[stray]", f'file = "{stray}"', f"least = {stray_least}"]
    path = folder / SETTINGS_FILE
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    section = data.get(name)
    if not isinstance(section, dict):
        raise ModelSettingsError(f"{SETTINGS_FILE}: no [{name}] table")
    return section


def _text(data: dict[str, Any], section: str, key: str) -> str:
    value = _section(data, section).get(key)
    if not isinstance(value, str) or not value or "/" in value or "\\" in value:
        raise ModelSettingsError(f"{SETTINGS_FILE}: [{section}] {key} must be a file name")
    return value


def _names(data: dict[str, Any], section: str, key: str) -> list[str]:
    """An optional list of file names (empty when left out)."""
    value = _section(data, section).get(key, [])
    if not isinstance(value, list) or not all(
        isinstance(v, str) and v and "/" not in v and "\\" not in v for v in value
    ):
        raise ModelSettingsError(f"{SETTINGS_FILE}: [{section}] {key} must be a list of file names")
    return value


def _zooms(data: dict[str, Any]) -> tuple[float, ...]:
    """The optional `[reader] zooms`: distinct shares above 0.5 and under 1."""
    value = _section(data, "reader").get("zooms", [])
    if (
        not isinstance(value, list)
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        or not all(0.5 < v < 1 for v in value)
        or len(set(value)) < len(value)
    ):
        raise ModelSettingsError(
            f"{SETTINGS_FILE}: [reader] zooms must be a list of distinct shares above 0.5 "
            "and under 1"
        )
    return tuple(float(v) for v in value)


def _upright(data: dict[str, Any], where: Path) -> dict[str, Any]:
    """The optional `[upright]` table: the 6-or-9 check's `file`, the upright `reader`,
    or both (at least one)."""
    if "upright" not in data:
        return {"upright": None, "upright_reader": None}
    section = _section(data, "upright")
    if "file" not in section and "reader" not in section:
        raise ModelSettingsError(f"{SETTINGS_FILE}: [upright] names no file and no reader")
    return {
        key: where / _text(data, "upright", name) if name in section else None
        for key, name in (("upright", "file"), ("upright_reader", "reader"))
    }


def _stray(data: dict[str, Any], where: Path) -> dict[str, Any]:
    """The optional `[stray]` table: its file and level (nothing when left out)."""
    if "stray" not in data:
        return {}
    least = _section(data, "stray").get("least")
    if isinstance(least, bool) or not isinstance(least, int | float) or not 0 <= least <= 1:
        raise ModelSettingsError(f"{SETTINGS_FILE}: [stray] least must be a number in 0..1")
    return {"stray": where / _text(data, "stray", "file"), "stray_least": float(least)}


def _face(data: dict[str, Any], where: Path) -> dict[str, Any]:
    """The optional `[face]` table: its file and levels (nothing when left out)."""
    if "face" not in data:
        return {}
    section = _section(data, "face")
    levels: dict[str, float | None] = {}
    for key, required in (("least", True), ("joker_least", False)):
        level = section.get(key)
        if level is None and not required:
            levels[key] = None
            continue
        if isinstance(level, bool) or not isinstance(level, int | float) or not 0 <= level <= 1:
            raise ModelSettingsError(f"{SETTINGS_FILE}: [face] {key} must be a number in 0..1")
        levels[key] = float(level)
    return {
        "face": where / _text(data, "face", "file"),
        "face_least": levels["least"],
        "face_joker_least": levels["joker_least"],
    }


def _optional_level(data: dict[str, Any], key: str) -> float | None:
    """A level the settings may leave out (None then)."""
    return None if _section(data, "reading").get(key) is None else _level(data, key)


def _level(data: dict[str, Any], key: str) -> float:
    value = _section(data, "reading").get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ModelSettingsError(f"{SETTINGS_FILE}: [reading] {key} must be a number in 0..1")
    return float(value)


def _classes(data: dict[str, Any]) -> list[str]:
    value = _section(data, "detector").get("classes", list(DETECTOR_CLASSES))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ModelSettingsError(f"{SETTINGS_FILE}: [detector] classes must be a list of names")
    return value


def shipped_locator_weights() -> Path:
    """The shipped locator's PyTorch weights, which further training starts from."""
    return default_models_dir() / "cards-detector.pt"


def shipped_reader_weights() -> Path:
    """The shipped reader's PyTorch weights, which a taught deck's reader starts from."""
    return default_models_dir() / "cards-reader.pt"


def locator_training_missing() -> str | None:
    """Why the locator cannot be trained here (None: it can). Checked without importing
    ultralytics, which patches PIL on import: the CLI and the server ask before they
    offer or start the step. Here, not in `datasets.training`, because the server asks
    too and never imports the training code."""
    if importlib.util.find_spec("ultralytics") is None:
        return (
            "adapting the locator needs the train extra (PyTorch, about 5.5 GB): "
            "pip install -e '.[train]'"
        )
    for weights in (shipped_locator_weights(), shipped_reader_weights()):
        if not weights.is_file():
            return f"{weights}: the shipped model's weights are not installed"
    return None
