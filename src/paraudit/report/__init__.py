"""The diagnostic report: HTML, Markdown, JSON, CSV, LaTeX and figures, from stored runs."""
