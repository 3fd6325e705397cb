"""Motifs from POIMs: candidates, PWM reconstruction, motif files, matches to known motifs."""
