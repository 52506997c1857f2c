"""Documents kept on disk: the persistent store the CLI ingests into, the shared library under DATA_DIR, and
replacing a document by a new version."""
