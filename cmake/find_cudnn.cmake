# cuDNN, for the convolution baseline (reference/cudnn_conv.h, `boo driver --backend cudnn`).
# Looked for in order: the CUDA toolkit's folders, CUDNN_ROOT (cache or environment), the
# Python wheel nvidia-cudnn-cu13 (or -cu12) of the python3 on PATH (nvidia/cudnn/include and
# lib/libcudnn.so.9: no unversioned .so, so the versioned file is linked by its path), then the
# system's folders; header and library come from the same place. Without cuDNN boo still builds
# (BOO_HAVE_CUDNN=0) and the baseline says that it is missing.
set(CUDNN_ROOT "$ENV{CUDNN_ROOT}" CACHE PATH "cuDNN root (include/cudnn.h, lib/ or lib64/)")
set(BOO_CUDNN_LIBRARY "")
function(boo_try_cudnn from include_dir)
  if(BOO_CUDNN_LIBRARY OR NOT EXISTS "${include_dir}/cudnn.h")
    return()
  endif()
  foreach(dir IN LISTS ARGN)
    foreach(name libcudnn.so libcudnn.so.9)
      if(EXISTS "${dir}/${name}")
        set(BOO_CUDNN_INCLUDE_DIR "${include_dir}" PARENT_SCOPE)
        set(BOO_CUDNN_LIBRARY "${dir}/${name}" PARENT_SCOPE)
        set(BOO_CUDNN_FROM "${from}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
endfunction()
foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
  boo_try_cudnn("the CUDA toolkit" "${dir}" "${CUDAToolkit_LIBRARY_DIR}")
endforeach()
if(CUDNN_ROOT)
  boo_try_cudnn("CUDNN_ROOT" "${CUDNN_ROOT}/include" "${CUDNN_ROOT}/lib64" "${CUDNN_ROOT}/lib"
                "${CUDNN_ROOT}/lib/x86_64-linux-gnu")
endif()
if(NOT BOO_CUDNN_LIBRARY)
  find_program(BOO_PYTHON3 NAMES python3 python)
  if(BOO_PYTHON3)
    execute_process(
      COMMAND "${BOO_PYTHON3}" -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])"
      OUTPUT_VARIABLE boo_cudnn_wheel RESULT_VARIABLE boo_cudnn_rc ERROR_QUIET
      OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(boo_cudnn_rc EQUAL 0 AND boo_cudnn_wheel)
      boo_try_cudnn("the Python wheel" "${boo_cudnn_wheel}/include" "${boo_cudnn_wheel}/lib"
                    "${boo_cudnn_wheel}/lib64")
    endif()
  endif()
endif()
boo_try_cudnn("the system" /usr/include /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib)
boo_try_cudnn("the system" /usr/include/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu)
if(BOO_CUDNN_LIBRARY)
  file(STRINGS "${BOO_CUDNN_INCLUDE_DIR}/cudnn_version.h" boo_cudnn_defs
       REGEX "^#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) +[0-9]+")
  string(REGEX REPLACE
         ".*CUDNN_MAJOR +([0-9]+).*CUDNN_MINOR +([0-9]+).*CUDNN_PATCHLEVEL +([0-9]+).*"
         "\\1.\\2.\\3" BOO_CUDNN_VERSION "${boo_cudnn_defs}")
  add_library(boo_cudnn SHARED IMPORTED)
  set_target_properties(boo_cudnn PROPERTIES
    IMPORTED_LOCATION "${BOO_CUDNN_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${BOO_CUDNN_INCLUDE_DIR}")
  # A folder outside the linker's defaults (the wheel's) goes into the build RPATH, so `boo` and
  # the tests find libcudnn.so.9 at run time without LD_LIBRARY_PATH; its own RUNPATH ($ORIGIN)
  # finds the sub-libraries (libcudnn_cnn.so.9, ...) it loads on demand.
  get_filename_component(boo_cudnn_libdir "${BOO_CUDNN_LIBRARY}" DIRECTORY)
  if(NOT boo_cudnn_libdir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    list(APPEND CMAKE_BUILD_RPATH "${boo_cudnn_libdir}")
  endif()
  message(STATUS "boo: cuDNN ${BOO_CUDNN_VERSION} from ${BOO_CUDNN_FROM}: ${BOO_CUDNN_LIBRARY}")
else()
  message(STATUS "boo: cuDNN not found (CUDA toolkit, CUDNN_ROOT, Python wheel nvidia-cudnn-cu13, "
                 "system): building without the cuDNN convolution baseline")
endif()
