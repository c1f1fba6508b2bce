"""The verify stage: replaying a sign-off record from the files it names."""
