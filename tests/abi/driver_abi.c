/*
 * tests/abi/driver_abi.c - cuda.h, the driver API's header, built by
 * tests/abi/abi.sh against ours and against the toolkit's: every type
 * and enumerator of ours must be the toolkit's in the debug information
 * (sizes, offsets, values), and the version the same.
 */
#include <stdio.h>

#include <cuda.h>

int main(void)
{
    printf("CUDA_VERSION %d\n", (int)CUDA_VERSION);
    return 0;
}
