"""Which versions of a package existed when, and how dependents pin it.

A record built at time t that links against library L pins L the way L's
run_exports say (`pin_subpackage(L, max_pin='x.x')` and friends), using the
newest L released by t. That is what keeps the generated graph both dense and
solvable: new records pin new libraries, and the newest builds of everything
agree with each other.
"""
import bisect


def _split(v):
    out = []
    for part in v.replace("_", ".").replace("-", ".").split("."):
        digits = ""
        for ch in part:
            if ch.isdigit():
                digits += ch
            else:
                break
        out.append(int(digits) if digits else 0)
    return out


def upper_bound(v, max_pin):
    """conda-build's pin upper bound: 1.2.13 with x.x -> 1.3.0a0."""
    n = {"x": 1, "x.x": 2, "x.x.x": 3, "x.x.x.x": 4}[max_pin]
    nums = _split(v)
    while len(nums) < n:
        nums.append(0)
    nums = nums[:n]
    nums[-1] += 1
    if n == 1:
        return f"{nums[0]}.0a0"
    return ".".join(str(x) for x in nums) + ".0a0"


class Entry:
    __slots__ = ("name", "versions", "times", "policy", "monotone", "builds")

    def __init__(self, name, versions, policy, monotone):
        # versions: list of (version, release time), in ascending version order
        self.name = name
        self.versions = [v for v, _ in versions]
        self.times = [t for _, t in versions]
        self.policy = policy
        self.monotone = monotone
        self.builds = {}    # version -> [(time, build string)] for exact pins

    def at(self, t, prefix=None):
        """Newest version released by t (the oldest one when none was)."""
        if self.monotone and prefix is None:
            i = bisect.bisect_right(self.times, t) - 1
            return self.versions[max(i, 0)]
        best = first = None
        for v, rt in zip(self.versions, self.times):
            if prefix is not None and not v.startswith(prefix):
                continue
            if first is None:
                first = v
            if rt <= t:
                best = v
        if best is not None:
            return best
        return first if first is not None else self.versions[-1]


class Catalog:
    def __init__(self):
        self.entries = {}

    def add(self, name, versions, policy="x.x", monotone=False):
        e = Entry(name, versions, policy, monotone)
        self.entries[name] = e
        return e

    def add_or_extend(self, name, versions, policy="lower"):
        """Registers versions of a package that several series publish (setuptools)."""
        e = self.entries.get(name)
        if e is None:
            return self.add(name, versions, policy)
        for v, t in versions:
            e.versions.append(v)
            e.times.append(t)
        return e

    def __contains__(self, name):
        return name in self.entries

    def version_at(self, name, t, prefix=None):
        return self.entries[name].at(t, prefix)

    def pin(self, name, t, policy=None, prefix=None):
        """`name >=v,<upper` for the newest v by t, following name's run_exports."""
        e = self.entries[name]
        v = e.at(t, prefix)
        policy = policy or e.policy
        if policy is None:
            return name
        if callable(policy):
            return f"{name} {policy(v)}"
        if policy == "lower":
            return f"{name} >={v}"
        if policy == "exact":
            return f"{name} {v}.*"
        if policy == "openssl1":
            # openssl 1.x.yz pins as >=1.1.1w,<1.1.2a (letters are patch releases)
            a, b, c = v[:5].split(".")
            return f"{name} >={v},<{a}.{b}.{int(c) + 1}a"
        return f"{name} >={v},<{upper_bound(v, policy)}"

    def note_build(self, name, version, t, build):
        e = self.entries.get(name)
        if e is not None:
            e.builds.setdefault(version, []).append((t, build))

    def exact(self, name, t, version=None):
        """`name version build` of the newest build of name by t (exact pins)."""
        e = self.entries[name]
        v = version or e.at(t)
        builds = e.builds.get(v) or []
        best = None
        for bt, b in builds:
            if bt <= t or best is None:
                best = b
        return f"{name} {v} {best}" if best else f"{name} {v}.*"
