"""RNG-Bench: Matching Pairs (``pairs``) and the 3D egocentric maze (``maze``), with the metric
helpers both share (``stats``) and the paper preset (``paper``)."""
