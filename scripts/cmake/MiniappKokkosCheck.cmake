# miniapp_require_parallel_kokkos(): stop configuring when Kokkos has no parallel host backend.
#
# Debian 12's libtrilinos-kokkos-dev is built with the Serial backend only: miniapp would run
# but every rank would use one thread. Refuse it unless MINIAPP_ALLOW_SERIAL_KOKKOS=ON.
function(miniapp_require_parallel_kokkos)
  set(backends "")
  foreach(b OpenMP Threads HPX CUDA HIP SYCL OpenMPTarget)
    string(TOUPPER ${b} B)
    if(COMMAND kokkos_check)
      kokkos_check(DEVICES ${b} RETURN_VALUE has_${b})
    else()
      set(has_${b} FALSE)
      if(Kokkos_DEVICES MATCHES "${B}")
        set(has_${b} TRUE)
      endif()
    endif()
    if(has_${b})
      list(APPEND backends ${b})
    endif()
  endforeach()
  set(MINIAPP_KOKKOS_BACKENDS "${backends}" PARENT_SCOPE)
  list(FILTER backends INCLUDE REGEX "OpenMP|Threads|HPX")
  if(backends)
    message(STATUS "Kokkos ${Kokkos_VERSION} host parallel backend(s): ${backends}")
  elseif(MINIAPP_ALLOW_SERIAL_KOKKOS)
    message(WARNING "Kokkos ${Kokkos_VERSION} has no parallel host backend: each rank runs one thread "
                    "(accepted because MINIAPP_ALLOW_SERIAL_KOKKOS=ON).")
  else()
    message(FATAL_ERROR
      "Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR} has no parallel host backend (OpenMP/Threads); "
      "miniapp runs MPI ranks x OpenMP threads. This is what Debian's libtrilinos-kokkos-dev gives. "
      "Run scripts/install-deps.sh (builds Kokkos with OpenMP into /opt/miniapp/kokkos), or point "
      "Kokkos_ROOT at a Kokkos with OpenMP (Spack: kokkos+openmp), or configure with "
      "-DMINIAPP_ALLOW_SERIAL_KOKKOS=ON to accept one thread per rank.")
  endif()
endfunction()
