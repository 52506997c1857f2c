"""The models that ship inside the repository (nothing is downloaded at run time): their weights' files.

`answer_model.json`: the extractive composer's answer scorer and its threshold (the default `min_support`),
trained by `scripts/train_answer_model.py`. `support_judge.json`: the learned support judge, trained by
`python -m pipeline.evaluate.train_judge`.
"""

from pathlib import Path

ANSWER_MODEL = Path(__file__).with_name("answer_model.json")
SUPPORT_JUDGE = Path(__file__).with_name("support_judge.json")
