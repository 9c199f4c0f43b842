"""The error bodies the API answers with are the ones its OpenAPI document gives: real
409 and 422 answers (a rule's sentence, FastAPI's validation list) checked against the
schema documented for their route and status."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi.testclient import TestClient

Schema = dict[str, Any]
JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def mismatches(value: Any, schema: Schema, components: dict[str, Schema]) -> list[str]:
    """Where `value` breaks `schema` (the parts of JSON Schema the API's document uses);
    an object may hold no property the schema does not name."""
    if "$ref" in schema:
        return mismatches(value, components[schema["$ref"].rsplit("/", 1)[-1]], components)
    if "anyOf" in schema:
        tries = [mismatches(value, option, components) for option in schema["anyOf"]]
        return [] if any(not t for t in tries) else [f"{value!r} matches no anyOf: {tries}"]
    kind = schema.get("type")
    if kind is None:
        return []
    if (kind == "integer" and isinstance(value, bool)) or not isinstance(value, JSON_TYPES[kind]):
        return [f"{value!r} is not {kind}"]
    found: list[str] = []
    if kind == "object" and "properties" in schema:
        properties = schema["properties"]
        found += [f"missing {key!r}" for key in schema.get("required", []) if key not in value]
        found += [f"undocumented {key!r}" for key in value if key not in properties]
        for key, item in value.items():
            if key in properties:
                found += mismatches(item, properties[key], components)
    if kind == "array":
        for item in value:
            found += mismatches(item, schema.get("items", {}), components)
    return found


def documented(client: TestClient, method: str, route: str, status: int) -> Schema:
    operation = client.app.openapi()["paths"][route][method]  # type: ignore[attr-defined]
    answer = operation["responses"][str(status)]
    return dict(answer["content"]["application/json"]["schema"])


def check(
    client: TestClient, response: httpx.Response, method: str, route: str, status: int
) -> None:
    assert response.status_code == status, response.text
    components = client.app.openapi()["components"]["schemas"]  # type: ignore[attr-defined]
    schema = documented(client, method, route, status)
    assert mismatches(response.json(), schema, components) == []


def test_real_error_bodies_match_their_documented_schema(sqlite_client: TestClient) -> None:
    client = sqlite_client
    game = client.post("/api/games", json={"variant": "shanghai", "players": ["A", "B", "C"]})
    hands = f"/api/games/{game.json()['id']}/rounds/1/hands"
    buys = f"/api/games/{game.json()['id']}/rounds/1/buys"
    hands_route = "/api/games/{game_id}/rounds/{number}/hands"
    buys_route = "/api/games/{game_id}/rounds/{number}/buys"

    bad_cards = client.post(hands, json={"player": 0, "cards": "7x"})
    assert isinstance(bad_cards.json()["detail"], str)
    check(client, bad_cards, "post", hands_route, 422)

    invalid = client.post(hands, json={"player": -1, "cards": "7h", "extra": True})
    assert isinstance(invalid.json()["detail"], list)
    check(client, invalid, "post", hands_route, 422)

    out_of_range = client.get("/api/games/0")
    check(client, out_of_range, "get", "/api/games/{game_id}", 422)

    for _ in range(3):
        client.post(buys, json={"player": 0})
    check(client, client.post(buys, json={"player": 0}), "post", buys_route, 409)

    check(client, client.post(buys, data={"player": "0"}), "post", buys_route, 415)


def test_every_route_documents_the_errors_any_request_can_get(sqlite_client: TestClient) -> None:
    document = sqlite_client.app.openapi()  # type: ignore[attr-defined]
    wrong = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            answers = operation["responses"]
            body = operation.get("requestBody", {}).get("content", {})
            expected = {"422"} if operation.get("parameters") or body else set()
            expected |= {"413", "415"} if "application/json" in body else set()
            missing = expected - set(answers)
            unprocessable = answers.get("422", {}).get("content", {}).get("application/json", {})
            if missing or unprocessable.get("schema", {}).get("$ref", "").split("/")[-1] not in {
                "",
                "UnprocessablePublic",
            }:
                wrong.append((method, path, sorted(missing), unprocessable))
    assert wrong == []
    assert "HTTPValidationError" not in str(document)


def test_a_body_that_is_not_utf8_is_a_documented_400(sqlite_client: TestClient) -> None:
    """Found by the fuzzer: JSON bytes that are not UTF-8 are FastAPI's 400, which no
    route documented."""
    client = sqlite_client
    game = client.post("/api/games", json={"variant": "shanghai", "players": ["A", "B", "C"]})
    game_id = game.json()["id"]
    body = b'{"player": 0, "cards": "7h \xff\xfe"}'
    for method, path, route in [
        ("post", "/api/games", "/api/games"),
        ("post", f"/api/games/{game_id}/points", "/api/games/{game_id}/points"),
        (
            "put",
            f"/api/games/{game_id}/rounds/1/hands/0",
            "/api/games/{game_id}/rounds/{number}/hands/{seat}",
        ),
        (
            "post",
            f"/api/games/{game_id}/rounds/1/hands",
            "/api/games/{game_id}/rounds/{number}/hands",
        ),
    ]:
        response = client.request(
            method, path, content=body, headers={"content-type": "application/json"}
        )
        check(client, response, method, route, 400)
    assert client.get(f"/api/games/{game_id}/rounds/1").json()["hands"] == []


def test_error_answers_of_pages_and_files_are_documented_as_json(
    sqlite_client: TestClient,
) -> None:
    """Found by the fuzzer: the printable sheet's 404 is JSON, but was documented as
    HTML (FastAPI gives a route's errors the route's own media type)."""
    client = sqlite_client
    check(client, client.get("/games/999/print"), "get", "/games/{game_id}/print", 404)
    document = client.app.openapi()  # type: ignore[attr-defined]
    not_json = [
        (method, path, code, sorted(answer.get("content", {})))
        for path, operations in document["paths"].items()
        for method, operation in operations.items()
        for code, answer in operation["responses"].items()
        if code[0] in "45" and set(answer.get("content", {})) != {"application/json"}
    ]
    assert not_json == []
