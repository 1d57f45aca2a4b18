/*
 * cuda/include/vector_types.h - CUDA's built-in vector types (int2, float4,
 * ...) and dim3, with the sizes and alignments of CUDA 13.0 on 64-bit
 * Linux.
 *
 * Layout is ABI: these structs travel by value through kernel launches
 * (dim3 in __cudaPushCallConfiguration and cudaLaunchKernel) and inside
 * device memory, so every size and alignment must match the toolkit's;
 * tests/abi/abi.sh checks each one against it.
 *
 * Each type is a struct with members x, y, z, w (as many as its width) and a
 * typedef of the same name. Explicit alignment: the 2-wide types align to
 * their full size, the 4-wide types of 1-, 2- and 4-byte elements too; the
 * 4-wide types of 8-byte elements come in 16- and 32-byte aligned variants
 * (_16a, _32a). The plain long4, ulong4, longlong4, ulonglong4 and double4
 * are deprecated in CUDA 13 (16-byte aligned); define
 * __NV_NO_VECTOR_DEPRECATION_DIAG to silence the warning. 1- and 3-wide
 * types have their element's alignment.
 */
#ifndef P2PSIM_CUDA_INCLUDE_VECTOR_TYPES_H
#define P2PSIM_CUDA_INCLUDE_VECTOR_TYPES_H

#include "host_defines.h"

/* Presence macro, tested by some programs. */
#ifndef __VECTOR_TYPES_H__
#define __VECTOR_TYPES_H__
#endif

#if defined(__NV_NO_VECTOR_DEPRECATION_DIAG)
#define P2PSIM_VECTOR_DEPRECATED(use)
#else
#define P2PSIM_VECTOR_DEPRECATED(use) __attribute__((deprecated("use " use)))
#endif

/*
 * One declaration per type: the struct (with its alignment attribute, if
 * any) and the typedef that lets C code drop the `struct`.
 */
#define P2PSIM_VECTOR1(name, type, attr)                                       \
    struct __device_builtin__ attr name {                                      \
        type x;                                                                \
    };                                                                         \
    typedef struct name name
#define P2PSIM_VECTOR2(name, type, attr)                                       \
    struct __device_builtin__ attr name {                                      \
        type x, y;                                                             \
    };                                                                         \
    typedef struct name name
#define P2PSIM_VECTOR3(name, type, attr)                                       \
    struct __device_builtin__ attr name {                                      \
        type x, y, z;                                                          \
    };                                                                         \
    typedef struct name name
#define P2PSIM_VECTOR4(name, type, attr)                                       \
    struct __device_builtin__ attr name {                                      \
        type x, y, z, w;                                                       \
    };                                                                         \
    typedef struct name name

#define P2PSIM_NOALIGN

/* 1-byte elements */
P2PSIM_VECTOR1(char1, signed char, P2PSIM_NOALIGN);
P2PSIM_VECTOR1(uchar1, unsigned char, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(char2, signed char, __align__(2));
P2PSIM_VECTOR2(uchar2, unsigned char, __align__(2));
P2PSIM_VECTOR3(char3, signed char, P2PSIM_NOALIGN);
P2PSIM_VECTOR3(uchar3, unsigned char, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(char4, signed char, __align__(4));
P2PSIM_VECTOR4(uchar4, unsigned char, __align__(4));

/* 2-byte elements */
P2PSIM_VECTOR1(short1, short, P2PSIM_NOALIGN);
P2PSIM_VECTOR1(ushort1, unsigned short, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(short2, short, __align__(4));
P2PSIM_VECTOR2(ushort2, unsigned short, __align__(4));
P2PSIM_VECTOR3(short3, short, P2PSIM_NOALIGN);
P2PSIM_VECTOR3(ushort3, unsigned short, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(short4, short, __align__(8));
P2PSIM_VECTOR4(ushort4, unsigned short, __align__(8));

/* 4-byte integers */
P2PSIM_VECTOR1(int1, int, P2PSIM_NOALIGN);
P2PSIM_VECTOR1(uint1, unsigned int, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(int2, int, __align__(8));
P2PSIM_VECTOR2(uint2, unsigned int, __align__(8));
P2PSIM_VECTOR3(int3, int, P2PSIM_NOALIGN);
P2PSIM_VECTOR3(uint3, unsigned int, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(int4, int, __builtin_align__(16));
P2PSIM_VECTOR4(uint4, unsigned int, __builtin_align__(16));

/* long (8 bytes on LP64 Linux) */
P2PSIM_VECTOR1(long1, long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR1(ulong1, unsigned long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(long2, long int, __align__(2 * sizeof(long int)));
P2PSIM_VECTOR2(ulong2, unsigned long int,
               __align__(2 * sizeof(unsigned long int)));
P2PSIM_VECTOR3(long3, long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR3(ulong3, unsigned long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(long4_16a, long int, __builtin_align__(16));
P2PSIM_VECTOR4(ulong4_16a, unsigned long int, __builtin_align__(16));
P2PSIM_VECTOR4(long4_32a, long int, __builtin_align__(32));
P2PSIM_VECTOR4(ulong4_32a, unsigned long int, __builtin_align__(32));

/* float */
P2PSIM_VECTOR1(float1, float, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(float2, float, __align__(8));
P2PSIM_VECTOR3(float3, float, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(float4, float, __builtin_align__(16));

/* long long */
P2PSIM_VECTOR1(longlong1, long long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR1(ulonglong1, unsigned long long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(longlong2, long long int, __builtin_align__(16));
P2PSIM_VECTOR2(ulonglong2, unsigned long long int, __builtin_align__(16));
P2PSIM_VECTOR3(longlong3, long long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR3(ulonglong3, unsigned long long int, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(longlong4_16a, long long int, __builtin_align__(16));
P2PSIM_VECTOR4(ulonglong4_16a, unsigned long long int, __builtin_align__(16));
P2PSIM_VECTOR4(longlong4_32a, long long int, __builtin_align__(32));
P2PSIM_VECTOR4(ulonglong4_32a, unsigned long long int, __builtin_align__(32));

/* double */
P2PSIM_VECTOR1(double1, double, P2PSIM_NOALIGN);
P2PSIM_VECTOR2(double2, double, __builtin_align__(16));
P2PSIM_VECTOR3(double3, double, P2PSIM_NOALIGN);
P2PSIM_VECTOR4(double4_16a, double, __builtin_align__(16));
P2PSIM_VECTOR4(double4_32a, double, __builtin_align__(32));

/*
 * The deprecated 4-wide types of 8-byte elements (16-byte aligned). The
 * attribute sits on the struct and on the typedef; declaring the typedef
 * names the deprecated struct, so that one line is exempt from the warning.
 */
#define P2PSIM_VECTOR4_DEPRECATED(name, type, use)                             \
    struct P2PSIM_VECTOR_DEPRECATED(use) __device_builtin__                    \
        __builtin_align__(16) name {                                           \
        type x, y, z, w;                                                       \
    };                                                                         \
    _Pragma("GCC diagnostic push")                                             \
    _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")            \
    typedef struct name P2PSIM_VECTOR_DEPRECATED(use) name;                    \
    _Pragma("GCC diagnostic pop")

P2PSIM_VECTOR4_DEPRECATED(long4, long int, "long4_16a or long4_32a")
P2PSIM_VECTOR4_DEPRECATED(ulong4, unsigned long int, "ulong4_16a or ulong4_32a")
P2PSIM_VECTOR4_DEPRECATED(longlong4, long long int,
                          "longlong4_16a or longlong4_32a")
P2PSIM_VECTOR4_DEPRECATED(ulonglong4, unsigned long long int,
                          "ulonglong4_16a or ulonglong4_32a")
P2PSIM_VECTOR4_DEPRECATED(double4, double, "double4_16a or double4_32a")

#undef P2PSIM_VECTOR1
#undef P2PSIM_VECTOR2
#undef P2PSIM_VECTOR3
#undef P2PSIM_VECTOR4
#undef P2PSIM_VECTOR4_DEPRECATED
#undef P2PSIM_NOALIGN

/*
 * dim3: grid and block extents, 12 bytes, passed by value. In C++ an
 * omitted extent is 1 (dim3(256) is 256 x 1 x 1), and a dim3 converts to
 * and from uint3.
 */
struct __device_builtin__ dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
#if __cplusplus >= 201103L
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                       unsigned int vz = 1)
        : x(vx), y(vy), z(vz)
    {
    }
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3(void) const
    {
        return uint3{x, y, z};
    }
#else
    __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1,
                             unsigned int vz = 1)
        : x(vx), y(vy), z(vz)
    {
    }
    __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ operator uint3(void) const
    {
        uint3 u;
        u.x = x;
        u.y = y;
        u.z = z;
        return u;
    }
#endif
#endif /* __cplusplus */
};
typedef struct dim3 dim3;

#endif /* P2PSIM_CUDA_INCLUDE_VECTOR_TYPES_H */
