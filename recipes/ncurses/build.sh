#!/bin/bash
# conda-forge's ncurses build.sh: a narrow and a wide-character build.
set -euxo pipefail

export PKG_CONFIG_LIBDIR="${PREFIX}/lib/pkgconfig"
for USE_WIDEC in false true; do
  if [ "${USE_WIDEC}" = true ]; then WIDEC_OPT=--enable-widec; w=w; else WIDEC_OPT=--disable-widec; w=""; fi

  sh ./configure \
    --prefix="${PREFIX}" \
    --without-debug \
    --without-ada \
    --without-manpages \
    --without-tests \
    --with-shared \
    --without-normal \
    --with-pkg-config \
    --with-pkg-config-libdir="${PREFIX}/lib/pkgconfig" \
    --disable-overwrite \
    --enable-symlinks \
    --enable-termcap \
    --enable-pc-files \
    --with-termlib \
    --with-versioned-syms \
    --disable-mixed-case \
    ${WIDEC_OPT}
  make -j"${CPU_COUNT}"
  make install
  make distclean

  # Headers in $PREFIX/include, linked from include/ncurses[w]/.
  HEADERS_DIR="${PREFIX}/include/ncurses${w}"
  for HEADER in $(ls "${HEADERS_DIR}"); do
    mv "${HEADERS_DIR}/${HEADER}" "${PREFIX}/include/${HEADER}"
    ln -s "../${HEADER}" "${HEADERS_DIR}/${HEADER}"
  done

  # libncurses[w].so as a linker script, so that -lncurses[w] also brings in
  # -ltinfo[w].
  DEVLIB="${PREFIX}/lib/libncurses${w}.so"
  RUNLIB=$(basename "$(readlink "${DEVLIB}")")
  rm "${DEVLIB}"
  echo "INPUT(${RUNLIB} -ltinfo${w})" > "${DEVLIB}"
done
rm -f "${PREFIX}"/lib/*.a
