"""How errors are answered: always JSON `{"detail": ...}`, never a crash of the answer
itself, and after a server error the connection is closed cleanly.

- `ApiError` (the routes' own 4xx/503), the engine's `ShanghaiError` (422) and a write
  that lost a race (`IntegrityError`, 409).
- Request validation (422, FastAPI's list of errors) with the input quoted back short
  and safe to encode; a JSON route sent another content type (a form, an image): 415.
- Anything else: 500 with `Connection: close`, so the client knows not to reuse the
  connection the server is about to drop.

The OpenAPI document says so (`document_error_answers`): every route that takes input
documents its 422 as `UnprocessablePublic` (a sentence or the validation list), every
route with a body its 400 (a body that cannot be parsed), every route with a JSON body
its 413 and 415; every error answer is documented as JSON, a page's too.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError

from shanghai.engine import ShanghaiError

from .middleware import security_headers
from .schemas import ErrorPublic, UnprocessablePublic

__all__ = ["ApiError", "ErrorResponse", "document_error_answers", "install_error_handlers"]

_QUOTED = 200
"""Most characters of a request's value quoted back in a validation error."""


class ApiError(ValueError):
    """An error answered as JSON `{"detail": ...}` with `status` (4xx for bad input, 503
    when recognition cannot run)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class ErrorResponse(JSONResponse):
    """JSON in ASCII: any text (even a lone surrogate from a request) can be answered."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


def _clipped(value: Any, depth: int = 0) -> Any:
    """A request value as quoted back: text cut short, bytes as text, few items."""
    if isinstance(value, bytes):
        value = value[: _QUOTED * 4].decode("utf-8", errors="replace")
    if isinstance(value, str):
        return value if len(value) <= _QUOTED else value[:_QUOTED] + "…"
    if depth > 3:
        return "…"
    if isinstance(value, dict):
        items = list(value.items())[:20]
        return {str(k)[:_QUOTED]: _clipped(v, depth + 1) for k, v in items}
    if isinstance(value, list | tuple):
        return [_clipped(v, depth + 1) for v in value[:20]]
    return value


def _sent_as_json(request: Request) -> bool:
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return not kind or kind == "application/json" or kind.endswith("+json")


def _component(model: type[BaseModel], components: dict[str, Any]) -> dict[str, str]:
    """`model`'s schema (and those it uses) among the components; a reference to it."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(schema.pop("$defs", {}))
    components[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def _answer(description: str, schema: dict[str, str]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def document_error_answers(app: FastAPI) -> None:
    """Make the app's OpenAPI document give the error bodies the handlers above answer
    with: FastAPI documents a route's 422 as its validation list only (or as whatever
    the route declared), knows nothing of the 400 (a body it cannot parse: not UTF-8, a
    broken form) every body can get nor of the 413 and 415 of every JSON body, and
    documents the errors of a page or file route in that route's media type (HTML)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = generate()
        components = document.setdefault("components", {}).setdefault("schemas", {})
        unprocessable = _component(UnprocessablePublic, components)
        error = _component(ErrorPublic, components)
        for operations in document.get("paths", {}).values():
            for operation in operations.values():
                answers = operation.setdefault("responses", {})
                body = operation.get("requestBody", {}).get("content", {})
                if operation.get("parameters") or body:
                    answers["422"] = _answer("Unprocessable Entity", unprocessable)
                if body:
                    answers.setdefault("400", _answer("Bad Request", error))
                if "application/json" in body:
                    answers.setdefault("413", _answer("Content Too Large", error))
                    answers.setdefault("415", _answer("Unsupported Media Type", error))
                for code, answer in answers.items():
                    if code[0] in "45" and "application/json" not in answer.get("content", {}):
                        answer["content"] = {"application/json": {"schema": error}}
        for unused in ("HTTPValidationError", "ValidationError"):
            components.pop(unused, None)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]


def install_error_handlers(app: FastAPI) -> None:
    """Answer every error as JSON, and document it; see the module's docstring."""
    document_error_answers(app)

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return ErrorResponse({"detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(ShanghaiError)
    async def rules_error(_request: Request, exc: ShanghaiError) -> JSONResponse:
        return ErrorResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(IntegrityError)
    async def conflict(_request: Request, _exc: IntegrityError) -> JSONResponse:
        return ErrorResponse(
            {"detail": "this was recorded at the same time by another request; reload"},
            status_code=409,
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = list(exc.errors())
        whole_body = any(
            tuple(e.get("loc", ())) == ("body",) and isinstance(e.get("input"), bytes | str)
            for e in errors
        )
        if whole_body and not _sent_as_json(request):
            return ErrorResponse(
                {"detail": "send the request body as JSON (Content-Type: application/json)"},
                status_code=415,
            )
        for error in errors:
            if "input" in error:
                error["input"] = _clipped(error["input"])
        return ErrorResponse({"detail": jsonable_encoder(errors)}, status_code=422)

    @app.exception_handler(Exception)
    async def server_error(request: Request, _exc: Exception) -> JSONResponse:
        # Starlette answers with this, then re-raises (the server logs the traceback and
        # drops the connection): say so.
        headers = {**security_headers(request.scope), "Connection": "close"}
        return ErrorResponse(
            {"detail": "internal server error; the error was logged"},
            status_code=500,
            headers=headers,
        )
