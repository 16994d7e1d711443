"""The intrusion models' trainers."""
