"""Highlights: the cited span on a PDF page image or in a text document as HTML."""
