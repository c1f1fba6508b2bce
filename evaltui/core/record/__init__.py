"""The record stage: the reviewer's journal and its lock (`journal`), opening a review
(`session`), and the sign-off records with their Markdown.
"""
