"""Kernel functions, the Mercer check, kernel ridge and kernel LMS."""

from .functions import (
    exponential_kernel,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
    subset_product_kernel,
    sum_of_powers_kernel,
)
from .kernel_lms import KernelLMS
from .kernel_ridge import KernelRidge
from .pairwise import KERNELS, KernelReport, check_kernel, pairwise_kernels

__all__ = [
    "KERNELS", "KernelLMS", "KernelReport", "KernelRidge", "check_kernel", "exponential_kernel", "laplacian_kernel",
    "linear_kernel", "pairwise_kernels", "polynomial_kernel", "rbf_kernel", "sigmoid_kernel", "subset_product_kernel",
    "sum_of_powers_kernel",
]
