"""The structure of extracted text, language aside: table rows and their headers, footnote marks, and the evidence
units (sentences, list items, rows, code) a packed source reads as."""
