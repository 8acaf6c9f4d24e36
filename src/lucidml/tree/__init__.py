"""Decision trees (CART) with pre- and post-pruning."""
