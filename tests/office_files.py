"""Real DOCX, HTML, EPUB, XLSX and CSV files made by the tests (python-docx and openpyxl write them; an EPUB is a
small ZIP written here by its container rules), each with a heading, a list or a table as the test needs."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from collections.abc import Sequence

HEADER = ("Boat", "Length", "Dues per day")
ROWS = (("Dinghy", "under 6 m", "8 euros"), ("Small boat", "6 to 10 m", "12 euros"), ("Yacht", "over 10 m", "30 euros"))
INTRO = "Fictional harbour dues policy for the island ferry port."
ITEMS = ("Pay at the harbour office.", "Keep the receipt on board.")
STEPS = ("Moor at the visitor pontoon.", "Register at the office.")


def make_docx(title: str = "Harbour dues", rows: Sequence[Sequence[str]] = ROWS, paragraphs: int = 0) -> bytes:
    """A DOCX with a title property, a heading, a paragraph, a bulleted and a numbered list, a table (header row
    first; a second table with a cell merged across two columns and one down two rows) and `paragraphs` more."""
    import docx

    document = docx.Document()
    document.core_properties.title = title
    document.core_properties.author = "Harbour office"
    document.add_heading("Harbour dues", level=1)
    document.add_paragraph(INTRO)
    for item in ITEMS:
        document.add_paragraph(item, style="List Bullet")
    for step in STEPS:
        document.add_paragraph(step, style="List Number")
    document.add_heading("Dues by boat", level=2)
    table = document.add_table(rows=1, cols=len(HEADER))
    for cell, text in zip(table.rows[0].cells, HEADER):
        cell.text = text
    for row in rows:
        for cell, text in zip(table.add_row().cells, row):
            cell.text = text
    merged = document.add_table(rows=3, cols=3)
    merged.cell(0, 0).merge(merged.cell(0, 1)).text = "Season"
    merged.cell(0, 2).text = "Office hours"
    for cell, text in zip(merged.rows[1].cells, ("Summer", "June to August", "8 to 20")):
        cell.text = text
    for cell, text in zip(merged.rows[2].cells[1:], ("September", "9 to 18")):
        cell.text = text
    merged.cell(1, 0).merge(merged.cell(2, 0))  # "Summer" spans two rows
    for number in range(paragraphs):
        document.add_paragraph(f"Paragraph {number} of the generated harbour rules says boats keep {number % 50} "
                               "metres from the ferry ramp at all times.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_html(rows: Sequence[Sequence[str]] = ROWS) -> bytes:
    body_rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Harbour dues</title>
<script>var notText = 1;</script></head><body><nav><a href="/">Home</a></nav>
<h1>Harbour dues</h1><p>{INTRO}</p>
<ul>{''.join(f'<li>{i}</li>' for i in ITEMS)}</ul>
<table><thead><tr>{''.join(f'<th>{h}</th>' for h in HEADER)}</tr></thead><tbody>{body_rows}</tbody></table>
</body></html>""".encode()


def make_epub(chapters: Sequence[tuple[str, str]] | None = None, title: str = "Harbour book") -> bytes:
    """An EPUB 3: `mimetype` first and stored, the container, a package with a spine, one XHTML file a chapter."""
    chapters = chapters or [
        ("Arrival", f"<p>{INTRO}</p><ul>{''.join(f'<li>{i}</li>' for i in ITEMS)}</ul>"),
        ("Dues", "<table><tr>" + "".join(f"<th>{h}</th>" for h in HEADER) + "</tr>"
         + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in ROWS) + "</table>"),
    ]
    out = io.BytesIO()
    stamp = (2026, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype", stamp), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr(zipfile.ZipInfo("META-INF/container.xml", stamp),
                         '<?xml version="1.0"?><container version="1.0" '
                         'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
                         '<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
                         '</rootfiles></container>')
        items = "".join(f'<item id="c{n}" href="text/chapter%20{n}.xhtml" media-type="application/xhtml+xml"/>'
                        for n in range(len(chapters)))
        spine = "".join(f'<itemref idref="c{n}"/>' for n in range(len(chapters)))
        archive.writestr(zipfile.ZipInfo("OEBPS/content.opf", stamp),
                         '<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" '
                         'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
                         f'<dc:identifier id="id">harbour</dc:identifier><dc:title>{title}</dc:title>'
                         f'<dc:language>en</dc:language></metadata><manifest>{items}</manifest>'
                         f'<spine>{spine}</spine></package>')
        for n, (heading, body) in enumerate(chapters):
            archive.writestr(zipfile.ZipInfo(f"OEBPS/text/chapter {n}.xhtml", stamp),
                             '<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
                             f'<head><title>{heading}</title></head><body><h1>{heading}</h1>{body}</body></html>')
    return out.getvalue()


def make_xlsx(rows: Sequence[Sequence[object]] | None = None, title: str = "Harbour dues") -> bytes:
    """A workbook: sheet "Dues" (a header row, then rows with a number, a percentage and a date) and sheet "Notes"."""
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.properties.title = title
    sheet = workbook.active
    sheet.title = "Dues"
    sheet.append(["Boat", "Dues per day (euros)", "Discount", "Valid from"])
    for row in rows if rows is not None else (("Dinghy", 8, 0.1, dt.date(2026, 1, 1)),
                                                  ("Small boat", 12, 0.15, dt.date(2026, 1, 1)),
                                                  ("Yacht", 30.5, 0, dt.date(2026, 3, 1))):
        sheet.append(list(row))
    for cell in sheet["C"][1:]:
        cell.number_format = "0%"
    notes = workbook.create_sheet("Notes")
    notes.append([INTRO])
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def make_csv(rows: Sequence[Sequence[str]] = ROWS, delimiter: str = ",") -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    return out.getvalue().encode()


def zip_bomb(kind_marker: str = "word/document.xml", size: int = 200 * 1024 * 1024) -> bytes:
    """A ZIP of the kind's marker part that inflates to `size` bytes (of spaces) from about size/1000 bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open(kind_marker, "w", force_zip64=True) as member:
            chunk = b" " * (1 << 20)
            for _ in range(size >> 20):
                member.write(chunk)
    return out.getvalue()
