"""The corpus as data: reading and writing scenarios, their schema, the clause catalogue, the
levels an expectation is judged at, selection, lint, and the checks that every case can fail."""
