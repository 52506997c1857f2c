"""Vector stores: passage vectors by content key (`pipeline.core.interfaces.VectorStore`), a cache, never the only
copy of a document."""
