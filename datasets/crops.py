"""Index crops for the reader (an ultralytics classify model).

The crop geometry lives in `shanghai.vision.crops` so that the runtime and the training
data cut an index out with the same code; this module re-exports it for the data
generator. Training crops jitter the centre and the margin around that contract.
"""

from __future__ import annotations

from shanghai.vision.crops import CROP_CONTEXT, CROP_SIZE, square_crop

__all__ = ["CROP_CONTEXT", "CROP_SIZE", "square_crop"]
