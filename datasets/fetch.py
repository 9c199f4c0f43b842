"""`shanghai data fetch-decks`: put the pinned npm card decks in the cache folder.

Uses the ordinary npm client (`npm pack`), so the registry is the only thing reached;
the tarballs are unpacked under `<cache>/npm/<folder>/` and never committed.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from shanghai.engine.errors import ShanghaiError

from .faces_svg import NPM_DECKS, NpmDeck

__all__ = ["FetchError", "fetch_decks"]


class FetchError(ShanghaiError):
    """A deck could not be fetched (npm missing, registry refused, bad tarball)."""


def _fetch_one(deck: NpmDeck, cache_dir: Path) -> Path:
    target = cache_dir / "npm" / deck.folder
    if (target / "package" / "package.json").is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise FetchError("npm is not installed; it is needed to fetch the SVG decks")
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [npm, "pack", deck.spec, "--silent", "--pack-destination", tmp],
            capture_output=True,
            text=True,
            check=False,
        )
        tarballs = list(Path(tmp).glob("*.tgz"))
        if result.returncode != 0 or len(tarballs) != 1:
            raise FetchError(f"npm pack {deck.spec} failed: {result.stderr.strip()[:200]}")
        staging = Path(tmp) / "unpacked"
        with tarfile.open(tarballs[0]) as archive:
            archive.extractall(staging, filter="data")
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), target)
    return target


def fetch_decks(cache_dir: Path) -> list[tuple[NpmDeck, Path]]:
    """Fetch every pinned deck that is not already unpacked; returns where each lives."""
    return [(deck, _fetch_one(deck, cache_dir)) for deck in NPM_DECKS]
