#!/bin/bash
set -euxo pipefail

# Upstream's release tarball has configure; a tree made from the git tag
# (Debian's orig) does not.
if [ ! -x configure ]; then
  # LT_SYS_SYMBOL_USCORE comes from libtool's ltdl.m4 (Debian: libltdl-dev);
  # without it, say what it finds on Linux: ELF symbols have no underscore.
  if ! grep -qs LT_SYS_SYMBOL_USCORE "$(aclocal --print-ac-dir)"/*.m4; then
    mkdir -p m4
    printf '%s\n' 'AC_DEFUN([LT_SYS_SYMBOL_USCORE], [sys_symbol_underscore=no' \
      'AC_SUBST([sys_symbol_underscore])])' > m4/lt_sys_symbol_uscore.m4
  fi
  autoreconf -vfi
fi

# install into $PREFIX/lib, not lib64 or lib/../lib64 (conda-forge's build.sh)
sed -i 's:@toolexeclibdir@:$(libdir):g' Makefile.in */Makefile.in
sed -i 's:@toolexeclibdir@:${libdir}:g' libffi.pc.in

./configure --prefix="${PREFIX}" --includedir="${PREFIX}/include" \
  --disable-debug --disable-dependency-tracking --disable-exec-static-tramp --disable-docs ||
  { cat config.log; exit 1; }
make -j"${CPU_COUNT}"
make install
find "${PREFIX}/lib" -name '*.la' -delete
rm -rf "${PREFIX}/share/info/dir"
