"""The models that ship inside the repository (nothing is downloaded at run time): their weights' files.

`answer_model.json`: the extractive composer's answer scorer and its threshold (the default `min_support`),
trained by `python -m training.answer_model`. `support_judge.json`: the learned support judge, trained by
`python -m training.support_judge`. `reader-v2.onnx` and its record `reader-v2.json`: the reader, a
cross-encoder fine-tuned from multilingual-e5-small (MIT) by the `training/` package; the record holds its
calibration, the combination that ranks the composer's candidates, thresholds, data hashes and validation curve
(`pipeline.models.reader`).
"""

from pathlib import Path

ANSWER_MODEL = Path(__file__).with_name("answer_model.json")
SUPPORT_JUDGE = Path(__file__).with_name("support_judge.json")
READER = Path(__file__).with_name("reader-v2.onnx")
READER_RECORD = Path(__file__).with_name("reader-v2.json")
