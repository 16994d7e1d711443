"""The ordering heads' trainer and the modules it shares with the reader's scripts."""
