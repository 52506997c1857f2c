"""Embedders: texts → vectors (`pipeline.core.interfaces.Embedder`), each one class plus one registration."""
