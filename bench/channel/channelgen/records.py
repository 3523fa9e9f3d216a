"""Package records and their serialisation as conda repodata.json.

Records are rendered to text as soon as they are added: holding 600k dicts
would cost gigabytes and the writer only needs the text. Two layouts: compact
(`json.dumps(sort_keys=True, separators=(",", ":"))`, the default: it gives the
~500 bytes per record of conda-forge's ~250 MB / ~500k record linux-64 index)
and conda-index's `json.dumps(indent=2, sort_keys=True)` (--indent, ~30% more
bytes of whitespace).
"""
import calendar
import hashlib
import os
from json.encoder import encode_basestring_ascii as _enc  # the C implementation

SUBDIRS = ("linux-64", "noarch")
SECTIONS = ("packages", "packages.conda")


def ts(date):
    """'YYYY-MM' or 'YYYY-MM-DD' (UTC) -> seconds since the epoch."""
    parts = [int(p) for p in date.split("-")]
    while len(parts) < 3:
        parts.append(1)
    return calendar.timegm((parts[0], parts[1], parts[2], 0, 0, 0))


DAY = 86400
NOW = ts("2024-11-20")                 # the channel's "today"
CONDA_FORMAT_ONLY = ts("2022-11-15")   # conda-forge uploads only .conda from here on
CONDA_FORMAT_FROM = ts("2022-06-01")   # feedstocks opting in to .conda before that
MILLIS_FROM = ts("2019-01-01")         # conda-build writes millisecond timestamps


def hash7(*parts):
    """A conda-build-like 7 hex digit variant hash, stable for equal inputs."""
    return hashlib.md5("|".join(parts).encode()).hexdigest()[:7]


LICENSE_FAMILY = {
    "MIT": "MIT", "BSD-3-Clause": "BSD", "BSD-2-Clause": "BSD", "Apache-2.0": "APACHE",
    "GPL-3.0-or-later": "GPL3", "GPL-3.0-only": "GPL3", "GPL-2.0-or-later": "GPL2",
    "GPL-2.0-only": "GPL2", "LGPL-2.1-or-later": "LGPL", "LGPL-2.1-only": "LGPL",
    "LGPL-3.0-or-later": "LGPL", "MPL-2.0": "MOZILLA", "PSF-2.0": "PSF", "ISC": "OTHER",
    "Zlib": "OTHER", "Unlicense": "PUBLIC-DOMAIN", "Python-2.0": "PSF",
    "GPL-2.0-or-later OR GPL-3.0-or-later": "GPL", "Artistic-1.0-Perl": "OTHER",
    "LicenseRef-NVIDIA-End-User-License-Agreement": "PROPRIETARY",
}


class Channel:
    """Collects rendered records per subdir and per section, and writes them."""

    def __init__(self, seed, compact=False):
        self.salt = f"gpuenv-bench-channel/{seed}/".encode()
        self.compact = compact
        self.buckets = {(s, k): [] for s in SUBDIRS for k in SECTIONS}
        self._fns = {s: set() for s in SUBDIRS}   # membership only, never iterated
        self.names = {s: {} for s in SUBDIRS}     # name -> record count, insertion ordered
        if compact:
            self._t = dict(open="{", key_sep=":", item_sep=",", close="}",
                           lopen="[", lsep=",", lclose="]")
        else:
            self._t = dict(open="{\n      ", key_sep=": ", item_sep=",\n      ",
                           close="\n    }", lopen="[\n        ", lsep=",\n        ",
                           lclose="\n      ]")

    def count(self, subdir=None):
        if subdir is None:
            return sum(len(v) for v in self.buckets.values())
        return sum(len(self.buckets[(subdir, k)]) for k in SECTIONS)

    def has(self, subdir, fn_stem):
        return (fn_stem + ".conda") in self._fns[subdir] or (fn_stem + ".tar.bz2") in self._fns[subdir]

    def add(self, name, version, build, build_number, depends, t, *, subdir, license,
            size, constrains=None, noarch=None, track_features=None, license_family=None):
        """Adds one record; returns False when that file name is already taken."""
        stem = f"{name}-{version}-{build}"
        digest = hashlib.sha256(self.salt + stem.encode()).hexdigest()
        if t >= CONDA_FORMAT_ONLY:
            ext = ".conda"
        elif t >= CONDA_FORMAT_FROM and int(digest[0], 16) < 6:
            ext = ".conda"
        else:
            ext = ".tar.bz2"
        fn = stem + ext
        fns = self._fns[subdir]
        if fn in fns:
            return False
        fns.add(fn)
        md5 = hashlib.md5(self.salt + fn.encode()).hexdigest()
        if t >= MILLIS_FROM:
            timestamp = t * 1000 + int(digest[-3:], 16) % 1000
        else:
            timestamp = t
        if license_family is None:
            license_family = LICENSE_FAMILY.get(license)
        elif license_family is False:
            license_family = None
        T = self._t
        ks = T["key_sep"]
        sep = T["item_sep"]

        def lst(items):
            if not items:
                return "[]"
            return T["lopen"] + T["lsep"].join(map(_enc, items)) + T["lclose"]

        parts = [_enc(fn), ks, T["open"],
                 '"build"', ks, _enc(build), sep,
                 '"build_number"', ks, str(build_number)]
        if constrains:
            parts += [sep, '"constrains"', ks, lst(constrains)]
        parts += [sep, '"depends"', ks, lst(depends),
                  sep, '"license"', ks, _enc(license)]
        if license_family:
            parts += [sep, '"license_family"', ks, _enc(license_family)]
        parts += [sep, '"md5"', ks, '"', md5, '"',
                  sep, '"name"', ks, _enc(name)]
        if noarch:
            parts += [sep, '"noarch"', ks, _enc(noarch)]
        parts += [sep, '"sha256"', ks, '"', digest, '"',
                  sep, '"size"', ks, str(size),
                  sep, '"subdir"', ks, '"', subdir, '"',
                  sep, '"timestamp"', ks, str(timestamp)]
        if track_features:
            parts += [sep, '"track_features"', ks, _enc(track_features)]
        parts += [sep, '"version"', ks, _enc(version), T["close"]]
        section = "packages.conda" if ext == ".conda" else "packages"
        self.buckets[(subdir, section)].append((fn, "".join(parts)))
        names = self.names[subdir]
        names[name] = names.get(name, 0) + 1
        return True

    def write(self, out_dir):
        """Writes <out_dir>/<subdir>/repodata.json; returns {subdir: (path, bytes)}."""
        result = {}
        for subdir in SUBDIRS:
            d = os.path.join(out_dir, subdir)
            os.makedirs(d, exist_ok=True)
            path = os.path.join(d, "repodata.json")
            tmp = path + ".tmp"
            with open(tmp, "w", encoding="ascii", newline="\n") as f:
                if self.compact:
                    f.write('{"info":{"subdir":"%s"},' % subdir)
                    for section in SECTIONS:
                        recs = self.buckets[(subdir, section)]
                        recs.sort()
                        f.write('"%s":{' % section)
                        f.write(",".join(text for _, text in recs))
                        f.write("},")
                    f.write('"removed":[],"repodata_version":1}')
                else:
                    f.write('{\n  "info": {\n    "subdir": "%s"\n  },\n' % subdir)
                    for section in SECTIONS:
                        recs = self.buckets[(subdir, section)]
                        recs.sort()
                        if not recs:
                            f.write('  "%s": {},\n' % section)
                            continue
                        f.write('  "%s": {\n    ' % section)
                        # write in slices: one giant join would double peak memory
                        step = 20000
                        for i in range(0, len(recs), step):
                            if i:
                                f.write(",\n    ")
                            f.write(",\n    ".join(text for _, text in recs[i:i + step]))
                        f.write("\n  },\n")
                    f.write('  "removed": [],\n  "repodata_version": 1\n}\n')
            os.replace(tmp, path)
            result[subdir] = (path, os.path.getsize(path))
        return result
