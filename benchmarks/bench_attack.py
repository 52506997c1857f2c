"""`python -m pipeline bench load --short-sessions N` and `--attack`: memory over many sessions, and other
users' latency while an attacker works (benchmarks/bench_load.py runs them; nothing here asserts time).

--short-sessions N: N sessions one after another, a few at a time, each one gradio_client that uploads a
small generated document, asks 3 questions and closes. The server's resident memory (the server process
plus its parsing workers) is sampled after every block of sessions: it should level off, not grow with N.

--attack: the app with sign-in. Eight users sign in and each asks `--questions` questions, once quietly
(the baseline) and once while an attacker (a) uploads a 3 MB PDF whose content stream inflates to 3 GiB
and (b) storms /login from eight threads with wrong passwords; /healthz is read throughout. Reported: the
eight users' ask latency p50/p95 and /healthz in both phases, what the bomb upload got back and how long it
took, how many storm attempts were verified (HTTP 400) or throttled (429), and the peak memory.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import threading
import time
import uuid
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def tree_memory_mb(pid: int) -> float:
    """Resident memory (MiB) of a process and its children (the server and its parsing workers)."""
    return tree_memory(pid)["rss"]


def tree_memory(pid: int) -> dict[str, float]:
    """The server's and its workers' memory in MiB: `rss` (their resident sets added up, shared library pages
    counted once per process), `pss` (each shared page split between the processes mapping it: what a host's
    memory cgroup is charged for them), `server` and `workers` (resident, apart)."""
    figures = {"rss": 0.0, "pss": 0.0, "server": 0.0, "workers": 0.0}
    from pipeline.ingest.budgets import child_processes

    for one in (pid, *child_processes(pid)):
        try:
            rss = _field_kb(Path(f"/proc/{one}/status").read_text(), "VmRSS:") / 1024
            pss = _field_kb(Path(f"/proc/{one}/smaps_rollup").read_text(), "Pss:") / 1024
        except OSError:
            continue
        figures["rss"] += rss
        figures["pss"] += pss
        figures["server" if one == pid else "workers"] += rss
    return figures


def _field_kb(text: str, name: str) -> float:
    return next((float(line.split()[1]) for line in text.splitlines() if line.startswith(name)), 0.0)


def percentile(values: list[float], q: float) -> float | None:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else None


# --------------------------------------------------------------------------- short sessions


def _short_session(url: str, index: int, questions: list[str], folder: Path, errors: list[str]) -> None:
    from gradio_client import Client, handle_file

    try:
        client = Client(url, verbose=False, httpx_kwargs={"timeout": 600})
        path = folder / f"short-{index}.md"
        path.write_text(f"---\nid: short-{index}\ntopic: travel\n---\n" + "\n".join(
            f"Short session {index}, note {n}: the shuttle to building {n} leaves every {10 + n % 20} minutes."
            for n in range(30)) + "\n")
        client.predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")
        for n in range(3):
            client.predict(questions[(index + n) % len(questions)], "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200,
                           "before_cutoff", "hybrid", api_name="/ask")
        client.close()
    except Exception as error:  # noqa: BLE001 - counted and reported
        errors.append(f"{type(error).__name__}: {str(error)[:200]}")


def short_sessions(url: str, pid: int, count: int, questions: list[str], at_once: int = 4,
                   every: int = 25) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="bench-short-"))
    errors: list[str] = []
    samples = [(0, tree_memory_mb(pid), 0.0)]
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(at_once) as pool:
            for block in range(0, count, every):
                list(pool.map(lambda i: _short_session(url, i, questions, folder, errors),
                              range(block, min(block + every, count))))
                samples.append((min(block + every, count), tree_memory_mb(pid), time.perf_counter() - started))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"short_sessions": count, "short_errors": len(errors), "short_first_error": (errors or [None])[0],
            "short_samples": samples}


# --------------------------------------------------------------------------- attack


def bomb_pdf(inflated: int = 3 * 2**30) -> bytes:
    """A one-page PDF (~3 MB) whose content stream inflates to `inflated` bytes, compressed piece by piece
    (never held whole)."""
    import pymupdf

    compressor, parts, piece = zlib.compressobj(9), [], b"0 0 m 0 0 l n\n" * (2**20 // 14)
    for _ in range(inflated // len(piece)):
        parts.append(compressor.compress(piece))
    parts.append(compressor.flush())
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 50), "An innocent-looking first line.")
    xref = page.get_contents()[0]
    doc.update_stream(xref, b"".join(parts), compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    return doc.tobytes()


def users_file(folder: Path, users: list[str]) -> Path:
    from pipeline import add_user

    path = folder / "users.yaml"
    for name in users:
        add_user(path, name, f"{name}-password-123", ())
    return path


def _asks(url: str, user: str, questions: list[str], count: int, latencies: list[float], errors: list[str],
          clients: dict) -> None:
    from gradio_client import Client

    try:
        client = clients.get(user) or Client(url, auth=(user, f"{user}-password-123"), verbose=False,
                                             httpx_kwargs={"timeout": 600})
        clients[user] = client
        for n in range(count):
            started = time.perf_counter()
            client.predict(questions[n % len(questions)], "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200,
                           "before_cutoff", "hybrid", api_name="/ask")
            latencies.append(time.perf_counter() - started)
    except Exception as error:  # noqa: BLE001
        errors.append(f"{type(error).__name__}: {str(error)[:200]}")


def _phase(url: str, users: list[str], questions: list[str], count: int, clients: dict,
           health: list[float]) -> tuple[list, list]:
    """Every user asks `count` questions at once; /healthz is read meanwhile (its latencies into `health`)."""
    import httpx

    latencies, errors = [], []
    threads = [threading.Thread(target=_asks, args=(url, u, questions, count, latencies, errors, clients))
               for u in users]
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads):
        started = time.perf_counter()
        try:
            httpx.get(url + "healthz", timeout=600)
            health.append(time.perf_counter() - started)
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    return latencies, errors


def attack(url: str, pid: int, questions: list[str], count: int, folder: Path) -> dict:
    import httpx
    from gradio_client import Client, handle_file

    users = [f"user{n}" for n in range(8)]
    clients: dict = {}
    for user in users:  # signed in before the storm (which also locks the address they share with it here)
        _asks(url, user, questions, 0, [], [], clients)
    quiet_health: list[float] = []
    quiet, quiet_errors = _phase(url, users, questions, count, clients, quiet_health)
    bomb = folder / "bomb.pdf"
    bomb.write_bytes(bomb_pdf())
    mallory = Client(url, auth=("mallory", "mallory-password-123"), verbose=False, httpx_kwargs={"timeout": 600})
    attacking = threading.Event()
    attacking.set()
    outcome: dict = {}
    storm = {"verified": 0, "throttled": 0, "other": 0}
    health: list[float] = []
    peak = [tree_memory_mb(pid)]

    def upload_bomb() -> None:
        started = time.perf_counter()
        try:
            report = mallory.predict([handle_file(str(bomb))], "", "", "", "", "", api_name="/upload")
            outcome["said"] = (report["errors"] or ["added"])[0]
        except Exception as error:  # noqa: BLE001
            outcome["said"] = f"{type(error).__name__}: {str(error)[:200]}"
        outcome["seconds"] = time.perf_counter() - started

    def storm_logins() -> None:
        while attacking.is_set():
            response = httpx.post(url + "login", data={"username": f"guess-{uuid.uuid4().hex[:6]}",
                                                       "password": "wrong-password"}, timeout=600)
            key = {400: "verified", 429: "throttled"}.get(response.status_code, "other")
            storm[key] += 1

    def sample() -> None:
        while attacking.is_set():
            peak.append(tree_memory_mb(pid))
            time.sleep(0.2)

    side = [threading.Thread(target=upload_bomb)] + [threading.Thread(target=storm_logins) for _ in range(8)] + \
        [threading.Thread(target=sample)]
    for thread in side:
        thread.start()
    loud, loud_errors = _phase(url, users, questions, count, clients, health)
    side[0].join()
    attacking.clear()
    for thread in side[1:]:
        thread.join()
    return {
        "quiet_p50_s": statistics.median(quiet) if quiet else None, "quiet_p95_s": percentile(quiet, 0.95),
        "attack_p50_s": statistics.median(loud) if loud else None, "attack_p95_s": percentile(loud, 0.95),
        "asks_quiet": len(quiet), "asks_attack": len(loud), "ask_errors": len(quiet_errors) + len(loud_errors),
        "first_ask_error": (quiet_errors + loud_errors or [None])[0],
        "healthz_p50_s": statistics.median(health) if health else None, "healthz_p95_s": percentile(health, 0.95),
        "healthz_max_s": max(health) if health else None,
        "quiet_healthz_p50_s": statistics.median(quiet_health) if quiet_health else None,
        "quiet_healthz_p95_s": percentile(quiet_health, 0.95),
        "bomb_said": outcome.get("said"), "bomb_s": outcome.get("seconds"), "bomb_bytes": bomb.stat().st_size,
        "storm": storm, "attack_peak_mb": max(peak),
    }


def run_attack(questions: list[str], count: int, serving) -> dict:
    """`attack` against the app with sign-in, started by `serving` (bench_load's)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-attack-"))
    try:
        users = users_file(folder, [f"user{n}" for n in range(8)] + ["mallory"])
        with serving({"AUTH_USERS_FILE": str(users)}) as (process, url, _):
            from benchmarks.bench_fairness import signed_in_case

            figures = attack(url, process.pid, questions, count, folder)
            figures["sign_in_case"] = signed_in_case(url, questions)
            return figures
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def render_short(figures: dict) -> list[tuple[str, str]]:
    rows = [("short sessions (upload, 3 asks, close) / errors",
             f"{figures['short_sessions']} / {figures['short_errors']}")]
    for done, rss, seconds in figures["short_samples"]:
        rows.append((f"  server + workers RSS after {done} (MiB)", f"{rss:.0f} (at {seconds:.0f} s)"))
    return rows


def render_attack(figures: dict) -> list[tuple[str, str]]:
    def f(value, digits=2):
        return "—" if value is None else f"{value:.{digits}f}"

    storm = figures["storm"]
    return [
        ("8 users' asks p50 / p95, quiet (s)", f"{f(figures['quiet_p50_s'])} / {f(figures['quiet_p95_s'])}"),
        ("8 users' asks p50 / p95, under attack (s)", f"{f(figures['attack_p50_s'])} / {f(figures['attack_p95_s'])}"),
        ("asks quiet / under attack / errors", f"{figures['asks_quiet']} / {figures['asks_attack']} / "
                                               f"{figures['ask_errors']}"),
        ("/healthz p50 / p95, quiet (s)", f"{f(figures['quiet_healthz_p50_s'], 3)} / "
                                          f"{f(figures['quiet_healthz_p95_s'], 3)}"),
        ("/healthz p50 / p95 / max, under attack (s)", f"{f(figures['healthz_p50_s'], 3)} / "
                                                       f"{f(figures['healthz_p95_s'], 3)} / {f(figures['healthz_max_s'], 3)}"),
        (f"bomb upload ({figures['bomb_bytes'] / 2**20:.1f} MB → 3 GiB)", f"{f(figures['bomb_s'], 1)} s: "
                                                                          f"{figures['bomb_said']}"),
        ("login storm: verified (400) / throttled (429) / other", f"{storm['verified']} / {storm['throttled']} / "
                                                                  f"{storm['other']}"),
        ("server + workers RSS peak under attack (MiB)", f(figures["attack_peak_mb"], 0)),
    ]
