"""Neural networks with explicit back-propagation: MLP, CNN, GCN."""
