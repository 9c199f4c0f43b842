"""Synthetic training and test data: card faces of many decks, photo-like tables, labels
measured from the pixels, splits with held-out looks, round-end scenes with scores.

Entry points: `generate.generate` (`shanghai data generate`), `preview`
(`shanghai data preview`), `fetch.fetch_decks` (`shanghai data fetch-decks`).
See docs/datasets.md.
"""
