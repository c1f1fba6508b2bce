"""The report stage: each design's report as data (JSON), Markdown and plain-text lines."""
