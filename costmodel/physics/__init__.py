"""The physics of a training run on a cluster: transformer FLOPs and memory, step time and its collectives,
layouts, topology, rails, media, congestion, reliability and the nccl-tests calibration. Arrays in, arrays
out; no money and no scenario parsing."""
