#!/bin/bash
# Both outputs build zlib and install it into a staging directory; each then
# copies its own part into $PREFIX (libzlib: the shared library; zlib: the
# rest, what libzlib, installed in its host environment, does not already hold).
set -euxo pipefail

export CFLAGS="${CFLAGS:-} -O2 -fPIC"
export LDCONFIG=true   # never touch the machine's ld.so.cache
./configure --prefix="${PREFIX}" --shared || { cat configure.log; exit 1; }
make -j"${CPU_COUNT}"
stage="${SRC_DIR}/_stage"
make install DESTDIR="${stage}"
root="${stage}${PREFIX}"
rm -rf "${root}/share"   # man pages, as conda-forge

mkdir -p "${PREFIX}/lib"
case "${PKG_NAME}" in
  libzlib)
    cp -a "${root}"/lib/libz.so.* "${PREFIX}/lib/"
    ;;
  zlib)
    cp -an "${root}/." "${PREFIX}/"
    ;;
esac
