"""data package (filled by its issue)."""
