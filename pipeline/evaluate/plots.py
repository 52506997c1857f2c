"""PNG plots for `eval --plots DIR` (matplotlib, headless Agg backend)."""

from __future__ import annotations

from pathlib import Path


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw(result: dict, side: dict, folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    rows = side.get("_rows")
    if rows:
        written.append(_distributions(rows, folder / "squad2_score_distributions.png"))
        written.append(_threshold_curve(result, rows, folder / "squad2_threshold_tradeoff.png"))
    if result.get("retrieval"):
        written.append(_ndcg(result, folder / "scifact_ndcg_by_method.png"))
    if side.get("_coverage"):
        written.append(_verifier(side["_coverage"], folder / "verifier_support_coverage.png"))
    if result.get("cmrc", {}).get("tokenizers"):
        written.append(_tokenizers(result["cmrc"]["tokenizers"], folder / "cmrc_tokenizers.png"))
    return written


def _distributions(rows, path: Path) -> Path:
    from pipeline.core.contracts import Settings
    from pipeline.generate.extractive.composer import DEFAULT_MIN_SUPPORT
    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    features = [("top_coverage", "top candidate lexical coverage", Settings().min_lexical),
                ("top_dense", "top candidate dense cosine", Settings().min_dense),
                ("composer_score", "composer best-sentence score", DEFAULT_MIN_SUPPORT)]
    for ax, (key, label, threshold) in zip(axes, features):
        for impossible, colour, name in ((False, "tab:blue", "answerable"), (True, "tab:red", "unanswerable")):
            values = [r[key] for r in rows if r["impossible"] == impossible and r.get(key) is not None]
            ax.hist(values, bins=30, alpha=0.55, color=colour, label=f"{name} ({len(values)})", density=True)
        ax.axvline(threshold, color="black", linestyle="--", linewidth=1, label=f"default {threshold}")
        ax.set_xlabel(label)
        ax.legend(fontsize=7)
    fig.suptitle("SQuAD 2.0 (public half): answerable vs unanswerable questions")
    return _save(plt, fig, path)


def _threshold_curve(result, rows, path: Path) -> Path:
    from pipeline.evaluate import squad

    plt = _plt()
    curve = squad.threshold_curve(rows, [round(0.05 * i, 2) for i in range(0, 23)])
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot([c["recall"] for c in curve], [c["precision"] for c in curve], marker="o", markersize=3)
    for c in curve:
        if abs(c["min_support"] * 20 - round(c["min_support"] * 20)) < 1e-9 and round(c["min_support"] * 20) % 4 == 0:
            left.annotate(f"{c['min_support']:.1f}", (c["recall"], c["precision"]), fontsize=7)
    left.set_xlabel("recall (answerable questions answered correctly)")
    left.set_ylabel("precision (answers that are correct)")
    left.set_title("composer threshold min_support (retrieval defaults)")
    right.plot([c["min_support"] for c in curve], [c["accuracy"] for c in curve], label="ours, accuracy")
    base = result.get("squad2", {})
    if base.get("baseline_always_abstain"):
        right.axhline(base["baseline_always_abstain"]["accuracy"], color="grey", linestyle="--", label="always abstain")
    if base.get("baseline_never_abstain"):
        right.axhline(base["baseline_never_abstain"]["accuracy"], color="orange", linestyle=":", label="never abstain")
    from pipeline.generate.extractive.composer import DEFAULT_MIN_SUPPORT
    right.axvline(DEFAULT_MIN_SUPPORT, color="black", linewidth=1, label=f"default {DEFAULT_MIN_SUPPORT}")
    right.set_xlabel("min_support")
    right.set_ylabel("accuracy")
    right.legend(fontsize=8)
    return _save(plt, fig, path)


def _ndcg(result, path: Path) -> Path:
    plt = _plt()
    labels, values = [], []
    for method in ("bm25", "dense", "hybrid"):
        labels.append(method)
        values.append(result["retrieval"][method]["ndcg@10"])
    variants = result.get("retrieval_variants", {})
    if "hybrid_docfuse" in variants:
        labels.append("hybrid\n(doc RRF)")
        values.append(variants["hybrid_docfuse"]["ndcg@10"])
    if "papertrail_dense_top5" in variants:
        labels.append("papertrail\ndense top-5")
        values.append(variants["papertrail_dense_top5"]["ndcg@10"])
    fig, ax = plt.subplots(figsize=(7, 3.6))
    bars = ax.bar(labels, values, color=["tab:blue", "tab:green", "tab:purple", "tab:pink", "tab:grey"][: len(values)])
    for bar, value in zip(bars, values):
        ax.text(bar.get_x() + bar.get_width() / 2, value + 0.005, f"{value:.3f}", ha="center", fontsize=8)
    ax.axhline(0.665, color="black", linestyle=":", linewidth=1, label="BEIR BM25 reference 0.665 (test split)")
    ax.set_ylabel("nDCG@10")
    ax.set_ylim(0, 1)
    ax.set_title("SciFact training claims: nDCG@10 by method")
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def _save(plt, fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _verifier(coverage, path: Path) -> Path:
    from pipeline.verify.judges.containment import DEFAULT_COVERAGE as SUPPORT_COVERAGE

    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for label, colour in (("SUPPORT", "tab:green"), ("CONTRADICT", "tab:red"), ("NOEVIDENCE", "tab:grey")):
        values = [c for c, kind in coverage if kind == label]
        ax.hist(values, bins=20, range=(0, 1), alpha=0.5, color=colour, label=f"{label} ({len(values)})", density=True)
    ax.axvline(SUPPORT_COVERAGE, color="black", linestyle="--", label=f"SUPPORT_COVERAGE {SUPPORT_COVERAGE}")
    ax.set_xlabel("share of the claim's content words found in the cited abstract")
    ax.set_title("SciFact claims vs cited abstracts: claim_supported coverage")
    ax.legend(fontsize=7)
    return _save(plt, fig, path)


def _tokenizers(tokenizers, path: Path) -> Path:
    plt = _plt()
    keys = ["paragraph_hit@1", "paragraph_mrr", "answered_correct", "location_hit"]
    fig, ax = plt.subplots(figsize=(7, 3.4))
    width = 0.38
    for offset, name in ((-width / 2, "jieba"), (width / 2, "bigram")):
        ax.bar([i + offset for i in range(len(keys))], [tokenizers[name][k] for k in keys], width, label=name)
    ax.set_xticks(range(len(keys)), keys)
    ax.set_ylim(0, 1)
    ax.set_title("CMRC 2018: CJK tokenizer")
    ax.legend()
    return _save(plt, fig, path)
