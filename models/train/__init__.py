"""The training scripts (see README.md), run from the repository root as modules:
`python -m models.train.ordering.train`."""
