"""Jinja2 templates of the generated kernels and op modules."""
