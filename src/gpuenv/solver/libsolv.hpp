// The one place libsolv's headers are included. They name a struct member
// `requires`, a keyword since C++20, so it is renamed around the includes.
// Include this only from .cpp files of the solver module.
#pragma once

#define requires solv_requires
extern "C" {
#include <solv/pool.h>
#include <solv/chksum.h>
#include <solv/conda.h>
#include <solv/evr.h>
#include <solv/problems.h>
#include <solv/queue.h>
#include <solv/poolarch.h>
#include <solv/repo.h>
#include <solv/repo_conda.h>
#include <solv/repo_solv.h>
#include <solv/repo_write.h>
#include <solv/repodata.h>
#include <solv/rules.h>
#include <solv/selection.h>
#include <solv/solvable.h>
#include <solv/solver.h>
#include <solv/solverdebug.h>
#include <solv/solvversion.h>
#include <solv/transaction.h>
}
#undef requires
