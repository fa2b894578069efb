"""experiments package (filled by its issue)."""
