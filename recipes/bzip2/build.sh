#!/bin/bash
# As conda-forge's build.sh: the tools and libbz2.a from the Makefile, the
# shared library from Makefile-libbz2_so.
set -euxo pipefail

export CFLAGS="${CFLAGS:-} -Wall -Winline -O2 -g -D_FILE_OFFSET_BITS=64 -fPIC"
make install -j"${CPU_COUNT}" PREFIX="${PREFIX}" CFLAGS="${CFLAGS}" CC="${CC}"

make -f Makefile-libbz2_so CFLAGS="${CFLAGS}" CC="${CC}"
ln -s "libbz2.so.${PKG_VERSION}" libbz2.so
cp -d libbz2.so* "${PREFIX}/lib/"
rm -f "${PREFIX}/lib/libbz2.so.1.0" && ln -s "libbz2.so.${PKG_VERSION}" "${PREFIX}/lib/libbz2.so.1.0"

# The Makefile links bzegrep & co. to absolute paths in $PREFIX: make them
# relative, so the links survive installation elsewhere.
for link in "${PREFIX}"/bin/*; do
  if [ -L "${link}" ]; then
    target=$(readlink "${link}")
    case "${target}" in
      "${PREFIX}"/bin/*) ln -sfn "$(basename "${target}")" "${link}" ;;
    esac
  fi
done

mkdir -p "${PREFIX}/share/man"
mv "${PREFIX}"/man/* "${PREFIX}/share/man/"
rmdir "${PREFIX}/man"
