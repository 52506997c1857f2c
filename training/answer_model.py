"""Train the answer scorer (pipeline/models/answer_model.json) on the public SQuAD 2.0 and CMRC halves.

`uv run --frozen python -m training.answer_model [--squad N] [--cmrc N] [--out FILE]`

For each question, the product's own retrieve → pack runs at default Settings, the composer's
candidate units and features are computed exactly as at answer time (generate.unit_features),
and a unit is labelled 1 when it contains a gold answer (0 for every unit of an unanswerable
question). Besides SQuAD 2.0's own unanswerable questions (written to look answerable), each
answerable SQuAD and CMRC question is also asked once more of its collection *without the
paragraph that answers it* ("removal" records): the document does not say, the nearest text
is on topic — the unanswerable question people ask of their own documents.

The first 150 questions of each half (`--held-out`) are what `python -m pipeline eval squad2|cmrc --limit 150`
asks: they are never trained on. A logistic regression (numpy, L2, Newton steps) is fitted on the rest;
figures are cross-validated by article (SQuAD) or paragraph group (CMRC). For information, the scorer
alone is printed at every threshold, with the one that maximises the *balanced* accuracy (the mean of
the answered-correctly rate on SQuAD, CMRC and the dev set and the refusal rate on SQuAD's
unanswerables, both removal sets and the dev set, each set with equal weight). The shipped threshold
is chosen on the whole engine: the dev set is asked at 0.06–0.18, and the threshold with the most right
answers less twice its wrong + false answers is shipped, ties going to the higher one
(`engine_threshold`); the engine's value, name and table checks refuse much of what the scorer alone
would answer. The dev set is never fitted on; it is the validation set the threshold is chosen with. Question records
and unit vectors are cached under RAG_CACHE_DIR/../answer-training/.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from pathlib import Path

import numpy as np

from pipeline.core.contracts import Settings
from pipeline.engine.config import build_engine
from pipeline.evaluate import data, questions
from pipeline.evaluate.common import request
from pipeline.evaluate.squad import contains_gold, pooled
from pipeline.generate.extractive.answer_model import (
    FEATURES,
    UNTRAINED,
    WEIGHTS,
    AnswerModel,
    Pair,
    feature_matrix,
)
from pipeline.generate.extractive.scoring import candidate_pairs
from pipeline.pack import PackError, pack
from pipeline.retrieve.selection import retrieve

ROOT = Path(__file__).resolve().parents[1]


class DiskCachedEmbedder:
    """The corpus's embedder, with unit vectors kept on disk: a rerun (new features) embeds nothing."""

    def __init__(self, embedder, path: Path):
        self.inner, self.name, self.path = embedder, embedder.name, path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            saved = np.load(path, allow_pickle=False)
            self.vectors = dict(zip(saved["texts"].tolist(), saved["vectors"]))
        self.unsaved = 0

    def embed_query(self, text: str):
        return self.inner.embed_query(text)

    def embed_passages(self, texts: list[str]):
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, np.asarray(self.inner.embed_passages(missing), dtype=np.float32)))
            self.unsaved += len(missing)
            if self.unsaved >= 500:
                self.save()
        return np.vstack([self.vectors[t] for t in texts])

    def save(self) -> None:
        if self.vectors:
            texts = list(self.vectors)
            np.savez(self.path, texts=np.array(texts), vectors=np.vstack([self.vectors[t] for t in texts]))
        self.unsaved = 0


def question_record(context, corpus, embedder, prefilter: int, holds_gold, answerable: bool, qid: str, group: int) -> dict:
    """The raw pairs of one question's candidate units and their labels (1: the unit holds a gold answer)."""
    units, pairs, _, _ = candidate_pairs(context, corpus.tokenizer, embedder, prefilter)
    labels = [int(answerable and holds_gold(unit.quote)) for unit in units]
    return {"qid": qid, "group": group, "answerable": answerable, "question": context.question,
            "pairs": [p.to_json() for p in pairs], "labels": labels}


def collect(articles, limit: int, group_offset: int, settings: Settings, label: str, embedder_cache: Path,
            prefilter: int, removal: bool = False) -> list[dict]:
    """One record per asked question (a question whose retrieval packs nothing has no pairs).

    With `removal`, each answerable question is asked of its collection *without the paragraph
    that answers it*: the document does not say, the nearest text is on topic — the unanswerable
    question people actually ask (SQuAD 2.0's own unanswerables are written to look answerable).
    """
    records, asked, engine = [], 0, build_engine()
    embedder = None
    for a_index, article in enumerate(articles):
        if asked >= limit:
            break
        documents = [data.paragraph_document(a_index, p, text) for p, text in enumerate(article.paragraphs)]
        corpora = {None: engine.corpus(documents)}
        embedder = embedder or DiskCachedEmbedder(corpora[None].embedder, embedder_cache)
        for question in article.questions:
            if asked >= limit:
                break
            asked += 1
            if removal and question.impossible:
                continue
            without = question.paragraph if removal else None
            if without not in corpora:
                corpora[without] = engine.corpus([d for p, d in enumerate(documents) if p != without])
            corpus = corpora[without]
            answerable = not (question.impossible or removal)
            group = group_offset + (a_index if len(articles) > 1 else question.paragraph // 40)
            req = request(question.question)
            retrieval = retrieve(corpus, req, settings)
            record = {"qid": f"{label}-{asked}", "group": group, "answerable": answerable, "pairs": [], "labels": []}
            if retrieval.selected:
                try:
                    context = pack(retrieval.selected, corpus.readable_documents(()), req, settings,
                                   retrieval.term_weights)
                    record = question_record(context, corpus, embedder, prefilter,
                                             lambda quote, q=question: contains_gold(quote, q.answers),
                                             answerable, record["qid"], group)
                except PackError:
                    pass
            records.append(record)
            if len(corpora) > 4:  # one collection without each paragraph, kept only while its questions come
                corpora.pop(next(k for k in corpora if k is not None and k != without))
            if asked % 100 == 0:
                print(f"{label}: {asked} questions", file=sys.stderr, flush=True)
    if embedder is not None:
        embedder.save()
    return records


def collect_items(items: list[dict], document, settings: Settings, embedder_cache: Path, prefilter: int,
                  group_of) -> list[dict]:
    """Records of questions in the evaluation format: each asked of its documents (`document(name)`: the path)
    through the engine, the packed units labelled by gold containment. `group_of(item)`: the cross-validation group."""
    from pipeline.evaluate import questions as dev

    engine, corpora, records, embedder = build_engine(), {}, [], None
    for item in items:
        key = tuple(item["docs"])
        if key not in corpora:
            corpora[key] = engine.corpus(engine.parse_paths([document(d) for d in key]))
        corpus = corpora[key]
        embedder = embedder or DiskCachedEmbedder(corpus.embedder, embedder_cache)
        context = engine.ask(corpus, dev.request_of(item), settings).context
        group = group_of(item)
        record = {"qid": item["id"], "group": group, "answerable": bool(item["answerable"]), "pairs": [], "labels": []}
        if context is not None and context.sources:
            record = question_record(context, corpus, embedder, prefilter,
                                     lambda quote, i=item: any(dev.contains(quote, g) for g in i["gold"]),
                                     bool(item["answerable"]), item["id"], group)
        records.append(record)
    if embedder is not None:
        embedder.save()
    return records


def collect_dev(settings: Settings, embedder_cache: Path, prefilter: int) -> list[dict]:
    """The natural-question dev set's records, for validation only (never fitted on)."""
    from pipeline.evaluate import questions as dev

    return collect_items(dev.load_items(dev.QUESTIONS), lambda name: dev.doc_path(name, dev.QUESTIONS.parent),
                         settings, embedder_cache, prefilter, lambda item: -1)


def collect_product(folders: list[Path], settings: Settings, embedder_cache: Path, prefilter: int,
                    cache: Path, tag: str) -> list[dict]:
    """Questions people ask of their own documents (training folders: `questions.jsonl` beside `docs/`, as
    training/product_pairs reads them); one cross-validation group per document. Cached per folder."""
    from pipeline.evaluate import questions as dev

    records = []
    for folder in folders:
        def group_of(item: dict, folder: Path = folder) -> int:  # stable across cached and new folders
            return 1000 + zlib.crc32(f"{folder.name}/{item['docs']}".encode()) % 1_000_000

        made = cached_records(cache / f"product-{folder.name}-{tag}.json", lambda folder=folder, group_of=group_of: (
            collect_items(dev.load_items(folder / "questions.jsonl"), lambda name: folder / name, settings,
                          embedder_cache, prefilter, group_of)))
        records.extend({**r, "qid": f"{folder.name}:{r['qid']}"} for r in made)
    return records


def arrays(records: list[dict], truncations: tuple[int, ...] = ()):
    """Feature rows (set-relative features computed per question), labels, question ids, groups, answerable.

    Each of `truncations` adds the question once more with only its first n units (the
    prefilter's order): short documents give the composer few units, and the scorer must learn
    what a lone candidate is worth (the `few_units` feature).
    """
    X, y, qid, groups, answerable = [], [], [], [], []
    for record in records:
        pairs = [Pair.from_json(p) for p in record["pairs"]]
        for n in (len(pairs), *(t for t in truncations if t < len(pairs))):
            if not n:
                continue
            X.extend(feature_matrix(pairs[:n]))
            y.extend(record["labels"][:n])
            qid.extend([record["qid"] if n == len(pairs) else f"{record['qid']}/{n}"] * n)
            groups.extend([record["group"]] * n)
            answerable.extend([record["answerable"]] * n)
    return np.array(X), np.array(y), np.array(qid), np.array(groups), np.array(answerable)


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25) -> AnswerModel:
    mean, scale = X.mean(axis=0), X.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0  # the bias column stays 1
    scale[scale < 1e-9] = 1.0
    Z = (X - mean) / scale
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-Z @ w))
        gradient = Z.T @ (p - y) + l2 * np.r_[0.0, w[1:]]
        hessian = (Z * (p * (1 - p))[:, None]).T @ Z + l2 * np.diag(np.r_[0.0, np.ones(len(w) - 1)])
        w -= np.linalg.solve(hessian + 1e-9 * np.eye(len(w)), gradient)
    return AnswerModel(w, mean, scale, threshold=0.5, prefilter=UNTRAINED.prefilter)


def question_outcomes(probabilities, y, qid, answerable):
    """Per question: best unit's probability, whether it holds a gold answer, answerable."""
    best: dict[str, tuple[float, int, bool]] = {}
    for p, label, q, ok in zip(probabilities, y, qid, answerable):
        if q not in best or p > best[q][0]:
            best[q] = (float(p), int(label), bool(ok))
    return list(best.values())


def curve(outcomes, total_questions: int, total_unanswerable: int):
    """Accuracy, answered-correct rate and precision at each threshold (questions never packed abstain)."""
    answerable_total = total_questions - total_unanswerable
    points = []
    for t in np.round(np.arange(0.02, 0.96, 0.01), 3):
        answered = [(p, good, ok) for p, good, ok in outcomes if p >= t]
        good = sum(g for _, g, _ in answered)
        false = sum(1 for _, _, ok in answered if not ok)
        points.append({"threshold": float(t), "answered_correct": good / max(answerable_total, 1),
                       "refused": (total_unanswerable - false) / max(total_unanswerable, 1),
                       "accuracy": (good + total_unanswerable - false) / max(total_questions, 1),
                       "precision": good / len(answered) if answered else 1.0})
    return points


def balanced_curve(report: dict) -> list[dict]:
    """Per threshold: the mean of the answered-correctly rate (sets with answerable questions) and
    the refusal rate (sets with unanswerable ones), each set weighted equally."""
    points = []
    for i, point in enumerate(next(iter(report.values()))["curve"]):
        right = [s["curve"][i]["answered_correct"] for s in report.values() if s["questions"] > s["unanswerable"]]
        refused = [s["curve"][i]["refused"] for s in report.values() if s["unanswerable"]]
        points.append({"threshold": point["threshold"], "balanced": (np.mean(right) + np.mean(refused)) / 2})
    return points


ENGINE_THRESHOLDS = [round(0.01 * i, 2) for i in range(6, 19)]


WRONG_COST = 2  # a wrong or false answer costs the user twice what a needless abstention does


def engine_threshold(points: list[dict]) -> float:
    """The shipped threshold, from the whole engine's dev curve (`questions.threshold_curve`): the one with the most
    right answers less WRONG_COST × (wrong + false), ties going to the higher (safer) threshold. The engine's
    value, name and table checks refuse much of what the scorer alone would answer, so the scorer-only curves
    (printed, balanced over the public sets) set the threshold too high for the engine."""
    def utility(point: dict) -> float:
        return point["answered_correct"] - WRONG_COST * (point["wrong"] + point["false"])

    return max(points, key=lambda point: (utility(point), point["threshold"]))["threshold"]


def cached_records(path: Path, build) -> list[dict]:
    if path.exists():
        return json.loads(path.read_text("utf-8"))
    records = build()
    path.write_text(json.dumps(records), "utf-8")
    return records


def question_number(record: dict) -> int:
    """The question's place in its half's file order (collect() names records "<label>-<n>", n from 1)."""
    return int(record["qid"].rsplit("-", 1)[1])


def counts(records: list[dict]) -> tuple[int, int]:
    return len(records), sum(not r["answerable"] for r in records)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--squad", type=int, default=1200, help="SQuAD 2.0 questions (file order)")
    parser.add_argument("--cmrc", type=int, default=800, help="CMRC 2018 questions (file order, pooled paragraphs)")
    parser.add_argument("--held-out", type=int, default=150,
                        help="the first N questions of each half, which the evaluation asks (eval … --limit N), are not trained on")
    parser.add_argument("--prefilter", type=int, default=UNTRAINED.prefilter, help="units scored by meaning per question")
    parser.add_argument("--truncate", type=lambda text: tuple(int(n) for n in text.split(",") if n), default=(1, 2, 4, 8),
                        help="also train on each question's first n units, for these n (comma-separated)")
    parser.add_argument("--product", type=Path, nargs="*", default=[],
                        help="folders of questions asked of real documents (questions/*.jsonl beside docs/), trained on")
    parser.add_argument("--product-weight", type=int, default=1,
                        help="how many times each product question's units count in the fit")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args()
    cache = Path(os.environ.get("RAG_CACHE_DIR", str(ROOT / ".cache"))).parent / "answer-training"
    cache.mkdir(parents=True, exist_ok=True)
    vectors = cache / "unit-vectors.npz"
    settings = Settings()
    tag = f"p{args.prefilter}-v8"  # v2: quantity nouns; v3: abbreviations, word families; v8: negated questions
    squad_articles = lambda: data.load_squad(data.SQUAD2)  # noqa: E731
    cmrc_articles = lambda: pooled(data.load_squad(data.CMRC)[: args.cmrc])  # noqa: E731
    held = args.held_out
    sets = {
        "squad2": cached_records(cache / f"squad-{args.squad}+{held}-{tag}.json", lambda: collect(
            squad_articles(), held + args.squad, 0, settings, "squad", vectors, args.prefilter)),
        "cmrc": cached_records(cache / f"cmrc-{args.cmrc}+{held}-{tag}.json", lambda: collect(
            cmrc_articles(), held + args.cmrc, 100, settings, "cmrc", vectors, args.prefilter)),
        "squad2-removal": cached_records(cache / f"squad-removal-{args.squad}+{held}-{tag}.json", lambda: collect(
            squad_articles(), held + args.squad, 0, settings, "squad-removal", vectors, args.prefilter, removal=True)),
        "cmrc-removal": cached_records(cache / f"cmrc-removal-{args.cmrc}+{held}-{tag}.json", lambda: collect(
            cmrc_articles(), held + args.cmrc, 100, settings, "cmrc-removal", vectors, args.prefilter, removal=True)),
    }
    # The first `held` questions of each half are what `eval squad2|cmrc --limit` asks: never trained on.
    sets = {name: [r for r in records if question_number(r) > held] for name, records in sets.items()}
    if args.product:
        sets["product"] = collect_product(args.product, settings, vectors, args.prefilter, cache, tag)
    dev = cached_records(cache / f"dev-{tag}.json", lambda: collect_dev(settings, vectors, args.prefilter))
    parts = [(name, arrays(records, args.truncate), counts(records)) for name, records in sets.items()]
    weighted = [a for name, a, _ in parts for _ in range(args.product_weight if name == "product" else 1)]
    X, y, qid, groups, answerable = (np.concatenate([a[i] for a in weighted]) for i in range(5))
    # Cross-validated probabilities: each group's units scored by a model fitted without it.
    held_out = np.zeros(len(y))
    unique = np.random.default_rng(0).permutation(np.unique(groups))  # every fold holds some of each set
    for fold in np.array_split(unique, min(5, len(unique))):
        test = np.isin(groups, fold)
        held_out[test] = fit(X[~test], y[~test]).probability(X[test])
    report = {}
    as_asked = np.char.find(qid.astype(str), "/") < 0  # figures count each question once, as it was asked
    for name, part, (n, u) in parts:
        mask = np.isin(qid, part[2]) & as_asked
        points = curve(question_outcomes(held_out[mask], y[mask], qid[mask], answerable[mask]), n, u)
        report[name] = {"questions": n, "unanswerable": u, "curve": points}
    model = fit(X, y)
    # The dev set only validates: it is scored by the final model, never fitted on. As validation data it
    # takes part in choosing the threshold (a hyperparameter): SQuAD's unanswerables are written to look
    # answerable and the removal sets only imitate what people ask; dev's natural questions are that.
    dev_x, dev_y, dev_q, _, dev_a = arrays(dev)
    n, u = counts(dev)
    report["dev (validation only)"] = {"questions": n, "unanswerable": u, "curve": curve(
        question_outcomes(model.probability(dev_x), dev_y, dev_q, dev_a), n, u)}
    best = max(balanced_curve(report), key=lambda point: point["balanced"])
    model = AnswerModel(model.weights, model.mean, model.scale, best["threshold"], args.prefilter)
    engine_curve = questions.threshold_curve(questions.QUESTIONS, ENGINE_THRESHOLDS, model=model)
    chosen = engine_threshold(engine_curve)
    model = AnswerModel(model.weights, model.mean, model.scale, chosen, args.prefilter)
    payload = model.to_json()
    payload["training"] = {"command": "uv run python -m training.answer_model"
                                      f" --squad {args.squad} --cmrc {args.cmrc} --held-out {held} --prefilter {args.prefilter}"
                                      f" --truncate {','.join(map(str, args.truncate))}"
                                      + (f" --product {' '.join(p.name for p in args.product)}"
                                         f" --product-weight {args.product_weight}" if args.product else ""),
                           "units": int(len(y)), "positives": int(y.sum()),
                           "threshold (scorer-only balanced optimum → engine dev curve)": [best["threshold"], chosen],
                           "engine dev curve": engine_curve,
                           "at_threshold (public sets cross-validated; dev scored by the final model)": {
                               name: next(p for p in s["curve"] if p["threshold"] == chosen)
                               for name, s in report.items()}}
    args.out.write_text(json.dumps(payload, indent=1), "utf-8")
    print("weights:", dict(zip(FEATURES, model.weights.round(3).tolist())))
    for name, s in report.items():
        print(f"{name}: {s['questions']} questions ({s['unanswerable']} unanswerable)")
        for p in s["curve"][::2]:
            print(f"  t={p['threshold']:.3f} acc={p['accuracy']:.3f} answered_correct={p['answered_correct']:.3f}"
                  f" refused={p['refused']:.3f} P={p['precision']:.3f}")
    for p in engine_curve:
        print(f"  engine t={p['threshold']:.2f} answered correctly {p['answered_correct']}/{p['answerable']} "
              f"refused {p['refused']}/{p['unanswerable']} wrong + false {p['wrong']} + {p['false']}")
    print(f"threshold {chosen} (engine dev curve; scorer-only balanced optimum {best['threshold']}); weights → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
