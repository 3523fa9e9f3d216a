# A typed Cython function, compiled by the package's test to check that
# cythonize and the C extension it builds work.
def fib(int n):
    cdef long a = 0, b = 1
    for _ in range(n):
        a, b = b, a + b
    return a
