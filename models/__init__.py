"""Segue's models: what is shipped (under ordering/, bbscore/, …), how it is exported (export/)
and trained (train/). A package only so that the training scripts can import each other when run
from the repository root as `python -m models.train.…`."""
