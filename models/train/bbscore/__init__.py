"""BBScore's trainer and evaluation (run.sh runs them in order)."""
