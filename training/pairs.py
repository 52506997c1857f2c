"""Build the reader's (query, unit, label) pairs from the public sets in ../shared/eval.

Run with the app's environment (it cuts sentences with the product's own splitter, so the
units the reader learns on are the units it scores at run time):

    uv run --frozen python -m training.pairs --out training/data

Each pair is one JSON line: {"task": "question"|"claim", "query", "unit", "label": 0|1,
"origin", "group", "split"}. `split` is "train", "calib" (thresholds are chosen here and
nowhere else) or "val" (reported, never tuned on). What goes where:

- SQuAD 1.1 train (answerable): the sentence holding the answer answers (QNLI-style); the
  paragraph's other sentences do not, the ones sharing most of the question's words first.
  1 % of its articles (by a hash of the title) are validation.
- SQuAD 2.0 train slice: as above, and its real unanswerable questions: no sentence answers
  (the one holding a plausible answer first).
- SQuAD 2.0 public dev half, split by article: 3 articles train, 2 calibrate, 3 validate (the
  `eval squad2 --limit 150` questions are in a validation article).
- CMRC 2018 train (Chinese) trains; the CMRC public dev half is validation only.
- SciFact claims, split as the verifier's evaluation splits them (held-out claims are
  validation); of the rest a fifth calibrates. SUPPORT rationale sentences support; CONTRADICT
  rationales and the abstract's other sentences do not.
- Questions asked of real documents the way users ask them (`--product DIR`, training/product_pairs.py): man
  pages, Debian notes, reST and Markdown guides; split by document.
- Echo negatives (`--echo P`): the answer's sentence with the answer itself replaced by a pro-form ("this",
  "someone", "several", "这"): a sentence that restates the question's subject without saying what is asked,
  which is what the product's wrong answers on unseen documents were ("These compress data in memory.").
- Hard negatives made from the positives (each a negative for the sentence that answered the
  original): the question's or claim's name, number or year swapped for another of the same
  article; a word swapped for its opposite; a claim negated.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from pipeline.evaluate import data
from pipeline.evaluate.judge_data import held_out
from pipeline.lang.sentences import sentence_spans
from pipeline.lang.tokenize import has_cjk
from training.pair_text import WORD, bucket, overlap, sha256

TRAIN_DIR = data.EVAL_DIR / "train"
SQUAD11 = TRAIN_DIR / "squad11_train_reconstructed.jsonl.gz"
SQUAD2_TRAIN = TRAIN_DIR / "squad2_train_first10articles.jsonl.gz"
CMRC_TRAIN = TRAIN_DIR / "cmrc2018_train.jsonl.gz"

SQUAD2_DEV_SPLIT = {
    "1973_oil_crisis": "train", "Packet_switching": "train", "Scottish_Parliament": "train",
    "Huguenot": "calib", "French_and_Indian_War": "calib",
    "Normans": "val", "Yuan_dynasty": "val", "Imperialism": "val",
}
MAX_UNIT_CHARS = 600

# Opposites a question or claim may be turned with (each direction); SQuAD 2.0's crowd wrote many such
# unanswerables ("the largest" → "the smallest"). General English, no benchmark answer.
OPPOSITES = dict(pair for a, b in [
    ("largest", "smallest"), ("biggest", "smallest"), ("highest", "lowest"), ("first", "last"), ("earliest", "latest"),
    ("most", "least"), ("more", "less"), ("before", "after"), ("increase", "decrease"), ("increased", "decreased"),
    ("north", "south"), ("east", "west"), ("northern", "southern"), ("eastern", "western"), ("upper", "lower"),
    ("maximum", "minimum"), ("longest", "shortest"), ("oldest", "youngest"), ("best", "worst"), ("win", "lose"),
    ("won", "lost"), ("start", "end"), ("began", "ended"), ("open", "closed"), ("allowed", "prohibited"),
    ("legal", "illegal"), ("positive", "negative"), ("higher", "lower"), ("larger", "smaller"), ("early", "late"),
    ("inside", "outside"), ("above", "below"), ("internal", "external"), ("public", "private"), ("rise", "fall"),
    ("gain", "loss"), ("import", "export"), ("imports", "exports"), ("accept", "reject"), ("accepted", "rejected"),
    ("supported", "opposed"), ("success", "failure"), ("major", "minor"), ("male", "female"), ("men", "women"),
    ("increases", "decreases"), ("promotes", "inhibits"), ("activates", "suppresses"), ("enhances", "reduces"),
    ("higher", "lower"), ("required", "optional"), ("included", "excluded"), ("free", "paid"),
    ("最大", "最小"), ("最早", "最晚"), ("最高", "最低"), ("最多", "最少"), ("第一", "最后"), ("之前", "之后"),
    ("增加", "减少"), ("北部", "南部"), ("东部", "西部"), ("上升", "下降"),
] for pair in ((a, b), (b, a)))
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][a-z]+)*\b")
_AUX = re.compile(r"^(\W*(?:what|which|who|whom|when|where|why|how)(?:\s+\w+){0,3}?\s+(?:is|was|are|were|did|does|do|can|could|will|would|has|have|had))\s", re.I)
_CLAIM_VERB = re.compile(r"\b(is|are|was|were|can|does|do|has|have|will)\b")


def sentences(text: str) -> list[tuple[int, int, str]]:
    return [(s, e, text[s:e]) for s, e in sentence_spans(text) if e - s <= MAX_UNIT_CHARS]


def _read_jsonl_gz(path: Path) -> Iterator[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def _squad_json(path: Path) -> Iterator[dict]:
    for article in json.loads(path.read_text(encoding="utf-8"))["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                yield {"id": qa["id"], "title": article["title"], "context": paragraph["context"],
                       "question": qa["question"], "answers": qa.get("answers", []),
                       "plausible_answers": qa.get("plausible_answers", []),
                       "is_impossible": qa.get("is_impossible", False)}


class PairWriter:
    def __init__(self, out: Path, seed: int) -> None:
        self.out = out
        self.rng = random.Random(seed)
        self.handle = open(out, "w", encoding="utf-8")
        self.counts: dict[str, int] = {}

    def add(self, task: str, query: str, unit: str, label: int, origin: str, group: str, split: str) -> None:
        self.handle.write(json.dumps({"task": task, "query": query, "unit": unit, "label": label, "origin": origin,
                                      "group": group, "split": split}, ensure_ascii=False) + "\n")
        key = f"{split}/{origin}/{label}"
        self.counts[key] = self.counts.get(key, 0) + 1

    def close(self) -> None:
        self.handle.close()


_SPLIT_CACHE: dict[str, list[tuple[int, int, str]]] = {}


def _paragraph_sentences(context: str) -> list[tuple[int, int, str]]:
    if context not in _SPLIT_CACHE:
        if len(_SPLIT_CACHE) > 4096:
            _SPLIT_CACHE.clear()
        _SPLIT_CACHE[context] = sentences(context)
    return _SPLIT_CACHE[context]


def _holding(units: list[tuple[int, int, str]], starts: list[int]) -> set[int]:
    return {i for i, (s, e, _) in enumerate(units) if any(s <= a < e for a in starts)}


def qa_pairs(writer: PairWriter, row: dict, origin: str, split: str, negatives: int, article_values: dict,
             echo: float = 0.0) -> None:
    """A SQuAD-format question against its paragraph's sentences, plus swapped-question hard negatives."""
    units = _paragraph_sentences(row["context"])
    if not units:
        return
    question, group = row["question"].strip(), row["id"]
    if row.get("is_impossible"):
        plausible = _holding(units, [a["answer_start"] for a in row.get("plausible_answers", []) if a.get("text")])
        ranked = sorted(range(len(units)), key=lambda i: (i not in plausible, -overlap(question, units[i][2])))
        for i in ranked[: negatives + 1]:
            writer.add("question", question, units[i][2], 0, origin + "-unanswerable", group, split)
        return
    positive = _holding(units, [a["answer_start"] for a in row["answers"] if a.get("text")])
    if not positive:
        return
    for i in positive:
        writer.add("question", question, units[i][2], 1, origin, group, split)
    others = [i for i in range(len(units)) if i not in positive]
    others.sort(key=lambda i: -overlap(question, units[i][2]))
    chosen = others[:negatives]
    rest = others[negatives:]
    if rest and writer.rng.random() < 0.5:
        chosen.append(writer.rng.choice(rest))
    for i in chosen:
        writer.add("question", question, units[i][2], 0, origin, group, split)
    if echo > 0 and writer.rng.random() < echo and (echoed := echo_negative(row, writer.rng)) is not None:
        writer.add("question", question, echoed, 0, origin + "-echo", group, split)
    answer_unit = units[min(positive)][2]
    swapped = swap_query(question, answer_unit, article_values.get(row["title"], {}), writer.rng)
    if swapped is not None:
        writer.add("question", swapped[0], answer_unit, 0, origin + "-swap-" + swapped[1], group + "-swap", split)


# Pro-forms an echo negative puts where the answer was: what a sentence says when it mentions what is asked
# without saying it. General English and Chinese words, no benchmark answer.
_PRO_NUMBER = ("several", "a number of", "some", "many")
_PRO_TIME = ("then", "at that time", "that year", "one day")
_PRO_NAME = ("someone", "they", "this", "it")
_PRO_OTHER = ("this", "it", "these", "something", "them", "that", "the following", "such things")
_PRO_ZH = ("这", "其", "某些", "此", "相关内容")
_PRO_ZH_NUMBER = ("若干", "某时", "一些")
_TIME = re.compile(r"\d:\d\d|\b(?:January|February|March|April|May|June|July|August|September|October|November|"
                   r"December)\b|\b(?:1[5-9]|20)\d\ds?\b")


def echo_negative(row: dict, rng: random.Random) -> str | None:
    """The sentence holding the first answer with that answer replaced by a pro-form; None when the answer is
    not inside one sentence, is most of it, or the question itself says the answer."""
    answer = next((a for a in row["answers"] if a.get("text")), None)
    if answer is None or answer["text"].casefold() in row["question"].casefold():
        return None
    start, text = answer["answer_start"], answer["text"]
    for s, e, sentence in _paragraph_sentences(row["context"]):
        if s <= start and start + len(text) <= e:
            if len(text) > 0.6 * len(sentence.strip()):
                return None
            if has_cjk(text):
                pro = rng.choice(_PRO_ZH_NUMBER if re.search(r"\d", text) else _PRO_ZH)
            elif _TIME.search(text):
                pro = rng.choice(_PRO_TIME)
            elif _NUMBER.search(text):
                pro = rng.choice(_PRO_NUMBER)
            elif _NAME.fullmatch(text.strip()):
                pro = rng.choice(_PRO_NAME)
            else:
                pro = rng.choice(_PRO_OTHER)
            echoed = sentence[: start - s] + pro + sentence[start - s + len(text):]
            # Any other mention of the answer would still answer.
            return None if text.casefold() in echoed.casefold() else echoed
    return None


def article_values(rows: list[dict]) -> dict[str, dict[str, list[str]]]:
    """Per article, the names and numbers its paragraphs mention (what a swap may put in)."""
    values: dict[str, dict[str, set[str]]] = {}
    for row in rows:
        slot = values.setdefault(row["title"], {"name": set(), "number": set()})
        if len(slot["name"]) < 400:
            slot["name"].update(m.group() for m in _NAME.finditer(row["context"]) if len(m.group()) > 3)
        if len(slot["number"]) < 200:
            slot["number"].update(m.group() for m in _NUMBER.finditer(row["context"]))
    return {t: {k: sorted(v) for k, v in slot.items()} for t, slot in values.items()}


def swap_query(query: str, unit: str, values: dict[str, list[str]], rng: random.Random) -> tuple[str, str] | None:
    """The query with one thing changed so that `unit` no longer answers (or supports) it: a name or number of
    the query that the unit states, replaced by another of the article the unit does not state; a word by its
    opposite; a negation inserted. None when no such change applies."""
    options = []
    for kind, pattern in (("name", _NAME), ("number", _NUMBER)):
        for m in pattern.finditer(query):
            if m.start() == 0 and kind == "name":
                continue  # the question's first word is capitalised anyway
            if m.group() in unit:
                others = [v for v in values.get(kind, []) if v not in unit and v != m.group()
                          and v.casefold() not in query.casefold() and _same_shape(kind, m.group(), v)]
                if others:
                    options.append((kind, m, rng.choice(others)))
    for m in WORD.finditer(query) if not options or rng.random() < 0.3 else ():
        opposite = OPPOSITES.get(m.group().casefold())
        if opposite and m.group().casefold() in unit.casefold() and opposite not in unit.casefold():
            options.append(("opposite", m, opposite))
    if not options:
        return None
    kind, m, new = rng.choice(options)
    return query[: m.start()] + new + query[m.end():], kind


def _same_shape(kind: str, old: str, new: str) -> bool:
    """A year for a year, a whole number for a whole number of about its size, a decimal for a decimal."""
    if kind != "number":
        return True
    year = re.fullmatch(r"1[5-9]\d\d|20\d\d", old) is not None
    if year or re.fullmatch(r"1[5-9]\d\d|20\d\d", new):
        return year and re.fullmatch(r"1[5-9]\d\d|20\d\d", new) is not None
    return ("." in old) == ("." in new) and abs(len(old) - len(new)) <= 1


def negated_question(question: str) -> str | None:
    m = _AUX.match(question)
    return None if m is None else question[: m.end(1)] + " not" + question[m.end(1):]


def negated_claim(claim: str) -> str | None:
    m = _CLAIM_VERB.search(claim)
    if m is None or re.search(r"\bnot\b|n't\b|\bno\b", claim):
        return None
    return claim[: m.end()] + " not" + claim[m.end():]


def elsewhere_negative(row: dict, article: dict[str, list[str]]) -> str | None:
    """The sentence of another paragraph of the article sharing most of the question's words, holding no answer: what
    retrieval brings the product from elsewhere in a document (a section on the same subject that does not answer)."""
    question, answers = row["question"], [a["text"].casefold() for a in row["answers"] if a.get("text")]
    best, best_overlap = None, 0.0
    for context, units in article.items():
        if context == row["context"]:
            continue
        for sentence in units:
            if (score := overlap(question, sentence)) > best_overlap and not any(a in sentence.casefold() for a in answers):
                best, best_overlap = sentence, score
    return best


def squad11(writer: PairWriter, limit: int, elsewhere: float = 0.0, echo: float = 0.0) -> None:
    rows = list(_read_jsonl_gz(SQUAD11))
    values = article_values(rows)
    articles: dict[str, dict[str, list[str]]] = {}
    if elsewhere > 0:
        for row in rows:
            article = articles.setdefault(row["title"], {})
            if row["context"] not in article:
                article[row["context"]] = [text for _, _, text in sentences(row["context"])]
    writer.rng.shuffle(rows)
    for row in rows[:limit]:
        split = "val" if bucket("squad11:" + row["title"], 100) == 0 else "train"
        qa_pairs(writer, row, "squad11", split, negatives=2, article_values=values, echo=echo)
        if elsewhere > 0 and writer.rng.random() < elsewhere and (
                unit := elsewhere_negative(row, articles[row["title"]])) is not None:
            writer.add("question", row["question"].strip(), unit, 0, "squad11-elsewhere", row["id"], split)
        if split == "train" and writer.rng.random() < 0.04:
            negated = negated_question(row["question"].strip())
            units = _paragraph_sentences(row["context"])
            hold = _holding(units, [a["answer_start"] for a in row["answers"] if a.get("text")])
            if negated and hold:
                writer.add("question", negated, units[min(hold)][2], 0, "squad11-swap-negation", row["id"] + "-neg", split)


def squad2_train(writer: PairWriter) -> None:
    rows = list(_read_jsonl_gz(SQUAD2_TRAIN))
    values = article_values(rows)
    for row in rows:
        qa_pairs(writer, row, "squad2train", "train", negatives=2, article_values=values)


def squad2_dev(writer: PairWriter, echo: float = 0.0) -> None:
    rows = list(_squad_json(data.SQUAD2))
    values = article_values(rows)
    for row in rows:
        qa_pairs(writer, row, "squad2dev", SQUAD2_DEV_SPLIT[row["title"]], negatives=3, article_values=values,
                 echo=echo)


def cmrc(writer: PairWriter, limit: int, echo: float = 0.0) -> None:
    rows = list(_read_jsonl_gz(CMRC_TRAIN))
    values = article_values(rows)
    writer.rng.shuffle(rows)
    for row in rows[:limit]:
        qa_pairs(writer, row, "cmrc", "train", negatives=2, article_values=values, echo=echo)
    for row in _squad_json(data.CMRC):
        qa_pairs(writer, row, "cmrcdev", "val", negatives=2, article_values={}, echo=echo)


def scifact(writer: PairWriter) -> None:
    abstracts = {a.doc_id: a for a in data.load_scifact_corpus()}
    claims = data.load_scifact_claims()
    values = {"scifact": {"number": sorted({m.group() for c in claims for m in _NUMBER.finditer(c.claim)})}}
    for claim in claims:
        split = "val" if held_out(claim.id) else ("calib" if bucket("scifact-calib:" + claim.id, 5) == 0 else "train")
        for doc_id in claim.cited_doc_ids:
            abstract = abstracts.get(doc_id)
            if abstract is None:
                continue
            label = claim.evidence.get(doc_id)
            rationale = set(claim.rationales.get(doc_id, ()))
            group = f"{claim.id}:{doc_id}"
            for i, sentence in enumerate(abstract.sentences):
                if len(sentence) > MAX_UNIT_CHARS:
                    continue
                if i in rationale:
                    writer.add("claim", claim.claim, sentence, int(label == "SUPPORT"),
                               "scifact-" + label.lower(), group, split)
                    if label == "SUPPORT" and split == "train":
                        for changed in (negated_claim(claim.claim), (swap_query(claim.claim, sentence, values["scifact"],
                                                                                writer.rng) or (None,))[0]):
                            if changed:
                                writer.add("claim", changed, sentence, 0, "scifact-swap", group + "-swap", split)
                elif split != "train" or overlap(claim.claim, sentence) >= 0.2 or writer.rng.random() < 0.25:
                    writer.add("claim", claim.claim, sentence, 0, "scifact-other", group, split)


def product(writer: PairWriter, folder: Path) -> None:
    """Questions asked of real documents as users ask them (training/product_pairs.py)."""
    from training.product_pairs import product_pairs

    for row in product_pairs(folder, writer.rng):
        writer.add(**row)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("training/data"))
    parser.add_argument("--squad11", type=int, default=40000, help="SQuAD 1.1 questions to use")
    parser.add_argument("--cmrc", type=int, default=10142, help="CMRC train questions to use")
    parser.add_argument("--elsewhere", type=float, default=0.0, metavar="P",
                        help="share of SQuAD 1.1 questions also paired with another paragraph's closest sentence")
    parser.add_argument("--echo", type=float, default=0.0, metavar="P",
                        help="share of answerable questions also paired with their answer's sentence, answer replaced")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--product", type=Path, action="append", default=[],
                        help="a folder of questions asked of real documents (questions.jsonl + docs/); repeatable")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    writer = PairWriter(args.out / "pairs.jsonl", args.seed)
    for step in (lambda: squad2_dev(writer, args.echo), lambda: squad2_train(writer), lambda: scifact(writer),
                 lambda: cmrc(writer, args.cmrc, args.echo),
                 lambda: squad11(writer, args.squad11, args.elsewhere, args.echo),
                 *(lambda folder=folder: product(writer, folder) for folder in args.product)):
        step()
        print(json.dumps(writer.counts, sort_keys=True), flush=True)
    writer.close()
    inputs = [SQUAD11, SQUAD2_TRAIN, CMRC_TRAIN, data.SQUAD2, data.CMRC, data.SCIFACT_CLAIMS, data.SCIFACT_CORPUS,
              *(folder / "questions.jsonl" for folder in args.product)]
    manifest = {"seed": args.seed, "squad11": args.squad11, "cmrc": args.cmrc, "elsewhere": args.elsewhere, "echo": args.echo,
                "counts": writer.counts,
                "inputs": {p.name: sha256(p) for p in inputs}, "pairs_sha256": sha256(args.out / "pairs.jsonl")}
    (args.out / "pairs.manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
