"""``teamai-ref capture``: recording what real agents send their hooks, scrubbed, for the corpus."""
