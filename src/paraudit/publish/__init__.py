"""Audits others can read, check and gate on: audit cards (Markdown + JSON, an Every Eval Ever
record, a Hugging Face `eval_results` entry, an in-toto Statement), their verification, and
the CI gate's rule language. Reads run folders and the statistics; nothing below imports it."""
