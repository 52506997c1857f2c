"""`python -m pipeline bench load`: many sessions at once against the running web app, as one table.

    python -m pipeline bench load [--sessions 16] [--questions 10] [--no-upload] [--pdf-pages N] [--scan-pages N]
                                  [--json reports/load.json]
    python -m pipeline bench load --short-sessions 200      memory over many short sessions (benchmarks/bench_attack.py)
    python -m pipeline bench load --attack [--questions 10]  what a bystander sees while one client attacks (issue 50's
                                                             cases, benchmarks/bench_fairness.py), then other users'
                                                             latency during a bomb upload and a login storm

The app runs in its own process (uvicorn, 127.0.0.1, a free port) so its memory is measured alone:
peak resident memory (VmHWM) and resident memory at the end, from /proc. Each session is one
gradio_client.Client in its own thread, at an address of its own (it says so with X-Forwarded-For, which the app
takes from 127.0.0.1 as from a proxy: eight people are eight clients, each with its share, `ui.clients`): it uploads
one small generated document (its own session
collection; skip with --no-upload; with --pdf-pages N a PDF of N real three-column pages instead:
the Federal Register pages of the public eval set, cycled, with the session's number stamped on
page one, so each upload is a different file), then asks `--questions` questions (the seed scenarios'
questions, in turn). With --scan-pages N one more client uploads a scanned PDF of N pages as the sessions
start (image-only pages of prose, benchmarks/scanned.py), so its OCR runs while they ask. Reported: latency p50/p95/max of /ask, errors (with the first message), wall
time and throughput, and the cold start: launch to the first GET /healthz answer, with an empty
vector cache and library (fresh DATA_DIR and RAG_CACHE_DIR), and for a scan the pages OCR read. Nothing
is asserted on time: this is a measurement. The deploy's settings come from the environment
(`RAG_HOST_MEMORY_MB=512 RAG_WORKERS=1 python -m pipeline bench load ...`, as render.yaml sets them).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.bench_attack import tree_memory, tree_memory_mb  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _proc_memory_mb(pid: int) -> dict[str, float]:
    """VmHWM (peak) and VmRSS (now) of a process, in MiB (Linux /proc)."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            figures[key] = int(value.split()[0]) / 1024
    return figures


def start_server(env: dict) -> tuple[subprocess.Popen, str]:
    """The app in its own process; returns once GET /healthz answers (the sample corpus is indexed)."""
    import urllib.request

    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app:app", "--host", "127.0.0.1", "--port", str(port),
         "--log-level", "warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.time() + 600
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited: {process.stderr.read()[-500:]}")
        try:
            with urllib.request.urlopen(f"{url}healthz", timeout=2) as answer:
                if answer.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the app did not start within 600 s")


@contextmanager
def serving(extra_env: dict | None = None):
    """The app in its own process on an empty cache and library (a cold start: the samples are embedded anew);
    yields (process, url, seconds from launch to the first /healthz answer), stops it afterwards."""
    empty = Path(tempfile.mkdtemp(prefix="bench-load-cold-"))
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "OMP_WAIT_POLICY": "PASSIVE",
           "DATA_DIR": str(empty / "data"), "RAG_CACHE_DIR": str(empty / "chroma"), **(extra_env or {})}
    launched = time.perf_counter()
    process, url = start_server(env)
    try:
        yield process, url, time.perf_counter() - launched
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(empty, ignore_errors=True)


def publish(figures: dict, argv: list[str] | None, out: Path | None) -> None:
    """Print the table; with `out`, write every figure, the table, the command, date and machine as JSON."""
    from pipeline.evaluate.runner import machine

    figures["meta"] = {"command": "python -m pipeline bench load " + " ".join(argv or []),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine()}
    print(figures["table"])
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(figures, indent=1) + "\n", "utf-8")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else float("nan")


EVAL_PDF = ROOT.parent / "shared" / "eval" / "pdfs" / "federal-register-2020-17221.pdf"


def session_pdf(folder: Path, index: int, pages: int) -> Path:
    """`pages` real pages (the eval PDF's, cycled), stamped with the session number."""
    import pymupdf

    source, out = pymupdf.open(EVAL_PDF), pymupdf.open()
    for n in range(pages):
        out.insert_pdf(source, from_page=n % source.page_count, to_page=n % source.page_count)
    out[0].insert_text((40, 30), f"Load-test session {index}", fontsize=9)
    path = folder / f"session-{index}.pdf"
    out.save(path)
    return path


def person(index: int) -> dict[str, str]:
    """The headers of the load test's `index`-th person: an address of its own (10.0.x.y), told as a proxy would."""
    return {"X-Forwarded-For": f"10.0.{index // 250}.{index % 250 + 1}"}


def run_session(url: str, index: int, questions: list[str], count: int, upload: bool, results: dict, lock,
                pdf_pages: int = 0) -> None:
    from gradio_client import Client, handle_file

    latencies, errors, upload_s, refused = [], [], [], []
    try:
        client = Client(url, verbose=False, httpx_kwargs={"timeout": 600}, headers=person(index))
    except Exception as error:  # noqa: BLE001 - counted and reported, the run goes on
        with lock:
            results["errors"].append(f"connect: {type(error).__name__}: {str(error)[:200]}")
        return
    if upload:
        folder = Path(tempfile.mkdtemp(prefix="bench-load-"))
        try:
            if pdf_pages:
                path = session_pdf(folder, index, pdf_pages)
            else:
                path = folder / f"session-{index}.md"
                lines = [f"Session {index} note {n}: the shuttle to building {n} leaves every {10 + n % 20} minutes."
                         for n in range(40)]
                path.write_text(f"---\nid: load-session-{index}\ntopic: travel\n---\n" + "\n".join(lines) + "\n")
            started = time.perf_counter()
            report = client.predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")
            upload_s.append(time.perf_counter() - started)
            if isinstance(report, dict) and not report.get("added"):
                refused.append("; ".join(report.get("errors") or ["refused"])[:200])
        except Exception as error:  # noqa: BLE001 - a failed upload is an error; the session still asks
            errors.append(f"upload: {type(error).__name__}: {str(error)[:200]}")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    for n in range(count):
        question = questions[(index + n) % len(questions)]
        started = time.perf_counter()
        try:
            client.predict(question, "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid",
                           api_name="/ask")
            latencies.append(time.perf_counter() - started)
        except Exception as error:  # noqa: BLE001
            errors.append(f"ask: {type(error).__name__}: {str(error)[:200]}")
    with lock:
        results["latencies"].extend(latencies)
        results["errors"].extend(errors)
        results["upload_s"].extend(upload_s)
        results["refused"].extend(refused)


def run_scan(url: str, pages: int, results: dict) -> None:
    """One client uploads a scanned PDF of `pages` pages: the seconds it took, the pages OCR read, any refusal."""
    from gradio_client import Client, handle_file

    from benchmarks.scanned import scanned_pdf

    folder = Path(tempfile.mkdtemp(prefix="bench-load-scan-"))
    path = folder / f"scan-{pages}-pages.pdf"
    path.write_bytes(scanned_pdf(pages, stamp=f"scan {time.time_ns()}")[0])
    scan = results["scan"] = {"pages": pages, "bytes": path.stat().st_size}
    try:
        client = Client(url, verbose=False, httpx_kwargs={"timeout": 900}, headers=person(250))
        started = time.perf_counter()
        report = client.predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")
        scan["upload_s"] = time.perf_counter() - started
        added = report.get("added") or [{}]
        scan["ocr_pages"] = added[0].get("ocr_pages", [])
        scan["warnings"] = added[0].get("warnings", [])
        scan["refused"] = report.get("errors") or []
    except Exception as error:  # noqa: BLE001 - reported, the sessions go on
        scan["refused"] = [f"{type(error).__name__}: {str(error)[:200]}"]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def bench_load(sessions: int, per_session: int, upload: bool, pdf_pages: int = 0, scan_pages: int = 0) -> dict:
    from pipeline.evaluate.scenarios import SCENARIOS

    questions = list(dict.fromkeys(s.question for s in SCENARIOS))
    with serving() as (process, url, cold_start):
        idle = _proc_memory_mb(process.pid)
        results = {"latencies": [], "errors": [], "upload_s": [], "refused": []}
        lock = threading.Lock()
        peak_sampled = [idle["VmRSS"]]
        peaks = {"pss": 0.0, "server": 0.0, "workers": 0.0}
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.5):
                try:
                    now = tree_memory(process.pid)  # the server and its parsing workers
                except OSError:
                    return
                peak_sampled.append(now["rss"])
                for key in peaks:
                    peaks[key] = max(peaks[key], now[key])

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        threads = [threading.Thread(target=run_session, args=(url, i, questions, per_session, upload, results, lock, pdf_pages))
                   for i in range(sessions)]
        if scan_pages:
            threads.append(threading.Thread(target=run_scan, args=(url, scan_pages, results)))
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        done.set()
        end = _proc_memory_mb(process.pid)
        end["VmRSS"] = tree_memory_mb(process.pid)
    latencies = results["latencies"]
    return {
        "sessions": sessions, "questions_per_session": per_session, "upload_per_session": upload,
        "pdf_pages": pdf_pages,
        "asks_ok": len(latencies), "errors": len(results["errors"]), "first_error": (results["errors"] or [None])[0],
        "p50_s": statistics.median(latencies) if latencies else None, "p95_s": percentile(latencies, 0.95),
        "max_s": max(latencies) if latencies else None,
        "upload_p50_s": statistics.median(results["upload_s"]) if results["upload_s"] else None,
        "wall_s": wall, "asks_per_s": len(latencies) / wall if wall else None,
        "cold_start_s": cold_start, "bytecode_compiled": bytecode_compiled(), "rss_idle_mb": idle["VmRSS"], "rss_peak_mb": max(end["VmHWM"], max(peak_sampled)), "rss_end_mb": end["VmRSS"],
        "uploads_refused": len(results["refused"]), "first_refusal": (results["refused"] or [None])[0],
        "pss_peak_mb": peaks["pss"], "server_peak_mb": end["VmHWM"], "workers_peak_mb": peaks["workers"],
        "host_memory_mb": _host_memory_mb(), "workers_setting": _workers_setting(), "scan": results.get("scan"),
    }


def _host_memory_mb() -> int | None:
    from pipeline.core.limits import HOST_MEMORY_BYTES

    return HOST_MEMORY_BYTES // 2**20 or None


def _workers_setting() -> int:
    from pipeline.core.limits import WORKERS

    return WORKERS


def bytecode_compiled() -> bool:
    """Whether the installed packages carry compiled bytecode (`UV_COMPILE_BYTECODE=1 uv sync`, as the Render
    build does): without it every start compiles Gradio from source, about 2 s of the cold start here."""
    import importlib.util

    spec = importlib.util.find_spec("gradio")
    folder = Path(spec.origin).parent / "__pycache__" if spec and spec.origin else None
    return bool(folder and any(folder.glob("*.pyc")))


def render(figures: dict) -> str:
    def f(value, digits=2):
        return "—" if value is None else f"{value:.{digits}f}"

    rows = [
        ("sessions × questions", f"{figures['sessions']} × {figures['questions_per_session']}"
         + ((f" (+1 upload each: a {figures['pdf_pages']}-page PDF)" if figures.get("pdf_pages") else
             " (+1 upload each)") if figures["upload_per_session"] else "")),
        ("asks answered / errors", f"{figures['asks_ok']} / {figures['errors']}"),
        ("ask latency p50 / p95 / max (s)", f"{f(figures['p50_s'])} / {f(figures['p95_s'])} / {f(figures['max_s'])}"),
        ("upload p50 (s) / uploads refused (memory budget)",
         f"{f(figures['upload_p50_s'])} / {figures.get('uploads_refused', '—')}"),
        ("cold start, empty cache (s)", f(figures.get("cold_start_s"), 1)
         + {True: " (packages' bytecode compiled)", False: " (packages' bytecode not compiled)"}.get(
             figures.get("bytecode_compiled"), "")),
        ("wall (s) / asks per s", f"{f(figures['wall_s'], 1)} / {f(figures['asks_per_s'])}"),
        ("server (+ workers) RSS idle / peak / end (MiB)",
         f"{f(figures['rss_idle_mb'], 0)} / {f(figures['rss_peak_mb'], 0)} / {f(figures['rss_end_mb'], 0)}"),
    ]
    if figures.get("pss_peak_mb") is not None:
        rows.append(("peak: server alone (VmHWM) / workers together / server + workers PSS (MiB)",
                     f"{f(figures['server_peak_mb'], 0)} / {f(figures['workers_peak_mb'], 0)} / "
                     f"{f(figures['pss_peak_mb'], 0)}"))
    rows += _scan_rows(figures.get("scan"), f)
    rows.append(("settings: parse workers / host memory budget",
                 f"{figures.get('workers_setting', '—')} / "
                 + (f"{figures['host_memory_mb']} MiB" if figures.get("host_memory_mb") else "none")))
    width = max(len(name) for name, _ in rows)
    lines = [f"{'load test':<{width}}  value", f"{'-' * width}  -----"]
    lines += [f"{name:<{width}}  {value}" for name, value in rows]
    if figures["first_error"]:
        lines.append(f"first error: {figures['first_error']}")
    if figures.get("first_refusal"):
        lines.append(f"first refusal: {figures['first_refusal']}")
    return "\n".join(lines)


def _scan_rows(scan: dict | None, f) -> list[tuple[str, str]]:
    if not scan:
        return []
    read = scan.get("ocr_pages") or []
    rows = [(f"scanned upload ({scan['pages']} pages, {scan['bytes'] / 2**20:.1f} MB): s / OCR pages read",
             f"{f(scan.get('upload_s'), 1)} / {len(read)} of {scan['pages']}"
             + (f" (page {read[0]})" if len(read) == 1 else f" (pages {read[0]}-{read[-1]})" if read else ""))]
    for said in [*scan.get("refused", []), *[w for w in scan.get("warnings", []) if "not read" in w]]:
        rows.append(("  scan: " + ("refused" if said in scan.get("refused", []) else "warning"), said[:160]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline bench load", description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=16)
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--no-upload", action="store_true")
    parser.add_argument("--pdf-pages", type=int, default=0, help="each session uploads a PDF of this many pages")
    parser.add_argument("--scan-pages", type=int, default=0, metavar="N",
                        help="one more client uploads a scanned (image-only) PDF of N pages while the sessions ask")
    parser.add_argument("--json", type=Path, metavar="OUT")
    parser.add_argument("--short-sessions", type=int, default=0, metavar="N",
                        help="N short sessions (upload, 3 asks, close); memory sampled as they go")
    parser.add_argument("--attack", action="store_true",
                        help="8 signed-in users ask while an attacker uploads a bomb and storms /login")
    args = parser.parse_args(argv)
    if args.short_sessions or args.attack:
        return _attack_main(args, argv)
    if not 1 <= args.sessions <= 64 or not 1 <= args.questions <= 50 or not 0 <= args.pdf_pages <= 200 \
            or not 0 <= args.scan_pages <= 50:
        print("error: --sessions must be 1..64, --questions 1..50, --pdf-pages 0..200 and --scan-pages 0..50 (the load "
              "test is bounded)", file=sys.stderr)
        return 2
    figures = bench_load(args.sessions, args.questions, not args.no_upload, args.pdf_pages, args.scan_pages)
    figures["table"] = render(figures)
    publish(figures, argv, args.json)
    return 0


def _attack_main(args, argv) -> int:
    """The --short-sessions and --attack modes (benchmarks/bench_attack.py), as one table."""
    if not 0 <= args.short_sessions <= 1000:
        print("error: --short-sessions must be 0..1000", file=sys.stderr)
        return 2
    from benchmarks import bench_attack
    from pipeline.evaluate.scenarios import SCENARIOS

    questions = list(dict.fromkeys(s.question for s in SCENARIOS))
    figures: dict = {}
    rows: list[tuple[str, str]] = []
    if args.short_sessions:
        with serving() as (process, url, _):
            figures.update(bench_attack.short_sessions(url, process.pid, args.short_sessions, questions))
        rows += bench_attack.render_short(figures)
    if args.attack:
        from benchmarks import bench_fairness

        with serving() as (_, url, _):
            figures["cases"] = bench_fairness.run_cases(url, questions)
        figures.update(bench_attack.run_attack(questions, args.questions, serving))
        figures["cases"]["sign-in"] = figures.pop("sign_in_case")
        rows += bench_fairness.render_cases(figures["cases"]) + bench_attack.render_attack(figures)
    width = max(len(name) for name, _ in rows)
    figures["table"] = "\n".join([f"{'load test':<{width}}  value", f"{'-' * width}  -----"]
                                 + [f"{name:<{width}}  {value}" for name, value in rows])
    publish(figures, argv, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
