/*
 * cuda/cudart/error.c - the CUDA shim's error model: one table of every
 * cudaError_t value (identifier, description, stickiness), the per-thread
 * last error and the process-wide sticky error.
 *
 * The values come from cuda/include/driver_types.h (the single source of
 * the codes); the names are the enumerators stringified, so a name cannot
 * drift from its value. The descriptions are p2psim's own words, written
 * for someone debugging a multi-GPU program; they are not NVIDIA's strings
 * (programs print them, none compares them).
 *
 * Sticky codes are those shared/reference/cuda-api.md §2.1 lists (and
 * driver_types.h marks "sticky"): after one of them the process's CUDA
 * state is lost and every later call returns it.
 *
 * Model: one runtime instance per process, so "per thread, per runtime
 * instance" (§2.1) is simply per thread. Not modelled: the real runtime's
 * failing lazy initialisation, which makes every call (cudaGetLastError
 * included) return cudaErrorInsufficientDriver again; the shim's init code
 * can get the same by recording that code on every call.
 */
#include <config.h>

#include "cuda/cudart/error.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cuda/include/driver_types.h"

/* E(identifier, sticky, description), in ascending value order. */
#define CUDART_ERROR_TABLE(E) \
    E(cudaSuccess, false, "no error: the call did what was asked") \
    E(cudaErrorInvalidValue, false, \
      "an argument is out of range or a required pointer is NULL") \
    E(cudaErrorMemoryAllocation, false, \
      "the simulated GPU or host could not provide the requested memory") \
    E(cudaErrorInitializationError, false, \
      "the runtime could not set itself up") \
    E(cudaErrorCudartUnloading, false, \
      "the runtime is being torn down at process exit") \
    E(cudaErrorProfilerDisabled, false, \
      "profiler calls are ignored because no profiler is attached") \
    E(cudaErrorProfilerNotInitialized, false, \
      "obsolete: the profiler was used before being set up") \
    E(cudaErrorProfilerAlreadyStarted, false, \
      "obsolete: profiling was started twice") \
    E(cudaErrorProfilerAlreadyStopped, false, \
      "obsolete: profiling was stopped twice") \
    E(cudaErrorInvalidConfiguration, false, \
      "the launch's grid, block or shared-memory size cannot run") \
    E(cudaErrorInvalidPitchValue, false, \
      "a row pitch is too large or not aligned") \
    E(cudaErrorInvalidSymbol, false, \
      "the address given is not a registered device symbol") \
    E(cudaErrorInvalidHostPointer, false, \
      "obsolete: the host pointer is not valid for this call") \
    E(cudaErrorInvalidDevicePointer, false, \
      "obsolete: the device pointer is not valid for this call") \
    E(cudaErrorInvalidTexture, false, "the texture object is not valid") \
    E(cudaErrorInvalidTextureBinding, false, \
      "the texture is not bound to memory") \
    E(cudaErrorInvalidChannelDescriptor, false, \
      "the channel format does not describe a usable element type") \
    E(cudaErrorInvalidMemcpyDirection, false, \
      "the copy kind does not name a known direction") \
    E(cudaErrorAddressOfConstant, false, \
      "obsolete: __constant__ memory has no address to take") \
    E(cudaErrorTextureFetchFailed, false, "obsolete: a texture read failed") \
    E(cudaErrorTextureNotBound, false, \
      "obsolete: a texture was read while unbound") \
    E(cudaErrorSynchronizationError, false, \
      "obsolete: a synchronisation step failed") \
    E(cudaErrorInvalidFilterSetting, false, \
      "the texture filter mode does not suit the element type") \
    E(cudaErrorInvalidNormSetting, false, \
      "normalised reads are not possible for this element type") \
    E(cudaErrorMixedDeviceExecution, false, \
      "obsolete: device and emulated code were mixed") \
    E(cudaErrorNotYetImplemented, false, \
      "obsolete: the feature is not implemented") \
    E(cudaErrorMemoryValueTooLarge, false, \
      "obsolete: a value does not fit in device memory limits") \
    E(cudaErrorStubLibrary, false, \
      "the loaded driver is a link-time stub, not a working driver") \
    E(cudaErrorInsufficientDriver, false, \
      "the GPU driver is missing or older than this runtime needs") \
    E(cudaErrorCallRequiresNewerDriver, false, \
      "this call needs a newer GPU driver than the one loaded") \
    E(cudaErrorInvalidSurface, false, "the surface object is not valid") \
    E(cudaErrorDuplicateVariableName, false, \
      "two device variables were registered under one name") \
    E(cudaErrorDuplicateTextureName, false, \
      "two textures were registered under one name") \
    E(cudaErrorDuplicateSurfaceName, false, \
      "two surfaces were registered under one name") \
    E(cudaErrorDevicesUnavailable, false, \
      "every GPU is busy or reserved by another process") \
    E(cudaErrorIncompatibleDriverContext, false, \
      "the current driver context cannot be used by the runtime") \
    E(cudaErrorMissingConfiguration, false, \
      "a kernel was launched without a launch configuration") \
    E(cudaErrorPriorLaunchFailure, false, \
      "obsolete: an earlier launch had already failed") \
    E(cudaErrorLaunchMaxDepthExceeded, false, \
      "device-side launches are nested too deeply") \
    E(cudaErrorLaunchFileScopedTex, false, \
      "a device-side launch uses a file-scope texture") \
    E(cudaErrorLaunchFileScopedSurf, false, \
      "a device-side launch uses a file-scope surface") \
    E(cudaErrorSyncDepthExceeded, false, \
      "device-side synchronisation is nested too deeply") \
    E(cudaErrorLaunchPendingCountExceeded, false, \
      "too many device-side launches are waiting to run") \
    E(cudaErrorInvalidDeviceFunction, false, \
      "the function is not a kernel registered for this device") \
    E(cudaErrorNoDevice, false, "the machine has no usable GPU") \
    E(cudaErrorInvalidDevice, false, \
      "the device number names no GPU of this machine") \
    E(cudaErrorDeviceNotLicensed, false, \
      "the GPU lacks a licence for this operation") \
    E(cudaErrorSoftwareValidityNotEstablished, false, \
      "the runtime failed its self-check at start-up") \
    E(cudaErrorStartupFailure, false, "the runtime failed to start") \
    E(cudaErrorInvalidKernelImage, false, \
      "the embedded device code is corrupt or malformed") \
    E(cudaErrorDeviceUninitialized, false, \
      "no valid context exists for the device (or it was destroyed)") \
    E(cudaErrorMapBufferObjectFailed, false, \
      "a graphics buffer could not be mapped") \
    E(cudaErrorUnmapBufferObjectFailed, false, \
      "a graphics buffer could not be unmapped") \
    E(cudaErrorArrayIsMapped, false, \
      "the array is mapped and cannot be destroyed") \
    E(cudaErrorAlreadyMapped, false, "the resource is mapped already") \
    E(cudaErrorNoKernelImageForDevice, false, \
      "the program carries no code this GPU's architecture can run") \
    E(cudaErrorAlreadyAcquired, false, "the resource is acquired already") \
    E(cudaErrorNotMapped, false, "the resource is not mapped") \
    E(cudaErrorNotMappedAsArray, false, \
      "the resource is not mapped as an array") \
    E(cudaErrorNotMappedAsPointer, false, \
      "the resource is not mapped as a pointer") \
    E(cudaErrorECCUncorrectable, false, \
      "GPU memory reported an error that ECC could not repair") \
    E(cudaErrorUnsupportedLimit, false, \
      "the device does not support this resource limit") \
    E(cudaErrorDeviceAlreadyInUse, false, \
      "another thread holds the GPU exclusively") \
    E(cudaErrorPeerAccessUnsupported, false, \
      "these two GPUs cannot reach each other's memory directly") \
    E(cudaErrorInvalidPtx, false, "compiling the PTX for this GPU failed") \
    E(cudaErrorInvalidGraphicsContext, false, \
      "the graphics interop context is not valid") \
    E(cudaErrorNvlinkUncorrectable, false, \
      "an NVLink reported an error it could not correct") \
    E(cudaErrorJitCompilerNotFound, false, \
      "the PTX just-in-time compiler is not installed") \
    E(cudaErrorUnsupportedPtxVersion, false, \
      "the PTX comes from a newer toolchain than this driver knows") \
    E(cudaErrorJitCompilationDisabled, false, \
      "just-in-time compilation of PTX is switched off") \
    E(cudaErrorUnsupportedExecAffinity, false, \
      "the requested execution affinity is not supported") \
    E(cudaErrorUnsupportedDevSideSync, false, \
      "the kernel calls device-side synchronisation, which is unsupported") \
    E(cudaErrorContained, true, \
      "a device error was contained; the process's CUDA state is lost") \
    E(cudaErrorInvalidSource, false, "the device source code is invalid") \
    E(cudaErrorFileNotFound, false, "a file the call needs does not exist") \
    E(cudaErrorSharedObjectSymbolNotFound, false, \
      "a symbol was missing from a shared object") \
    E(cudaErrorSharedObjectInitFailed, false, \
      "a shared object failed to initialise") \
    E(cudaErrorOperatingSystem, false, "an operating-system call failed") \
    E(cudaErrorInvalidResourceHandle, false, \
      "the stream, event or other handle is not valid here") \
    E(cudaErrorIllegalState, false, \
      "the object is in a state that does not allow this call") \
    E(cudaErrorLossyQuery, false, \
      "the answer would lose information in the requested form") \
    E(cudaErrorSymbolNotFound, false, "no symbol of that name was found") \
    E(cudaErrorNotReady, false, \
      "the queued work has not finished yet (not a failure)") \
    E(cudaErrorIllegalAddress, true, \
      "a kernel or a copy touched an address it may not use (for " \
      "example a peer GPU's memory without peer access, or a read the " \
      "fabric refused); the process's CUDA state is lost") \
    E(cudaErrorLaunchOutOfResources, false, \
      "the launch needs more registers or threads than a block can have") \
    E(cudaErrorLaunchTimeout, true, \
      "a kernel ran past the watchdog limit; the process's CUDA state is " \
      "lost") \
    E(cudaErrorLaunchIncompatibleTexturing, false, \
      "the kernel uses textures in a way the launch does not allow") \
    E(cudaErrorPeerAccessAlreadyEnabled, false, \
      "peer access from the current GPU to that GPU is on already") \
    E(cudaErrorPeerAccessNotEnabled, false, \
      "peer access from the current GPU to that GPU was never enabled") \
    E(cudaErrorSetOnActiveProcess, false, \
      "device flags cannot change once the device is in use") \
    E(cudaErrorContextIsDestroyed, false, \
      "the context this call refers to was destroyed") \
    E(cudaErrorAssert, true, \
      "a device-side assert failed; the process's CUDA state is lost") \
    E(cudaErrorTooManyPeers, false, \
      "the GPU has no room for another peer mapping") \
    E(cudaErrorHostMemoryAlreadyRegistered, false, \
      "some of this host range is registered (pinned) already") \
    E(cudaErrorHostMemoryNotRegistered, false, \
      "this host pointer is not the start of a registered range") \
    E(cudaErrorHardwareStackError, true, \
      "a kernel overflowed or corrupted its call stack; the process's " \
      "CUDA state is lost") \
    E(cudaErrorIllegalInstruction, true, \
      "a kernel executed an invalid instruction; the process's CUDA " \
      "state is lost") \
    E(cudaErrorMisalignedAddress, true, \
      "a kernel accessed memory at a misaligned address; the process's " \
      "CUDA state is lost") \
    E(cudaErrorInvalidAddressSpace, true, \
      "a kernel used an address outside the space its instruction " \
      "expects; the process's CUDA state is lost") \
    E(cudaErrorInvalidPc, true, \
      "a kernel jumped to an invalid program counter; the process's CUDA " \
      "state is lost") \
    E(cudaErrorLaunchFailure, true, \
      "a kernel failed for an unspecified reason; the process's CUDA " \
      "state is lost") \
    E(cudaErrorCooperativeLaunchTooLarge, false, \
      "a cooperative launch asks for more blocks than can run at once") \
    E(cudaErrorTensorMemoryLeak, true, \
      "a kernel exited without releasing its tensor memory; the " \
      "process's CUDA state is lost") \
    E(cudaErrorNotPermitted, false, \
      "the operation is not allowed in this situation") \
    E(cudaErrorNotSupported, false, \
      "this GPU or system does not support the operation") \
    E(cudaErrorSystemNotReady, false, \
      "system services the GPUs need are not running yet") \
    E(cudaErrorSystemDriverMismatch, false, \
      "the driver's kernel module and user library versions differ") \
    E(cudaErrorCompatNotSupportedOnDevice, false, \
      "forward-compatibility mode is not available on this GPU") \
    E(cudaErrorMpsConnectionFailed, false, \
      "the MPS server could not be reached") \
    E(cudaErrorMpsRpcFailure, false, "a call to the MPS server failed") \
    E(cudaErrorMpsServerNotReady, false, \
      "the MPS server is not ready to take clients") \
    E(cudaErrorMpsMaxClientsReached, false, \
      "the MPS server has its maximum number of clients") \
    E(cudaErrorMpsMaxConnectionsReached, false, \
      "the MPS server has its maximum number of connections") \
    E(cudaErrorMpsClientTerminated, true, \
      "the MPS server ended this client; the process's CUDA state is " \
      "lost") \
    E(cudaErrorCdpNotSupported, false, \
      "device-side launches are not supported here") \
    E(cudaErrorCdpVersionMismatch, false, \
      "device-side launch code was built for another interface version") \
    E(cudaErrorStreamCaptureUnsupported, false, \
      "the call is not allowed while the stream is being captured") \
    E(cudaErrorStreamCaptureInvalidated, false, \
      "an earlier error spoiled the stream capture") \
    E(cudaErrorStreamCaptureMerge, false, \
      "two separate captures would have to merge") \
    E(cudaErrorStreamCaptureUnmatched, false, \
      "the capture was not started in this stream") \
    E(cudaErrorStreamCaptureUnjoined, false, \
      "a stream forked from the capture never joined back") \
    E(cudaErrorStreamCaptureIsolation, false, \
      "the dependency would cross a capture boundary") \
    E(cudaErrorStreamCaptureImplicit, false, \
      "the call would synchronise implicitly with a captured stream") \
    E(cudaErrorCapturedEvent, false, \
      "the event was recorded during a capture and cannot be used so") \
    E(cudaErrorStreamCaptureWrongThread, false, \
      "the capture was ended from a thread that did not start it") \
    E(cudaErrorTimeout, false, "a wait ran out of time") \
    E(cudaErrorGraphExecUpdateFailure, false, \
      "the executable graph could not take the requested update") \
    E(cudaErrorExternalDevice, true, \
      "a device outside the GPU raised an error; the process's CUDA state " \
      "is lost") \
    E(cudaErrorInvalidClusterSize, false, \
      "the thread-block cluster size is not valid") \
    E(cudaErrorFunctionNotLoaded, false, \
      "the kernel's code has not been loaded yet") \
    E(cudaErrorInvalidResourceType, false, \
      "the resource is of the wrong type for this call") \
    E(cudaErrorInvalidResourceConfiguration, false, \
      "the resources requested do not form a valid configuration") \
    E(cudaErrorUnknown, false, "something failed for an unknown reason") \
    E(cudaErrorApiFailureBase, false, \
      "base of the range of codes reserved for API failures")

struct cudart_error_entry {
    int code;
    const char *name;
    const char *desc;
    bool sticky;
};

#define CUDART_ERROR_ENTRY(id, st, d) {(int)(id), #id, d, st},

static const struct cudart_error_entry cudart_errors[] = {
    CUDART_ERROR_TABLE(CUDART_ERROR_ENTRY)};

#define CUDART_N_ERRORS (sizeof cudart_errors / sizeof cudart_errors[0])

/*
 * The last error of this thread, valid only while last_epoch equals
 * cudart_epoch: cudart_error_reset_for_tests() bumps the epoch, which
 * forgets every thread's last error without touching other threads'
 * storage.
 */
static _Thread_local int last_error;
static _Thread_local unsigned last_epoch;
static atomic_uint cudart_epoch;
static atomic_int cudart_sticky;

/* Binary search: the table is in ascending order (checked by the tests). */
static const struct cudart_error_entry *find(int code)
{
    size_t lo = 0, hi = CUDART_N_ERRORS;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cudart_errors[mid].code == code) {
            return &cudart_errors[mid];
        }
        if (cudart_errors[mid].code < code) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

const char *cudart_error_name(int code)
{
    const struct cudart_error_entry *e = find(code);
    return e != NULL ? e->name : CUDART_ERROR_UNRECOGNIZED;
}

const char *cudart_error_string(int code)
{
    const struct cudart_error_entry *e = find(code);
    return e != NULL ? e->desc : CUDART_ERROR_UNRECOGNIZED;
}

bool cudart_error_is_known(int code)
{
    return find(code) != NULL;
}

bool cudart_error_is_sticky(int code)
{
    const struct cudart_error_entry *e = find(code);
    return e != NULL && e->sticky;
}

size_t cudart_error_count(void)
{
    return CUDART_N_ERRORS;
}

int cudart_error_code_at(size_t i)
{
    return i < CUDART_N_ERRORS ? cudart_errors[i].code : -1;
}

/* This thread's last error, 0 if a reset happened since it was stored. */
static int thread_last(void)
{
    unsigned epoch = atomic_load_explicit(&cudart_epoch, memory_order_acquire);
    return last_epoch == epoch ? last_error : 0;
}

static void thread_set_last(int code)
{
    last_epoch = atomic_load_explicit(&cudart_epoch, memory_order_acquire);
    last_error = code;
}

void cudart_error_record(int code)
{
    /* Success never clears; NotReady is a status, not a failure (H200:
     * cudaStreamQuery returned 600 and cudaGetLastError then 0). */
    if (code == cudaSuccess || code == cudaErrorNotReady) {
        return;
    }
    thread_set_last(code);
    if (cudart_error_is_sticky(code)) {
        int none = 0;
        /* The first sticky error is the one every later call reports. */
        atomic_compare_exchange_strong(&cudart_sticky, &none, code);
    }
}

int cudart_error_return(int code)
{
    cudart_error_record(code);
    return code;
}

int cudart_error_get_last(void)
{
    int sticky = cudart_error_sticky();
    int code = thread_last();

    thread_set_last(0);
    return sticky != 0 ? sticky : code;
}

int cudart_error_peek_last(void)
{
    int sticky = cudart_error_sticky();
    return sticky != 0 ? sticky : thread_last();
}

int cudart_error_sticky(void)
{
    return atomic_load_explicit(&cudart_sticky, memory_order_acquire);
}

void cudart_error_reset_for_tests(void)
{
    atomic_store(&cudart_sticky, 0);
    atomic_fetch_add(&cudart_epoch, 1);
    thread_set_last(0);
}
