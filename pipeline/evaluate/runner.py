"""Runs the suites for `python -m pipeline eval`, prints their tables and writes JSON/plots."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path

from pipeline.core.contracts import Settings
from pipeline.evaluate import data
from pipeline.evaluate.metrics import rounded

NA = "—"


def machine() -> str:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores{', ' + cpu if cpu else ''}, Python {platform.python_version()}"


def fmt(value) -> str:
    if value is None:
        return "not measured"
    if isinstance(value, bool):
        return "pass" if value else "FAIL"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def table(title: str, rows: list[tuple[str, object, object]], columns=("ours", "papertrail")) -> str:
    """A plain-text table: metric | ours | papertrail."""
    header = ("metric", *columns)
    cells = [tuple([name, *(fmt(v) for v in values)]) for name, *values in rows]
    widths = [max(len(str(row[i])) for row in [header, *cells]) for i in range(len(header))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(header, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in cells]
    return "\n".join(lines)


def _get(figures: dict | None, *keys):
    for key in keys:
        if not isinstance(figures, dict) or key not in figures:
            return None
        figures = figures[key]
    return figures


# --------------------------------------------------------------------------- suites


def suite_scenarios(args, configs) -> dict:
    from pipeline.core.settings import EngineConfig
    from pipeline.engine.config import build_engine
    from pipeline.evaluate.scenarios import DEFAULT_TRACES, run_all, traces_json

    results = run_all(build_engine(EngineConfig.from_env(judge=args.support_judge)))
    figures = {"scenarios": {s.name: not p for s, _, p in results},
               "passed": sum(1 for _, _, p in results if not p), "total": len(results)}
    traces_path = args.traces or DEFAULT_TRACES
    traces_path.parent.mkdir(parents=True, exist_ok=True)
    traces_path.write_text(json.dumps(traces_json(results), ensure_ascii=False, indent=1), "utf-8")
    print(f"traces: {traces_path}", file=sys.stderr)
    rows = [(s.name, "pass" if not p else "FAIL: " + "; ".join(p), None) for s, _, p in results]
    rows.append(("passed", f"{figures['passed']}/{figures['total']}", "not applicable"))
    judge = "" if args.support_judge == "containment" else f"; support judge: {args.support_judge}"
    text = table(f"scenarios (the frozen seed scenarios; papertrail has no such checks{judge})", rows)
    return {"ours": {"scenarios": figures}, "papertrail": {}, "table": text,
            "ok": figures["passed"] == figures["total"]}


def suite_scifact(args, configs) -> dict:
    from pipeline.evaluate import scifact

    figures = scifact.evaluate(args.corpus, args.claims, args.qrels, limit=args.limit)
    ours = {"retrieval": figures["retrieval"], "retrieval_variants": figures["retrieval_variants"],
            "scifact_run": {k: v for k, v in figures.items() if k not in ("retrieval", "retrieval_variants")}}
    paper = {"retrieval": {"dense_top5": figures["retrieval_variants"]["papertrail_dense_top5"]}}
    r = figures["retrieval"]
    rows = []
    for method in ("bm25", "dense", "hybrid"):
        for metric in ("ndcg@10", "recall@100"):
            rows.append((f"{method} {metric}", r[method][metric], None))
    for metric in ("ndcg@10", "recall@100"):
        rows.append((f"hybrid, RRF of document rankings {metric}", figures["retrieval_variants"]["hybrid_docfuse"][metric], None))
    for metric in ("ndcg@10", "recall@100"):
        rows.append((f"dense top-5 chunks only {metric}", None, paper["retrieval"]["dense_top5"][metric]))
    text = table(f"scifact retrieval ({figures['queries']} training claims with qrels, {figures['abstracts']} abstracts, "
                 f"{figures['chunks']} chunks)", rows)
    return {"ours": ours, "papertrail": paper, "table": text, "ok": True}


def _threshold(value: float) -> str:
    """Two decimals, or three when the shipped threshold needs them (0.305 is not the grid's 0.30)."""
    return f"{value:.2f}" if round(value, 2) == value else f"{value:.3f}"


def suite_verifier(args, configs) -> dict:
    from pipeline.evaluate import verifier_eval

    figures = verifier_eval.evaluate(args.claims, args.corpus, limit=args.limit)
    coverage = figures.pop("_coverage")
    ours = figures["verifier"]
    base = ours["baseline_word_overlap"]
    learned = ours["learned_judge"]
    keys = ("precision", "recall", "false_verification_rate", "false_verification_rate_contradict",
            "false_verification_rate_no_evidence", "verified")
    rows = [(k, ours[k], learned[k], base[k]) for k in keys]
    rows.append(("highlighted sentence is a gold rationale", None, learned["highlight_is_rationale"], None))
    pairs = ours["pairs"]
    text = table(f"verifier on held-out SciFact (claim, cited abstract) pairs (claims the learned judge was not trained on): "
                 f"{pairs['total']} = {pairs['support']} SUPPORT, {pairs['contradict']} CONTRADICT, "
                 f"{pairs['no_evidence']} no evidence", rows,
                 columns=("ours (containment)", f"learned judge (threshold {_threshold(learned['threshold'])})",
                          "papertrail (word overlap)"))
    curve = table("learned judge: threshold -> recall, false-verification rate (all / CONTRADICT / no evidence)",
                  [(f"threshold {_threshold(row['threshold'])}", row["recall"], row["false_verification_rate"],
                    row["contradict"], row["no_evidence"]) for row in learned["curve"]],
                  columns=("recall", "fvr", "fvr contradict", "fvr no evidence"))
    return {"ours": {"verifier": ours}, "papertrail": {"verifier": base}, "table": text + "\n\n" + curve, "ok": True,
            "_coverage": coverage}


def _qa_rows(ours: dict | None, paper: dict | None, keys) -> list:
    return [(k.split(".", 1)[1], _get(ours, *k.split(".")), _get(paper, *k.split("."))) for k in keys]


def suite_squad2(args, configs) -> dict:
    from pipeline.evaluate import squad

    path = args.data or data.SQUAD2
    out, extra = {"ours": {}, "papertrail": {}}, {}
    for config in configs:
        figures = squad.evaluate_squad2(path, config, args.limit)
        rows = figures.pop("_rows")
        figures.pop("_latencies")
        if config == "ours":
            extra["_rows"] = rows
            figures["squad2"]["threshold_grid_best"] = _best_grid(squad, rows)
        out[config] = figures
    keys = ("squad2.accuracy", "squad2.answered_correct", "squad2.answered_wrong", "squad2.abstain_precision",
            "squad2.abstain_recall", "squad2.paragraph_hit@1", "squad2.baseline_always_abstain.accuracy",
            "squad2.baseline_never_abstain.accuracy", "squad2.baseline_never_abstain.accuracy_upper_bound")
    n = _get(out["ours"], "squad2", "questions") or _get(out["papertrail"], "squad2", "questions")
    rows = _qa_rows(out["ours"], out["papertrail"], keys)
    grid = _get(out["ours"], "squad2", "threshold_grid_best") or {}
    for name, point in grid.items():
        if point:
            rows.append((f"thresholds {name} (lexical/dense/support)",
                         f"{point['min_lexical']}/{point['min_dense']}/{point['min_support']}: acc {point['accuracy']:.3f}, "
                         f"P {point['precision']:.3f}, R {point['recall']:.3f}", None))
    text = table(f"squad2 ({n} questions; correct = verified and the cited sentence holds a gold answer, "
                 "or an abstention on an unanswerable question)", rows)
    return {**out, "table": text, "ok": True, **extra}


def _best_grid(squad, rows) -> dict:
    from pipeline.generate.extractive.composer import DEFAULT_MIN_SUPPORT
    grid = squad.grid_table(rows, sorted({*squad.GRID_SUPPORTS, DEFAULT_MIN_SUPPORT}))  # the shipped one too
    best = max(grid, key=lambda g: (g["accuracy"], g["recall"]))
    best_half = max((g for g in grid if g["recall"] >= 0.5), key=lambda g: g["accuracy"], default=None)
    defaults = Settings()
    current = next((g for g in grid if g["min_lexical"] == defaults.min_lexical and g["min_dense"] == defaults.min_dense
                    and abs(g["min_support"] - DEFAULT_MIN_SUPPORT) < 1e-9), None)
    return rounded({"best_accuracy": best, "best_with_recall_at_least_0.5": best_half, "defaults": current})


def suite_cmrc(args, configs) -> dict:
    from pipeline.evaluate import squad

    path = args.data or data.CMRC
    out = {"ours": {}, "papertrail": {}}
    for config in configs:
        out[config] = squad.evaluate_cmrc(path, config, args.limit)
    keys = ("cmrc.answered_correct", "cmrc.location_hit", "cmrc.answered", "cmrc.paragraph_hit@1", "cmrc.paragraph_mrr")
    n = _get(out["ours"], "cmrc", "questions") or _get(out["papertrail"], "cmrc", "questions")
    text = table(f"cmrc ({n} questions, all answerable; the 424 paragraphs form one collection)", _qa_rows(out["ours"], out["papertrail"], keys))
    tok = _get(out["ours"], "cmrc", "tokenizers")
    if tok:
        rows = [(k, tok["jieba"][k], tok["bigram"][k]) for k in ("paragraph_hit@1", "paragraph_mrr", "answered_correct", "location_hit")]
        text += "\n\n" + table("cmrc: CJK tokenizer choice (ours)", rows, columns=("jieba", "bigram"))
    return {**out, "table": text, "ok": True}


def suite_questions(args, configs) -> dict:
    from pipeline.evaluate import questions

    path = args.data or questions.QUESTIONS
    figures = questions.evaluate(path, args.limit)
    rows = figures.pop("rows")
    text = table(f"questions ({figures['items']} natural questions with gold answers, {path.name}; default settings; "
                 "a gold string in the answer or a verified quote of at most 600 characters)",
                 questions.rows_for_table(figures), columns=("ours", "papertrail"))
    for row in rows:
        if not row["passed"]:
            print(f"  miss {row['id']} ({row['kind']}): {'answered' if row['answered'] else row['reason']}"
                  f"{': ' + ' '.join((row['answer'] or '').split())[:140] if row['answered'] else ''}", file=sys.stderr)
    if getattr(args, "thresholds", None):
        figures["threshold_curve"] = questions.threshold_curve(path, args.thresholds, args.limit)
        text += "\n" + table("questions: the answer threshold swept (the whole engine at each; default settings otherwise)",
                              [(f"threshold {p['threshold']}", f"answered correctly {p['answered_correct']}/{p['answerable']}, "
                                f"refused {p['refused']}/{p['unanswerable']}, wrong + false {p['wrong']} + {p['false']}", None)
                               for p in figures["threshold_curve"]], columns=("ours", "papertrail"))
    return {"ours": {"questions": figures}, "papertrail": {}, "table": text, "ok": True}


def command_line(args) -> str:
    """The command as given (rebuilt from the parsed arguments, so an in-process call says it too)."""
    parts = ["python -m pipeline eval", args.suite]
    if args.limit:
        parts.append(f"--limit {args.limit}")
    if args.config:
        parts.append(f"--config {args.config}")
    for flag, default in (("corpus", data.SCIFACT_CORPUS), ("claims", data.SCIFACT_CLAIMS), ("qrels", data.SCIFACT_QRELS),
                          ("data", None)):
        value = getattr(args, flag)
        if value is not None and value != default:
            parts.append(f"--{flag} {value}")
    if args.support_judge != "containment":
        parts.append(f"--support-judge {args.support_judge}")
    if getattr(args, "thresholds", None):
        parts.append("--thresholds " + ",".join(str(t) for t in args.thresholds))
    for flag in ("json", "plots"):
        if getattr(args, flag):
            parts.append(f"--{flag} {getattr(args, flag)}")
    return " ".join(parts)


SUITE_FUNCTIONS = {"scenarios": suite_scenarios, "scifact": suite_scifact, "verifier": suite_verifier,
                   "squad2": suite_squad2, "cmrc": suite_cmrc, "questions": suite_questions}


def run(args) -> int:
    suites = list(SUITE_FUNCTIONS) if args.suite == "all" else [args.suite]
    config = args.config or ("both" if args.suite == "all" else "ours")
    configs = ("ours", "papertrail") if config == "both" else (config,)
    started = time.perf_counter()
    result = {
        "meta": {
            "command": command_line(args),
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": machine(), "limit": args.limit, "configs": list(configs),
            "settings": Settings().model_dump(),
            "data": "SciFact (ODC-By 1.0 / CC BY 4.0 / CC BY-SA 4.0), SQuAD 2.0 dev half (CC BY-SA 4.0), CMRC 2018 dev (CC BY-SA 4.0)",
        },
        "tables": {},
        "papertrail": {},
    }
    ok, side = True, {}
    for suite in suites:
        outcome = SUITE_FUNCTIONS[suite](args, configs)
        print(outcome["table"], end="\n\n", flush=True)
        result["tables"][suite] = outcome["table"]
        result.update(outcome["ours"])
        result["papertrail"].update(outcome["papertrail"])
        side.update({k: v for k, v in outcome.items() if k.startswith("_")})
        ok = ok and outcome["ok"]
    result["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        if args.json.exists() and args.suite != "all":
            # One suite at a time updates its part of an existing file (so tables accumulate).
            try:
                previous = json.loads(args.json.read_text("utf-8"))
                previous.setdefault("tables", {}).update(result["tables"])
                previous.setdefault("papertrail", {}).update(result["papertrail"])
                for key, value in result.items():
                    if key not in ("tables", "papertrail", "meta"):
                        previous[key] = value
                previous.setdefault("meta_by_suite", {})[args.suite] = result["meta"]
                result = previous
            except (json.JSONDecodeError, OSError):
                pass
        else:
            result["meta_by_suite"] = {s: result["meta"] for s in suites}
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1, default=str), "utf-8")
    if args.plots:
        from pipeline.evaluate.plots import draw

        for path in draw(result, side, args.plots):
            print(f"plot: {path}", file=sys.stderr)
    if args.results and args.json:
        from pipeline.evaluate.report import write_results

        write_results(args.results, eval_path=args.json)
    return 0 if ok else 1
