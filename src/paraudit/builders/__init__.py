"""Dataset builders: sources → LLM composition → voicing + QC → dataset folder + card."""
