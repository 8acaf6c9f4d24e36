"""Kernel functions, the Mercer check, kernel ridge and kernel LMS."""
