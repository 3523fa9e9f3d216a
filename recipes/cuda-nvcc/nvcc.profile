# nvcc.profile for conda environments (NVIDIA's, with the PREFIX lines added
# as conda-forge's cuda-nvcc does): nvcc lives in the build environment
# (TOP), while a build's headers and libraries (cuda-cudart-dev, libcublas-dev,
# ...) are installed in the host environment, $PREFIX. Outside a build PREFIX
# is unset and those entries name nothing.

TOP              = $(_HERE_)/..

CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(CICC_PATH):$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" "-I$(PREFIX)/$(_TARGET_DIR_)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/$(_TARGET_DIR_)/include/cccl" "-isystem" "$(PREFIX)/$(_TARGET_DIR_)/include/cccl" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib/stubs" "-L$(TOP)/$(_TARGET_DIR_)/lib" "-L$(PREFIX)/$(_TARGET_DIR_)/lib/stubs" "-L$(PREFIX)/$(_TARGET_DIR_)/lib"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
