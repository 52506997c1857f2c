"""Ingest (journey steps parse and metadata): a file's bytes → a Document of exact, addressable lines with validated
metadata (front matter, a sidecar, or the upload form). File types are a family of parsers (`ingest.parsers`)."""
