"""figures package (filled by its issue)."""
