"""The default producer: exact copies of packed evidence units, scored by a small learned model, cited."""
