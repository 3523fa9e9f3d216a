#!/bin/bash
# conda-forge's build.sh and install_openssl.sh, without `make test` and the
# documentation (no-tests, no-docs).
set -euxo pipefail

case "${target_platform}" in
  linux-aarch64) os_target=linux-aarch64 ;;
  linux-ppc64le) os_target=linux-ppc64le ;;
  *) os_target=linux-x86_64 ;;
esac
config=(--prefix="${PREFIX}" --libdir=lib enable-legacy no-fips no-module no-zlib shared threads enable-ktls
        no-tests no-docs "${os_target}")
CFLAGS="${CFLAGS:-} -O2 -Wa,--noexecstack"
CC="${CC} ${CPPFLAGS:-} ${CFLAGS}" perl ./Configure "${config[@]}" ${LDFLAGS:-}

make -j"${CPU_COUNT}"
make install_sw install_ssldirs

# Make sure the certificates directory exists: without it SSL_ERROR_SYSCALL
# is returned instead of SSL_ERROR_SSL.
mkdir -p "${PREFIX}/ssl/certs"
touch "${PREFIX}/ssl/certs/.keep"
rm -f "${PREFIX}/lib/libcrypto.a" "${PREFIX}/lib/libssl.a"
