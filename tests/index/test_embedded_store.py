"""The embedded Chroma folder belongs to one process: a second one is refused in one line, before it can write
(two processes writing one folder corrupted it); one process may open it as often as it likes."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pipeline.core.errors import StoreError
from pipeline.index.stores.chroma import ChromaVectorCache
from tests.conftest import ROOT

_OPEN_IN_ANOTHER_PROCESS = """
import sys
from pipeline.core.errors import StoreError
from pipeline.index.stores.chroma import ChromaVectorCache
try:
    ChromaVectorCache("held-embedder", path=sys.argv[1]).fetch(["a"])
except StoreError as error:
    print(error)
    sys.exit(2)
print("opened")
"""


def _open_elsewhere(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _OPEN_IN_ANOTHER_PROCESS, str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow  # starts Python processes that import chromadb
def test_a_second_process_is_refused_the_folder_and_gets_it_once_the_first_is_gone(tmp_path):
    folder = tmp_path / "chroma"
    holder = subprocess.Popen([sys.executable, "-c", _OPEN_IN_ANOTHER_PROCESS + "sys.stdin.read()\n", str(folder)],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "opened"
        refused = _open_elsewhere(folder)
        assert refused.returncode == 2, refused.stderr[-2000:]
        assert refused.stdout.strip() == (f"chroma embedded {folder}: another process is using this vector store (an "
                                          "embedded store serves one process): stop it, give this one its own "
                                          "RAG_CACHE_DIR, or share a Chroma server (CHROMA_HOST)")
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
    reopened = _open_elsewhere(folder)
    assert reopened.returncode == 0 and reopened.stdout.strip() == "opened", reopened.stdout + reopened.stderr[-2000:]


def test_one_process_opens_its_folder_again_and_sees_what_it_wrote(tmp_path):
    first = ChromaVectorCache("held-embedder", path=tmp_path / "chroma")
    first.store(["k"], np.ones((1, 4), dtype=np.float32))
    again = ChromaVectorCache("held-embedder", path=tmp_path / "chroma")
    assert set(again.fetch(["k"])) == {"k"}


def test_an_unusable_folder_is_refused_in_one_line_naming_it(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with pytest.raises(StoreError) as caught:
        ChromaVectorCache("held-embedder", path=blocked)
    assert str(caught.value).startswith(f"chroma embedded {blocked}: cannot open the vector store") \
        and "\n" not in str(caught.value)
