"""Audio primitives shared by rendering and QC: clips in memory and as WAV bytes, resampling,
pitch tracking helpers. Below both render and qc, so neither has to import the other for them."""
