"""What a run reports: the terminal summary, JSON lines (the source of every other view), JUnit,
the results page, and why a case failed.

One owner each (kept here as well, since ``html.py`` is near the length limit):

- ``jsonl.py``: the JSON-lines format, the source every other view could be rebuilt from; fields
  are only ever added, so old reports stay readable, and a long observed log keeps its ends with
  ``log_omitted`` counting the middle.
- ``model.py``: the page's numbers, all counts of case lines: totals, clause x implementation and
  agent x event counts (one column per report), the area x implementation summary, the level
  totals, not-applicable by reason, and the decisions cited with their alternatives.
- ``diff.py``: expected against observed as lines (JSON without the commas that end its items, so
  an added item is one line).
- ``html.py``: one self-contained page (style and script inlined from ``html.css`` and ``html.js``;
  no network), carrying the compact data every view needs (``page_data``: a case as a short
  array, a result as a code) and the drill-down of only the cases some column does not plainly
  pass, cut to ``LIMITS`` and gzipped (``pack``/``unpack``). ``html.js`` draws the matrices and the
  case list from that data, so they follow the filters, and keeps the filters and an open case in
  the URL's hash. ``tests/conformance/test_report_page.py`` holds the page of three implementations
  over the whole corpus under 2 MB (``tests/conformance/report_runs.three_implementations`` writes
  those reports without a run).
- ``junit.py``: what fails CI, only the levels a case is held to (``CaseResult.held``).
- ``terminal.py``: the report a person reads, and the progress line.
- ``explain.py``: why a case failed; ``explain_text.py``: that in the terminal, and which clause a
  failing case counts under in every roll-up (``blame``).
"""
