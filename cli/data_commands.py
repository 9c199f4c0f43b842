"""`shanghai data ...`: synthetic data generation (filled in by the datasets work)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add the `data` command group to the top-level parser."""
    parser: argparse.ArgumentParser = sub.add_parser("data", help="generate synthetic card data")
    parser.set_defaults(func=lambda args: parser.print_help() or 0)
