# Included after every project() of the cuda-samples (CMAKE_PROJECT_INCLUDE),
# so that the samples build unpatched for p2psim's PTX interpreter.
# Each sample sets CMAKE_CUDA_ARCHITECTURES itself, to real architectures
# that would run ptxas for each; at the end of the sample's directory every
# target is reset to the one architecture of P2PSIM_REAL_ARCH (PTX only,
# default 75-virtual).  With P2PSIM_REAL_RDC OFF (ON by default: as the
# samples' CMakeLists.txt say) separable compilation (-rdc=true), which 175
# samples ask for, is turned off for every target.
if(NOT DEFINED P2PSIM_REAL_ARCH)
  set(P2PSIM_REAL_ARCH 75-virtual)
endif()
if(NOT DEFINED P2PSIM_REAL_RDC)
  set(P2PSIM_REAL_RDC ON)
endif()
function(p2psim_real_ptx_only)
  get_property(targets DIRECTORY PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    if(NOT type STREQUAL "UTILITY" AND NOT type STREQUAL "INTERFACE_LIBRARY")
      set_target_properties(${t} PROPERTIES CUDA_ARCHITECTURES "${P2PSIM_REAL_ARCH}")
      if(NOT P2PSIM_REAL_RDC)
        set_target_properties(${t} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
      endif()
    endif()
  endforeach()
endfunction()
cmake_language(DEFER CALL p2psim_real_ptx_only)
