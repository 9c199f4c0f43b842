"""Errors of the command line itself (bad arguments, unreadable files)."""

from __future__ import annotations


class UsageError(Exception):
    """Bad command-line input: reported as one line on stderr with exit status 2."""
