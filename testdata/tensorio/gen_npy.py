#!/usr/bin/python3
"""Writes the .npy files tensorio's tests read, with numpy itself.

Every array holds the values the Go tests recompute (see npy_test.go):
element i (row-major, C order) of a real float array is 1.5*i - 2; a
complex one has imaginary part -0.5*i; signed integers are 7*i - 5,
unsigned 7*i, bools i % 3 == 0. Run it from this directory:
    /usr/bin/python3 gen_npy.py
"""
import numpy as np
from numpy.lib import format as npf


def values(dtype, shape):
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        a = i % 3 == 0
    elif dt.kind == "c":
        a = (1.5 * i - 2) + 1j * (-0.5 * i)
    elif dt.kind == "f":
        a = 1.5 * i - 2
    elif dt.kind == "i":
        a = 7 * i - 5
    else:
        a = 7 * i
    return a.astype(dtype).reshape(shape)


def save(name, dtype, shape=(2, 3), order="C", version=None):
    a = values(dtype, shape)
    if order == "F":
        a = np.asfortranarray(a)
    with open(name, "wb") as f:
        npf.write_array(f, a, version=version)


for code in ["<f2", "<f4", "<f8", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "|b1", "<c8", "<c16"]:
    save(code[1:] + ".npy", code)
for code in [">f2", ">f4", ">f8", ">u2", ">i8", ">c8", ">c16"]:
    save("be_" + code[1:] + ".npy", code)
save("fortran_f8.npy", "<f8", order="F")
save("fortran_i4_3d.npy", "<i4", shape=(2, 3, 4), order="F")
save("fortran_be_c8_3d.npy", ">c8", shape=(3, 1, 2), order="F")
save("v2_f4.npy", "<f4", version=(2, 0))
save("v3_i2.npy", "<i2", version=(3, 0))
save("scalar_f8.npy", "<f8", shape=())
save("empty_f4.npy", "<f4", shape=(0, 3))
save("vec_u1.npy", "|u1", shape=(5,))
