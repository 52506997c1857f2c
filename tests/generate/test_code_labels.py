"""A README labels its examples with a short line and no colon ("Download a single file" over its code): the line
and its code answer a how-do-I question together, as "… with pip:" and its command do."""

from __future__ import annotations

from pipeline import REQUEST_DATE, Request, Settings
from tests.conftest import corpus_of


README = ("## Download files\n\nDownload a single file\n\n```py\nfrom hub import hf_hub_download\n\n"
          "hf_hub_download(repo_id=\"acme/model\", filename=\"config.json\")\n```\n\nOr an entire repository\n\n```py\n"
          "from hub import snapshot_download\n\nsnapshot_download(\"acme/model\")\n```\n")


def test_a_label_over_an_example_answers_with_the_example(engine):
    trace = engine.ask(corpus_of(engine, ("hub-readme.md", README)),
                       Request(question="How do I download a whole repository?", date=REQUEST_DATE), Settings())
    assert trace.answer.status == "answered", trace.explanation
    assert "snapshot_download(" in trace.answer.answer  # not the label line alone



def test_the_reader_reads_a_label_under_its_section_heading():
    from pipeline.core.contracts import PackedLine, PackedSource
    from pipeline.generate.extractive.composer import under_heading
    from pipeline.text.units import units_of

    lines = README.splitlines()
    units = units_of(PackedSource(n=1, source_id="hub-readme", version=None, page=None, start_line=1, end_line=len(lines),
                                  support_span=False, dated="", sibling_group="",
                                  lines=tuple(PackedLine(number=i + 1, text=t) for i, t in enumerate(lines))))
    label = next(u for u in units if u.quote == "Or an entire repository")
    assert under_heading(label).section == "Download files"
    code = next(u for u in units if u.kind == "code")
    assert under_heading(code) is code  # only a label is read so


TIMERS = ("# Timers\n\n## Cancelling timers\n\nEach scheduling call returns an object that cancels it.\n\n"
          "### `clearInterval(timeout)`\n\n* `timeout` {Timeout} A `Timeout` object as returned by `setInterval()`.\n\n"
          "Cancels a `Timeout` object created by `setInterval()`.\n\n### `clearTimeout(timeout)`\n\n"
          "* `timeout` {Timeout} A `Timeout` object as returned by `setTimeout()`.\n\n"
          "Cancels a `Timeout` object created by `setTimeout()`.\n")


def test_a_reference_entry_answers_how_to_with_the_call_its_heading_names(engine):
    corpus = corpus_of(engine, ("timers.md", TIMERS))
    trace = engine.ask(corpus, Request(question="How do I cancel a timeout created by setTimeout?", date=REQUEST_DATE),
                       Settings())
    assert trace.answer.status == "answered", trace.explanation
    assert "clearTimeout(timeout)" in trace.answer.answer  # the sentence alone never says which call
    assert [c.quote for c in trace.answer.citations][0] == "### `clearTimeout(timeout)`"
    assert all(c.verified for c in trace.answer.citations)
    what = engine.ask(corpus, Request(question="What does clearTimeout do?", date=REQUEST_DATE), Settings())
    assert len(what.answer.citations) <= 1  # not a how-do-I question: the sentence alone


TERMY = ("## Run it\n\nRun your application with the `typer` command:\n\n<div class=\"termy\">\n\n```console\n"
         "$ typer main.py run\nHello Camila\n```\n\n</div>\n")


def test_a_command_s_introduction_over_an_html_wrapper_is_still_its_introduction():
    """A README wraps its console examples in `<div class="termy">`: the sentence over the wrapper introduces the block
    (one unit with it, which the reader reads whole)."""
    from pipeline.core.contracts import PackedLine, PackedSource
    from pipeline.text.units import units_of

    lines = TERMY.splitlines()
    units = units_of(PackedSource(n=1, source_id="typer-readme", version=None, page=None, start_line=1, end_line=len(lines),
                                  support_span=False, dated="", sibling_group="",
                                  lines=tuple(PackedLine(number=i + 1, text=t) for i, t in enumerate(lines))))
    code = [u for u in units if u.kind == "code"]
    assert any(u.quote.startswith("Run your application") and u.quote.endswith("```") for u in code)
    assert any(u.quote.startswith("```console") for u in code)  # the bare block is a unit of its own too
