"""The Textual review app. Thin: it shows core results and sends reviewer actions to core."""
