"""`python -m pipeline bench load --attack`, the cases of issue 50: what a bystander sees while one client attacks.

One attacker (one address per case, 10.66.N.1, told with X-Forwarded-For as a proxy would) works at each way it could crowd
out, wipe or stall another user of the free host; meanwhile a bystander (an address of its own) uploads a small
note (`--attack` reports how long until it was added, or what refused it) and asks five questions (their p95):

  sessions  520 /history calls with fresh session hashes (they pushed a victim's session out of Gradio's table);
            the victim's upload is looked for afterwards
  readers   three uploads at once, each of a CSV built for csv.Sniffer, an EPUB whose spine lists one chapter
            20,000 times and an XLSX of 9,990 sheets, three of each (they held the one upload lane for minutes)
  budget    three sessions upload prose until refused (three sessions held the whole upload budget)
  folder    5 MB files sent to Gradio's upload route and never read, until refused (the folder filled in 61 s)
  sign-in   (with sign-in) wrong passwords for a known user from the attacker's address; then that user signs in
            from its own

The app runs with the environment's settings (render.yaml's: `RAG_HOST_MEMORY_MB=512 RAG_WORKERS=1`). Nothing is
asserted: the table says what happened.
"""

from __future__ import annotations

import itertools
import statistics
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_BYSTANDERS = itertools.count(1)  # each bystander at an address of its own
ATTACKERS = {"sessions": 1, "readers": 2, "budget": 3, "folder": 4, "sign-in": 5}


def attacker(case: str) -> dict[str, str]:
    """The attacker's headers in `case`: an address of its own per case (a case's shares are not another's)."""
    return {"X-Forwarded-For": f"10.66.{ATTACKERS[case]}.1"}

TIMEOUT = {"timeout": 600}


def _client(url: str, headers: dict, **options):
    from gradio_client import Client

    return Client(url, verbose=False, httpx_kwargs=TIMEOUT, headers=headers, **options)


def _upload(client, paths: list[Path]) -> dict:
    from gradio_client import handle_file

    return client.predict([handle_file(str(p)) for p in paths], "", "", "", "", "", api_name="/upload")


def _said(report: dict) -> str:
    return "added" if report.get("added") else "; ".join(report.get("errors") or ["refused"])[:140]


def bystander(url: str, name: str, questions: list[str], folder: Path, auth=None) -> dict:
    """A client at an address of its own: the seconds its small note took to be added (or what refused it), and
    its five asks' p95."""
    note = folder / f"{name}.md"
    note.write_text(f"---\nid: {name}\n---\nThe bystander's note {name}.\n")
    seen: dict = {"asks": []}
    try:
        client = _client(url, {"X-Forwarded-For": f"10.0.9.{next(_BYSTANDERS)}"}, auth=auth)
        started = time.perf_counter()
        report = _upload(client, [note])
        seen["upload_s"], seen["upload"] = time.perf_counter() - started, _said(report)
        for n in range(5):
            started = time.perf_counter()
            client.predict(questions[n % len(questions)], "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200,
                           "before_cutoff", "hybrid", api_name="/ask")
            seen["asks"].append(time.perf_counter() - started)
    except Exception as error:  # noqa: BLE001 - reported
        seen.setdefault("upload", f"{type(error).__name__}: {str(error)[:140]}")
    return seen


def _beside(attack, url: str, name: str, questions: list[str], folder: Path, head_start_s: float = 1.0) -> dict:
    """`attack()` in a thread; the bystander starts `head_start_s` later. Both results."""
    result: dict = {}
    thread = threading.Thread(target=lambda: result.update(attack()))
    thread.start()
    time.sleep(head_start_s)
    seen = bystander(url, name, questions, folder)
    thread.join()
    return {"attacker": result, "bystander": seen}


# --------------------------------------------------------------------------- the cases


def flood_sessions(url: str, calls: int = 520) -> dict:
    import httpx

    def one(_):
        started = httpx.post(f"{url}gradio_api/call/history", json={"data": [], "session_hash": uuid.uuid4().hex},
                             headers=attacker("sessions"), timeout=60)
        if started.status_code == 200:
            httpx.get(f"{url}gradio_api/call/history/{started.json()['event_id']}", headers=attacker("sessions"),
                      timeout=60)
        return started.status_code

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(one, range(calls)))
    return {"said": f"{statuses.count(200)} sessions started, {len(statuses) - statuses.count(200)} refused "
                    f"({', '.join(f'{s}: {statuses.count(s)}' for s in sorted(set(statuses)) if s != 200)})"}


def crafted_files(folder: Path) -> list[Path]:
    from tests.costly_files import epub_repeating_one_chapter, sniffer_worst_csv, xlsx_of_sheets

    files = []
    for n in range(3):
        for name, data in ((f"sniffer-{n}.csv", sniffer_worst_csv()), (f"spine-{n}.epub", epub_repeating_one_chapter(
                20_000, f"Chapter {n} says boats keep 5 metres apart.")), (f"sheets-{n}.xlsx", xlsx_of_sheets(9990))):
            path = folder / name
            path.write_bytes(data)
            files.append(path)
    return files


def slow_readers(url: str, folder: Path) -> dict:
    files = crafted_files(folder)
    # Each upload under names of its own: the server keeps a received file at a path made of its content's hash and
    # its name, and deletes it once read, so three uploads of the same names would read one file and find the
    # others gone ("was not received by this server").
    copies = []
    for n in range(3):
        (folder / f"upload-{n}").mkdir(exist_ok=True)
        copies.append([folder / f"upload-{n}" / f"{n}-{path.name}" for path in files])
        for path, copy in zip(files, copies[-1]):
            copy.write_bytes(path.read_bytes())

    def one(n):
        started = time.perf_counter()
        try:
            report = _upload(_client(url, attacker("readers")), copies[n])
            kinds = {error.split(":")[0].rsplit(".", 1)[-1]: error.split(": ", 1)[-1][:60] for error in report["errors"]}
            said = (f"{len(report['added'])} added, {len(report['errors'])} refused"
                    + "".join(f"; {kind}: {why}" for kind, why in sorted(kinds.items())))
        except Exception as error:  # noqa: BLE001
            said = f"{type(error).__name__}: {str(error)[:100]}"
        return time.perf_counter() - started, said

    with ThreadPoolExecutor(3) as pool:
        done = list(pool.map(one, range(3)))
    return {"said": f"3 uploads of {len(files)} crafted files ({sum(p.stat().st_size for p in files) // 1024} KB) "
                    f"took {', '.join(f'{s:.1f}' for s, _ in done)} s: " + " | ".join(said for _, said in done)}


def fill_budget(url: str, folder: Path) -> dict:
    from benchmarks.bench_chunking import prose

    added, last = 0, ""
    try:
        for session in range(3):
            client = _client(url, attacker("budget"))
            for n in range(4):
                path = folder / f"prose-{session}-{n}-{uuid.uuid4().hex[:6]}.md"
                path.write_text(f"---\nid: {path.stem}\n---\n" + prose(1.0))
                report = _upload(client, [path])
                if not report["added"]:
                    last = _said(report)
                    break
                added += 1
    except Exception as error:  # noqa: BLE001 - reported
        last = f"{type(error).__name__}: {str(error)[:110]}"
    return {"said": f"{added} MB of prose added over 3 sessions, then: {last or 'never refused'}"}


def fill_folder(url: str) -> dict:
    import httpx

    sent, last = 0, ""
    for n in range(30):
        files = {"files": (f"filler-{n}.md", b"x" * (5 * 2**20), "text/markdown")}
        answer = httpx.post(f"{url}gradio_api/upload", files=files, headers=attacker("folder"), timeout=60)
        if answer.status_code != 200:
            last = f"{answer.status_code} {answer.json().get('detail', '')[:110]}"
            break
        sent += 5
    return {"said": f"{sent} MB sent and left unread, then: {last or 'never refused'}"}


def run_cases(url: str, questions: list[str]) -> dict:
    """Every case against the app at `url` (demo mode), a bystander beside each; and one quiet bystander first."""
    folder = Path(tempfile.mkdtemp(prefix="bench-fairness-"))
    cases = {"quiet": {"attacker": {"said": "nothing (the baseline)"},
                       "bystander": bystander(url, "quiet", questions, folder)}}
    victim = _client(url, {"X-Forwarded-For": "10.0.8.1"})
    victim_note = folder / "victim-note.md"
    victim_note.write_text("---\nid: victim-note\n---\nThe victim's note.\n")
    _upload(victim, [victim_note])
    cases["sessions"] = _beside(lambda: flood_sessions(url), url, "during-sessions", questions, folder)
    kept = [d["source_id"] for d in victim.predict("", api_name="/documents") if d["origin"] == "uploaded"]
    cases["sessions"]["attacker"]["said"] += f"; the victim's session {'kept' if kept else 'LOST'} its upload"
    cases["readers"] = _beside(lambda: slow_readers(url, folder), url, "during-readers", questions, folder, 3.0)
    cases["budget"] = _beside(lambda: fill_budget(url, folder), url, "during-budget", questions, folder, 20.0)
    cases["folder"] = _beside(lambda: fill_folder(url), url, "during-folder", questions, folder, 1.0)
    return cases


def signed_in_case(url: str, questions: list[str], storm_s: float = 5.0) -> dict:
    """Wrong passwords for user0 from the attacker's address for `storm_s`; then user0 signs in from its own."""
    import httpx

    tried, locked = 0, 0
    deadline = time.perf_counter() + storm_s
    while time.perf_counter() < deadline:
        answer = httpx.post(url + "login", data={"username": "user0", "password": "a-guess-123"},
                            headers=attacker("sign-in"), timeout=60)
        tried, locked = tried + 1, locked + (answer.status_code == 429)
    own = httpx.post(url + "login", data={"username": "user0", "password": "user0-password-123"},
                     headers={"X-Forwarded-For": "10.0.7.1"}, timeout=60)
    return {"attacker": {"said": f"{tried} wrong passwords for user0 ({locked} answered 429 'locked')"},
            "bystander": {"upload": f"user0 signing in from its own address: HTTP {own.status_code}", "asks": []}}


def render_cases(cases: dict) -> list[tuple[str, str]]:
    from benchmarks.bench_attack import percentile

    rows = []
    for name, case in cases.items():
        seen = case["bystander"]
        waited = f"{seen['upload_s']:.1f} s, " if "upload_s" in seen else ""
        asks = seen.get("asks") or []
        p95 = f"; asks p95 {percentile(asks, 0.95):.2f} s (median {statistics.median(asks):.2f})" if asks else ""
        rows.append((f"{name}: attacker", case["attacker"].get("said", "")))
        rows.append((f"{name}: bystander's note", f"{waited}{seen.get('upload', '')}{p95}"))
    return rows
