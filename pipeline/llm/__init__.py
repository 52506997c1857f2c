"""The language-model client both the model generator and the model judge ask through (no stage of its own)."""
