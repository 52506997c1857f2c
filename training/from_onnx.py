"""Rebuild a trainable reader checkpoint from the shipped int8 ONNX file.

    .venv-train/bin/python -m training.from_onnx --model pipeline/models/reader-v2.onnx --out training/runs/shipped.pt

The torch weights a reader was exported from live outside the repository and can be lost with their
machine; the shipped file holds every weight (int8 per tensor for the matrices, fp32 for the rest), so
dequantising it gives a starting point for a further fine-tune (`train.py --init`) whose logits match
the shipped reader's closely (`--check-pairs` reports the correlation).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import torch

_MATMUL = re.compile(r"^/encoder/layers\.(\d+)/(q|k|v|ao|fi|fo)/MatMul_quant$")


def _array(initializer) -> np.ndarray:
    from onnx import numpy_helper

    return numpy_helper.to_array(initializer)


def _dequantised(inits: dict, weight: str) -> np.ndarray:
    base = weight.removesuffix("_quantized")
    q = _array(inits[weight]).astype(np.float32)
    return (q - _array(inits[f"{base}_zero_point"]).astype(np.float32)) * _array(inits[f"{base}_scale"])


def state_from_onnx(path: Path) -> dict[str, torch.Tensor]:
    """The Reader's state dict (without the frozen word table) read back from an exported file."""
    import onnx

    graph = onnx.load(str(path)).graph
    inits = {i.name: i for i in graph.initializer}
    state = {name.removeprefix("reader."): _array(init) for name, init in inits.items() if name.startswith("reader.")
             and "_quantized" not in name and not name.endswith(("_scale", "_zero_point"))}
    for node in graph.node:
        found = _MATMUL.match(node.name)
        if found and node.op_type == "MatMulInteger":
            layer, part = found.groups()
            state[f"encoder.layers.{layer}.{part}.weight"] = _dequantised(inits, node.input[1]).T
    head = "reader.head.weight_Transposed_quantized"
    if head in inits:
        state["head.weight"] = _dequantised(inits, head).T.reshape(1, -1)
    return {k: torch.from_numpy(np.ascontiguousarray(v, dtype=np.float32)) for k, v in state.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=Path("pipeline/models/reader-v2.onnx"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--check-pairs", type=Path, help="pairs to compare the rebuilt model with the file on")
    args = parser.parse_args(argv)
    state = state_from_onnx(args.model)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, args.out)
    if args.check_pairs:
        from .export import check, load_reader
        from .train import load_rows

        report = check(load_reader(args.out.parent, args.layers, args.out.name), args.model,
                       load_rows(args.check_pairs)[:256])
        report.pop("logits")
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
