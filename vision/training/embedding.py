"""Give an exported classifier a second output: the pooled features its last layer reads.

An ultralytics classifier ends ``GlobalAveragePool -> Flatten -> Gemm -> Softmax``; the
``Flatten`` output (1280 numbers for a YOLOv8n-cls) is the crop's *embedding*, what the
recognition core compares with the players' own labelled crops (``vision.exemplars``).
onnxruntime can only return a graph's outputs, so the embedding is added as one, through an
``Identity`` node named ``embedding``; nothing else in the graph changes, so the probabilities
(``output0``) stay what they were, bit for bit.

    python -m vision.training.embedding models/classifier.onnx   # rewrites it in place

and ``meta.json``'s ``classifier.embedding`` names the output (:func:`add_to_model_folder`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

#: the name of the added output (``meta.json``'s ``classifier.embedding``)
EMBEDDING = "embedding"


class NoEmbeddingError(ValueError):
    """The graph does not end as a classifier whose last layer reads pooled features."""


def _last_linear_input(graph) -> str:
    """The tensor the graph's final linear layer (``Gemm``/``MatMul`` before the output) reads."""
    producers = {out: node for node in graph.node for out in node.output}
    name = graph.output[0].name
    seen = 0
    while name in producers and seen < 8:
        node = producers[name]
        if node.op_type in ("Gemm", "MatMul"):
            return node.input[0]
        name = node.input[0]
        seen += 1
    raise NoEmbeddingError("the graph's first output is not a linear layer's (through a softmax)")


def add_embedding_output(source: str | Path, target: str | Path | None = None) -> Path:
    """Write ``source`` (to ``target``, default in place) with an ``embedding`` output; a graph
    that already has one is written unchanged."""
    import onnx
    from onnx import helper

    source = Path(source)
    target = Path(target) if target else source
    model = onnx.load(str(source))
    graph = model.graph
    if EMBEDDING not in {o.name for o in graph.output}:
        features = _last_linear_input(graph)
        graph.node.append(helper.make_node("Identity", [features], [EMBEDDING], name="embedding_out"))
        batch = graph.output[0].type.tensor_type.shape.dim[0]
        out = helper.make_tensor_value_info(EMBEDDING, onnx.TensorProto.FLOAT, [None, None])
        out.type.tensor_type.shape.dim[0].CopyFrom(batch)
        graph.output.append(out)
        onnx.checker.check_model(model)
    partial = target.with_name(f".{target.name}.part")
    onnx.save(model, str(partial))
    partial.replace(target)
    return target


def add_to_model_folder(folder: str | Path) -> Path:
    """Add the embedding output to a model folder's classifier and name it in ``meta.json``."""
    folder = Path(folder)
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    add_embedding_output(folder / meta["classifier"]["file"])
    meta["classifier"]["embedding"] = EMBEDDING
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return folder


if __name__ == "__main__":  # pragma: no cover - a one-off maintenance step
    for arg in sys.argv[1:] or ["models"]:
        path = Path(arg)
        print(add_to_model_folder(path) if path.is_dir() else add_embedding_output(path))
