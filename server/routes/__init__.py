"""The API's routers, one module per resource; `server/app.py` includes each.

A router imports shared modules only (`deps`, `schemas`, `views`, `game_state`, ...),
never another router (tests/test_import_boundaries.py)."""
