"""Audio QC: Praat measurements of renderings against a neutral baseline."""
