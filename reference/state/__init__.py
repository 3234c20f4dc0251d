"""The local state: the recall log, the votes ledger and its file, the per-session upvote ledger,
retention, the one clock, and the one way all of them are written."""
