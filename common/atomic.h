/*
 * common/atomic.h - the arithmetic of GPU atomics (PTX atom/red, CUDA
 * atomicX, PCIe AtomicOps): the value a read-modify-write leaves in a
 * location. One implementation for the SM model (models/gpu/), the PTX
 * interpreter (ptx/) and the PCIe AtomicOp completers (models/pcie/).
 * Pure arithmetic on raw bits: no memory, no ordering, no scope.
 *
 * The rules, and where they come from (the PTX ISA, "atom" and "red",
 * and for float min/max its "min"/"max" instructions):
 *  - Integers wrap at the type's width. min/max compare signed for s32
 *    and s64, unsigned for b32, u32, b64, u64.
 *  - inc: old >= b ? 0 : old + 1; dec: old == 0 || old > b ? b : old - 1
 *    (unsigned, the PTX ISA's definitions; CUDA's atomicInc/atomicDec).
 *  - cas: compare == old ? operand : old; exch: operand.
 *  - add.f32 / add.f64: IEEE 754 addition rounded to nearest even; a NaN
 *    operand gives a NaN (the host's add, so its payload rule).
 *    Simplification: the PTX ISA says the current hardware flushes
 *    subnormal inputs and results of atom.add.f32 on global memory to
 *    zero; here subnormals are kept in every space.
 *  - min/max on f32/f64 (as PTX min/max.f32): one NaN operand gives the
 *    other operand; two NaNs give the canonical NaN (0x7fffffff; for f64,
 *    by analogy, 0x7fffffffffffffff); -0 counts as less than +0.
 */
#ifndef P2PSIM_COMMON_ATOMIC_H
#define P2PSIM_COMMON_ATOMIC_H

#include <stdint.h>

enum atom_op {
    ATOM_ADD, ATOM_SUB, ATOM_EXCH, ATOM_CAS, ATOM_MIN, ATOM_MAX,
    ATOM_INC, ATOM_DEC, ATOM_AND, ATOM_OR, ATOM_XOR,
};

/* The operand type: its width, and how min, max and add read the bits. */
enum atom_type {
    ATOM_B32, ATOM_U32, ATOM_S32, ATOM_F32,
    ATOM_B64, ATOM_U64, ATOM_S64, ATOM_F64,
};

#define ATOM_F32_CANONICAL_NAN UINT32_C(0x7fffffff)
#define ATOM_F64_CANONICAL_NAN UINT64_C(0x7fffffffffffffff)

/* 4 or 8. */
unsigned atom_type_bytes(enum atom_type type);

/*
 * The new value of a location that held old. Values are raw bits of the
 * type in the low 4 or 8 bytes (higher bits of the arguments are
 * ignored; the result has none). compare is used by ATOM_CAS only. An op
 * outside the enum leaves old.
 */
uint64_t atom_apply(enum atom_op op, enum atom_type type, uint64_t old,
                    uint64_t operand, uint64_t compare);

#endif
