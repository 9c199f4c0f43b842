"""QR codes of the join URL: an SVG for the host's page, text for the terminal."""

from __future__ import annotations

import io
from typing import Any

__all__ = ["qr_svg", "qr_text"]


def _code(data: str) -> Any:
    import qrcode

    code = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    code.add_data(data)
    code.make(fit=True)
    return code


def qr_svg(data: str) -> bytes:
    """An SVG image (black on white) of `data`."""
    from qrcode.image.svg import SvgPathFillImage

    image = _code(data).make_image(image_factory=SvgPathFillImage)
    return bytes(image.to_string(encoding="unicode").encode("utf-8"))


def qr_text(data: str) -> str:
    """`data` drawn with block characters for a terminal with a dark background (light
    modules are drawn, dark ones left blank)."""
    out = io.StringIO()
    _code(data).print_ascii(out=out, tty=False, invert=True)
    return out.getvalue()
