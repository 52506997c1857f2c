"""Write pipeline/lang/antonyms.tsv: WordNet 3.0's single-word antonym pairs ("upload"/"download",
"enable"/"disable"), for the composer's guard against a unit that speaks only of the opposite of what a question asks.

WordNet is read from its database files (Debian's `wordnet-base`: `dpkg-deb -x wordnet-base_*.deb DIR`, then
`uv run python scripts/build_antonyms.py DIR/usr/share/wordnet`). Function words (bm25s' English stopwords: "on"/"off",
"in"/"out"), common words (tagged more than COMMON times in WordNet's sense-tagged corpus: "different"/"same",
"first"/"last", "large"/"small", which frame questions more than they name what is asked) and pairs that stem alike
are left out. WordNet 3.0 Copyright 2006 by Princeton University (WordNet 3.0
licence, kept in the file's header).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bm25s.stopwords import STOPWORDS_EN  # noqa: E402

from pipeline.lang.tokenize import english_stem  # noqa: E402

OUT = ROOT / "pipeline" / "lang" / "antonyms.tsv"
HEADER = """\
# Antonym pairs from WordNet 3.0 (scripts/build_antonyms.py). WordNet 3.0 Copyright 2006 by Princeton University.
# All rights reserved. THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
# REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON UNIVERSITY MAKES
# NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE
# LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR
# OTHER RIGHTS. The name of Princeton University or Princeton may not be used in advertising or publicity pertaining
# to distribution of the software and/or database. Title to copyright in this software, database and any associated
# documentation shall at all times remain with Princeton University and LICENSEE agrees to preserve same.
"""
_POS = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}


def _synsets(directory: Path) -> dict[tuple[str, str], tuple[list[str], list[tuple[str, str, str, str]]]]:
    """(file, offset) → (the synset's words, its pointers (symbol, offset, part of speech, source/target))."""
    found = {}
    for name in ("noun", "verb", "adj", "adv"):
        for line in (directory / f"data.{name}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):  # the licence at the top of each file
                continue
            parts = line.split(" ")
            count = int(parts[3], 16)
            words = [parts[4 + 2 * i] for i in range(count)]
            at = 4 + 2 * count
            pointers = [tuple(parts[at + 1 + 4 * k : at + 5 + 4 * k]) for k in range(int(parts[at]))]
            found[(name, parts[0])] = (words, pointers)
    return found


def _word(raw: str) -> str:
    return raw.split("(")[0].lower()


COMMON = 100  # SemCor tags: a word used more often ("different", "first", "new", "large", "end") mostly frames a question


def _tag_counts(directory: Path) -> dict[str, int]:
    """How often each lemma is tagged in WordNet's sense-tagged corpus (cntlist.rev), all senses together."""
    counts: dict[str, int] = {}
    for line in (directory / "cntlist.rev").read_text(encoding="latin-1").splitlines():
        key, _sense, count = line.split()
        lemma = key.split("%")[0].lower()
        counts[lemma] = counts.get(lemma, 0) + int(count)
    return counts


def antonym_pairs(directory: Path) -> list[tuple[str, str]]:
    synsets = _synsets(directory)
    common = {english_stem(lemma) for lemma, count in _tag_counts(directory).items() if count > COMMON}
    pairs = set()
    for words, pointers in synsets.values():
        for symbol, offset, pos, source_target in pointers:
            target = synsets.get((_POS[pos], offset))
            if symbol != "!" or target is None:
                continue
            one = _word(words[int(source_target[:2], 16) - 1])
            two = _word(target[0][int(source_target[2:], 16) - 1])
            if (one.isalpha() and two.isalpha() and min(len(one), len(two)) >= 3
                    and not {english_stem(one), english_stem(two)} & common
                    and one not in STOPWORDS_EN and two not in STOPWORDS_EN and english_stem(one) != english_stem(two)):
                pairs.add(tuple(sorted((one, two))))
    return sorted(pairs)


def main() -> None:
    pairs = antonym_pairs(Path(sys.argv[1]))
    OUT.write_text(HEADER + "".join(f"{one}\t{two}\n" for one, two in pairs), encoding="utf-8")
    print(f"{len(pairs)} pairs → {OUT}")


if __name__ == "__main__":
    main()
