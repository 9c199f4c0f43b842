"""Give the shipped reader a second output: its pooled embedding.

    .venv/bin/python tools/reader_embedding.py [models/cards-reader.onnx] [--out FILE]

A taught deck (`vision/deck_head.py`) reads an index by where its crop lies in the
reader's own feature space: the features entering the final Linear of the Classify head
(global-average-pooled, flattened). This script adds that tensor as a second graph output
named `embedding`, (N, D) float32, and changes nothing else: the first output (the
probabilities) is the same computation, which `tests/vision/test_deck_head.py` checks.
It needs the `onnx` package (the `train` extra) once; the runtime only reads the file
with ONNX Runtime. Running it on a reader that already has the output does nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import onnx
from onnx import TensorProto, helper

EMBEDDING = "embedding"
"""Name of the second output (`vision.onnx_models.EMBEDDING_OUTPUT`)."""


def head_input(graph: onnx.GraphProto) -> tuple[str, int]:
    """The tensor feeding the Classify head's final Gemm, and the Gemm's input width."""
    gemms = [n for n in graph.node if n.op_type == "Gemm"]
    if len(gemms) != 1:
        raise SystemExit(f"expected one Gemm (the Classify head's Linear), found {len(gemms)}")
    gemm = gemms[0]
    weight = next((t for t in graph.initializer if t.name == gemm.input[1]), None)
    if weight is None:
        raise SystemExit(f"the Gemm's weight {gemm.input[1]} is not an initializer")
    trans_b = next((a.i for a in gemm.attribute if a.name == "transB"), 0)
    width = weight.dims[1] if trans_b else weight.dims[0]
    return gemm.input[0], int(width)


def add_embedding(model: onnx.ModelProto) -> bool:
    """Add the `embedding` output in place; False if the model already has it."""
    graph = model.graph
    if any(o.name == EMBEDDING for o in graph.output):
        return False
    source, width = head_input(graph)
    graph.node.append(helper.make_node("Identity", [source], [EMBEDDING], name="embedding"))
    output = helper.make_tensor_value_info(EMBEDDING, TensorProto.FLOAT, ["batch", width])
    graph.output.append(output)
    onnx.checker.check_model(model)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, nargs="?", default=Path("models/cards-reader.onnx"))
    parser.add_argument("--out", type=Path, help="write here (default: in place)")
    args = parser.parse_args(argv)
    model = onnx.load(str(args.model))
    if not add_embedding(model):
        print(f"{args.model}: already has the {EMBEDDING!r} output")
        return 0
    out = args.out or args.model
    onnx.save(model, str(out))
    print(f"{out}: added the {EMBEDDING!r} output ({head_input(model.graph)[1]} features)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
