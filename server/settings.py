"""Settings from the environment (`SHANGHAI_*`) or `shanghai serve` flags.

Nothing is read at import time: `Settings()` is built by the app factory (or by the
CLI with its flags) and handlers obtain it through the `get_settings` dependency, so
tests override it like any other dependency.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import Depends
from fastapi.requests import HTTPConnection
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from shanghai.engine.variant_files import house_rule_dirs
from shanghai.vision.deck_store import default_data_dir

from .table_code import normalize_code

__all__ = ["Settings", "SettingsDep", "default_data_dir", "get_settings"]

MIB = 1024 * 1024


class Settings(BaseSettings):
    """Everything the server can be told; each field is also `SHANGHAI_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="SHANGHAI_", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir)
    database_url: str | None = Field(
        default=None,
        description="any SQLAlchemy URL; default: a SQLite file shanghai.db in data_dir",
    )
    camera: str | None = Field(
        default=None, description="server-side camera index (0) or a video file to read"
    )
    variants_dir: Path | None = Field(
        default=None, description="folder of house-rule NAME.toml files usable by name"
    )
    max_upload_bytes: int = Field(default=20 * MIB, gt=0)
    max_image_pixels: int = Field(default=40_000_000, gt=0)
    deck_views: int = Field(
        default=24,
        ge=1,
        le=64,
        description="augmented views of each enrolled index a taught deck is adapted on",
    )
    live_fps: float = Field(default=5.0, gt=0, description="frames a second the camera scans")
    live_hold_seconds: float = Field(
        default=1.0,
        ge=0,
        description="seconds the cards in view must stay the same to count as stable",
    )
    host: str = Field(
        default="127.0.0.1",
        description="the address the server listens on; beyond localhost a table code is needed",
    )
    port: int = Field(default=8000, gt=0, lt=65536, description="the port, for the join URL")
    https: bool = Field(
        default=False,
        description="served over HTTPS with a self-signed certificate (a phone's camera "
        "needs it); the join URL says https",
    )
    table_code: str | None = Field(
        default=None,
        description="the code phones need when the server listens beyond localhost "
        "(default: a new random one at every start)",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="extra names the server is reached by (Host header), comma-separated",
    )

    @field_validator("table_code")
    @classmethod
    def _valid_code(cls, value: str | None) -> str | None:
        return None if value is None or not value.strip() else normalize_code(value)

    @field_validator("allowed_hosts", mode="before")
    @classmethod
    def _split_hosts(cls, value: object) -> object:
        if isinstance(value, str):
            return [name.strip() for name in value.split(",") if name.strip()]
        return value

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'shanghai.db'}"

    @property
    def variant_search_dirs(self) -> list[Path]:
        return house_rule_dirs(self.variants_dir)


def get_settings(connection: HTTPConnection) -> Settings:
    """The settings the running app was built with."""
    settings: Settings = connection.app.state.settings
    return settings


SettingsDep = Annotated[Settings, Depends(get_settings)]
