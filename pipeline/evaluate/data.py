"""Loaders for the public evaluation sets in ../shared/eval (see its README for licences).

SciFact (BEIR format for retrieval, allenai format for claims), SQuAD 2.0 and CMRC 2018
(SQuAD format). Nothing here is tuned on the data; it only reads it and builds the
documents our pipeline ingests, through the same `parse()` entry point as any upload.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.core.contracts import Document
from pipeline.ingest.parsers import parse

EVAL_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "eval"
SCIFACT_CORPUS = EVAL_DIR / "scifact" / "corpus.jsonl"
SCIFACT_CLAIMS = EVAL_DIR / "scifact" / "claims_train.jsonl"
SCIFACT_QRELS = EVAL_DIR / "scifact" / "qrels_train.tsv"
SQUAD2 = EVAL_DIR / "squad2" / "dev_public.json"
CMRC = EVAL_DIR / "cmrc2018" / "dev_public.json"


@dataclass(frozen=True)
class Abstract:
    doc_id: str
    title: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        """BEIR's document text: the title and the sentences, joined by spaces."""
        return " ".join([self.title, *self.sentences]).strip()


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    cited_doc_ids: tuple[str, ...]
    evidence: dict[str, str]  # doc_id → SUPPORT / CONTRADICT (absent: no evidence)
    rationales: dict[str, tuple[int, ...]] = field(default_factory=dict)


def load_scifact_corpus(path: Path = SCIFACT_CORPUS) -> list[Abstract]:
    abstracts = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                abstracts.append(Abstract(str(row["doc_id"]), (row.get("title") or "").strip(),
                                          tuple(s.strip() for s in row["sentences"])))
    return abstracts


def load_scifact_claims(path: Path = SCIFACT_CLAIMS) -> list[Claim]:
    claims = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            evidence, rationales = {}, {}
            for item in row.get("evidence") or []:
                evidence[str(item["doc_id"])] = item["label"]
                # A document may hold several evidence sets: any of their sentences is a gold rationale.
                known = rationales.get(str(item["doc_id"]), ())
                rationales[str(item["doc_id"])] = tuple(sorted({*known, *(item.get("sentences") or ())}))
            claims.append(Claim(str(row["id"]), row["claim"], tuple(str(d) for d in row.get("cited_doc_ids") or ()),
                                evidence, rationales))
    return claims


def load_qrels(path: Path = SCIFACT_QRELS) -> dict[str, dict[str, int]]:
    """BEIR qrels: query id → {corpus id: relevance} (header line and CRLF tolerated)."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            parts = line.strip().split("\t")
            if len(parts) < 3 or parts[0] == "query-id":
                continue
            score = int(float(parts[2]))
            if score > 0:
                qrels.setdefault(parts[0], {})[parts[1]] = score
    return qrels


def abstract_document(abstract: Abstract) -> Document:
    """One abstract as an uploaded text file: one body line, title + sentences (BEIR's text)."""
    return parse(abstract.text.encode("utf-8"), f"scifact-{abstract.doc_id}.txt", {"id": f"scifact-{abstract.doc_id}"})


def sentence_document(abstract: Abstract) -> Document:
    """The abstract with one line per sentence (line 1 = title), for citation checks and highlights."""
    body = "\n".join([abstract.title or "(untitled)", *abstract.sentences]) + "\n"
    return parse(body.encode("utf-8"), f"scifact-{abstract.doc_id}.txt", {"id": f"scifact-{abstract.doc_id}"})


def source_id(doc_id: str) -> str:
    return f"scifact-{doc_id}"


def doc_id_of(source: str) -> str:
    return source.removeprefix("scifact-")


# --------------------------------------------------------------------------- SQuAD format


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answers: tuple[str, ...]
    answer_starts: tuple[int, ...]
    impossible: bool
    paragraph: int  # index into the article's paragraphs


@dataclass(frozen=True)
class Article:
    title: str
    paragraphs: tuple[str, ...]
    questions: tuple[Question, ...]


def load_squad(path: Path) -> list[Article]:
    data = json.loads(Path(path).read_text("utf-8"))
    articles = []
    for a_index, article in enumerate(data["data"]):
        paragraphs, questions = [], []
        for p_index, paragraph in enumerate(article["paragraphs"]):
            paragraphs.append(paragraph["context"])
            for qa in paragraph["qas"]:
                answers = qa.get("answers") or []
                questions.append(Question(
                    id=str(qa["id"]), question=qa["question"],
                    answers=tuple(a["text"] for a in answers),
                    answer_starts=tuple(int(a.get("answer_start", -1)) for a in answers),
                    impossible=bool(qa.get("is_impossible", False)) or not answers,
                    paragraph=p_index,
                ))
        articles.append(Article(str(article.get("title") or f"article-{a_index}"), tuple(paragraphs), tuple(questions)))
    return articles


def paragraph_document(article_index: int, paragraph_index: int, text: str) -> Document:
    """One paragraph as one text document of one line (contexts hold no newlines)."""
    body = " ".join(text.split("\n")) if "\n" in text else text
    sid = f"a{article_index}-p{paragraph_index}"
    return parse(body.encode("utf-8"), f"{sid}.txt", {"id": sid})
