#!/bin/bash
# conda-forge's sqlite build.sh. Works on the sqlite-autoconf tarball
# (sqlite3.c ready) and on SQLite's full source tree (Debian's orig), whose
# Makefile generates sqlite3.c with tclsh first.
set -euxo pipefail

export OPTIONS="-DSQLITE_DQS=3 \
                -DSQLITE_ENABLE_COLUMN_METADATA \
                -DSQLITE_ENABLE_DBSTAT_VTAB \
                -DSQLITE_ENABLE_DESERIALIZE \
                -DSQLITE_ENABLE_EXPLAIN_COMMENTS \
                -DSQLITE_ENABLE_FTS3 \
                -DSQLITE_ENABLE_FTS3_PARENTHESIS \
                -DSQLITE_ENABLE_FTS3_TOKENIZER \
                -DSQLITE_ENABLE_FTS4 \
                -DSQLITE_ENABLE_FTS5 \
                -DSQLITE_ENABLE_GEOPOLY \
                -DSQLITE_ENABLE_JSON1 \
                -DSQLITE_ENABLE_MATH_FUNCTIONS \
                -DSQLITE_ENABLE_PREUPDATE_HOOK \
                -DSQLITE_ENABLE_RTREE \
                -DSQLITE_ENABLE_SESSION \
                -DSQLITE_ENABLE_STAT4 \
                -DSQLITE_ENABLE_STMTVTAB \
                -DSQLITE_ENABLE_UNLOCK_NOTIFY \
                -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT \
                -DSQLITE_LIKE_DOESNT_MATCH_BLOBS \
                -DSQLITE_MAX_EXPR_DEPTH=10000 \
                -DSQLITE_MAX_VARIABLE_NUMBER=250000 \
                -DSQLITE_SOUNDEX \
                -DSQLITE_STRICT_SUBTYPE=1 \
                -DSQLITE_THREADSAFE=1 \
                -DSQLITE_USE_URI \
                -DHAVE_ISNAN \
                -DHAVE_PREAD64 -DHAVE_PWRITE64"

configure_args=(--prefix="${PREFIX}" --enable-threadsafe --enable-load-extension --disable-static)
if [ -f sqlite3.c ]; then
  # the amalgamation (sqlite-autoconf)
  configure_args+=(--disable-static-shell)
  [ "${PKG_NAME}" = sqlite ] && configure_args+=(--enable-readline) || configure_args+=(--disable-readline)
else
  # the full tree: no TCL extension; the shell links the shared library
  configure_args+=(--disable-tcl)
  [ "${PKG_NAME}" = sqlite ] && configure_args+=(--with-readline-inc="-I${PREFIX}/include" --with-readline-lib="-L${PREFIX}/lib -lreadline -ltinfow") \
                             || configure_args+=(--disable-readline)
fi
./configure "${configure_args[@]}" \
  CFLAGS="${CFLAGS:-} -O2 ${OPTIONS} -I${PREFIX}/include" \
  LDFLAGS="${LDFLAGS:-} -L${PREFIX}/lib" || { cat config.log; exit 1; }
stage="${SRC_DIR}/_stage"
root="${stage}${PREFIX}"
if [ -f sqlite3.c ]; then
  make -j"${CPU_COUNT}"
  make install DESTDIR="${stage}"
elif [ "${PKG_NAME}" = libsqlite ]; then
  # the full tree: the library alone (its shell compiles sqlite3.c in again)
  make -j"${CPU_COUNT}" libsqlite3.la sqlite3.h sqlite3.pc
  make lib_install DESTDIR="${stage}"
  install -d "${root}/include" "${root}/lib/pkgconfig"
  install -m 0644 sqlite3.h src/sqlite3ext.h "${root}/include/"
  install -m 0644 sqlite3.pc "${root}/lib/pkgconfig/"
else
  # the full tree: the shell alone
  make -j"${CPU_COUNT}" sqlite3
  install -d "${root}/bin"
  install -m 0755 sqlite3 "${root}/bin/"
fi
find "${root}" -name '*.la' -delete

case "${PKG_NAME}" in
  libsqlite)
    mkdir -p "${PREFIX}/lib/pkgconfig" "${PREFIX}/include"
    cp -a "${root}"/lib/libsqlite* "${PREFIX}/lib/"
    cp -a "${root}"/include/sqlite*.h "${PREFIX}/include/"
    cp -a "${root}/lib/pkgconfig/sqlite3.pc" "${PREFIX}/lib/pkgconfig/"
    ;;
  sqlite)
    mkdir -p "${PREFIX}/bin"
    cp -a "${root}/bin/sqlite3" "${PREFIX}/bin/"
    ;;
esac
