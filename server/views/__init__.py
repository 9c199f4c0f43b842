"""Stored rows and engine results turned into the public schemas (`server/schemas.py`),
a module per what is shown: games and rounds, the score sheet, hands, scans, lay-down
checks."""
