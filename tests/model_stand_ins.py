"""Model files that are only their names: settings tests load a folder's `models.toml`,
which checks that every file it names is there, without reading any of them."""

from __future__ import annotations

import shutil
from pathlib import Path


def stand_in_files(folder: Path, *names: str) -> None:
    """Create `folder` (if needed) holding a placeholder file for each name."""
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"stand-in")


def shipped_locator_and_reader(folder: Path) -> None:
    """Copy the shipped locator and reader into a new `folder`, to be named by settings
    a test writes there."""
    from shanghai.vision import model_files

    folder.mkdir()
    for name in (model_files.DETECTOR_FILE, model_files.READER_FILE):
        shutil.copyfile(model_files.default_models_dir() / name, folder / name)


CANDIDATE_STRAY_LEAST = 0.2
"""The level the candidate stray check was chosen at on validation (models.toml)."""


def shipped_with_candidate_stray(folder: Path) -> Path:
    """A new `folder` holding every shipped model and its settings, plus the candidate
    stray check (`models/candidates/cards-stray.onnx`, not switched on in the shipped
    settings) named in `[stray]` at the level chosen for it."""
    from shanghai.vision import model_files

    shipped = model_files.default_models_dir()
    folder.mkdir(parents=True)
    for model in shipped.glob("*.onnx"):
        shutil.copyfile(model, folder / model.name)
    name = model_files.STRAY_FILE
    shutil.copyfile(shipped / "candidates" / name, folder / name)
    settings = (shipped / model_files.SETTINGS_FILE).read_text()
    settings += f'\n[stray]\nfile = "{name}"\nleast = {CANDIDATE_STRAY_LEAST}\n'
    (folder / model_files.SETTINGS_FILE).write_text(settings)
    return folder
