"""What a run reports: the terminal summary, JSON lines (the source of every other view), JUnit,
the results page, and why a case failed."""
