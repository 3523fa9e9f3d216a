/*
 * Solves the benchmark request against the generated channel with libsolv in
 * conda mode (the solver mamba uses), to prove the GPU stack is solvable and to
 * show its solution. It also times libsolv's own repodata.json loading, a
 * baseline for gpuenv's parser.
 *
 * Build (from the repository root, after scripts/setup.sh built libsolv):
 *   gcc -O2 -o build/bench/solve_request bench/channel/solve_request.c \
 *       -Ibuild/deps/libsolv/include -Lbuild/deps/libsolv/lib -lsolvext -lsolv -lz
 * Run:
 *   build/bench/solve_request build/bench/channel [--cuda 12.4] [--glibc 2.35] [--quiet]
 * It reads <channel>/linux-64/repodata.json, <channel>/noarch/repodata.json and
 * the specs in <channel>/request.txt (one MatchSpec per line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/repodata.h>
#include <solv/solver.h>
#include <solv/solvable.h>
#include <solv/transaction.h>
#include <solv/conda.h>
#include <solv/repo_conda.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_virtual(Pool *pool, Repo *repo, const char *name, const char *version)
{
  Id p = repo_add_solvable(repo);
  Solvable *s = pool_id2solvable(pool, p);
  s->name = pool_str2id(pool, name, 1);
  s->evr = pool_str2id(pool, version, 1);
  s->provides = repo_addid_dep(repo, s->provides, pool_rel2id(pool, s->name, s->evr, REL_EQ, 1), 0);
  repodata_add_poolstr_array(repo_last_repodata(repo), p, SOLVABLE_BUILDFLAVOR, "0");
}

static int load(Pool *pool, const char *dir, const char *subdir)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s/repodata.json", dir, subdir);
  FILE *fp = fopen(path, "r");
  if (!fp)
    {
      perror(path);
      return -1;
    }
  Repo *repo = repo_create(pool, subdir);
  int r = repo_add_conda(repo, fp, 0);
  fclose(fp);
  if (r)
    fprintf(stderr, "%s: %s\n", path, pool_errstr(pool));
  return r;
}

int main(int argc, char **argv)
{
  const char *dir = 0, *cuda = "12.4", *glibc = "2.35";
  int quiet = 0;
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp(argv[i], "--cuda") && i + 1 < argc)
        cuda = argv[++i];
      else if (!strcmp(argv[i], "--glibc") && i + 1 < argc)
        glibc = argv[++i];
      else if (!strcmp(argv[i], "--quiet"))
        quiet = 1;
      else
        dir = argv[i];
    }
  if (!dir)
    {
      fprintf(stderr, "usage: %s CHANNEL_DIR [--cuda X.Y] [--glibc X.Y] [--quiet]\n", argv[0]);
      return 2;
    }

  double t0 = now();
  Pool *pool = pool_create();
  pool_setdisttype(pool, DISTTYPE_CONDA);
  if (load(pool, dir, "linux-64") || load(pool, dir, "noarch"))
    return 1;
  double t1 = now();

  Repo *virt = repo_create(pool, "virtual");
  repo_add_repodata(virt, 0);
  if (*cuda)
    add_virtual(pool, virt, "__cuda", cuda);
  add_virtual(pool, virt, "__glibc", glibc);
  add_virtual(pool, virt, "__linux", "6.1");
  add_virtual(pool, virt, "__unix", "0");
  add_virtual(pool, virt, "__archspec", "1");
  repo_internalize(virt);
  pool_set_installed(pool, virt);
  pool_addfileprovides(pool);
  pool_createwhatprovides(pool);
  double t2 = now();

  char path[4096], line[1024];
  snprintf(path, sizeof(path), "%s/request.txt", dir);
  FILE *rf = fopen(path, "r");
  if (!rf)
    {
      perror(path);
      return 1;
    }
  Queue job;
  queue_init(&job);
  while (fgets(line, sizeof(line), rf))
    {
      line[strcspn(line, "\r\n")] = 0;
      if (!*line || *line == '#')
        continue;
      Id dep = pool_conda_matchspec(pool, line);
      if (!dep)
        {
          fprintf(stderr, "cannot parse spec '%s'\n", line);
          return 1;
        }
      queue_push2(&job, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, dep);
    }
  fclose(rf);

  Solver *solver = solver_create(pool);
  solver_set_flag(solver, SOLVER_FLAG_ALLOW_DOWNGRADE, 1);
  solver_set_flag(solver, SOLVER_FLAG_ALLOW_UNINSTALL, 1);
  int nprob = solver_solve(solver, &job);
  double t3 = now();

  int installs = 0;
  if (nprob)
    {
      printf("UNSOLVABLE: %d problem(s)\n", nprob);
      for (Id problem = 1; problem <= nprob; problem++)
        printf("  - %s\n", solver_problem2str(solver, problem));
    }
  else
    {
      Transaction *trans = solver_create_transaction(solver);
      for (int i = 0; i < trans->steps.count; i++)
        {
          Id p = trans->steps.elements[i];
          Solvable *s = pool_id2solvable(pool, p);
          if (s->repo == virt)
            continue;
          installs++;
          if (!quiet)
            printf("  %-32s %-14s %s\n", pool_id2str(pool, s->name), pool_id2str(pool, s->evr),
                   solvable_lookup_str(s, SOLVABLE_BUILDFLAVOR) ?: "");
        }
      transaction_free(trans);
      printf("solution: %d packages\n", installs);
    }
  printf("pool: %d solvables; load %.2f s, index %.2f s, solve %.2f s\n", pool->nsolvables,
         t1 - t0, t2 - t1, t3 - t2);
  solver_free(solver);
  queue_free(&job);
  pool_free(pool);
  return nprob ? 1 : 0;
}
