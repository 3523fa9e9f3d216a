#!/bin/bash
# Every output builds XZ Utils; liblzma copies the shared library only, the
# others install into a staging directory and copy what the outputs already
# in their host environment do not hold, less what belongs to a later output
# (conda-forge's install.sh).
set -euxo pipefail

# xz holds no file of its own: it is the other four (run requirements).
[ "${PKG_NAME}" = xz ] && exit 0
./configure --prefix="${PREFIX}" --disable-static --disable-doc
if [ "${PKG_NAME}" = liblzma ]; then
  make -j"${CPU_COUNT}" -C src/liblzma
  mkdir -p "${PREFIX}/lib"
  cp -a src/liblzma/.libs/liblzma.so.* "${PREFIX}/lib/"
  exit 0
fi
make -j"${CPU_COUNT}"
stage="${SRC_DIR}/_stage"
make install DESTDIR="${stage}"
root="${stage}${PREFIX}"
find "${root}" -name '*.la' -delete

gpl_tools=(lzcmp lzdiff lzegrep lzfgrep lzgrep lzless lzmore xzcmp xzdiff xzegrep xzfgrep xzgrep xzless xzmore)
tools=(lzcat lzma lzmadec lzmainfo xz xzcat unlzma xzdec unxz)
if [ "${PKG_NAME}" != xz-gpl-tools ]; then
  rm -f "${root}/share/doc/xz/COPYING.GPLv2"
  for tool in "${gpl_tools[@]}"; do rm -f "${root}/bin/${tool}" "${root}"/share/man/*/man1/"${tool}".1 "${root}/share/man/man1/${tool}.1"; done
fi
if [ "${PKG_NAME}" != xz-tools ]; then
  rm -f "${root}/share/doc/xz/COPYING.0BSD"
  for tool in "${tools[@]}"; do rm -f "${root}/bin/${tool}" "${root}"/share/man/*/man1/"${tool}".1 "${root}/share/man/man1/${tool}.1"; done
fi
cp -an "${root}/." "${PREFIX}/"
