"""Index (journey steps chunk and index): documents → addressed chunks with BM25 statistics and dense vectors, a
`Corpus` ready to query; embedders and vector stores are families of parts (`index.embedders`, `index.stores`)."""
