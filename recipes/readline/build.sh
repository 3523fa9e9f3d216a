#!/bin/bash
set -euxo pipefail

export PKG_CONFIG_LIBDIR="${PREFIX}/lib/pkgconfig"
export CPPFLAGS="${CPPFLAGS:-} -I${PREFIX}/include"
export LDFLAGS="${LDFLAGS:-} -L${PREFIX}/lib"
./configure --prefix="${PREFIX}" --disable-static --with-curses || { cat config.log; exit 1; }
make SHLIB_LIBS="$(pkg-config --libs ncurses)" -j"${CPU_COUNT}"
make install
rm -f "${PREFIX}/share/info/dir"  # the info index, which every GNU package would claim
