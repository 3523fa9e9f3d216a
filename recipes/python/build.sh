#!/bin/bash
# CPython 3.13, shared, without PGO/LTO (see recipe.yaml).
set -euxo pipefail

# Only the host prefix's libraries: never the machine's -dev packages.
export PKG_CONFIG_LIBDIR="${PREFIX}/lib/pkgconfig"
export PKG_CONFIG_PATH="${PREFIX}/lib/pkgconfig"
export CPPFLAGS="${CPPFLAGS:-} -I${PREFIX}/include"
# $PREFIX/lib as run path: the builder makes it $ORIGIN-relative.
export LDFLAGS="${LDFLAGS:-} -L${PREFIX}/lib -Wl,-rpath,${PREFIX}/lib"
export OPT="-DNDEBUG -O2 -Wall"
# Modules whose libraries no recipe here provides: not built, so that the
# machine's headers (uuid-dev, tk-dev, libgdbm-dev) are not picked up.
export py_cv_module__uuid=n/a py_cv_module__tkinter=n/a py_cv_module__gdbm=n/a py_cv_module__dbm=n/a

./configure \
  --prefix="${PREFIX}" \
  --enable-shared \
  --enable-ipv6 \
  --with-ensurepip=no \
  --with-tzpath="${PREFIX}/share/zoneinfo" \
  --with-computed-gotos \
  --enable-loadable-sqlite-extensions \
  --with-platlibdir=lib \
  --with-openssl="${PREFIX}" \
  --with-system-ffi \
  --without-system-libmpdec \
  --without-system-expat \
  || { cat config.log; exit 1; }

make -j"${CPU_COUNT}"
# Hash-checked .pyc: valid whatever the installed files' modification times.
make install COMPILEALL_OPTS="-j${CPU_COUNT} --invalidation-mode checked-hash"

# Every module must have been built: no silent "missing" (a library not found).
missing=$(sed -n 's/^MODULE_\(.*\)_STATE=missing$/\1/p' Makefile | tr '\n' ' ')
if [ -n "${missing}" ]; then
  echo "modules missing their libraries: ${missing}" >&2
  exit 1
fi

cd "${PREFIX}/bin"
ln -sf python3.13 python
ln -sf pydoc3.13 pydoc
ln -sf python3.13-config python-config
rm -f "${PREFIX}/lib/libpython3.13.a" "${PREFIX}"/lib/python3.13/config-3.13-*/libpython3.13.a
