"""`/api/table`: how phones join this table. The host's page (a request from this
machine) gets the join URL with the table code and its QR code to show; anyone else
only learns whether a code is needed."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.requests import HTTPConnection
from pydantic import BaseModel

from ..deps import SettingsDep
from ..errors import ApiError
from ..lan import is_loopback_client, join_url
from ..qr import qr_svg
from ..schemas import error_responses
from ..table_code import format_code

router = APIRouter(prefix="/api/table", tags=["table"])


class TablePublic(BaseModel):
    code_required: bool
    """Whether phones need the table code (the server listens beyond localhost)."""
    join_url: str | None
    """The URL a phone opens, with the code (only for a request from this machine)."""
    code: str | None
    """The code, grouped for reading aloud (only for a request from this machine)."""
    qr_url: str | None
    """The join URL as a QR code (SVG; only for a request from this machine)."""


def _join_url(connection: HTTPConnection, settings: SettingsDep) -> str | None:
    code: str | None = connection.app.state.table_code
    if code is None or not is_loopback_client(connection.scope):
        return None
    return join_url(settings.host, settings.port, code, https=settings.https)


@router.get("", response_model=TablePublic)
def read_table(connection: HTTPConnection, settings: SettingsDep) -> TablePublic:
    code: str | None = connection.app.state.table_code
    url = _join_url(connection, settings)
    return TablePublic(
        code_required=code is not None,
        join_url=url,
        code=format_code(code) if url is not None and code is not None else None,
        qr_url="/api/table/qr.svg" if url is not None else None,
    )


@router.get(
    "/qr.svg",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, **error_responses(404)},
)
def read_join_qr(connection: HTTPConnection, settings: SettingsDep) -> Response:
    """The join URL as a QR code, for the host's screen."""
    url = _join_url(connection, settings)
    if url is None:
        raise ApiError(404, "the join QR code is shown on the server's own machine only")
    return Response(qr_svg(url), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})
