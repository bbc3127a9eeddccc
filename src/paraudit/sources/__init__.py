"""Text sources of counterfactual items (the starter set ships inside the package)."""
