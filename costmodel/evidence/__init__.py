"""The model against published figures: training runs, bandwidth sensitivity, anchors, the seed article's
claims and the economics checks."""
