"""The paragraph reader's fine-tuning, compression and tuning scripts (README.md)."""
