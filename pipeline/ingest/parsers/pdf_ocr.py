"""Scanned pages read by OCR: Tesseract through PyMuPDF's OCR text page, when Tesseract's language data is installed.

A page with no text layer is rendered at `OCR_DPI` and recognised in English and simplified Chinese (whichever of
the two is installed); the OCR text page gives words with boxes like a text layer's, so lines, citations and
highlights work the same. The page is marked (`Page.ocr`), and the Source panel and the trace say so.

Costs are bounded per document: at most `MAX_OCR_PAGES` pages and `OCR_CPU_S` CPU seconds / `OCR_WALL_S` wall
seconds of recognition (under the parse worker's own limits, pipeline.core.limits). A page cannot be stopped halfway,
so one is begun only if it is expected to end within them: as costly as the costliest page so far, or, for the first,
`page_cpu` seconds of CPU over the share of a CPU this task has been getting (`cpu_share`: on Render's 0.1 CPU an
A4 page takes minutes, and a first page that ran the worker into its own limit lost the whole upload). The pages past a
bound stay without text, and the document says which and why. On a host of known memory size
(`budgets.HostMemory`: the deploy's RAG_HOST_MEMORY_MB, or the memory cgroup's limit) a page is recognised only while
what the server and its workers hold (measured from the worker too), with the page's estimated OCR memory
(`page_memory`), stays out of the host's reserve, at 150 dpi where 200 does not fit; else it and the pages after it
are left unread and the warning says so (no page read: the upload is refused, "try again later").

Measured (`python -m pipeline bench ocr`, 2 shared cores): an A4 page of 11 pt prose (~620 words) takes ~13 s of CPU
in eng+chi_sim at 200 or 150 dpi, 8 pt ~27 s, 6 pt 39-54 s (English alone about half: 7.4 and 13.5 s), and adds
56-106 MiB to the process at its peak (`page_memory`). `bench load --scan-pages 6` under render.yaml's settings:
docs/limits.md.

Tesseract is found through TESSDATA_PREFIX or PyMuPDF's own search (`pymupdf.get_tessdata()`, which asks the
installed `tesseract`): Debian's tesseract-ocr, tesseract-ocr-eng and tesseract-ocr-chi-sim (`.ci/run`, Dockerfile).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from pathlib import Path

import pymupdf

from pipeline.core.contracts import Page
from pipeline.core.limits import WORKER_CPU_S, WORKER_WALL_S
from pipeline.core.settings import environment
from pipeline.core.memory import release_free_memory
from pipeline.ingest.budgets import HostMemory, mib

OCR_LANGUAGES = ("eng", "chi_sim")
OCR_DPI = 200  # 300 dpi read the same test page in 30 % more CPU
# Where the host is short of memory a page is read at 150 dpi (23-33 MiB less): the same words as at 200 on pages of
# 8 and 11 pt prose, 3 % fewer at 6 pt (`bench ocr`); below 150 small print is lost.
OCR_DPIS = (OCR_DPI, 150)
MAX_OCR_PAGES = environment().limit("RAG_MAX_OCR_PAGES", 20, minimum=0)  # 0: never OCR
OCR_CPU_S = WORKER_CPU_S / 2  # half the parse worker's limits: the rest of the document still has to be read
OCR_WALL_S = WORKER_WALL_S / 2  # (a busy host takes seconds of wall time per page)
NOT_INSTALLED = ("OCR is not installed on this server (the administrator can install Tesseract with its English "
                 "language data, e.g. apt-get install tesseract-ocr tesseract-ocr-eng; the next upload finds it)")
# What recognising a page adds to the process at its peak (`bench ocr`: VmHWM growth in a fresh process,
# eng+chi_sim, Debian's 4.1 "fast" language data, A4 pages of prose): 11 pt 79 / 56 MiB at 200 / 150 dpi, 8 pt
# 92 / 68, 6 pt 106 / 73. Fitted to the 8 pt page (denser text holds more of Tesseract's word structures): 38 MiB
# plus 14 bytes per pixel of the page's image; the 6 pt page's excess (up to 16 MiB) falls in the host's reserve.
OCR_FIXED_BYTES = 38 * 2**20
OCR_BYTES_PER_PIXEL = 14
SHORT_OF_MEMORY = "the server is short of memory for OCR"
# A page's OCR CPU before any page was read, from its pixels at OCR_DPI (`bench ocr`, eng+chi_sim, A4 = 3.9 Mpx at
# 200 dpi): 11 pt prose 13-14 s, i.e. 3.5 s per megapixel; 8 pt 27 s and 6 pt 39-54 s cost more, 16 pt 6.4 s and a
# page of a few lines less. At 150 dpi the same page took about as long (11.9 s), so a page is estimated at 200 dpi
# whatever it is read at.
OCR_CPU_S_PER_MEGAPIXEL = 3.5
# The CPU share is this task's CPU time over its wall time, judged over at least this long (a task that just started
# spins until then): the kernel's CPU quota (cgroup CFS) lets a throttled process run flat out for the first part of
# each 100 ms period, so a shorter window reads as a whole CPU.
SHARE_WINDOW_S = 0.3
MIN_SHARE = 0.001  # a window with no CPU at all: any page is too slow


def page_memory(page: pymupdf.Page, dpi: int = OCR_DPI) -> int:
    """Estimated bytes recognising `page` at `dpi` adds to the process at its peak."""
    pixels = page.rect.width * page.rect.height * (dpi / 72) ** 2
    return int(OCR_FIXED_BYTES + OCR_BYTES_PER_PIXEL * pixels)


def page_cpu(page: pymupdf.Page) -> float:
    """Expected CPU seconds of recognising `page` (OCR_CPU_S_PER_MEGAPIXEL, at OCR_DPI)."""
    return OCR_CPU_S_PER_MEGAPIXEL * page.rect.width * page.rect.height * (OCR_DPI / 72) ** 2 / 1e6


def cpu_share(cpu_since: float, wall_since: float) -> float:
    """The share of one CPU this process has had since `cpu_since` (time.process_time) and `wall_since`
    (time.monotonic), judged over at least SHARE_WINDOW_S: a task younger than that spins until it is that old."""
    while time.monotonic() - wall_since < SHARE_WINDOW_S:
        pass
    share = (time.process_time() - cpu_since) / (time.monotonic() - wall_since)
    return min(1.0, max(share, MIN_SHARE))


def ocr_languages() -> tuple[str | None, str]:
    """(tessdata folder, "eng+chi_sim" or the installed part of it); (None, "") when Tesseract is not installed.

    Where it is installed is remembered for the process's life; that it is missing is not: Tesseract installed while
    the server runs is found by the next scan uploaded (a worker process reads many uploads)."""
    folder = environment().get("TESSDATA_PREFIX") or _tessdata_folder()
    if not folder or not Path(folder).is_dir():
        _tessdata_folder.cache_clear()
        return None, ""
    installed = [lang for lang in OCR_LANGUAGES if (Path(folder) / f"{lang}.traineddata").is_file()]
    return (folder, "+".join(installed)) if installed else (None, "")


@functools.cache
def _tessdata_folder() -> str | None:
    """The installed Tesseract's language folder (a subprocess asks it: cached while it stays there)."""
    return _found_tessdata()


def _found_tessdata() -> str | None:
    try:
        return pymupdf.get_tessdata()
    except (RuntimeError, OSError, ValueError):  # no tesseract on the path, or no tessdata folder
        return None


class OcrBudget:
    """One document's OCR: which pages were read, and which were left because a bound or Tesseract was missing."""

    def __init__(self, max_pages: int | None = None, host: HostMemory | None = None) -> None:
        self._installed: tuple[str | None, str] | None = None  # looked up at the first page without text
        self.max_pages = MAX_OCR_PAGES if max_pages is None else max_pages
        self.host = host or HostMemory()  # the server's tree, also from a parse worker (budgets.count_host_from)
        self.read: list[int] = []
        self.skipped: list[int] = []
        self.failed: list[int] = []
        self.short_of_memory: list[int] = []  # left unread: the host's memory would have gone into its reserve
        self.in_use = 0
        self.cpu_s = self.wall_s = 0.0
        self.page_cpu_s = self.page_wall_s = 0.0  # the costliest page so far
        self.too_slow: list[int] = []  # left unread: the page was expected to end past the document's OCR time
        self.too_slow_reason = ""
        self._started = time.process_time(), time.monotonic()  # the task's start, for its CPU share

    @property
    def tessdata(self) -> str | None:
        return self._found()[0]

    @property
    def language(self) -> str:
        return self._found()[1]

    def _found(self) -> tuple[str | None, str]:
        if self._installed is None:
            self._installed = ocr_languages()
        return self._installed

    @property
    def available(self) -> bool:
        return self.tessdata is not None

    def textpage(self, page: pymupdf.Page, number: int) -> pymupdf.TextPage | None:
        """The page's OCR text page, or None (recorded with why) when Tesseract is missing, a bound is reached, the
        page is not expected to end within the document's OCR time or the host has no room for it."""
        if not self.available or len(self.read) >= self.max_pages:
            self.skipped.append(number)
            return None
        if self.too_slow or not self._time_for_a_page(page):  # once too slow, the pages after wait too
            self.too_slow.append(number)
            return None
        dpi = None if self.short_of_memory else self._dpi_with_room(page)  # once short, the pages after wait too
        if dpi is None:
            self.short_of_memory.append(number)
            return None
        cpu, wall = time.process_time(), time.monotonic()
        try:
            textpage = page.get_textpage_ocr(language=self.language, dpi=dpi, full=True, tessdata=self.tessdata)
        except (RuntimeError, ValueError):  # Tesseract refused the page (its data unreadable, an odd image)
            self.failed.append(number)
            return None
        finally:
            cpu, wall = time.process_time() - cpu, time.monotonic() - wall
            self.cpu_s, self.wall_s = self.cpu_s + cpu, self.wall_s + wall
            self.page_cpu_s, self.page_wall_s = max(self.page_cpu_s, cpu), max(self.page_wall_s, wall)
        self.read.append(number)
        release_free_memory()  # the host's next measure counts what the worker holds, not what it freed
        return textpage

    def _time_for_a_page(self, page: pymupdf.Page) -> bool:
        """Whether `page` is expected to end within the document's CPU and wall bounds (else the reason is kept): a
        page cannot be stopped halfway, and one begun near a bound ran into the worker's own limit, which loses the
        whole upload. Expected: as costly as the costliest page so far; the first, `page_cpu` at this task's
        `cpu_share`."""
        if self.read or self.failed:
            cpu, wall = self.page_cpu_s, self.page_wall_s
        else:
            cpu = page_cpu(page)
            wall = cpu / cpu_share(*self._started)
        cpu_left, wall_left = max(OCR_CPU_S - self.cpu_s, 0.0), max(OCR_WALL_S - self.wall_s, 0.0)
        if wall >= wall_left:
            self.too_slow_reason = (f"this server reads about one scanned page in {wall:.0f} s, more than the "
                                    f"{wall_left:.0f} s left of OCR's {OCR_WALL_S:g} s per document")
        elif cpu >= cpu_left:
            self.too_slow_reason = (f"a scanned page takes about {cpu:.0f} s of CPU here, more than the "
                                    f"{cpu_left:.0f} s left of OCR's {OCR_CPU_S:g} s of CPU per document")
        return cpu < cpu_left and wall < wall_left

    def _dpi_with_room(self, page: pymupdf.Page) -> int | None:
        """The highest resolution whose OCR of this page fits the host's memory outside its reserve (any, on a host of
        unknown size); None when neither does."""
        limit = self.host.limit
        if not limit:
            return OCR_DPI
        self.in_use = self.host.in_use()
        return next((dpi for dpi in OCR_DPIS if self.in_use + page_memory(page, dpi) <= limit - self.host.reserve),
                    None)

    def why_no_text(self) -> str:
        """Why a document without a text layer has no text at all (the end of its refusal)."""
        if self.read:
            return "OCR found no text in it either"
        if not self.available:
            return f"{NOT_INSTALLED}, so it cannot be read"
        if self.failed:
            return "Tesseract is installed but could not read it (its language data may be damaged)"
        if self.short_of_memory:
            return f"{SHORT_OF_MEMORY} now (try again later)"
        if self.too_slow:
            return f"OCR was not started: {self.too_slow_reason} (try again when the server is less busy)"
        return f"OCR is switched off here (RAG_MAX_OCR_PAGES={self.max_pages})"

    def warnings(self, pages: Sequence[Page]) -> tuple[str, ...]:
        """One line on the pages OCR read text from and one on those it left (a page where it found nothing is
        listed with the pages without text)."""
        said = []
        found = [page.number for page in pages if page.ocr and page.lines and page.number is not None]
        if found:
            said.append(f"page(s) {_listed(found)} had no text layer and were read by OCR ({self.language}); "
                        "check quotes from them against the page image")
        if self.skipped and not self.available:
            said.append(f"page(s) {_listed(self.skipped)} have no text layer and were not read: {NOT_INSTALLED}")
        if self.skipped and self.available:
            said.append(f"page(s) {_listed(self.skipped)} were not read by OCR: the limit is {self.max_pages} pages "
                        "per document")
        if self.too_slow:
            said.append(f"page(s) {_listed(self.too_slow)} were not read by OCR: {self.too_slow_reason}")
        if self.failed:
            said.append(f"page(s) {_listed(self.failed)} have no text layer and OCR could not read them")
        if self.short_of_memory:
            said.append(f"page(s) {_listed(self.short_of_memory)} were not read by OCR: {SHORT_OF_MEMORY} "
                        f"({mib(self.in_use)} of {mib(self.host.limit or 0)} in use); delete the document and upload "
                        "it again later to read them")
        return tuple(said)


def _listed(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers[:20]) + (" …" if len(numbers) > 20 else "")
